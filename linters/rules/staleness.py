"""S rules: a stale ``updated_at``, and a resumption section that contradicts the rest of its file.

Every rule compares two places of one ORCHESTRATION.yaml and only where the file's structure
says unambiguously what the other place means; when a section has a shape we do not recognise
the rule says nothing. The time rules use the pure core in :mod:`ctxres.state.staleness` (which the
hooks reuse); the clock is read through :func:`ctxres.state.staleness.utc_now` only.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import timedelta
from functools import cache

from ctxres.config import Config
from ctxres.findings import Finding, Severity
from ctxres.formats.document import Document, JsonPath, format_json_path
from ctxres.linters.checking.registry import Rule, register
from ctxres.linters.checking.severity_policy import Case
from ctxres.linters.rules.conformance import schema_text
from ctxres.linters.validation.schema_errors import dotted
from ctxres.records import FrozenRecord, init_field
from ctxres.state import orchestration as state
from ctxres.state import staleness as core
from ctxres.state.orchestration import (
    FAILED_WORDS,
    NOT_STARTED_WORDS,
    PASSED_WORDS,
    RUNNING_WORDS,
    WORKFLOW_STATUSES,
    CheckpointEntries,
    Gate,
    normalize_status,
    phase_number,
    score_value,
    workflow_meaning,
)
from ctxres.state.resumption import detect_version
from ctxres.timestamps import Timestamp, format_duration, format_utc, invalid_reason, parse_timestamp

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is not imported at run time: about 2 ms of every start
    from typing import Any, TypeVar

    T = TypeVar("T")

NOT_A_TIME = register(
    "S001",
    "updated-at-not-a-time",
    "`recovery_state.updated_at` is written like a timestamp but is not a real time.",
    case=Case.TOOL_JOB,
    why=(
        "Staleness (PostToolUse, `ctxres stale`, the monitor) is computed from this time; it cannot be "
        "computed from this value."
    ),
    explanation="""
    ## Why
    `updated_at` is how a hook or a resuming session tells whether the resumption section is
    fresh. A value with the right shape but an impossible date or hour (February 30th, 25
    o'clock) cannot be compared with anything, so the staleness checks are silently off.
    (A value that is not even shaped like a timestamp is reported by C004.)

    ## Example
    ```yaml
    resumption:
      recovery_state:
        updated_at: "2026-02-30T25:00:00Z"   # there is no February 30th, no hour 25
    ```

    ## Fix
    Write the real time of the last update of the section, in UTC:
    `updated_at: "2026-02-28T23:00:00Z"`.
    """,
)
IN_FUTURE = register(
    "S002",
    "updated-at-in-future",
    "`recovery_state.updated_at` is in the future.",
    case=Case.TOOL_JOB,
    why="A time in the future hides every later change from the staleness checks.",
    explanation="""
    ## Why
    A section stamped in the future looks fresh until that time comes, so a stale section would
    never be flagged. It is usually a typo in the date, a local time written with `Z`, or a time
    without a zone that is read as UTC. Five minutes of clock skew are tolerated.

    ## Example
    ```yaml
    recovery_state:
      updated_at: "2062-02-17T12:34:56Z"   # 2026 was meant
    ```

    ## Fix
    Set `updated_at` to the time of the last update, with its time zone (`Z` for UTC, or an
    offset such as `+02:00`).
    """,
)
BEHIND_FILE = register(
    "S003",
    "updated-at-behind-file",
    "`recovery_state.updated_at` is older than a change recorded elsewhere in the file.",
    case=Case.WRONG_RESUMPTION,
    why=(
        "The section is older than a change recorded elsewhere in the file: the next session resumes from"
        " an older state. A later time inside the section itself is a warning (`updated_at` not bumped)."
    ),
    explanation="""
    ## Why
    The update protocol rewrites `recovery_state` at every state transition (phase start or end,
    quality-gate iteration, agent completion, compaction, decision). When another section
    records an event (a checkpoint, a gate iteration, an agent's `completed_at`, a decision)
    more than the staleness window (30 minutes, `staleness-minutes`) after `updated_at`, the
    resumption section was not updated for it: a session that resumes from it re-does or skips
    work. The message names the newest time in the file and its line. Planned times
    (`estimated_completion`, `deadline`, ...) and times in the future are not events and are
    not used; a bare date counts only when it is a later day in every time zone.

    ## Example
    ```yaml
    checkpoints:
      entries:
        - id: "CP-006"
          timestamp: "2026-02-23T02:00:00Z"
    resumption:
      recovery_state:
        last_checkpoint: "CP-005"
        updated_at: "2026-02-23T01:00:00Z"   # before CP-006 was recorded
    ```

    ## Fix
    Bring the resumption section up to date with what the newer entry records (the current
    phase, checkpoint, trajectory, summaries) and set `updated_at` to the time of that update.

    ## A later time inside the section itself: a warning
    When the only later time is in the resumption section itself (a `decision_log` entry logged
    after the last update, an agent summary's time), the section does hold that change: only
    `updated_at` was not bumped. That is reported as a **warning** ("updated_at not bumped"),
    not as a stale section.
    """,
)
LAST_CHECKPOINT = register(
    "S004",
    "last-checkpoint-mismatch",
    "`last_checkpoint` is not the latest checkpoint of the `checkpoints` section.",
    case=Case.CONTRADICTION,
    why=(
        "`last_checkpoint` and the `checkpoints` section name different checkpoints. The time of the "
        "latest checkpoint instead of its id is a warning."
    ),
    explanation="""
    ## Why
    `last_checkpoint` (in `recovery_state` for v2.0, at the top of the section for v1.0) is set
    from `checkpoints.latest_id`: it tells a resuming session which recovery point to start
    from. When it names an older checkpoint, one that the `checkpoints` section does not record,
    or a time instead of an id, the session restarts from the wrong place.

    ## Example
    ```yaml
    checkpoints:
      latest_id: "CP-006"
      entries: [{id: "CP-005"}, {id: "CP-006"}]
    resumption:
      recovery_state:
        last_checkpoint: "CP-005"
    ```

    ## Fix
    Set `last_checkpoint` to the latest checkpoint id (the message names it), or to `null` when
    the `checkpoints` section records none. If the checkpoint really was taken, record it in
    `checkpoints.entries` and `checkpoints.latest_id` instead.

    ## What is normal
    A `checkpoints` section that was never used (`latest_id: null`, `entries: []`) next to a
    free-form label such as `last_checkpoint: "workflow-complete"` is how a workflow that never
    compacted looks: there is no recovery point to be behind. That is not S004 but the warning
    S015 (checkpoints-section-unused). S004 stays an error for a `last_checkpoint` that is behind
    the recorded entries, that names a checkpoint id (`CP-005`) the section does not record, or
    that holds the time of an *older* checkpoint.

    ## The time of the latest checkpoint: a warning
    Some projects write the time of the latest recorded checkpoint in `last_checkpoint`
    (`"2026-01-31T22:45:00Z"` where `CP-002` was taken at that time). That names the same
    checkpoint as its id, a different shape carrying the same fact, so it is reported as a
    **warning** ("use CP-002"). A time that matches no checkpoint, or an older one, is still an
    error.
    """,
)
CHECKPOINTS_UNUSED = register(
    "S015",
    "checkpoints-section-unused",
    "The `checkpoints` section records no checkpoint, and `last_checkpoint` holds a label instead of null.",
    Severity.WARNING,
    case=Case.SAME_FACTS,
    why="An empty `checkpoints` section with a label in `last_checkpoint` says the same as null: no checkpoint yet.",
    explanation="""
    ## Why
    A workflow that never compacted and never passed a checkpointed gate keeps its `checkpoints`
    section empty (`latest_id: null`, `entries: []`) and often writes a free-form label into
    `last_checkpoint` (`"workflow-complete"`, `"phase-3-done"`). That is the normal state of such a
    workflow, not a wrong recovery point, so it is only worth knowing: a resuming session finds no
    checkpoint to start from besides the resumption section itself, and the label looks like a
    checkpoint id to a reader. This is a warning with its own code so that a project that
    never uses checkpoints can ignore it (`ignore = ["S015"]`) without losing S004.

    A `last_checkpoint` that names a checkpoint id (`CP-003`) while the section records none is
    not this warning but S004: a checkpoint was taken and never recorded.

    ## Example
    ```yaml
    checkpoints:
      latest_id: null
      entries: []
    resumption:
      last_checkpoint: "workflow-complete"
    ```

    ## Fix
    Set `last_checkpoint` to `null` (no checkpoint was taken), or record the checkpoints the
    workflow takes in `checkpoints.entries` and `checkpoints.latest_id`.
    """,
)
LATEST_BEHIND_FOLDER = register(
    "S016",
    "latest-checkpoint-behind-folder",
    "`checkpoints.latest_id` is older than checkpoints that the workflow's own folder records.",
    case=Case.WRONG_RESUMPTION,
    why=(
        "The workflow took a later checkpoint than the section says: a session resuming from "
        "`latest_id` starts from an older recovery point."
    ),
    explanation="""
    ## Why
    `checkpoints.latest_id` is the recovery point a resuming session starts from. Workflows keep
    their checkpoints beside their ORCHESTRATION file, as checkpoint files or documents named by
    id (`checkpoints/CP-004.json`, `cp-004-phase-3-summary.md`). When that folder holds a file
    named with a later id of the same prefix than `latest_id`, and the section records no entry
    for it, the checkpoint was taken and the section never updated.

    Only names that start with the id count (`CP-004...`, `cp_004...`), in the folder of the
    ORCHESTRATION file and its sub-folders (hidden folders and dependencies are not read). A
    folder shared with another workflow file is not the workflow's own: it is not read (nor a
    sub-folder that holds another workflow file).

    ## Example
    ```yaml
    checkpoints:
      latest_id: "CP-003"          # the folder holds checkpoints/CP-004-gate-2.md
      entries:
        - {id: "CP-003", timestamp: "2026-03-01T09:00:00Z"}
    ```

    ## Fix
    Record the later checkpoint in `checkpoints.entries` and set `latest_id` (and
    `last_checkpoint`) to it; if the file is not a checkpoint, rename it.
    """,
)
WORKFLOW_STATUS = register(
    "S005",
    "workflow-status-mismatch",
    "`recovery_state.workflow_status` contradicts the workflow's status or the current activity.",
    case=Case.CONTRADICTION,
    why="The section's status contradicts the workflow's.",
    explanation="""
    ## Why
    Hooks decide from `workflow_status` whether to inject a resumption prompt: an `ACTIVE`
    status on a finished workflow makes every new session try to resume it. The status must
    agree with `workflow.status` (`COMPLETED` and `COMPLETE` mean the same) and with
    `current_activity` (an activity that says the workflow is complete needs `COMPLETE`). A file
    without `workflow.status` is compared with its pipelines (the one `current_pipeline` names,
    else all): `COMPLETE` while a phase still runs, or `ACTIVE`/`PAUSED` while every pipeline's
    own status is COMPLETE, is reported too.

    ## Example
    ```yaml
    workflow:
      status: "COMPLETED"
    resumption:
      recovery_state:
        workflow_status: "ACTIVE"
        current_activity: "WORKFLOW_COMPLETE"
    ```

    ## Fix
    Set `workflow_status` to the workflow's real state (`COMPLETE` in the example); if the
    other place is the wrong one, correct it instead.
    """,
)
CURRENT_PHASE = register(
    "S006",
    "current-phase-mismatch",
    "`recovery_state.current_phase`, `current_phase_name` or `current_activity` is not the phase the pipelines are in.",
    case=Case.CONTRADICTION,
    why="The section's phase contradicts the pipelines'.",
    explanation="""
    ## Why
    `current_phase`, `current_phase_name` and `current_activity` tell a resuming session which
    phase to continue. The pipelines record their own `current_phase`; when the section names
    another phase, it was not updated at the last phase transition. Which pipeline is compared:
    the one that `current_pipeline` (top level, in `workflow` or in `recovery_state`) names; else
    every pipeline, when they agree. When they disagree and nothing names one, only a phase that
    none of them is at is reported. The message says which pipeline it compared with.

    When a pipeline's own `current_phase` lags its phases (it names a COMPLETE phase while the one
    after it runs) and the section names the phase that runs, the section is right: the finding
    is on the pipeline's `current_phase`.

    - `current_phase_name` must not be the name of another phase (names are matched ignoring
      case, punctuation, notes in parentheses and a leading "Phase N:").
    - An activity identifier such as `phase-3-agent-execution` must be about the same phase.
    - Phase `0` while every phase of the pipeline waits means "none started" (phase ids start at
      1): the section may name 0 or the phase about to begin. A pipeline with a real phase 0 is
      compared as it is.
    - Without any pipeline `current_phase`, the name and the activity must agree with the
      section's own `current_phase`.

    ## Example
    ```yaml
    current_pipeline: "implementation"
    pipelines:
      implementation:
        current_phase: 6
        phases:
          - {id: 5, name: "Hook Integration", status: "COMPLETE"}
          - {id: 6, name: "System Validation", status: "IN_PROGRESS"}
      docs:
        current_phase: 2
    resumption:
      recovery_state:
        current_phase: 5
        current_phase_name: "Hook Integration"
        current_activity: "phase-5-agent-execution"
    ```

    ## Fix
    Set `current_phase`, `current_phase_name` and `current_activity` to the pipeline's phase (the
    message names it), or correct the pipeline's `current_phase` if that one is wrong.
    """,
)
TRAJECTORY_GATES = register(
    "S007",
    "trajectory-gates-mismatch",
    "`quality_trajectory.gates_completed` disagrees with the status of the gates in `quality_gates`.",
    case=Case.CONTRADICTION,
    why="The trajectory's gates contradict the gates' status.",
    explanation="""
    ## Why
    `gates_completed` is appended when a gate passes. A gate that `quality_gates` marks as passed
    but the trajectory does not list (or lists as remaining) makes a resuming session run the
    gate again; a gate listed as completed while its status is still open or failed makes it
    skip a gate that has not passed. Gates are matched by id, ignoring case.

    ## Example
    ```yaml
    quality_gates:
      qg-2: {status: "PASS"}
    resumption:
      quality_trajectory:
        gates_completed: ["qg-1"]
        gates_remaining: ["qg-2", "qg-3"]
    ```

    ## Fix
    Move each passed gate from `gates_remaining` to `gates_completed`, and remove gates that
    have not passed from `gates_completed`.
    """,
)
TRAJECTORY_SCORES = register(
    "S008",
    "trajectory-scores-mismatch",
    "`quality_trajectory.score_history` disagrees with a gate's iteration history.",
    case=Case.CONTRADICTION,
    why="The trajectory's scores contradict the gates' history.",
    explanation="""
    ## Why
    `score_history.<gate>` holds the score of every iteration of the gate, in order, so that a
    resuming session sees whether the gate is converging. When the gate's own
    `iteration_history` (or `iterations`) in `quality_gates` has more or fewer iterations, or
    other scores, the trajectory was not updated at the last iteration. Scores rounded to two
    or three decimals are accepted.

    ## Example
    ```yaml
    quality_gates:
      qg-2:
        iteration_history:
          - {iteration: 1, score: 0.9595}
          - {iteration: 2, score: 0.9505}
    resumption:
      quality_trajectory:
        score_history:
          qg-2: [0.960]          # iteration 2 is missing
    ```

    ## Fix
    Write one score per iteration of the gate, in order (the message lists them).
    """,
)
TRAJECTORY_ITERATIONS = register(
    "S009",
    "trajectory-iterations-mismatch",
    "`quality_trajectory.total_iterations_used` is not the number of gate iterations in `quality_gates`.",
    case=Case.CONTRADICTION,
    why="The trajectory's iteration count contradicts the gates' history.",
    explanation="""
    ## Why
    `total_iterations_used` is incremented at every gate iteration; compared with
    `total_iterations_budget` it tells a resuming session how much of the iteration budget is
    left. It must equal the number of iterations the gates in `quality_gates` record. (Files in
    which a started gate has no iteration list are not compared.)

    ## Example
    ```yaml
    quality_gates:
      qg-1: {iterations: [{score: 0.88}, {score: 0.93}]}
      qg-2: {iterations: [{score: 0.89}, {score: 0.92}]}
    resumption:
      quality_trajectory:
        total_iterations_used: 3     # the gates record 4
    ```

    ## Fix
    Set `total_iterations_used` to the number in the message.
    """,
)
TRAJECTORY_OPEN = register(
    "S010",
    "trajectory-open-after-complete",
    "The workflow is COMPLETE but `quality_trajectory` still has remaining gates or a current gate.",
    case=Case.CONTRADICTION,
    why="A COMPLETE workflow cannot have open gates.",
    explanation="""
    ## Why
    When `workflow_status` is `COMPLETE`, every gate has passed: `gates_remaining` is empty and
    `current_gate` is null. A trajectory that still lists open gates tells a resuming session
    there is gate work left, and usually means the trajectory was never updated after planning.

    ## Example
    ```yaml
    resumption:
      recovery_state:
        workflow_status: "COMPLETE"
      quality_trajectory:
        gates_completed: []
        gates_remaining: ["gate-1", "gate-2"]
        current_gate: "gate-2"
    ```

    ## Fix
    Move the gates that passed to `gates_completed`, empty `gates_remaining` and set
    `current_gate` and `current_gate_iteration` to null; if the workflow is not complete,
    correct `workflow_status` instead.
    """,
)
SUMMARY_UNFINISHED = register(
    "S011",
    "agent-summary-for-unfinished-agent",
    "`agent_summaries` has an entry for an agent that the pipelines mark as not finished.",
    case=Case.CONTRADICTION,
    why="A summary for an agent that the pipelines say has not finished.",
    explanation="""
    ## Why
    An agent summary is appended when the agent completes. A summary for an agent whose status in
    `pipelines` is still pending or in progress means one of the two places is out of date: a
    resuming session would either trust work that is not done or run the agent again.

    ## Example
    ```yaml
    pipelines:
      main:
        phases:
          - id: 1
            agents:
              - {id: "audit-executor", status: "PENDING"}
    resumption:
      agent_summaries:
        audit-executor: "PASS. All 25 deps compatible."
    ```

    ## Fix
    If the agent has finished, set its status in `pipelines` to `COMPLETE`; otherwise remove the
    summary until it finishes.
    """,
)
SUMMARIES_MISSING = register(
    "S012",
    "agent-summaries-missing",
    "Agents that the pipelines mark complete have no entry in `agent_summaries`.",
    Severity.WARNING,
    case=Case.ADVICE,
    why="The pipelines carry the agents' status; the summaries only add detail for the next session.",
    explanation="""
    ## Why
    `agent_summaries` holds one line per completed agent (its verdict and key output), so that a
    resuming session knows what each agent produced without reading every artifact. Agents that
    `pipelines` marks complete but that have no summary are invisible to it. This is a warning:
    the section is incomplete rather than wrong.

    ## Example
    ```yaml
    pipelines:
      main:
        phases:
          - id: 1
            agents:
              - {id: "audit-executor", status: "COMPLETE"}
    resumption:
      agent_summaries: {}
    ```

    ## Fix
    Add one entry per completed agent, keyed by its id:
    `audit-executor: "PASS. All 25 deps Apache-2.0 compatible. No blockers."`.
    """,
)

V1_PROSE = register(
    "S014",
    "v1-prose-contradicts-state",
    "A v1.0 section's `current_state` or `next_step` states a position that the workflow's state contradicts.",
    case=Case.CONTRADICTION,
    why="The v1.0 prose states a position the workflow's state contradicts.",
    explanation="""
    ## Why
    A v1.0 section has no structured fields, but its prose still says where the workflow is, and
    a resuming session believes it. The forgotten update that the update protocol exists to
    prevent (RG-6: the section written once at planning time and never again) shows as prose
    that says the workflow is not started, initialised or about to execute phase N while
    `workflow.status` is COMPLETE or phase N finished long ago; or, the other way round, prose
    that says the workflow or all its phases are complete while the workflow is still ACTIVE
    with phases to run. A session resuming from it redoes finished work or skips open work.

    "All phases complete, awaiting approval" under a live workflow whose gate (or phase) awaits
    approval is a normal wait state: the phase the gate closes, each pipeline's current phase, may
    still read IN_PROGRESS or PENDING until the approval. Any other unfinished phase is still a
    contradiction, and the message cites that phase.

    Only clear statements count: "not started", "initialized", "ready to execute phase N",
    "about to start phase N", "next: phase N", a `next_step` that begins with "Execute phase
    N", "all phases complete", "workflow complete". A phase is "long complete" when it is
    COMPLETE and a later phase has started (or the pipeline's `current_phase` is later). With
    several pipelines, phase N is compared in the pipeline that `current_pipeline` names, else
    in every pipeline; the message says which.

    ## Example
    ```yaml
    workflow:
      status: "COMPLETE"
    pipelines:
      main:
        phases:
          - {id: 1, name: "Research", status: "COMPLETE"}
    resumption:
      last_checkpoint: "CP-003"
      current_state: "Workflow initialized, ready to execute Phase 1"   # written at planning time
      next_step: "Execute Phase 1 agents"
    ```

    ## Fix
    Rewrite `current_state` and `next_step` to say where the workflow really is (or correct the
    state if that is the stale side). Better: run `ctxres migrate --write FILE`, which turns the
    section into v2.0 with structured `recovery_state` fields that the other S rules check.
    """,
)

OPEN_WORK = register(
    "S017",
    "complete-with-open-work",
    "A v2.0 section says COMPLETE while the same section says work is still open.",
    case=Case.CONTRADICTION,
    why=(
        "The section's status and its own details contradict each other: a resuming session either "
        "closes open work or redoes finished work."
    ),
    explanation="""
    ## Why
    `recovery_state.workflow_status: COMPLETE` tells a resuming session there is nothing left to
    do. When the same section says otherwise, one of the two was not updated:

    - a defect of `defect_summary` whose own status says it is being worked on
      (`IN_PROGRESS`, `REVISING`...): ids listed in `unresolved_defects` alone are not reported,
      since a workflow may finish and carry known defects to later work;
    - an agent summary that says the agent is not done (`"UNDER REVISION. ..."`,
      `"IN PROGRESS. ..."`);
    - `current_activity` or `next_step` that says the workflow has not started or a phase is
      about to start (`"Workflow not started"`, `"phase-1-ready"`, `"Execute Phase 1 agents"`).
      S014 reads these statements in a v1.0 section; this rule reads them after `ctxres migrate`.

    Without a `workflow_status` of the enum (absent, or the placeholder `ctxres migrate` writes),
    `workflow.status` is the status compared.

    ## Example
    ```yaml
    resumption:
      recovery_state:
        workflow_status: "COMPLETE"
        next_step: "Execute Phase 1 agents"        # written at planning time
      agent_summaries:
        reviewer: "UNDER REVISION. Second pass on chapter 3."
    ```

    ## Fix
    Update the stale side: the status (`ACTIVE` while work remains), or the defect, the summary
    and the prose (what was done, and `None - workflow complete` as the next step).
    """,
)

RS: JsonPath = ("resumption", "recovery_state")
QT: JsonPath = ("resumption", "quality_trajectory")

# A gate listed in `gates_completed` must have passed: waiting, running or failed ones have not.
_GATE_OPEN = NOT_STARTED_WORDS | RUNNING_WORDS | FAILED_WORDS
# An agent with a summary must have finished: waiting or running ones have not.
_AGENT_UNFINISHED = NOT_STARTED_WORDS | RUNNING_WORDS
_ACTIVITY_COMPLETE = re.compile(r"workflow[\s_-]*complete", re.IGNORECASE)
# Scores in the trajectory may be rounded to 2 decimals (0.9505 -> 0.95).
_SCORE_TOLERANCE = 0.0051
_LISTED = 3  # how many items a message names before "and N more"


# --- small helpers -------------------------------------------------------------------------


def _id(value: Any) -> str:
    """Ids are matched ignoring case and punctuation: ``QG-1``, ``qg_1`` and ``qg1`` are one gate (remembered:
    the same ids recur in every file)."""
    if not isinstance(value, str):
        return ""
    known = _IDS.get(value)
    if known is None:
        known = re.sub(r"[^0-9a-z]", "", value.casefold())
        if len(value) <= _IDS_LENGTH and len(_IDS) < _IDS_KEPT:
            _IDS[value] = known
    return known


_IDS: dict[str, str] = {}
_IDS_KEPT = 4096
_IDS_LENGTH = 128  # an id or a key, not prose


def _short(path: JsonPath) -> str:
    """Paths inside the resumption section are shown from their sub-section on."""
    return dotted(path[1:] if path[:1] == ("resumption",) and len(path) > 2 else path)


def _line(doc: Document, path: JsonPath) -> int:
    """The line of the key (a mapping or list starts on the line after its key)."""
    return doc.locate(path, key=True).line


def _at(doc: Document, path: JsonPath) -> str:
    """`` `workflow.status` on line 16``."""
    return f"`{_short(path)}` on line {_line(doc, path)}"


def _shown(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else f'"{value}"'


def _some(items: list[str]) -> str:
    """The first few items and how many more."""
    return _some_of(items, str)


def _some_of(items: list[T], shown: Callable[[T], str]) -> str:
    """:func:`_some` of the items as ``shown`` writes them, written for the first few only."""
    head = ", ".join(shown(item) for item in items[:_LISTED])
    return head if len(items) <= _LISTED else f"{head} and {len(items) - _LISTED} more"


class Context(FrozenRecord):
    """What every rule needs: the document, its resumption section and the settings."""

    __slots__ = ("config", "doc", "section", "version")

    doc: Document
    config: Config
    section: dict[str, Any]
    version: str

    def __init__(self, doc: Document, config: Config, section: dict[str, Any], version: str) -> None:
        init_field(self, "doc", doc)
        init_field(self, "config", config)
        init_field(self, "section", section)
        init_field(self, "version", version)

    @property
    def recovery(self) -> dict[str, Any]:
        value = self.section.get("recovery_state")
        return value if self.version == "2.0" and isinstance(value, dict) else {}

    @property
    def trajectory(self) -> dict[str, Any]:
        value = self.section.get("quality_trajectory")
        return value if self.version == "2.0" and isinstance(value, dict) else {}

    def finding(self, rule: Rule, path: JsonPath, message: str, fix: str, *, key: bool = False) -> Finding:
        position = self.doc.locate(path, key=key)
        return Finding(self.doc.path, rule.code, message, rule.severity, position, format_json_path(path), fix)


# --- S001-S003: the time of the last update ------------------------------------------------


@cache
def _updated_at_pattern() -> re.Pattern[str]:
    """The pattern the schema (C004) checks ``updated_at`` against: S001 reports only what it lets through."""
    schema = json.loads(schema_text("resumption-v2"))
    return re.compile(schema["$defs"]["RecoveryState"]["properties"]["updated_at"]["pattern"])


def _updated_at(ctx: Context) -> Timestamp | None:
    """The time of the last update; None when absent, unreadable or a bare date (C001/C004/S001 say so)."""
    stamp = parse_timestamp(ctx.recovery.get("updated_at"))
    return None if stamp is None or stamp.date_only else stamp


def check_not_a_time(ctx: Context) -> list[Finding]:
    value = ctx.recovery.get("updated_at")
    if not isinstance(value, str) or not _updated_at_pattern().search(value):
        return []
    why = invalid_reason(value)
    if why is None:
        return []
    return [
        ctx.finding(
            NOT_A_TIME,
            (*RS, "updated_at"),
            f"`recovery_state.updated_at` is {_shown(value)}, which is not a real time ({why}): "
            "staleness cannot be computed from it",
            "Write the real time of the last update of the section, for example 2026-02-17T12:34:56Z.",
        )
    ]


def check_in_future(ctx: Context) -> list[Finding]:
    stamp = _updated_at(ctx)
    if stamp is None:
        return []
    now = core.utc_now()
    ahead = core.in_future(stamp.instant, now)
    if ahead is None:
        return []
    zone_hint = " Without a time zone the value is read as UTC: add `Z` or the offset." if stamp.assumed_utc else ""
    return [
        ctx.finding(
            IN_FUTURE,
            (*RS, "updated_at"),
            f"`recovery_state.updated_at` is {format_utc(stamp.instant)}{stamp.note()}, "
            f"{format_duration(ahead)} in the future (it is now {format_utc(now)}): "
            "the section would look fresh until then",
            "Set updated_at to the time of the last update, with its time zone." + zone_hint,
        )
    ]


def _newer_than(found: core.Found, updated: Timestamp) -> str:
    """How much later the other time is, in words."""
    if found.stamp.date_only:
        return f"the date {found.stamp.text}, a later day than updated_at in every time zone"
    lag = found.stamp.instant - updated.instant
    return f"{format_utc(found.stamp.instant)}{found.stamp.note()}, {format_duration(lag)} later"


def _newest_behind(ctx: Context, updated: Timestamp, outside: bool) -> core.Found | None:
    """The newest recorded time later than ``updated`` beyond the window: outside the resumption
    section, or anywhere in the file (the section's own entries included); None when there is none."""
    horizon = core.utc_now() + core.DEFAULT_CLOCK_SKEW
    # Compaction events are the acknowledgement rules' (A011 says what a merged checkpoint left behind).
    skipped: JsonPath = ("resumption",) if outside else ("resumption", "compaction_events")
    newest = core.newest_timestamp(
        ctx.doc.data, exclude=(*RS, "updated_at"), not_after=horizon, also_exclude=(skipped,)
    )
    window = timedelta(minutes=ctx.config.staleness_minutes)
    if newest is None or core.behind(updated.instant, core.earliest_instant(newest.stamp), window) is None:
        return None
    return newest


def check_behind_file(ctx: Context) -> list[Finding]:
    """An error when another section records a later change; a warning when only the resumption
    section itself does (an entry logged in it, `updated_at` not bumped: the section holds the change)."""
    stamp = _updated_at(ctx)
    if stamp is None:
        return []
    tolerance = f"(tolerance {ctx.config.staleness_minutes} minutes)"
    newest = _newest_behind(ctx, stamp, outside=True)
    if newest is not None:
        return [
            ctx.finding(
                BEHIND_FILE,
                (*RS, "updated_at"),
                f"`recovery_state.updated_at` is {format_utc(stamp.instant)}{stamp.note()}, but "
                f"{_at(ctx.doc, newest.path)} records {_newer_than(newest, stamp)}: the resumption section "
                f"was not updated after that change {tolerance}",
                f"Bring the resumption section up to date with what line {_line(ctx.doc, newest.path)} records "
                "and set updated_at to the time of that update.",
            )
        ]
    inside = _newest_behind(ctx, stamp, outside=False)
    if inside is None:
        return []
    finding = ctx.finding(
        BEHIND_FILE,
        (*RS, "updated_at"),
        f"`recovery_state.updated_at` is {format_utc(stamp.instant)}{stamp.note()}, but "
        f"{_at(ctx.doc, inside.path)}, inside the resumption section, records {_newer_than(inside, stamp)}: "
        f"updated_at was not bumped when that entry was written {tolerance}",
        f"Set updated_at to the time of the last update of the section (at least what line "
        f"{_line(ctx.doc, inside.path)} records).",
    )
    return [finding.replace(severity=Severity.WARNING)]


# --- S004/S015: last_checkpoint vs the checkpoints section -----------------------------------

# A checkpoint id as the `checkpoints` section writes them (``CP-003``, ``cp_12``); anything else
# beside an unused section is a free-form label (S015), not a missing checkpoint (S004).
_CHECKPOINT_ID = re.compile(r"^\s*cp[\s_-]*\d+\s*$", re.IGNORECASE)


def _same_time(value: str, other: Any) -> bool:
    mine, theirs = parse_timestamp(value), parse_timestamp(other)
    return bool(mine and theirs and not mine.date_only and mine.instant == theirs.instant)


def _last_checkpoint_problem(
    ctx: Context, named: str | None, view: CheckpointEntries
) -> tuple[str, str, Severity] | None:
    """(what is wrong, what to change, how serious), or None when ``named`` is the latest checkpoint.

    The time of the latest checkpoint names the same checkpoint as its id: a warning.
    """
    error = LAST_CHECKPOINT.severity
    doc = ctx.doc
    if view.latest is None:
        if named is None or not _CHECKPOINT_ID.match(named):
            return None  # an unused section beside a free-form label: S015's warning
        return (
            f"names the checkpoint {_shown(named)}, but the `checkpoints` section records no checkpoint "
            f"({_at(doc, view.latest_path)} is null)",
            "Set last_checkpoint to null, or record the checkpoint in `checkpoints.entries` and "
            "`checkpoints.latest_id`.",
            error,
        )
    latest = f"{_shown(view.latest)} ({_at(doc, view.latest_path)})"
    fix = f'Set last_checkpoint to "{view.latest}".'
    if named is None:
        return f"is null, but the latest checkpoint is {latest}", fix, error
    if _id(named) == _id(view.latest):
        return None
    for entry_id, entry_path, stamp in view.entries:
        entry = f"{_shown(entry_id)} ({_at(doc, entry_path)})"
        if _id(entry_id) == _id(named):
            return f"names {entry}, but the latest checkpoint is {latest}", fix, error
        if _same_time(named, stamp):
            id_fix = fix[:-1] + " (its id, not its time)."
            if _id(entry_id) == _id(view.latest):
                same = f"is the time of the latest checkpoint, {_shown(named)}, not its id: use {entry}"
                return same, id_fix, Severity.WARNING
            return (
                f"is {_shown(named)}, the time of the older checkpoint {entry}; the latest is {latest}",
                id_fix,
                error,
            )
    return (
        f"names {_shown(named)}, which the `checkpoints` section does not record; its latest checkpoint is {latest}",
        fix[:-1] + f", or record {named} in `checkpoints.entries` and `checkpoints.latest_id` if it was taken.",
        error,
    )


def check_last_checkpoint(ctx: Context) -> list[Finding]:
    holder: JsonPath = RS if ctx.version == "2.0" else ("resumption",)
    owner = ctx.doc.get(holder)
    if not isinstance(owner, dict) or "last_checkpoint" not in owner:
        return []
    named = owner["last_checkpoint"]
    view = state.checkpoint_entries(ctx.doc.data)
    if view is None or not (named is None or isinstance(named, str)):
        return []
    path = (*holder, "last_checkpoint")
    if view.latest is None and not view.entries and isinstance(named, str) and not _CHECKPOINT_ID.match(named):
        return [
            ctx.finding(
                CHECKPOINTS_UNUSED,
                path,
                f"`{_short(path)}` is the label {_shown(named)}, and the `checkpoints` section is unused "
                f"({_at(ctx.doc, view.latest_path)} is null, no entries): "
                "the workflow has no checkpoint to resume from",
                "Set last_checkpoint to null if no checkpoint was taken (nothing else to fix), or record "
                "checkpoints in `checkpoints.entries` and `checkpoints.latest_id`.",
            )
        ]
    problem = _last_checkpoint_problem(ctx, named, view)
    if problem is None:
        return []
    finding = ctx.finding(LAST_CHECKPOINT, path, f"`{_short(path)}` {problem[0]}", problem[1])
    return [finding.replace(severity=problem[2])]


# --- S016: checkpoints.latest_id against the workflow's own folder ----------------------------------

_CHECKPOINT_ID = re.compile(r"\A([A-Za-z]+)[-_]?(\d+)\Z")
_FOLDER_DEPTH = 3  # sub-folders of the workflow's folder that are read
_FOLDER_NAMES = 5000  # names read at most: a workflow's folder, not a whole repository
_NOT_READ = frozenset({"node_modules", "venv", "__pycache__", "site-packages", "vendor"})


def _is_workflow_file(name: str) -> bool:
    return "orchestration" in name.casefold() and name.casefold().endswith((".yaml", ".yml"))


def _folder_names(folder: str, own: str) -> list[str]:
    """The file and folder names under ``folder`` (relative, ``/`` separators), depth-limited; only the
    workflow's own: none when another workflow file shares the folder, none of a sub-folder that has one."""
    import os

    found: list[str] = []
    for here, dirs, files in os.walk(folder):
        rel = os.path.relpath(here, folder)
        if any(_is_workflow_file(name) for name in files if os.path.join(here, name) != own):
            if rel == ".":
                return []  # a folder of several workflows: which checkpoint is whose cannot be told
            dirs[:] = []
            continue
        depth = 0 if rel == "." else rel.count(os.sep) + 1
        dirs[:] = (
            sorted(d for d in dirs if not d.startswith(".") and d not in _NOT_READ) if depth < _FOLDER_DEPTH else []
        )
        for name in sorted(files) + dirs:
            found.append(name if rel == "." else f"{rel.replace(os.sep, '/')}/{name}")
            if len(found) >= _FOLDER_NAMES:
                return found
    return found


def _numbers(ids: list[str], prefix: str) -> set[int]:
    """The numbers of the ids with ``prefix`` (``CP-003`` -> 3)."""
    matches = (_CHECKPOINT_ID.match(i.strip()) for i in ids)
    return {int(m.group(2)) for m in matches if m and m.group(1).casefold() == prefix.casefold()}


def _later_in_folder(ctx: Context, latest: str, ids: list[str]) -> list[str]:
    """Names in the workflow's folder that start with a checkpoint id later than ``latest`` and not recorded."""
    import os

    match = _CHECKPOINT_ID.match(latest.strip())
    if match is None or not ctx.doc.fs_path:
        return []
    prefix, number = match.group(1), int(match.group(2))
    recorded = _numbers(ids, prefix)
    named = re.compile(rf"\A{re.escape(prefix)}[-_]?(\d+)(?![0-9])", re.IGNORECASE)
    later: list[str] = []
    own = os.path.abspath(ctx.doc.fs_path)
    for rel in _folder_names(os.path.dirname(own), own):
        found = named.match(rel.rsplit("/", 1)[-1])
        if found and int(found.group(1)) > number and int(found.group(1)) not in recorded:
            later.append(rel)
    return later


def check_latest_behind_folder(ctx: Context) -> list[Finding]:
    entries = state.checkpoint_entries(ctx.doc.data)
    if entries is None or not isinstance(entries.latest, str):
        return []
    ids = [entry_id for entry_id, _path, _time in entries.entries if isinstance(entry_id, str)]
    later = _later_in_folder(ctx, entries.latest, ids)
    if not later:
        return []
    return [
        ctx.finding(
            LATEST_BEHIND_FOLDER,
            entries.latest_path,
            f"`{_short(entries.latest_path)}` is {_shown(entries.latest)}, but the workflow's folder records later "
            f"checkpoints that the section does not: {_some(later)}",
            "Record the later checkpoint in checkpoints.entries and set latest_id (and last_checkpoint) to it.",
        )
    ]


# --- S005-S006: the position the section states, against the workflow and its pipelines ---------

# Where a file names the pipeline the workflow is on.
_CURRENT_PIPELINE_KEYS: tuple[JsonPath, ...] = (
    ("current_pipeline",),
    ("workflow", "current_pipeline"),
    ("resumption", "recovery_state", "current_pipeline"),
)


class Compared(FrozenRecord):
    """The pipelines the section's position is compared with, and why those."""

    __slots__ = ("named_by", "pipelines")

    pipelines: list[state.Pipeline]
    named_by: JsonPath | None  # the `current_pipeline` key that chose the one pipeline, if any

    def __init__(self, pipelines: list[state.Pipeline], named_by: JsonPath | None) -> None:
        init_field(self, "pipelines", pipelines)
        init_field(self, "named_by", named_by)


def _pipeline_ids(pipeline: state.Pipeline) -> set[str]:
    names = (pipeline.name, pipeline.data.get("id"), pipeline.data.get("name"))
    return {_id(name) for name in names if isinstance(name, str) and name.strip()}


def _compared(doc: Document) -> Compared:
    """The pipeline `current_pipeline` names when it names one, else every pipeline."""
    pipelines = state.pipelines(doc.data)
    for key in _CURRENT_PIPELINE_KEYS:
        named = doc.get(key)
        chosen = [p for p in pipelines if isinstance(named, str) and _id(named) in _pipeline_ids(p)]
        if len(chosen) == 1:
            return Compared(chosen, key)
    return Compared(pipelines, None)


def _pipeline_label(pipeline: state.Pipeline) -> str:
    return f"pipeline `{pipeline.name}`" if pipeline.name else "the top-level `phases`"


def _which(ctx: Context, compared: Compared) -> str:
    """`` (compared with pipeline `b`, which `current_pipeline` on line 3 names)`` and the like."""
    if compared.named_by is not None:
        return (
            f"compared with {_pipeline_label(compared.pipelines[0])}, the one {_at(ctx.doc, compared.named_by)} names"
        )
    if len(compared.pipelines) == 1:
        return f"compared with {_pipeline_label(compared.pipelines[0])}, the only pipeline"
    return f"compared with all {len(compared.pipelines)} pipelines"


def _pipeline_complete(pipeline: state.Pipeline) -> bool:
    return pipeline.status in state.COMPLETE_WORDS


def _running_phase(pipelines: list[state.Pipeline]) -> state.Phase | None:
    return next((ph for p in pipelines for ph in p.phases if ph.status in RUNNING_WORDS), None)


def _phase_at(ctx: Context, phase: state.Phase) -> str:
    """``phase 2 "Core" (`pipelines.main.phases[1]` on line 7, IN_PROGRESS)``."""
    name = f" {_shown(phase.name)}" if phase.name else ""
    status = f", {phase.status}" if phase.status else ""
    return f"phase {phase.number}{name} ({_at(ctx.doc, phase.path)}{status})"


def _workflow_status_from_pipelines(ctx: Context, mine: str, compared: Compared) -> tuple[str, str] | None:
    """(evidence, target) when the file has no `workflow.status` and the pipelines contradict ``mine``."""
    pipelines = compared.pipelines
    if not pipelines:
        return None
    which = _which(ctx, compared)
    if mine in state.LIVE_STATUSES and all(_pipeline_complete(p) for p in pipelines):
        shown = ", ".join(f"{_at(ctx.doc, (*p.path, 'status'))} is {_shown(p.data['status'])}" for p in pipelines[:3])
        return f"{shown} ({which})", "COMPLETE"
    running = _running_phase(pipelines)
    if mine == "COMPLETE" and running is not None:
        return f"{_phase_at(ctx, running)} has not finished ({which})", "ACTIVE"
    return None


def check_workflow_status(ctx: Context) -> list[Finding]:
    mine = normalize_status(ctx.recovery.get("workflow_status"))
    if mine not in WORKFLOW_STATUSES:
        return []
    evidence: list[str] = []
    target = ""
    workflow_status = ctx.doc.get(("workflow", "status"))
    theirs = workflow_meaning(workflow_status)
    if theirs and theirs != mine:
        evidence.append(f"{_at(ctx.doc, ('workflow', 'status'))} is {_shown(workflow_status)}")
        target = theirs
    elif not theirs and workflow_status is None:
        from_pipelines = _workflow_status_from_pipelines(ctx, mine, _compared(ctx.doc))
        if from_pipelines is not None:
            evidence.append(from_pipelines[0])
            target = from_pipelines[1]
    activity = ctx.recovery.get("current_activity")
    if mine != "COMPLETE" and isinstance(activity, str) and _ACTIVITY_COMPLETE.match(activity.strip()):
        evidence.append(f"{_at(ctx.doc, (*RS, 'current_activity'))} says {_shown(activity.strip()[:60])}")
        target = target or "COMPLETE"
    if not evidence:
        return []
    return [
        ctx.finding(
            WORKFLOW_STATUS,
            (*RS, "workflow_status"),
            f"`recovery_state.workflow_status` is {_shown(mine)}, but " + " and ".join(evidence),
            f'Set workflow_status to "{target}", or correct the other value if that one is wrong.',
        )
    ]


# The phase an activity identifier such as "phase-3-agent-execution" is about (prose is not read).
_ACTIVITY_PHASE = re.compile(r"\s*phase[_-](\d+)(?:[_-][0-9a-z]+)*\s*\Z", re.IGNORECASE)
# Parenthesised notes and a leading "Phase 3:" are not part of a phase's name.
_NAME_NOTE = re.compile(r"\([^)]*\)|\[[^\]]*\]")
_NAME_LABEL = re.compile(r"\A\s*phase[\s_-]*\d+(?![0-9a-z])\s*[:.\-–—]?\s*", re.IGNORECASE)


def _name_key(name: str) -> str:
    """``"System Validation (COMPLETE)"`` and ``"Phase 6: System validation"`` -> ``system validation``."""
    text = _NAME_LABEL.sub("", _NAME_NOTE.sub(" ", name))
    return " ".join(re.findall(r"[0-9a-z]+", text.casefold()))


class StatePhase(FrozenRecord):
    """The phase the compared pipelines are at, and the values of `current_phase` consistent with it."""

    __slots__ = ("accepted", "evidence", "number", "phase")

    number: int  # the declared current phase
    accepted: frozenset[int]
    evidence: str  # where the state says so, for a message
    phase: state.Phase | None  # the phase itself, when the pipeline lists it

    def __init__(self, number: int, accepted: frozenset[int], evidence: str, phase: state.Phase | None) -> None:
        init_field(self, "number", number)
        init_field(self, "accepted", accepted)
        init_field(self, "evidence", evidence)
        init_field(self, "phase", phase)


def _accepted(pipeline: state.Pipeline) -> frozenset[int]:
    """Phase 0 while nothing has started means "none started" (phase ids start at 1): the section may
    name 0 or the phase about to begin."""
    number = pipeline.current_phase
    if number is None:
        return frozenset()
    if number == 0 and pipeline.phase(0) is None and pipeline.not_started():
        first = min((phase.number for phase in pipeline.phases if phase.number is not None), default=1)
        return frozenset({0, first})
    return frozenset({number})


def _declared_at(ctx: Context, pipeline: state.Pipeline) -> str:
    assert pipeline.current_phase_path is not None
    where = f"{_at(ctx.doc, pipeline.current_phase_path)} is {pipeline.current_phase}"
    accepted = _accepted(pipeline)
    if len(accepted) > 1:
        first = max(accepted)
        phase = pipeline.phase(first)
        about = f" {_shown(phase.name)}" if phase is not None and phase.name else ""
        return f"{where}: no phase has started yet, the next is phase {first}{about}"
    phase = pipeline.phase(pipeline.current_phase) if pipeline.current_phase is not None else None
    if phase is not None and phase.name:
        status = f", {phase.status}" if phase.status else ""
        return f"{where} (phase {phase.number} is {_shown(phase.name)}{status})"
    return where


def _state_phase(ctx: Context, compared: Compared) -> tuple[StatePhase | None, list[state.Pipeline]]:
    """The phase the state is at when the compared pipelines say it unambiguously; else (None, the
    pipelines that declare a phase)."""
    declared = [p for p in compared.pipelines if p.current_phase_path is not None]
    if not declared or any(p.current_phase is None for p in declared):
        return None, []
    accepted = {_accepted(p) for p in declared}
    if len(accepted) != 1:
        return None, declared
    first = declared[0]
    assert first.current_phase is not None
    evidence = f"{_declared_at(ctx, first)} ({_which(ctx, compared)}"
    evidence += f"; the other {len(declared) - 1} agree)" if len(declared) > 1 else ")"
    return StatePhase(first.current_phase, accepted.pop(), evidence, first.phase(first.current_phase)), declared


def _name_owners(name: str, pipelines: list[state.Pipeline]) -> set[int]:
    """The numbers of the phases whose name ``name`` is (each part of ``"A / B"`` counts)."""
    keys = {_name_key(part) for part in name.split(" / ")} - {""}
    return {
        ph.number
        for p in pipelines
        for ph in p.phases
        if ph.number is not None and ph.name and _name_key(ph.name) in keys
    }


def _name_problem(ctx: Context, accepted: frozenset[int], pipelines: list[state.Pipeline], what: str) -> str:
    """Why `current_phase_name` is the name of another phase than ``accepted`` ("" when it is not)."""
    name = ctx.recovery.get("current_phase_name")
    if not isinstance(name, str) or not name.strip():
        return ""
    owners = _name_owners(name, pipelines)
    if not owners or owners & accepted:
        return ""
    others = sorted(owners)
    phases = [ph for p in pipelines for ph in p.phases if ph.number in others and ph.name]
    listed = ", ".join(_phase_at(ctx, ph) for ph in phases[:2])
    return f"`recovery_state.current_phase_name` {_shown(name.strip())} is the name of {listed}, not of {what}"


def _activity_problem(ctx: Context, accepted: frozenset[int], what: str) -> str:
    activity = ctx.recovery.get("current_activity")
    if not isinstance(activity, str):
        return ""
    match = _ACTIVITY_PHASE.match(activity)
    if match is None or int(match.group(1)) in accepted:
        return ""
    return (
        f"`recovery_state.current_activity` {_shown(activity.strip()[:60])} is about phase {match.group(1)}, not {what}"
    )


def _lagging(pipeline: state.Pipeline) -> state.Phase | None:
    """The phase a pipeline is really at when its own `current_phase` lags its phases' statuses: its
    current phase is finished and a later one runs (None when it does not lag)."""
    number = pipeline.current_phase
    current = pipeline.phase(number) if number is not None else None
    if number is None or current is None or current.status not in PASSED_WORDS:
        return None
    running = [
        ph for ph in pipeline.phases if ph.number is not None and ph.number > number and ph.status in RUNNING_WORDS
    ]
    return running[0] if len(running) == 1 else None


def _pipeline_lag_finding(ctx: Context, mine: int, compared: Compared) -> Finding | None:
    """S006 on a pipeline's `current_phase` that lags its phases while the section names the phase that runs."""
    for pipeline in compared.pipelines:
        running = _lagging(pipeline)
        if running is None or running.number != mine or pipeline.current_phase_path is None:
            continue
        assert pipeline.current_phase is not None
        finished = pipeline.phase(pipeline.current_phase)
        assert finished is not None
        others = [p for p in compared.pipelines if p is not pipeline and p.current_phase_path is not None]
        if compared.named_by is None and any(mine not in _accepted(p) and _lagging(p) is None for p in others):
            return None  # the pipelines disagree and nothing names one: no single place to blame
        message = (
            f"{_at(ctx.doc, pipeline.current_phase_path)} is {pipeline.current_phase}, but {_phase_is(ctx, finished)} "
            f"and {_phase_is(ctx, running)}: the pipeline's own current phase lags its phases "
            f"(`recovery_state.current_phase` {mine} agrees with them; {_which(ctx, compared)})"
        )
        fix = f"Set {_short(pipeline.current_phase_path)} to {mine}, the phase that runs."
        return ctx.finding(CURRENT_PHASE, pipeline.current_phase_path, message, fix)
    return None


def _name_and_activity_findings(ctx: Context, mine: int, pipelines: list[state.Pipeline]) -> list[Finding]:
    """S006 on a `current_phase_name` or `current_activity` about another phase than ``mine``."""
    what, accepted = f"phase {mine}", frozenset({mine})
    problems = [
        (problem, path)
        for problem, path in (
            (_name_problem(ctx, accepted, pipelines, what), (*RS, "current_phase_name")),
            (_activity_problem(ctx, accepted, what), (*RS, "current_activity")),
        )
        if problem
    ]
    if not problems:
        return []
    fix = f"Set current_phase_name and current_activity to phase {mine}'s."
    return [ctx.finding(CURRENT_PHASE, problems[0][1], "; ".join(p for p, _path in problems), fix)]


def check_current_phase(ctx: Context) -> list[Finding]:
    mine = phase_number(ctx.recovery.get("current_phase"))
    if mine is None or isinstance(ctx.recovery.get("current_phase"), str):
        return []
    compared = _compared(ctx.doc)
    lag = _pipeline_lag_finding(ctx, mine, compared)
    if lag is not None:
        return [lag, *_name_and_activity_findings(ctx, mine, compared.pipelines)]
    at, declared = _state_phase(ctx, compared)
    problems: list[tuple[str, JsonPath]] = []
    if at is not None:
        if mine not in at.accepted:
            problems.append((f"`recovery_state.current_phase` is {mine}, but {at.evidence}", (*RS, "current_phase")))
        what = f"phase {at.number}" if len(at.accepted) == 1 else f"phase {max(at.accepted)}, the next to begin"
        if not problems:  # the number agrees: say where the phase comes from
            what += f" ({_which(ctx, compared)})"
        accepted = at.accepted
    elif declared:
        # The pipelines disagree and nothing says which one the section follows: a phase none of them is at.
        if any(mine in _accepted(p) for p in declared):
            return []
        listed = "; ".join(f"{_declared_at(ctx, p)}" for p in declared[:_LISTED])
        problems.append(
            (
                f"`recovery_state.current_phase` is {mine}, but no pipeline is at phase {mine}: {listed} "
                "(the pipelines disagree and no `current_pipeline` says which one the workflow is on)",
                (*RS, "current_phase"),
            )
        )
        what, accepted = f"phase {mine}", frozenset({mine})
    else:
        # No pipeline declares its phase: the section's own number is the one to agree with.
        what, accepted = f"phase {mine}, the `current_phase` of the section", frozenset({mine})
    pipelines = compared.pipelines
    for problem, path in (
        (_name_problem(ctx, accepted, pipelines, what), (*RS, "current_phase_name")),
        (_activity_problem(ctx, accepted, what), (*RS, "current_activity")),
    ):
        if problem:
            problems.append((problem, path))
    if not problems:
        return []
    target = f"{max(accepted)}" if at is not None else ""
    fix = (
        f"Set current_phase to {target}, and current_phase_name and current_activity to that phase's, or correct "
        "the pipeline's current_phase if that one is wrong."
        if at is not None
        else "Make current_phase, current_phase_name and current_activity name the phase the workflow is in."
    )
    return [ctx.finding(CURRENT_PHASE, problems[0][1], "; ".join(p for p, _path in problems), fix)]


# --- S007-S010: quality_trajectory ------------------------------------------------------------


def _string_list(value: Any) -> list[str]:
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


def _comparable(trajectory: dict[str, Any], gates: list[Gate]) -> bool:
    """True when the trajectory names no gate, or names at least one the way `quality_gates` does.

    A trajectory that tracks gates under other names (``gate-1-research`` for ``qg-1``) is not
    compared: nothing says which of its entries is which gate.
    """
    history = trajectory.get("score_history")
    current = trajectory.get("current_gate")
    names = {
        *_string_list(trajectory.get("gates_completed")),
        *_string_list(trajectory.get("gates_remaining")),
        *(history if isinstance(history, dict) else ()),
        *([current] if isinstance(current, str) else []),
    }
    mine = {_id(name) for name in names}
    return not mine or bool(mine & {_id(gate.id) for gate in gates})


def check_trajectory_gates(ctx: Context) -> list[Finding]:
    trajectory = ctx.trajectory
    gates = state.gates(ctx.doc.data)
    if not isinstance(trajectory.get("gates_completed"), list) or not _comparable(trajectory, gates):
        return []
    completed = {_id(g) for g in _string_list(trajectory["gates_completed"])}
    remaining = {_id(g) for g in _string_list(trajectory.get("gates_remaining"))}
    passed_missing = [g for g in gates if g.status in PASSED_WORDS and _id(g.id) not in completed]
    open_listed = [g for g in gates if g.status in _GATE_OPEN and _id(g.id) in completed]
    findings = []
    path = (*QT, "gates_completed")
    if passed_missing:
        listed = [f"{g.id} ({_at(ctx.doc, (*g.path, 'status'))} is {g.status})" for g in passed_missing]
        still = [g.id for g in passed_missing if _id(g.id) in remaining]
        tail = f"; `gates_remaining` still lists {_some(still)}" if still else ""
        findings.append(
            ctx.finding(
                TRAJECTORY_GATES,
                path,
                f"`quality_trajectory.gates_completed` does not list the passed gate(s) {_some(listed)}{tail}",
                "Add each passed gate to gates_completed and remove it from gates_remaining.",
            )
        )
    if open_listed:
        listed = [f"{g.id} ({_at(ctx.doc, (*g.path, 'status'))} is {g.status})" for g in open_listed]
        findings.append(
            ctx.finding(
                TRAJECTORY_GATES,
                path,
                f"`quality_trajectory.gates_completed` lists gate(s) that have not passed: {_some(listed)}",
                "Remove the gates that have not passed from gates_completed (list them in gates_remaining), or "
                "correct their status in quality_gates.",
            )
        )
    return findings


def _scores(values: list[float]) -> str:
    return "[" + ", ".join(f"{v:g}" for v in values) + "]"


def _history_key(history: dict[str, Any], gate_id: str) -> str | None:
    return next((key for key in history if _id(key) == _id(gate_id)), None)


def _score_problem(mine: Any, gate: Gate, where: str) -> str | None:
    assert gate.scores is not None
    mine_scores = [score_value(v) for v in mine] if isinstance(mine, list) else None
    if mine_scores is None or None in mine_scores:
        return None
    values = [v for v in mine_scores if v is not None]
    theirs = f"{where} records {gate.iterations} iteration(s) scored {_scores(gate.scores)}"
    if len(values) != len(gate.scores):
        return f"has {len(values)} score(s) {_scores(values)}, but {theirs}"
    for number, (a, b) in enumerate(zip(values, gate.scores, strict=True), start=1):
        if abs(a - b) > _SCORE_TOLERANCE:
            return f"gives iteration {number} the score {a:g}, but {theirs}"
    return None


def check_trajectory_scores(ctx: Context) -> list[Finding]:
    history = ctx.trajectory.get("score_history")
    gates = state.gates(ctx.doc.data)
    if not isinstance(history, dict) or not _comparable(ctx.trajectory, gates):
        return []
    findings = []
    for gate in gates:
        if gate.scores is None or gate.history_path is None or not gate.scores:
            continue
        where = _at(ctx.doc, gate.history_path)
        key = _history_key(history, gate.id)
        if key is None:
            findings.append(
                ctx.finding(
                    TRAJECTORY_SCORES,
                    (*QT, "score_history"),
                    f"`quality_trajectory.score_history` has no entry for {gate.id}, but {where} records "
                    f"{gate.iterations} iteration(s) scored {_scores(gate.scores)}",
                    f"Add `{gate.id}: {_scores(gate.scores)}` to score_history.",
                    key=True,
                )
            )
            continue
        problem = _score_problem(history[key], gate, where)
        if problem:
            findings.append(
                ctx.finding(
                    TRAJECTORY_SCORES,
                    (*QT, "score_history", key),
                    f"`quality_trajectory.score_history.{key}` {problem}",
                    f"Set score_history.{key} to {_scores(gate.scores)} (one score per iteration, in order).",
                )
            )
    return findings


def check_trajectory_iterations(ctx: Context) -> list[Finding]:
    used = ctx.trajectory.get("total_iterations_used")
    used = used if isinstance(used, int) and not isinstance(used, bool) else None
    gates = state.gates(ctx.doc.data)
    if used is None or not gates or not _comparable(ctx.trajectory, gates):
        return []
    counts = []
    for gate in gates:
        if gate.iterations is None and gate.status not in NOT_STARTED_WORDS:
            return []  # a started gate that does not say how many iterations it ran
        counts.append((gate.id, gate.iterations or 0))
    total = sum(n for _gate_id, n in counts)
    if total == used:
        return []
    detail = ", ".join(f"{gate_id}: {n}" for gate_id, n in counts)
    return [
        ctx.finding(
            TRAJECTORY_ITERATIONS,
            (*QT, "total_iterations_used"),
            f"`quality_trajectory.total_iterations_used` is {used}, but the gates in "
            f"{_at(ctx.doc, ('quality_gates',))} record {total} iteration(s) ({detail})",
            f"Set total_iterations_used to {total}.",
        )
    ]


def check_trajectory_open(ctx: Context) -> list[Finding]:
    if normalize_status(ctx.recovery.get("workflow_status")) != "COMPLETE":
        return []
    remaining = _string_list(ctx.trajectory.get("gates_remaining"))
    current = ctx.trajectory.get("current_gate")
    parts = []
    if remaining:
        parts.append(f"still lists {len(remaining)} remaining gate(s) ({_some(remaining)})")
    if isinstance(current, str) and current.strip():
        parts.append(f"has the current gate {_shown(current)}")
    if not parts:
        return []
    path = (*QT, "gates_remaining") if remaining else (*QT, "current_gate")
    return [
        ctx.finding(
            TRAJECTORY_OPEN,
            path,
            f"`quality_trajectory` {' and '.join(parts)}, but {_at(ctx.doc, (*RS, 'workflow_status'))} is COMPLETE",
            "Move the gates that passed to gates_completed, empty gates_remaining and set current_gate to null; "
            "if the workflow is not complete, correct workflow_status instead.",
        )
    ]


# --- S011-S012: agent_summaries ---------------------------------------------------------------


class Agent(FrozenRecord):
    __slots__ = ("id", "status", "status_path")

    id: str
    status: str
    status_path: JsonPath

    def __init__(self, id: str, status: str, status_path: JsonPath) -> None:
        init_field(self, "id", id)
        init_field(self, "status", status)
        init_field(self, "status_path", status_path)


def agents_view(data: Any) -> list[Agent]:
    """Every agent of every phase of every pipeline that has an id and a status."""
    agents = []
    for pipeline in state.pipelines(data):
        for phase in pipeline.phases:
            for path, agent, key in state.children(phase.data.get("agents"), (*phase.path, "agents")):
                agent_id = agent.get("id") if isinstance(agent.get("id"), str) else key
                if agent_id and isinstance(agent.get("status"), str):
                    agents.append(Agent(agent_id, normalize_status(agent["status"]), (*path, "status")))
    return agents


def _summaries(ctx: Context) -> dict[str, Any] | None:
    value = ctx.section.get("agent_summaries") if ctx.version == "2.0" else None
    return value if isinstance(value, dict) else None


def check_summary_unfinished(ctx: Context) -> list[Finding]:
    summaries = _summaries(ctx)
    if not summaries:
        return []
    by_id: dict[str, list[Agent]] = {}
    for agent in agents_view(ctx.doc.data):
        by_id.setdefault(_id(agent.id), []).append(agent)
    findings = []
    for key in summaries:
        known = by_id.get(_id(key), [])
        if known and all(agent.status in _AGENT_UNFINISHED for agent in known):
            agent = known[0]
            findings.append(
                ctx.finding(
                    SUMMARY_UNFINISHED,
                    ("resumption", "agent_summaries", key),
                    f"`agent_summaries.{key}` summarises agent {key}, but {_at(ctx.doc, agent.status_path)} "
                    f"is {agent.status}",
                    f"If {key} has finished, set its status in pipelines to COMPLETE; otherwise remove the summary "
                    "until it finishes.",
                )
            )
    return findings


def check_summaries_missing(ctx: Context) -> list[Finding]:
    summaries = _summaries(ctx)
    if summaries is None:
        return []
    have = {_id(key) for key in summaries}
    missing: dict[str, Agent] = {}
    for agent in agents_view(ctx.doc.data):
        if agent.status in PASSED_WORDS and _id(agent.id) not in have:
            missing.setdefault(_id(agent.id), agent)
    if not missing:
        return []
    listed = _some_of(list(missing.values()), lambda a: f"{a.id} (line {_line(ctx.doc, a.status_path)})")
    return [
        ctx.finding(
            SUMMARIES_MISSING,
            ("resumption", "agent_summaries"),
            f"`agent_summaries` has no entry for {len(missing)} agent(s) that `pipelines` marks complete: {listed}",
            'Add one line per completed agent, keyed by its id: `agent-id: "DONE. Key result."`.',
            key=True,
        )
    ]


# --- S014: the position a v1.0 section's prose states ------------------------------------------

V1_FIELDS = ("current_state", "next_step")
_PHASE_N = r"phase[\s_-]*(\d+)(?![0-9a-z])"
# "Workflow not started", "Workflow initialized": nothing has started yet.
_SAYS_NOT_STARTED = re.compile(
    r"\A\W*(?:not\s+(?:yet\s+)?started|initiali[sz]ed)\b"
    r"|\b(?:workflow|orchestration)\s+(?:is\s+|has\s+|was\s+)?(?:not\s+(?:yet\s+)?started|(?:been\s+)?initiali[sz]ed)\b",
    re.IGNORECASE,
)
# Words of progress: prose that also reports them is not a "nothing has started" statement.
_PROGRESS = re.compile(
    r"\b(?:complete|completed|done|passed|finished|in[\s_-]progress|running|started\s+phase)\b", re.I
)
# "ready to execute Phase 2", "about to start phase 2", "Phase 2 READY to execute", "Next: Phase 2".
_SAYS_ABOUT_TO = re.compile(
    rf"\b(?:ready|about)\s+to\s+(?:begin|start|execute|run|launch)\s+(?:the\s+)?{_PHASE_N}"
    rf"|\b{_PHASE_N}\s+(?:is\s+)?ready\s+to\s+(?:begin|start|execute|run|launch)\b"
    rf"|\bnext(?:\s+step)?\s*:\s*(?:(?:execute|start|begin|run|launch)\s+)?(?:the\s+)?{_PHASE_N}",
    re.IGNORECASE,
)
# A next_step that is the start of a phase: "Execute Phase 1 agents".
_NEXT_STEP_STARTS = re.compile(rf"\A\W*(?:execute|start|begin|run|launch)\s+(?:the\s+)?{_PHASE_N}", re.I)
_SAYS_WORKFLOW_COMPLETE = re.compile(
    r"\b(?:workflow|orchestration)\s+(?:is\s+)?(?:complete|completed|finished|done)\b", re.IGNORECASE
)
_SAYS_ALL_PHASES_COMPLETE = re.compile(
    r"\ball\s+(?:\d+\s+)?phases\s+(?:are\s+)?(?:complete|completed|done|finished)\b", re.IGNORECASE
)
# A completion that is a condition or an order, not a statement: "when the workflow is complete",
# "mark the workflow complete".
_NOT_A_STATEMENT = re.compile(
    r"\b(?:when|until|once|after|before|if|unless|mark|set|declare|flag|make|then|not)\W+(?:\w+\W+){0,2}\Z",
    re.IGNORECASE,
)
_QUOTED = 100  # characters of prose a message quotes
# "All phases complete, awaiting approval": the prose says the workflow waits for a person.
_SAYS_AWAITING_APPROVAL = re.compile(
    r"\b(?:await(?:ing|s)?|pending|waiting\s+(?:for|on)|needs?|requires?)\s+(?:\w+\s+){0,2}"
    r"(?:approval|review|sign[\s_-]?off)\b",
    re.IGNORECASE,
)
# A gate (or phase) status that waits for a person's approval: AWAITING_APPROVAL, PENDING_REVIEW...
_APPROVAL_STATUS = re.compile(r"APPROV|REVIEW|SIGN_?OFF")


class Claim(FrozenRecord):
    """What a v1.0 field states: ``not-started``, ``about-to`` (phase ``phase``) or ``complete``."""

    __slots__ = ("all_phases", "end", "field", "kind", "phase", "start", "text")

    field: str
    kind: str
    text: str
    start: int
    end: int
    phase: int | None
    all_phases: bool

    def __init__(
        self,
        field: str,
        kind: str,
        text: str,
        start: int,
        end: int,
        phase: int | None = None,
        all_phases: bool = False,
    ) -> None:
        init_field(self, "field", field)
        init_field(self, "kind", kind)
        init_field(self, "text", text)
        init_field(self, "start", start)
        init_field(self, "end", end)
        init_field(self, "phase", phase)
        init_field(self, "all_phases", all_phases)


def _claims(field: str, text: str) -> list[Claim]:
    """The clear statements of position in ``text``: the phase about to begin first (the most precise),
    then "not started", then "complete"."""
    found: list[Claim] = []
    matches = list(_SAYS_ABOUT_TO.finditer(text))
    if field == "next_step" and (first := _NEXT_STEP_STARTS.match(text)):
        matches.insert(0, first)
    for m in matches:
        number = int(next(group for group in m.groups() if group is not None))
        found.append(Claim(field, "about-to", text, m.start(), m.end(), number))
    match = _SAYS_NOT_STARTED.search(text)
    if match and not _PROGRESS.search(text):
        found.append(Claim(field, "not-started", text, match.start(), match.end()))
    for pattern, every_phase in ((_SAYS_WORKFLOW_COMPLETE, False), (_SAYS_ALL_PHASES_COMPLETE, True)):
        for m in pattern.finditer(text):
            if not _NOT_A_STATEMENT.search(text[max(0, m.start() - 30) : m.start()]):
                found.append(Claim(field, "complete", text, m.start(), m.end(), all_phases=every_phase))
                break
    return found


def _quote(claim: Claim) -> str:
    text = " ".join(claim.text.split())
    if len(text) <= _QUOTED:
        return _shown(text)
    flat = " ".join(claim.text[: claim.start].split())
    start = max(0, min(len(flat) - 20, len(text) - _QUOTED))
    excerpt = text[start : start + _QUOTED].strip()
    return _shown(("…" if start else "") + excerpt + ("…" if start + _QUOTED < len(text) else ""))


def _phase_is(ctx: Context, phase: state.Phase) -> str:
    """``phase 1 "Research" (`pipelines.main.phases[0]` on line 30) is COMPLETE``."""
    name = f" {_shown(phase.name)}" if phase.name else ""
    return f"phase {phase.number}{name} ({_at(ctx.doc, phase.path)}) is {phase.status}"


def _started(phase: state.Phase) -> bool:
    return phase.status in PASSED_WORDS or phase.status in RUNNING_WORDS


def _long_complete(pipeline: state.Pipeline, phase: state.Phase) -> bool:
    """Complete, and the pipeline has moved on: a later phase started, or its current phase is later."""
    if phase.status not in PASSED_WORDS or phase.number is None:
        return False
    if pipeline.current_phase is not None and pipeline.current_phase > phase.number:
        return True
    return any(_started(p) for p in pipeline.phases if p.number is not None and p.number > phase.number)


class _V1State(FrozenRecord):
    __slots__ = ("compared", "workflow", "workflow_at")

    workflow: str  # the v2.0 enum value `workflow.status` means, "" when unknown
    workflow_at: str
    compared: Compared

    def __init__(self, workflow: str, workflow_at: str, compared: Compared) -> None:
        init_field(self, "workflow", workflow)
        init_field(self, "workflow_at", workflow_at)
        init_field(self, "compared", compared)


def _awaits_approval(status: str) -> bool:
    return bool(_APPROVAL_STATUS.search(status)) and status not in PASSED_WORDS and status not in FAILED_WORDS


def _awaiting_approval(ctx: Context, claim: Claim, st: _V1State) -> list[state.Phase]:
    """The phases a live workflow holds open while a gate awaits approval, when the prose says it waits.

    "All phases complete, awaiting approval" under an ACTIVE workflow whose gate awaits approval is a
    normal wait state: the phase that the gate closes (each pipeline's current phase) may still read
    IN_PROGRESS or PENDING until the approval. Any other unfinished phase is still stale."""
    if st.workflow not in ("", *state.LIVE_STATUSES) or not _SAYS_AWAITING_APPROVAL.search(claim.text):
        return []
    pipelines = st.compared.pipelines
    waiting_gate = any(_awaits_approval(gate.status) for gate in state.gates(ctx.doc.data))
    held = [ph for p in pipelines for ph in p.phases if _awaits_approval(ph.status)]
    if not waiting_gate and not held:
        return []
    current = [p.phase(p.current_phase) for p in pipelines if p.current_phase is not None]
    return [ph for ph in current if ph is not None]


def _contradiction(ctx: Context, claim: Claim, st: _V1State) -> str:
    """What in the state contradicts ``claim`` ("" when nothing clearly does)."""
    pipelines = st.compared.pipelines
    phases = [(p, ph) for p in pipelines for ph in p.phases]
    which = f" ({_which(ctx, st.compared)})" if len(pipelines) > 1 or st.compared.named_by else ""
    if claim.kind == "not-started":
        started = [ph for _p, ph in phases if _started(ph)]
        if st.workflow == "COMPLETE":
            done = [ph for ph in started if ph.status in PASSED_WORDS]
            tail = f" and {_phase_is(ctx, done[-1])}{which}" if done else ""
            return f"{st.workflow_at} is COMPLETE{tail}"
        if started:
            return f"{_phase_is(ctx, started[-1])}{which}"
        return ""
    if claim.kind == "about-to":
        named = [(p, ph) for p, ph in phases if ph.number == claim.phase]
        if st.workflow == "COMPLETE":
            done = [ph for _p, ph in named if ph.status in PASSED_WORDS]
            tail = f" and {_phase_is(ctx, done[0])}{which}" if done else ""
            return f"{st.workflow_at} is COMPLETE{tail}"
        if named and all(_long_complete(p, ph) for p, ph in named):
            pipeline, phase = named[0]
            number = claim.phase or 0
            later = [ph for ph in pipeline.phases if ph.number is not None and ph.number > number and _started(ph)]
            moved = f", and {_phase_is(ctx, later[-1])}" if later else ""
            return f"{_phase_is(ctx, phase)}{moved}{which}"
        return ""
    # "complete": only against a workflow that is still live with work left, or declares itself live.
    if st.workflow == "COMPLETE":
        return ""
    unfinished = [ph for _p, ph in phases if ph.status in RUNNING_WORDS or ph.status in NOT_STARTED_WORDS]
    if claim.all_phases:
        unfinished = [ph for ph in unfinished if ph not in _awaiting_approval(ctx, claim, st)]
        if not unfinished or st.workflow not in ("", *state.LIVE_STATUSES):
            return ""
        head = f"{st.workflow_at} is {st.workflow} and " if st.workflow else ""
        return f"{head}{_phase_is(ctx, unfinished[0])}{which}"
    if st.workflow in state.LIVE_STATUSES:
        tail = f" and {_phase_is(ctx, unfinished[0])}{which}" if unfinished else ""
        return f"{st.workflow_at} is {st.workflow}{tail}"
    if not st.workflow and unfinished:
        return f"{_phase_is(ctx, unfinished[0])}{which}"
    return ""


def check_v1_prose(ctx: Context) -> list[Finding]:
    if ctx.version != "1.0":
        return []
    raw = ctx.doc.get(("workflow", "status"))
    st = _V1State(workflow_meaning(raw), f"{_at(ctx.doc, ('workflow', 'status'))}", _compared(ctx.doc))
    said: list[tuple[Claim, str]] = []
    for field in V1_FIELDS:
        text = ctx.section.get(field)
        if not isinstance(text, str):
            continue
        for claim in _claims(field, text):
            why = _contradiction(ctx, claim, st)
            if why:
                said.append((claim, why))
                break
    if not said:
        return []
    parts = [
        f"`resumption.{claim.field}` on line {_line(ctx.doc, ('resumption', claim.field))} says {_quote(claim)}"
        for claim, _why in said
    ]
    reasons = list(dict.fromkeys(why for _claim, why in said))
    message = " and ".join(parts) + ", but " + "; and ".join(reasons)
    return [
        ctx.finding(
            V1_PROSE,
            ("resumption", said[0][0].field),
            message,
            "Rewrite current_state and next_step to say where the workflow is now (or correct the state if it is "
            "the stale side); `ctxres migrate --write` turns the section into v2.0 with checked structured fields.",
        )
    ]


# --- S017: a COMPLETE v2.0 section that says work is open ---------------------------------------------

# "phase-1-ready", "Phase 2 ready": a phase about to begin (S014's statements, plus this v2.0 spelling).
_SAYS_PHASE_READY = re.compile(rf"\b{_PHASE_N}[\s_-]+(?:is\s+)?ready\b", re.IGNORECASE)
# A summary (or defect status) that says the agent or the fix is not done.
_SAYS_NOT_DONE = re.compile(
    r"\A\W*(?:under[\s_-]+revision|in[\s_-]+progress|revising|in[\s_-]+revision|running|pending|not[\s_-]+started)\b",
    re.IGNORECASE,
)
_DEFECT_WORKED_ON = RUNNING_WORDS | {"FIXING", "UNDER_REVISION", "IN_REVISION"}
_V2_PROSE = ("current_activity", "next_step")


def _section_complete(ctx: Context) -> str:
    """Where the section (else the workflow) says COMPLETE; "" when it does not."""
    mine = normalize_status(ctx.recovery.get("workflow_status"))
    if mine in WORKFLOW_STATUSES:
        return _at(ctx.doc, (*RS, "workflow_status")) if mine == "COMPLETE" else ""
    workflow = ctx.doc.get(("workflow", "status"))
    return _at(ctx.doc, ("workflow", "status")) if workflow_meaning(workflow) == "COMPLETE" else ""


def _open_defects(ctx: Context) -> list[tuple[str, JsonPath]]:
    summary = ctx.section.get("defect_summary")
    if not isinstance(summary, dict):
        return []
    found: list[tuple[str, JsonPath]] = []
    for key, value in summary.items():
        for index, item in enumerate(value if isinstance(value, list) else []):
            status = normalize_status(item.get("status")) if isinstance(item, dict) else ""
            if status in _DEFECT_WORKED_ON:
                label = item.get("id") if isinstance(item.get("id"), str) else f"#{index + 1}"
                found.append((f"defect {label} is {status}", ("resumption", "defect_summary", key, index)))
    return found


def _open_summaries(ctx: Context) -> list[tuple[str, JsonPath]]:
    summaries = _summaries(ctx) or {}
    found: list[tuple[str, JsonPath]] = []
    for agent, text in summaries.items():
        match = _SAYS_NOT_DONE.match(text) if isinstance(text, str) else None
        if match:
            found.append(
                (
                    f"the summary of {agent} says {_shown(match.group(0).strip())}",
                    ("resumption", "agent_summaries", agent),
                )
            )
    return found


def _open_prose(ctx: Context) -> list[tuple[str, JsonPath]]:
    found: list[tuple[str, JsonPath]] = []
    for field in _V2_PROSE:
        text = ctx.recovery.get(field)
        if not isinstance(text, str):
            continue
        claims = [c for c in _claims(field, text) if c.kind in ("not-started", "about-to")]
        ready = _SAYS_PHASE_READY.search(text)
        if claims or ready:
            quoted = _quote(claims[0]) if claims else _shown(" ".join(text.split())[:_QUOTED])
            found.append((f"`recovery_state.{field}` says {quoted}", (*RS, field)))
    return found


def check_open_work(ctx: Context) -> list[Finding]:
    if ctx.version != "2.0":
        return []
    complete_at = _section_complete(ctx)
    if not complete_at:
        return []
    found = [*_open_prose(ctx), *_open_defects(ctx), *_open_summaries(ctx)]
    if not found:
        return []
    return [
        ctx.finding(
            OPEN_WORK,
            found[0][1],
            f"{complete_at} is COMPLETE, but {_some([what for what, _path in found])}",
            "Update the stale side: the status (ACTIVE while work remains), or the defect, the agent summary "
            "and the prose (what was done; the next step after completion).",
        )
    ]


# --- the rule module's entry point ------------------------------------------------------------

RuleCheck = Callable[[Context], list[Finding]]
CHECKS: tuple[RuleCheck, ...] = (
    check_not_a_time,
    check_in_future,
    check_behind_file,
    check_last_checkpoint,
    check_latest_behind_folder,
    check_workflow_status,
    check_current_phase,
    check_trajectory_gates,
    check_trajectory_scores,
    check_trajectory_iterations,
    check_trajectory_open,
    check_summary_unfinished,
    check_summaries_missing,
    check_v1_prose,
    check_open_work,
)


def context(doc: Document, config: Config) -> Context | None:
    """The rules' view of an orchestration file with a resumption section; None for anything else."""
    if doc.kind != "orchestration" or not isinstance(doc.data, dict):
        return None
    section = doc.data.get("resumption")
    if not isinstance(section, dict):
        return None
    return Context(doc, config, section, detect_version(section))


def check_document(doc: Document, config: Config) -> list[Finding]:
    ctx = context(doc, config)
    if ctx is None:
        return []
    return [finding for check in CHECKS for finding in check(ctx)]
