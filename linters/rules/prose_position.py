"""S014, S017: where the section's prose says the workflow is (not started, about to start a phase,
complete), against its state: a v1.0 section's `current_state` and `next_step`, and a v2.0 section
that says COMPLETE while its prose, defects or agent summaries say work is open.
"""

from __future__ import annotations

import re

from ctxres.findings import Finding
from ctxres.formats.document import JsonPath
from ctxres.linters.checking.registry import register, section_check
from ctxres.linters.checking.resumption_context import (
    RS,
    Context,
    key_line,
    place,
    shown,
    some,
)
from ctxres.linters.checking.severity_policy import Case
from ctxres.linters.rules.phase_position import Compared, compared_pipelines, phase_is, which_compared
from ctxres.records import FrozenRecord, init_field
from ctxres.state import orchestration as state
from ctxres.state.orchestration import (
    FAILED_WORDS,
    NOT_STARTED_WORDS,
    PASSED_WORDS,
    RUNNING_WORDS,
    WORKFLOW_STATUSES,
    normalize_status,
    workflow_meaning,
)

# `ctxres check` loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").

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
        return shown(text)
    flat = " ".join(claim.text[: claim.start].split())
    start = max(0, min(len(flat) - 20, len(text) - _QUOTED))
    excerpt = text[start : start + _QUOTED].strip()
    return shown(("…" if start else "") + excerpt + ("…" if start + _QUOTED < len(text) else ""))


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
    which = f" ({which_compared(ctx, st.compared)})" if len(pipelines) > 1 or st.compared.named_by else ""
    if claim.kind == "not-started":
        started = [ph for _p, ph in phases if _started(ph)]
        if st.workflow == "COMPLETE":
            done = [ph for ph in started if ph.status in PASSED_WORDS]
            tail = f" and {phase_is(ctx, done[-1])}{which}" if done else ""
            return f"{st.workflow_at} is COMPLETE{tail}"
        if started:
            return f"{phase_is(ctx, started[-1])}{which}"
        return ""
    if claim.kind == "about-to":
        named = [(p, ph) for p, ph in phases if ph.number == claim.phase]
        if st.workflow == "COMPLETE":
            done = [ph for _p, ph in named if ph.status in PASSED_WORDS]
            tail = f" and {phase_is(ctx, done[0])}{which}" if done else ""
            return f"{st.workflow_at} is COMPLETE{tail}"
        if named and all(_long_complete(p, ph) for p, ph in named):
            pipeline, phase = named[0]
            number = claim.phase or 0
            later = [ph for ph in pipeline.phases if ph.number is not None and ph.number > number and _started(ph)]
            moved = f", and {phase_is(ctx, later[-1])}" if later else ""
            return f"{phase_is(ctx, phase)}{moved}{which}"
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
        return f"{head}{phase_is(ctx, unfinished[0])}{which}"
    if st.workflow in state.LIVE_STATUSES:
        tail = f" and {phase_is(ctx, unfinished[0])}{which}" if unfinished else ""
        return f"{st.workflow_at} is {st.workflow}{tail}"
    if not st.workflow and unfinished:
        return f"{phase_is(ctx, unfinished[0])}{which}"
    return ""


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
    prevent (the section written once at planning time and never again) shows as prose
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


@section_check(V1_PROSE)
def check_v1_prose(ctx: Context) -> list[Finding]:
    if ctx.version != "1.0":
        return []
    raw = ctx.doc.get(("workflow", "status"))
    st = _V1State(workflow_meaning(raw), f"{place(ctx.doc, ('workflow', 'status'))}", compared_pipelines(ctx.doc))
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
        f"`resumption.{claim.field}` on line {key_line(ctx.doc, ('resumption', claim.field))} says {_quote(claim)}"
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
        return place(ctx.doc, (*RS, "workflow_status")) if mine == "COMPLETE" else ""
    workflow = ctx.doc.get(("workflow", "status"))
    return place(ctx.doc, ("workflow", "status")) if workflow_meaning(workflow) == "COMPLETE" else ""


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
    summaries = ctx.summaries or {}
    found: list[tuple[str, JsonPath]] = []
    for agent, text in summaries.items():
        match = _SAYS_NOT_DONE.match(text) if isinstance(text, str) else None
        if match:
            found.append(
                (
                    f"the summary of {agent} says {shown(match.group(0).strip())}",
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
            quoted = _quote(claims[0]) if claims else shown(" ".join(text.split())[:_QUOTED])
            found.append((f"`recovery_state.{field}` says {quoted}", (*RS, field)))
    return found


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


@section_check(OPEN_WORK)
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
            f"{complete_at} is COMPLETE, but {some([what for what, _path in found])}",
            "Update the stale side: the status (ACTIVE while work remains), or the defect, the agent summary "
            "and the prose (what was done; the next step after completion).",
        )
    ]
