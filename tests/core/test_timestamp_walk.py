"""iter_timestamps finds what the walk it replaces found (every node stacked and asked to ``skip``), in the
same order."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from ctxres.state.staleness import Found, is_planned_key, iter_timestamps
from ctxres.timestamps import parse_timestamp

Path = tuple[str | int, ...]


def _reference(data: Any, skip: Callable[[Path], bool] = lambda _path: False) -> Iterator[Found]:
    stack: list[tuple[Path, Any]] = [((), data)]
    while stack:
        path, node = stack.pop()
        if skip(path):
            continue
        if isinstance(node, dict):
            for key, child in reversed(list(node.items())):
                if not is_planned_key(str(key)):
                    stack.append(((*path, key), child))
        elif isinstance(node, list):
            for index in range(len(node) - 1, -1, -1):
                stack.append(((*path, index), node[index]))
        elif isinstance(node, str) and node[:1].isdigit():
            stamp = parse_timestamp(node)
            if stamp is not None:
                yield Found(path, stamp)


_SCALARS = st.one_of(
    st.sampled_from(
        ["2026-01-02", "2026-01-02T03:04:05Z", "2026-13-40", "1 day", "x 2026-01-02", "", "2025-12-31T23:00"]
    ),
    st.integers(),
    st.none(),
    st.booleans(),
)
_KEYS = st.sampled_from(["a", "b", "updated_at", "deadline", "due_date", "at", "history"])
_DATA = st.recursive(
    _SCALARS, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_KEYS, inner, max_size=4), max_leaves=25
)
_SKIPPED = st.sets(st.sampled_from([(), ("a",), ("b",), ("a", 0), ("updated_at",), ("history", 1), (0,)]))


@settings(max_examples=500, deadline=None)
@given(_DATA, _SKIPPED)
def test_the_walk_finds_what_the_full_walk_found(data: Any, skipped: set[Path]) -> None:
    assert list(iter_timestamps(data)) == list(_reference(data))
    skip = skipped.__contains__
    assert list(iter_timestamps(data, skip=skip)) == list(_reference(data, skip))
