"""`ctxres install-hooks` merges our entries idempotently; the plugin layout registers the same hooks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from ctxres.claude_settings import install, plugin_hooks_file, portable_command, registrations, uninstall
from ctxres.hook_events import HOOK_EVENTS

from ..conftest import ROOT

OTHERS = {
    "$schema": "https://json.schemastore.org/claude-code-settings.json",
    "permissions": {"allow": ["Bash(git status)"]},
    "hooks": {
        "PostToolUse": [{"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "./lint.sh"}]}],
        "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
    },
}


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ctxres.linters.cli", *args], capture_output=True, text=True, cwd=cwd, timeout=60
    )


def test_install_adds_one_entry_per_event_with_matchers_and_timeouts_in_seconds() -> None:
    merged = install(OTHERS)
    found = registrations(merged)
    assert {e: r.matchers for e, r in found.items()} == {event.name: (event.matcher or "",) for event in HOOK_EVENTS}
    assert found["SessionStart"].matchers == ("startup|resume|compact",)
    precompact = merged["hooks"]["PreCompact"][0]["hooks"][0]
    assert precompact == {"type": "command", "command": portable_command("PreCompact"), "timeout": 10}
    assert all(1 <= spec.timeout <= 60 for spec in HOOK_EVENTS)


def test_install_twice_is_idempotent_and_others_are_untouched() -> None:
    once = install(OTHERS)
    assert install(once) == once
    assert once["permissions"] == OTHERS["permissions"]
    assert once["hooks"]["Stop"] == OTHERS["hooks"]["Stop"]
    assert once["hooks"]["PostToolUse"][0] == OTHERS["hooks"]["PostToolUse"][0]
    assert uninstall(once) == (OTHERS, len(HOOK_EVENTS))


def test_reinstall_with_another_command_replaces_ours() -> None:
    again = install(install(OTHERS), "/opt/venv/bin/ctxres-hook")
    commands = [h["command"] for groups in again["hooks"].values() for g in groups for h in g["hooks"]]
    assert sum("ctxres-hook" in c for c in commands) == len(HOOK_EVENTS)
    assert all(c.startswith("/opt/venv/bin/") for c in commands if "ctxres-hook" in c)


def test_cli_install_and_uninstall(tmp_path: Path) -> None:
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps(OTHERS, indent=2))
    assert _cli("install-hooks", cwd=tmp_path).returncode == 0
    first = settings.read_text()
    second = _cli("install-hooks", cwd=tmp_path)
    assert second.returncode == 0 and "already up to date" in second.stdout
    assert settings.read_text() == first
    assert _cli("install-hooks", "--uninstall", cwd=tmp_path).returncode == 0
    assert json.loads(settings.read_text()) == OTHERS


def test_cli_refuses_a_broken_settings_file(tmp_path: Path) -> None:
    settings = tmp_path / "settings.json"
    settings.write_text("{not json")
    result = _cli("install-hooks", "--settings", str(settings), cwd=tmp_path)
    assert result.returncode == 2 and "cannot read" in result.stderr and "Traceback" not in result.stderr
    assert settings.read_text() == "{not json"


def test_the_plugin_registration_is_recognised_as_ours_with_the_matchers_install_writes() -> None:
    """`hooks/hooks.json` is generated from the table (`python dev/generate.py --check` keeps it current); its
    handlers run `plugin_entry.py`, which the doctor recognises as ours, with the matchers of install-hooks."""
    plugin = json.loads(plugin_hooks_file())
    found = registrations(plugin)
    assert all(found[spec.name].found for spec in HOOK_EVENTS)
    assert {e: r.matchers for e, r in found.items()} == {e: r.matchers for e, r in registrations(install({})).items()}
    manifest = json.loads((ROOT / ".claude-plugin" / "plugin.json").read_text())
    assert manifest["name"] == "ctxres"


def test_plugin_entry_runs_from_a_plain_clone(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["CLAUDE_PLUGIN_ROOT"] = str(ROOT)
    result = subprocess.run(
        [sys.executable, str(ROOT / "hooks" / "plugin_entry.py"), "UserPromptSubmit"],
        input=b'{"hook_event_name": "UserPromptSubmit", "prompt": "hi"}',
        env=env,
        cwd=tmp_path,
        capture_output=True,
        timeout=30,
    )
    assert result.returncode == 0
    assert isinstance(json.loads(result.stdout), dict)
