"""Timelines built by hand from the model, for the renderers' tests (and the browser check).

``busy()``: two sessions (the second resumed) and a third with no turns, two compactions with tokens
before and after, two checkpoints (one merged, one not), a closed and an open stale stretch, phase
changes, resumptions that match and one that does not, skipped lines, and a workflow name that needs
escaping in HTML. ``empty()``: one session with no turns and no events.
"""

from __future__ import annotations

import datetime as dt

from ctxres.linters.timeline.model import (
    EVENT_KINDS,
    CheckpointMerged,
    CheckpointWritten,
    Compaction,
    Event,
    PhaseChanged,
    Resumed,
    SectionUpdated,
    SessionStarted,
    Skipped,
    StaleStretch,
    Timeline,
    Turn,
)
from ctxres.tiers import fill_of, tier_for

START = dt.datetime(2026, 3, 2, 9, 0, tzinfo=dt.timezone.utc)
WINDOW = 200_000
WORKFLOW = "projects/<PROJ&001>/ORCHESTRATION.yaml"


def at(minutes: float) -> dt.datetime:
    return START + dt.timedelta(minutes=minutes)


def turn(number: int, session: str, tokens: int) -> Turn:
    fill = fill_of(tokens, WINDOW)
    return Turn(number, at(number), session, tokens, WINDOW, fill, str(tier_for(fill)))


def _tokens(number: int) -> int:
    """Rising to ~164k by turn 20, again by turn 40, then a slow climb."""
    if number <= 20:
        return 20_000 + number * 7_200
    if number <= 40:
        return 3_600 + (number - 20) * 8_000
    return 3_200 + (number - 40) * 2_500


def busy() -> Timeline:
    turns = [turn(n, "s-one" if n <= 20 else "s-two", _tokens(n)) for n in range(1, 61)]
    events: list[Event] = [
        SessionStarted(0, at(0), "s-one", "/home/u/.claude/projects/p/s-one.jsonl", "startup"),
        PhaseChanged(3, at(3), WORKFLOW, None, "design"),
        SectionUpdated(4, at(4), WORKFLOW, at(4), "design", "edit"),
        PhaseChanged(12, at(12), WORKFLOW, "design", "build <alpha>"),
        StaleStretch(12, at(12), WORKFLOW, ("phase", "tasks"), 24, at(24), 12.0),
        CheckpointWritten(20, at(20.5), "cx-001", ".jerry/checkpoints/cx-001.json", "auto", at(23)),
        Compaction(20, at(20.5), "s-one", "auto", 164_000, 3_600, 41_000),
        Resumed(20, at(21), "s-one", "compact", "build <alpha>", "build <alpha>", True, "cx-001"),
        CheckpointMerged(23, at(23), "cx-001"),
        SectionUpdated(24, at(24), WORKFLOW, at(24), "build <alpha>", "commit", "abc1234"),
        SessionStarted(21, at(21.5), "s-two", "/home/u/.claude/projects/p/s-two.jsonl", "resume"),
        Resumed(21, at(21.5), "s-two", "resume", "build <alpha>", "build <alpha>", True),
        PhaseChanged(33, at(33), WORKFLOW, "build <alpha>", "verify"),
        CheckpointWritten(40, at(40.5), "cx-002", ".jerry/checkpoints/cx-002.json", "manual", None),
        Compaction(40, at(40.5), "s-two", "manual", 164_000, 3_200),
        Resumed(40, at(41), "s-two", "compact", "build <alpha>", "verify", False, "cx-002"),
        StaleStretch(41, at(41), WORKFLOW, ("tasks",), None, None, 19.0),
        SessionStarted(60, at(61), "s-three", "/home/u/.claude/projects/p/s-three.jsonl", "unknown"),
    ]
    skipped = [
        Skipped("/home/u/.claude/projects/p/s-two.jsonl", "a truncated last line", 1),
        Skipped("/home/u/.claude/projects/p/s-two.jsonl", "an unknown entry type", 3),
    ]
    events.sort(key=lambda e: e.time or START)
    return Timeline(["s-one", "s-two", "s-three"], turns, events, skipped, workflow=WORKFLOW)


def empty() -> Timeline:
    return Timeline(["s-lone"], [], [SessionStarted(0, None, "s-lone", "/t/s-lone.jsonl", "startup")])


def kinds_in(timeline: Timeline) -> set[str]:
    return {event.kind for event in timeline.events}


ALL_KINDS = {cls.__dataclass_fields__["kind"].default for cls in EVENT_KINDS}
