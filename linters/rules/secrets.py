"""Security rules (X family): secrets in committed state files.

X001 reads the text of every artifact ``ctxres check`` discovers (ORCHESTRATION files, checkpoints,
the monitor and precompact states, agent-memory task graphs and event logs, Nexus resume manifests,
rule files), including the files rejected as binary, not UTF-8, too large or unparsable (the engine
scans their first ``max-file-size`` bytes), with the recognizers of ``ctxres/redact.py``, the ones
the hooks redact with, so a value the hooks would redact is exactly a value this rule reports.
"""

from __future__ import annotations

import itertools

from ctxres.config import Config
from ctxres.findings import Finding, Position
from ctxres.formats.document import Document
from ctxres.linters.checking.registry import document_check, register
from ctxres.linters.checking.severity_policy import Case
from ctxres.redact import Secret, find_secrets, masked

FIX = (
    "revoke or rotate this credential where it was issued, then replace it in the file with `[REDACTED]` or a "
    "`${ENV_VAR}` reference; git history still holds the old value, so rotating it is what makes it safe"
)


def position(text: str, offset: int) -> Position:
    """The 1-based line and column of the character at ``offset`` (pure)."""
    line_start = text.rfind("\n", 0, offset) + 1
    return Position(text.count("\n", 0, offset) + 1, offset - line_start + 1)


def message(text: str, secret: Secret) -> str:
    """What the finding says: the kind, and what may be shown of the value (never the value)."""
    shown = f"{secret.name}: …" if secret.kind == "assignment" else masked(text, secret)
    label = secret.label[:1].upper() + secret.label[1:]
    return (
        f"{label} is written in this file (`{shown}`); anyone who can read the file or the repository's "
        "history can use it"
    )


def findings_in(doc: Document) -> list[Finding]:
    """One X001 finding per secret in the document's text, at the secret's first character (pure)."""
    return findings_in_text(doc.path, doc.text)


SECRET = register(
    "X001",
    "committed-secret",
    "A state file holds a credential (API key, token, private key or password).",
    case=Case.TOOL_JOB,
    why=(
        "The hooks inject the state into the model's context and the state is committed: a credential "
        "there leaks with every session."
    ),
    explanation="""
    ## Why
    The state files of a workflow (the ORCHESTRATION file, checkpoints, the monitor state, event
    logs, resume manifests) are committed to the repository and read back into every new session.
    A credential pasted into one of them (an API key in a `next_step`, a password in a decision
    note, a private key in an agent summary) is readable by everyone with access to the repository,
    stays in its git history, and is shown to the model again each time the session resumes.

    Recognized: Anthropic (`sk-ant-...`), OpenAI (`sk-...`, `sk-proj-...`), AWS access key IDs
    (`AKIA...`, `ASIA...`) and secret access keys, GitHub (`ghp_...`, `github_pat_...`), Slack
    (`xoxb-...`, webhook URLs), Google (`AIza...`), Stripe, npm, PyPI and GitLab tokens, JSON Web
    Tokens, `Bearer` and `Basic` authorization values, PEM private key blocks, passwords in URLs,
    and the value of `password:`, `secret=`, `api_key:`, `access_token:`-style assignments.
    Placeholders are not secrets: `password: null`, `token: ${API_TOKEN}`, `<your-key>`,
    `{unique-hash-1}`, `%API_KEY%`, `xxx`, `[REDACTED]`, a value with a template's placeholder anywhere
    in it (`JRRY-CNRY-{unique-hash-1}`, `sk-${SUFFIX}`, `id-<env>-1`, `tok_xxxx1234`), a key's shape
    filled with one character or marked as an example (`sk-xxxxxxxx...`, `AKIAIOSFODNN7EXAMPLE`, `ghp_your_token_here`),
    token counts such as `max_tokens: 4096`, and prose that merely mentions a password or a token.

    Every discovered file is scanned, including one that is otherwise rejected: binary (a NUL
    byte, P004), not UTF-8 (P003), larger than `max-file-size` (P005) or not parsable (P001). A key
    in a checkpoint that also holds a NUL byte is still a leaked key. Such a file is scanned up to
    `max-file-size` bytes, with the bytes that are not UTF-8 replaced; a key after the limit is
    not seen.

    The message names the kind of secret and shows at most its public prefix (`sk-ant-api03-…`);
    the secret itself is never printed.

    ## Example
    ```yaml
    resumption:
      recovery_state:
        next_step: "Deploy with ANTHROPIC_API_KEY=sk-ant-api03-Xq7…"   # X001 at the `s` of sk-ant
    ```

    ## Fix
    1. Treat the credential as leaked: revoke or rotate it where it was issued (the provider's
       console) first. Removing it from the file does not remove it from git history, so
       rotating it is what makes it harmless.
    2. Remove it from the file: write `[REDACTED]`, or refer to where it lives
       (`${ANTHROPIC_API_KEY}`, "the key in the team vault").
    3. If the history must be cleaned too, rewrite it (`git filter-repo`) and force-push, and ask
       everyone with a clone to re-clone.

    The hooks of ctxres already redact these values in every file they write and in the text they
    inject; this rule catches what a person or an agent wrote directly.
    """,
)


def findings_in_text(path: str, text: str) -> list[Finding]:
    """One X001 finding per secret in ``text`` (the file ``path``), at its first character (pure). The
    engine calls it directly on a file that does not parse: a broken file can hold a key too. A text whose
    lines were all cleared before (:func:`may_hold_secrets`) is not scanned again."""
    if not may_hold_secrets(text):
        return []
    return [
        Finding(
            path,
            SECRET.code,
            message(text, secret),
            SECRET.severity,
            position(text, secret.start),
            fix=FIX,
            end_position=position(text, secret.end),
        )
        for secret in find_secrets(text)
    ]


# --- the pre-filter: texts whose lines were all cleared before are not scanned again ---------------------

# Which texts cannot hold a secret, decided line by line with a memory of the lines already cleared.
#
# The state files of a repository repeat most of their lines (the keys of every ORCHESTRATION file, the
# phases of every checkpoint): scanning each whole text with every recognizer of `ctxres/redact.py`
# scans the same lines again and again. `may_hold_secrets` is a pre-filter for the linter only
# (the hooks scan one text each and keep using `ctxres.redact.find_secrets` directly): False means
# `find_secrets(text) == []`, True means "scan it" (the caller then runs `find_secrets` on the whole
# text, so what is reported does not change).
#
# Why a line can be cleared on its own: the recognizers that cannot cross a line break (the fixed-shape
# tokens, the password of a URL, the `password: ...` assignments) depend only on the line they are in
# (`\b` and the look-behinds see a line break or the start of the text alike; an assignment's name,
# "keyed" test and value stop at the line break), so `find_secrets(line) == []` rules them out for that
# line. The ones whose patterns may cross a line break (PEM blocks, `Bearer`, `Authorization: Basic`,
# AWS secret keys) are guarded in `find_secrets` by a word that must be somewhere in the text
# (`PRIVATE KEY`, `bearer`, `authorization`, `secret`): a line holding one of those words is never
# cleared. The guards of the line-local ones (a hint such as `sk-`, `://` and `@`, or a secret word)
# are inside every match, except when a case-insensitive secret word is spelled with a character that
# matches an ASCII letter (`ſecret`, `apİ_key`): a line with such a character is never cleared either.
# A text none of whose lines holds a guard word, a folding character or a line-local secret holds no secret.

_CLEARED: set[str] = set()
"""Lines known to hold neither a secret nor a guard word (this process; bounded by :data:`_MAX_LINES`)."""
# About 0.8 MB of typical lines, filled by a check's first thousand files or so. Once full it is kept, not
# emptied: the lines that recur are met in the first files, a line met later is scanned each time (a check's
# memory stays the same from a thousand files to ten thousand; emptying it would scan the recurring lines again).
_MAX_LINES = 8_192
_MAX_LENGTH = 256  # longer lines are checked each time, not remembered
_GUARDS = ("secret", "bearer", "authorization")  # lowercase words of the recognizers that cross lines
# The characters that match an ASCII letter case-insensitively (İ, ı, long s, Kelvin sign): through them a
# case-insensitive pattern matches a secret word whose line lacks the plain word its guard looks for.
_FOLDING = ("\u0130", "\u0131", "\u017f", "\u212a")


def line_may_hold_secrets(lines: str) -> bool:
    """Whether one of ``lines`` (joined by line breaks) holds a secret or a word that makes ``find_secrets``
    look past its line (pure). Without such a word no secret crosses a line break, so asking for the lines
    joined is asking for each of them."""
    if "PRIVATE KEY" in lines or (not lines.isascii() and any(char in lines for char in _FOLDING)):
        return True
    lower = lines.lower()
    return any(word in lower for word in _GUARDS) or bool(find_secrets(lines, lower))


def may_hold_secrets(text: str) -> bool:
    """False when ``find_secrets(text)`` is certainly empty; True when the text must be scanned whole."""
    new = set(text.split("\n")) - _CLEARED  # (difference_update would walk all of _CLEARED: this walks the text's)
    if not new:
        return False
    if line_may_hold_secrets("\n".join(new)):  # the same answer as asking line by line (see above)
        return True
    room = _MAX_LINES - len(_CLEARED)
    if room > 0:
        _CLEARED.update(itertools.islice((line for line in new if len(line) <= _MAX_LENGTH), room))
    return False


def forget() -> None:
    """Empty the memory of cleared lines (tests)."""
    _CLEARED.clear()


@document_check(SECRET, kinds=None)
def check_document(doc: Document, _config: Config) -> list[Finding]:
    return findings_in(doc)
