"""The rule of linters/rules/secrets.py: X001. Its pre-filter (``secrets.may_hold_secrets``) never clears a
text that holds a secret (X001 on files that cannot be read: tests/core/test_secrets.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxres.linters.rules import secrets as secret_lines
from ctxres.linters.rules.secrets import findings_in_text
from ctxres.redact import find_secrets

from ..conftest import CORPUS, FIXTURES
from ..core.fake_secrets import FAKES

PIECES = [
    *(fake.text for fake in FAKES),
    *(fake.secret for fake in FAKES),
    "password: null",
    "token: 4096",
    "max_tokens: 4096",
    "- id: task-12",
    "through the high road",
    "Authorization:",
    " Basic ZGVwbG95OmFiY2RlZmdoMTIzNDU2",
    "Bearer",
    "  abcdefghij0123456789",
    "aws_secret_access_key =",
    " wJalrXUtnFEMI/K7MDENG/bPxRfiCYz8Q4mK2pLw",
    "-----BEGIN RSA PRIVATE KEY-----",
    "MIIEowIBAAKCAQEA",
    "-----END RSA PRIVATE KEY-----",
    "postgres://app:",
    "s3cr3tPassw0rd@db",
    "sk-",
    "ant-api03-AbCdEfGhIjKlMnOpQrStUv12",
    "apı_key: Zq8x7Y6w5V4u",  # a dotless i: the assignment pattern is searched everywhere
    "ſecret: Zq8x7Y6w5V4u",
    "next step",
    "",
    " ",
    "\r",
    '"',
    ":",
    "=",
]


@pytest.fixture(autouse=True)
def _fresh() -> Iterator[None]:
    secret_lines.forget()
    yield
    secret_lines.forget()


texts = st.lists(st.sampled_from(PIECES), max_size=8).flatmap(
    lambda parts: st.lists(
        st.sampled_from(["\n", "", " ", "\t", "\r\n"]), min_size=len(parts), max_size=len(parts)
    ).map(lambda seps: "".join(p + s for p, s in zip(parts, seps, strict=True)))
)


@settings(max_examples=600, deadline=None)
@given(st.lists(texts, min_size=1, max_size=6))
def test_a_cleared_text_holds_no_secret(sequence: list[str]) -> None:
    """Whatever was cleared before (the memory spans texts), False means find_secrets finds nothing."""
    for text in sequence:
        if not secret_lines.may_hold_secrets(text):
            assert find_secrets(text) == []


@settings(max_examples=300, deadline=None)
@given(st.lists(texts, min_size=1, max_size=6))
def test_findings_are_the_same_with_and_without_the_memory(sequence: list[str]) -> None:
    for text in sequence:
        remembered = findings_in_text("f.yaml", text)
        secret_lines.forget()
        assert remembered == findings_in_text("f.yaml", text)


def test_asking_for_lines_joined_is_asking_for_each() -> None:
    for piece in PIECES:
        for other in PIECES:
            joined = secret_lines.line_may_hold_secrets(f"{piece}\n{other}")
            assert joined == (secret_lines.line_may_hold_secrets(piece) or secret_lines.line_may_hold_secrets(other))


def test_the_repository_files_are_cleared_only_when_they_hold_no_secret() -> None:
    for root in (CORPUS, FIXTURES):
        for path in sorted(root.rglob("*")):
            if path.is_file():
                text = path.read_bytes().decode("utf-8", "replace")
                if not secret_lines.may_hold_secrets(text):
                    assert find_secrets(text) == [], path


def test_a_line_seen_clean_is_not_scanned_again(monkeypatch: pytest.MonkeyPatch) -> None:
    assert not secret_lines.may_hold_secrets("phase: 1\nstatus: done\n")
    calls: list[str] = []
    monkeypatch.setattr(secret_lines, "find_secrets", lambda text, lower=None: calls.append(text) or [])
    assert not secret_lines.may_hold_secrets("status: done\nphase: 1")
    assert calls == []
    assert not secret_lines.may_hold_secrets("status: done\nphase: 2")
    assert calls == ["phase: 2"]


def test_the_memory_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(secret_lines, "_MAX_LINES", 10)
    for n in range(50):
        secret_lines.may_hold_secrets(f"line {n}\nother {n}")
        assert len(secret_lines._CLEARED) <= 10
    assert not secret_lines.may_hold_secrets("x" * 1000)
    assert "x" * 1000 not in secret_lines._CLEARED


def test_a_full_memory_keeps_what_it_holds_and_answers_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    """Full, it is not emptied: the lines of the first texts stay cleared, later ones are scanned each time."""
    monkeypatch.setattr(secret_lines, "_MAX_LINES", 4)
    assert not secret_lines.may_hold_secrets("a: 1\nb: 2\nc: 3")
    assert not secret_lines.may_hold_secrets("d: 4\ne: 5\nf: 6")
    assert len(secret_lines._CLEARED) == 4
    assert {"a: 1", "b: 2", "c: 3"} <= secret_lines._CLEARED
    calls: list[str] = []
    monkeypatch.setattr(secret_lines, "find_secrets", lambda text, lower=None: calls.append(text) or [])
    assert not secret_lines.may_hold_secrets("a: 1\nb: 2\nc: 3")
    assert calls == []
    assert not secret_lines.may_hold_secrets("g: 7")
    assert not secret_lines.may_hold_secrets("g: 7")
    assert calls == ["g: 7", "g: 7"]
    assert len(secret_lines._CLEARED) == 4


def test_a_secret_word_spelled_with_a_folding_character_is_never_cleared() -> None:
    """``password: null`` passes the guard of the assignments in a text, so ``ſecret: ...`` on another line
    is a secret there: neither line may be cleared for the other's text."""
    assert not secret_lines.may_hold_secrets("password: null")
    text = "password: null\n\u017fecret: Zq8x7Y6w5V4u"
    assert find_secrets(text)
    assert secret_lines.may_hold_secrets(text)
