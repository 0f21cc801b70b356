"""PostToolUse: did a write to a workflow file move its state and leave the resumption section behind?

docs/formats.md, "From a previous phase": a section written before the state it describes moved is STALE at
once, whatever its age. The written file's data is compared, through the workflow model
(``ctxres.state.statediff.moved_state`` and ``resumption_moved``), with its *baseline*: the last state the
hooks saw of that file, kept in ``<state_dir>/orchestration-snapshot.json``
(``{"version": 1, "files": {"<path relative to the project>": {"state": <data>}}}``, the data
redacted and in JSON types, at most :data:`MAX_SNAPSHOT_FILES` files, written atomically), or,
for a file the hooks have not seen yet, the file at git ``HEAD`` (``git show``, with a short
timeout; no git, not a repository, or a file git does not track: no comparison).

When the state moved and the section did not, the moves are returned and the baseline stays where
it was, so every later write warns until the section catches up. Otherwise the written state
becomes the baseline.

Imported only after a write to a workflow file (the Bash calls and other files never compile it);
``ctxres.state.statediff`` only when the data differs from the baseline.
"""

from __future__ import annotations

import os

from ctxres.hooks import context

# A hook loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

    from ctxres.hooks.context import HookContext

SNAPSHOT_FILE = "orchestration-snapshot.json"
"""The last state the hooks saw of each workflow file, in the state directory."""
SNAPSHOT_VERSION = 1
MAX_SNAPSHOT_FILES = 8
"""Workflow files remembered at most (the least recently written are forgotten first)."""
MAX_SNAPSHOT_BYTES = 8 * 1024 * 1024
GIT_TIMEOUT_SECONDS = 3.0
MAX_MOVES_SHOWN = 5


def comparable(data: Any) -> Any:
    """``data`` as the snapshot stores it (secrets redacted, JSON types: a YAML time is its text, an
    integer key a string), so that the written file and its baseline are compared alike; None when
    it cannot be stored (a key JSON cannot hold, nesting too deep)."""
    import json

    from ctxres.redact import redact_value

    try:
        return json.loads(json.dumps(redact_value(data), default=str, ensure_ascii=False))
    except (TypeError, ValueError, RecursionError):
        return None


def git_head_version(ctx: HookContext, rel: str) -> Any:
    """The file at git ``HEAD`` (parsed), or None: no git, not a repository, a file git does not
    track, a slow git (timeout), or a version that cannot be read."""
    import subprocess

    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"}
    try:
        done = subprocess.run(
            ["git", "--no-pager", "show", "--no-textconv", f"HEAD:./{rel}"],
            cwd=ctx.project_dir,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            timeout=GIT_TIMEOUT_SECONDS,
            check=False,
        )
    except (OSError, ValueError, subprocess.SubprocessError):
        return None
    if done.returncode != 0 or len(done.stdout) > context.MAX_STATE_FILE_BYTES:
        return None
    import yaml

    from ctxres.formats.yamlguard import load

    try:
        return load(done.stdout)
    except (yaml.YAMLError, ValueError, RecursionError):
        return None


def _load_snapshot(folder: str | None) -> dict[str, Any]:
    """The snapshot's files (relative path -> ``{"state": ...}``); empty when missing or damaged."""
    from ctxres.hooks import monitor

    loaded = monitor.load_json(os.path.join(folder, SNAPSHOT_FILE), MAX_SNAPSHOT_BYTES) if folder else None
    files = loaded.get("files") if loaded and loaded.get("version") == SNAPSHOT_VERSION else None
    return files if isinstance(files, dict) else {}


def _save_snapshot(
    ctx: HookContext, folder: str, files: dict[str, Any], rel: str, state: Any, problems: list[str]
) -> None:
    """Make ``state`` the baseline of ``rel`` (the most recent entry; the oldest beyond the limit are
    forgotten). A failure is one stderr line: the next write compares with git HEAD again."""
    from ctxres.hooks import monitor

    files.pop(rel, None)
    files[rel] = {"state": state}
    while len(files) > MAX_SNAPSHOT_FILES:
        files.pop(next(iter(files)))
    try:
        monitor.save_json(folder, SNAPSHOT_FILE, {"version": SNAPSHOT_VERSION, "files": files})
    except OSError as exc:
        where = os.path.join(ctx.settings.state_dir, SNAPSHOT_FILE)
        from ctxres.atomic import write_problem

        what, todo = write_problem(exc, "the state directory")
        problems.append(f"cannot write {where}: {what}; the next write is compared with git HEAD; {todo}")


def state_moves(
    ctx: HookContext, rel: str, data: Any, folder: str | None, problems: list[str]
) -> tuple[list[str], str] | None:
    """(the moves, what they were compared with) when the written file's state moved and its
    resumption section did not; None otherwise, after making the written state the baseline (in
    ``folder``, the state directory; None: refused, nothing is remembered)."""
    current = comparable(data)
    if current is None:
        return None
    files = _load_snapshot(folder)
    entry = files.get(rel)
    baseline = entry.get("state") if isinstance(entry, dict) else None
    source = "the last state the hooks saw of this file"
    if baseline is None:
        baseline = comparable(git_head_version(ctx, rel))
        source = "the file at git HEAD"
    if baseline is not None and baseline != current:
        from ctxres.state.statediff import moved_state, resumption_moved  # only for a workflow file: not light

        moves = moved_state(baseline, current)
        if moves and not resumption_moved(baseline, current):
            return [move.describe() for move in moves], source  # the baseline stays: keep warning
    if folder is not None and (entry is None or baseline != current):
        _save_snapshot(ctx, folder, files, rel, current, problems)
    return None


def warning_text(
    *,
    path: str,
    level: str,
    moves: list[str],
    compared_with: str,
    version: str,
    updated_at: str | None,
    now: str,
    age: str | None = None,
) -> str:
    """PostToolUse's warning after a write moved the workflow's state and left the resumption
    section behind (docs/formats.md, "From a previous phase": the section is STALE at once)."""
    if version != "2.0":
        section = "its v1.0 resumption section did not change"
    elif updated_at:
        section = f"its recovery_state.updated_at, {updated_at[:40]}, did not advance"
    else:
        section = "it has no recovery_state.updated_at"
    shown = MAX_MOVES_SHOWN
    lines = [
        f"Resumption staleness after this write to {path}: {level}. This write moved the workflow's state, "
        f"but not the resumption section ({section}; compared with {compared_with}):",
        *(f"- {move}" for move in moves[:shown]),
    ]
    if len(moves) > shown:
        lines.append(f"- and {len(moves) - shown} more")
    if age:
        lines.append(f"Its age says so too: {age[:1].lower()}{age[1:]}.")
    if version == "2.0":
        fix = (
            f"Set resumption.recovery_state.updated_at to the current time ({now}) and update, in the same file, "
            "the fields these moves change (current_phase, current_phase_name, current_activity, next_step, "
            "last_checkpoint, quality_trajectory, defect_summary, agent_summaries)."
        )
    else:
        fix = (
            "Update current_state and next_step in the same file to say where the workflow now is "
            f"(`ctxres migrate {path} --write` converts the section to v2.0, which records an update time)."
        )
    lines.append(f"A session resuming from the section would start from the state before these moves. {fix}")
    return "\n".join(lines)
