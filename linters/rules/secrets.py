"""Security rules (X family): secrets in committed state files.

X001 reads the text of every artifact ``ctxres check`` discovers (ORCHESTRATION files, checkpoints,
the monitor and precompact states, agent-memory task graphs and event logs, Nexus resume manifests,
rule files), including the files rejected as binary, not UTF-8, too large or unparsable (the engine
scans their first ``max-file-size`` bytes), with the recognizers of ``ctxres/redact.py``, the ones
the hooks redact with, so a value the hooks would redact is exactly a value this rule reports.
"""

from __future__ import annotations

from ctxres.config import Config
from ctxres.findings import Finding, Position
from ctxres.formats.document import Document
from ctxres.linters.checking.registry import register
from ctxres.linters.checking.severity_policy import Case
from ctxres.linters.rules.secret_lines import may_hold_secrets
from ctxres.redact import Secret, find_secrets, masked

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
    `{unique-hash-1}`, `%API_KEY%`, `xxx`, `[REDACTED]`, a key's shape filled with one character
    or marked as an example (`sk-xxxxxxxx...`, `AKIAIOSFODNN7EXAMPLE`, `ghp_your_token_here`),
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


def findings_in_text(path: str, text: str) -> list[Finding]:
    """One X001 finding per secret in ``text`` (the file ``path``), at its first character (pure). The
    engine calls it directly on a file that does not parse: a broken file can hold a key too. A text whose
    lines were all cleared before (:mod:`secret_lines`) is not scanned again."""
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


def check_document(doc: Document, config: Config) -> list[Finding]:
    return findings_in(doc)
