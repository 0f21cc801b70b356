"""The ``<compaction-alert>`` for the newest checkpoint that has not been acknowledged yet.

SessionStart (source ``compact``) injects it right after a compaction; UserPromptSubmit re-sends it
when the transcript shows the first one never arrived. A checkpoint is *pending* until
``ctxres ack`` merges it into the resumption section and sets its ``metadata.acknowledged`` to
true. Files in the other tool's layout (``checkpoint_id``, no acknowledgement flag) are never
pending, as for ``ctxres ack``; a file that cannot be read is pending (the generic alert names the
reason), so a broken checkpoint is never silently forgotten.

Standard library only, no pathlib/typing at run time: UserPromptSubmit calls this on every prompt.
"""

from __future__ import annotations

import json
import os

from ctxres.checkpoint_names import CHECKPOINTS_FOLDER, list_checkpoints
from ctxres.hooks.context import HookContext, HookError, find_workflow

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover - typing is not imported at run time (start-up cost)
    from typing import Any

ALERT_MARKER = "<compaction-alert>"
MAX_CHECKPOINT_BYTES = 1024 * 1024  # a checkpoint is a few KB; a bigger file is reported, not read


def checkpoints_folder(ctx: HookContext) -> str | None:
    """``<state_dir>/checkpoints`` when it stays inside the project; None when it does not (a symlink
    out of the project is never followed)."""
    folder = os.path.join(ctx.state_dir, CHECKPOINTS_FOLDER)
    return folder if ctx.inside(ctx.state_dir) and ctx.inside(folder) else None


def checkpoint_files(ctx: HookContext) -> list[str]:
    """Every checkpoint file of the project, by number (then name); empty when there is none."""
    folder = checkpoints_folder(ctx)
    return [] if folder is None else list_checkpoints(folder)


def load_checkpoint(path: str) -> dict[str, Any]:
    """A checkpoint file's JSON object; :class:`HookError` (the reason, one line) when it cannot be read.
    A symbolic link is refused (the hook never writes one; it may lead out of the project)."""
    if os.path.islink(path):
        raise HookError("is a symbolic link, not read: a checkpoint is only read from a regular file")
    try:
        with open(os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)), "rb") as handle:
            raw = handle.read(MAX_CHECKPOINT_BYTES + 1)
    except OSError as exc:
        raise HookError(f"cannot be read ({exc.strerror or exc})") from None
    if len(raw) > MAX_CHECKPOINT_BYTES:
        raise HookError(f"is larger than {MAX_CHECKPOINT_BYTES:,} bytes")
    if not raw.strip():
        raise HookError("is empty")
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise HookError("is not UTF-8 text") from None
    except ValueError as exc:
        raise HookError(f"is not valid JSON ({exc})") from None
    except RecursionError:  # hostile input: thousands of nested arrays or objects
        raise HookError("is nested too deeply to read") from None
    if not isinstance(data, dict):
        raise HookError("is not a JSON object")
    return data


def is_pending(data: dict[str, Any]) -> bool:
    """Whether parsed checkpoint data waits for ``ctxres ack`` (pure): seed layout and not acknowledged."""
    if "checkpoint_id" in data and "event_id" not in data:  # the other tool's layout: nothing to acknowledge
        return False
    metadata = data.get("metadata")
    return not (isinstance(metadata, dict) and metadata.get("acknowledged") is True)


def pending_checkpoints(ctx: HookContext) -> list[str]:
    """Paths of the unacknowledged checkpoint files (seed layout), oldest first. A file that cannot be
    read counts as pending; files in the other tool's layout never do."""
    pending = []
    for path in checkpoint_files(ctx):
        try:
            data = load_checkpoint(path)
        except HookError:
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


def _existing(ctx: HookContext, reference: str | None) -> str | None:
    """``reference`` when it names a file inside the project (the section may name another checkout's)."""
    if reference is None:
        return None
    try:
        return reference if os.path.isfile(ctx.safe(reference)) else None
    except (HookError, ValueError):
        return None


def _workflow_reference(ctx: HookContext) -> str:
    """The active workflow file relative to the project, or "" when there is none."""
    try:
        found = find_workflow(ctx)
    except HookError:
        return ""
    return found.relpath if found else ""


def compaction_alert(ctx: HookContext) -> str | None:
    """Template 2 for the newest unacknowledged checkpoint ("COMPACTION EVENT: N of M" when several),
    the generic alert when that checkpoint is corrupt, None when nothing is pending. Credentials in
    the checkpoint are redacted."""
    pending = pending_checkpoints(ctx)
    if not pending:
        return None
    from ctxres.hooks.templates import render_generic_alert, render_template2
    from ctxres.redact import redact, redact_value

    newest = pending[-1]
    shown = os.path.relpath(newest, ctx.project_dir).replace(os.sep, "/")  # a symlink's target is not shown
    try:
        data = load_checkpoint(newest)
    except HookError as exc:
        return redact(render_generic_alert(orchestration_path=_workflow_reference(ctx), reason=f"{shown} {exc}"))
    text = render_template2(
        redact_value(data),
        checkpoint_path=shown,
        orchestration_path=_existing(ctx, orchestration_reference(data))
        or _workflow_reference(ctx)
        or "ORCHESTRATION.yaml",
        event_number=len(pending),
        event_total=len(pending),
    )
    return redact(text)  # credentials never reach the model, whoever wrote the checkpoint
