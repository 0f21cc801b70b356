"""The two re-orientation prompts and the generic compaction alert, rendered from plain data (pure).

Template 1 (resumption prompt) re-orients a new session on a workflow that was interrupted;
budget 500-1000 tokens. Template 2 (``<compaction-alert>``) re-orients the same session after a
compaction from the newest unacknowledged checkpoint; budget 300-400 tokens, hard ceiling 500:
above it the free-text summaries are shortened, never the structured fields.

Used by the SessionStart and UserPromptSubmit hooks, ``ctxres prompt`` and the T rules; the data they
render is prepared in ``ctxres.prompt_data``. Tokens are estimated as characters / 4, as the
specification measures them (``ctxres.tokens``). No typing at run time (the hooks' start-up cost).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ctxres.tokens import estimate_tokens as estimate_tokens  # the one estimate; re-exported for the callers

# A hook loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

WIDTH = 89  # the line width of the templates' populated examples (tests/core/test_templates.py)
TEMPLATE1_BUDGET = (500, 1000)
TEMPLATE2_BUDGET = (300, 400)
TEMPLATE2_CEILING = 500
UNKNOWN = "unknown"


def _wrap(text: str, first: str, rest: str) -> list[str]:
    """``text`` after ``first``, wrapped at :data:`WIDTH`, continuation lines indented by ``rest``."""
    body = " ".join(str(text).split())
    if body and len(first) + len(body) <= WIDTH:  # one line: what textwrap answers, without importing it
        return [first + body]
    import textwrap  # its import compiles regular expressions: only for text that needs wrapping

    return textwrap.wrap(body, WIDTH, initial_indent=first, subsequent_indent=rest, break_on_hyphens=False) or [
        first.rstrip()
    ]


def _value(value: Any) -> str:
    if value is None or value == "" or value == []:
        return UNKNOWN
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value)
    return str(value)


def phase_text(number: Any, name: Any) -> str:
    """The current phase as a person reads it: ``Phase 3 (Validation)``, ``Phase 3``, ``Validation``, or ``phase
    not recorded`` when the section names neither (never "Phase unknown (unknown)")."""
    known_number, known_name = _value(number) != UNKNOWN, _value(name) != UNKNOWN
    if known_number and known_name:
        return f"Phase {_value(number)} ({_value(name)})"
    if known_number:
        return f"Phase {_value(number)}"
    return _value(name) if known_name else "phase not recorded"


def _fill_percent(fill: Any) -> str:
    if isinstance(fill, bool) or not isinstance(fill, (int, float)):
        return UNKNOWN
    return f"{fill * 100:.1f}%"


def _score(score: Any) -> str:
    if isinstance(score, bool) or not isinstance(score, (int, float)):
        return UNKNOWN
    return f"{score:.3f}"


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _sequence(value: Any) -> Sequence[Any]:
    return value if isinstance(value, (list, tuple)) else []


# --- Template 1 -------------------------------------------------------------------------------


def _decision_lines(decisions: Sequence[Any]) -> list[str]:
    lines: list[str] = []
    for entry in decisions:
        item = _mapping(entry)
        if not item:
            continue
        where = ", ".join(
            part
            for part in (
                str(item["gate"]) if item.get("gate") else "",
                f"iter {item['iteration']}" if item.get("iteration") else "",
            )
            if part
        )
        head = f"- {item.get('id', 'RD-?')}" + (f" ({where})" if where else "") + ": "
        text = str(item.get("decision", "")).rstrip(".") + "."
        if item.get("rationale"):
            text += f" {str(item['rationale']).rstrip('.')}."
        phases = [str(p) for p in _sequence(item.get("affects_phases"))]
        if phases:
            text += f" Affects Phase{'s' if len(phases) > 1 else ''} {', '.join(phases)}."
        if item.get("applied") is False:
            text += " Not applied yet."
        lines += _wrap(text, head, "  ")
    return lines or ["- none recorded"]


def _agent_lines(summaries: Mapping[str, Any]) -> list[str]:
    lines: list[str] = []
    for agent, summary in summaries.items():
        lines += _wrap(str(summary), f"- {agent}: ", "  ")
    return lines or ["- none recorded"]


def _defect_lines(patterns: Sequence[Any]) -> list[str]:
    lines: list[str] = []
    for entry in patterns:
        item = _mapping(entry)
        if not item.get("pattern"):
            continue
        gates = ", ".join(str(g) for g in _sequence(item.get("gates_affected")))
        lines += _wrap(str(item["pattern"]) + (f" ({gates})" if gates else ""), "- ", "  ")
    return lines or ["- none recorded"]


def _file_lines(files: Sequence[Any]) -> list[str]:
    entries = []
    for position, entry in enumerate(files, start=1):
        item: dict[str, Any] = {"path": entry} if isinstance(entry, str) else dict(_mapping(entry))
        if item.get("path"):
            # an entry without a priority keeps its place in the list
            item["order"] = item["priority"] if isinstance(item.get("priority"), int) else position
            entries.append(item)
    entries.sort(key=lambda e: (e["order"], str(e["path"])))
    lines: list[str] = []
    for number, item in enumerate(entries, start=1):
        lines.append(f"{number}. [PRIORITY {item['order']}] {item['path']}")
        sections = _sequence(item.get("sections"))
        if sections:
            lines += _wrap(", ".join(str(s) for s in sections), "   Sections: ", "   ")
        if item.get("purpose"):
            lines += _wrap(str(item["purpose"]), "   Purpose: ", "   ")
    return lines or ["1. The ORCHESTRATION.yaml file: read its resumption section first."]


def _last_gate_score(trajectory: Mapping[str, Any]) -> str:
    history = _mapping(trajectory.get("score_history"))
    gate = trajectory.get("current_gate")
    if gate and _sequence(history.get(gate)):
        scores = _sequence(history[gate])
        return f"{_score(scores[-1])} ({gate} iter {len(scores)})"
    for name in reversed(list(history)):
        scores = _sequence(history[name])
        if scores:
            return f"{_score(scores[-1])} ({name} iter {len(scores)})"
    return UNKNOWN


def render_template1(orchestration: Mapping[str, Any], *, plan_path: str = "", project_id: str = "") -> str:
    """Template 1, the resumption prompt, for the v2 resumption section of ``orchestration``."""
    workflow = _mapping(orchestration.get("workflow"))
    section = _mapping(orchestration.get("resumption"))
    state = _mapping(section.get("recovery_state"))
    trajectory = _mapping(section.get("quality_trajectory"))
    defects = _mapping(section.get("defect_summary"))
    decisions = _sequence(section.get("decision_log")) or _sequence(section.get("decisions"))
    compactions = _mapping(section.get("compaction_events"))
    next_action = _value(state.get("next_step"))
    gate = trajectory.get("current_gate")
    iteration = trajectory.get("current_gate_iteration")
    lines = [
        "You are resuming a workflow that was interrupted. Do NOT start over. Your goal is to",
        "continue from the exact point of interruption using the persistent state below.",
        "",
        f"WORKFLOW: {_value(workflow.get('id'))}",
        f"PROJECT: {_value(project_id or workflow.get('project_id'))}",
        f"ORCHESTRATION PLAN: {_value(plan_path)}",
        "",
        "RECOVERY STATE:",
        f"- Current phase: {phase_text(state.get('current_phase'), state.get('current_phase_name'))}",
        f"- Workflow status: {_value(state.get('workflow_status'))}",
        f"- Last activity: {_value(state.get('current_activity'))}",
        f"- Last checkpoint: {_value(state.get('last_checkpoint'))}",
        f"- Context fill at interruption: {_fill_percent(state.get('context_fill_at_update'))}",
        f"- Compaction events in previous session: {_value(compactions.get('count', 0))}",
        "",
        *_wrap(next_action, "NEXT ACTION: ", ""),
        "",
        "QUALITY TRAJECTORY:",
        f"- Gates completed: {_value(_sequence(trajectory.get('gates_completed')) or 'none')}",
        f"- Gates remaining: {_value(_sequence(trajectory.get('gates_remaining')) or 'none')}",
        f"- Current gate: {gate} (iteration {_value(iteration)})" if gate else "- Current gate: none (between gates)",
        f"- Last gate score: {_last_gate_score(trajectory)}",
        f"- Recurring weak dimension: {_value(trajectory.get('lowest_dimension'))}",
        "",
        "KEY DECISIONS (carry forward):",
        *_decision_lines(decisions),
        "",
        "AGENT WORK COMPLETED:",
        *_agent_lines(_mapping(section.get("agent_summaries"))),
        "",
        "DEFECT PATTERNS (avoid re-introducing):",
        *_defect_lines(_sequence(defects.get("recurring_patterns"))),
        "",
        "READ THESE FILES IN ORDER:",
        *_file_lines(_sequence(section.get("files_to_read"))),
        "",
        "AFTER READING:",
        "1. Confirm you understand the current workflow state",
        "2. Identify what phase/step to continue from",
        *_wrap(next_action, "3. Proceed with: ", "   "),
        "",
        "Do NOT re-read artifacts from completed phases unless specifically needed for the current",
        "task. Minimize context consumption -- you are resuming mid-workflow and context budget",
        "is limited.",
    ]
    return "\n".join(lines) + "\n"


# --- Template 2 -------------------------------------------------------------------------------


def _pending_decision_lines(decisions: Sequence[Any]) -> list[str]:
    lines: list[str] = []
    for entry in decisions:
        item = _mapping(entry)
        if not item:
            continue
        text = str(item.get("summary", "")).rstrip(".") + "."
        phases = [str(p) for p in _sequence(item.get("affects_phases"))]
        if phases:
            text += f" Affects Phase{'s' if len(phases) > 1 else ''} {', '.join(phases)}."
        lines += _wrap(text, f"- {item.get('id', 'RD-?')}: ", "  ")
    return lines or ["- none"]


def _shorten(lines: list[str], keep_chars: int) -> list[str]:
    """The first ``keep_chars`` characters of a free-text block, cut at a word, marked with '...'. A command or
    path in backticks is kept whole or left out, never cut in the middle."""
    text = " ".join(line.strip() for line in lines)
    if len(text) <= keep_chars:
        return lines
    import textwrap

    short = textwrap.shorten(text, max(keep_chars, 20), placeholder=" ...")
    kept = short.removesuffix(" ...")
    if kept.count("`") % 2:  # the cut fell inside a `command`: end before it
        kept = kept[: kept.rfind("`")].rstrip()
        short = f"{kept} ..." if kept else "..."
    return _wrap(short, "", "")


def _alert_head(elsewhere: str | None) -> list[str]:
    """The alert's first lines: the compaction this session went through, or (``elsewhere``: when another
    session wrote the checkpoint) what is true for a session that was not compacted."""
    if elsewhere is None:
        return [
            "<compaction-alert>",
            "CONTEXT COMPACTION OCCURRED. Some conversation history was compressed by Claude Code.",
            "You may have lost track of recent work. Re-orient using the data below.",
        ]
    return [
        "<compaction-alert>",
        f"A CHECKPOINT IS NOT MERGED YET. Another session wrote it at {elsewhere}, before its context was",
        "compacted; this session's context was not compacted. The checkpoint's data is not in the resumption",
        "section yet: read it, then merge it (below).",
    ]


def _doing_label(elsewhere: str | None) -> str:
    """What the position line is called: this session's work, or (``elsewhere``) the other session's."""
    return "YOU WERE DOING" if elsewhere is None else "THAT SESSION WAS DOING"


def _ack_step(event_total: int, orchestration_path: str, v1_section: bool) -> str:
    """The step that merges the checkpoint(s): ``ctxres ack``, after ``ctxres migrate`` for a v1.0 section."""
    plural = event_total > 1
    ack = f"`ctxres ack{' --all' if plural else ''}`"
    them = "them" if plural else "it"
    what = f"merge the checkpoint{'s' if plural else ''} into the resumption section and acknowledge {them}"
    if v1_section:
        return (
            f"3. Run `ctxres migrate {orchestration_path} --write` (its v1.0 section has no compaction events), "
            f"then {ack} to {what}"
        )
    return f"3. Run {ack} to {what}"


def render_template2(
    checkpoint: Mapping[str, Any],
    *,
    checkpoint_path: str,
    orchestration_path: str,
    event_number: int = 1,
    event_total: int = 1,
    after_fill: Sequence[str] = (),
    elsewhere: str | None = None,
    v1_section: bool = False,
) -> str:
    """Template 2, the ``<compaction-alert>``, from a checkpoint file (seed layout).

    ``after_fill``: lines put after the pre-compaction fill (the SessionStart hook says there how
    full the context is after the compaction). Within the 500-token hard ceiling: the
    critical-context and pending-decision texts are shortened when needed; the structured fields
    are never cut. ``elsewhere``: the time another session wrote the checkpoint, for a session that was not
    compacted itself (a new one); ``v1_section``: the workflow's section is v1.0 (migrate it before ``ack``).
    """
    trigger = _mapping(checkpoint.get("trigger"))
    context = _mapping(checkpoint.get("context_state"))
    state = _mapping(checkpoint.get("orchestration_state"))
    accumulated = _mapping(checkpoint.get("accumulated_context"))
    recovery = _mapping(checkpoint.get("recovery_instructions"))
    trigger_text = _value(trigger.get("type")) + (f" ({trigger['source']})" if trigger.get("source") else "")
    gate = state.get("current_gate")
    unread = state.get("workflow_unreadable")
    critical = _wrap(_value(recovery.get("critical_context")), "", "")
    pending = _pending_decision_lines(_sequence(accumulated.get("decisions_since_last_checkpoint")))

    def build(critical_lines: list[str], pending_lines: list[str]) -> str:
        lines = _alert_head(elsewhere)
        if event_total > 1 and elsewhere is None:
            lines.append(f"COMPACTION EVENT: {event_number} of {event_total} this session")
        lines += [
            "",
            f"CHECKPOINT: {checkpoint_path}",
            f"TRIGGER: {trigger_text}",
            f"PRE-COMPACTION FILL: {_fill_percent(context.get('estimated_fill_before_compaction'))}",
            *after_fill,
            *(
                _wrap(f"{unread}. The position below is what its text still showed.", "WORKFLOW NOT READ: ", "")
                if unread
                else []
            ),
            "",
            f"{_doing_label(elsewhere)}: {phase_text(state.get('current_phase'), state.get('current_phase_name'))}, "
            f"{_value(state.get('current_activity'))}",
            f"LAST SCORE: {_score(state.get('current_gate_score'))} ({gate}, iteration "
            f"{_value(state.get('current_gate_score_iteration') or state.get('current_gate_iteration'))})"
            if gate
            else "LAST SCORE: none (between gates)",
            "",
            "CRITICAL CONTEXT:",
            *critical_lines,
            "",
            "PENDING DECISIONS:",
            *pending_lines,
            "",
            "IMMEDIATE ACTIONS:",
            f"1. Read checkpoint file: {checkpoint_path}",
            f"2. Fix {orchestration_path} (it could not be read), then read its resumption section"
            if unread
            else f"2. Read ORCHESTRATION.yaml resumption section: {orchestration_path}",
            _ack_step(event_total, orchestration_path, v1_section),
            *_wrap(_value(recovery.get("next_action")), "4. Continue from: ", "   "),
            "</compaction-alert>",
        ]
        return "\n".join(lines) + "\n"

    text = build(critical, pending)
    budget = TEMPLATE2_CEILING * 4
    if len(text) > budget:  # shorten the free text, half of the excess from each block
        excess = len(text) - budget
        free_critical = sum(len(line) for line in critical)
        free_pending = sum(len(line) for line in pending)
        critical = _shorten(critical, max(free_critical - excess // 2 - 40, 40))
        pending = _shorten(pending, max(free_pending - excess // 2 - 40, 40))
        text = build(critical, pending)
    return text


def render_generic_alert(*, orchestration_path: str, reason: str, elsewhere: bool = False) -> str:
    """The alert when the checkpoint cannot be read: still tells the session what happened (``elsewhere``:
    another session's compaction, for a session that was not compacted itself)."""
    if elsewhere:
        head = [
            "<compaction-alert>",
            "A CHECKPOINT IS NOT MERGED YET. Another session wrote it before its context was compacted;",
            "this session's context was not compacted. The checkpoint",
        ]
    else:
        head = [
            "<compaction-alert>",
            "CONTEXT COMPACTION OCCURRED. Some conversation history was compressed by Claude Code.",
            "You may have lost track of recent work. The checkpoint written before the compaction",
        ]
    lines = [
        *head,
        *_wrap(f"could not be read ({reason}).", "", ""),
        "",
        "IMMEDIATE ACTIONS:",
        f"1. Read the resumption section of {orchestration_path or 'the ORCHESTRATION.yaml file'}",
        "2. Continue from its recovery_state.next_step",
        "</compaction-alert>",
    ]
    return "\n".join(lines) + "\n"
