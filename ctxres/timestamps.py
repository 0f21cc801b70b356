"""ISO-8601 timestamps as real files write them (pure: standard library only, no I/O).

Accepted: ``2026-02-17T12:34:56Z``, ``...+02:00`` / ``+0200`` / ``+02``, fractions of any length
(``.5``, ``.123456789``), a space or ``t`` instead of ``T``, minutes without seconds, no zone at
all (read as UTC, and :attr:`Timestamp.assumed_utc` says so), a date alone (``2026-02-17``, the
start of that day in UTC, :attr:`Timestamp.date_only`), and ``24:00`` (the end of the day).
YAML loaders that turn unquoted timestamps into ``datetime``/``date`` objects are covered too.

Anything else, including a value with the right shape that is not a real time
(``2026-02-30T25:00:00Z``), gives ``None``.

:func:`now` is the one reading of the clock; ``CTXRES_NOW`` (ISO-8601) freezes it for replays and tests.

The ``datetime`` classes come from CPython's C module ``_datetime`` (``dt`` here; core modules take
them from this module). ``import datetime`` first runs that module's pure-Python implementation and
then replaces its classes with the C ones: about 5 million instructions, 1 ms, on every prompt's
hook. The classes are the very same (``datetime.datetime is _datetime.datetime``); a Python
without ``_datetime`` gets the ``datetime`` module.
"""

from __future__ import annotations

import os
import re
from operator import itemgetter

# A hook loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover - the checker reads the documented module
    import datetime as dt
else:
    try:
        import _datetime as dt
    except ImportError:  # pragma: no cover - a Python without the C module
        import datetime as dt

FROZEN_ENV = "CTXRES_NOW"

_ISO_PATTERN = r"""
    (?P<year>\d{4})-(?P<month>\d{2})-(?P<day>\d{2})
    (?:
        [Tt\x20](?P<hour>\d{2}):(?P<minute>\d{2})
        (?::(?P<second>\d{2})(?:[.,](?P<fraction>\d+))?)?
        \x20?(?P<zone>[Zz]|[+-]\d{2}(?::?\d{2})?)?
    )?
    """


def _iso_fullmatch(text: str) -> re.Match[str] | None:
    """The pattern is compiled on first use (``re`` caches it): a hook that reads no time, or only
    canonical ones (:func:`_canonical`), never pays for compiling it."""
    return re.fullmatch(_ISO_PATTERN, text, re.VERBOSE)


def _canonical(text: str) -> dt.datetime | None:
    """``2026-02-17T09:20:00Z``, the form every writer of these files uses, without the pattern; None
    for any other form (the pattern decides) or an impossible date (the caller returns None too)."""
    if len(text) != 20 or text[19] not in "Zz" or text[10] not in "Tt ":
        return None
    if text[4] != "-" or text[7] != "-" or text[13] != ":" or text[16] != ":":
        return None
    digits = text[0:4] + text[5:7] + text[8:10] + text[11:13] + text[14:16] + text[17:19]
    if not (digits.isascii() and digits.isdigit()) or text[11:13] == "24":
        return None
    return dt.datetime(
        int(text[0:4]),
        int(text[5:7]),
        int(text[8:10]),
        int(text[11:13]),
        int(text[14:16]),
        int(text[17:19]),
        tzinfo=dt.timezone.utc,
    )


if TYPE_CHECKING:  # pragma: no cover
    from typing import NamedTuple

    class _TimestampFields(NamedTuple):
        instant: dt.datetime
        text: str
        date_only: bool = False
        assumed_utc: bool = False
else:
    # A tuple with named fields, built without collections.namedtuple, which compiles source text at
    # import (about 0.25 million instructions on every hook start).
    class _TimestampFields(tuple):
        __slots__ = ()
        instant = property(itemgetter(0))
        text = property(itemgetter(1))
        date_only = property(itemgetter(2))
        assumed_utc = property(itemgetter(3))

        def __new__(cls, instant, text, date_only=False, assumed_utc=False):
            return tuple.__new__(cls, (instant, text, date_only, assumed_utc))


class Timestamp(_TimestampFields):
    """A parsed timestamp: the instant (aware, in UTC) and how it was written."""

    __slots__ = ()

    def note(self) -> str:
        """What a reader must know about how the value was read ("" when it was unambiguous)."""
        if self.date_only:
            return " (a date without a time: read as the start of that day, UTC)"
        if self.assumed_utc:
            return " (no time zone: read as UTC)"
        return ""


def _zone(text: str | None) -> dt.timezone | None:
    """The zone of ``Z``/``+HH:MM``/``+HHMM``/``+HH``; None for no zone; raises on a bad offset."""
    if text is None:
        return None
    if text in ("Z", "z"):
        return dt.timezone.utc
    sign = -1 if text[0] == "-" else 1
    digits = text[1:].replace(":", "")
    hours, minutes = int(digits[:2]), int(digits[2:] or 0)
    if hours > 23 or minutes > 59:
        raise ValueError("offset out of range")
    return dt.timezone(sign * dt.timedelta(hours=hours, minutes=minutes))


def _from_match(match: re.Match[str], text: str) -> Timestamp:
    """Build the timestamp; raises ``ValueError`` when a field is out of range."""
    day = dt.date(int(match["year"]), int(match["month"]), int(match["day"]))
    if match["hour"] is None:
        midnight = dt.datetime(day.year, day.month, day.day, tzinfo=dt.timezone.utc)
        return Timestamp(midnight, text, date_only=True)
    hour, minute, second = int(match["hour"]), int(match["minute"]), int(match["second"] or 0)
    micro = int((match["fraction"] or "0")[:6].ljust(6, "0"))
    zone = _zone(match["zone"])
    end_of_day = hour == 24 and minute == 0 and second == 0 and micro == 0
    base = dt.datetime(day.year, day.month, day.day, 0 if end_of_day else hour, minute, second, micro)
    if end_of_day:
        base += dt.timedelta(days=1)
    instant = base.replace(tzinfo=zone or dt.timezone.utc).astimezone(dt.timezone.utc)
    return Timestamp(instant, text, assumed_utc=zone is None)


def as_utc(moment: dt.datetime) -> dt.datetime:
    """``moment`` in UTC; a naive one is taken as UTC."""
    return moment.replace(tzinfo=dt.timezone.utc) if moment.tzinfo is None else moment.astimezone(dt.timezone.utc)


def parse_timestamp(value: object) -> Timestamp | None:
    """Parse an ISO-8601 string (or a ``datetime``/``date``); ``None`` when it is not a real time."""
    if isinstance(value, dt.datetime):
        return Timestamp(as_utc(value), value.isoformat(), assumed_utc=value.tzinfo is None)
    if isinstance(value, dt.date):
        midnight = dt.datetime(value.year, value.month, value.day, tzinfo=dt.timezone.utc)
        return Timestamp(midnight, value.isoformat(), date_only=True)
    if not isinstance(value, str):
        return None
    text = value.strip()
    try:
        canonical = _canonical(text)
    except ValueError:  # month 13, February 30: not a real time
        return None
    if canonical is not None:
        return Timestamp(canonical, value)
    match = _iso_fullmatch(text)
    if match is None:
        return None
    try:
        return _from_match(match, value)
    except (ValueError, OverflowError):
        return None


def invalid_reason(value: object) -> str | None:
    """Why a value written like a timestamp is not a real time (``"day is out of range for month"``).

    None when the value is a real time, or is not written like a timestamp at all.
    """
    if not isinstance(value, str):
        return None
    match = _iso_fullmatch(value.strip())
    if match is None:
        return None
    try:
        _from_match(match, value)
    except (ValueError, OverflowError) as exc:
        return str(exc)
    return None


def parse_datetime(value: object) -> dt.datetime | None:
    """The instant (aware, UTC) of :func:`parse_timestamp`, or ``None``."""
    parsed = parse_timestamp(value)
    return parsed.instant if parsed else None


def format_utc(instant: dt.datetime) -> str:
    """``2026-02-17T12:34:56Z`` (seconds precision, always UTC)."""
    return instant.astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def format_duration(delta: dt.timedelta) -> str:
    """A human duration, rounded down: ``45 s``, ``12 min``, ``3 h 5 min``, ``2 days 4 h``."""
    seconds = int(abs(delta.total_seconds()))
    days, rest = divmod(seconds, 86_400)
    hours, rest = divmod(rest, 3_600)
    minutes, secs = divmod(rest, 60)
    if days:
        unit = "day" if days == 1 else "days"
        return f"{days} {unit} {hours} h" if hours else f"{days} {unit}"
    if hours:
        return f"{hours} h {minutes} min" if minutes else f"{hours} h"
    if minutes:
        return f"{minutes} min"
    return f"{secs} s"


def now() -> dt.datetime:
    """The current time (aware, UTC), or the time ``CTXRES_NOW`` freezes it at.

    Raises ``ValueError`` when ``CTXRES_NOW`` is set to something that is not a time: a replay must
    not run on the real clock without saying so.
    """
    frozen = os.environ.get(FROZEN_ENV)
    if frozen:
        moment = parse_datetime(frozen)
        if moment is None:
            raise ValueError(f"{FROZEN_ENV} is not an ISO-8601 time: {frozen!r}")
        return moment
    return dt.datetime.now(dt.timezone.utc)
