"""The project root of a checked file, looked up once per folder during a check.

:func:`ctxres.project.project_root` walks up from a file testing four markers at every level: done for
every checked file, that is a few dozen ``stat`` calls per file for the same few folders. The engine
empties the memory when a check starts (:func:`forget`), so a marker created between two checks of the
same process (tests) is seen.
"""

from __future__ import annotations

import os
from pathlib import Path

from ctxres.project import project_root

_ROOTS: dict[str, Path] = {}


def root_of(path: str | os.PathLike[str]) -> Path:
    """``project_root(Path(path))``, remembered per resolved folder."""
    here = os.path.realpath(path)
    folder = here if os.path.isdir(here) else os.path.dirname(here)
    root = _ROOTS.get(folder)
    if root is None:
        root = _ROOTS[folder] = project_root(Path(folder))
    return root


def forget() -> None:
    """Forget every folder's root (at the start of a check)."""
    _ROOTS.clear()
