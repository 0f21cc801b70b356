"""`ctxres init` registers hook commands that run where Claude Code runs them, on every machine.

Claude Code runs a hook through ``sh -c`` with its own PATH: a bare ``ctxres-hook`` from a virtual
environment that is not activated exits 127, and the client only logs that in its debug log. The
committed ``.claude/settings.json`` must not hold one person's path either (a teammate's clone would
exit 127, and re-registering would flip the file between teammates). So the committed file runs a
command that finds ctxres-hook itself (``$CTXRES_HOOK``, the project's ``.venv``, the PATH), and a clone
whose ctxres-hook is none of those sets ``CTXRES_HOOK`` in the ``env`` of its ``.claude/settings.local.json``
(ignored by git), which the client passes to the hooks.
"""

from __future__ import annotations

import json
import os
import site
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ctxres.claude_settings import HOOK_ENV, NOT_FOUND, portable_command
from ctxres.hook_events import HOOK_EVENTS
from ctxres.hooks import monitor, statemoves
from ctxres.linters.setup.hook_runs import settings_environment  # the settings' env, as the client merges it

from ..cli_process import MINIMAL_PATH, ctxres, minimal_path
from ..conftest import ROOT

PAYLOADS: dict[str, dict[str, Any]] = {
    "PreCompact": {"hook_event_name": "PreCompact", "trigger": "manual", "custom_instructions": ""},
    "SessionStart": {"hook_event_name": "SessionStart", "source": "startup"},
    "UserPromptSubmit": {"hook_event_name": "UserPromptSubmit", "prompt": "hello"},
    "PostToolUse": {"hook_event_name": "PostToolUse", "tool_name": "Read", "tool_input": {}, "tool_response": {}},
}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    return tmp_path


def commands(settings: Path) -> list[tuple[str, str]]:
    """(event, command) of every handler of a settings file."""
    data = json.loads(settings.read_text())
    return [
        (event, handler["command"])
        for event, groups in data["hooks"].items()
        for group in groups
        for handler in group["hooks"]
    ]


def run_as_the_client(command: str, event: str, root: Path) -> subprocess.CompletedProcess[bytes]:
    payload = {**PAYLOADS[event], "session_id": "s1", "cwd": str(root)}
    return subprocess.run(
        ["sh", "-c", command],
        input=json.dumps(payload).encode(),
        capture_output=True,
        cwd=root,
        env={"PATH": MINIMAL_PATH, "CLAUDE_PROJECT_DIR": str(root), "HOME": str(root), **settings_environment(root)},
        timeout=60,
    )


def test_init_writes_commands_that_run_without_the_venv_on_path(repo: Path) -> None:
    result = ctxres("init", "--only", "hooks", cwd=repo, env=minimal_path())
    assert result.returncode == 0, result.stderr
    assert "warning" not in result.stderr
    found = commands(repo / ".claude" / "settings.json")
    assert sorted(event for event, _ in found) == sorted(spec.name for spec in HOOK_EVENTS)
    assert str(Path(sys.executable).parent) not in (repo / ".claude" / "settings.json").read_text()
    local = json.loads((repo / ".claude" / "settings.local.json").read_text())
    assert local == {"env": {HOOK_ENV: str(Path(sys.executable).parent / "ctxres-hook")}}
    for event, command in found:
        assert command == portable_command(event), command
        done = run_as_the_client(command, event, repo)
        assert done.returncode == 0, (command, done.returncode, done.stderr)
        answer = done.stdout.decode().strip()
        assert answer == "" or isinstance(json.loads(answer), dict), answer
    assert "/.claude/settings.local.json" in (repo / ".git" / "info" / "exclude").read_text()  # this clone's
    status = ["git", "status", "--porcelain", "--untracked-files=all"]
    assert subprocess.run(status, cwd=repo, capture_output=True, text=True).stdout == "?? .claude/settings.json\n"
    (repo / ".claude" / "settings.local.json").unlink()  # a clone without its local step: nothing runs, no error
    done = run_as_the_client(found[0][1], found[0][0], repo)
    assert (done.returncode, done.stdout, done.stderr.decode()) == (0, b"", NOT_FOUND + "\n")


def test_a_teammate_runs_init_local_and_no_committed_file_changes(repo: Path, tmp_path: Path) -> None:
    """The committed settings of another machine (its own venv elsewhere): ``init --local`` writes only
    the local file, and then every hook answers with a minimal PATH."""
    settings = repo / ".claude" / "settings.json"
    assert ctxres("init", "--only", "hooks", cwd=repo, env=minimal_path()).returncode == 0
    (repo / ".claude" / "settings.local.json").write_text(
        '{"env": {"CTXRES_HOOK": "/home/alice/venv/bin/ctxres-hook"}}'
    )
    committed = settings.read_text()
    result = ctxres("init", "--local", cwd=repo, env=minimal_path())
    assert result.returncode == 0, result.stderr
    assert settings.read_text() == committed
    assert settings_environment(repo)[HOOK_ENV] == str(Path(sys.executable).parent / "ctxres-hook")
    for event, command in commands(settings):
        assert run_as_the_client(command, event, repo).returncode == 0, command
    again = ctxres("init", "--local", cwd=repo, env=minimal_path())
    assert again.returncode == 0 and "Nothing to do" in again.stdout


def test_rerunning_init_replaces_bare_and_older_commands_in_place(repo: Path) -> None:
    settings = repo / ".claude" / "settings.json"
    settings.parent.mkdir()
    mine = {"type": "command", "command": "./lint.sh"}
    settings.write_text(
        json.dumps(
            {
                "hooks": {
                    "Stop": [{"hooks": [mine]}],
                    "PreCompact": [
                        {"hooks": [{"type": "command", "command": "ctxres-hook PreCompact", "timeout": 10}]}
                    ],
                    "PostToolUse": [
                        {"matcher": "Edit", "hooks": [mine]},
                        {
                            "matcher": "Write|Edit",
                            "hooks": [{"type": "command", "command": "/old/venv/bin/ctxres-hook PostToolUse"}],
                        },
                    ],
                }
            },
            indent=2,
        )
    )
    assert ctxres("init", "--only", "hooks", cwd=repo, env=minimal_path()).returncode == 0
    data = json.loads(settings.read_text())
    assert list(data["hooks"])[:3] == ["Stop", "PreCompact", "PostToolUse"]  # the file's order is kept
    assert data["hooks"]["Stop"] == [{"hooks": [mine]}]
    assert data["hooks"]["PostToolUse"][0] == {"matcher": "Edit", "hooks": [mine]}
    ours = [c for _, c in commands(settings) if "ctxres-hook" in c]
    assert len(ours) == len(HOOK_EVENTS) and all(c == portable_command(e) for e, c in commands(settings) if c in ours)
    again = ctxres("init", "--only", "hooks", cwd=repo, env=minimal_path())
    assert again.returncode == 0 and "Nothing to do" in again.stdout
    assert json.loads(settings.read_text()) == data


def base_interpreter() -> Path:
    """The interpreter this environment was made from. ``sys._base_executable`` names it from Python 3.11
    on; in a virtual environment of Python 3.10 it is the environment's own ``python``."""
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    in_base = Path(sys.base_prefix) / "bin" / version
    return in_base if in_base.exists() else Path(getattr(sys, "_base_executable", sys.executable))


def test_without_an_installed_script_init_records_nothing_local_and_says_why(repo: Path) -> None:
    """An interpreter with no ctxres-hook beside it (the base interpreter, ctxres imported from the
    clone): no local file is written (the hooks look for a ctxres-hook on the client's PATH), and stderr
    says that they do nothing where there is none."""
    base = base_interpreter()
    assert not (base.parent / "ctxres-hook").exists(), "the base interpreter must not have a ctxres-hook"
    paths = os.pathsep.join([str(ROOT), *site.getsitepackages()])
    result = subprocess.run(
        [str(base), "-m", "ctxres.linters.cli", "init", "--only", "hooks"],
        capture_output=True,
        text=True,
        cwd=repo,
        env={**os.environ, "PATH": MINIMAL_PATH, "PYTHONPATH": paths},
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "do nothing" in result.stderr and "pipx" in result.stderr
    assert all(command == portable_command(event) for event, command in commands(repo / ".claude" / "settings.json"))
    assert not (repo / ".claude" / "settings.local.json").exists()


def test_init_keeps_the_per_machine_state_out_of_git_and_the_checkpoints_in(repo: Path) -> None:
    (repo / ".gitignore").write_text("node_modules/")  # no final newline
    assert ctxres("init", "--only", "gitignore", cwd=repo, env=minimal_path()).returncode == 0
    text = (repo / ".gitignore").read_text()
    assert text.startswith("node_modules/\n\n# ctxres:")
    again = ctxres("init", "--only", "gitignore", cwd=repo, env=minimal_path())
    assert again.returncode == 0 and "Nothing to do" in again.stdout
    assert (repo / ".gitignore").read_text() == text
    state = repo / ".jerry"
    (state / "checkpoints").mkdir(parents=True)
    names = (monitor.STATE_FILE, monitor.CACHE_FILE, statemoves.SNAPSHOT_FILE, ".context-monitor-state.json.1.ab.tmp")
    for name in names:
        (state / name).write_text("{}\n")
    (state / "checkpoints" / "cx-001-checkpoint.json").write_text("{}\n")
    (state / "checkpoints" / ".cx-002-checkpoint.json.1.ab.tmp").write_text("{}\n")
    status = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"], cwd=repo, capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert sorted(status) == ["?? .gitignore", "?? .jerry/checkpoints/cx-001-checkpoint.json"]


def test_the_gitignore_follows_the_configured_state_folder(repo: Path) -> None:
    (repo / ".ctxres.toml").write_text('state_dir = "var/state"\n')
    result = ctxres("init", "--only", "gitignore", cwd=repo, env=minimal_path())
    assert result.returncode == 0, result.stderr
    assert "/var/state/context-monitor-state.json\n" in (repo / ".gitignore").read_text()


def test_uninstall_takes_out_the_hooks_and_this_machines_variable_and_nothing_else(repo: Path) -> None:
    local = repo / ".claude" / "settings.local.json"
    assert ctxres("install-hooks", cwd=repo, env=minimal_path()).returncode == 0
    data = json.loads(local.read_text())
    data["env"]["MY_VAR"] = "1"
    data["permissions"] = {"allow": ["Bash(ls)"]}
    local.write_text(json.dumps(data, indent=4) + "\n")
    done = ctxres("install-hooks", "--uninstall", cwd=repo, env=minimal_path())
    assert done.returncode == 0, done.stderr
    assert json.loads(local.read_text()) == {"env": {"MY_VAR": "1"}, "permissions": {"allow": ["Bash(ls)"]}}
    assert local.read_text().startswith('{\n    "env"')  # the file's own indentation is kept
    assert "hooks" not in json.loads((repo / ".claude" / "settings.json").read_text())


def test_local_writes_only_the_local_file(repo: Path) -> None:
    done = ctxres("install-hooks", "--local", cwd=repo, env=minimal_path())
    assert done.returncode == 0, done.stderr
    assert not (repo / ".claude" / "settings.json").exists()
    assert json.loads((repo / ".claude" / "settings.local.json").read_text())["env"][HOOK_ENV].endswith("ctxres-hook")


def _users_shell(home: Path, activated: bool) -> dict[str, str]:
    """A user's shell: this virtual environment's scripts folder on the PATH (a profile's `export PATH=...`, or
    `activate`, which sets VIRTUAL_ENV too), a home of its own."""
    scripts = Path(sys.executable).parent
    env = {key: value for key, value in os.environ.items() if key != "VIRTUAL_ENV"}
    env.update(PATH=f"{scripts}{os.pathsep}{MINIMAL_PATH}", HOME=str(home))
    if activated:
        env["VIRTUAL_ENV"] = sys.prefix
    return env


def _hook_runs_row(repo: Path, env: dict[str, str]) -> str:
    result = ctxres("doctor", "--output-format", "json", cwd=repo, env=env)
    (row,) = [row for row in json.loads(result.stdout)["layers"] if row["layer"] == "hook runs"]
    assert row["status"] == "present", row
    return str(row["detail"])


@pytest.mark.parametrize("activated", [False, True], ids=["on-the-path", "activated"])
def test_init_finds_ctxres_hook_where_the_path_and_the_doctor_find_it(
    repo: Path, tmp_path: Path, activated: bool
) -> None:
    """The team tracks `.claude/settings.local.json` (init never writes it); this machine's ctxres-hook is in a
    virtual environment on the user's PATH: init says where the hooks find it, as `command -v` and the doctor
    do, never that no location holds it."""
    (repo / ".claude").mkdir()
    (repo / ".claude" / "settings.local.json").write_text("{}\n")
    subprocess.run(["git", "add", "."], cwd=repo, check=True)
    env = _users_shell(tmp_path / "home", activated)
    script = Path(sys.executable).parent / "ctxres-hook"
    looked_up = subprocess.run(["sh", "-c", "command -v ctxres-hook"], env=env, capture_output=True, text=True)
    assert looked_up.stdout.strip() == str(script)
    result = ctxres("init", "--only", "hooks", cwd=repo, env=env)
    assert result.returncode == 0, result.stderr
    assert "none of them has" not in result.stdout, result.stdout
    row = _hook_runs_row(repo, env)
    if activated:
        where = f"the PATH, while {sys.prefix} is activated"
        assert f"find this machine's ({script}) in {where}, not in another shell: run `ctxres init --local " in (
            result.stdout
        )
    else:
        where = "the PATH"
        assert "and find this machine's in the PATH\n" in result.stdout, result.stdout
    assert row.endswith(f"; they run {script} ({where})"), row
