"""The secret scan tries its two costly patterns only where a match can begin (``redact._matches``).

It must find exactly what ``pattern.finditer`` over the whole text finds: checked on every text
file of the fixtures and on many mutated texts that put token prefixes, secret words, case
variants and the characters that fold to ASCII letters (dotless i, long s, Kelvin sign, dotted
capital I) next to each other.
"""

from __future__ import annotations

import random
from pathlib import Path

from ctxres import redact

FIXTURES = Path(__file__).resolve().parent.parent.parent / "fixtures"
PIECES = (
    "sk-", "sk-ant-api03-", "AKIA", "ASIA", "ghp_", "github_pat_", "gh", "xoxb-1234-", "hooks.slack.com/services/",
    "AIza", "sk_live_", "rk_live_", "k_live_", "npm_", "pypi-AgEIcHlwaS5vcmc", "glpat-", "eyJ", ".eyJ",
    "password", "PassWord", "passwd", "passphrase", "secret", "SECRET_KEY", "token", "Token", "api_key", "apikey",
    "API-KEY", "access_key", "private-key", "signing_key", "encryption_key", "master_key", "credentials",
    "TO\u212aEN", "pa\u017f\u017fword", "\u0131", "\u0130", "api\u0130", "\u00e9", "\u2014", ": ", "=", " ", "\n",
    '"', "'", "ABCDEFGHIJKLMNOP1234",
    "github_pat_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9", "abcdefghij0123456789abcdefghij0123456789", "Q7x9Lm2Pz", "-", "_", "#",
)  # fmt: skip


def _spans(matches: object) -> list[tuple[int, int, str | None]]:
    return [(m.start(), m.end(), m.lastgroup) for m in matches]  # type: ignore[attr-defined]


def _same(text: str) -> None:
    tokens = redact._pattern("tokens")
    assert _spans(redact._matches(tokens, text, redact._starts(text, redact._TOKEN_STARTS))) == _spans(
        tokens.finditer(text)
    ), text
    assignment = redact._pattern("assignment")
    folded = redact._folded(text, text.lower())
    starts = redact._starts(folded, redact._WORD_STARTS) if folded is not None else None
    assert _spans(redact._matches(assignment, text, starts)) == _spans(assignment.finditer(text)), text
    assert redact.find_secrets(text, text.lower()) == redact.find_secrets(text), text  # the caller's lowering


def test_every_fixture_text_scans_the_same() -> None:
    checked = 0
    for path in sorted(FIXTURES.rglob("*")):
        if path.is_file() and path.suffix in (".yaml", ".yml", ".json", ".jsonl", ".md", ".txt", ""):
            _same(path.read_bytes().decode("utf-8", "replace"))
            checked += 1
    assert checked > 100


def test_mutated_texts_scan_the_same() -> None:
    chance = random.Random(20261124)
    for _ in range(20_000):
        text = "".join(chance.choice(PIECES) for _ in range(chance.randint(1, 12)))
        _same(text)
        _same(text.upper())
