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
import uuid
from pathlib import Path
from typing import Any

import pytest

from ctxres.defaults import WORKFLOW_ENV
from tests.cli_process import ctxres
from tests.conftest import FIXTURES
from tests.git_sandbox import git
from tests.hooks.hook_project import answer, payload

WORKSPACE = FIXTURES / "ack" / "two-unacknowledged"  # PROJ-002, ACTIVE, v2.0, two checkpoints waiting
REAL = "projects/PROJ-002/ORCHESTRATION.yaml"
NOW = "2026-03-02T12:00:00Z"


def env(**extra: str) -> dict[str, str]:
    result = {k: v for k, v in os.environ.items() if k != WORKFLOW_ENV}
    return {**result, "CTXRES_NOW": NOW, **extra}


def hook(event: str, root: Path, **fields: Any) -> subprocess.CompletedProcess[str]:
    """The real ``ctxres-hook EVENT`` process in the project ``root``."""
    return subprocess.run(
        [sys.executable, "-m", "ctxres.hooks.main", event],
        input=json.dumps(payload(root, event, **{"session_id": uuid.uuid4().hex, **fields})),
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


# --- worktrees and what git ignores --------------------------------------------------------------


def checkpoint_ids(folder: Path) -> dict[str, str]:
    """{file name: orchestration_state.workflow_id} of the checkpoints in ``folder``."""
    found = {}
    for path in sorted(folder.glob("cx-*.json")):
        found[path.name] = json.loads(path.read_text())["orchestration_state"]["workflow_id"]
    return found


def test_a_claude_code_worktree_never_becomes_the_main_checkouts_live_workflow(project: Path) -> None:
    """A worktree under `.claude/worktrees/wt2` (a `.git` file, as the client makes it) holds a newer
    ACTIVE workflow: in the main checkout SessionStart, PreCompact and `ack` act on the main checkout's
    workflow; run inside the worktree, the same hooks act on the worktree's."""
    git(project, "add", "-A")
    git(project, "commit", "-qm", "PROJ-002")
    tree = project / ".claude" / "worktrees" / "wt2"
    git(project, "worktree", "add", "-q", str(tree))
    assert (tree / ".git").is_file()
    (tree / REAL).write_text(variant((tree / REAL).read_text(), "wt2-feature-001", updated="2026-03-02T11:00:00Z"))
    for name in ("cx-001-checkpoint.json", "cx-002-checkpoint.json"):
        (tree / ".jerry" / "checkpoints" / name).unlink()  # the worktree's own sessions have none yet

    opening = session_start(project)
    assert "WORKFLOW: proj002-docs-20260302-001" in opening and "wt2-feature-001" not in opening
    answer(hook("PreCompact", project, trigger="auto"), "PreCompact")
    written = checkpoint_ids(project / ".jerry" / "checkpoints")
    assert written["cx-003.json"] == "proj002-docs-20260302-001", written
    acked = ctxres("ack", "--all", "--now", "2026-03-02T12:30:00Z", cwd=project, env=env())
    assert acked.returncode == 0, acked.stderr
    assert f"into {REAL}" in acked.stdout and "worktrees" not in acked.stdout + acked.stderr
    assert "wt2-feature-001" not in (project / REAL).read_text()

    inside = session_start(tree)
    assert "WORKFLOW: wt2-feature-001" in inside
    answer(hook("PreCompact", tree, trigger="auto"), "PreCompact")
    assert checkpoint_ids(tree / ".jerry" / "checkpoints") == {"cx-001.json": "wt2-feature-001"}


def test_a_workflow_in_a_folder_git_ignores_is_not_the_live_workflow(project: Path) -> None:
    """A newer ACTIVE workflow in a folder the project's .gitignore ignores (a scratch copy) is never
    chosen; a `!` rule that keeps one file again is honoured, and so is a .gitignore above the project folder."""
    (project / ".gitignore").write_text("# scratch copies\nscratch/\n*.local.yaml\n")
    newer = variant((project / REAL).read_text(), "scratch-001", updated="2026-03-02T11:00:00Z")
    (project / "scratch").mkdir()
    (project / "scratch" / "ORCHESTRATION.yaml").write_text(newer)
    (project / "projects" / "ORCHESTRATION.local.yaml").write_text(newer)
    result = ctxres("prompt", cwd=project, env=env())
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines()[0] == f"ctxres prompt: using {REAL}: the only live workflow (status ACTIVE)"
    assert "WORKFLOW: proj002-docs-20260302-001" in session_start(project)

    (project / "projects" / ".gitignore").write_text("!ORCHESTRATION.local.yaml\n")
    assert "WORKFLOW: scratch-001" in session_start(project)
    result = ctxres("prompt", cwd=project, env=env())
    assert "using projects/ORCHESTRATION.local.yaml" in result.stderr.splitlines()[0]

    (project / ".gitignore").write_text("projects/*.local.yaml\n")  # above the project opened in projects/
    (project / "projects" / ".gitignore").unlink()
    shutil.move(project / "scratch", project / "projects" / "scratch")
    assert "WORKFLOW: scratch-001" in session_start(project / "projects")  # scratch/ is no longer ignored
    (project / "projects" / "scratch" / "ORCHESTRATION.yaml").unlink()
    assert "WORKFLOW: proj002-docs-20260302-001" in session_start(project / "projects")


# --- a status word nobody knows ------------------------------------------------------------------


def test_a_status_typo_in_the_live_workflow_is_named_never_replaced_by_an_old_one(project: Path) -> None:
    """`workflow_status: "ACTVE"` in the workflow being worked on: every hook and command names it and the
    unknown word, and none of them resumes the 278-day-old ACTIVE workflow beside it."""
    old = project / "projects" / "PROJ-001" / "ORCHESTRATION.yaml"
    old.parent.mkdir()
    old.write_text(variant((project / REAL).read_text(), "proj001-old-001", updated="2025-05-28T10:00:00Z"))
    real = project / REAL
    real.write_text(real.read_text().replace('workflow_status: "ACTIVE"', 'workflow_status: "ACTVE"'))
    sentence = (
        f'the live workflow {REAL} has workflow_status "ACTVE", which is not a status ctxres knows '
        "(ACTIVE, PAUSED, COMPLETE, FAILED): fix it"
    )
    opening = session_start(project)
    assert sentence in opening and "proj001-old-001" not in opening and "PROJ-001" not in opening
    status = subprocess.run(
        [sys.executable, "-m", "ctxres.hooks.main", "statusline"],
        input=json.dumps({"session_id": "s", "cwd": str(project)}),
        capture_output=True,
        text=True,
        cwd=project,
        env=env(CLAUDE_PROJECT_DIR=str(project), COLUMNS="200"),
        timeout=120,
    )
    assert f'{REAL}: unknown status "ACTVE": fix it' in status.stdout and "PROJ-001" not in status.stdout
    monitor = answer(hook("UserPromptSubmit", project, prompt="go on"), "UserPromptSubmit")
    said = json.dumps(monitor)
    assert "PROJ-001" not in said
    prompt = ctxres("prompt", cwd=project, env=env())
    assert prompt.returncode != 0 and sentence in prompt.stderr and "PROJ-001" not in prompt.stderr
    before = old.read_bytes()
    acked = ctxres("ack", cwd=project, env=env())
    assert acked.returncode != 0 and sentence in acked.stderr
    assert old.read_bytes() == before  # nothing merged into the old workflow
    answer(hook("PreCompact", project, trigger="auto"), "PreCompact")
    assert "proj001-old-001" not in checkpoint_ids(project / ".jerry" / "checkpoints").values()

    pinned = project / ".ctxres.toml"
    pinned.write_text(pinned.read_text() + f'live-workflow = "{REAL}"\n')
    assert sentence in ctxres("prompt", cwd=project, env=env()).stderr
