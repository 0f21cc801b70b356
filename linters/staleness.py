"""S rules: a stale ``updated_at``, and a resumption section that contradicts the rest of its file.

Every rule compares two places of one ORCHESTRATION.yaml and only where the file's structure
says unambiguously what the other place means; when a section has a shape we do not recognise
the rule says nothing. The time rules use the pure core in :mod:`ctxres.staleness` (which the
hooks reuse); the clock is read through :func:`ctxres.staleness.utc_now` only.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from functools import cache
from typing import Any

from ctxres import staleness as core
from ctxres.config import Config
from ctxres.document import Document, JsonPath, format_json_path
from ctxres.findings import Finding, Severity
from ctxres.linters.conformance import schema_text
from ctxres.linters.registry import Rule, register
from ctxres.resumption import detect_version
from ctxres.timestamps import Timestamp, format_duration, format_utc, invalid_reason, parse_timestamp

NOT_A_TIME = register(
    "S001",
    "updated-at-not-a-time",
    "`recovery_state.updated_at` is written like a timestamp but is not a real time.",
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
    """,
)
LAST_CHECKPOINT = register(
    "S004",
    "last-checkpoint-mismatch",
    "`last_checkpoint` is not the latest checkpoint of the `checkpoints` section.",
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
    """,
)
WORKFLOW_STATUS = register(
    "S005",
    "workflow-status-mismatch",
    "`recovery_state.workflow_status` contradicts the workflow's status or the current activity.",
    explanation="""
    ## Why
    Hooks decide from `workflow_status` whether to inject a resumption prompt: an `ACTIVE`
    status on a finished workflow makes every new session try to resume it. The status must
    agree with `workflow.status` (`COMPLETED` and `COMPLETE` mean the same) and with
    `current_activity` (an activity that says the workflow is complete needs `COMPLETE`).

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
    "`recovery_state.current_phase` is not the phase the pipelines are in.",
    explanation="""
    ## Why
    `current_phase` tells a resuming session which phase to continue. The pipelines record their
    own `current_phase`; when every pipeline agrees on one phase and the resumption section
    names another, the section was not updated at the last phase transition. (Files whose
    pipelines disagree with each other, or declare no current phase, are not compared.)

    ## Example
    ```yaml
    pipelines:
      implementation:
        current_phase: 6
        phases:
          - {id: 6, name: "System Validation", status: "COMPLETE"}
    resumption:
      recovery_state:
        current_phase: 5
    ```

    ## Fix
    Set `current_phase` (and `current_phase_name`) to the pipelines' phase, or correct the
    pipeline's `current_phase` if that one is wrong.
    """,
)
TRAJECTORY_GATES = register(
    "S007",
    "trajectory-gates-mismatch",
    "`quality_trajectory.gates_completed` disagrees with the status of the gates in `quality_gates`.",
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

RS: JsonPath = ("resumption", "recovery_state")
QT: JsonPath = ("resumption", "quality_trajectory")

_COMPLETE_WORDS = frozenset({"COMPLETE", "COMPLETED", "DONE", "FINISHED", "CLOSED"})
_WORKFLOW_STATUS = {
    **{word: "COMPLETE" for word in _COMPLETE_WORDS},
    **{word: "ACTIVE" for word in ("ACTIVE", "IN_PROGRESS", "RUNNING", "EXECUTING")},
    **{word: "PAUSED" for word in ("PAUSED", "ON_HOLD", "SUSPENDED")},
    "FAILED": "FAILED",
}
_RECOVERY_STATUSES = frozenset({"ACTIVE", "PAUSED", "COMPLETE", "FAILED"})
_PASSED = frozenset({"PASS", "PASSED", *_COMPLETE_WORDS})
_GATE_OPEN = frozenset({"PENDING", "NOT_STARTED", "IN_PROGRESS", "REVISE", "REJECTED", "FAIL", "FAILED", "BLOCKED"})
_GATE_NOT_STARTED = frozenset({"PENDING", "NOT_STARTED", "BLOCKED", "PLANNED"})
_AGENT_DONE = frozenset({"PASS", "PASSED", "SUCCESS", "SUCCEEDED", *_COMPLETE_WORDS})
_AGENT_UNFINISHED = frozenset(
    {"PENDING", "NOT_STARTED", "BLOCKED", "READY", "QUEUED", "WAITING", "PLANNED"}
    | {"IN_PROGRESS", "RUNNING", "ACTIVE", "EXECUTING", "STARTED"}
)
_ACTIVITY_COMPLETE = re.compile(r"workflow[\s_-]*complete", re.IGNORECASE)
# Scores in the trajectory may be rounded to 2 decimals (0.9505 -> 0.95).
_SCORE_TOLERANCE = 0.0051
_LISTED = 3  # how many items a message names before "and N more"


# --- small helpers -------------------------------------------------------------------------


def _status(value: Any) -> str:
    """``"In progress"`` -> ``"IN_PROGRESS"``; "" for anything that is not a string."""
    return re.sub(r"[\s-]+", "_", value.strip()).upper() if isinstance(value, str) else ""


def _id(value: Any) -> str:
    """Ids are matched ignoring case and punctuation: ``QG-1``, ``qg_1`` and ``qg1`` are one gate."""
    return re.sub(r"[^0-9a-z]", "", value.casefold()) if isinstance(value, str) else ""


def _dotted(path: JsonPath) -> str:
    """``("quality_gates", "qg-2", "iterations", 0)`` -> ``quality_gates.qg-2.iterations[0]``."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _short(path: JsonPath) -> str:
    """Paths inside the resumption section are shown from their sub-section on."""
    return _dotted(path[1:] if path[:1] == ("resumption",) and len(path) > 2 else path)


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
    head = ", ".join(items[:_LISTED])
    return head if len(items) <= _LISTED else f"{head} and {len(items) - _LISTED} more"


def _number(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _score(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


@dataclass(frozen=True)
class Context:
    """What every rule needs: the document, its resumption section and the settings."""

    doc: Document
    config: Config
    section: dict[str, Any]
    version: str

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


def check_behind_file(ctx: Context) -> list[Finding]:
    stamp = _updated_at(ctx)
    if stamp is None:
        return []
    horizon = core.utc_now() + core.DEFAULT_CLOCK_SKEW
    # Compaction events are the acknowledgement rules' (A011 says what a merged checkpoint left behind).
    newest = core.newest_timestamp(
        ctx.doc.data,
        exclude=(*RS, "updated_at"),
        not_after=horizon,
        also_exclude=(("resumption", "compaction_events"),),
    )
    window = timedelta(minutes=ctx.config.staleness_minutes)
    if newest is None or core.behind(stamp.instant, core.earliest_instant(newest.stamp), window) is None:
        return []
    return [
        ctx.finding(
            BEHIND_FILE,
            (*RS, "updated_at"),
            f"`recovery_state.updated_at` is {format_utc(stamp.instant)}{stamp.note()}, but "
            f"{_at(ctx.doc, newest.path)} records {_newer_than(newest, stamp)}: the resumption section "
            f"was not updated after that change (tolerance {ctx.config.staleness_minutes} minutes)",
            f"Bring the resumption section up to date with what line {_line(ctx.doc, newest.path)} records "
            "and set updated_at to the time of that update.",
        )
    ]


# --- S004: last_checkpoint vs the checkpoints section ----------------------------------------


@dataclass(frozen=True)
class Checkpoints:
    """The ``checkpoints`` section when its shape is clear: the latest id and every entry."""

    latest: str | None
    latest_path: JsonPath
    entries: list[tuple[str, JsonPath, Any]]  # (id, path of the id, timestamp value)


def _checkpoint_entries(items: Any, base: JsonPath) -> list[tuple[str, JsonPath, Any]] | None:
    if not isinstance(items, list):
        return None
    out = []
    for index, item in enumerate(items):
        if not isinstance(item, dict) or not isinstance(item.get("id"), str):
            return None
        stamp = item.get("timestamp", item.get("created_at"))
        out.append((item["id"], (*base, index, "id"), stamp))
    return out


def checkpoints_view(data: Any) -> Checkpoints | None:
    """``checkpoints: {latest_id, entries: [{id}]}`` or a plain list of ``{id}`` entries; None otherwise."""
    section = data.get("checkpoints") if isinstance(data, dict) else None
    if isinstance(section, list):
        entries = _checkpoint_entries(section, ("checkpoints",))
        if not entries:
            return None
        return Checkpoints(entries[-1][0], entries[-1][1], entries)
    if not isinstance(section, dict):
        return None
    entries = _checkpoint_entries(section.get("entries", []), ("checkpoints", "entries"))
    if entries is None:
        return None
    if "latest_id" in section:
        latest = section["latest_id"]
        if latest is None and entries:
            return None  # the section contradicts itself: nothing to compare with
        if latest is not None and not isinstance(latest, str):
            return None
        return Checkpoints(latest, ("checkpoints", "latest_id"), entries)
    if entries:
        return Checkpoints(entries[-1][0], entries[-1][1], entries)
    return None


def _same_time(value: str, other: Any) -> bool:
    mine, theirs = parse_timestamp(value), parse_timestamp(other)
    return bool(mine and theirs and not mine.date_only and mine.instant == theirs.instant)


def _last_checkpoint_problem(ctx: Context, named: str | None, view: Checkpoints) -> tuple[str, str] | None:
    """(what is wrong, what to change), or None when ``named`` is the latest checkpoint."""
    doc = ctx.doc
    if view.latest is None:
        if named is None:
            return None
        return (
            f"names {_shown(named)}, but the `checkpoints` section records no checkpoint "
            f"({_at(doc, view.latest_path)} is null)",
            "Set last_checkpoint to null, or record the checkpoint in `checkpoints.entries` and "
            "`checkpoints.latest_id`.",
        )
    latest = f"{_shown(view.latest)} ({_at(doc, view.latest_path)})"
    fix = f'Set last_checkpoint to "{view.latest}".'
    if named is None:
        return f"is null, but the latest checkpoint is {latest}", fix
    if _id(named) == _id(view.latest):
        return None
    for entry_id, entry_path, stamp in view.entries:
        entry = f"{_shown(entry_id)} ({_at(doc, entry_path)})"
        if _id(entry_id) == _id(named):
            return f"names {entry}, but the latest checkpoint is {latest}", fix
        if _same_time(named, stamp):
            id_fix = fix[:-1] + " (its id, not its time)."
            if _id(entry_id) == _id(view.latest):
                return f"is {_shown(named)}, the time of the latest checkpoint, not its id: that is {entry}", id_fix
            return f"is {_shown(named)}, the time of the older checkpoint {entry}; the latest is {latest}", id_fix
    return (
        f"names {_shown(named)}, which the `checkpoints` section does not record; its latest checkpoint is {latest}",
        fix[:-1] + f", or record {named} in `checkpoints.entries` and `checkpoints.latest_id` if it was taken.",
    )


def check_last_checkpoint(ctx: Context) -> list[Finding]:
    holder: JsonPath = RS if ctx.version == "2.0" else ("resumption",)
    owner = ctx.doc.get(holder)
    if not isinstance(owner, dict) or "last_checkpoint" not in owner:
        return []
    named = owner["last_checkpoint"]
    view = checkpoints_view(ctx.doc.data)
    if view is None or not (named is None or isinstance(named, str)):
        return []
    problem = _last_checkpoint_problem(ctx, named, view)
    if problem is None:
        return []
    path = (*holder, "last_checkpoint")
    return [ctx.finding(LAST_CHECKPOINT, path, f"`{_short(path)}` {problem[0]}", problem[1])]


# --- S005: workflow_status ------------------------------------------------------------------


def check_workflow_status(ctx: Context) -> list[Finding]:
    mine = _status(ctx.recovery.get("workflow_status"))
    if mine not in _RECOVERY_STATUSES:
        return []
    evidence: list[str] = []
    target = ""
    workflow_status = ctx.doc.get(("workflow", "status"))
    theirs = _WORKFLOW_STATUS.get(_status(workflow_status), "")
    if theirs and theirs != mine:
        evidence.append(f"{_at(ctx.doc, ('workflow', 'status'))} is {_shown(workflow_status)}")
        target = theirs
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


# --- S006: current_phase ------------------------------------------------------------------


def _pipelines(data: Any) -> list[tuple[JsonPath, dict[str, Any]]]:
    """(path, pipeline) for ``pipelines: {name: {...}}`` or a single ``pipeline: {...}``."""
    if not isinstance(data, dict):
        return []
    many = data.get("pipelines")
    if isinstance(many, dict):
        return [(("pipelines", name), p) for name, p in many.items() if isinstance(p, dict)]
    single = data.get("pipeline")
    return [(("pipeline",), single)] if isinstance(single, dict) else []


def _children(container: Any, base: JsonPath) -> Iterator[tuple[JsonPath, dict[str, Any], str | None]]:
    """(path, item, key) for the dict items of a list, or of a mapping keyed by id."""
    if isinstance(container, list):
        for index, item in enumerate(container):
            if isinstance(item, dict):
                yield (*base, index), item, None
    elif isinstance(container, dict):
        for key, item in container.items():
            if isinstance(item, dict):
                yield (*base, key), item, key


def _phases(pipeline_path: JsonPath, pipeline: dict[str, Any]) -> Iterator[tuple[int | None, JsonPath, dict[str, Any]]]:
    for path, phase, _key in _children(pipeline.get("phases"), (*pipeline_path, "phases")):
        number = _number(phase.get("id"))
        yield (number if number is not None else _number(phase.get("sequence"))), path, phase


def check_current_phase(ctx: Context) -> list[Finding]:
    mine = _number(ctx.recovery.get("current_phase"))
    if mine is None:
        return []
    declared = [
        (_number(p.get("current_phase")), path, p) for path, p in _pipelines(ctx.doc.data) if "current_phase" in p
    ]
    numbers = {number for number, _path, _p in declared}
    if len(numbers) != 1 or None in numbers:
        return []
    theirs, path, pipeline = declared[0]
    if theirs == mine:
        return []
    phase = next((ph for number, _pp, ph in _phases(path, pipeline) if number == theirs), None)
    about = ""
    if phase is not None and isinstance(phase.get("name"), str):
        about = f" (phase {theirs} is {_shown(phase['name'])}"
        about += f", {phase['status']})" if isinstance(phase.get("status"), str) else ")"
    others = f"; the other {len(declared) - 1} pipeline(s) agree" if len(declared) > 1 else ""
    return [
        ctx.finding(
            CURRENT_PHASE,
            (*RS, "current_phase"),
            f"`recovery_state.current_phase` is {mine}, but {_at(ctx.doc, (*path, 'current_phase'))} is "
            f"{theirs}{about}{others}",
            f"Set current_phase to {theirs} and current_phase_name to that phase's name, or correct the "
            "pipeline's current_phase if that one is wrong.",
        )
    ]


# --- S007-S010: quality_trajectory ------------------------------------------------------------


@dataclass(frozen=True)
class Gate:
    """One gate of the ``quality_gates`` section."""

    id: str
    path: JsonPath
    status: str
    history_path: JsonPath | None
    iterations: int | None  # None: the section does not say
    scores: list[float] | None  # None: not every iteration has a numeric score


def _gate_history(gate: dict[str, Any], path: JsonPath) -> tuple[JsonPath | None, int | None, list[float] | None]:
    for key in ("iteration_history", "iterations"):
        history = gate.get(key)
        if isinstance(history, list):
            items = [item for item in history if isinstance(item, dict)]
            scores = [_score(item.get("score")) for item in items]
            numeric = [s for s in scores if s is not None]
            complete = len(items) == len(history) and len(numeric) == len(history)
            return (*path, key), len(history), numeric if complete else None
    count = _number(gate.get("iterations", gate.get("iterations_completed")))
    return None, count, None


def gates_view(data: Any) -> list[Gate]:
    """The gates of ``quality_gates``, in file order.

    Three shapes occur: a mapping by gate id, a list of ``{id, ...}``, and a mapping whose
    ``gates`` key holds that list (beside settings such as ``threshold``).
    """
    section = data.get("quality_gates") if isinstance(data, dict) else None
    base: JsonPath = ("quality_gates",)
    if isinstance(section, dict) and isinstance(section.get("gates"), list):
        section, base = section["gates"], ("quality_gates", "gates")
    gates = []
    for path, gate, key in _children(section, base):
        gate_id = gate.get("id") if isinstance(gate.get("id"), str) else key
        if not gate_id:
            continue
        history_path, iterations, scores = _gate_history(gate, path)
        gates.append(Gate(gate_id, path, _status(gate.get("status")), history_path, iterations, scores))
    return gates


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
    gates = gates_view(ctx.doc.data)
    if not isinstance(trajectory.get("gates_completed"), list) or not _comparable(trajectory, gates):
        return []
    completed = {_id(g) for g in _string_list(trajectory["gates_completed"])}
    remaining = {_id(g) for g in _string_list(trajectory.get("gates_remaining"))}
    passed_missing = [g for g in gates if g.status in _PASSED and _id(g.id) not in completed]
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
    mine_scores = [_score(v) for v in mine] if isinstance(mine, list) else None
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
    gates = gates_view(ctx.doc.data)
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
    used = _number(ctx.trajectory.get("total_iterations_used"))
    gates = gates_view(ctx.doc.data)
    if used is None or not gates or not _comparable(ctx.trajectory, gates):
        return []
    counts = []
    for gate in gates:
        if gate.iterations is None and gate.status not in _GATE_NOT_STARTED:
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
    if _status(ctx.recovery.get("workflow_status")) != "COMPLETE":
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


@dataclass(frozen=True)
class Agent:
    id: str
    status: str
    status_path: JsonPath


def agents_view(data: Any) -> list[Agent]:
    """Every agent of every phase of every pipeline that has an id and a status."""
    agents = []
    for pipeline_path, pipeline in _pipelines(data):
        for _phase_number, phase_path, phase in _phases(pipeline_path, pipeline):
            for path, agent, key in _children(phase.get("agents"), (*phase_path, "agents")):
                agent_id = agent.get("id") if isinstance(agent.get("id"), str) else key
                if agent_id and isinstance(agent.get("status"), str):
                    agents.append(Agent(agent_id, _status(agent["status"]), (*path, "status")))
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
        if agent.status in _AGENT_DONE and _id(agent.id) not in have:
            missing.setdefault(_id(agent.id), agent)
    if not missing:
        return []
    listed = [f"{a.id} (line {_line(ctx.doc, a.status_path)})" for a in missing.values()]
    return [
        ctx.finding(
            SUMMARIES_MISSING,
            ("resumption", "agent_summaries"),
            f"`agent_summaries` has no entry for {len(missing)} agent(s) that `pipelines` marks complete: "
            f"{_some(listed)}",
            'Add one line per completed agent, keyed by its id: `agent-id: "DONE. Key result."`.',
            key=True,
        )
    ]


# --- the rule module's entry point ------------------------------------------------------------

RuleCheck = Callable[[Context], list[Finding]]
CHECKS: tuple[RuleCheck, ...] = (
    check_not_a_time,
    check_in_future,
    check_behind_file,
    check_last_checkpoint,
    check_workflow_status,
    check_current_phase,
    check_trajectory_gates,
    check_trajectory_scores,
    check_trajectory_iterations,
    check_trajectory_open,
    check_summary_unfinished,
    check_summaries_missing,
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
