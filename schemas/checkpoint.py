"""The checkpoint file the PreCompact hook writes before a compaction (``cx-NNN.json``; an earlier
release named it ``cx-NNN-checkpoint.json``)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from ctxres.schemas.base import IsoDateTime, OpenModel, StrictModel
from ctxres.schemas.resumption import Fill, WorkflowStatus


class Trigger(StrictModel):
    """What caused the compaction."""

    type: Literal["auto", "manual"] = Field(description="`auto` (the system compacted) or `manual` (`/compact`).")
    source: str = Field(description="What wrote the checkpoint, for example `PreCompact hook`.")


class ContextState(StrictModel):
    """How full the context window was when the checkpoint was written."""

    estimated_fill_before_compaction: Fill | None = Field(
        description="Fill (fraction 0-1) from the last context-monitor reading, null when unknown."
    )
    estimated_tokens_used: int | None = Field(ge=0, description="Tokens in the context, null when unknown.")
    context_window_size: int = Field(gt=0, description="Size of the context window in tokens.")
    source: str = Field(description="Where the figures came from, for example `transcript_heuristic`.")


class OrchestrationState(StrictModel):
    """The workflow's position, copied from the ORCHESTRATION.yaml at compaction time."""

    workflow_id: str | None = Field(description="Id of the workflow (`workflow.id`).")
    workflow_status: WorkflowStatus | None = Field(description="Lifecycle state of the workflow.")
    current_phase: int | None = Field(ge=0, description="Number of the phase in progress.")
    current_phase_name: str | None = Field(None, description="Name of the phase in progress.")
    current_activity: str | None = Field(None, description="What was happening, for example `qg-2-iteration-1`.")
    last_completed_checkpoint: str | None = Field(None, description="Latest id of the `checkpoints:` section.")
    phases_complete: list[int] | None = Field(None, description="Numbers of the completed phases.")
    phases_in_progress: list[int] | None = Field(None, description="Numbers of the phases in progress.")
    phases_remaining: list[int] | None = Field(None, description="Numbers of the phases not started.")
    current_gate: str | None = Field(None, description="Gate in progress, null between gates.")
    current_gate_iteration: int | None = Field(None, ge=1, description="Iteration of the gate in progress.")
    current_gate_score: float | None = Field(None, ge=0, le=1, description="Latest score of the gate in progress.")
    current_gate_score_iteration: int | None = Field(
        None,
        ge=1,
        description="The iteration that produced `current_gate_score` (the one in progress may be unscored).",
    )
    workflow_unreadable: str | None = Field(
        None,
        description=(
            "Set when the workflow file could not be read at compaction time (an unresolved merge conflict, a "
            "YAML error, an unknown status): the file and why. The other fields then come from what its text "
            "still shows (a conflict's first side) and from the newest readable checkpoint."
        ),
    )


class CheckpointDecision(StrictModel):
    """A decision taken since the previous checkpoint."""

    id: str = Field(description="Decision id, `RD-NNN` or with the project's own prefix (`DL-NNN`).")
    summary: str = Field(description="What was decided.")
    affects_phases: list[int] | None = Field(None, description="Numbers of the phases the decision affects.")


class AccumulatedContext(StrictModel):
    """Knowledge gathered so far that the compaction summary may lose."""

    defect_patterns: list[str] | None = Field(None, description="Recurring defect patterns.")
    decisions_since_last_checkpoint: list[CheckpointDecision] | None = Field(
        None, description="Decisions taken since the previous checkpoint."
    )
    agent_summaries: dict[str, str] | None = Field(None, description="One line per completed agent.")


class CheckpointFileToRead(StrictModel):
    """A file to read when recovering."""

    path: str = Field(min_length=1, description="Repository-relative path.")
    sections: list[str] | None = Field(None, description="Sections of the file that matter.")
    priority: int | None = Field(None, ge=1, description="Load order: 1 is read first.")
    purpose: str | None = Field(None, description="Why the file matters.")


class RecoveryInstructions(StrictModel):
    """What the session should do after the compaction."""

    files_to_read: list[CheckpointFileToRead | str] | None = Field(None, description="Files to read, in order.")
    next_action: str = Field(description="The next action after re-orientation.")
    critical_context: str | None = Field(None, description="What must not be forgotten.")


class CheckpointMetadata(StrictModel):
    """Who wrote the checkpoint and whether it has been acknowledged."""

    written_by: str = Field(description="The program that wrote the checkpoint.")
    acknowledged: bool = Field(description="True once the data has been merged into the resumption section.")
    acknowledged_at: IsoDateTime | None = Field(
        None, description="When it was acknowledged; set exactly when `acknowledged` is true."
    )


class Checkpoint(StrictModel):
    """A checkpoint written by the PreCompact hook (seed layout, `schema_version` 1.0.0)."""

    schema_version: Literal["1.0.0"] = Field(description="Version of this file format: `1.0.0`.")
    event_type: Literal["compaction"] = Field(description="Always `compaction`.")
    event_id: str = Field(
        pattern=r"^cx-\d{3,}$", description="Id of the compaction, `cx-NNN`; the file name starts with it."
    )
    timestamp: IsoDateTime = Field(description="When the PreCompact hook fired.")
    trigger: Trigger = Field(description="What caused the compaction, and which program wrote the file.")
    context_state: ContextState = Field(description="How full the context was.")
    orchestration_state: OrchestrationState = Field(description="The workflow's position.")
    accumulated_context: AccumulatedContext = Field(description="Knowledge gathered so far.")
    recovery_instructions: RecoveryInstructions = Field(description="What to do after the compaction.")
    metadata: CheckpointMetadata = Field(description="Writer and acknowledgement.")


class PeerContextState(OpenModel):
    """Context figures in the layout written by the Jerry CLI."""

    fill_percentage: Fill | None = Field(description="Fill as a fraction 0-1 (despite the name).")
    tier: str = Field(description="Fill tier, for example `nominal`, `critical`, `emergency`.")
    token_count: int | None = Field(ge=0, description="Tokens in the context, null when unknown.")
    context_window: int | None = Field(None, gt=0, description="Size of the context window.")


class PeerCheckpoint(StrictModel):
    """A checkpoint in the layout the Jerry CLI writes (`cx-NNN.json`): accepted as it is."""

    checkpoint_id: str = Field(pattern=r"^cx-\d{3,}$", description="Id of the checkpoint, `cx-NNN`.")
    context_state: PeerContextState = Field(description="Context figures.")
    resumption_state: dict[str, Any] | None = Field(
        description="A copy of the resumption section, null when none was available."
    )
    created_at: IsoDateTime = Field(description="When the checkpoint was written.")


CHECKPOINT_SCHEMAS: dict[str, type[BaseModel]] = {"checkpoint": Checkpoint, "checkpoint-peer": PeerCheckpoint}
