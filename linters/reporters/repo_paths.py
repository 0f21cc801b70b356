"""Paths as a CI service reads them: relative to the root of the git work tree.

A report's paths are relative to the current folder (as the text output shows them). GitHub
annotations and SARIF consumers resolve a path against the repository, so the reporters for them
rewrite each path, at the edge, relative to the top of the git work tree (the current folder
outside git).
"""

from __future__ import annotations

import os
from pathlib import Path

from ctxres import git


def source_root(cwd: Path) -> Path:
    """The folder the URIs are relative to: the top of the git work tree holding ``cwd``, else ``cwd``."""
    try:
        return git.repo_root(cwd)
    except git.GitError:
        return cwd


def root_relative(path: str, cwd: Path, root: Path) -> str | None:
    """``path`` (relative to ``cwd``, or absolute) relative to ``root`` in POSIX form, or None when it
    lies outside ``root``. Folders are compared resolved (symbolic links, ``..``); the file itself
    is not resolved (it may be a link, or gone)."""
    absolute = Path(os.path.normpath(os.path.join(cwd, path)))
    try:
        relative = os.path.relpath(
            os.path.join(os.path.realpath(absolute.parent), absolute.name), os.path.realpath(root)
        )
    except ValueError:  # another drive
        return None
    if relative == os.pardir or relative.startswith(os.pardir + os.sep) or os.path.isabs(relative):
        return None
    return Path(relative).as_posix()


def for_repository(path: str, cwd: Path, root: Path) -> str:
    """``path`` relative to ``root``; absolute when it lies outside ``root``."""
    relative = root_relative(path, cwd, root)
    return relative if relative is not None else os.path.normpath(os.path.join(cwd, path))
