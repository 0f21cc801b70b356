"""`ctxres check FILE`: a file that belongs to a workflow is checked with the files the rules compare it
with, so that naming the changed files (as pre-commit does) reports what `ctxres check .` reports about
them; and `--force-exclude` / `force-exclude`, which make the excludes apply to named files too."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ctxres.config import load_config
from ctxres.linters.checking.discovery import Artifact, discover
from ctxres.linters.checking.units import unit_members

from ..conftest import FIXTURES
from ..git_sandbox import Sandbox

CHECKPOINT = ".jerry/checkpoints/cx-002-checkpoint.json"
GRAPH = ".agent-memory/runs/20260115-1000-demo/task-graph.json"
LOG = ".agent-memory/runs/20260115-1000-demo/events/executor/20260115_1030.jsonl"


def _copy(fixture: str, box: Sandbox) -> None:
    shutil.copytree(FIXTURES / "rules" / fixture, box.root, dirs_exist_ok=True)


@pytest.fixture
def workflow(tmp_path: Path) -> Sandbox:
    """A repository whose workflow has not merged the checkpoint cx-002 (A010)."""
    box = Sandbox(tmp_path / "repo")
    _copy("A010/bad", box)
    box.git("add", ".")
    box.git("commit", "-q", "-m", "workflow")
    return box


def test_a_checkpoint_is_checked_with_its_workflow(workflow: Sandbox) -> None:
    whole = workflow.ctxres("check", ".")
    assert whole.returncode == 1
    assert "ORCHESTRATION.yaml:33:5: A010 checkpoint .jerry/checkpoints/cx-002-checkpoint.json is not merged" in (
        whole.stdout
    )
    alone = workflow.ctxres("check", CHECKPOINT)
    assert (alone.returncode, alone.stdout) == (whole.returncode, whole.stdout)
    assert workflow.listed(CHECKPOINT) == [
        ".jerry/checkpoints/cx-001-checkpoint.json",
        CHECKPOINT,
        "ORCHESTRATION.yaml",
    ]


def test_the_unit_is_the_same_from_a_sub_folder(workflow: Sandbox) -> None:
    inside = workflow.root / ".jerry" / "checkpoints"
    result = workflow.ctxres("check", "cx-002-checkpoint.json", cwd=inside)
    assert result.returncode == 1
    assert "../../ORCHESTRATION.yaml:33:5: A010" in result.stdout


def test_the_monitor_state_brings_its_workflow(workflow: Sandbox) -> None:
    workflow.write(".jerry/context-monitor-state.json", "{}\n")
    assert "ORCHESTRATION.yaml" in workflow.listed(".jerry/context-monitor-state.json")


def test_a_workflow_file_brings_the_checkpoints_of_its_state_folder(workflow: Sandbox) -> None:
    assert workflow.listed("ORCHESTRATION.yaml") == workflow.listed(".")


def test_a_checkpoint_outside_a_state_folder_is_alone(workflow: Sandbox) -> None:
    workflow.write("notes/cx-009-checkpoint.json", '{"checkpoint_id": "cx-009"}\n')  # ours by its keys
    assert workflow.listed("notes/cx-009-checkpoint.json") == ["notes/cx-009-checkpoint.json"]


def test_a_task_graph_is_checked_with_the_event_logs_of_its_run(tmp_path: Path) -> None:
    box = Sandbox(tmp_path / "repo")
    _copy("M002/bad", box)
    whole = box.ctxres("check", ".", "--select", "M002")
    assert whole.returncode == 1
    assert f"{LOG}:2:" in whole.stdout
    alone = box.ctxres("check", GRAPH, "--select", "M002")
    assert (alone.returncode, alone.stdout) == (whole.returncode, whole.stdout)


def test_unit_members_follow_the_ignore_rules(workflow: Sandbox) -> None:
    # A workflow git ignores is not part of what `ctxres check .` sees, so not of the unit either.
    workflow.write(".gitignore", "ORCHESTRATION.yaml\n")
    workflow.git("rm", "-q", "--cached", "ORCHESTRATION.yaml")
    assert workflow.listed(CHECKPOINT) == [".jerry/checkpoints/cx-001-checkpoint.json", CHECKPOINT]


# --- --force-exclude ----------------------------------------------------------------------------------


@pytest.fixture
def archived(tmp_path: Path) -> Sandbox:
    box = Sandbox(tmp_path / "repo")
    box.write(".ctxres.toml", 'extend-exclude = ["archive/"]\n')
    box.write("archive/cx-001-checkpoint.json", '{not json, "checkpoint_id": "cx-001"}\n')  # broken, of our keys
    return box


def test_a_named_file_is_checked_whatever_the_excludes(archived: Sandbox) -> None:
    result = archived.ctxres("check", "archive/cx-001-checkpoint.json")
    assert result.returncode == 1
    assert "archive/cx-001-checkpoint.json:1:2: P001" in result.stdout
    assert archived.ctxres("check", ".").returncode == 0


def test_force_exclude_drops_a_named_file_the_excludes_drop(archived: Sandbox) -> None:
    result = archived.ctxres("check", "--force-exclude", "archive/cx-001-checkpoint.json")
    assert result.returncode == 0, result.stdout
    assert "no resumption artifacts found" in result.stderr
    inside = archived.ctxres("check", "--force-exclude", "cx-001-checkpoint.json", cwd=archived.root / "archive")
    assert inside.returncode == 0, inside.stdout


def test_force_exclude_as_a_setting(archived: Sandbox) -> None:
    archived.write(".ctxres.toml", 'extend-exclude = ["archive/"]\nforce-exclude = true\n')
    assert archived.ctxres("check", "archive/cx-001-checkpoint.json").returncode == 0
    archived.write(".ctxres.toml", 'extend-exclude = ["archive/"]\nforce-exclude = "yes"\n')
    wrong = archived.ctxres("check", "archive/cx-001-checkpoint.json")
    assert wrong.returncode == 2
    assert "`force-exclude` must be true or false" in wrong.stderr


def _workflows(root: Path, count: int) -> list[Artifact]:
    """``count`` copies of a workflow with its state folder; the checkpoints of all, as pre-commit names them."""
    for index in range(count):
        shutil.copytree(FIXTURES / "rules" / "A010" / "bad", root / f"wf-{index:02d}")
    config = load_config(root)
    return [a for a in discover([root], config, cwd=root) if a.kind == "checkpoint"]


@pytest.mark.parametrize("count", [3, 12])
def test_the_units_of_many_named_files_are_found_in_one_pass(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, count: int
) -> None:
    """pre-commit may name thousands of files at once: each found file is matched against the units in one
    lookup, not once per unit (which made 4,000 named files take 18 s instead of 3). The work, counted in
    resolved paths, grows as the files do."""
    root = tmp_path / "repo"
    root.mkdir()
    named = _workflows(root, count)
    assert len(named) == 2 * count
    config = load_config(root)
    resolved = 0
    original = Path.resolve

    def counting(self: Path, strict: bool = False) -> Path:
        nonlocal resolved
        resolved += 1
        return original(self, strict)

    monkeypatch.setattr(Path, "resolve", counting)
    members = unit_members(named, config, root)
    monkeypatch.undo()
    assert sorted(a.display for a in members) == sorted(
        f"wf-{index:02d}/{name}"
        for index in range(count)
        for name in ("ORCHESTRATION.yaml", CHECKPOINT.replace("002", "001"), CHECKPOINT)
    )
    # 7 per unit; resolving once per unit for each checkpoint found made it 27 for 3 units and 216 for 12.
    assert resolved <= 8 * count, resolved
