"""The rules of linters/rules/acknowledgement.py: each compaction event agrees with its checkpoint file on
disk (A004 to A007, A010, A011; beyond the rule fixtures), and the pages of the A rules."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from ctxres.config import load_config
from ctxres.linters.checking import engine
from ctxres.linters.rules import all_rules

from .rule_folders import GIT_HISTORY_RULES, RULES, a_findings, check_folder, copy_case


def test_checkpoint_path_outside_the_repository(tmp_path: Path) -> None:
    repo = copy_case("A001/good", tmp_path)
    orchestration = repo / "ORCHESTRATION.yaml"
    absolute = repo / ".jerry/checkpoints/cx-001-checkpoint.json"
    text = orchestration.read_text()
    orchestration.write_text(text.replace('".jerry/checkpoints/cx-001-checkpoint.json"', json.dumps(str(absolute))))
    [finding] = a_findings(check_folder(repo))
    assert finding.code == "A005" and "absolute path" in finding.message
    assert finding.fix == "write it relative to the repository root: .jerry/checkpoints/cx-001-checkpoint.json"


def test_a_symlink_that_leaves_the_repository_is_reported(tmp_path: Path) -> None:
    repo = copy_case("A001/good", tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    checkpoint = repo / ".jerry/checkpoints/cx-001-checkpoint.json"
    shutil.move(checkpoint, elsewhere / checkpoint.name)
    os.symlink(elsewhere / checkpoint.name, checkpoint)
    [finding] = a_findings(check_folder(repo))
    assert (finding.code, finding.position.line) == ("A005", 41)
    assert "outside the repository" in finding.message


def test_every_checkpoint_name_is_accepted_in_events(tmp_path: Path) -> None:
    repo = copy_case("A001/good", tmp_path)
    folder = repo / ".jerry/checkpoints"
    for new in ("cx-001.json", "cx-001.d933ffb7.json"):
        current = next(folder.iterdir())
        current.rename(folder / new)
        orchestration = repo / "ORCHESTRATION.yaml"
        text = orchestration.read_text()
        orchestration.write_text(text.replace(f".jerry/checkpoints/{current.name}", f".jerry/checkpoints/{new}"))
        assert check_folder(repo) == [], new


def test_missing_file_is_reported_only_when_git_keeps_it(tmp_path: Path) -> None:
    repo = copy_case("A004/good", tmp_path)  # .jerry/ is git-ignored and absent: nothing to check
    assert check_folder(repo) == []
    (repo / ".jerry" / "checkpoints").mkdir(parents=True)  # present, still ignored: local to the clone that compacted
    assert check_folder(repo) == []
    (repo / ".gitignore").unlink()  # git keeps it: the file should be there
    assert [(f.code, f.position.line) for f in check_folder(repo)] == [("A004", 41)]


def test_unmerged_checkpoint_goes_to_the_workflow_that_wrote_it(tmp_path: Path) -> None:
    repo = copy_case("A010/bad", tmp_path)
    other = repo / "projects" / "other" / "ORCHESTRATION.yaml"
    other.parent.mkdir(parents=True)
    text = (repo / "ORCHESTRATION.yaml").read_text()
    other.write_text(
        text.replace('id: "demo-20260302-001"', 'id: "other-20260302-001"').replace("count: 1", "count: 0")
    )
    found = [f for f in check_folder(repo) if f.code == "A010"]
    assert [f.path for f in found] == ["ORCHESTRATION.yaml"]  # the checkpoint's workflow_id is demo-...
    assert found[0].fix == "run `ctxres ack --file ORCHESTRATION.yaml`"  # several workflows: name the file


def test_unmerged_message_says_what_to_run(tmp_path: Path) -> None:
    [pending] = [f for f in check_folder(RULES / "A010/bad") if f.code == "A010"]
    assert "cx-002-checkpoint.json is not merged" in pending.message
    assert pending.fix == "run `ctxres ack`"
    messages = {f.message.split(" is ")[0]: f.fix for f in check_folder(RULES / "A010/bad2") if f.code == "A010"}
    assert messages["checkpoint .jerry/checkpoints/cx-001-checkpoint.json"].startswith('reset `"acknowledged": false`')


def test_section_showing_the_checkpoint_state_is_not_reported(tmp_path: Path) -> None:
    repo = copy_case("A011/bad", tmp_path)
    assert [f.code for f in a_findings(check_folder(repo))] == ["A011"]
    checkpoint = repo / ".jerry/checkpoints/cx-001-checkpoint.json"
    data = json.loads(checkpoint.read_text())
    data["orchestration_state"].update(current_activity="phase-2-agent-execution", current_gate=None)
    del data["orchestration_state"]["current_gate_iteration"]
    checkpoint.write_text(json.dumps(data, indent=2))
    assert a_findings(check_folder(repo)) == []


def test_only_the_orchestration_file_is_checked(tmp_path: Path) -> None:
    """Checked alone, the file still compares itself with the checkpoint files on disk."""
    report = engine.run(
        [RULES / "A010/bad/ORCHESTRATION.yaml"], load_config(RULES / "A010/bad"), cwd=RULES / "A010/bad"
    )
    assert [f.code for f in report.findings] == ["A010"]


@pytest.mark.parametrize("code", sorted(code for code in all_rules() if code.startswith("A")))
def test_each_a_rule_has_a_bad_and_a_good_fixture(code: str) -> None:
    assert (RULES / code / "bad").is_dir() or code in GIT_HISTORY_RULES
    assert (RULES / code / "good").is_dir()
