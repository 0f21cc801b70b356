"""How fresh a resumption section is: FRESH, STALE or CRITICAL (pure: standard library only, no I/O).

docs/formats.md, "Staleness" defines three levels for ``recovery_state.updated_at``:

========= ==========================================================================
FRESH     written during the current phase and activity: nothing to do
STALE     written before the current phase started, or more than 30 minutes ago
CRITICAL  written in a previous session (or never): update before doing anything
========= ==========================================================================

:func:`classify` decides the level from the times a caller knows. Apart from
:mod:`ctxres.state.staleness` (the walk of a document for the times it records, which only the
linters need), so that the hooks, which classify on every prompt at WARNING and above, load this
small module only.
"""

from __future__ import annotations

from operator import itemgetter

from ctxres.defaults import STALENESS_MINUTES
from ctxres.timestamps import Timestamp, format_duration, format_utc, parse_timestamp

# A hook loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    import datetime as dt
    from typing import ClassVar, NamedTuple
else:
    from ctxres.timestamps import dt  # the C classes, without the cost of `import datetime`

DEFAULT_WINDOW_MINUTES = STALENESS_MINUTES
# Two clocks (or a writer who rounds to the minute) disagree a little: tolerate this much.
DEFAULT_CLOCK_SKEW = dt.timedelta(minutes=5)


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

    class Classification(NamedTuple):
        """The level and, in one sentence a person understands, why."""

        level: Level
        reason: str
else:
    # A tuple with named fields, built without collections.namedtuple, which compiles source text at
    # import (about 0.25 million instructions a type on every hook start), and one class, not two.
    class Classification(tuple):
        """The level and, in one sentence a person understands, why."""

        __slots__ = ()
        level = property(itemgetter(0))
        reason = property(itemgetter(1))

        def __new__(cls, level, reason):
            return tuple.__new__(cls, (level, reason))


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
