"""A plugin folder for the end-to-end sessions: a copy of this repository (what a clone holds, without the
test data), the ``python3`` the plugin's hooks run, and an Edit that makes the resumption section stale."""

from __future__ import annotations

import shutil
import stat
import subprocess
import sys
from pathlib import Path

from e2e.claude_client import REPOSITORY
from e2e.scenario import WORKFLOW

# What a copy of the repository leaves out: VCS data, environments, caches, the client cache.
_NOT_COPIED = shutil.ignore_patterns(
    ".git", ".venv", ".nox", ".cache", "__pycache__", "*.pyc", ".mypy_cache", ".ruff_cache", ".pytest_cache",
    ".hypothesis", "*.egg-info", "build", "dist", "fixtures", "bench", "fuzz", "tests", "e2e",
)  # fmt: skip


def copy_repository(target: Path) -> Path:
    """A copy of the working tree as a plugin folder (what a clone would hold, without the test data)."""
    shutil.copytree(REPOSITORY, target, ignore=_NOT_COPIED, symlinks=True)
    return target


def python_shim(folder: Path, interpreter: str = sys.executable) -> Path:
    """A folder whose ``python3`` is ``interpreter`` (by default this one, which has PyYAML): the plugin runs
    ``python3``."""
    folder.mkdir(parents=True)
    shim = folder / "python3"
    shim.write_text(f'#!/bin/sh\nexec "{interpreter}" "$@"\n', encoding="utf-8")
    shim.chmod(shim.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return folder


def edit_current_activity(project: Path) -> dict[str, str]:
    """An Edit tool call that moves the workflow's current activity (PostToolUse then warns: the section is stale)."""
    path = project / WORKFLOW
    line = next(x for x in path.read_text("utf-8").splitlines() if x.strip().startswith("current_activity:"))
    return {"file_path": str(path), "old_string": line, "new_string": line.split(":", 1)[0] + ': "qg-1-iteration-1"'}


def python_without_yaml(folder: Path) -> str:
    """A virtual environment with nothing installed (no PyYAML), made from this interpreter's base; its python."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True, capture_output=True)
    python = str(folder / "bin" / "python")
    probe = subprocess.run([python, "-c", "import yaml"], capture_output=True, check=False)
    assert probe.returncode != 0, f"{python} imports yaml: it cannot stand for a python3 without PyYAML"
    return python
