"""The two other ways users install the hooks, each in the real client.

- The plugin: ``claude --plugin-dir <a copy of this repository>``; ``hooks/hooks.json`` runs
  ``python3 ${CLAUDE_PLUGIN_ROOT}/hooks/plugin_entry.py <event>`` from the copy, nothing installed.
- ``ctxres init``: it writes ``.claude/settings.json`` (the same commands on every machine) and
  ``.claude/settings.local.json`` (this machine's ``ctxres-hook`` as ``CTXRES_HOOK`` in its ``env``);
  the client then runs with a PATH that holds no virtual environment (a user who installed ctxres
  in a venv does not have it on the client's PATH), and the hooks must still run: the client passes
  the local file's ``env`` to them.
"""

from __future__ import annotations

import os
import shutil
import stat
import sys
from pathlib import Path

from e2e import assertions as check
from e2e.claude_client import REPOSITORY, default_path
from e2e.scenario import WARNING_USAGE, WORKFLOW, WORKFLOW_ID, copy_workspace, ctxres, session, tool
from e2e.stand_in_api import text, tool_use

# What a copy of the repository leaves out: VCS data, environments, caches, the client cache.
_NOT_COPIED = shutil.ignore_patterns(
    ".git", ".venv", ".nox", ".cache", "__pycache__", "*.pyc", ".mypy_cache", ".ruff_cache", ".pytest_cache",
    ".hypothesis", "*.egg-info", "build", "dist", "fixtures", "bench", "fuzz", "tests", "e2e",
)  # fmt: skip


def copy_repository(target: Path) -> Path:
    """A copy of the working tree as a plugin folder (what a clone would hold, without the test data)."""
    shutil.copytree(REPOSITORY, target, ignore=_NOT_COPIED, symlinks=True)
    return target


def python_shim(folder: Path) -> Path:
    """A folder whose ``python3`` is this interpreter (which has PyYAML): the plugin runs ``python3``."""
    folder.mkdir(parents=True)
    shim = folder / "python3"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n', encoding="utf-8")
    shim.chmod(shim.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return folder


def _edit(project: Path) -> dict[str, str]:
    path = project / WORKFLOW
    line = next(x for x in path.read_text("utf-8").splitlines() if x.strip().startswith("current_activity:"))
    return {"file_path": str(path), "old_string": line, "new_string": line.split(":", 1)[0] + ': "qg-1-iteration-1"'}


def test_plugin_route(tmp_path: Path, claude_binary: Path) -> None:
    plugin = copy_repository(tmp_path / "ctxres-plugin")
    project = copy_workspace(tmp_path / "project")
    path = [str(python_shim(tmp_path / "shim")), *default_path()]
    with session(tmp_path, claude_binary, project=project, path=path, plugin_dirs=[plugin]) as s:
        s.run("Start FEAT-015: run Phase 1.", text("Phase 1 started.", WARNING_USAGE))
        s.run("Record the audit result.", tool_use("Edit", _edit(project), WARNING_USAGE), text("Recorded."))
    check.assert_resumption_prompt_in_first_request(s.requests_of(0), WORKFLOW_ID)
    check.assert_monitor_at(s.requests_of(1)[0], "WARNING")
    check.assert_posttooluse_warning(s.requests_of(1)[1], "Edit")
    check.assert_hooks_ran(s.debug_log, ["SessionStart:startup", "SessionStart:resume", "UserPromptSubmit"])
    runs = check.hook_runs(s.debug_log)
    assert all(str(plugin) in run.command and run.plugin for run in runs), f"hooks not run from the plugin: {runs}"
    check.assert_clean_hooks(s.debug_log, s.stderr)


def test_init_route_without_the_venv_on_path(tmp_path: Path, claude_binary: Path) -> None:
    project = copy_workspace(tmp_path / "project")
    ctxres("init", str(project), cwd=project)
    settings = (project / ".claude" / "settings.json").read_text("utf-8")
    assert str(Path(tool("ctxres-hook")).parent) not in settings, "the committed settings name this machine's venv"
    assert "CTXRES_HOOK" in (project / ".claude" / "settings.local.json").read_text("utf-8")
    path = default_path()
    on_path = shutil.which("ctxres-hook", path=os.pathsep.join(path))
    assert on_path is None, f"this test needs a PATH without ctxres-hook, but {on_path} is on {path}"
    assert Path(tool("ctxres-hook")).parent.as_posix() not in path
    with session(tmp_path, claude_binary, project=project, path=path) as s:
        s.run("Start FEAT-015: run Phase 1.", text("Phase 1 started.", WARNING_USAGE))
        s.run("Continue.", text("Continuing."))
    check.assert_hooks_ran(s.debug_log, ["SessionStart:startup", "SessionStart:resume", "UserPromptSubmit"])
    check.assert_clean_hooks(s.debug_log, s.stderr)
    check.assert_resumption_prompt_in_first_request(s.requests_of(0), WORKFLOW_ID)
    check.assert_monitor_at(s.requests_of(1)[0], "WARNING")
