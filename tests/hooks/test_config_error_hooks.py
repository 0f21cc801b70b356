"""A configuration error, as the real hook and statusline processes meet it: one line on stderr naming the file
(with its final newline), exit 0 and a valid answer (fail-open); the statusline shows it in its line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ctxres import config_file
from ctxres.config import Config, load_config
from ctxres.hook_events import HOOK_EVENTS
from ctxres.linters.checking import registry  # noqa: F401 - the rules declare their options on import

from .hook_project import run_hook

UNKNOWN = "staleness-minute = 45\n"  # misspelt: `ctxres check` exits 2; the hooks read nothing of it
UNUSABLE = 'state-dir = ""\n'  # a setting the hooks read: they cannot serve


def run_statusline(project: Path, stdin: dict[str, object]) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1", "HOME": str(project.parent / "home")}
    env.pop("CLAUDE_PROJECT_DIR", None)
    hook = Path(sys.executable).parent / "ctxres-hook"
    return subprocess.run(
        [str(hook), "statusline"], input=json.dumps(stdin), capture_output=True, text=True, env=env, check=False
    )


def payload(event: str, root: Path) -> dict[str, object]:
    return {
        "hook_event_name": event,
        "session_id": "s",
        "cwd": str(root),
        "prompt": "go on",
        "source": "startup",
        "trigger": "manual",
        "tool_name": "Read",
        "tool_input": {},
        "tool_response": {},
    }


@pytest.mark.parametrize("text", [UNKNOWN, UNUSABLE])
@pytest.mark.parametrize("event", [event.name for event in HOOK_EVENTS])
def test_each_hook_says_a_configuration_error_in_one_line(tmp_path: Path, event: str, text: str) -> None:
    (tmp_path / ".ctxres.toml").write_text(text)
    done = run_hook(event, tmp_path, payload(event, tmp_path))
    assert done.returncode == 0
    assert done.stdout.strip() == "" or isinstance(json.loads(done.stdout), dict), done.stdout
    assert done.stderr.endswith("\n") and done.stderr.count("\n") == 1, done.stderr
    assert f"ctxres-hook: {event}: configuration error: {tmp_path / '.ctxres.toml'}: " in done.stderr, done.stderr
    assert "`ctxres check`" in done.stderr


@pytest.mark.parametrize("text", [UNKNOWN, UNUSABLE])
def test_the_statusline_shows_a_configuration_error(tmp_path: Path, text: str) -> None:
    (tmp_path / ".ctxres.toml").write_text(text)
    done = run_statusline(
        tmp_path, {"session_id": "s", "cwd": str(tmp_path), "workspace": {"project_dir": str(tmp_path)}}
    )
    assert done.returncode == 0
    assert done.stdout == "ctx -- │ config error: ctxres check\n", done.stdout
    assert done.stderr.count("\n") == 1 and "configuration error: " in done.stderr, done.stderr


def test_the_hooks_know_every_setting_the_configuration_model_knows() -> None:
    core = {name.replace("_", "-") for name in Config.fields()} - {"root", "source", "options"}
    from ctxres.config import OPTIONS

    assert core | set(OPTIONS) == config_file.SETTING_NAMES


def test_the_hooks_report_what_check_reports(tmp_path: Path) -> None:
    (tmp_path / ".ctxres.toml").write_text(UNKNOWN)
    with pytest.raises(config_file.ConfigError) as expected:
        load_config(tmp_path)
    told = config_file.unknown_setting({"staleness-minute": 45}, tmp_path / ".ctxres.toml")
    assert told is not None and str(expected.value).startswith(told)
