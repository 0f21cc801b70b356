"""PreCompact (trigger T5): write the next checkpoint file before Claude Code compacts the conversation.

``<state_dir>/checkpoints/cx-NNN.json`` (seed content, ``schema_version`` 1.0.0) records
where the workflow was, so that the session can re-orient after the compaction (SessionStart
injects the ``<compaction-alert>`` that points at it, and ``ctxres ack`` merges it into the
resumption section):

- ``context_state``: the last context-monitor reading (``<state_dir>/context-monitor-state.json``,
  written by the UserPromptSubmit hook) when it belongs to this session, else the fill read from
  the end of the transcript, else unknown (nulls);
- ``orchestration_state``, ``accumulated_context``, ``recovery_instructions``: from the resumption
  section (v2.0 sub-sections; a v1.0 section gives what it has) and the quality gates of the
  live workflow (``ctxres.state.live.find_live_workflow``: ACTIVE or PAUSED).

With no ACTIVE or PAUSED workflow nothing is written (that is normal, so nothing is said). Secrets
are redacted before the file is written. The content is written to a temporary file that is then
hard-linked to the free name (which fails when another hook took it: the next number is tried), so
concurrent hooks never share a number and no file is ever seen half-written. (The context
monitor's reading, which the compaction makes wrong, is replaced by SessionStart ``compact``, the
next hook to run.) The answer is always ``{}``, which the dispatcher
prints as nothing: PreCompact cannot add context for the model, and the client shows its stdout
to the user and keeps it in the conversation.
"""

from __future__ import annotations

import json
import os

from ctxres.hooks.context import (
    HookContext,
    HookError,
    UnreadableWorkflowError,
    find_workflow,
    iso,
    now,
    read_bytes,
    warn,
)
from ctxres.prompt_data import recovery_fields
from ctxres.state import orchestration
from ctxres.state.checkpoint_names import (
    CHECKPOINTS_FOLDER,
    file_id,
    file_name,
    number_of_id,
    number_of_name,
)
from ctxres.timestamps import parse_datetime

# A hook loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    import datetime as dt
    from typing import Any

SCHEMA_VERSION = "1.0.0"
WRITTEN_BY = "ctxres-hook PreCompact"
TRIGGER_SOURCE = "PreCompact hook"
MONITOR_STATE_FILE = "context-monitor-state.json"

# --- small typed readers (pure) -----------------------------------------------------------------


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _text(value: Any) -> str | None:
    """A non-empty string (numbers are written as text), else None."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, str) and value.strip():
        return " ".join(value.split())
    return None


def _int(value: Any, minimum: int = 0) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= minimum else None


def _fraction(value: Any) -> float | None:
    """A number between 0 and 1, else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if 0 <= value <= 1 else None


def _ints(value: Any) -> list[int] | None:
    items = _list(value)
    numbers = [item for item in items if _int(item) is not None]
    return numbers if isinstance(value, list) and len(numbers) == len(items) else None


# --- the resumption section, whatever its version (pure) ----------------------------------------


def gate_position(data: dict[str, Any], section: dict[str, Any]) -> tuple[str | None, int | None, float | None]:
    """(current gate, its iteration, its latest score): the section's ``quality_trajectory`` first,
    then the ``quality_gates`` section (the one gate in progress)."""
    gates = {gate.id: gate for gate in orchestration.gates(data)}
    trajectory = section.get("quality_trajectory")
    if isinstance(trajectory, dict) and "current_gate" in trajectory:
        gate = _text(trajectory.get("current_gate"))
        iteration = _int(trajectory.get("current_gate_iteration"), 1)
    else:
        running = [gate.id for gate in gates.values() if gate.is_running()]
        gate = running[0] if len(running) == 1 else None
        iteration = None
    if gate is None:
        return None, None, None
    found = gates.get(gate)
    if iteration is None and found is not None:
        iteration = _int(found.data.get("current_iteration"), 1) or _int(found.iterations, 1)
    history = _list(_dict(_dict(trajectory).get("score_history")).get(gate))
    score = _fraction(history[-1]) if history else None
    if score is None and found is not None:
        score = _fraction(found.latest_score())
    return gate, iteration, score


def defect_patterns(section: dict[str, Any]) -> list[str] | None:
    patterns = _list(_dict(section.get("defect_summary")).get("recurring_patterns"))
    found = [_text(p.get("pattern") if isinstance(p, dict) else p) for p in patterns]
    return [p for p in found if p] or None


def previous_checkpoint_time(section: dict[str, Any]) -> dt.datetime | None:
    """When the newest compaction already merged into the section happened."""
    events = _list(_dict(section.get("compaction_events")).get("events"))
    times = [t for t in (parse_datetime(_dict(e).get("timestamp")) for e in events) if t is not None]
    return max(times, default=None)


def recent_decisions(section: dict[str, Any]) -> list[dict[str, Any]] | None:
    """The decision log (``decision_log``, or its alias ``decisions``) since the previous compaction;
    a decision without a time is kept (it cannot be placed)."""
    log = _list(section.get("decision_log")) or _list(section.get("decisions"))
    since = previous_checkpoint_time(section)
    decisions = []
    for position, entry in enumerate(log, start=1):
        item = _dict(entry)
        summary = _text(item.get("decision")) or _text(item.get("summary"))
        if summary is None:
            continue
        taken = parse_datetime(item.get("timestamp"))
        if since is not None and taken is not None and taken <= since:
            continue
        decision: dict[str, Any] = {"id": _text(item.get("id")) or f"RD-{position:03d}", "summary": summary}
        phases = _ints(item.get("affects_phases"))
        if phases is not None:
            decision["affects_phases"] = phases
        decisions.append(decision)
    return decisions or None


def agent_summaries(section: dict[str, Any]) -> dict[str, str] | None:
    summaries = {str(k): t for k, v in _dict(section.get("agent_summaries")).items() if (t := _text(v))}
    return summaries or None


def files_to_read(section: dict[str, Any]) -> list[Any] | None:
    """The section's ``files_to_read``, each entry a path or ``{path, sections, priority, purpose}``."""
    entries: list[Any] = []
    for entry in _list(section.get("files_to_read")):
        if isinstance(entry, str) and entry.strip():
            entries.append(entry.strip())
            continue
        item = _dict(entry)
        path = _text(item.get("path"))
        if path is None:
            continue
        clean: dict[str, Any] = {"path": path}
        sections = [s for s in (_text(x) for x in _list(item.get("sections"))) if s]
        if sections:
            clean["sections"] = sections
        if _int(item.get("priority"), 1) is not None:
            clean["priority"] = item["priority"]
        if _text(item.get("purpose")):
            clean["purpose"] = _text(item.get("purpose"))
        entries.append(clean)
    return entries or None


def critical_context(state: dict[str, Any], section: dict[str, Any]) -> str | None:
    """What must not be forgotten, from the state (deterministic): activity, gate and score, the primary
    defect of the last gate iteration, the unresolved defects. None when nothing is known."""
    parts = []
    if state.get("current_activity"):
        parts.append(f"Activity at compaction: {str(state['current_activity']).rstrip('.')}.")
    gate, iteration, score, scored = (
        state.get(key)
        for key in ("current_gate", "current_gate_iteration", "current_gate_score", "current_gate_score_iteration")
    )
    if gate:
        where = f"Quality gate {gate}" + (f" iteration {iteration}" if iteration else "")
        of = f" (iteration {scored})" if scored and scored != iteration else ""
        parts.append(f"{where}: last score {score:.3f}{of}." if score is not None else f"{where}: not scored yet.")
    defects = _dict(section.get("defect_summary"))
    primary = _text(defects.get("last_gate_primary_defect"))
    if primary:
        parts.append(f"Primary defect of the last gate iteration: {primary.rstrip('.')}.")
    unresolved = [d for d in (_text(x) for x in _list(defects.get("unresolved_defects"))) if d]
    if unresolved:
        parts.append(f"Unresolved defects: {', '.join(unresolved)}.")
    return " ".join(parts) or None


def orchestration_state(data: dict[str, Any], section: dict[str, Any]) -> dict[str, Any]:
    recovery = recovery_fields(section)
    status = orchestration.workflow_status_of(data)
    gate, iteration, score = gate_position(data, section)
    return {
        "workflow_id": _text(_dict(data.get("workflow")).get("id")),
        "workflow_status": status if status in orchestration.WORKFLOW_STATUSES else None,
        "current_phase": _int(recovery.get("current_phase")),
        "current_phase_name": _text(recovery.get("current_phase_name")),
        "current_activity": _text(recovery.get("current_activity")),
        "last_completed_checkpoint": _text(_dict(data.get("checkpoints")).get("latest_id"))
        or _text(recovery.get("last_checkpoint")),
        "phases_complete": None,  # no reliable source: pipeline layouts differ from file to file
        "phases_in_progress": None,
        "phases_remaining": None,
        "current_gate": gate,
        "current_gate_iteration": iteration,
        "current_gate_score": score,
        "current_gate_score_iteration": scored_iteration(section, gate) if score is not None else None,
    }


def scored_iteration(section: dict[str, Any], gate: str | None) -> int | None:
    """The iteration that produced the gate's latest score (the iteration in progress may be unscored)."""
    if gate is None:
        return None
    history = _list(_dict(_dict(section.get("quality_trajectory")).get("score_history")).get(gate))
    return len(history) or None


def build_checkpoint(
    data: dict[str, Any],
    *,
    event_id: str,
    timestamp: str,
    trigger: str,
    context_state: dict[str, Any],
    orchestration_file: str,
) -> dict[str, Any]:
    """The checkpoint for the workflow ``data`` (pure). ``orchestration_file`` is the workflow file,
    relative to the project; it is named in the next action when the section has no ``next_step``."""
    section = _dict(data.get("resumption"))
    state = orchestration_state(data, section)
    next_action = _text(recovery_fields(section).get("next_step")) or (
        f"Read the resumption section of {orchestration_file} to find where the workflow stopped, then continue."
    )
    return {
        "schema_version": SCHEMA_VERSION,
        "event_type": "compaction",
        "event_id": event_id,
        "timestamp": timestamp,
        "trigger": {"type": trigger if trigger in ("auto", "manual") else "auto", "source": TRIGGER_SOURCE},
        "context_state": context_state,
        "orchestration_state": state,
        "accumulated_context": {
            "defect_patterns": defect_patterns(section),
            "decisions_since_last_checkpoint": recent_decisions(section),
            "agent_summaries": agent_summaries(section),
        },
        "recovery_instructions": {
            "files_to_read": files_to_read(section),
            "next_action": next_action,
            "critical_context": critical_context(state, section),
        },
        "metadata": {"written_by": WRITTEN_BY, "acknowledged": False, "acknowledged_at": None},
    }


# --- the context fill ---------------------------------------------------------------------------


def context_from_monitor(monitor: Any, session_id: Any) -> dict[str, Any] | None:
    """``context_state`` from the context-monitor state when it holds a fill of this session (pure)."""
    if not isinstance(monitor, dict):
        return None
    if (
        isinstance(session_id, str)
        and isinstance(monitor.get("session_id"), str)
        and monitor["session_id"] != session_id
    ):
        return None  # another session's reading says nothing about this one
    fill = _fraction(monitor.get("fill"))
    window = _int(monitor.get("window"), 1)
    if fill is None or window is None:
        return None
    return {
        "estimated_fill_before_compaction": fill,
        "estimated_tokens_used": _int(monitor.get("tokens")),
        "context_window_size": window,
        "source": "context_monitor",
    }


def _read_monitor(ctx: HookContext) -> Any:
    path = os.path.join(ctx.state_dir, MONITOR_STATE_FILE)
    if not os.path.isfile(path) or not ctx.inside(path):
        return None
    try:
        return json.loads(read_bytes(path))
    except (HookError, ValueError):
        return None  # unreadable: fall back to the transcript


def _context_state(ctx: HookContext) -> dict[str, Any]:
    monitor = _read_monitor(ctx)
    found = context_from_monitor(monitor, ctx.payload.get("session_id"))
    if found is not None:
        return found
    from ctxres.transcript import read_fill

    transcript = ctx.payload.get("transcript_path")
    reading = read_fill(transcript if isinstance(transcript, str) else None)
    known = _fraction(reading.fill) is not None
    window = reading.window
    if not known:  # the monitor may know the window (a 1M model) when nothing else does
        window = _int(_dict(monitor).get("window"), 1) or window
    return {
        "estimated_fill_before_compaction": _fraction(reading.fill),
        "estimated_tokens_used": _int(reading.tokens) if known else None,
        "context_window_size": window,
        "source": "transcript_heuristic" if known else "unknown",
    }


# --- writing ------------------------------------------------------------------------------------


def checkpoints_folder(ctx: HookContext) -> str:
    """``<state_dir>/checkpoints`` if it stays inside the project; :class:`HookError` if it does not
    (a state folder that is a symlink out of the project is refused)."""
    folder = os.path.join(ctx.state_dir, CHECKPOINTS_FOLDER)
    for path in (ctx.state_dir, folder):
        if not ctx.inside(path):
            raise HookError(
                f"refusing to write a checkpoint into {path}: it resolves to {os.path.realpath(path)}, outside "
                f"the project directory {ctx.project_dir}; no checkpoint was written"
            )
    return folder


def section_floor(section: dict[str, Any]) -> int:
    """The lowest number the next checkpoint may take: one after the highest ``CX-NNN`` event already
    in the section (pure), so ``ctxres ack`` can append it even when older checkpoint files are gone."""
    events = _list(_dict(section.get("compaction_events")).get("events"))
    numbers = [n for n in (number_of_id(_dict(event).get("id")) for event in events) if n is not None]
    return max(numbers, default=0) + 1


def write_checkpoint(
    ctx: HookContext, data: dict[str, Any], orchestration_path: str, *, unreadable: str | None = None
) -> str:
    """Write the checkpoint (redacted) under the next free number; its path.

    The file appears complete or not at all (``create_atomic``: a temporary file hard-linked to the
    name), so a hook killed at any point never leaves an empty or partial ``cx-NNN.json`` that would
    block ``ctxres ack``; when another hook (or another tool) takes the number first, the next one is
    tried. The name is always ``cx-NNN.json``, numbered after every checkpoint in the folder: another
    writer that numbers by ``int()`` of every ``cx-*.json`` name keeps working beside ours.
    """
    from ctxres import atomic
    from ctxres.redact import redact_value

    folder = checkpoints_folder(ctx)
    context = _context_state(ctx)
    trigger = ctx.payload.get("trigger")
    shown = os.path.relpath(folder, ctx.project_dir)
    position: dict[str, str] = {}
    if unreadable is not None:
        data, position = readable_part(ctx, orchestration_path)
    floor = section_floor(_dict(data.get("resumption")))
    built = build_checkpoint(
        data,
        event_id=file_id(0),
        timestamp=iso(now()),
        trigger=trigger if trigger in ("auto", "manual") else "auto",
        context_state=context,
        orchestration_file=ctx.relative(orchestration_path),
    )
    if unreadable is not None:
        last = newest_readable_state(folder)
        mark_unreadable(built, reason=unreadable, shown=ctx.relative(orchestration_path), position=position, last=last)
    checkpoint = redact_value(built)
    try:
        number = next_free_number(folder, floor)
    except OSError as exc:
        raise HookError(f"cannot create a checkpoint in {shown}: {exc.strerror or exc}; none was written") from None
    while True:
        target = os.path.join(folder, file_name(number))
        checkpoint["event_id"] = file_id(number)
        text = json.dumps(checkpoint, indent=2, ensure_ascii=False) + "\n"
        try:
            if atomic.create_atomic(target, text):
                return target
            number = max(number + 1, next_free_number(folder, floor))
        except OSError as exc:
            raise HookError(f"cannot write {os.path.basename(target)} in {shown}: {exc.strerror or exc}") from None


def next_free_number(folder: str, floor: int = 1) -> int:
    """One after every checkpoint file of ``folder`` (created if missing), and at least ``floor``."""
    os.makedirs(folder, exist_ok=True)
    taken = [n for n in (number_of_name(name) for name in os.listdir(folder)) if n is not None]
    return max(max(taken, default=0) + 1, floor)


def check_payload(payload: dict[str, Any]) -> bool:
    """Whether the payload is a PreCompact one (False for the empty payload of an unreadable stdin, which
    the dispatcher already reported); :class:`HookError` for another event's payload."""
    if not payload:
        return False
    named = payload.get("hook_event_name")
    if named is not None and named != "PreCompact":
        raise HookError(f"the payload is for {named!r}, not PreCompact; no checkpoint was written")
    if payload.get("trigger") not in ("auto", "manual"):
        raise HookError(
            f"the payload's trigger is {payload.get('trigger')!r}, not 'auto' or 'manual'; no checkpoint was written"
        )
    return True


# --- a live workflow that cannot be read (a merge conflict left in it, a YAML error, an unknown status) ------

_POSITION_KEYS = ("current_phase", "current_phase_name", "current_activity", "next_step", "last_checkpoint")


def text_position(text: str) -> dict[str, str]:
    """The position a workflow's text still shows, line by line (pure): the first value of each recovery key
    (:data:`_POSITION_KEYS`), ``workflow_id`` (``id:`` under the top-level ``workflow:``) and
    ``workflow_status`` (:func:`ctxres.state.workflow_times.text_facts`). For a text that does not parse."""
    from ctxres.state.workflow_times import text_facts

    found: dict[str, str] = {}
    in_workflow = False
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if not line[0].isspace():
            in_workflow = stripped.split("#", 1)[0].strip() == "workflow:"
            continue
        key, colon, value = stripped.partition(":")
        value = value.split(" #", 1)[0].strip().strip("\"'")
        if not colon or not value:
            continue
        if key in _POSITION_KEYS and key not in found:
            found[key] = value
        elif key == "id" and in_workflow and "workflow_id" not in found:
            found["workflow_id"] = value
    status, _time = text_facts(text)
    if status is not None:
        found["workflow_status"] = orchestration.workflow_meaning(status) or status
    return found


def readable_part(ctx: HookContext, path: str) -> tuple[dict[str, Any], dict[str, str]]:
    """What can be read of a live workflow that does not parse: the data of its text with each merge conflict
    resolved to its first side ({} when that does not parse either), and the position its lines show."""
    from ctxres.formats.conflicts import ours

    try:
        text = read_bytes(path).decode("utf-8", "replace")
    except HookError:
        return {}, {}
    first_side = ours(text)
    data: Any = None
    if first_side != text:
        from ctxres.formats.yamlguard import load

        try:
            data = load(first_side.encode("utf-8"))
        except Exception:  # any parser error: the lines are still read below
            data = None
    return (data if isinstance(data, dict) else {}), text_position(first_side)


def newest_readable_state(folder: str) -> dict[str, Any]:
    """The ``orchestration_state`` of the newest checkpoint in ``folder`` that can be read ({} when none): the
    last good state, for what the workflow's text no longer shows."""
    from ctxres.state.checkpoint_text import CheckpointUnreadable, load_checkpoint

    try:
        names = os.listdir(folder)
    except OSError:
        return {}
    numbered = sorted((n, name) for name in names if (n := number_of_name(name)) is not None)
    for _number, name in reversed(numbered[-3:]):  # bounded: PreCompact has 50 ms
        try:
            state = load_checkpoint(os.path.join(folder, name)).get("orchestration_state")
        except CheckpointUnreadable:
            continue
        if isinstance(state, dict):
            return state
    return {}


def mark_unreadable(
    checkpoint: dict[str, Any], *, reason: str, shown: str, position: dict[str, str], last: dict[str, Any]
) -> None:
    """Fill the checkpoint of an unreadable workflow (``shown``, relative to the project) from its text's
    ``position`` and the ``last`` good state, and say why it was not read (pure, in place)."""
    state = checkpoint["orchestration_state"]
    state["workflow_unreadable"] = f"{shown}: {reason}"
    for key in ("workflow_id", "current_phase_name", "current_activity"):
        if state.get(key) is None:
            state[key] = _text(position.get(key)) or _text(last.get(key))
    if state.get("current_phase") is None:
        phase = orchestration.phase_number(position.get("current_phase"))
        state["current_phase"] = phase if phase is not None else _int(last.get("current_phase"))
    if state.get("workflow_status") is None and position.get("workflow_status") in orchestration.WORKFLOW_STATUSES:
        state["workflow_status"] = position["workflow_status"]
    if state.get("last_completed_checkpoint") is None:
        state["last_completed_checkpoint"] = _text(position.get("last_checkpoint")) or _text(
            last.get("last_completed_checkpoint")
        )
    recovery = checkpoint["recovery_instructions"]
    step = _text(position.get("next_step"))
    if step:  # the first side's (a parsed first side gave the same)
        recovery["next_action"] = step
    said = f"{shown} could not be read at compaction time ({reason.rstrip('.')}): fix it, then run `ctxres ack`."
    recovery["critical_context"] = " ".join(part for part in (said, recovery.get("critical_context")) if part)


def handle(ctx: HookContext) -> dict[str, Any]:
    if not check_payload(ctx.payload):
        return {}
    try:
        found = find_workflow(ctx)
    except UnreadableWorkflowError as exc:
        # The compaction happens all the same (often while the session resolves a merge conflict): its checkpoint
        # records what can be read, and says that the workflow could not be.
        path = os.path.join(ctx.project_dir, exc.relpath)
        written = write_checkpoint(ctx, {}, path, unreadable=exc.reason)
        warn(f"{exc}; {os.path.basename(written)} records what could be read of it", "PreCompact")
        return {}
    if found is None or not isinstance(found.data, dict) or not orchestration.is_live(found.data):
        return {}  # no live workflow (a file named by $CTXRES_ORCHESTRATION may be finished): nothing to record
    write_checkpoint(ctx, found.data, found.path)
    return {}
