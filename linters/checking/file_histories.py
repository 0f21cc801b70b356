"""The history of every file of a repository from one walk of its commits (``git log --raw -M``, oldest
first): each file's changes under the name it has at the end, renames followed across the whole history.

What ``git log --follow FILE`` gives one file, given to all at once (pure: the commits are read by
:func:`ctxres.git.log`). A rename carries the file's past to its new name; a file deleted and added
again under the same name keeps one history, as ``--follow`` sees it; a deleted file keeps its last
name. Where ``--follow`` and this walk differ: a name used again after its file was renamed away
starts a new history here, while ``git log --follow NAME`` also lists the changes of the earlier file
(they belong to the file it became); and ``--follow`` may take a new file for a copy of a similar one
and list that one's past as its own, where the walk (renames only, ``-M``) starts a new history.
Merge commits are left out, as ``--follow`` leaves them out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ctxres import git

if TYPE_CHECKING:
    from collections.abc import Callable

# Within one commit, the renames and deletions are applied before the additions: a file renamed away
# and a new file added under its old name in the same commit are two files.
_ORDER = {"R": 0, "D": 1}


@dataclass(slots=True)
class FileHistory:
    """One file through the walk: its last name, and its changes to compare with the version before
    (neither its additions nor its deletions), oldest first."""

    path: str
    changes: list[tuple[git.Commit, git.Change]] = field(default_factory=list)


def file_histories(commits: list[git.Commit], wanted: Callable[[str], bool]) -> list[FileHistory]:
    """The history of each file of ``commits`` (oldest first) whose last name is ``wanted``, by path. Files
    that end with the same name (one renamed onto the name of a deleted one) are one history."""
    under: dict[str, FileHistory] = {}  # the file each name stands for now (a deleted file keeps its name)
    every: list[FileHistory] = []
    for commit in commits:
        for change in sorted(commit.changes, key=lambda change: _ORDER.get(change.status, 2)):
            if change.status == "R":
                history = under.pop(change.old_path, None) or _new(every, change.path)
            else:
                history = under.get(change.path) or _new(every, change.path)
            history.path = change.path
            under[change.path] = history
            if commit.parents and not change.added and not change.deleted:
                history.changes.append((commit, change))
    position = {commit.sha: index for index, commit in enumerate(commits)}
    return _by_name([history for history in every if wanted(history.path)], position)


def _new(every: list[FileHistory], path: str) -> FileHistory:
    history = FileHistory(path)
    every.append(history)
    return history


def _by_name(histories: list[FileHistory], position: dict[str, int]) -> list[FileHistory]:
    """The histories sorted by name, those of the same name made one (their changes in the order of the walk)."""
    merged: dict[str, FileHistory] = {}
    for history in histories:
        known = merged.get(history.path)
        if known is None:
            merged[history.path] = history
        else:
            known.changes = sorted(known.changes + history.changes, key=lambda pair: position[pair[0].sha])
    return [merged[path] for path in sorted(merged)]
