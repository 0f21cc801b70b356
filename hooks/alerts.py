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

import os

from ctxres import prompt_data
from ctxres.hooks.context import HookContext, HookError, find_workflow
from ctxres.prompt_data import orchestration_reference
from ctxres.state import checkpoint_text

# A hook loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

ALERT_MARKER = "<compaction-alert>"


def checkpoints_folder(ctx: HookContext) -> str | None:
    """``<state_dir>/checkpoints`` when it stays inside the project; None when it does not (a symlink
    out of the project is never followed)."""
    return prompt_data.checkpoints_folder(ctx.state_dir, ctx.project_dir)


def load_checkpoint(path: str) -> dict[str, Any]:
    """A checkpoint file's JSON object (``ctxres.state.checkpoint_text.load_checkpoint``); :class:`HookError`
    (the reason, one line) when it cannot be read."""
    try:
        return checkpoint_text.load_checkpoint(path)
    except checkpoint_text.CheckpointUnreadable as exc:
        raise HookError(str(exc)) from None


def pending_checkpoints(ctx: HookContext) -> list[str]:
    """Paths of the unacknowledged checkpoint files (seed layout), oldest first. A file that cannot be
    read counts as pending; files in the other tool's layout never do."""
    return prompt_data.pending_checkpoints(checkpoints_folder(ctx))


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


def with_lines(alert: str, lines: list[str]) -> str:
    """``alert`` with ``lines`` before its closing tag (the generic alert has no fill line to follow)."""
    if not lines:
        return alert
    closing = alert.rfind("</compaction-alert>")
    at = closing if closing >= 0 else len(alert)
    return alert[:at] + "".join(f"{line}\n" for line in lines) + alert[at:]


def compaction_alert(
    ctx: HookContext, after_fill: list[str] | None = None, *, own: bool = True, v1_section: bool = False
) -> str | None:
    """Template 2 for the newest unacknowledged checkpoint ("COMPACTION EVENT: N of M" when several),
    the generic alert when that checkpoint is corrupt, None when nothing is pending. Credentials in
    the checkpoint are redacted. ``after_fill``: lines about the context after the compaction, put
    after the pre-compaction fill (before the closing tag of the generic alert). ``own=False``: the session
    was not compacted itself (a new session): the alert says another session wrote the checkpoint, and when.
    ``v1_section``: the workflow's section is v1.0, so the alert names `ctxres migrate ... --write` before ack."""
    pending = pending_checkpoints(ctx)
    if not pending:
        return None
    from ctxres.prompts import render_generic_alert, render_template2
    from ctxres.redact import redact, redact_value

    newest = pending[-1]
    shown = os.path.relpath(newest, ctx.project_dir).replace(os.sep, "/")  # a symlink's target is not shown
    try:
        data = load_checkpoint(newest)
    except HookError as exc:
        generic = render_generic_alert(
            orchestration_path=_workflow_reference(ctx), reason=f"{shown} {exc}", elsewhere=not own
        )
        return redact(with_lines(generic, after_fill or []))
    text = render_template2(
        redact_value(data),
        checkpoint_path=shown,
        orchestration_path=_existing(ctx, orchestration_reference(data))
        or _workflow_reference(ctx)
        or "ORCHESTRATION.yaml",
        event_number=len(pending),
        event_total=len(pending),
        after_fill=after_fill or (),
        elsewhere=None if own else str(data.get("timestamp") or "an unrecorded time"),
        v1_section=v1_section,
    )
    return redact(text)  # credentials never reach the model, whoever wrote the checkpoint
