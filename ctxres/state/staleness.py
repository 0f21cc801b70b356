"""Staleness of a resumption section (pure: standard library only, no I/O; the hooks import it).

docs/formats.md, "Staleness" defines three levels for ``recovery_state.updated_at``:

========= ==========================================================================
FRESH     written during the current phase and activity: nothing to do
STALE     written before the current phase started, or more than 30 minutes ago
CRITICAL  written in a previous session (or never): update before doing anything
========= ==========================================================================

:func:`classify` decides the level from the times a caller knows. :func:`utc_now` is the only
place that reads the clock, so tests replace it. :func:`iter_timestamps` and
:func:`newest_timestamp` walk a loaded document for the times recorded in its other sections,
which is the one true reference a static file has (``ctxres check`` has no session).
"""

from __future__ import annotations

import re
from operator import itemgetter

from ctxres import timestamps
from ctxres.defaults import STALENESS_MINUTES
from ctxres.timestamps import Timestamp, format_duration, format_utc, parse_timestamp

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover - typing is not imported at run time (hooks' start-up cost)
    import datetime as dt
    from collections.abc import Callable, Iterator
    from typing import Any, ClassVar, NamedTuple
else:
    from ctxres.timestamps import dt  # the C classes, without the cost of `import datetime`

DEFAULT_WINDOW_MINUTES = STALENESS_MINUTES
# Two clocks (or a writer who rounds to the minute) disagree a little: tolerate this much.
DEFAULT_CLOCK_SKEW = dt.timedelta(minutes=5)
UPDATED_AT_PATH: tuple[str, ...] = ("resumption", "recovery_state", "updated_at")

# Words of keys whose times are plans, not events: they may lie after the last update without making it stale.
_PLANNED_WORDS = frozenset(
    {"estimated", "estimate", "eta", "deadline", "due", "expires", "expiry", "expiration", "scheduled", "planned"}
    | {"target", "next", "until", "projected", "expected"}
)

Path = tuple[str | int, ...]


class Level(str):
    """How fresh the resumption section is: FRESH, STALE or CRITICAL (``Level.STALE == "STALE"``).

    One object per level (compare with ``is`` or ``==``). A string with named constants, not an
    ``Enum``: creating an Enum class costs every prompt's hook about 0.1 ms.
    """

    __slots__ = ()
    FRESH: ClassVar[Level]
    STALE: ClassVar[Level]
    CRITICAL: ClassVar[Level]

    @property
    def value(self) -> str:
        """The name (as an Enum member's ``value``)."""
        return str.__str__(self)


Level.FRESH, Level.STALE, Level.CRITICAL = Level("FRESH"), Level("STALE"), Level("CRITICAL")


if TYPE_CHECKING:  # pragma: no cover

    class _ClassificationFields(NamedTuple):
        level: Level
        reason: str

    class _FoundFields(NamedTuple):
        path: tuple[str | int, ...]
        stamp: Timestamp
else:
    # Tuples with named fields, built without collections.namedtuple, which compiles source text at
    # import: about 0.25 million instructions a type on every hook start.
    class _ClassificationFields(tuple):
        __slots__ = ()
        level = property(itemgetter(0))
        reason = property(itemgetter(1))

        def __new__(cls, level, reason):
            return tuple.__new__(cls, (level, reason))

    class _FoundFields(tuple):
        __slots__ = ()
        path = property(itemgetter(0))
        stamp = property(itemgetter(1))

        def __new__(cls, path, stamp):
            return tuple.__new__(cls, (path, stamp))


class Classification(_ClassificationFields):
    """The level and, in one sentence a person understands, why."""

    __slots__ = ()


def utc_now() -> dt.datetime:
    """The current time (aware, UTC) for the linters: :func:`ctxres.timestamps.now` (``CTXRES_NOW``
    freezes it), the real clock when ``CTXRES_NOW`` is not a time; tests monkeypatch it."""
    try:
        return timestamps.now()
    except ValueError:  # a CTXRES_NOW that is not a time: the linters read the real clock
        return dt.datetime.now(dt.timezone.utc)


def _as_timestamp(value: object) -> Timestamp | None:
    return value if isinstance(value, Timestamp) else parse_timestamp(value)


def _instant(value: object) -> dt.datetime | None:
    parsed = _as_timestamp(value)
    return parsed.instant if parsed else None


def in_future(updated: dt.datetime, now: dt.datetime, skew: dt.timedelta = DEFAULT_CLOCK_SKEW) -> dt.timedelta | None:
    """How far ``updated`` lies after ``now``, when that is more than the clock skew; else None."""
    ahead = updated - now
    return ahead if ahead > skew else None


def behind(updated: dt.datetime, reference: dt.datetime, tolerance: dt.timedelta) -> dt.timedelta | None:
    """How far ``updated`` lies before ``reference``, when that is more than ``tolerance``; else None."""
    lag = reference - updated
    return lag if lag > tolerance else None


def classify(
    updated_at: object,
    *,
    now: dt.datetime,
    current_phase_started_at: object = None,
    session_started_at: object = None,
    window_minutes: int = DEFAULT_WINDOW_MINUTES,
    clock_skew: dt.timedelta = DEFAULT_CLOCK_SKEW,
) -> Classification:
    """FRESH, STALE or CRITICAL for ``recovery_state.updated_at`` (a string, datetime or None).

    In order: no readable ``updated_at`` is CRITICAL (nothing shows it was written in this
    session); a time more than ``clock_skew`` in the future is STALE (it cannot be trusted, and
    rewriting it fixes it); before ``session_started_at`` is CRITICAL; before
    ``current_phase_started_at`` is STALE; more than ``window_minutes`` before ``now`` is STALE.
    Exactly ``window_minutes`` old is still FRESH. The session and phase comparisons tolerate
    ``clock_skew`` too, because hand-written times are rounded.
    """
    if updated_at is None or updated_at == "":
        return Classification(Level.CRITICAL, "`updated_at` is missing: nothing shows the section was updated")
    stamp = _as_timestamp(updated_at)
    if stamp is None:
        return Classification(Level.CRITICAL, f"`updated_at` {updated_at!r} is not a valid ISO-8601 time")
    updated = stamp.instant
    shown = f"{format_utc(updated)}{stamp.note()}"
    ahead = in_future(updated, now, clock_skew)
    if ahead is not None:
        return Classification(Level.STALE, f"`updated_at` {shown} is {format_duration(ahead)} in the future")
    session = _instant(session_started_at)
    if session is not None and behind(updated, session, clock_skew):
        return Classification(
            Level.CRITICAL, f"`updated_at` {shown} is from a previous session (this one started {format_utc(session)})"
        )
    phase = _instant(current_phase_started_at)
    if phase is not None and behind(updated, phase, clock_skew):
        return Classification(
            Level.STALE, f"`updated_at` {shown} is from a previous phase (the current one started {format_utc(phase)})"
        )
    age = now - updated
    window = dt.timedelta(minutes=window_minutes)
    if age > window:
        return Classification(
            Level.STALE, f"`updated_at` {shown} is {format_duration(age)} old, more than {window_minutes} minutes"
        )
    return Classification(Level.FRESH, f"`updated_at` {shown} is {format_duration(age)} old")


class Found(_FoundFields):
    """A timestamp recorded somewhere in a document."""

    __slots__ = ()


_PLANNED_KEYS: dict[str, bool] = {}  # a plain dict, not functools.lru_cache: no wrapper built at every hook start


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
