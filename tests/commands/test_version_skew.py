"""Teammates on different ctxres versions: the committed statusline never shows a ``{}`` for the team's own
line, and a repository states the ctxres it needs (``required-version``).

Real git, the team's repository (tests/team_repository.py) with a statusline of its own; the statusline
command ``ctxres init`` commits, run as the client runs it (``sh -c``, the client's JSON on stdin) with a
``ctxres-hook`` that is missing, fails, prints nothing, answers ``{}`` as a ctxres-hook that does not know the
statusline does, or is the real 0.1.0 release (built from its commit). The pin: ``ctxres check`` refuses with
one line and exit 2, the doctor reports a row, the hooks say it once per session and keep working.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from ctxres import __version__
from ctxres.formats.versions import VersionError, check_setting, satisfies

from ..cli_process import MINIMAL_PATH
from ..git_sandbox import executable
from ..installs import install_wheel, offline_venv, released_wheel
from ..team_repository import Clone, team_repository

TEAM_LINE = "[team] main 61%"
TEAM_STATUSLINE = {"type": "command", "command": "printf '[team] main 61%%'"}


def _adopted(base: Path) -> Clone:
    """The team's repository with its own statusline, after the current ``ctxres init``."""
    work = team_repository(base / "repo")
    work.write(".claude/settings.json", json.dumps({"statusLine": TEAM_STATUSLINE}, indent=2) + "\n")
    clone = Clone(work.root, Path(executable("ctxres")).parent)
    done = clone.run("ctxres", "init")
    assert done.returncode == 0, done.stderr
    return clone


def _statusline(clone: Clone, hook: str | None) -> subprocess.CompletedProcess[str]:
    """The committed statusline command, run as the client runs it, with ``hook`` as this machine's ctxres-hook
    (None: none anywhere)."""
    command = json.loads((clone.root / ".claude" / "settings.json").read_text())["statusLine"]["command"]
    env = {"PATH": MINIMAL_PATH, "HOME": str(clone.home), "CLAUDE_PROJECT_DIR": str(clone.root)}
    if hook is not None:
        env["CTXRES_HOOK"] = hook
    document = {"session_id": "s", "cwd": str(clone.root), "workspace": {"project_dir": str(clone.root)}}
    return subprocess.run(
        ["sh", "-c", command], input=json.dumps(document), cwd=clone.root, env=env, capture_output=True, text=True
    )


def _fake_hook(folder: Path, body: str) -> str:
    script = folder / "ctxres-hook"
    script.parent.mkdir(parents=True, exist_ok=True)
    script.write_text(f"#!/bin/sh\ncat >/dev/null\n{body}\n")
    script.chmod(0o755)
    return str(script)


@pytest.mark.parametrize(
    "body",
    [
        "echo '{}'",  # an older ctxres-hook: `statusline` is an unknown event, answered with {}
        "echo boom >&2; exit 1",  # fails
        "exit 0",  # prints nothing
        "echo '{\"hookSpecificOutput\": {}}'",  # JSON, not a line of text
    ],
)
def test_the_statusline_falls_back_to_the_teams_line(tmp_path: Path, body: str) -> None:
    clone = _adopted(tmp_path)
    shown = _statusline(clone, _fake_hook(tmp_path / "old", body))
    assert shown.returncode == 0 and shown.stdout == TEAM_LINE, shown


def test_the_statusline_without_a_ctxres_hook_is_the_teams_line(tmp_path: Path) -> None:
    clone = _adopted(tmp_path)
    shown = _statusline(clone, None)
    assert shown.stdout == TEAM_LINE, shown


def test_the_statusline_with_the_current_ctxres_hook_shows_both(tmp_path: Path) -> None:
    clone = _adopted(tmp_path)
    shown = _statusline(clone, executable("ctxres-hook"))
    assert shown.returncode == 0 and shown.stdout.startswith(TEAM_LINE) and shown.stdout != TEAM_LINE, shown
    assert "{" not in shown.stdout


def test_the_statusline_with_ctxres_0_1_0_shows_the_teams_line(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    python = offline_venv(tmp_path / "old-venv")
    install_wheel(python, released_wheel(tmp_path_factory, "0.1.0"))
    clone = _adopted(tmp_path)
    shown = _statusline(clone, str(tmp_path / "old-venv" / "bin" / "ctxres-hook"))
    assert shown.returncode == 0 and shown.stdout.startswith(TEAM_LINE) and "{}" not in shown.stdout, shown


# --- required-version -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("installed", "specifier", "expected"),
    [
        ("0.1.0", ">=0.2", False),
        ("0.2.0", ">=0.2", True),
        ("0.2.0.dev0", ">=0.2", False),
        ("0.2.0.dev0", "==0.2.*", True),
        ("0.2.3", "==0.2.*", True),
        ("0.3.0", "==0.2.*", False),
        ("0.1.0", "0.1.0", True),
        ("0.1.0", "0.1", True),
        ("0.1.1", "0.1.0", False),
        ("0.2.5", "~=0.2.1", True),
        ("0.3.0", "~=0.2.1", False),
        ("0.2.0rc1", "<0.2", True),
        ("0.2.0", ">=0.1, <0.3, !=0.2.1", True),
        ("0.2.1", ">=0.1, <0.3, !=0.2.1", False),
        ("1.0.post1", ">1.0", True),
    ],
)
def test_required_version_specifiers(installed: str, specifier: str, expected: bool) -> None:
    assert satisfies(installed, specifier) is expected


@pytest.mark.parametrize("specifier", ["", "latest", ">=", ">=0.2,,", ">=0.2.*", "~=1"])
def test_a_required_version_that_is_no_specifier_is_refused(specifier: str) -> None:
    with pytest.raises(VersionError, match="required-version"):
        check_setting(specifier, "pyproject.toml")


def _pinned(base: Path, specifier: str) -> Clone:
    clone = _adopted(base)
    (clone.root / ".ctxres.toml").unlink()  # init wrote its budget there: one configuration file, the pyproject
    clone.write("pyproject.toml", f'[tool.ctxres]\nrequired-version = "{specifier}"\nreinject-budget = 700\n')
    return clone


def test_a_required_version_not_met_stops_check_with_one_line(tmp_path: Path) -> None:
    clone = _pinned(tmp_path, ">=99")
    done = clone.run("ctxres", "check")
    assert done.returncode == 2 and done.stdout == "", done
    (line,) = done.stderr.splitlines()
    assert f"requires ctxres >=99 (required-version in pyproject.toml), and ctxres {__version__} is installed" in line
    doctor = json.loads(clone.run("ctxres", "doctor", "--output-format", "json").stdout)
    (row,) = [r for r in doctor["layers"] if r["layer"] == "ctxres version"]
    assert row["status"] == "misconfigured" and ">=99" in row["detail"] and "upgrade" in row["fix"], row


def test_a_required_version_met_is_a_present_row(tmp_path: Path) -> None:
    clone = _pinned(tmp_path, f"=={__version__}")
    assert clone.run("ctxres", "check").returncode in (0, 1)
    doctor = json.loads(clone.run("ctxres", "doctor", "--output-format", "json").stdout)
    (row,) = [r for r in doctor["layers"] if r["layer"] == "ctxres version"]
    assert row["status"] == "present", row


def _prompt(clone: Clone, session: str) -> subprocess.CompletedProcess[str]:
    payload = {"hook_event_name": "UserPromptSubmit", "session_id": session, "cwd": str(clone.root), "prompt": ""}
    env = {"PATH": MINIMAL_PATH, "HOME": str(clone.home), "CLAUDE_PROJECT_DIR": str(clone.root)}
    return subprocess.run(
        [executable("ctxres-hook"), "UserPromptSubmit"],
        input=json.dumps(payload),
        cwd=clone.root,
        env=env,
        capture_output=True,
        text=True,
    )


def test_the_hooks_say_an_unmet_required_version_once_per_session(tmp_path: Path) -> None:
    clone = _pinned(tmp_path, ">=99")
    first, second, other = _prompt(clone, "a"), _prompt(clone, "a"), _prompt(clone, "b")
    for done in (first, second, other):
        assert done.returncode == 0
        json.loads(done.stdout or "{}")  # a valid answer: the hook keeps working
    assert "requires ctxres >=99" in first.stdout and "requires ctxres >=99" in first.stderr
    assert "requires ctxres" not in second.stdout + second.stderr
    assert "requires ctxres >=99" in other.stdout
