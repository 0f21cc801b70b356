"""Every way a user installs ctxres, with real processes and no index (a wheelhouse fetched once): ``pipx
install`` and ``uv tool install`` of the built wheel, then ``ctxres init``, the hooks run as the client runs
them, and a stale commit blocked; the remote pre-commit form (a tagged git repository of this tree), where
pre-commit installs ctxres by itself and blocks the stale commit. What each route writes is not asserted
word for word (``init`` may change how it spells a command): only that it names no path of this machine."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

import ctxres

from ..team_repository import stale_commit_is_blocked
from .routes import (
    pipx_install,
    pre_commit_only,
    run_as_the_client,
    tagged_source_repository,
    user_project,
    uv_tool_install,
    wheelhouse,
)

VERSION = ctxres.__version__
COMMITTED = (".claude/settings.json", ".pre-commit-config.yaml", "CLAUDE.md", ".gitignore")
# A payload of each event, as the client sends it (a new session, a manual compaction, a prompt, a tool call).
EVENTS: dict[str, dict[str, object]] = {
    "SessionStart": {"source": "startup"},
    "PreCompact": {"trigger": "manual", "custom_instructions": ""},
    "UserPromptSubmit": {"prompt": "Go on with FEAT-900."},
    "PostToolUse": {"tool_name": "Read", "tool_input": {"file_path": "README.md"}, "tool_response": {}},
}
ROUTES: dict[str, Callable[[Path, Path, Path], Path]] = {"pipx": pipx_install, "uv tool": uv_tool_install}


@pytest.fixture(scope="module")
def wheels(built_wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return wheelhouse(tmp_path_factory.mktemp("wheelhouse"), built_wheel)


@pytest.mark.parametrize("route", sorted(ROUTES))
def test_a_tool_install_then_init(route: str, built_wheel: Path, wheels: Path, tmp_path: Path) -> None:
    apps = ROUTES[route](tmp_path / "install", built_wheel, wheels)
    assert sorted(p.name for p in apps.iterdir()) == ["ctxres", "ctxres-hook"]
    project = user_project(tmp_path / "repo", apps, pre_commit_only(tmp_path / "pre-commit-only"))
    assert project.run("ctxres", "--version").stdout.strip() == f"ctxres {VERSION}"

    init = project.run("ctxres", "init")
    assert init.returncode == 0, init.stdout + init.stderr
    for name in COMMITTED:
        text = (project.root / name).read_text()
        assert str(tmp_path) not in text, f"{name} names a path of this machine:\n{text}"
    assert (project.root / ".git" / "hooks" / "pre-commit").is_file(), init.stdout + init.stderr

    # The hooks answer as the client runs them: SessionStart re-orients a new session on the workflow,
    # PreCompact writes a checkpoint, which `ctxres ack` merges into the resumption section.
    hooks = project.hook_commands()
    answers = {event: run_as_the_client(project, command, event, EVENTS[event]) for event, command in hooks}
    assert sorted(answers) == sorted(EVENTS)
    assert "FEAT-900" in json.dumps(answers["SessionStart"]["hookSpecificOutput"]), answers["SessionStart"]
    assert len(list((project.root / ".jerry" / "checkpoints").glob("cx-*.json"))) == 1
    acked = project.run("ctxres", "ack", "--all")
    assert acked.returncode == 0, acked.stdout + acked.stderr

    doctor = project.run("ctxres", "doctor")
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    project.git("add", "-A")
    adopted = project.commit("Adopt ctxres")
    assert adopted.returncode == 0, adopted.stdout + adopted.stderr
    stale_commit_is_blocked(project)


def test_the_remote_pre_commit_form(wheels: Path, tmp_path: Path) -> None:
    tag = f"v{VERSION}"
    origin = tagged_source_repository(tmp_path / "ctxres.git", tag)
    # No ctxres anywhere on this user's PATH: pre-commit installs it from the tagged repository.
    project = user_project(tmp_path / "repo", pre_commit_only(tmp_path / "pre-commit-only"), tmp_path / "nothing")
    project.env.update(PIP_CONFIG_FILE="/dev/null", PIP_NO_INDEX="1", PIP_FIND_LINKS=str(wheels))
    ids = ["ctxres-check", "ctxres-stale", "ctxres-reinject", "ctxres-append-only"]
    config = {"repos": [{"repo": str(origin), "rev": tag, "hooks": [{"id": hook} for hook in ids]}]}
    project.write(".pre-commit-config.yaml", yaml.safe_dump(config, sort_keys=False))
    installed = project.run("pre-commit", "install")
    assert installed.returncode == 0, installed.stdout + installed.stderr
    project.git("add", "-A")
    first = project.commit("pre-commit with the ctxres hooks")
    assert first.returncode == 0, first.stdout + first.stderr
    environments = list((project.home / "pre-commit").glob("repo*/py_env-*/bin/ctxres"))
    assert len(environments) == 1, "pre-commit did not install ctxres from the tagged repository"
    stale_commit_is_blocked(project)
