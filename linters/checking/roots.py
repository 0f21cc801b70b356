"""The project root of a checked file, looked up once per folder during a check.

:func:`ctxres.project.project_root` walks up from a file testing four markers at every level: done for
every checked file, that is a few dozen ``stat`` calls per file for the same few folders. The engine
empties the memory when a check starts (:func:`forget`), so a marker created between two checks of the
same process (tests) is seen.
"""

from __future__ import annotations

import os
from pathlib import Path

from ctxres.project import has_marker, project_root

_MAX_FOLDERS = 256  # folders remembered: a check's memory of them does not grow with its files
_ROOTS: dict[str, Path] = {}
_PATHS: dict[str, Path] = {}  # root -> its Path
_MARKED: dict[str, str | None] = {}  # folder -> the nearest folder at or above it with a marker (None: none)


def root_of(path: str | os.PathLike[str]) -> Path:
    """``project_root(Path(path))``, remembered per resolved folder (and the markers of each folder above)."""
    here = os.path.realpath(path)
    folder = here if os.path.isdir(here) else os.path.dirname(here)
    root = _ROOTS.get(folder)
    if root is None:
        if len(_ROOTS) >= _MAX_FOLDERS:
            forget()  # the files come folder by folder: a memory of the last folders serves as well
        if os.path.isdir(folder):  # (a folder that is not there: project_root starts from its parent)
            marked = _marked(folder)
            root = _path(marked if marked is not None else folder)
        else:
            root = project_root(Path(folder))
        _ROOTS[folder] = root
    return root


def _path(folder: str) -> Path:
    """One ``Path`` per root: the folders of a project share it (not a ``Path`` per folder, for the whole check)."""
    path = _PATHS.get(folder)
    if path is None:
        path = _PATHS[folder] = Path(folder)
    return path


def _marked(folder: str) -> str | None:
    """The nearest folder at or above ``folder`` (resolved) holding a project marker, as project_root tests it."""
    walked: list[str] = []
    found: str | None = None
    while True:
        if folder in _MARKED:
            found = _MARKED[folder]
            break
        walked.append(folder)
        if has_marker(Path(folder)):
            found = folder
            break
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    for each in walked:
        _MARKED[each] = found
    return found


def forget() -> None:
    """Forget every folder's root (at the start of a check)."""
    _ROOTS.clear()
    _MARKED.clear()
    _PATHS.clear()
