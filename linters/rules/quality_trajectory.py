"""S007-S010: `quality_trajectory` against the gates of `quality_gates` and the workflow's status."""

from __future__ import annotations

from ctxres.findings import Finding
from ctxres.linters.checking.registry import register, section_check
from ctxres.linters.checking.resumption_context import (
    QT,
    RS,
    Context,
    id_key,
    place,
    shown,
    some,
)
from ctxres.linters.checking.severity_policy import Case
from ctxres.state import orchestration as state
from ctxres.state.orchestration import (
    FAILED_WORDS,
    NOT_STARTED_WORDS,
    PASSED_WORDS,
    RUNNING_WORDS,
    Gate,
    normalize_status,
    score_value,
)

# `ctxres check` loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# A gate listed in `gates_completed` must have passed: waiting, running or failed ones have not.
_GATE_OPEN = NOT_STARTED_WORDS | RUNNING_WORDS | FAILED_WORDS
# Scores in the trajectory may be rounded to 2 decimals (0.9505 -> 0.95).
_SCORE_TOLERANCE = 0.0051


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
    mine = {id_key(name) for name in names}
    return not mine or bool(mine & {id_key(gate.id) for gate in gates})


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


@section_check(TRAJECTORY_GATES)
def check_trajectory_gates(ctx: Context) -> list[Finding]:
    trajectory = ctx.trajectory
    gates = state.gates(ctx.doc.data)
    if not isinstance(trajectory.get("gates_completed"), list) or not _comparable(trajectory, gates):
        return []
    completed = {id_key(g) for g in _string_list(trajectory["gates_completed"])}
    remaining = {id_key(g) for g in _string_list(trajectory.get("gates_remaining"))}
    passed_missing = [g for g in gates if g.status in PASSED_WORDS and id_key(g.id) not in completed]
    open_listed = [g for g in gates if g.status in _GATE_OPEN and id_key(g.id) in completed]
    findings = []
    path = (*QT, "gates_completed")
    if passed_missing:
        listed = [f"{g.id} ({place(ctx.doc, (*g.path, 'status'))} is {g.status})" for g in passed_missing]
        still = [g.id for g in passed_missing if id_key(g.id) in remaining]
        tail = f"; `gates_remaining` still lists {some(still)}" if still else ""
        findings.append(
            ctx.finding(
                TRAJECTORY_GATES,
                path,
                f"`quality_trajectory.gates_completed` does not list the passed gate(s) {some(listed)}{tail}",
                "Add each passed gate to gates_completed and remove it from gates_remaining.",
            )
        )
    if open_listed:
        listed = [f"{g.id} ({place(ctx.doc, (*g.path, 'status'))} is {g.status})" for g in open_listed]
        findings.append(
            ctx.finding(
                TRAJECTORY_GATES,
                path,
                f"`quality_trajectory.gates_completed` lists gate(s) that have not passed: {some(listed)}",
                "Remove the gates that have not passed from gates_completed (list them in gates_remaining), or "
                "correct their status in quality_gates.",
            )
        )
    return findings


def _scores(values: list[float]) -> str:
    return "[" + ", ".join(f"{v:g}" for v in values) + "]"


def _history_key(history: dict[str, Any], gate_id: str) -> str | None:
    return next((key for key in history if id_key(key) == id_key(gate_id)), None)


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


@section_check(TRAJECTORY_SCORES)
def check_trajectory_scores(ctx: Context) -> list[Finding]:
    history = ctx.trajectory.get("score_history")
    gates = state.gates(ctx.doc.data)
    if not isinstance(history, dict) or not _comparable(ctx.trajectory, gates):
        return []
    findings = []
    for gate in gates:
        if gate.scores is None or gate.history_path is None or not gate.scores:
            continue
        where = place(ctx.doc, gate.history_path)
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


@section_check(TRAJECTORY_ITERATIONS)
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
            f"{place(ctx.doc, ('quality_gates',))} record {total} iteration(s) ({detail})",
            f"Set total_iterations_used to {total}.",
        )
    ]


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


@section_check(TRAJECTORY_OPEN)
def check_trajectory_open(ctx: Context) -> list[Finding]:
    if normalize_status(ctx.recovery.get("workflow_status")) != "COMPLETE":
        return []
    remaining = _string_list(ctx.trajectory.get("gates_remaining"))
    current = ctx.trajectory.get("current_gate")
    parts = []
    if remaining:
        parts.append(f"still lists {len(remaining)} remaining gate(s) ({some(remaining)})")
    if isinstance(current, str) and current.strip():
        parts.append(f"has the current gate {shown(current)}")
    if not parts:
        return []
    path = (*QT, "gates_remaining") if remaining else (*QT, "current_gate")
    return [
        ctx.finding(
            TRAJECTORY_OPEN,
            path,
            f"`quality_trajectory` {' and '.join(parts)}, but {place(ctx.doc, (*RS, 'workflow_status'))} is COMPLETE",
            "Move the gates that passed to gates_completed, empty gates_remaining and set current_gate to null; "
            "if the workflow is not complete, correct workflow_status instead.",
        )
    ]
