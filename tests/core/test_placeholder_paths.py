"""migrate.placeholders finds what the recursive generator it replaces found, in the same order."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from ctxres.formats.document import JsonPath
from ctxres.migration.migrate import PLACEHOLDER_PREFIX, is_placeholder, placeholders


def _reference(value: Any, path: JsonPath = ()) -> Iterator[JsonPath]:
    if is_placeholder(value):
        yield path
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _reference(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _reference(item, (*path, index))


_SCALARS = st.one_of(
    st.sampled_from([f"{PLACEHOLDER_PREFIX} x>", f"  {PLACEHOLDER_PREFIX}>", f"a {PLACEHOLDER_PREFIX}", "plain", ""]),
    st.integers(),
    st.none(),
    st.booleans(),
    st.floats(allow_nan=False),
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=3), inner, max_size=4),
    max_leaves=30,
)


@settings(max_examples=500, deadline=None)
@given(_VALUES, st.sampled_from([(), ("resumption",)]))
def test_placeholders_match_the_recursive_reference(value: Any, path: JsonPath) -> None:
    assert list(placeholders(value, path)) == list(_reference(value, path))
