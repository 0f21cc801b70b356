"""What a timeline holds: the turns of the conversation and the events between them, as plain data.

The readers (the transcripts, the checkpoint folder, the workflow file's history) build a :class:`Timeline`;
the renderers (terminal, HTML, JSON) only draw it. Every event has a place on both axes: ``turn``, the number
of the last model reply at or before it (0 before the first), and ``time``, its wall time (None when the
source records none). Events are kept in time order, turns in order.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Literal

Trigger = Literal["manual", "auto", "unknown"]


@dataclass(frozen=True, slots=True)
class Turn:
    """One model reply of the main conversation (sidechains and API errors left out), counted once per
    ``message.id``: ``tokens`` is the context it used (``T``, input, cache creation, cache read and output
    tokens), ``fill`` the client's ``N% context used`` as a fraction (``ctxres.tiers.fill_of``) against
    ``window``, ``tier`` its band."""

    number: int
    time: dt.datetime | None
    session_id: str
    tokens: int
    window: int
    fill: float
    tier: str


@dataclass(frozen=True, slots=True)
class SessionStarted:
    """A session's first line in its transcript: ``how`` is ``startup``, ``resume`` or ``compact`` (the
    SessionStart source the client recorded, ``unknown`` when it recorded none)."""

    turn: int
    time: dt.datetime | None
    session_id: str
    transcript: str
    how: str
    kind: Literal["session"] = "session"


@dataclass(frozen=True, slots=True)
class Compaction:
    """The client compacted the conversation (its ``compact_boundary`` record): tokens before and after as
    the client counted them (``compactMetadata.preTokens``/``postTokens``), None when it did not record them."""

    turn: int
    time: dt.datetime | None
    session_id: str
    trigger: Trigger
    pre_tokens: int | None
    post_tokens: int | None
    duration_ms: int | None = None
    kind: Literal["compaction"] = "compaction"


@dataclass(frozen=True, slots=True)
class CheckpointWritten:
    """PreCompact wrote checkpoint ``checkpoint`` (``cx-NNN``); ``merged_at`` is when ``ctxres ack`` merged it
    into the resumption section, None while it is unmerged."""

    turn: int
    time: dt.datetime | None
    checkpoint: str
    path: str
    trigger: Trigger
    merged_at: dt.datetime | None
    kind: Literal["checkpoint"] = "checkpoint"


@dataclass(frozen=True, slots=True)
class CheckpointMerged:
    """``ctxres ack`` merged checkpoint ``checkpoint`` into the resumption section."""

    turn: int
    time: dt.datetime | None
    checkpoint: str
    kind: Literal["merge"] = "merge"


@dataclass(frozen=True, slots=True)
class SectionUpdated:
    """The resumption section's ``recovery_state.updated_at`` moved to ``updated_at``; ``source`` says where
    the new version was seen: ``edit`` (an Edit or Write of the session), ``read`` (a Read of the session saw
    the file updated by something else, such as ``ctxres ack`` or another editor), ``commit`` (git history,
    with the commit's short id in ``revision``) or ``file`` (the file as it is now)."""

    turn: int
    time: dt.datetime | None
    workflow: str
    updated_at: dt.datetime | None
    phase: str | None
    source: Literal["edit", "read", "commit", "file"]
    revision: str | None = None
    kind: Literal["section-update"] = "section-update"


@dataclass(frozen=True, slots=True)
class PhaseChanged:
    """The workflow's current phase (what its state says, not its resumption section) moved."""

    turn: int
    time: dt.datetime | None
    workflow: str
    before: str | None
    after: str | None
    kind: Literal["phase-change"] = "phase-change"


@dataclass(frozen=True, slots=True)
class StaleStretch:
    """From ``turn``/``time`` the workflow's state had moved (``moves``: what moved) and its resumption
    section had not; the stretch ends at ``end_turn``/``end_time`` with the section's next update, or is still
    open (both None). ``minutes`` is its length in wall time (up to the timeline's end when open)."""

    turn: int
    time: dt.datetime | None
    workflow: str
    moves: tuple[str, ...]
    end_turn: int | None
    end_time: dt.datetime | None
    minutes: float | None
    kind: Literal["stale"] = "stale"


@dataclass(frozen=True, slots=True)
class Resumed:
    """What SessionStart told the model (after a compaction, or on resume): the phase it named, and the phase
    the workflow file said at that moment (None when unknown); ``matches`` is False when they differ."""

    turn: int
    time: dt.datetime | None
    session_id: str
    source: str
    told_phase: str | None
    file_phase: str | None
    matches: bool | None
    checkpoint: str | None = None
    kind: Literal["resumption"] = "resumption"


Event = (
    SessionStarted
    | Compaction
    | CheckpointWritten
    | CheckpointMerged
    | SectionUpdated
    | PhaseChanged
    | StaleStretch
    | Resumed
)
EVENT_KINDS: tuple[type[Event], ...] = (
    SessionStarted,
    Compaction,
    CheckpointWritten,
    CheckpointMerged,
    SectionUpdated,
    PhaseChanged,
    StaleStretch,
    Resumed,
)
"""Every kind of event, in the order the legend lists them: the one table the renderers, the JSON schema and
the docs are made from."""


@dataclass(frozen=True, slots=True)
class FileVersion:
    """The text of a workflow file at one moment, as a reader saw it: a session's ``edit`` (the file after an
    Edit or Write tool call, from the transcript), a session's ``read`` (a Read tool call's result), a
    ``commit`` of its git history (``revision``: the commit's short id) or the ``file`` as it is now. ``path`` is
    absolute; ``turn`` is the turn it was seen at, None when the source has no turns (commits, the file)."""

    path: str
    time: dt.datetime | None
    turn: int | None
    text: str
    source: Literal["edit", "read", "commit", "file"]
    revision: str | None = None


@dataclass(frozen=True, slots=True)
class Skipped:
    """What a reader could not use, said once per reason: ``count`` lines (or files) of ``source`` skipped
    because of ``reason`` (a truncated last line, an unknown entry type, a line too long, no usage figures)."""

    source: str
    reason: str
    count: int


@dataclass(slots=True)
class Timeline:
    """Turns and events of one session, or of several stitched (``--all``), in time order; ``skipped`` says
    what was left out and why; ``thresholds`` are the tier thresholds drawn on the fill axis."""

    sessions: list[str]
    turns: list[Turn] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    thresholds: tuple[float, float, float] = (0.6, 0.8, 0.9)
    workflow: str | None = None
