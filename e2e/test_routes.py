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
from pathlib import Path

from e2e import assertions as check
from e2e.claude_client import default_path
from e2e.plugin_folder import copy_repository, edit_current_activity, python_shim
from e2e.scenario import WARNING_USAGE, WORKFLOW_ID, copy_workspace, ctxres, session, tool
from e2e.stand_in_api import text, tool_use


def test_plugin_route(tmp_path: Path, claude_binary: Path) -> None:
    plugin = copy_repository(tmp_path / "ctxres-plugin")
    project = copy_workspace(tmp_path / "project")
    path = [str(python_shim(tmp_path / "shim")), *default_path()]
    with session(tmp_path, claude_binary, project=project, path=path, plugin_dirs=[plugin]) as s:
        s.run("Start FEAT-015: run Phase 1.", text("Phase 1 started.", WARNING_USAGE))
        s.run(
            "Record the audit result.",
            tool_use("Edit", edit_current_activity(project), WARNING_USAGE),
            text("Recorded."),
        )
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
