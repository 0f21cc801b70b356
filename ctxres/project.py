"""Finding the project (repository) root that relative paths in state files are relative to."""

from __future__ import annotations

from pathlib import Path

MARKERS = (".git", ".claude", ".ctxres.toml", "pyproject.toml")


def project_root(start: Path) -> Path:
    """The nearest folder at or above ``start`` holding a project marker, else ``start``'s folder."""
    here = start.resolve()
    folder = here if here.is_dir() else here.parent
    for candidate in (folder, *folder.parents):
        if any((candidate / marker).exists() for marker in MARKERS):
            return candidate
    return folder


def inside(path: Path, root: Path) -> bool:
    """Whether ``path`` (resolved, symlinks followed) stays inside ``root``."""
    try:
        path.resolve().relative_to(root.resolve())
    except ValueError:
        return False
    return True
