"""The data the re-orientation prompts are rendered from (``ctxres.prompts`` renders it).

Shared by the hooks (SessionStart, UserPromptSubmit, PreCompact) and ``ctxres prompt``: whether a
checkpoint file waits for ``ctxres ack`` (read by ``ctxres.state.checkpoint_text``); the ORCHESTRATION
file a checkpoint names; the workflow data as Template 1 reads it (any version of the resumption section), without the
``files_to_read`` entries outside the project; the plan file and the project name the prompt shows.
Callers redact what they inject.

Standard library only, no pathlib/typing at run time: UserPromptSubmit imports this on its alert path.
"""

from __future__ import annotations

import os

from ctxres.filereading import within
from ctxres.state.checkpoint_names import CHECKPOINTS_FOLDER, list_checkpoints
from ctxres.state.checkpoint_text import CheckpointUnreadable, load_checkpoint

# A hook loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

PLAN_FILE = "ORCHESTRATION_PLAN.md"


# --- checkpoints ----------------------------------------------------------------------------------


def checkpoints_folder(state_dir: str, project_dir: str) -> str | None:
    """``<state_dir>/checkpoints`` when it stays inside the project; None when it does not (a symlink
    out of the project is never followed)."""
    folder = os.path.join(state_dir, CHECKPOINTS_FOLDER)
    return folder if inside(state_dir, project_dir) and inside(folder, project_dir) else None


def is_pending(data: dict[str, Any]) -> bool:
    """Whether parsed checkpoint data waits for ``ctxres ack`` (pure): seed layout and not acknowledged."""
    if "checkpoint_id" in data and "event_id" not in data:  # the other tool's layout: nothing to acknowledge
        return False
    metadata = data.get("metadata")
    return not (isinstance(metadata, dict) and metadata.get("acknowledged") is True)


def pending_checkpoints(folder: str | None) -> list[str]:
    """Paths of the unacknowledged checkpoint files (seed layout) in ``folder``, oldest first; empty
    when ``folder`` is None. A file that cannot be read counts as pending; files in the other tool's
    layout never do."""
    pending = []
    for path in [] if folder is None else list_checkpoints(folder):
        try:
            data = load_checkpoint(path)
        except CheckpointUnreadable:
            pending.append(path)
            continue
        if is_pending(data):
            pending.append(path)
    return pending


def orchestration_reference(data: dict[str, Any] | None) -> str | None:
    """The ORCHESTRATION file a checkpoint tells the session to read (its ``files_to_read``), if any."""
    recovery = data.get("recovery_instructions") if isinstance(data, dict) else None
    files = recovery.get("files_to_read") if isinstance(recovery, dict) else None
    for entry in files if isinstance(files, list) else []:
        path = entry.get("path") if isinstance(entry, dict) else entry
        if isinstance(path, str) and "ORCHESTRATION" in os.path.basename(path) and path.endswith((".yaml", ".yml")):
            return path
    return None


# --- the workflow data of Template 1 ------------------------------------------------------------


def recovery_fields(section: dict[str, Any]) -> dict[str, Any]:
    """The recovery-state fields: ``recovery_state`` of a v2.0 section; the section's own top-level
    fields otherwise (v1.0, or the flat v2.0 spelling), ``current_state`` standing in for
    ``current_activity``."""
    state = section.get("recovery_state")
    if isinstance(state, dict):
        return state
    fields = dict(section)
    if "current_activity" not in fields and "current_state" in fields:
        fields["current_activity"] = fields["current_state"]
    return fields


def template1_input(data: dict[str, Any]) -> dict[str, Any]:
    """The workflow data as Template 1 reads it (pure): a v2.0 section as it is; a v1.0 section (or the
    flat spelling) with its top-level fields seen as ``recovery_state``, and ``workflow.status`` as the
    workflow status when the section has none."""
    from ctxres.state.orchestration import workflow_status_of

    section = data.get("resumption")
    section = dict(section) if isinstance(section, dict) else {}
    state = dict(recovery_fields(section))
    if not state.get("workflow_status"):
        state["workflow_status"] = workflow_status_of(data)
    section["recovery_state"] = state
    view = dict(data)
    view["resumption"] = section
    return view


def inside(path: str, project_dir: str) -> bool:
    """Whether ``path`` (symlinks followed) stays inside ``project_dir`` (a real path)."""
    return within(os.path.realpath(path), project_dir)


def outside_entry(entry: Any, project_dir: str) -> bool:
    """Whether a ``files_to_read`` entry names a file outside the project (home-relative, a drive, a
    NUL, or a path that ``..`` or a symbolic link takes out of it): the prompt never sends the model
    there (``ctxres check`` reports such entries as X002)."""
    path = entry.get("path") if isinstance(entry, dict) else entry
    if not isinstance(path, str):
        return False
    path = path.strip().replace("\\", "/")
    if not path or path.startswith("~") or "\x00" in path or (len(path) > 1 and path[1] == ":"):
        return bool(path)
    return not inside(os.path.join(project_dir, path), project_dir)


def files_inside(view: dict[str, Any], project_dir: str) -> tuple[dict[str, Any], int]:
    """(``view`` without the ``files_to_read`` entries outside the project, how many were left out)."""
    section = view.get("resumption")
    files = section.get("files_to_read") if isinstance(section, dict) else None
    if not isinstance(files, list) or not isinstance(section, dict):
        return view, 0
    kept = [entry for entry in files if not outside_entry(entry, project_dir)]
    if len(kept) < len(files):
        view["resumption"] = {**section, "files_to_read": kept}
    return view, len(files) - len(kept)


def left_out_note(count: int) -> str:
    """The stderr line when :func:`files_inside` left entries out."""
    return f"left {count} files_to_read entries outside the project out of the prompt"


def plan_reference(workflow_path: str, project_dir: str) -> str:
    """``ORCHESTRATION_PLAN.md`` beside the workflow file (relative to the project), or "" if there is none."""
    plan = os.path.join(os.path.dirname(workflow_path), PLAN_FILE)
    if not (os.path.isfile(plan) and inside(plan, project_dir)):
        return ""
    return os.path.relpath(os.path.realpath(plan), project_dir).replace(os.sep, "/")


def project_name(data: dict[str, Any], workflow_path: str, project_dir: str) -> str:
    """``workflow.project_id``, else the name of the folder that holds the workflow file."""
    workflow = data.get("workflow")
    named = workflow.get("project_id") if isinstance(workflow, dict) else None
    if isinstance(named, str) and named.strip():
        return named.strip()
    folder = os.path.dirname(os.path.realpath(workflow_path))
    return os.path.basename(folder if folder != project_dir else project_dir)
