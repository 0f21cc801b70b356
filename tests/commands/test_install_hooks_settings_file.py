"""`ctxres install-hooks --settings` keeps the user's file as it is written and refuses a mistyped path."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ctxres.claude_settings import NOT_FOUND, statusline_command
from ctxres.hook_events import HOOK_EVENTS

USER_FILE = {
    "permissions": {"allow": ["Bash(ls)"]},
    "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]},
    "env": {"A": "1"},
}


def install_hooks(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ctxres.linters.cli", "install-hooks", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=60,
    )


@pytest.mark.parametrize("indent", [4, "\t", 2])
def test_the_files_indentation_and_key_order_are_kept(tmp_path: Path, indent: int | str) -> None:
    settings = tmp_path / "settings.json"
    settings.write_text(json.dumps(USER_FILE, indent=indent) + "\n")
    result = install_hooks("--settings", str(settings), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    text = settings.read_text()
    data = json.loads(text)
    assert text == json.dumps(data, indent=indent, ensure_ascii=False) + "\n"
    assert list(data) == ["permissions", "hooks", "env", "statusLine"]
    assert next(iter(data["hooks"])) == "Stop" and len(data["hooks"]) == 1 + len(HOOK_EVENTS)
    assert install_hooks("--settings", str(settings), "--uninstall", cwd=tmp_path).returncode == 0
    assert settings.read_text() == json.dumps(USER_FILE, indent=indent) + "\n"


def test_a_one_line_file_stays_on_one_line(tmp_path: Path) -> None:
    settings = tmp_path / "settings.json"
    settings.write_text(json.dumps(USER_FILE))
    assert install_hooks("--settings", str(settings), cwd=tmp_path).returncode == 0
    assert "\n" not in settings.read_text()


def test_a_mistyped_folder_is_refused_not_created(tmp_path: Path) -> None:
    target = tmp_path / ".cluade" / "settings.json"
    result = install_hooks("--settings", str(target), cwd=tmp_path)
    assert result.returncode == 2
    assert f"the folder {target.parent} does not exist" in result.stderr and "Traceback" not in result.stderr
    assert not target.parent.exists()
    deeper = install_hooks("--settings", "proj/.claude/settings.json", cwd=tmp_path)
    assert deeper.returncode == 2 and not (tmp_path / "proj").exists()


def test_the_claude_folder_itself_is_created(tmp_path: Path) -> None:
    result = install_hooks(cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / ".claude" / "settings.json").is_file()
    local = install_hooks("--settings", ".claude/settings.local.json", cwd=tmp_path)
    assert local.returncode == 0 and (tmp_path / ".claude" / "settings.local.json").is_file()


def test_the_statusline_is_registered_with_the_portable_command(tmp_path: Path) -> None:
    settings = tmp_path / ".claude" / "settings.json"
    assert install_hooks("--settings", str(settings), cwd=tmp_path).returncode == 0
    entry = json.loads(settings.read_text())["statusLine"]
    assert entry == {"type": "command", "command": statusline_command(), "padding": 0}


def test_a_statusline_already_there_is_kept_beside_ours_and_restored_exactly(tmp_path: Path) -> None:
    theirs = {"statusLine": {"type": "command", "command": "printf 'bar %s' 'a b'", "padding": 2}, "env": {}}
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    original = json.dumps(theirs, indent=2) + "\n"
    settings.write_text(original)
    done = install_hooks("--settings", str(settings), cwd=tmp_path)
    assert "beside the statusline already there" in done.stdout
    entry = json.loads(settings.read_text())["statusLine"]
    assert entry["padding"] == 2
    assert entry["command"] == statusline_command(beside="printf 'bar %s' 'a b'")
    # what the client runs (sh -c) runs theirs with the same input and shows its line first
    hook = str(Path(sys.executable).parent / "ctxres-hook")
    env = {"CTXRES_HOOK": hook, "PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "NO_COLOR": "1"}
    shown = subprocess.run(["sh", "-c", entry["command"]], input=b"{}", capture_output=True, env=env, cwd=tmp_path)
    # ours ran it (its line ends with ours: nothing here, no workflow, and the context figure is theirs to show)
    assert shown.returncode == 0 and shown.stdout.decode() == "bar a b\n", shown
    # a machine without ctxres (or whose CTXRES_HOOK is stale) still shows theirs, unchanged
    for variables in ({}, {"CTXRES_HOOK": str(tmp_path / "gone" / "ctxres-hook")}):
        bare = {**env, **variables} if variables else {k: v for k, v in env.items() if k != "CTXRES_HOOK"}
        alone = subprocess.run(["sh", "-c", entry["command"]], input=b"{}", capture_output=True, env=bare, cwd=tmp_path)
        assert (alone.returncode, alone.stdout, alone.stderr.decode()) == (0, b"bar a b", NOT_FOUND + "\n")
    assert install_hooks("--settings", str(settings), cwd=tmp_path).returncode == 0  # again: still one wrapper
    assert json.loads(settings.read_text())["statusLine"] == entry
    assert install_hooks("--settings", str(settings), "--uninstall", cwd=tmp_path).returncode == 0
    assert settings.read_text() == original
