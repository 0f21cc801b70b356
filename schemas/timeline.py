"""The JSON ``ctxres timeline --output-format json`` prints: the turns of a session (or of several stitched)
and the events between them, on one time axis (turn number and wall time).

One model per kind of event, told apart by ``kind``; the fields are those of the timeline's data model
(``linters/timeline/model.py``), which a test holds these to.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field

from ctxres.schemas.base import IsoDateTime, StrictModel
from ctxres.schemas.monitor import FillTier

Trigger = Literal["manual", "auto", "unknown"]

_TURN = "Number of the last model reply at or before the event (0 before the first)."
_TIME = "Wall time of the event (ISO-8601, UTC); null when its source records none."
_SESSION = "Id of the Claude Code session."
_WORKFLOW = "Path of the workflow file."


class TurnData(StrictModel):
    """One model reply of the main conversation, with the context it used."""

    number: int = Field(ge=0, description="Number of the reply, counted once per message id.")
    time: IsoDateTime | None = Field(description="Wall time of the reply (ISO-8601, UTC); null when unrecorded.")
    session_id: str = Field(description=_SESSION)
    tokens: int = Field(ge=0, description="Tokens in the context: input, cache creation, cache read and output.")
    window: int = Field(gt=0, description="Size of the context window, in tokens.")
    fill: float = Field(ge=0, description="The client's `N% context used` as a fraction (0.64 is 64%).")
    tier: FillTier = Field(description="Band of the fill (`LOW`, `WARNING`, `CRITICAL`, `COMPACTION`).")


class SessionStartedData(StrictModel):
    """A session's first line in its transcript."""

    kind: Literal["session"] = Field(description="Kind of event: `session`.")
    turn: int = Field(ge=0, description=_TURN)
    time: IsoDateTime | None = Field(description=_TIME)
    session_id: str = Field(description=_SESSION)
    transcript: str = Field(description="Path of the session's transcript.")
    how: str = Field(description="How it started: `startup`, `resume`, `compact` or `unknown`.")


class CompactionData(StrictModel):
    """The client compacted the conversation."""

    kind: Literal["compaction"] = Field(description="Kind of event: `compaction`.")
    turn: int = Field(ge=0, description=_TURN)
    time: IsoDateTime | None = Field(description=_TIME)
    session_id: str = Field(description=_SESSION)
    trigger: Trigger = Field(description="`manual` (/compact), `auto` or `unknown`.")
    pre_tokens: int | None = Field(ge=0, description="Tokens before, as the client counted them; null if unknown.")
    post_tokens: int | None = Field(ge=0, description="Tokens after, as the client counted them; null if unknown.")
    duration_ms: int | None = Field(ge=0, description="How long it took, in milliseconds; null if unknown.")


class CheckpointWrittenData(StrictModel):
    """PreCompact wrote a checkpoint."""

    kind: Literal["checkpoint"] = Field(description="Kind of event: `checkpoint`.")
    turn: int = Field(ge=0, description=_TURN)
    time: IsoDateTime | None = Field(description=_TIME)
    checkpoint: str = Field(description="Id of the checkpoint (`cx-NNN`).")
    path: str = Field(description="Path of the checkpoint file.")
    trigger: Trigger = Field(description="The compaction's trigger: `manual`, `auto` or `unknown`.")
    merged_at: IsoDateTime | None = Field(description="When `ctxres ack` merged it (ISO-8601, UTC); null: unmerged.")


class CheckpointMergedData(StrictModel):
    """`ctxres ack` merged a checkpoint into the resumption section."""

    kind: Literal["merge"] = Field(description="Kind of event: `merge`.")
    turn: int = Field(ge=0, description=_TURN)
    time: IsoDateTime | None = Field(description=_TIME)
    checkpoint: str = Field(description="Id of the checkpoint merged (`cx-NNN`).")


class SectionUpdatedData(StrictModel):
    """The resumption section's `recovery_state.updated_at` moved."""

    kind: Literal["section-update"] = Field(description="Kind of event: `section-update`.")
    turn: int = Field(ge=0, description=_TURN)
    time: IsoDateTime | None = Field(description=_TIME)
    workflow: str = Field(description=_WORKFLOW)
    updated_at: IsoDateTime | None = Field(description="The section's new `updated_at`; null when unreadable.")
    phase: str | None = Field(description="The phase the section names; null when it names none.")
    source: Literal["edit", "read", "commit", "file"] = Field(
        description="Where the new version was seen: `edit` (an Edit or Write of the session), `read` (a Read of "
        "the session saw it updated by something else, such as `ctxres ack`), `commit` (git history), `file` (now)."
    )
    revision: str | None = Field(description="The commit's short id when `source` is `commit`; else null.")


class PhaseChangedData(StrictModel):
    """The workflow's current phase moved."""

    kind: Literal["phase-change"] = Field(description="Kind of event: `phase-change`.")
    turn: int = Field(ge=0, description=_TURN)
    time: IsoDateTime | None = Field(description=_TIME)
    workflow: str = Field(description=_WORKFLOW)
    before: str | None = Field(description="The phase before; null when none.")
    after: str | None = Field(description="The phase after; null when none.")


class StaleStretchData(StrictModel):
    """A stretch where the workflow's state moved and its resumption section did not."""

    kind: Literal["stale"] = Field(description="Kind of event: `stale`.")
    turn: int = Field(ge=0, description="Turn the stretch began after.")
    time: IsoDateTime | None = Field(description="When it began (ISO-8601, UTC); null when unknown.")
    workflow: str = Field(description=_WORKFLOW)
    moves: list[str] = Field(description="What moved in the state.")
    end_turn: int | None = Field(ge=0, description="Turn of the section's next update; null while still open.")
    end_time: IsoDateTime | None = Field(description="Time of the section's next update; null while still open.")
    minutes: float | None = Field(ge=0, description="Its length in minutes (to the timeline's end when open).")


class ResumedData(StrictModel):
    """What SessionStart told the model after a compaction or on resume."""

    kind: Literal["resumption"] = Field(description="Kind of event: `resumption`.")
    turn: int = Field(ge=0, description=_TURN)
    time: IsoDateTime | None = Field(description=_TIME)
    session_id: str = Field(description=_SESSION)
    source: str = Field(description="The SessionStart source: `compact`, `resume`, `startup`, ...")
    told_phase: str | None = Field(description="The phase SessionStart named; null when none.")
    file_phase: str | None = Field(description="The phase the workflow file said then; null when unknown.")
    matches: bool | None = Field(description="Whether the two agree; null when unknown.")
    checkpoint: str | None = Field(description="The checkpoint it resumed from; null when none.")


EventData = Annotated[
    SessionStartedData
    | CompactionData
    | CheckpointWrittenData
    | CheckpointMergedData
    | SectionUpdatedData
    | PhaseChangedData
    | StaleStretchData
    | ResumedData,
    Field(discriminator="kind"),
]


class SkippedData(StrictModel):
    """What a reader could not use, once per reason."""

    source: str = Field(description="The file (or folder) read.")
    reason: str = Field(description="Why: a truncated last line, an unknown entry type, no usage figures, ...")
    count: int = Field(ge=0, description="How many lines (or files) were skipped for it.")


class TimelineData(StrictModel):
    """The turns of one Claude Code session, or of several stitched, and the events between them, in time order."""

    schema_version: Literal["1.0"] = Field(description="Version of this format; always `1.0`.")
    sessions: list[str] = Field(description="Ids of the sessions, in order.")
    workflow: str | None = Field(description="Path of the workflow file followed; null when none.")
    thresholds: list[float] = Field(
        min_length=3, max_length=3, description="The tier thresholds drawn (WARNING, CRITICAL, COMPACTION)."
    )
    summary: str = Field(description="The one-line summary the terminal and the page show.")
    turns: list[TurnData] = Field(description="The model replies, in order.")
    events: list[EventData] = Field(description="The events, in time order, each with its `kind`.")
    skipped: list[SkippedData] = Field(description="What the readers left out, and why.")


TIMELINE_SCHEMAS: dict[str, type[BaseModel]] = {"timeline": TimelineData}
