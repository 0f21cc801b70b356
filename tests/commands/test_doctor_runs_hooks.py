"""`ctxres doctor` runs every configured hook command and checks that pre-commit can run.

A hook command that is not found exits 127 and Claude Code only logs it in its debug log; a
``.pre-commit-config.yaml`` does nothing until ``pre-commit install`` is run, and a ``rev:`` that
does not exist breaks every commit. The doctor reports each of them and exits 1.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ctxres.hook_events import EVENTS
from ctxres.linters.commands.init import TEMPLATE_PATH
from ctxres.linters.setup.hook_runs import harmless_payload

from ..cli_process import ctxres, minimal_path
from ..git_sandbox import git

PRECOMMIT = Path(sys.executable).parent / "pre-commit"


def rows(result: subprocess.CompletedProcess[str]) -> list[dict[str, Any]]:
    layers: list[dict[str, Any]] = json.loads(result.stdout)["layers"]
    return layers


@pytest.fixture
def hooks_source(tmp_path: Path) -> Path:
    """A local clone of the ctxres hooks repository, with the tag v1.0.0."""
    source = tmp_path / "ctxres-src"
    source.mkdir()
    git(source, "init", "-q")
    (source / "README").write_text("hooks\n")
    git(source, "add", "README")
    git(source, "commit", "-q", "-m", "first")
    git(source, "tag", "v1.0.0")
    return source


@pytest.fixture
def project(tmp_path: Path, hooks_source: Path) -> Path:
    """A repository set up by `ctxres init`, its pre-commit hooks taken from the local clone."""
    root = tmp_path / "project"
    root.mkdir()
    git(root, "init", "-q")
    assert ctxres("init", cwd=root).returncode == 0
    # The remote form a team uses once ctxres is published (init writes `repo: local`): a clone's tag.
    config = root / ".pre-commit-config.yaml"
    config.write_text(
        f"repos:\n  - repo: {hooks_source}\n    rev: v1.0.0\n    hooks:\n"
        + "".join(f"      - id: {hook_id}\n" for hook_id in ("ctxres-check", "ctxres-stale", "ctxres-reinject"))
    )
    return root


def test_a_good_set_up_passes(project: Path) -> None:
    result = ctxres("doctor", "--output-format", "json", cwd=project, env=minimal_path())
    assert result.returncode == 0, result.stdout
    found = {row["layer"]: row["status"] for row in rows(result)}
    assert found["hook runs"] == found["git hook"] == found["rev"] == "present"
    assert set(found.values()) == {"present"}


def test_a_hook_command_that_is_not_found_fails_the_doctor(project: Path) -> None:
    """The set-up of the issue: bare `ctxres-hook` commands and a PATH without the virtual environment."""
    settings = project / ".claude" / "settings.json"
    data = json.loads(settings.read_text())
    for groups in data["hooks"].values():
        for group in groups:
            for handler in group["hooks"]:
                handler["command"] = "ctxres-hook " + handler["command"].rsplit(" ", 1)[1]
    settings.write_text(json.dumps(data, indent=2))
    result = ctxres("doctor", cwd=project, env=minimal_path())
    assert result.returncode == 1
    assert "All layers present" not in result.stdout
    assert "`ctxres-hook PreCompact` (.claude/settings.json) exits with status 127 (command not found)" in result.stdout
    assert "fix: ctxres install-hooks (registers the command every machine runs" in result.stdout
    report = rows(ctxres("doctor", "--output-format", "json", cwd=project, env=minimal_path()))
    failed = [row for row in report if row["status"] != "present"]
    assert len(failed) == 4 and {row["layer"] for row in failed} == {"hook runs"}
    github = ctxres("doctor", "--output-format", "github", cwd=project, env=minimal_path())
    assert github.returncode == 1 and "file=.claude/settings.json" in github.stdout and "L002" in github.stdout


def test_a_clone_without_its_local_step_is_told_to_run_it(project: Path) -> None:
    """The portable commands of the committed file, and no `.claude/settings.local.json` (a teammate's new
    clone): with a PATH that has no ctxres-hook and no .venv, each hook does nothing, and the fix is to
    install ctxres where they look, or `ctxres init --local`."""
    (project / ".claude" / "settings.local.json").unlink()
    result = ctxres("doctor", cwd=project, env=minimal_path())
    assert result.returncode == 1
    assert (
        "`ctxres-hook PreCompact` (.claude/settings.json) finds no ctxres-hook here ($CTXRES_HOOK, the project's "
        ".venv, the PATH), so it does nothing"
    ) in result.stdout
    assert "`ctxres-hook statusline` (.claude/settings.json) finds no ctxres-hook here" in result.stdout
    assert "so it shows nothing" in result.stdout  # the project has no statusline of its own
    assert (
        "fix: install ctxres in the project's .venv, or with pipx or `uv tool`; or ctxres init --local" in result.stdout
    )
    assert "install-hooks" not in result.stdout.split("PreCompact` (.claude/settings.json)", 1)[1].splitlines()[1]


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("echo not-json # ctxres-hook", "which is not a JSON object"),
        ("exit 3 # ctxres-hook", "exits with status 3"),
        ("sleep 5 # ctxres-hook", "did not answer within 1 s"),
    ],
)
def test_a_hook_that_does_not_answer_fails_the_doctor(project: Path, command: str, expected: str) -> None:
    local = project / ".claude" / "settings.local.json"
    local.write_text(
        json.dumps({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": command, "timeout": 1}]}]}})
    )
    result = ctxres("doctor", cwd=project)
    assert result.returncode == 1
    assert f"`{command}` (.claude/settings.local.json)" in result.stdout and expected in result.stdout


def test_running_the_hooks_changes_nothing_in_the_project(project: Path) -> None:
    """With a live workflow, where PreCompact would write a checkpoint and UserPromptSubmit the monitor state."""
    workflow = (project / TEMPLATE_PATH).read_text().replace("resumption:", "workflow:\n  status: ACTIVE\nresumption:")
    (project / "ORCHESTRATION.yaml").write_text(workflow)
    before = snapshot(project)
    assert ctxres("doctor", cwd=project).returncode == 0
    assert snapshot(project) == before


def test_the_payloads_alone_write_nothing(project: Path) -> None:
    """Even a ctxres-hook that ignores CTXRES_HOOK_PROBE (an older install) writes nothing on the doctor's
    payloads."""
    workflow = (project / TEMPLATE_PATH).read_text().replace("resumption:", "workflow:\n  status: ACTIVE\nresumption:")
    (project / "ORCHESTRATION.yaml").write_text(workflow)
    before = snapshot(project)
    hook = Path(sys.executable).parent / "ctxres-hook"
    for event in EVENTS:
        done = subprocess.run(
            [str(hook), event],
            input=json.dumps(harmless_payload(event, project)).encode(),
            capture_output=True,
            cwd=project,
            env={**os.environ, "CLAUDE_PROJECT_DIR": str(project)},
            timeout=60,
        )
        assert done.returncode == 0
    assert snapshot(project) == before
    assert not (project / ".jerry").exists()


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(root).parts
    }


def test_a_rev_that_does_not_exist_fails_the_doctor(project: Path) -> None:
    config = project / ".pre-commit-config.yaml"
    config.write_text(config.read_text().replace("v1.0.0", "v9.9.9"))
    result = ctxres("doctor", cwd=project)
    assert result.returncode == 1
    assert "rev v9.9.9 does not exist in" in result.stdout and "Misconfigured: rev." in result.stdout


def test_a_file_url_is_checked_like_a_path(project: Path, hooks_source: Path) -> None:
    config = project / ".pre-commit-config.yaml"
    config.write_text(config.read_text().replace(str(hooks_source), f"file://{hooks_source}"))
    assert ctxres("doctor", cwd=project).returncode == 0
    config.write_text(config.read_text().replace("v1.0.0", "no-such-tag"))
    assert "rev no-such-tag does not exist" in ctxres("doctor", cwd=project).stdout


def test_an_unreachable_remote_is_a_warning_not_a_failure(project: Path, hooks_source: Path) -> None:
    config = project / ".pre-commit-config.yaml"
    config.write_text(config.read_text().replace(str(hooks_source), "https://ctxres.invalid/ctxres"))
    result = ctxres("doctor", cwd=project)
    assert result.returncode == 0, result.stdout
    assert re.search(
        r"^rev +unverified +could not verify rev v1\.0\.0 of https://ctxres\.invalid/ctxres", result.stdout, re.M
    )
    assert "Warning: could not verify rev." in result.stdout
    found = {row["layer"]: row["status"] for row in rows(ctxres("doctor", "--output-format", "json", cwd=project))}
    assert found["rev"] == "unverified"


def test_pre_commit_install_is_detected(tmp_path: Path, hooks_source: Path) -> None:
    root = tmp_path / "fresh"
    root.mkdir()
    git(root, "init", "-q")
    (root / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {hooks_source}\n    rev: v1.0.0\n    hooks:\n      - id: ctxres-check\n"
    )
    before = ctxres("doctor", cwd=root)
    assert re.search(r"^git hook +missing +no \.git/hooks/pre-commit", before.stdout, re.M)
    assert "fix: pre-commit install" in before.stdout
    (root / ".git" / "hooks" / "pre-commit").write_text("#!/bin/sh\nmake lint\n")
    assert "was not written by pre-commit" in ctxres("doctor", cwd=root).stdout
    (root / ".git" / "hooks" / "pre-commit").unlink()
    subprocess.run([str(PRECOMMIT), "install"], cwd=root, check=True, capture_output=True, timeout=120)
    after = ctxres("doctor", "--output-format", "json", cwd=root)
    assert {row["layer"]: row["status"] for row in rows(after)}["git hook"] == "present"


def test_core_hooks_path_is_where_the_hook_must_be(tmp_path: Path, hooks_source: Path) -> None:
    root = tmp_path / "custom"
    root.mkdir()
    git(root, "init", "-q")
    git(root, "config", "core.hooksPath", "githooks")
    (root / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {hooks_source}\n    rev: v1.0.0\n    hooks:\n      - id: ctxres-stale\n"
    )
    subprocess.run([str(PRECOMMIT), "install"], cwd=root, capture_output=True, timeout=120)  # refuses: hooksPath
    assert (root / ".git" / "hooks" / "pre-commit").is_file() is False
    (root / ".git" / "hooks" / "pre-commit").write_text("# File generated by pre-commit\n")  # in the wrong folder
    result = ctxres("doctor", cwd=root)
    assert "no githooks/pre-commit" in result.stdout and result.returncode == 1
