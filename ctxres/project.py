"""The project (repository) root that relative paths in state files are relative to, and whether a
path stays inside it (standard library only, no pathlib at run time: the hooks use it)."""

from __future__ import annotations

import os

from ctxres.filereading import within

# `ctxres check` loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from pathlib import Path

MARKERS = (".git", ".claude", ".ctxres.toml", "pyproject.toml")


def has_marker(folder: Path) -> bool:
    """Whether ``folder`` holds one of the project :data:`MARKERS`."""
    return any((folder / marker).exists() for marker in MARKERS)


def project_root(start: Path) -> Path:
    """The nearest folder at or above ``start`` holding a project marker, else ``start``'s folder."""
    here = start.resolve()
    folder = here if here.is_dir() else here.parent
    for candidate in (folder, *folder.parents):
        if has_marker(candidate):
            return candidate
    return folder


def work_tree_top(start: str) -> str | None:
    """The top folder of the git work tree holding ``start`` (a folder, resolved): the nearest folder at or
    above it with a ``.git`` entry (a folder, or the file of a linked work tree or submodule); None outside
    git. No ``git`` process: a command finds its project this way on every start."""
    folder = start
    while True:
        if os.path.exists(os.path.join(folder, ".git")):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def inside(path: str | os.PathLike[str], root: str | os.PathLike[str]) -> bool:
    """Whether ``path`` (resolved, symlinks followed) stays inside ``root``."""
    return within(os.path.realpath(path), os.path.realpath(root))
