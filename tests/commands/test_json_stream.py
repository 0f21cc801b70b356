"""The JSON reporter writes each finding as ``json.dumps(indent=2, ensure_ascii=False)`` would, byte for byte,
through the C encoder for a mapping of scalars; the whole document too."""

from __future__ import annotations

import io
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from ctxres.linters.reporters import json_stream

scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True, allow_infinity=True), st.text())
values: st.SearchStrategy[Any] = st.recursive(
    scalars, lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(), inner, max_size=3))
)


@settings(max_examples=500, deadline=None)
@given(st.one_of(st.dictionaries(st.text(), scalars), values))
def test_an_item_is_written_as_json_dumps_writes_it(item: Any) -> None:
    assert json_stream.dumps(item) == json.dumps(item, indent=2, ensure_ascii=False)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.dictionaries(st.text(), scalars), max_size=4))
def test_the_document_is_written_as_json_dumps_writes_it(items: list[dict[str, Any]]) -> None:
    out = io.StringIO()
    json_stream.write({"a": 1, "items": json_stream.PLACEHOLDER, "z": [2]}, iter(items), out)
    assert out.getvalue() == json.dumps({"a": 1, "items": items, "z": [2]}, indent=2, ensure_ascii=False) + "\n"
