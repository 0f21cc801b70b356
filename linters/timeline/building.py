"""One :class:`~ctxres.linters.timeline.model.Timeline` from the readers: the sessions' transcripts, the
workflow file's history and the checkpoint folder.

Sessions are stitched oldest first; their turns are numbered on, across sessions, so that one axis holds a
workflow that went through a resume, a ``--continue`` or a new session. An event takes the number of the
last turn at or before its time (:class:`TurnClock`). The workflow's versions are its git history, the file
as it is now and the versions the sessions themselves read and wrote; what SessionStart told the model is
compared with the phase the file said at that moment.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ctxres.linters.timeline.checkpoint_events import checkpoint_events
from ctxres.linters.timeline.model import (
    Compaction,
    Event,
    Resumed,
    SessionStarted,
    Skipped,
    Timeline,
    Turn,
)
from ctxres.linters.timeline.transcripts import SessionRecord
from ctxres.linters.timeline.workflow_history import git_versions, history_events, same_phase
from ctxres.timestamps import as_utc


@dataclass(slots=True)
class TurnClock:
    """The turn number at a moment: the last turn at or before it (0 before the first, or for no time)."""

    times: list[dt.datetime]
    numbers: list[int]

    @classmethod
    def of(cls, turns: Sequence[Turn]) -> TurnClock:
        timed = sorted((as_utc(t.time), t.number) for t in turns if t.time is not None)
        return cls([time for time, _ in timed], [number for _, number in timed])

    def __call__(self, moment: dt.datetime | None) -> int:
        if moment is None:
            return 0
        index = bisect_right(self.times, as_utc(moment))
        return self.numbers[index - 1] if index else 0


@dataclass(frozen=True, slots=True)
class WorkflowSource:
    """The workflow drawn: its file, the path shown for it, and its state folder (None: no checkpoints)."""

    path: Path
    shown: str
    state_dir: Path | None


def stitched(records: Sequence[SessionRecord]) -> tuple[list[Turn], list[Event]]:
    """The sessions' turns numbered on across sessions, oldest session first, and their own events (each
    session's start, its compactions, what SessionStart told the model) moved onto that numbering."""
    turns: list[Turn] = []
    events: list[Event] = []
    for record in sorted(records, key=_start_key):
        offset = len(turns)
        turns += [dataclasses.replace(turn, number=turn.number + offset) for turn in record.turns]
        events.append(SessionStarted(offset, _first(record), record.session_id, str(record.path), record.how))
        events += [dataclasses.replace(event, turn=event.turn + offset) for event in record.compactions]
        events += [dataclasses.replace(event, turn=event.turn + offset) for event in record.resumptions]
    return turns, events


def _first(record: SessionRecord) -> dt.datetime | None:
    """When a session started: its first line's time, or an earlier event of its own (the client writes
    some lines after the hook records that precede them)."""
    events: list[Resumed | Compaction] = [*record.resumptions, *record.compactions]
    times = [as_utc(e.time) for e in events if e.time is not None]
    if record.first_time is not None:
        times.append(as_utc(record.first_time))
    return min(times) if times else None


def _start_key(record: SessionRecord) -> tuple[int, dt.datetime, str]:
    if record.first_time is None:
        return (1, dt.datetime.min.replace(tzinfo=dt.timezone.utc), str(record.path))
    return (0, as_utc(record.first_time), str(record.path))


def _span(records: Sequence[SessionRecord]) -> tuple[dt.datetime | None, dt.datetime | None]:
    starts = [as_utc(r.first_time) for r in records if r.first_time is not None]
    ends = [as_utc(r.last_time) for r in records if r.last_time is not None]
    return (min(starts) if starts else None, max(ends) if ends else None)


def in_order(events: Sequence[Event]) -> list[Event]:
    """``events`` by turn, then time. The client runs SessionStart (``compact``) a few milliseconds before it
    writes the compaction's record: within one turn, what SessionStart told after a compaction comes after it."""
    compacted: dict[int, dt.datetime] = {}
    for event in events:
        if isinstance(event, Compaction) and event.time is not None:
            compacted[event.turn] = max(compacted.get(event.turn, as_utc(event.time)), as_utc(event.time))

    def key(event: Event) -> tuple[int, int, dt.datetime]:
        if event.time is None:
            return (event.turn, 1, dt.datetime.max.replace(tzinfo=dt.timezone.utc))
        moment = as_utc(event.time)
        if isinstance(event, Resumed) and event.source == "compact" and event.turn in compacted:
            moment = max(moment, compacted[event.turn])
        return (event.turn, 0, moment)

    return sorted(events, key=key)


def _judged(events: list[Event], phase_at: Callable[[dt.datetime | None], str | None]) -> list[Event]:
    """Each :class:`Resumed` with the phase the file said at that moment, and whether the model was told it."""
    judged: list[Event] = []
    for event in events:
        if isinstance(event, Resumed):
            said = phase_at(event.time)
            matches = None if said is None or event.told_phase is None else same_phase(event.told_phase, said)
            event = dataclasses.replace(event, file_phase=said, matches=matches)
        judged.append(event)
    return judged


def build(
    records: Sequence[SessionRecord],
    *,
    workflow: WorkflowSource | None,
    thresholds: tuple[float, float, float],
) -> Timeline:
    """The timeline of ``records`` (one or several sessions), with ``workflow``'s history and checkpoints
    over the sessions' time span when a workflow is given."""
    turns, events = stitched(records)
    skipped: list[Skipped] = [item for record in records for item in record.skipped]
    clock = TurnClock.of(turns)
    since, until = _span(records)
    timeline = Timeline(sessions=[r.session_id for r in sorted(records, key=_start_key)], turns=turns)
    timeline.thresholds = thresholds
    if workflow is not None:
        timeline.workflow = workflow.shown
        seen = [v for r in records for v in r.versions if _same_file(v.path, workflow)]
        versions = git_versions(workflow.path, since=since, until=until) + seen
        history, lookup = history_events(versions, workflow=workflow.shown, turn_at=clock, end=until)
        events = _judged(events, lookup.phase_at) + history
        skipped += lookup.skipped
        if workflow.state_dir is not None:
            written, unread = checkpoint_events(workflow.state_dir, since=since, until=until, turn_at=clock)
            events += written
            skipped += unread
    timeline.events = in_order(events)
    timeline.skipped = skipped
    return timeline


SAME_TAIL = 3
"""How many trailing path components must agree for a file a session saw to be the workflow file, when the
session ran in another clone of the project (``projects/<project>/ORCHESTRATION.yaml``)."""


def _same_file(path: str, workflow: WorkflowSource) -> bool:
    """Whether a file a session read or wrote is the workflow: the same path, or, for a session recorded in
    another clone of the project, the same last :data:`SAME_TAIL` path components."""
    seen = [part for part in path.replace("\\", "/").split("/") if part]
    ours = [part for part in str(workflow.path).replace("\\", "/").split("/") if part]
    if seen == ours:
        return True
    tail = min(SAME_TAIL, len(seen), len(ours))
    return tail > 0 and seen[-tail:] == ours[-tail:]
