"""SessionStart: re-orient the model when a session starts on an interrupted workflow.

- ``compact`` (right after a compaction): Template 2, the ``<compaction-alert>``, for the newest
  unacknowledged checkpoint ("COMPACTION EVENT: N of M" when several wait), pointing at
  ``ctxres ack``; the generic alert when that checkpoint cannot be read, or when an ACTIVE/PAUSED
  workflow has no checkpoint at all (the PreCompact hook did not write one).
- ``startup``, ``resume``, ``fork``: Template 1, the resumption prompt, when a workflow is ACTIVE or
  PAUSED; preceded by the compaction alert when a checkpoint still waits to be acknowledged.
- ``clear``: nothing (the user asked for a clean slate).

The injected text is redacted (no credential copied from the workflow file reaches the model).
"""

from __future__ import annotations

import os

from ctxres import orchestration, prompt_data
from ctxres.hooks.context import HookContext, HookError, additional_context, find_workflow, warn
from ctxres.prompt_data import template1_input as template1_input  # re-exported: the view Template 1 reads

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover - typing is not imported at run time (start-up cost)
    from typing import Any

    from ctxres.orchestration import WorkflowChoice

EVENT = "SessionStart"
PLAN_FILE = prompt_data.PLAN_FILE
SOURCES = ("startup", "resume", "fork", "compact", "clear")  # what Claude Code sends as `source`


def _warn(message: str) -> None:
    warn(f"{EVENT}: {message}")


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
        _warn(prompt_data.left_out_note(left_out))
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
    ``$CTXRES_ORCHESTRATION`` names cannot be read, which is said on stderr)."""
    try:
        found = find_workflow(ctx, exhaustive=True)
    except HookError as exc:
        _warn(str(exc))
        return None
    if found is None or not isinstance(found.data, dict) or not orchestration.is_live(found.data):
        return None
    return found


def choice_note(found: WorkflowChoice) -> str:
    """One line naming the workflow chosen and why, when there was a choice to make (several live
    workflows): ``Workflow: using docs/ORCHESTRATION.yaml: the most recently modified of 2 ...``
    (the sentence ``ctxres ack``, ``prompt`` and ``doctor`` print); "" otherwise."""
    return f"Workflow: {found.note()}." if found.others else ""


def _several_workflows_possible(ctx: HookContext) -> bool:
    """Whether more than one file could be a live workflow (a walk, no file parsed): only then is the
    choice worth a note beside a compaction alert, which does not parse the workflow file otherwise."""
    if os.environ.get(orchestration.WORKFLOW_ENV):
        return False
    files = orchestration.workflow_files(ctx.project_dir, ctx.settings.orchestration_patterns)
    return sum(1 for path in files if ctx.inside(path)) > 1


def _with_note(text: str, found: WorkflowChoice | None) -> str:
    note = choice_note(found) if found is not None else ""
    return f"{text}\n{note}" if note else text


def _state_dir_refused(ctx: HookContext) -> bool:
    from ctxres.hooks.alerts import checkpoints_folder

    if checkpoints_folder(ctx) is not None:
        return False
    _warn(
        f"ignoring the checkpoints under {ctx.state_dir}: it resolves to {os.path.realpath(ctx.state_dir)}, "
        f"outside the project directory {ctx.project_dir}"
    )
    return True


def after_compaction(ctx: HookContext) -> str | None:
    """The compaction alert; the generic one when an active workflow has no checkpoint to point at."""
    from ctxres.hooks.alerts import compaction_alert

    refused = _state_dir_refused(ctx)
    alert = None if refused else compaction_alert(ctx)
    if alert is not None:
        return _with_note(alert, active_workflow(ctx) if _several_workflows_possible(ctx) else None)
    found = active_workflow(ctx)
    if found is None:
        return None  # no workflow: the compaction concerns no state of ours
    from ctxres.checkpoint_names import CHECKPOINTS_FOLDER
    from ctxres.prompts import render_generic_alert

    folder = os.path.join(ctx.settings.state_dir, CHECKPOINTS_FOLDER)
    reason = f"there is no unacknowledged checkpoint in {folder}/; the PreCompact hook did not write one"
    if refused:
        reason = f"{ctx.settings.state_dir}/ leads outside the project, so its checkpoints were not read"
    return _with_note(render_generic_alert(orchestration_path=found.relpath, reason=reason), found)


def session_opening(ctx: HookContext) -> str | None:
    """Template 1 for the active workflow, preceded by the compaction alert when a checkpoint waits."""
    found = active_workflow(ctx)
    if found is None:
        return None
    from ctxres.hooks.alerts import compaction_alert

    alert = None if _state_dir_refused(ctx) else compaction_alert(ctx)
    prompt = _with_note(resumption_prompt(ctx, found.path, found.data), found)
    return f"{alert}\n{prompt}" if alert else prompt


def handle(ctx: HookContext) -> dict[str, Any]:
    if not ctx.payload:
        return {}  # stdin was unreadable: the dispatcher said so; no guessing what started the session
    source = ctx.payload.get("source")
    if source not in SOURCES:
        raise HookError(f"unknown source {source!r}; expected one of {', '.join(SOURCES)}")
    if source == "clear":
        return {}
    text = after_compaction(ctx) if source == "compact" else session_opening(ctx)
    if not text:
        return {}
    from ctxres.redact import redact

    return additional_context(EVENT, redact(text))
