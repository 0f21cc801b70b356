"""PostToolUse: did a write to a workflow file move its state and leave the resumption section behind?

docs/formats.md, "From a previous phase": a section written before the state it describes moved is STALE at
once, whatever its age. Only what the write itself changed is judged: a state git moved (``git stash``, a
checkout, a merge) is never blamed on the model. The written file's data is compared, through the workflow
model (``ctxres.state.statediff.moved_state`` and ``resumption_moved``), with

- the file just before the tool ran (``ctxres.hooks.beforewrite``: the client's ``originalFile``, or the Edit
  undone), unless that is the state the hooks last saw of the file: then with the *baseline* they kept, which
  after a warning is the state the moves started from, so that later writes keep warning until the section
  catches up;
- when the file before cannot be known, the baseline while git's stamp (``beforewrite.git_stamp``) is the
  one recorded with it (git moved nothing since); after a git move, nothing;
- for a file the hooks have not seen yet, the file at git ``HEAD`` (``git show``, with a short timeout; no
  git, not a repository, or a file git does not track: no comparison).

What the hooks remember is ``<state_dir>/orchestration-snapshot.json``: ``{"version": 1, "files": {"<path
relative to the project>": {"state": <baseline>, "seen": <the state after the last write, when it is not the
baseline>, "from": "HEAD" (a baseline taken from git HEAD), "git": <git's stamp>}}}``, the data redacted and in
JSON types, at most :data:`MAX_SNAPSHOT_FILES` files, written atomically.

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
    ctx: HookContext, folder: str, files: dict[str, Any], rel: str, entry: dict[str, Any], problems: list[str]
) -> None:
    """Make ``entry`` what the hooks remember of ``rel`` (the most recent entry; the oldest beyond the limit
    are forgotten). A failure is one stderr line: the next write compares with git HEAD again."""
    from ctxres.hooks import monitor

    files.pop(rel, None)
    files[rel] = entry
    while len(files) > MAX_SNAPSHOT_FILES:
        files.pop(next(iter(files)))
    try:
        monitor.save_json(folder, SNAPSHOT_FILE, {"version": SNAPSHOT_VERSION, "files": files})
    except OSError as exc:
        where = os.path.join(ctx.settings.state_dir, SNAPSHOT_FILE)
        from ctxres.atomic import write_problem

        what, todo = write_problem(exc, "the state directory")
        problems.append(f"cannot write {where}: {what}; the next write is compared with git HEAD; {todo}")


UNKNOWN = object()
"""The file before the write cannot be known (a Write without ``originalFile``, an Edit not located)."""
JUST_BEFORE = "the file just before this write"
LAST_SEEN = "the last state the hooks saw of this file"
AT_HEAD = "the file at git HEAD"
HEAD_ENTRY = "HEAD"
"""An entry's ``from`` when its baseline is the file at git HEAD (the warning names it so)."""


def state_before(ctx: HookContext, path: str) -> Any:
    """The written file's state just before the tool ran (``ctxres.hooks.beforewrite``), as the snapshot
    stores it; None when it had none (a new file, one that did not parse); :data:`UNKNOWN`."""
    from ctxres.hooks import beforewrite

    try:
        after = context.read_bytes(path).decode("utf-8", "replace")
    except context.HookError:
        return UNKNOWN
    text = beforewrite.text_before(ctx.payload, after)
    if text is None:
        return UNKNOWN
    if not text.strip():
        return None
    import yaml

    from ctxres.formats.yamlguard import load

    try:
        return comparable(load(text.encode("utf-8")))
    except (yaml.YAMLError, ValueError, RecursionError):
        return None


def _baseline(ctx: HookContext, rel: str, entry: Any, before: Any, stamp: str | None) -> tuple[Any, str]:
    """What the written state is compared with, and how the warning names it (``before``: the state just
    before the write, or :data:`UNKNOWN`; ``stamp``: git's, now). Never a state git may have moved since the
    hooks saw it: only what the write itself changed is judged, and, while the file is as the hooks last
    saw it, the moves a previous write left without the section."""
    remembered = entry.get("state") if isinstance(entry, dict) else None
    if remembered is None:
        if before is UNKNOWN:
            return comparable(git_head_version(ctx, rel)), AT_HEAD
        return before, JUST_BEFORE
    named = AT_HEAD if entry.get("from") == HEAD_ENTRY else LAST_SEEN
    if before is not UNKNOWN:
        if before is not None and entry.get("seen", remembered) == before:
            return remembered, named
        return before, JUST_BEFORE
    if entry.get("git") == stamp:
        return remembered, named
    return None, ""  # git moved the work tree since: what this write changed is not known


def state_moves(
    ctx: HookContext, rel: str, data: Any, folder: str | None, problems: list[str], path: str | None = None
) -> tuple[list[str], str] | None:
    """(the moves, what they were compared with) when the write to ``path`` (``rel`` in the project; its data
    ``data``) moved the workflow's state and not its resumption section; None otherwise. What the hooks
    remember (in ``folder``, the state directory; None: refused, nothing is remembered): the baseline (the
    written state, or, after a warning, the state the moves started from), the state seen last, and git's
    stamp."""
    from ctxres.hooks.beforewrite import git_stamp

    current = comparable(data)
    if current is None:
        return None
    files = _load_snapshot(folder)
    entry = files.get(rel)
    stamp = git_stamp(ctx.project_dir)
    before = state_before(ctx, path or os.path.join(ctx.project_dir, rel))
    baseline, source = _baseline(ctx, rel, entry, before, stamp)
    moves = _unfollowed_moves(baseline, current)
    kept: dict[str, Any] = {"state": baseline if moves else current}
    if moves:  # the baseline stays where the moves started, so later writes keep warning
        kept["seen"] = current
        if source == AT_HEAD:
            kept["from"] = HEAD_ENTRY
    if stamp is not None:
        kept["git"] = stamp
    if folder is not None and kept != entry:
        _save_snapshot(ctx, folder, files, rel, kept, problems)
    return (moves, source) if moves else None


def _unfollowed_moves(baseline: Any, current: Any) -> list[str]:
    """The moves from ``baseline`` to ``current`` when the resumption section did not follow them."""
    if baseline is None or baseline == current:
        return []
    from ctxres.state.statediff import moved_state, resumption_moved  # only for a workflow file: not light

    moves = moved_state(baseline, current)
    if moves and not resumption_moved(baseline, current):
        return [move.describe() for move in moves]
    return []


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
