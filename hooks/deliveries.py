"""What SessionStart already put into a session's context, remembered per session.

Claude Code runs SessionStart more than once per session: ``compact`` after every compaction,
``resume`` on ``claude --continue``/``--resume`` (``claude -p --continue`` right after a compaction
runs ``compact`` and then ``resume`` before its first request), and the text each run injects
stays in the conversation. So that one compaction gives one ``<compaction-alert>`` and a session
gets the resumption prompt once between compactions, SessionStart records, per session, in
``<state_dir>/sessions/<session_id>.json`` (written atomically; one small file per session, so
two sessions never overwrite each other's record):

- ``last_source``: the ``source`` of the last SessionStart run;
- ``compactions``: how many compactions (SessionStart ``compact``) the session has been through;
- ``alerted_checkpoint``: the checkpoint file whose compaction alert the session received last
  (None: the generic alert, or none);
- ``prompt_delivered``: whether the session received the resumption prompt since its last
  compaction (a compaction summarizes it away).

A session's record goes when no SessionStart has touched it for :data:`KEEP_DAYS` days (checked when
a new session writes its first record: one folder scan per session, never per prompt); a session
resumed after that gets the resumption prompt again.

A record that cannot be read is an empty one (everything is sent again: repeating beats
missing); a session without ``session_id`` keeps no record.

Standard library only: ``json``, ``os``; the session files' names are :mod:`ctxres.hooks.monitor`'s.
"""

from __future__ import annotations

import json
import os

from ctxres.hooks.monitor import SESSIONS_FOLDER as FOLDER  # the session files' folder and names: one definition
from ctxres.hooks.monitor import session_file_name as record_name

# A hook loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

    from ctxres.hooks.context import HookContext

MAX_RECORD_BYTES = 64 * 1024
KEEP_DAYS = 30


def record_path(ctx: HookContext) -> str | None:
    """Where this session's record lives; None without a session id or a usable state folder."""
    session = ctx.payload.get("session_id")
    if not isinstance(session, str) or not session:
        return None
    folder = os.path.join(ctx.state_dir, FOLDER)
    if not ctx.inside(folder):
        return None  # the state folder leads out of the project: nothing is written there
    return os.path.join(folder, record_name(session))


def load(ctx: HookContext) -> dict[str, Any]:
    """This session's record (``{}`` when there is none or it cannot be read)."""
    path = record_path(ctx)
    if path is None:
        return {}
    from ctxres.hooks.monitor import load_json

    record = load_json(path, MAX_RECORD_BYTES)
    if record is None or record.get("session_id") != ctx.payload.get("session_id"):
        return {}
    return record


def save(ctx: HookContext, record: dict[str, Any]) -> str | None:
    """Write this session's record atomically; the problem, one line, when it cannot be written."""
    path = record_path(ctx)
    if path is None:
        return None
    from ctxres.hooks.monitor import save_json

    new = not os.path.exists(path)
    try:
        save_json(os.path.dirname(path), os.path.basename(path), {**record, "session_id": ctx.payload["session_id"]})
    except OSError as exc:
        shown = os.path.join(ctx.settings.state_dir, FOLDER)
        from ctxres.atomic import write_problem

        what, todo = write_problem(exc, "the state directory")
        return f"cannot record what this session received in {shown}/: {what}; it may be sent again; {todo}"
    if new:
        from ctxres.hooks.context import now

        prune(os.path.dirname(path), os.path.basename(path), now().timestamp())
    return None


def prune(folder: str, keep: str, now: float) -> None:
    """Remove the records in ``folder`` (but ``keep``) last written more than :data:`KEEP_DAYS` days before
    ``now`` (a POSIX time: the hooks' clock, which a replay freezes). Never follows a link; a record
    that cannot be removed stays."""
    limit = now - KEEP_DAYS * 24 * 3600
    try:
        entries = os.scandir(folder)
    except OSError:
        return
    with entries:
        for entry in entries:
            if entry.name == keep or not entry.name.endswith(".json"):
                continue
            try:
                if entry.is_file(follow_symlinks=False) and entry.stat(follow_symlinks=False).st_mtime < limit:
                    os.unlink(entry.path)
            except OSError:
                continue


def dumps(record: dict[str, Any]) -> str:
    """A comparable form of a record (to skip writing one that did not change)."""
    return json.dumps(record, sort_keys=True)
