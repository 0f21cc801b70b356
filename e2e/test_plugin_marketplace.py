"""The Claude Code plugin route as a user takes it: ``/plugin marketplace add <a folder>`` then ``/plugin
install ctxres@ctxres`` (the client's ``claude plugin marketplace add`` and ``claude plugin install``, which do
the same without a screen), against a local marketplace: a copy of this repository, whose
``.claude-plugin/marketplace.json`` lists the plugin. The installed plugin's hooks then answer in a session.
Where the ``python3`` that runs them lacks PyYAML, each hook says so in one line on stderr and answers
validly: the session goes on."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import ctxres
from e2e import assertions as check
from e2e.claude_client import default_path
from e2e.plugin_folder import copy_repository, edit_current_activity, python_shim, python_without_yaml
from e2e.scenario import WARNING_USAGE, WORKFLOW_ID, Session, copy_workspace, session
from e2e.stand_in_api import text, tool_use

MARKETPLACE = json.loads((Path(__file__).resolve().parent.parent / ".claude-plugin" / "marketplace.json").read_text())


def plugin_command(s: Session, *args: str) -> subprocess.CompletedProcess[str]:
    """``claude plugin ARGS`` with the session's HOME and environment."""
    return subprocess.run(
        [str(s.client.binary), "plugin", *args],
        cwd=s.project,
        env=s.client.env(),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def add_and_install(s: Session, marketplace: Path) -> None:
    added = plugin_command(s, "marketplace", "add", str(marketplace))
    assert added.returncode == 0, added.stdout + added.stderr
    plugin = f"{MARKETPLACE['plugins'][0]['name']}@{MARKETPLACE['name']}"
    installed = plugin_command(s, "install", plugin)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    listed = plugin_command(s, "list")
    assert plugin in listed.stdout and ctxres.__version__ in listed.stdout, listed.stdout + listed.stderr


def test_plugin_from_a_local_marketplace(tmp_path: Path, claude_binary: Path) -> None:
    marketplace = copy_repository(tmp_path / "ctxres-marketplace")
    project = copy_workspace(tmp_path / "project")
    path = [str(python_shim(tmp_path / "shim")), *default_path()]
    with session(tmp_path, claude_binary, project=project, path=path) as s:
        add_and_install(s, marketplace)
        s.run("Start FEAT-015: run Phase 1.", text("Phase 1 started.", WARNING_USAGE))
        edit = tool_use("Edit", edit_current_activity(project), WARNING_USAGE)
        s.run("Record the audit result.", edit, text("Recorded."))
    check.assert_resumption_prompt_in_first_request(s.requests_of(0), WORKFLOW_ID)
    check.assert_monitor_at(s.requests_of(1)[0], "WARNING")
    check.assert_posttooluse_warning(s.requests_of(1)[1], "Edit")
    check.assert_hooks_ran(s.debug_log, ["SessionStart:startup", "SessionStart:resume", "UserPromptSubmit"])
    runs = check.hook_runs(s.debug_log)
    assert runs and all(run.plugin and "plugin_entry.py" in run.command for run in runs), runs
    check.assert_clean_hooks(s.debug_log, s.stderr)


def test_plugin_where_python3_lacks_pyyaml(tmp_path: Path, claude_binary: Path) -> None:
    marketplace = copy_repository(tmp_path / "ctxres-marketplace")
    project = copy_workspace(tmp_path / "project")
    path = [str(python_shim(tmp_path / "shim", python_without_yaml(tmp_path / "bare-python"))), *default_path()]
    with session(tmp_path, claude_binary, project=project, path=path) as s:
        add_and_install(s, marketplace)
        first = s.run("Start FEAT-015: run Phase 1.", text("Phase 1 started.", WARNING_USAGE))
    assert first.returncode == 0, first.stderr
    check.assert_hooks_ran(s.debug_log, ["SessionStart:startup", "UserPromptSubmit"])
    check.assert_hooks_exit_zero(s.debug_log)
    check.assert_no_client_complaint(s.debug_log, s.stderr)
    said = check.hook_stderr(s.debug_log)
    assert said, "no hook said that PyYAML is missing"
    for line in said:
        assert "PyYAML is not installed" in line, line
        assert line.count("ctxres-hook:") == 1, line
    assert "-m pip install pyyaml`, or the system's python3-yaml package" in s.debug_log
    assert WORKFLOW_ID not in check.request_text(s.requests_of(0)[0])
