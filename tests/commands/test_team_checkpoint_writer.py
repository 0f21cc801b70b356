"""A team whose own checkpoint writer keeps ``cx-NNN.json`` in the state folder (tests/other_writer.py):
``ctxres init`` leaves the team's ignore of that folder as it is (git never sees the other tool's files), the
first commit through the real pre-commit passes, and ``ctxres renumber`` renames what an earlier release
named ``cx-NNN-checkpoint.json``, so that writer's ``int()`` numbering works again."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

from ..conftest import FIXTURES
from ..git_sandbox import Sandbox, executable
from ..other_writer import write_checkpoint, written
from ..team_repository import new_workflow

WORKFLOW = "projects/PROJ-001/ORCHESTRATION.yaml"


def test_init_respects_the_teams_ignore_of_its_own_checkpoints(tmp_path: Path) -> None:
    box = Sandbox(tmp_path / "repo")
    box.write(WORKFLOW, new_workflow("2026-11-26T10:00:00Z"))
    box.write(".gitignore", ".jerry/\n__pycache__/\n")
    box.git("add", ".")
    box.git("commit", "-q", "-m", "the team's repository before ctxres")
    theirs = written(box.root / ".jerry" / "checkpoints")  # the team's tool, "resumption_state": null
    assert theirs.name == "cx-001.json"

    init = box.ctxres("init")
    assert init.returncode == 0, init.stdout + init.stderr
    assert (box.root / ".gitignore").read_text().startswith(".jerry/\n__pycache__/\n")  # the team's line kept
    said = init.stdout + init.stderr
    assert "keep the checkpoints in git" not in said
    assert re.search(r"another tool's checkpoints.*cx-001\.json", said), said
    assert "stay on each machine" in said and "git add -f" in said, said

    doctor = box.ctxres("doctor")
    row = next(line for line in doctor.stdout.splitlines() if line.startswith("git keeps"))
    assert "MISCONFIGURED" not in row.upper() and "stay on each machine" in doctor.stdout, doctor.stdout

    box.git("add", "-A")
    commit = box.commit("Adopt ctxres")
    assert commit.returncode == 0, commit.stdout + commit.stderr
    assert re.search(r"ctxres check\.+Passed", commit.stdout + commit.stderr), commit.stdout + commit.stderr
    assert ".jerry/checkpoints/cx-001.json" not in box.git("ls-files").splitlines()
    assert written(box.root / ".jerry" / "checkpoints").name == "cx-002.json"  # and it keeps working


def test_a_checkpoint_git_ignores_is_not_missing_in_another_clone(tmp_path: Path) -> None:
    box = Sandbox(tmp_path / "repo")
    box.write(WORKFLOW, new_workflow("2026-11-26T10:00:00Z"))
    box.write(".gitignore", ".jerry/\n")
    written(box.root / ".jerry" / "checkpoints")
    assert box.ctxres("init", "--only", "gitignore").returncode == 0
    hook = subprocess.run(
        [executable("ctxres-hook"), "PreCompact"],
        input=json.dumps({"hook_event_name": "PreCompact", "trigger": "manual", "session_id": "s1", "cwd": "."}),
        cwd=box.root,
        env={**box.env, "CLAUDE_PROJECT_DIR": str(box.root)},
        capture_output=True,
        text=True,
    )
    assert hook.returncode == 0 and hook.stderr == "", hook.stderr
    ours = box.root / ".jerry" / "checkpoints" / "cx-002.json"
    assert box.ctxres("ack", "--all").returncode == 0
    assert box.ctxres("check", ".").returncode == 0
    ours.unlink()  # a teammate's clone: git never carried the file that compacted on this machine
    checked = box.ctxres("check", ".")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "A004" not in checked.stdout


def test_renumber_renames_the_checkpoints_an_earlier_release_named_so_the_other_writer_works(tmp_path: Path) -> None:
    box = Sandbox(tmp_path / "repo")
    case = FIXTURES / "rules" / "A014" / "bad"  # ours as cx-001-checkpoint.json, with its event; theirs cx-002.json
    shutil.copytree(case, box.root, dirs_exist_ok=True, ignore=shutil.ignore_patterns("EXPECTED"))
    box.git("add", "-A")
    box.git("commit", "-q", "-m", "the state as the earlier release left it")
    folder = box.root / ".jerry" / "checkpoints"
    dead = write_checkpoint(folder)
    assert dead.returncode != 0 and "invalid literal for int()" in dead.stderr  # the team's writer is dead
    checked = box.ctxres("check", ".")
    assert " A014 " in checked.stdout and "ctxres renumber" in checked.stdout, checked.stdout
    dry = box.ctxres("renumber", "--dry-run", "--file", "ORCHESTRATION.yaml")
    assert dry.returncode == 0 and "would rename .jerry/checkpoints/cx-001-checkpoint.json to cx-001.json" in (
        dry.stdout
    ), dry.stdout + dry.stderr
    assert (folder / "cx-001-checkpoint.json").exists()
    done = box.ctxres("renumber", "--file", "ORCHESTRATION.yaml")
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in folder.iterdir()) == ["cx-001.json", "cx-002.json"]
    text = (box.root / "ORCHESTRATION.yaml").read_text()
    assert ".jerry/checkpoints/cx-001.json" in text and "cx-001-checkpoint.json" not in text
    assert box.ctxres("check", ".").returncode == 0
    assert written(folder).name == "cx-003.json"  # the team's writer works again
