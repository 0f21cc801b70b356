"""The times a document records, for the staleness rules (pure: standard library only, no I/O).

How fresh a resumption section is (FRESH, STALE, CRITICAL: :func:`ctxres.state.freshness.classify`) is
decided in :mod:`ctxres.state.freshness`, which the hooks load alone. Here: :func:`utc_now`, the
linters' one reading of the clock (tests replace it), and :func:`iter_timestamps` and
:func:`newest_timestamp`, which walk a loaded document for the times recorded in its other sections,
the one true reference a static file has (``ctxres check`` has no session).
"""

from __future__ import annotations

import re
from operator import itemgetter

from ctxres import timestamps
from ctxres.timestamps import Timestamp, parse_timestamp

# `ctxres check` loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    import datetime as dt
    from collections.abc import Callable, Iterator
    from typing import Any, NamedTuple
else:
    from ctxres.timestamps import dt  # the C classes, without the cost of `import datetime`

UPDATED_AT_PATH: tuple[str, ...] = ("resumption", "recovery_state", "updated_at")

# Words of keys whose times are plans, not events: they may lie after the last update without making it stale.
_PLANNED_WORDS = frozenset(
    {"estimated", "estimate", "eta", "deadline", "due", "expires", "expiry", "expiration", "scheduled", "planned"}
    | {"target", "next", "until", "projected", "expected"}
)

Path = tuple[str | int, ...]


if TYPE_CHECKING:  # pragma: no cover

    class _FoundFields(NamedTuple):
        path: tuple[str | int, ...]
        stamp: Timestamp
else:
    # A tuple with named fields, built without collections.namedtuple, which compiles source text at
    # import: about 0.25 million instructions a type on every start.
    class _FoundFields(tuple):
        __slots__ = ()
        path = property(itemgetter(0))
        stamp = property(itemgetter(1))

        def __new__(cls, path, stamp):
            return tuple.__new__(cls, (path, stamp))


def utc_now() -> dt.datetime:
    """The current time (aware, UTC) for the linters: :func:`ctxres.timestamps.now` (``CTXRES_NOW``
    freezes it), the real clock when ``CTXRES_NOW`` is not a time; tests monkeypatch it."""
    try:
        return timestamps.now()
    except ValueError:  # a CTXRES_NOW that is not a time: the linters read the real clock
        return dt.datetime.now(dt.timezone.utc)


class Found(_FoundFields):
    """A timestamp recorded somewhere in a document."""

    __slots__ = ()


_PLANNED_KEYS: dict[str, bool] = {}  # a plain dict, not functools.lru_cache: no wrapper built at every start


def is_planned_key(key: str) -> bool:
    """True for keys that hold planned times (``estimated_completion``, ``deadline``, ...); remembered: the
    same keys recur in every file."""
    known = _PLANNED_KEYS.get(key)
    if known is None:
        known = not _PLANNED_WORDS.isdisjoint(re.split(r"[^a-z]+", key.lower()))
        if len(_PLANNED_KEYS) < 4096:
            _PLANNED_KEYS[key] = known
    return known


def iter_timestamps(data: Any, *, skip: Callable[[Path], bool] = lambda _path: False) -> Iterator[Found]:
    """Every string in ``data`` that is a whole, valid ISO-8601 date or time (planned times excluded).

    Values that merely contain a time in prose are ignored; ``skip(path)`` prunes a sub-tree.
    """
    # Depth first, in document order. Only what may hold a time is stacked (a mapping, a list, a string that
    # starts with a digit) and asked to ``skip``: any other value yields nothing, skipped or not.
    stack: list[tuple[Path, Any]] = [((), data)] if _may_hold_time(data) else []
    push = stack.append
    while stack:
        path, node = stack.pop()
        if skip(path):
            continue
        if isinstance(node, dict):
            for key, child in reversed(list(node.items())):
                if (
                    isinstance(child, (dict, list)) or (isinstance(child, str) and child[:1].isdigit())
                ) and not is_planned_key(str(key)):
                    push(((*path, key), child))
        elif isinstance(node, list):
            for index in range(len(node) - 1, -1, -1):
                child = node[index]
                if isinstance(child, (dict, list)) or (isinstance(child, str) and child[:1].isdigit()):
                    push(((*path, index), child))
        else:
            stamp = parse_timestamp(node)
            if stamp is not None:
                yield Found(path, stamp)


def _may_hold_time(value: Any) -> bool:
    return isinstance(value, (dict, list)) or (isinstance(value, str) and value[:1].isdigit())


def earliest_instant(stamp: Timestamp) -> dt.datetime:
    """The earliest moment the value can mean: a bare date could be written in any zone (UTC+14)."""
    if stamp.date_only:
        return stamp.instant - dt.timedelta(hours=14)
    return stamp.instant


def newest_timestamp(
    data: Any,
    *,
    exclude: Path = UPDATED_AT_PATH,
    not_after: dt.datetime | None = None,
    also_exclude: tuple[Path, ...] = (),
) -> Found | None:
    """The latest time recorded in ``data`` outside ``exclude`` and ``also_exclude`` (sub-trees), by
    its earliest possible instant.

    ``not_after`` drops times after it (a time in the future records no event that happened).
    On a tie the first one in document order wins.
    """
    skipped = {exclude, *also_exclude}
    best: Found | None = None
    for found in iter_timestamps(data, skip=lambda path: path in skipped):
        instant = earliest_instant(found.stamp)
        if not_after is not None and instant > not_after:
            continue
        if best is None or instant > earliest_instant(best.stamp):
            best = found
    return best
