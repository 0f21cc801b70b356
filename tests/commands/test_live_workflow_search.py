"""The search for the live workflow as a team's repository meets it: worktrees that Claude Code makes under
``.claude/worktrees/``, folders git ignores, a status word nobody knows, and the paths ``ack`` and ``prompt``
print for the other live workflows. Real git, real ``ctxres`` and ``ctxres-hook`` processes.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ctxres.state import orchestration
from tests.cli_process import ctxres
from tests.conftest import FIXTURES
from tests.git_sandbox import git
from tests.hooks.hook_project import answer, payload

WORKSPACE = FIXTURES / "ack" / "two-unacknowledged"  # PROJ-002, ACTIVE, v2.0, two checkpoints waiting
REAL = "projects/PROJ-002/ORCHESTRATION.yaml"
NOW = "2026-03-02T12:00:00Z"


def env(**extra: str) -> dict[str, str]:
    result = {k: v for k, v in os.environ.items() if k != orchestration.WORKFLOW_ENV}
    return {**result, "CTXRES_NOW": NOW, **extra}


def hook(event: str, root: Path, **fields: Any) -> subprocess.CompletedProcess[str]:
    """The real ``ctxres-hook EVENT`` process in the project ``root``."""
    return subprocess.run(
        [sys.executable, "-m", "ctxres.hooks.main", event],
        input=json.dumps(payload(root, event, session_id="s", **fields)),
        capture_output=True,
        text=True,
        cwd=root,
        env=env(CLAUDE_PROJECT_DIR=str(root)),
        timeout=120,
    )


def session_start(root: Path) -> str:
    output = answer(hook("SessionStart", root, source="startup"), "SessionStart")
    text: str = output["hookSpecificOutput"]["additionalContext"] if output else ""
    return text


def variant(text: str, workflow_id: str, *, status: str = "ACTIVE", updated: str = "2026-03-02T10:30:00Z") -> str:
    """The fixture's workflow with another id, status and update time."""
    text = text.replace('workflow_status: "ACTIVE"', f'workflow_status: "{status}"')
    text = text.replace('updated_at: "2026-03-02T10:00:00Z"', f'updated_at: "{updated}"')
    return text.replace("proj002-docs-20260302-001", workflow_id)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    shutil.copytree(WORKSPACE, root)
    git(root, "init", "-q")
    return root


# --- the paths of the other live workflows -------------------------------------------------------


def test_also_live_paths_never_climb_out_and_each_is_listed_once(project: Path) -> None:
    """The chosen workflow at the top, another one two folders down: from the top the other is said from
    there; from a subfolder, each path under it is said from it, the others from the top, never with `..`."""
    (project / "ORCHESTRATION.yaml").write_text(variant((project / REAL).read_text(), "top-001"))
    expected = (
        "using ORCHESTRATION.yaml: the most recently updated of 2 live workflows (status ACTIVE, updated "
        f"2026-03-02T10:30:00Z); also live: {REAL}"
    )
    below = (
        "using ORCHESTRATION.yaml: the most recently updated of 2 live workflows (status ACTIVE, updated "
        "2026-03-02T10:30:00Z); also live: PROJ-002/ORCHESTRATION.yaml"
    )
    result = ctxres("prompt", cwd=project / "projects", env=env())
    assert below in result.stderr and ".." not in result.stderr, result.stderr
    result = ctxres("prompt", cwd=project, env=env())
    assert result.stderr.splitlines()[0] == f"ctxres prompt: {expected}"
    result = ctxres("ack", "--now", "2026-03-02T11:00:00Z", cwd=project, env=env())
    assert result.stdout.splitlines()[0] == expected, result.stdout + result.stderr
