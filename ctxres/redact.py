"""Secret redaction: credentials in text or JSON values become ``[REDACTED]`` (pure functions).

The PreCompact hook copies free text from the ORCHESTRATION file (``next_step``, decisions, agent
summaries...) into a checkpoint file; whatever credential a session pasted there must not be copied
along. Recognized:

- API keys: Anthropic ``sk-ant-...``, OpenAI ``sk-...``, AWS access key ids ``AKIA...``/``ASIA...``
  and the value after ``aws_secret_access_key``, GitHub ``ghp_``/``gho_``/``ghs_``/``ghu_``/``ghr_``
  and ``github_pat_`` tokens, Slack ``xoxa-``/``xoxb-``/``xoxp-``/``xoxr-``/``xoxs-`` tokens;
- ``Bearer <token>`` (the word ``Bearer`` stays);
- PEM private key blocks (``-----BEGIN ... PRIVATE KEY-----`` to the matching END, or to the end of
  the text when it was cut);
- the password of a URL (``https://user:[REDACTED]@host``);
- the value of a ``password:``, ``secret:``, ``token:``, ``api_key:``-style assignment (``:`` or ``=``,
  quoted or not; ``db_password``, ``client_secret``, ``access_token``, ``apiKey``... too; the name
  stays), and in JSON data the value of any key with such a name.

Standard library only: the runtime hooks import this module.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover - typing is not imported at run time (start-up cost)
    from typing import Any

REDACTED = "[REDACTED]"

# A name whose value is a secret: the sensitive word ends the name (``tokens`` or ``token_count`` are not).
_SECRET_NAME = (
    r"[A-Za-z0-9_.\-]*?(?:password|passwd|passphrase|secret|token|api[_\-]?key|apikey|"
    r"access[_\-]?key|private[_\-]?key|secret[_\-]?key|credentials?)"
)
# Values that say "no secret here" and are left alone (``password: null``, ``token: ${TOKEN}``).
_HARMLESS = frozenset({"", "null", "none", "~", "true", "false", "[redacted]", "redacted", "***", "<redacted>"})
# Lower-case words without which a secret name cannot occur (a cheap test before any regex runs).
_NAME_WORDS = ("pass", "secret", "token", "key", "credential")

# The patterns, compiled on first use: most texts need none of them (start-up cost of the hooks).
_PATTERNS = {
    "name": (rf"^{_SECRET_NAME}$", re.IGNORECASE),
    "pem": (
        r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----.*?"
        r"(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\Z)",
        re.DOTALL,
    ),
    "tokens": (
        r"sk-ant-[A-Za-z0-9_\-]{8,}"  # Anthropic (before OpenAI: both start with sk-)
        r"|\bsk-(?:proj-|svcacct-|admin-)?(?=[A-Za-z_\-]*\d)[A-Za-z0-9_\-]{16,}"  # OpenAI (a key has digits)
        r"|\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"  # AWS access key id
        r"|\b(?:ghp|gho|ghs|ghu|ghr)_[A-Za-z0-9]{20,}"  # GitHub tokens
        r"|\bgithub_pat_[A-Za-z0-9_]{20,}"  # GitHub fine-grained tokens
        r"|\bxox[abprs]-[A-Za-z0-9\-]{8,}",  # Slack tokens
        0,
    ),
    "aws_secret": (r"(aws_secret_access_key[\"']?\s*[:=]\s*[\"']?)([A-Za-z0-9/+=]{16,})", re.IGNORECASE),
    "bearer": (r"(\bbearer\s+)([A-Za-z0-9\-._~+/]{8,}=*)", re.IGNORECASE),
    "url_password": (r"(\b[A-Za-z][A-Za-z0-9+.\-]*://[^\s:/@]+:)([^\s@/]+)(@)", 0),
    "assignment": (
        rf"(\b{_SECRET_NAME}[\"']?\s*[:=]\s*)"  # the name and its separator, kept
        r"(\"[^\"\n]*\"|'[^'\n]*'|[^\s\"',;}\]\)]+)",  # the value: quoted, or up to a delimiter
        re.IGNORECASE,
    ),
}
_COMPILED: dict[str, re.Pattern[str]] = {}
_TOKEN_HINTS = ("sk-", "AKIA", "ASIA", "ghp_", "gho_", "ghs_", "ghu_", "ghr_", "github_pat_", "xox")


def _pattern(name: str) -> re.Pattern[str]:
    compiled = _COMPILED.get(name)
    if compiled is None:
        source, flags = _PATTERNS[name]
        compiled = _COMPILED[name] = re.compile(source, flags)
    return compiled


def _assignment(match: re.Match[str]) -> str:
    value = match.group(2)
    quote = value[0] if value[:1] in ("'", '"') else ""
    inner = value[1:-1] if quote else value
    if inner.strip().lower() in _HARMLESS or inner.startswith(("${", "$(", "<", "[")):
        return match.group(0)
    return f"{match.group(1)}{quote}{REDACTED}{quote}"


def redact(text: str) -> str:
    """``text`` with every recognized secret replaced by ``[REDACTED]`` (pure; idempotent)."""
    if not text:
        return text
    lower = text.lower()
    if "private key" in lower:
        text = _pattern("pem").sub(REDACTED, text)
    if any(hint in text for hint in _TOKEN_HINTS):
        text = _pattern("tokens").sub(REDACTED, text)
    if "aws_secret_access_key" in lower:
        text = _pattern("aws_secret").sub(lambda m: m.group(1) + REDACTED, text)
    if "bearer" in lower:
        text = _pattern("bearer").sub(lambda m: m.group(1) + REDACTED, text)
    if "://" in text and "@" in text:
        text = _pattern("url_password").sub(lambda m: m.group(1) + REDACTED + m.group(3), text)
    if any(word in lower for word in _NAME_WORDS):
        text = _pattern("assignment").sub(_assignment, text)
    return text


def is_secret_name(name: str) -> bool:
    """Whether a key such as ``password``, ``client_secret`` or ``apiKey`` names a secret value (pure)."""
    lower = name.lower()
    return any(word in lower for word in _NAME_WORDS) and bool(_pattern("name").match(name))


def redact_value(value: Any) -> Any:
    """A copy of the JSON value ``value`` with secrets redacted in every string (keys included), and the
    whole value of any key that names a secret (``{"password": "x"}``) replaced (pure)."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        result = {}
        for key, item in value.items():
            name = redact(key) if isinstance(key, str) else key
            if isinstance(key, str) and is_secret_name(key) and isinstance(item, (str, int, float)):
                harmless = isinstance(item, str) and item.strip().lower() in _HARMLESS
                result[name] = item if harmless or isinstance(item, bool) else REDACTED
            else:
                result[name] = redact_value(item)
        return result
    if isinstance(value, (list, tuple)):
        return [redact_value(item) for item in value]
    return value
