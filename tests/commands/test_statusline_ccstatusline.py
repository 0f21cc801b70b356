"""A project whose statusline is ccstatusline: ours goes into it as a Custom Command widget
(``ctxres-hook statusline --segment``) instead of wrapping it; ``init`` and ``doctor`` say how."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from ctxres.claude_settings import install_statusline, is_ccstatusline, segment_command, statusline_command

from ..cli_process import ctxres

CCSTATUSLINE = "npx -y ccstatusline@latest"


@pytest.mark.parametrize(
    "command",
    [
        "npx ccstatusline@latest",
        CCSTATUSLINE,
        "bunx ccstatusline",
        "/home/me/.bun/bin/ccstatusline --config ~/.config/ccstatusline/work.json",
    ],
)
def test_ccstatusline_is_recognised(command: str) -> None:
    assert is_ccstatusline(command)


@pytest.mark.parametrize("command", ["~/bin/my-statusline.sh", "npx ccstatusline-fork", "echo notccstatusline"])
def test_other_statuslines_are_not_ccstatusline(command: str) -> None:
    assert not is_ccstatusline(command)


def test_install_leaves_ccstatusline_and_gives_it_back_from_ours() -> None:
    theirs = {"statusLine": {"type": "command", "command": CCSTATUSLINE, "padding": 1}}
    assert install_statusline(theirs) == theirs
    wrapped = {"statusLine": {"type": "command", "command": statusline_command(beside=CCSTATUSLINE), "padding": 1}}
    assert install_statusline(wrapped) == theirs  # an older install wrapped it: ccstatusline comes back
    other = {"statusLine": {"type": "command", "command": "~/bin/line.sh"}}
    assert "--beside" in install_statusline(other)["statusLine"]["command"]  # any other one is still kept beside


def _repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / ".claude").mkdir()
    settings = {"statusLine": {"type": "command", "command": CCSTATUSLINE, "padding": 0}}
    (repo / ".claude" / "settings.json").write_text(json.dumps(settings, indent=2) + "\n", "utf-8")
    return repo


def _env(home: Path) -> dict[str, str]:
    return {**os.environ, "HOME": str(home)}


def test_init_says_how_to_add_the_segment_and_leaves_ccstatusline(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    home = tmp_path / "home"
    home.mkdir()
    done = ctxres("init", "--only", "hooks", cwd=repo, env=_env(home))
    assert done.returncode == 0, done.stderr
    assert "the statusline, ccstatusline, is left as it is" in done.stdout
    advice = next(line for line in done.stdout.splitlines() if line.startswith("the statusline is ccstatusline"))
    assert "Custom Command widget" in advice and "statusline --segment`" in advice
    settings = json.loads((repo / ".claude" / "settings.json").read_text("utf-8"))
    assert settings["statusLine"] == {"type": "command", "command": CCSTATUSLINE, "padding": 0}
    assert "UserPromptSubmit" in settings["hooks"]  # the hooks are registered as usual


def test_doctor_says_the_same_until_the_widget_is_there(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    home = tmp_path / "home"
    home.mkdir()
    report = json.loads(ctxres("doctor", "--output-format", "json", cwd=repo, env=_env(home)).stdout)
    assert report["statusline"]["status"] == "other"
    assert "runs ccstatusline" in report["statusline"]["note"]
    assert f"`{segment_command()}`" in report["statusline"]["note"]
    # the user adds the widget (ccstatusline's own settings file, as its TUI writes it)
    config = home / ".config" / "ccstatusline"
    config.mkdir(parents=True)
    widget = {"id": "1", "type": "custom-command", "commandPath": "ctxres-hook statusline --segment", "timeout": 1000}
    (config / "settings.json").write_text(json.dumps({"version": 3, "lines": [[{"type": "model"}, widget]]}), "utf-8")
    report = json.loads(ctxres("doctor", "--output-format", "json", cwd=repo, env=_env(home)).stdout)
    assert report["statusline"] == {
        "status": "present",
        "note": "ccstatusline in .claude/settings.json, with the ctxres segment as one of its widgets",
    }
    again = ctxres("init", "--only", "hooks", cwd=repo, env=_env(home))
    assert "the statusline is ccstatusline" not in again.stdout  # nothing left to say
