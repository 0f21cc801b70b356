"""close_match picks what difflib.get_close_matches(word, choices, n=1) picks."""

from __future__ import annotations

import difflib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxres.linters.validation.close_match import close_match

KEYS = (
    "schema_version",
    "project_id",
    "workflow_id",
    "status",
    "phases",
    "updated_at",
    "created_at",
    "resumption",
    "blockers",
    "next_steps",
    "checkpoint_id",
    "context",
)


def _difflib(word: str, choices: tuple[str, ...], cutoff: float = 0.6) -> str:
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=cutoff)
    return close[0] if close else ""


@pytest.mark.parametrize(
    "word",
    ["statuss", "stauts", "projectid", "workflow", "phase", "update_at", "x", "", "resumption", "zzzzzz", "abab"],
)
def test_known_misspellings_match_difflib(word: str) -> None:
    assert close_match(word, KEYS) == _difflib(word, KEYS)


def test_ties_and_duplicates_pick_what_difflib_picks() -> None:
    choices = ("ab", "ba", "ab", "ac", "ca", "")
    for word in ("a", "b", "ab", "ba", "abc", "", "c"):
        assert close_match(word, choices) == _difflib(word, choices)


# A small alphabet, so that words share characters and tie often.
_words = st.text(alphabet="abcde_", max_size=12)


@settings(max_examples=400, deadline=None)
@given(_words, st.lists(_words, max_size=8).map(tuple), st.sampled_from([0.0, 0.3, 0.5, 0.6, 0.75, 1.0]))
def test_generated_words_match_difflib(word: str, choices: tuple[str, ...], cutoff: float) -> None:
    assert close_match(word, choices, cutoff) == _difflib(word, choices, cutoff)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=30), st.lists(st.text(max_size=30), max_size=6).map(tuple))
def test_any_text_matches_difflib(word: str, choices: tuple[str, ...]) -> None:
    assert close_match(word, choices) == _difflib(word, choices)


def test_a_cutoff_out_of_range_is_refused_as_difflib_refuses_it() -> None:
    with pytest.raises(ValueError):
        close_match("a", ("a",), 1.5)
