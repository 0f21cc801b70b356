"""Secrets in text: find them (:func:`find_secrets`) and replace them with ``[REDACTED]`` (pure functions).

The hooks copy free text from the ORCHESTRATION file (``next_step``, decisions, agent summaries...)
into checkpoint files, caches and the text they inject into the session; whatever credential a
session pasted there must not travel along. The linter rule X001 reports the same secrets in
committed state files. Both use :func:`find_secrets`, so what is redacted and what is reported
never diverge. Recognized (see :data:`KINDS`):

- formats with a fixed shape: Anthropic ``sk-ant-api03-...``/``sk-ant-admin01-...``, OpenAI
  ``sk-...``/``sk-proj-...``/``sk-svcacct-...`` (mixed case and digits), AWS access key ids
  ``AKIA``/``ASIA`` + 16, GitHub ``ghp_``/``gho_``/``ghs_``/``ghu_``/``ghr_``/``github_pat_``, Slack
  ``xoxb-``/``xoxp-``/``xoxa-``/``xoxr-``/``xoxs-``/``xoxe-`` tokens and ``hooks.slack.com`` webhook
  paths, Google ``AIza`` keys, JSON Web Tokens ``eyJ...eyJ...``, Stripe live keys, npm, PyPI and
  GitLab tokens, PEM private key blocks (RSA, EC, OPENSSH, ENCRYPTED, PGP ... to the matching END,
  or to the end of a cut text);
- labelled values: the 40 characters after ``aws_secret_access_key``, the token after ``Bearer``
  (one with a digit), ``Authorization: Basic <base64>``, the password of a URL
  (``https://user:[REDACTED]@host``), and the value of a ``password:``/``secret=``/``api_key:``-style
  assignment (``db_password``, ``client_secret``, ``access_token``, ``apiKey``... ; the name stays).

A credential's shape filled with a stand-in (``sk-xxxxxxxx...``, ``AKIAIOSFODNN7EXAMPLE``) is no
secret. An assignment counts when its value looks like a credential, not like a placeholder (``null``,
``${TOKEN}``, ``{unique-hash-1}``, ``%API_KEY%``, ``<set me>``, ``[REDACTED]``, ``changeme``, a path,
a URL, ``DB_PASSWORD`` or ``settings.SECRET_KEY`` (a reference), a count under 8 digits).
When the name starts a line (a YAML key, an env line, a JSON key) and the value ends it, any value
of 4 characters or more counts; in the middle of prose ("Fix the token: expired sessions...") the
value must have at least 8 characters mixing letters and digits.

Cost: every recognizer is guarded by a plain substring test ("hint"), so a text without any hint
costs a few substring scans and no regular expression; the patterns are compiled on first use.
Standard library only: the runtime hooks import this module.
"""

from __future__ import annotations

import re

# A hook loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Iterator
    from typing import Any

REDACTED = "[REDACTED]"

KINDS = {
    "anthropic": "an Anthropic API key",
    "openai": "an OpenAI API key",
    "aws_key_id": "an AWS access key ID",
    "aws_secret": "an AWS secret access key",
    "github": "a GitHub token",
    "slack": "a Slack token",
    "slack_webhook": "a Slack webhook URL",
    "google": "a Google API key",
    "stripe": "a Stripe live secret key",
    "npm": "an npm access token",
    "pypi": "a PyPI API token",
    "gitlab": "a GitLab personal access token",
    "jwt": "a JSON Web Token",
    "pem": "a PEM private key block",
    "bearer": "a bearer token",
    "basic_auth": "HTTP basic-auth credentials",
    "url_password": "a password in a URL",
    "assignment": "a secret value",
}
"""kind -> how a message names it."""

# A name whose value is a secret: the sensitive word ends the name (``tokens`` or ``token_count`` are not).
_SECRET_WORD = (
    r"(?:password|passwd|passphrase|secret|token|api[_\-]?key|apikey|access[_\-]?key|private[_\-]?key|"
    r"secret[_\-]?key|signing[_\-]?key|encryption[_\-]?key|master[_\-]?key|credentials?)"
)
_SECRET_NAME = rf"[A-Za-z0-9_.\-]*?{_SECRET_WORD}"
_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")
_HARMLESS = frozenset(
    {"null", "none", "nil", "~", "true", "false", "redacted", "[redacted]", "<redacted>", "***", "changeme",
     "change-me", "change_me", "password", "passwd", "secret", "token", "example", "placeholder", "todo", "tbd",
     "unset", "empty", "required", "optional", "n/a"}
)  # fmt: skip
_PLACEHOLDER_STARTS = ("${", "$(", "{", "<", "[", "%(", "*", "/", "~/", "./", "../", "your", "my_", "my-")
_NAME_WORDS = ("pass", "token", "key", "credential", "secret")  # a secret name contains one of these
# How an ASCII name that _SECRET_WORD ends must end (checked before compiling the pattern).
_NAME_ENDINGS = ("password", "passwd", "passphrase", "secret", "token", "key", "credential", "credentials")
_TOKEN_HINTS = ("sk-", "AKIA", "ASIA", "xox", "hooks.slack.com", "AIza", "eyJ", "pypi-", "glpat-")
_UNDERSCORE_HINTS = ("ghp_", "gho_", "ghs_", "ghu_", "ghr_", "github_pat_", "_live_", "npm_")  # after one "_" test
_ANY = r"[A-Za-z0-9_\-]"
_PATTERNS = {
    "tokens": (
        rf"(?P<anthropic>\bsk-ant-(?={_ANY}*[A-Z])(?={_ANY}*[0-9]){_ANY}{{20,}})"
        rf"|(?P<openai>\bsk-(?={_ANY}*[A-Z])(?={_ANY}*[0-9]){_ANY}{{20,}})"
        r"|(?P<aws_key_id>\b(?:AKIA|ASIA)[0-9A-Z]{16}\b)"
        r"|(?P<github>\bgh[pousr]_[A-Za-z0-9]{30,}\b|\bgithub_pat_[A-Za-z0-9_]{22,})"
        r"|(?P<slack>\bxox[abprse]-[0-9]+-[A-Za-z0-9\-]{6,})"
        r"|(?<=hooks\.slack\.com/)(?P<slack_webhook>(?:services|workflows|triggers)/[A-Za-z0-9_/\-]{16,})"
        rf"|(?P<google>\bAIza{_ANY}{{35}}(?!{_ANY}))"
        r"|(?P<stripe>\b[rs]k_live_[A-Za-z0-9]{20,})"
        r"|(?P<npm>\bnpm_[A-Za-z0-9]{36}\b)"
        rf"|(?P<pypi>\bpypi-AgEIcHlwaS5vcmc{_ANY}{{40,}})"
        rf"|(?P<gitlab>\bglpat-{_ANY}{{20,}})"
        rf"|(?P<jwt>\beyJ{_ANY}{{8,}}\.eyJ{_ANY}{{8,}}\.{_ANY}*)",
        0,
    ),
    "pem": (
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----.*?"
        r"(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\Z)",
        re.DOTALL,
    ),
    "aws_secret": (
        r"\b(?:aws_?)?secret_?access_?key[\"']?\s*[:=]\s*[\"']?(?P<v>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])",
        re.IGNORECASE,
    ),
    "bearer": (r"\bbearer\s+(?P<v>(?=[A-Za-z\-._~+/]*[0-9])[A-Za-z0-9\-._~+/]{12,}=*)", re.IGNORECASE),
    "basic_auth": (r"\bauthorization[\"']?\s*[:=]\s*[\"']?basic\s+(?P<v>[A-Za-z0-9+/]{8,}={0,2})", re.IGNORECASE),
    "url_password": (r"\b[A-Za-z][A-Za-z0-9+.\-]*://[^\s:/@\"'<>]+:(?P<v>[^\s@/\"'<>]+)@", 0),
    "assignment": (
        rf"(?P<word>{_SECRET_WORD})[\"']?[ \t]*[:=][ \t]*"  # the name's last word (the name is read backwards)
        r"(?P<v>\"[^\"\n]*\"|'[^'\n]*'|[^\s\"',;}\]\)]+)",
        re.IGNORECASE,
    ),
    "name": (rf"^{_SECRET_NAME}$", re.IGNORECASE),
    # a reference to where the secret lives: ``DB_PASSWORD``, ``settings.SECRET_KEY``, ``config.api_key``
    "reference": (r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|[A-Za-z_]+(?:\.[A-Za-z_]+)+(?:\(\))?", 0),
    "tail": (r"[ \t]*(?:[,;}\]]|#|$)", 0),
    # a template's placeholder anywhere in a value: ``JRRY-CNRY-{unique-hash-1}``, ``sk-${SUFFIX}``, ``id-<n>``,
    # ``tok_xxxx1234``
    # (a value read up to a `}` keeps the `{` that opens it)
    "template": (r"\{[^{}\n]*(?:\}|$)|<[^<>\n]+>|x{4,}", re.IGNORECASE),
    # the fixed part of a credential's shape, before its random body
    "prefix": (
        r"sk-ant-[a-z]+\d*-|sk-proj-|sk-svcacct-|sk-|gh[pousr]_|github_pat_|AKIA|ASIA|xox[abprse]-|AIza|"
        r"[rs]k_live_|npm_|pypi-|glpat-",
        0,
    ),
}
_FILLER_STARTS = ("your", "example", "placeholder", "dummy", "sample")
_COMPILED: dict[str, re.Pattern[str]] = {}
_LABELS = {"slack_webhook": "https://hooks.slack.com/", "bearer": "Bearer ", "basic_auth": "Basic "}


def _pattern(name: str) -> re.Pattern[str]:
    compiled = _COMPILED.get(name)
    if compiled is None:
        source, flags = _PATTERNS[name]
        compiled = _COMPILED[name] = re.compile(source, flags | re.MULTILINE)
    return compiled


class Secret:
    """One secret in a text: ``text[start:end]`` is the credential itself (a name or label before it
    is not part of it), ``kind`` a key of :data:`KINDS`, ``name`` the assigned name (``assignment``)."""

    __slots__ = ("end", "kind", "name", "start")

    def __init__(self, start: int, end: int, kind: str, name: str = "") -> None:
        self.start = start
        self.end = end
        self.kind = kind
        self.name = name

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and (self.start, self.end, self.kind, self.name) == (
            other.start,
            other.end,
            other.kind,
            other.name,
        )

    def __hash__(self) -> int:
        return hash((self.start, self.end, self.kind, self.name))

    def __repr__(self) -> str:
        return f"Secret({self.start}, {self.end}, {self.kind!r}, {self.name!r})"

    @property
    def label(self) -> str:
        """How a message names it: "an Anthropic API key", "a secret value assigned to `db_password`"."""
        if self.kind == "assignment" and self.name:
            return f"a secret value assigned to `{self.name}`"
        return KINDS[self.kind]


# --------------------------------------------------------------------------- assignments


def is_placeholder(value: str) -> bool:
    """Whether an assigned value says "no secret here": empty, ``null``, ``${TOKEN}``, ``<set me>``,
    ``[REDACTED]``, ``changeme``, ``your-key-here``, a path or a URL, ``xxxxxxxx``, ``$VAR``,
    ``{unique-hash-1}``, ``%API_KEY%``, a credential's shape filled with ``x`` or ``EXAMPLE``, a value with a
    template's placeholder anywhere in it (``JRRY-CNRY-{unique-hash-1}``, ``${...}``, ``<...>``, ``xxxx``), or
    a reference to where it lives (``DB_PASSWORD``, ``settings.SECRET_KEY``) (pure)."""
    clean = value.strip()
    lower = clean.lower()
    if lower in _HARMLESS or lower.startswith(_PLACEHOLDER_STARTS) or "://" in lower or "redacted" in lower:
        return True
    if len(set(lower)) <= 2 or _pattern("reference").fullmatch(clean):  # "xxxxxxxx", "****", "DB_PASSWORD"
        return True
    if _wrapped(clean) or is_filler(clean):  # "%API_KEY%", "sk-xxxxxxxxxxxxxxxx", "AKIAIOSFODNN7EXAMPLE"
        return True
    if _pattern("template").search(clean):  # a template: "JRRY-CNRY-{unique-hash-1}", "key-<env>-1"
        return True
    return lower[:1] == "$" and (lower[1:2].isalpha() or lower[1:2] == "_")


def _wrapped(value: str) -> bool:
    """A variable of a Windows shell or a template: ``%API_KEY%`` (pure)."""
    return len(value) > 2 and value[0] == value[-1] == "%"


def is_filler(value: str) -> bool:
    """Whether a value in a credential's shape is a stand-in for one: after the format's prefix, one
    repeated character (``sk-xxxxxxxx``, ``AKIAXXXXXXXXXXXXXXXX``), or a word no key holds
    (``AKIAIOSFODNN7EXAMPLE``, ``ghp_your_token_here``, ``sk-placeholder...``) (pure)."""
    prefix = _pattern("prefix").match(value)
    body = value[prefix.end() if prefix else 0 :].lower()
    if len(set(body) - set("-_.")) <= 1:
        return True
    return body.startswith(_FILLER_STARTS) or body.endswith(("example", "examplekey"))


def credential_like(value: str) -> bool:
    """Whether a value looks like a credential in the middle of prose: 8+ characters without spaces,
    mixing letters and digits (pure)."""
    return len(value) >= 8 and " " not in value and any(c.isdigit() for c in value) and any(c.isalpha() for c in value)


def assigned_secret(value: str, *, keyed: bool) -> bool:
    """Whether ``value``, assigned to a secret-named key, is a secret (pure). ``keyed``: the name starts
    a line (YAML key, env line, JSON key) and the value ends it, so any real value counts."""
    if is_placeholder(value):
        return False
    if value.isdigit():
        return len(value) >= 8  # "token: 4096" is a count
    return len(value) >= 4 if keyed else credential_like(value)


def _keyed(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` (a name, separator and value) stands as a key of its own line."""
    line_start = text.rfind("\n", 0, start) + 1
    before = text[line_start:start].strip()
    standalone = before in ("", "-", "export", "- export") or before.endswith(("{", ",", "?", "&"))
    return standalone and _pattern("tail").match(text, end) is not None


# Where a match can start. Every alternative of "tokens" begins with one of these literals (at the offset
# given: the Stripe key one character before "k_live_", the webhook path after the host); the secret word
# that begins "assignment" begins with one of the other ones (matched case-insensitively).
_TOKEN_STARTS = (
    ("sk-", 0), ("AKIA", 0), ("ASIA", 0), ("gh", 0), ("github_pat_", 0), ("xox", 0), ("hooks.slack.com/", 16),
    ("AIza", 0), ("k_live_", -1), ("npm_", 0), ("pypi-", 0), ("glpat-", 0), ("eyJ", 0),
)  # fmt: skip
_WORD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz_-")  # the characters of a lowercased _SECRET_WORD
_WORD_STARTS = tuple(
    (word, 0)
    for word in ("pass", "secret", "token", "api", "access", "private", "signing", "encryption", "master", "credential")
)


def _starts(text: str, literals: tuple[tuple[str, int], ...]) -> list[int]:
    """The positions where one of ``literals`` occurs (shifted by its offset), in order."""
    found = set()
    for literal, shift in literals:
        at = text.find(literal)
        while at != -1:
            if at + shift >= 0:
                found.add(at + shift)
            at = text.find(literal, at + 1)
    return sorted(found)


def _matches(pattern: re.Pattern[str], text: str, starts: list[int] | None) -> Iterator[re.Match[str]]:
    """``pattern.finditer(text)``, trying only ``starts`` when a match cannot begin anywhere else (the regular
    expression engine would try every position of the text; None: it does)."""
    if starts is None:
        yield from pattern.finditer(text)
        return
    end = 0
    for start in starts:
        if start >= end:
            match = pattern.match(text, start)  # \b and look-behinds still see the text before ``start``
            if match is not None:
                end = match.end()
                yield match


def _folded(text: str, lower: str) -> str | None:
    """``lower`` when it lines up with ``text`` and every character that matches an ASCII letter case-insensitively
    is that letter in it (not so for a dotless i or a long s, which have no lowercase ASCII form)."""
    if len(lower) != len(text) or "\u0131" in text or "\u017f" in text:
        return None
    return lower


def _may_assign(folded: str, start: int) -> bool:
    """Whether the ``assignment`` pattern can match at ``start`` of the lowercased text: its word (letters,
    ``_``, ``-``) is followed by an optional quote, blanks and ``:`` or ``=``. Checked without the regular
    expression, whose compilation costs a hook more than the search (``Tokens used: ...`` never assigns)."""
    at, end = start, len(folded)
    while at < end and folded[at] in _WORD_CHARS:
        at += 1
    if at < end and folded[at] in "\"'":
        at += 1
    while at < end and folded[at] in " \t":
        at += 1
    return at < end and folded[at] in ":="


def _assignments(text: str, lower: str | None = None) -> list[Secret]:
    found: list[Secret] = []
    folded = _folded(text, text.lower() if lower is None else lower)
    starts = None
    if folded is not None:
        starts = [start for start in _starts(folded, _WORD_STARTS) if _may_assign(folded, start)]
        if not starts:
            return found
    for match in _matches(_pattern("assignment"), text, starts):
        name_start = match.start()
        while name_start and text[name_start - 1] in _NAME_CHARS:
            name_start -= 1
        name = text[name_start : match.end("word")]
        if name_start and text[name_start - 1] in ("'", '"'):
            name_start -= 1
        start, end = match.span("v")
        if text[start : start + 1] in ("'", '"'):
            start, end = start + 1, end - 1
        if assigned_secret(text[start:end], keyed=_keyed(text, name_start, match.end())):
            found.append(Secret(start, end, "assignment", name))
    return found


# --------------------------------------------------------------------------- finding


def _labelled(kind: str, text: str) -> list[Secret]:
    found = []
    for match in _pattern(kind).finditer(text):
        start, end = match.span("v")
        value = text[start:end]
        if not (is_placeholder(value) if kind == "url_password" else kind == "aws_secret" and is_filler(value)):
            found.append(Secret(start, end, kind))
    return found


def _candidates(text: str, lower: str | None = None) -> list[Secret]:
    """Every recognizer's matches, most specific recognizers first (guarded by their hints)."""
    lower = text.lower() if lower is None else lower
    found: list[Secret] = []
    if "PRIVATE KEY" in text:
        found += [Secret(m.start(), m.end(), "pem") for m in _pattern("pem").finditer(text)]
    if any(hint in text for hint in _TOKEN_HINTS) or ("_" in text and any(h in text for h in _UNDERSCORE_HINTS)):
        found += _tokens(text)
    secret = "secret" in lower
    if secret and "access" in lower:
        found += _labelled("aws_secret", text)
    if "bearer" in lower:
        found += _labelled("bearer", text)
    if "authorization" in lower and "basic" in lower:
        found += _labelled("basic_auth", text)
    if "://" in text and "@" in text:
        found += _labelled("url_password", text)
    if secret or any(word in lower for word in _NAME_WORDS):
        found += _assignments(text, lower)
    return found


def _tokens(text: str) -> list[Secret]:
    """The formats with a fixed shape (one pattern; the name of the group that matched is the kind)."""
    found = []
    for match in _matches(_pattern("tokens"), text, _starts(text, _TOKEN_STARTS)):
        kind = match.lastgroup
        if kind is not None and not is_filler(match.group(kind)):
            found.append(Secret(match.start(kind), match.end(kind), kind))
    return found


def find_secrets(text: str, lower: str | None = None) -> list[Secret]:
    """The secrets in ``text``, in order, never overlapping (pure). A span claimed by a more specific
    recognizer (``token: ghp_...`` is a GitHub token) is not reported again by a generic one. ``lower`` is
    ``text.lower()`` when the caller has it already (a megabyte of state files is lowered once, not twice)."""
    if not text:
        return []
    kept: list[Secret] = []
    for secret in _candidates(text, lower):
        if secret.end > secret.start and not any(
            secret.start < other.end and other.start < secret.end for other in kept
        ):
            kept.append(secret)
    return sorted(kept, key=lambda s: s.start)


def masked(text: str, secret: Secret) -> str:
    """What may be shown of a secret: its public prefix or label and an ellipsis (``sk-ant-api03-…``,
    ``AKIA…``, ``-----BEGIN RSA PRIVATE KEY-----…``, ``Bearer …``, the user of a URL ``app:…@``), or
    just ``…`` (pure)."""
    value = text[secret.start : secret.end]
    if secret.kind in _LABELS:
        return _LABELS[secret.kind] + "…"
    if secret.kind == "url_password":
        user_start = text.rfind("://", 0, secret.start) + 3
        return text[user_start : secret.start] + "…@" if 3 <= user_start < secret.start else "…"
    if secret.kind == "pem":
        header_end = value.find("-----", 5)  # "-----BEGIN RSA PRIVATE KEY-----" is not secret
        return value[: header_end + 5] + "…" if header_end > 0 else "…"
    prefix = re.match(
        r"sk-ant-[a-z]+[0-9]*-|sk-(?:proj|svcacct|admin)-|sk-|AKIA|ASIA|gh[pousr]_|github_pat_|xox[a-z]-|"
        r"AIza|eyJ|[rs]k_live_|npm_|pypi-|glpat-",
        value,
    )
    return (prefix.group(0) if prefix else "") + "…"


# --------------------------------------------------------------------------- redacting


def redact(text: str) -> str:
    """``text`` with every secret :func:`find_secrets` finds replaced by ``[REDACTED]`` (pure; idempotent)."""
    secrets = find_secrets(text)
    if not secrets:
        return text
    parts = []
    position = 0
    for secret in secrets:
        parts += [text[position : secret.start], REDACTED]
        position = secret.end
    parts.append(text[position:])
    return "".join(parts)


def is_secret_name(name: str) -> bool:
    """Whether a key such as ``password``, ``client_secret`` or ``apiKey`` names a secret value (pure)."""
    lower = name.lower()
    if name.isascii() and "\n" not in name and not lower.endswith(_NAME_ENDINGS):  # its last word ends the name
        return False
    return any(word in lower for word in _NAME_WORDS) and bool(_pattern("name").match(name))


def redact_value(value: Any) -> Any:
    """A copy of the JSON value ``value`` with secrets redacted in every string (keys included); the
    value of a key that names a secret (``{"password": "hunter2x"}``) is replaced whole when it is a
    secret by :func:`assigned_secret` (pure)."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        result = {}
        for key, item in value.items():
            name = redact(key) if isinstance(key, str) else key
            scalar = isinstance(item, (str, int, float)) and not isinstance(item, bool)
            if scalar and isinstance(key, str) and is_secret_name(key) and assigned_secret(str(item), keyed=True):
                result[name] = REDACTED
            else:
                result[name] = redact_value(item)
        return result
    if isinstance(value, (list, tuple)):
        return [redact_value(item) for item in value]
    return value
