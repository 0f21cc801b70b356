"""``has_deep_block`` (which loader reads a text) agrees with the pattern it replaces."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ctxres.formats.yamlguard import _BLOCK_PREFIX, C_SAFE_DEPTH, has_deep_block

HALF = C_SAFE_DEPTH // 2
RUNS = st.builds(
    lambda chars, size: (chars * size)[:size],
    st.sampled_from([" ", "\t", "- ", "? ", ": ", " -", "  :", "\t-"]),
    st.sampled_from([1, HALF - 1, HALF, HALF + 1, 2 * HALF]),
)
PIECES = st.one_of(RUNS, st.sampled_from(["\n", "\r\n", "\r", "a", "key: value", "x\n", "", "\u2028"]))


@settings(max_examples=400, deadline=None)
@given(st.lists(PIECES, max_size=8).map("".join))
def test_has_deep_block_is_the_pattern(text: str) -> None:
    assert has_deep_block(text) == (_BLOCK_PREFIX.search(text) is not None)


def test_has_deep_block_examples() -> None:
    assert has_deep_block(" " * HALF)
    assert has_deep_block("a: 1\n" + "- " * (HALF // 2) + "x")
    assert not has_deep_block("a: 1\n" + " " * (HALF - 1) + "x")
    assert not has_deep_block("a" + " " * (2 * HALF))  # not at the start of a line
    assert not has_deep_block("a\r" + " " * (2 * HALF))  # a carriage return does not start a line for ^
