"""PostToolUse: the written file as it was just before the tool ran, so that only what the write itself
changed is judged; and a stamp of where git has the clone, to tell when git may have moved the file
since the hooks last saw it (``git stash``, a checkout, a merge, a pull).

The client's answer to an Edit or a Write (``tool_response``) carries the whole file before the tool
ran (``originalFile``; a Write that created the file says ``"type": "create"``). Without it, an Edit is
undone from its input when that is certain: the file holds ``new_string`` once, and ``old_string`` is then
once in the result, as the tool required before it ran; a MultiEdit's edits are undone from the last. A
Write without ``originalFile``, or an Edit that cannot be located so, leaves the file before unknown.

Standard library only; imported only after a write to a workflow file.
"""

from __future__ import annotations

import os

# A hook loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

NEW_FILE = ""
"""The text before a Write that created the file (the same as a file with no state)."""


def text_before(payload: dict[str, Any], after: str) -> str | None:
    """The written file's text just before the tool ran (``after``: its text now); :data:`NEW_FILE` when the
    tool created it; None when it cannot be known."""
    response = payload.get("tool_response")
    response = response if isinstance(response, dict) else {}
    original = response.get("originalFile")
    if isinstance(original, str):
        return original
    if response.get("type") == "create":
        return NEW_FILE
    tool_input = payload.get("tool_input")
    tool_input = tool_input if isinstance(tool_input, dict) else {}
    tool = payload.get("tool_name")
    if tool == "Edit":
        return _undo(after, tool_input)
    if tool == "MultiEdit":
        edits = tool_input.get("edits")
        if not isinstance(edits, list) or not edits:
            return None
        text: str | None = after
        for edit in reversed(edits):
            text = _undo(text, edit) if text is not None and isinstance(edit, dict) else None
        return text
    return None


def _undo(after: str, edit: dict[str, Any]) -> str | None:
    """``after`` with one Edit undone, when the Edit can be located without doubt (``new_string`` once in
    ``after``, ``old_string`` once in the result, as the tool required); else None."""
    old, new = edit.get("old_string"), edit.get("new_string")
    if not isinstance(old, str) or not isinstance(new, str) or not old or not new or old == new:
        return None
    if after.count(new) != 1:
        return None
    before = after.replace(new, old, 1)
    return before if before.count(old) == 1 else None


def git_stamp(project_dir: str) -> str | None:
    """What changes whenever git moves the work tree of the clone holding ``project_dir``: the branch ``HEAD``
    names (a checkout) and the sizes of git's logs of ``HEAD`` and of the stashes, which every checkout,
    commit, merge, pull, reset and ``git stash`` (push, pop, drop) writes to; None outside a repository. Read
    from the files, no process; no time or commit in it, so a replay of the same steps stamps alike."""
    git_dir = _git_dir(project_dir)
    if git_dir is None:
        return None
    head = _read_small(os.path.join(git_dir, "HEAD"))
    branch = head.removeprefix("ref:").strip() if head.startswith("ref:") else "(detached)"
    common = _common_dir(git_dir)
    logs = (os.path.join(git_dir, "logs", "HEAD"), os.path.join(common, "logs", "refs", "stash"))
    return " ".join([branch, *(str(_size(path)) for path in logs)])


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return -1


def _read_small(path: str) -> str:
    try:
        with open(path, "rb") as handle:
            return handle.read(512).decode("utf-8", "replace").strip()
    except OSError:
        return ""


def _common_dir(git_dir: str) -> str:
    """The folder shared by every work tree of the repository (``commondir``), where the stashes are."""
    common = _read_small(os.path.join(git_dir, "commondir"))
    return os.path.normpath(os.path.join(git_dir, common)) if common else git_dir


def _git_dir(folder: str) -> str | None:
    """The git folder of the work tree holding ``folder`` (a ``.git`` folder, or the one a ``.git`` file names)."""
    current = os.path.abspath(folder)
    while True:
        dot_git = os.path.join(current, ".git")
        if os.path.isdir(dot_git):
            return dot_git
        if os.path.isfile(dot_git):
            line = _read_small(dot_git)
            if not line.startswith("gitdir:"):
                return None
            return os.path.normpath(os.path.join(current, line.removeprefix("gitdir:").strip()))
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent
