"""S005-S006: the position the section states (`workflow_status`, `current_phase`, its name and activity),
against the workflow's status and its pipelines; and which pipelines a section is compared with.
"""

from __future__ import annotations

import re

from ctxres.findings import Finding, Severity
from ctxres.formats.document import Document, JsonPath
from ctxres.linters.checking.finished_work import is_finished
from ctxres.linters.checking.registry import register, section_check
from ctxres.linters.checking.resumption_context import (
    LISTED,
    RS,
    Context,
    id_key,
    place,
    short_path,
    shown,
)
from ctxres.linters.checking.severity_policy import Case
from ctxres.records import FrozenRecord, init_field
from ctxres.state import orchestration as state
from ctxres.state.orchestration import (
    PASSED_WORDS,
    RUNNING_WORDS,
    WORKFLOW_STATUSES,
    normalize_status,
    phase_number,
    workflow_meaning,
)

# `ctxres check` loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").

_ACTIVITY_COMPLETE = re.compile(r"workflow[\s_-]*complete", re.IGNORECASE)


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
    return {id_key(name) for name in names if isinstance(name, str) and name.strip()}


def compared_pipelines(doc: Document) -> Compared:
    """The pipeline `current_pipeline` names when it names one, else every pipeline."""
    pipelines = state.pipelines(doc.data)
    for key in _CURRENT_PIPELINE_KEYS:
        named = doc.get(key)
        chosen = [p for p in pipelines if isinstance(named, str) and id_key(named) in _pipeline_ids(p)]
        if len(chosen) == 1:
            return Compared(chosen, key)
    return Compared(pipelines, None)


def _pipeline_label(pipeline: state.Pipeline) -> str:
    return f"pipeline `{pipeline.name}`" if pipeline.name else "the top-level `phases`"


def which_compared(ctx: Context, compared: Compared) -> str:
    """`` (compared with pipeline `b`, which `current_pipeline` on line 3 names)`` and the like."""
    if compared.named_by is not None:
        return (
            f"compared with {_pipeline_label(compared.pipelines[0])}, the one {place(ctx.doc, compared.named_by)} names"
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
    name = f" {shown(phase.name)}" if phase.name else ""
    status = f", {phase.status}" if phase.status else ""
    return f"phase {phase.number}{name} ({place(ctx.doc, phase.path)}{status})"


def _workflow_status_from_pipelines(ctx: Context, mine: str, compared: Compared) -> tuple[str, str] | None:
    """(evidence, target) when the file has no `workflow.status` and the pipelines contradict ``mine``."""
    pipelines = compared.pipelines
    if not pipelines:
        return None
    which = which_compared(ctx, compared)
    if mine in state.LIVE_STATUSES and all(_pipeline_complete(p) for p in pipelines):
        statuses = ", ".join(
            f"{place(ctx.doc, (*p.path, 'status'))} is {shown(p.data['status'])}" for p in pipelines[:3]
        )
        return f"{statuses} ({which})", "COMPLETE"
    running = _running_phase(pipelines)
    if mine == "COMPLETE" and running is not None:
        return f"{_phase_at(ctx, running)} has not finished ({which})", "ACTIVE"
    return None


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


@section_check(WORKFLOW_STATUS)
def check_workflow_status(ctx: Context) -> list[Finding]:
    mine = normalize_status(ctx.recovery.get("workflow_status"))
    if mine not in WORKFLOW_STATUSES:
        return []
    evidence: list[str] = []
    target = ""
    workflow_status = ctx.doc.get(("workflow", "status"))
    theirs = workflow_meaning(workflow_status)
    if theirs and theirs != mine:
        evidence.append(f"{place(ctx.doc, ('workflow', 'status'))} is {shown(workflow_status)}")
        target = theirs
    elif not theirs and workflow_status is None:
        from_pipelines = _workflow_status_from_pipelines(ctx, mine, compared_pipelines(ctx.doc))
        if from_pipelines is not None:
            evidence.append(from_pipelines[0])
            target = from_pipelines[1]
    activity = ctx.recovery.get("current_activity")
    if mine != "COMPLETE" and isinstance(activity, str) and _ACTIVITY_COMPLETE.match(activity.strip()):
        evidence.append(f"{place(ctx.doc, (*RS, 'current_activity'))} says {shown(activity.strip()[:60])}")
        target = target or "COMPLETE"
    if not evidence:
        return []
    return [
        ctx.finding(
            WORKFLOW_STATUS,
            (*RS, "workflow_status"),
            f"`recovery_state.workflow_status` is {shown(mine)}, but " + " and ".join(evidence),
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
    """Phase 0 while nothing has started means "none started" (phase ids start at 1), and so does the first
    phase while it waits: one position in two numberings, so the section may name 0 or the phase about to
    begin, whichever of the two the pipeline says."""
    number = pipeline.current_phase
    if number is None:
        return frozenset()
    first = min((phase.number for phase in pipeline.phases if phase.number is not None), default=1)
    if number in (0, first) and pipeline.phase(0) is None and pipeline.not_started():
        return frozenset({0, first})
    return frozenset({number})


def _declared_at(ctx: Context, pipeline: state.Pipeline) -> str:
    assert pipeline.current_phase_path is not None
    where = f"{place(ctx.doc, pipeline.current_phase_path)} is {pipeline.current_phase}"
    accepted = _accepted(pipeline)
    if len(accepted) > 1:
        first = max(accepted)
        phase = pipeline.phase(first)
        about = f" {shown(phase.name)}" if phase is not None and phase.name else ""
        return f"{where}: no phase has started yet, the next is phase {first}{about}"
    phase = pipeline.phase(pipeline.current_phase) if pipeline.current_phase is not None else None
    if phase is not None and phase.name:
        status = f", {phase.status}" if phase.status else ""
        return f"{where} (phase {phase.number} is {shown(phase.name)}{status})"
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
    evidence = f"{_declared_at(ctx, first)} ({which_compared(ctx, compared)}"
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
    return f"`recovery_state.current_phase_name` {shown(name.strip())} is the name of {listed}, not of {what}"


def _activity_problem(ctx: Context, accepted: frozenset[int], what: str) -> str:
    activity = ctx.recovery.get("current_activity")
    if not isinstance(activity, str):
        return ""
    match = _ACTIVITY_PHASE.match(activity)
    if match is None or int(match.group(1)) in accepted:
        return ""
    return (
        f"`recovery_state.current_activity` {shown(activity.strip()[:60])} is about phase {match.group(1)}, not {what}"
    )


class Lag(FrozenRecord):
    """Where a pipeline really is when its own `current_phase` lags its phases' statuses."""

    __slots__ = ("accepted", "at", "finished")

    finished: state.Phase  # the last finished phase (the counter names it or an earlier one)
    at: state.Phase  # the phase that runs, else the next to begin, else (all finished) the last one
    accepted: frozenset[int]  # the section's `current_phase` values that agree with the phases

    def __init__(self, finished: state.Phase, at: state.Phase, accepted: frozenset[int]) -> None:
        init_field(self, "finished", finished)
        init_field(self, "at", at)
        init_field(self, "accepted", accepted)


def _lagging(pipeline: state.Pipeline) -> Lag | None:
    """Where a pipeline is when its own `current_phase` lags its phases' statuses (None when it does not): its
    current phase is finished and a later one runs; or, nothing running, later phases are finished too (the
    pipeline is at its last finished phase, or the one after it, which is about to begin)."""
    number = pipeline.current_phase
    current = pipeline.phase(number) if number is not None else None
    if number is None or current is None or current.status not in PASSED_WORDS:
        return None
    later = sorted((ph for ph in pipeline.phases if ph.number is not None and ph.number > number), key=_number_of)
    running = [ph for ph in later if ph.status in RUNNING_WORDS]
    if running:
        return Lag(current, running[0], frozenset({_number_of(running[0])})) if len(running) == 1 else None
    finished = current
    for phase in later:
        if phase.status not in PASSED_WORDS:
            if phase.status not in state.NOT_STARTED_WORDS or finished is current:
                return None
            return Lag(finished, phase, frozenset({_number_of(finished), _number_of(phase)}))
        finished = phase
    return None if finished is current else Lag(finished, finished, frozenset({_number_of(finished)}))


def _number_of(phase: state.Phase) -> int:
    assert phase.number is not None
    return phase.number


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

    When a pipeline's own `current_phase` lags its phases and the section names the phase the
    phases say the pipeline is at, the section is right and is not reported: the pipeline's counter
    is what is stale, and the finding is a warning on it (resumption reads the section). The
    counter lags when it names a COMPLETE phase while a later one runs (the section names the one
    that runs), or while later phases are COMPLETE too (phases 1-4 COMPLETE, `current_phase: 3`:
    the section names the last finished phase or the next to begin).

    A finished workflow (every status, of the workflow, its pipelines and their phases, COMPLETE)
    whose pipelines number only their own phases may count its phases as a whole in the section:
    `current_phase: 7` for pipelines of 3 and 4 phases, the end of both. That is not reported.

    - `current_phase_name` must not be the name of another phase (names are matched ignoring
      case, punctuation, notes in parentheses and a leading "Phase N:").
    - An activity identifier such as `phase-3-agent-execution` must be about the same phase.
    - Phase `0` while every phase of the pipeline waits means "none started" (phase ids start at
      1): the section may name 0 or the phase about to begin, whichever of the two the pipeline
      names (a section at phase 0, "not started", beside a pipeline at phase 1 that has not
      started states the same position). A pipeline with a real phase 0 is compared as it is.
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


def _pipeline_lag_finding(ctx: Context, mine: int, compared: Compared) -> Finding | None:
    """S006 (a warning) on a pipeline's `current_phase` that lags its phases while the section names the phase
    the phases say the pipeline is at: the section is right, the pipeline's counter is stale."""
    for pipeline in compared.pipelines:
        lag = _lagging(pipeline)
        if lag is None or mine not in lag.accepted or pipeline.current_phase_path is None:
            continue
        assert pipeline.current_phase is not None
        others = [p for p in compared.pipelines if p is not pipeline and p.current_phase_path is not None]
        if compared.named_by is None and any(mine not in _accepted(p) | _lagging_accepted(p) for p in others):
            return None  # the pipelines disagree and nothing names one: no single place to blame
        if lag.at.status in RUNNING_WORDS:
            state_of = f"{phase_is(ctx, lag.finished)} and {phase_is(ctx, lag.at)}"
        elif lag.at is lag.finished:
            state_of = f"{phase_is(ctx, lag.finished)}, as are the phases before it, and it is the last"
        else:
            state_of = f"{phase_is(ctx, lag.finished)}, as are the phases before it, and {phase_is(ctx, lag.at)}"
        message = (
            f"{place(ctx.doc, pipeline.current_phase_path)} is {pipeline.current_phase}, but {state_of}: the "
            f"pipeline's own current phase lags its phases (`recovery_state.current_phase` {mine} agrees with "
            f"them; {which_compared(ctx, compared)})"
        )
        fix = f"Set {short_path(pipeline.current_phase_path)} to {mine}, the phase its phases say it is at."
        finding = ctx.finding(CURRENT_PHASE, pipeline.current_phase_path, message, fix)
        return finding.replace(severity=Severity.WARNING)
    return None


def _lagging_accepted(pipeline: state.Pipeline) -> frozenset[int]:
    lag = _lagging(pipeline)
    return lag.accepted if lag is not None else frozenset()


def _workflow_wide_count(ctx: Context, mine: int) -> frozenset[int] | None:
    """The phases a finished workflow's section may name when its `current_phase` counts the phases of the whole
    workflow (``7`` for pipelines of 3 and 4 phases) while each pipeline numbers only its own: the last phase
    of every pipeline (for the name and the activity). None when that is not the case."""
    everything = state.pipelines(ctx.doc.data)
    if len(everything) < 2 or not is_finished(ctx.doc):
        return None
    phases = [ph for p in everything for ph in p.phases]
    if not phases or any(ph.number is None or ph.status not in state.COMPLETE_WORDS for ph in phases):
        return None
    if any(p.status is not None and p.status not in state.COMPLETE_WORDS for p in everything):
        return None
    if mine != len(phases) or any(_number_of(ph) >= mine for ph in phases):
        return None
    return frozenset({mine} | {max(_number_of(ph) for ph in p.phases) for p in everything if p.phases})


def _name_and_activity_findings(
    ctx: Context, mine: int, pipelines: list[state.Pipeline], accepted: frozenset[int] | None = None
) -> list[Finding]:
    """S006 on a `current_phase_name` or `current_activity` about another phase than ``mine`` (or ``accepted``)."""
    what, accepted = f"phase {mine}", accepted or frozenset({mine})
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


@section_check(CURRENT_PHASE)
def check_current_phase(ctx: Context) -> list[Finding]:
    mine = phase_number(ctx.recovery.get("current_phase"))
    if mine is None or isinstance(ctx.recovery.get("current_phase"), str):
        return []
    compared = compared_pipelines(ctx.doc)
    workflow_wide = _workflow_wide_count(ctx, mine)
    if workflow_wide is not None:  # a finished workflow counted as a whole: the pipelines' numbers are their own
        return _name_and_activity_findings(ctx, mine, compared.pipelines, workflow_wide)
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
            what += f" ({which_compared(ctx, compared)})"
        accepted = at.accepted
    elif declared:
        # The pipelines disagree and nothing says which one the section follows: a phase none of them is at.
        if any(mine in _accepted(p) for p in declared):
            return []
        listed = "; ".join(f"{_declared_at(ctx, p)}" for p in declared[:LISTED])
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


def phase_is(ctx: Context, phase: state.Phase) -> str:
    """``phase 1 "Research" (`pipelines.main.phases[0]` on line 30) is COMPLETE``."""
    name = f" {shown(phase.name)}" if phase.name else ""
    return f"phase {phase.number}{name} ({place(ctx.doc, phase.path)}) is {phase.status}"
