"""SessionStart: re-orient the model when a session starts on an interrupted workflow.

- ``compact`` (right after a compaction): Template 2, the ``<compaction-alert>``, for the newest
  unacknowledged checkpoint ("COMPACTION EVENT: N of M" when several wait), pointing at
  ``ctxres ack``; the generic alert when that checkpoint cannot be read, or when an ACTIVE/PAUSED
  workflow has no checkpoint at all (the PreCompact hook did not write one). The alert says how
  full the context is after the compaction (the transcript's ``compact_boundary`` records it, when
  the client has written it already) and that earlier ``<context-monitor>`` readings are
  superseded: after a reactive compaction the client retries the same prompt with the monitor
  reading taken before it. The monitor state is reset to that figure.
- ``startup``, ``resume``, ``fork``: Template 1, the resumption prompt, when a workflow is ACTIVE or
  PAUSED; preceded by the compaction alert when a checkpoint still waits to be acknowledged.
- ``clear``: nothing (the user asked for a clean slate).

Each session gets one alert per compaction and the resumption prompt once between compactions,
whatever the sequence of sources (``claude -p --continue`` right after a compaction runs
``compact`` then ``resume``): what a session received is recorded per session
(``ctxres.hooks.deliveries``). On ``resume`` and ``fork`` the client sends ``context_tokens``;
that figure replaces the monitor's reading (not right after a compaction, when it may predate it).

The injected text is redacted (no credential copied from the workflow file reaches the model).
"""

from __future__ import annotations

import os

from ctxres import prompt_data
from ctxres.defaults import WORKFLOW_ENV
from ctxres.hooks.context import (
    HookContext,
    HookError,
    UnreadableWorkflowError,
    additional_context,
    find_workflow,
    warn,
)
from ctxres.prompt_data import template1_input as template1_input  # re-exported: the view Template 1 reads
from ctxres.state import live, orchestration

# A hook loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

    from ctxres.state.live import WorkflowChoice
    from ctxres.transcript import FillReading

EVENT = "SessionStart"
OLD_STATE_DAYS = 3
"""A workflow whose state was last updated longer ago than this gets a few lines, not the full prompt."""
PLAN_FILE = prompt_data.PLAN_FILE
SOURCES = ("startup", "resume", "fork", "compact", "clear")  # what Claude Code sends as `source`


def plan_reference(ctx: HookContext, workflow_path: str) -> str:
    """``ORCHESTRATION_PLAN.md`` beside the workflow file (relative to the project), or "" if there is none."""
    return prompt_data.plan_reference(workflow_path, ctx.project_dir)


def project_name(ctx: HookContext, data: dict[str, Any], workflow_path: str) -> str:
    """``workflow.project_id``, else the name of the folder that holds the workflow file."""
    return prompt_data.project_name(data, workflow_path, ctx.project_dir)


def safe_view(ctx: HookContext, view: dict[str, Any]) -> dict[str, Any]:
    """``view`` without the ``files_to_read`` entries outside the project (said on stderr)."""
    view, left_out = prompt_data.files_inside(view, ctx.project_dir)
    if left_out:
        warn(prompt_data.left_out_note(left_out), EVENT)
    return view


def resumption_prompt(ctx: HookContext, workflow_path: str, data: dict[str, Any]) -> str:
    from ctxres.prompts import render_template1
    from ctxres.redact import redact_value

    return render_template1(
        redact_value(safe_view(ctx, template1_input(data))),
        plan_path=plan_reference(ctx, workflow_path),
        project_id=project_name(ctx, data, workflow_path),
    )


def active_workflow(ctx: HookContext) -> WorkflowChoice | None:
    """The live (ACTIVE or PAUSED) workflow, chosen as every command chooses it, with the other live
    workflows (to say which one was chosen and why); None when there is none (or the file that
    ``$CTXRES_ORCHESTRATION`` names cannot be read, which is said on stderr).
    :class:`UnreadableWorkflowError` when the live workflow cannot be read (the session is told)."""
    try:
        found = find_workflow(ctx)
    except UnreadableWorkflowError:
        raise
    except HookError as exc:
        warn(str(exc), EVENT)
        return None
    if found is None or not isinstance(found.data, dict) or not orchestration.is_live(found.data):
        return None
    return found


def choice_note(found: WorkflowChoice) -> str:
    """One line naming the workflow chosen and why, when there was a choice to make (several live
    workflows) or a setting pinned it: ``Workflow: using docs/ORCHESTRATION.yaml: the most recently
    updated of 2 ...`` (the sentence ``ctxres ack``, ``prompt`` and ``doctor`` print); "" otherwise."""
    return f"Workflow: {found.note()}." if found.others or found.pinned else ""


def _several_workflows_possible(ctx: HookContext) -> bool:
    """Whether more than one file could be a live workflow (a walk, no file parsed): only then is the
    choice worth a note beside a compaction alert, which does not parse the workflow file otherwise."""
    if os.environ.get(WORKFLOW_ENV):
        return False
    if ctx.settings.live_workflow:
        return True  # pinned: the note says so
    files = live.workflow_files(ctx.project_dir, ctx.settings.orchestration_patterns)
    return sum(1 for path in files if ctx.inside(path)) > 1


def unreadable(exc: UnreadableWorkflowError) -> str:
    """What the session is told instead of a resumption prompt when the live workflow cannot be read."""
    return live.unreadable_text(exc.relpath, exc.reason)


def _with_note(text: str, found: WorkflowChoice | None) -> str:
    note = choice_note(found) if found is not None else ""
    return f"{text}\n{note}" if note else text


def _state_dir_refused(ctx: HookContext) -> bool:
    from ctxres.hooks.alerts import checkpoints_folder

    if checkpoints_folder(ctx) is not None:
        return False
    warn(
        f"ignoring the checkpoints under {ctx.state_dir}: it resolves to {os.path.realpath(ctx.state_dir)}, "
        f"outside the project directory {ctx.project_dir}",
        EVENT,
    )
    return True


def newest_pending(ctx: HookContext) -> str | None:
    """The file name of the newest unacknowledged checkpoint (the one an alert is about), if any."""
    from ctxres.hooks.alerts import checkpoints_folder, pending_checkpoints

    if checkpoints_folder(ctx) is None:
        return None
    pending = pending_checkpoints(ctx)
    return os.path.basename(pending[-1]) if pending else None


def fill_after_compaction(ctx: HookContext) -> FillReading:
    """How full the context is right after the compaction: the newest ``compact_boundary``'s
    ``postTokens``; unknown when the client has not written the boundary yet (the hooks may run
    first) or it records no count. The payload's ``model`` (a ``[1m]`` id) selects the window."""
    from ctxres.transcript import read_fill

    transcript = ctx.payload.get("transcript_path")
    model = ctx.payload.get("model")
    return read_fill(
        transcript if isinstance(transcript, str) else None,
        model=model if isinstance(model, str) else None,
        compacted=True,
    )


def fill_lines(reading: FillReading) -> list[str]:
    """What the alert says about the context after the compaction."""
    if reading.fill is not None and reading.tokens is not None:
        from ctxres.tiers import usable_window

        now_line = (
            f"CONTEXT NOW: {reading.fill * 100:.0f}% used after the compaction "
            f"({reading.tokens:,} of {usable_window(reading.window):,} usable tokens)."
        )
    else:
        now_line = "CONTEXT NOW: not measured yet after the compaction (the next reply tells)."
    return [now_line, "Context-monitor readings from before the compaction are superseded."]


def after_compaction(ctx: HookContext, after_fill: list[str] | None = None) -> str | None:
    """The compaction alert; the generic one when an active workflow has no checkpoint to point at.
    ``after_fill``: what the alert says about the context after the compaction."""
    from ctxres.hooks.alerts import compaction_alert, with_lines

    refused = _state_dir_refused(ctx)
    alert = None if refused else compaction_alert(ctx, after_fill)
    try:
        if alert is not None:
            return _with_note(alert, active_workflow(ctx) if _several_workflows_possible(ctx) else None)
        found = active_workflow(ctx)
    except UnreadableWorkflowError as exc:
        return "\n".join(text for text in (alert, unreadable(exc)) if text)
    if found is None:
        return None  # no workflow: the compaction concerns no state of ours
    from ctxres.prompts import render_generic_alert
    from ctxres.state.checkpoint_names import CHECKPOINTS_FOLDER

    folder = os.path.join(ctx.settings.state_dir, CHECKPOINTS_FOLDER)
    reason = f"there is no unacknowledged checkpoint in {folder}/; the PreCompact hook did not write one"
    if refused:
        reason = f"{ctx.settings.state_dir}/ leads outside the project, so its checkpoints were not read"
    return _with_note(
        with_lines(render_generic_alert(orchestration_path=found.relpath, reason=reason), after_fill or []), found
    )


def session_opening(ctx: HookContext, record: dict[str, Any]) -> str | None:
    """Template 1 for the active workflow, preceded by the compaction alert when a checkpoint waits;
    without what this session already received since its last compaction (``record``, updated). When the
    live workflow cannot be read, the session is told so (every time: nothing is resumed in its place)."""
    try:
        found = active_workflow(ctx)
    except UnreadableWorkflowError as exc:
        return unreadable(exc)
    if found is None:
        return None
    from ctxres.hooks.alerts import compaction_alert

    alert = None
    if not _state_dir_refused(ctx):
        newest = newest_pending(ctx)
        if newest is not None and newest != record.get("alerted_checkpoint"):
            from ctxres.hooks.monitor import workflow_facts

            facts = workflow_facts(found.data) or {}
            # A session this hook never saw compacted (a new one) did not lose anything: another session did.
            own = bool(record.get("compactions"))
            alert = compaction_alert(ctx, own=own, v1_section=facts.get("version") == "1.0")
            record["alerted_checkpoint"] = newest
    prompt = None
    if record.get("prompt_delivered") is not True:
        prompt = _with_note(_aged_prompt(ctx, found), found)
        record["prompt_delivered"] = True
    return "\n".join(text for text in (alert, prompt) if text) or None


def _aged_prompt(ctx: HookContext, found: WorkflowChoice) -> str:
    """Template 1 and a line saying how old the state is; when it is older than :data:`OLD_STATE_DAYS`,
    a few lines instead (the workflow, its age, how to see the full prompt): a new session is not told to
    resume, in full, a workflow nobody touched for weeks."""
    from ctxres.hooks.context import now
    from ctxres.state.workflow_times import content_time, shown
    from ctxres.timestamps import format_duration, parse_datetime

    updated = found.updated or content_time(found.data)
    moment = parse_datetime(shown(updated)) if updated else None
    if moment is None or updated is None:
        return f"{resumption_prompt(ctx, found.path, found.data)}STATE AGE: the workflow file records no update time.\n"
    age = now() - moment
    stamp = shown(updated)
    when = f"{stamp} ({format_duration(age)} ago)" if age.total_seconds() >= 0 else stamp
    if age.days < OLD_STATE_DAYS:
        return f"{resumption_prompt(ctx, found.path, found.data)}STATE AGE: last updated {when}.\n"
    name = project_name(ctx, found.data, found.path)
    return (
        f"A workflow is still marked {found.status}: {found.relpath} ({name}), its state last updated {when}.\n"
        "State this old may no longer match the work: resume it only if that is the task at hand. "
        "`ctxres prompt` prints its full resumption prompt.\n"
    )


def _compacted(ctx: HookContext, record: dict[str, Any]) -> str | None:
    """SessionStart ``compact``: the alert with the fill after the compaction; the monitor reset."""
    from ctxres.hooks.monitor import replace_reading

    reading = fill_after_compaction(ctx)
    replace_reading(ctx, reading if reading.fill is not None else None)
    text = after_compaction(ctx, fill_lines(reading))
    count = record.get("compactions")
    record.update(
        compactions=(count if isinstance(count, int) and not isinstance(count, bool) else 0) + 1,
        alerted_checkpoint=newest_pending(ctx) if text else None,
        prompt_delivered=False,
    )
    return text or None


def _resumed(ctx: HookContext, record: dict[str, Any]) -> None:
    """``resume``/``fork``: the client's ``context_tokens`` replace the monitor's reading, unless the
    session was compacted since its last reply (the figure may predate the compaction)."""
    if record.get("last_source") == "compact":
        return
    from ctxres.transcript import payload_fill

    reading = payload_fill(ctx.payload)
    if reading is not None:
        from ctxres.hooks.monitor import replace_reading

        replace_reading(ctx, reading)


def handle(ctx: HookContext) -> dict[str, Any]:
    if not ctx.payload:
        return {}  # stdin was unreadable: the dispatcher said so; no guessing what started the session
    source = ctx.payload.get("source")
    if source not in SOURCES:
        raise HookError(f"unknown source {source!r}; expected one of {', '.join(SOURCES)}")
    if source == "clear":
        return {}
    from ctxres.hooks import deliveries

    record = deliveries.load(ctx)
    before = deliveries.dumps(record)
    if source == "compact":
        text = _compacted(ctx, record)
    else:
        if source in ("resume", "fork"):
            _resumed(ctx, record)
        text = session_opening(ctx, record)
    record["last_source"] = source
    # Only a session that received something keeps a record: a project without a workflow gets no file.
    if (text or before != deliveries.dumps({})) and deliveries.dumps(record) != before:
        problem = deliveries.save(ctx, record)
        if problem:
            warn(problem, EVENT)
    if not text:
        return {}
    from ctxres.redact import redact

    return additional_context(EVENT, redact(text))
