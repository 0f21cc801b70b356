"""Each assertion of the end-to-end session fails on a deliberately broken hook.

The hooks are installed (``ctxres install-hooks --command``) as a wrapper around the real
``ctxres-hook`` that breaks it one way per event: it does nothing (no output, no checkpoint), exits
1, writes on stderr, or doubles the compaction alert; one settings entry is invalid. The
assertions that pass on the real hooks (``test_workflow_session.py``) must raise here.
"""

from __future__ import annotations

import json
import stat
import sys
from pathlib import Path

import pytest

from ctxres.hook_events import EVENTS
from e2e import assertions as check
from e2e.scenario import LOW_USAGE, WARNING_USAGE, WORKFLOW, WORKFLOW_ID, copy_workspace, install_hooks, session, tool
from e2e.stand_in_api import prompt_too_long, summary, text, tool_use

# How the wrapper treats one event: the shell lines after it has read the event name.
BEHAVIOUR = {
    "ok": 'exec "$HOOK" "$@"',
    "silent": "cat >/dev/null\nexit 0",  # the hook does not run: no output, no checkpoint
    "exit1": '"$HOOK" "$@"\nexit 1',
    "stderr": '"$HOOK" "$@"\necho "broken wrapper noise" >&2\nexit 0',
    "double-alert": '"$HOOK" "$@" | "$PYTHON" "$DOUBLER"',
}

DOUBLER = """
import json, sys
raw = sys.stdin.read()
try:
    data = json.loads(raw)
except ValueError:
    sys.stdout.write(raw)
    raise SystemExit(0)
inner = data.get("hookSpecificOutput") or {}
context = inner.get("additionalContext") or ""
if "<compaction-alert>" in context:
    inner["additionalContext"] = context + "\\n" + context
print(json.dumps(data))
"""


def broken_hook(folder: Path, behaviours: dict[str, str]) -> Path:
    """A wrapper ``broken-ctxres-hook EVENT`` that runs the real hook as ``behaviours[EVENT]`` says."""
    folder.mkdir(parents=True, exist_ok=True)
    doubler = folder / "double_alert.py"
    doubler.write_text(DOUBLER, encoding="utf-8")
    cases = "\n".join(f"  {event})\n{BEHAVIOUR[how]}\n    ;;" for event, how in behaviours.items())
    wrapper = folder / "broken-ctxres-hook"
    wrapper.write_text(
        f'#!/bin/sh\nHOOK="{tool("ctxres-hook")}"\nPYTHON="{sys.executable}"\nDOUBLER="{doubler}"\n'
        f'case "$1" in\n{cases}\n  *)\n{BEHAVIOUR["ok"]}\n    ;;\nesac\n',
        encoding="utf-8",
    )
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return wrapper


def broken_project(root: Path, behaviours: dict[str, str], *, invalid_entry: bool = False) -> Path:
    project = copy_workspace(root / "project")
    settings = install_hooks(project, str(broken_hook(root / "bin", behaviours)))
    if invalid_entry:
        data = json.loads(settings.read_text("utf-8"))
        data["hooks"]["Stop"] = [{"hooks": [{"type": "commandx", "command": "true"}]}]
        settings.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    return project


def _edit(project: Path) -> dict[str, str]:
    path = project / WORKFLOW
    line = next(x for x in path.read_text("utf-8").splitlines() if x.strip().startswith("current_activity:"))
    return {"file_path": str(path), "old_string": line, "new_string": line.split(":", 1)[0] + ': "qg-1-iteration-1"'}


def test_silent_hooks_fail_every_delivery_assertion(tmp_path: Path, claude_binary: Path) -> None:
    """Hooks that do nothing: no resumption prompt, no monitor, no warning, no checkpoint, no alert.

    The tool-result turn of the Edit is refused (``prompt is too long``): the client compacts and
    sends it again, so one client run holds the prompt, the tool result and a compaction."""
    every = dict.fromkeys(EVENTS, "silent")
    project = broken_project(tmp_path, every)
    with session(tmp_path, claude_binary, project=project) as s:
        s.run("Start FEAT-015.", text("Started.", WARNING_USAGE))
        s.run(
            "Record it.", tool_use("Edit", _edit(project), WARNING_USAGE), prompt_too_long(), summary(), text("Done.")
        )
    with pytest.raises(AssertionError, match="resumption prompt"):
        check.assert_resumption_prompt_in_first_request(s.requests_of(0), WORKFLOW_ID)
    with pytest.raises(AssertionError, match="no <context-monitor>"):
        check.assert_monitor_at(s.requests_of(1)[0], "WARNING")
    with pytest.raises(AssertionError, match="no PostToolUse warning"):
        check.assert_posttooluse_warning(s.requests_of(1)[1], "Edit")
    with pytest.raises(AssertionError, match="no checkpoint cx-001"):
        check.assert_checkpoint(s.project, 1, "auto")
    with pytest.raises(AssertionError, match="carries 0 <compaction-alert>"):
        check.assert_alert_once_after_each_compaction(s.api.requests, compactions=1)
    # the hooks did run, and exited 0: the clean-hooks assertions alone would not see this
    check.assert_hooks_ran(s.debug_log, ["SessionStart:startup", "UserPromptSubmit", "PreCompact:auto"])
    check.assert_hooks_exit_zero(s.debug_log)


def test_failing_noisy_hooks_and_an_invalid_setting(tmp_path: Path, claude_binary: Path) -> None:
    """SessionStart exits 1, UserPromptSubmit writes on stderr, one settings entry is invalid."""
    project = broken_project(tmp_path, {"SessionStart": "exit1", "UserPromptSubmit": "stderr"}, invalid_entry=True)
    with session(tmp_path, claude_binary, project=project) as s:
        s.run("Start FEAT-015.", text("Started.", WARNING_USAGE))
    with pytest.raises(AssertionError, match=r"SessionStart .* exit 1"):
        check.assert_hooks_exit_zero(s.debug_log)
    with pytest.raises(AssertionError, match=r"UserPromptSubmit: .*broken wrapper noise"):
        check.assert_hooks_quiet_on_stderr(s.debug_log)
    with pytest.raises(AssertionError, match="Invalid setting skipped"):
        check.assert_no_client_complaint(s.debug_log, s.stderr)
    with pytest.raises(AssertionError):
        check.assert_clean_hooks(s.debug_log, s.stderr)


def test_doubled_alert_and_wrong_level_or_trigger(tmp_path: Path, claude_binary: Path) -> None:
    """SessionStart doubles the compaction alert; the level and trigger assertions tell tiers and triggers apart."""
    project = broken_project(tmp_path, {"SessionStart": "double-alert"})
    with session(tmp_path, claude_binary, project=project) as s:
        s.run("Start FEAT-015.", text("Started.", WARNING_USAGE))
        s.run("Score it.", prompt_too_long(), summary(), text("Scored.", LOW_USAGE))
    check.assert_monitor_at(s.requests_of(1)[0], "WARNING")
    with pytest.raises(AssertionError, match="expected CONTEXT STATUS: CRITICAL"):
        check.assert_monitor_at(s.requests_of(1)[0], "CRITICAL")
    check.assert_checkpoint(s.project, 1, "auto")
    with pytest.raises(AssertionError, match="trigger 'auto', expected 'manual'"):
        check.assert_checkpoint(s.project, 1, "manual")
    with pytest.raises(AssertionError, match=r"carries [2-9]\d* <compaction-alert>"):
        check.assert_alert_once_after_each_compaction(s.api.requests, compactions=1)
