"""The ``resumption:`` section of an ORCHESTRATION.yaml file, in its two versions.

v1.0 is the original five fields and two flags; v2.0 groups the recovery state into seven
sub-sections so that a session which lost its context can re-orient from this section alone.
"""

from __future__ import annotations

from enum import Enum
from typing import Annotated

from pydantic import Field

from ctxres.schemas.base import IsoDateTime, OpenModel, StrictModel
from ctxres.state.resumption import V2_SUBSECTIONS as V2_SUBSECTIONS  # re-exported

Fill = Annotated[
    float,
    Field(ge=0, le=1, description="A context-window fill as a fraction between 0 and 1 (0.642 means 64.2%)."),
]
GateId = Annotated[str, Field(min_length=1, description="A quality gate id, for example `qg-2`.")]


class WorkflowStatus(str, Enum):
    """Lifecycle state of the workflow."""

    ACTIVE = "ACTIVE"
    PAUSED = "PAUSED"
    COMPLETE = "COMPLETE"
    FAILED = "FAILED"


class FileToRead(StrictModel):
    """A file a resuming session should read, with its load order and the sections that matter."""

    path: str = Field(min_length=1, description="Repository-relative path of the file.")
    priority: int | None = Field(None, ge=1, description="Load order: 1 is read first.")
    purpose: str | None = Field(None, description="Why the file matters to a resuming session.")
    sections: list[str] | None = Field(
        None, description="The sections of the file to read (headings or YAML keys); the rest can be skipped."
    )


FileEntry = Annotated[
    str | FileToRead,
    Field(description="A repository-relative path, or a structured entry with path, priority, purpose, sections."),
]


class ResumptionV1(StrictModel):
    """Resumption section v1.0: where the workflow is, what comes next, and what to read."""

    last_checkpoint: str | None = Field(
        description="Id of the most recent checkpoint in the `checkpoints:` section (for example `CP-003`), "
        "or null before the first one."
    )
    current_state: str = Field(description="Prose summary of the workflow's state.")
    next_step: str = Field(description="The single next action a resuming session should take.")
    files_to_read: list[FileEntry] = Field(description="Files a resuming session should read, in order.")
    cross_session_portable: bool | None = Field(
        None,
        description="True when the section holds no session-specific references and can be used from a new session.",
    )
    ephemeral_references: bool | None = Field(
        None, description="True when the section refers to things that do not outlive the session."
    )


class RecoveryState(StrictModel):
    """Where the workflow is: overwritten at every trigger (T1-T7)."""

    last_checkpoint: str | None = Field(
        description="Id of the latest checkpoint (`checkpoints.latest_id`), or null before the first one."
    )
    current_phase: int = Field(ge=0, description="Number of the phase in progress (machine-readable).")
    current_phase_name: str = Field(description="Human-readable name of the phase in progress.")
    workflow_status: WorkflowStatus = Field(description="Lifecycle state: ACTIVE, PAUSED, COMPLETE or FAILED.")
    current_activity: str = Field(
        description="What was happening, for example `phase-3-agent-execution`, `qg-2-iteration-1`, "
        "`compaction-recovery` or `idle`."
    )
    next_step: str = Field(description="The clear, actionable next step.")
    context_fill_at_update: Fill | None = Field(
        None, description="Context fill (fraction 0-1) when the section was last updated, null when unknown."
    )
    updated_at: IsoDateTime = Field(description="ISO-8601 time of the last update of the resumption section.")
    cross_session_portable: bool | None = Field(None, description="Carried over from v1.0; optional.")
    ephemeral_references: bool | None = Field(None, description="Carried over from v1.0; optional.")


class QualityTrajectory(StrictModel):
    """Quality gate scores per iteration: updated at each gate iteration (T3)."""

    gates_completed: list[GateId] = Field(description="Ids of the gates that passed, in order.")
    gates_remaining: list[GateId] = Field(description="Ids of the gates still to pass.")
    current_gate: GateId | None = Field(None, description="The gate being iterated, null between gates.")
    current_gate_iteration: int | None = Field(
        None, ge=1, description="Iteration number within the current gate, null between gates."
    )
    score_history: dict[str, list[float]] = Field(
        description="For each gate id, the score of every iteration in order."
    )
    lowest_dimension: str | None = Field(None, description="The scoring dimension that is weakest across gates.")
    total_iterations_used: int | None = Field(None, ge=0, description="Sum of all gate iterations so far.")
    total_iterations_budget: int | None = Field(None, ge=0, description="Sum of the maximum iterations of all gates.")


class RecurringPattern(StrictModel):
    """A defect pattern seen in more than one gate, and how it was resolved."""

    pattern: str = Field(description="The defect pattern.")
    gates_affected: list[str] = Field(description="Gates (or phases) where the pattern was found.")
    resolution: str | None = Field(None, description="How the pattern was resolved, null while open.")


class DefectSummary(StrictModel):
    """Defects accumulated across gates: updated at each gate iteration (T3)."""

    total_defects_found: int = Field(ge=0, description="Major and critical defects found across all iterations.")
    total_defects_resolved: int = Field(ge=0, description="Defects resolved so far.")
    unresolved_defects: list[str] = Field(description="Ids of the defects still open.")
    recurring_patterns: list[RecurringPattern] | None = Field(None, description="Patterns that recur across gates.")
    last_gate_primary_defect: str | None = Field(
        None, description="The primary defect of the most recent gate iteration, null when none."
    )


class Decision(StrictModel):
    """A cross-phase decision taken during execution (appended at T6, conditionally at T3)."""

    id: str = Field(
        pattern=r"^[A-Z][A-Z0-9]*-\d{3,}$",
        examples=["RD-001", "DL-001"],
        description=(
            "Sequential decision id, one prefix per log: `RD-001`, `RD-002`, ... or the project's own (`DL-001`)."
        ),
    )
    gate: str | None = Field(None, description="Gate where the decision was taken, null if not gate-related.")
    iteration: int | None = Field(None, ge=1, description="Gate iteration of the decision, null if not gate-related.")
    decision: str = Field(description="What was decided.")
    rationale: str | None = Field(None, description="Why it was decided.")
    affects_phases: list[int] | None = Field(None, description="Numbers of the phases the decision affects.")
    applied: bool | None = Field(None, description="Whether the decision has been applied yet.")


class CompactionEvent(StrictModel):
    """One context compaction, written from a checkpoint file by `ctxres ack` (T5)."""

    id: str = Field(pattern=r"^CX-\d{3,}$", description="Sequential compaction id: `CX-001`, `CX-002`, ...")
    timestamp: IsoDateTime = Field(description="When the PreCompact hook fired.")
    trigger: str = Field(
        pattern="^(auto|manual)$", description="`auto` (the system compacted) or `manual` (`/compact`)."
    )
    estimated_fill_before: Fill | None = Field(
        description="Context fill (fraction 0-1) just before compaction, null when unknown."
    )
    active_phase: int | None = Field(description="Phase in progress at compaction.")
    active_gate: str | None = Field(None, description="Gate in progress at compaction, null between gates.")
    active_gate_iteration: int | None = Field(
        None, ge=1, description="Gate iteration in progress at compaction, null between gates."
    )
    checkpoint_file: str = Field(
        min_length=1, description="Repository-relative path of the checkpoint JSON file written for this event."
    )
    acknowledged: bool = Field(description="True once the session has re-oriented from the checkpoint.")
    acknowledged_at: IsoDateTime | None = Field(
        None, description="When the checkpoint was acknowledged; set exactly when `acknowledged` is true."
    )


class CompactionEvents(StrictModel):
    """Compaction records: the count and one entry per compaction."""

    count: int = Field(ge=0, description="Number of compactions; equals the number of entries in `events`.")
    events: list[CompactionEvent] = Field(description="One entry per compaction, oldest first.")


class ResumptionV2(StrictModel):
    """Resumption section v2.0: seven sub-sections, enough to re-orient from this section alone."""

    recovery_state: RecoveryState = Field(description="Where the workflow is (overwritten at every trigger).")
    files_to_read: list[FileEntry] = Field(
        description="Files to read on resumption; plain paths and structured entries may be mixed."
    )
    quality_trajectory: QualityTrajectory = Field(description="Quality gate scores per iteration.")
    defect_summary: DefectSummary = Field(description="Defects accumulated across gates.")
    decision_log: list[Decision] | None = Field(
        None, description="Cross-phase decisions, appended as they are taken (canonical name)."
    )
    decisions: list[Decision] | None = Field(
        None,
        description="Older name of `decision_log`; accepted, but rename it to `decision_log`.",
        json_schema_extra={"deprecated": True},
    )
    agent_summaries: dict[str, str] = Field(
        description='One line per completed agent: `agent-id: "STATUS. Key output."`.'
    )
    compaction_events: CompactionEvents = Field(description="Compaction records.")


class OrchestrationFile(OpenModel):
    """An ORCHESTRATION.yaml file. Only its `resumption` section is specified by ctxres."""

    resumption: ResumptionV1 | ResumptionV2 | None = Field(None, description="The resumption section, v1.0 or v2.0.")
