"""A rules: compaction events agree with the checkpoint files on disk (beyond the rule fixtures)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from ctxres.config import Config, load_config
from ctxres.findings import Finding
from ctxres.linters.checking import engine
from ctxres.linters.rules import all_rules

from ..conftest import CORPUS, FIXTURES

RULES = FIXTURES / "rules"
SECTION_023 = "023-PROJ-004-context-resilience--feat001-impl-20260220-001.yaml"


def _a(findings: list[Finding]) -> list[Finding]:
    return [f for f in findings if f.code.startswith("A")]


def _check(folder: Path) -> list[Finding]:
    return engine.run([folder], load_config(folder), cwd=folder).findings


def _copy(case: str, tmp_path: Path) -> Path:
    target = tmp_path / "repo"
    shutil.copytree(RULES / case, target)
    return target


def test_corpus_v2_file_count_explained_by_an_event_of_another_shape_is_one_c007() -> None:
    """count: 6 with one event of another shape (`compactions: 6`): the C007 on the event is the one
    error; A001 does not report the same root cause again."""
    path = CORPUS / "orchestration" / SECTION_023
    report = engine.run([path], Config(root=CORPUS), cwd=CORPUS)
    assert _a(report.findings) == []
    assert [(f.code, f.position.line) for f in report.findings if f.code == "C007" and f.position.line == 335] == [
        ("C007", 335)
    ]


def test_corpus_acknowledgement_findings_are_the_checkpoints_without_recovery_state() -> None:
    report = engine.run([CORPUS], Config(root=CORPUS), cwd=CORPUS)
    assert {(Path(f.path).parent.name, f.code) for f in _a(report.findings)} == {("checkpoints", "A012")}
    assert len(_a(report.findings)) == 10


def test_a012_a_checkpoint_without_the_workflow_position(tmp_path: Path) -> None:
    import json

    def a012(saved: object) -> list[str]:
        data = {
            "checkpoint_id": "cx-004",
            "context_state": {"fill_percentage": 0.9},
            "created_at": "2026-03-01T10:00:00Z",
        }
        if saved != "absent":
            data["resumption_state"] = saved
        path = tmp_path / "cx-004.json"
        path.write_text(json.dumps(data, indent=2))
        found = engine.run([path], Config(root=tmp_path), cwd=tmp_path).findings
        return [f.message.split(":")[0] for f in found if f.code == "A012"]

    assert a012(None) == ["`resumption_state` is null"]
    assert a012({"quality_trajectory": {}}) == ["`resumption_state` has no `recovery_state`"]
    assert a012({"recovery_state": {"next_step": "x"}}) == [
        "`resumption_state.recovery_state` has no `current_phase` and no `current_activity`"
    ]
    # The position is there (a phase, or an activity between phases): the alert can re-orient.
    assert a012({"recovery_state": {"current_phase": 0}}) == []
    assert a012({"recovery_state": {"current_activity": "qg-1-iteration-2"}}) == []
    assert a012("absent") == []  # C001 says the key is missing


def test_count_below_the_well_formed_events_is_still_a001_beside_an_odd_event(tmp_path: Path) -> None:
    repo = _copy("A001/good", tmp_path)
    orchestration = repo / "ORCHESTRATION.yaml"
    text = orchestration.read_text()
    odd = '      - session: "s-1"\n        compactions: 3\n'
    orchestration.write_text(text.replace("    count: 1\n", "    count: 0\n") + odd)
    found = _check(repo)
    assert [f.code for f in _a(found)] == ["A001"] and "is 0 but `events` has 2 entries" in _a(found)[0].message
    # The same odd event with a count it may explain: only the C007.
    orchestration.write_text(text.replace("    count: 1\n", "    count: 4\n") + odd)
    assert [f.code for f in _check(repo)] == ["C007"]


def test_events_of_another_shape_produce_no_follow_up_findings(tmp_path: Path) -> None:
    repo = _copy("A001/good", tmp_path)
    orchestration = repo / "ORCHESTRATION.yaml"
    text = orchestration.read_text()
    odd = '      - session: "s-1"\n        compactions: 3\n'
    orchestration.write_text(text.replace("    count: 1\n", "    count: 2\n") + odd)
    found = _check(repo)
    assert [f.code for f in found if not f.code.startswith("C")] == []  # count == 2 entries; the odd one skipped
    assert [f.code for f in found if f.code.startswith("C")] == ["C007"]


def test_checkpoint_path_outside_the_repository(tmp_path: Path) -> None:
    repo = _copy("A001/good", tmp_path)
    orchestration = repo / "ORCHESTRATION.yaml"
    absolute = repo / ".jerry/checkpoints/cx-001-checkpoint.json"
    text = orchestration.read_text()
    orchestration.write_text(text.replace('".jerry/checkpoints/cx-001-checkpoint.json"', json.dumps(str(absolute))))
    [finding] = _a(_check(repo))
    assert finding.code == "A005" and "absolute path" in finding.message
    assert finding.fix == "write it relative to the repository root: .jerry/checkpoints/cx-001-checkpoint.json"


def test_a_symlink_that_leaves_the_repository_is_reported(tmp_path: Path) -> None:
    repo = _copy("A001/good", tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    checkpoint = repo / ".jerry/checkpoints/cx-001-checkpoint.json"
    shutil.move(checkpoint, elsewhere / checkpoint.name)
    os.symlink(elsewhere / checkpoint.name, checkpoint)
    [finding] = _a(_check(repo))
    assert (finding.code, finding.position.line) == ("A005", 41)
    assert "outside the repository" in finding.message


def test_every_checkpoint_name_is_accepted_in_events(tmp_path: Path) -> None:
    repo = _copy("A001/good", tmp_path)
    folder = repo / ".jerry/checkpoints"
    for new in ("cx-001.json", "cx-001.d933ffb7.json"):
        current = next(folder.iterdir())
        current.rename(folder / new)
        orchestration = repo / "ORCHESTRATION.yaml"
        text = orchestration.read_text()
        orchestration.write_text(text.replace(f".jerry/checkpoints/{current.name}", f".jerry/checkpoints/{new}"))
        assert _check(repo) == [], new


def test_missing_file_is_reported_when_the_ignored_state_folder_exists(tmp_path: Path) -> None:
    repo = _copy("A004/good", tmp_path)  # .jerry/ is git-ignored and absent: nothing to check
    assert _check(repo) == []
    (repo / ".jerry" / "checkpoints").mkdir(parents=True)  # present here: the file should be there
    assert [(f.code, f.position.line) for f in _check(repo)] == [("A004", 41)]


def test_unmerged_checkpoint_goes_to_the_workflow_that_wrote_it(tmp_path: Path) -> None:
    repo = _copy("A010/bad", tmp_path)
    other = repo / "projects" / "other" / "ORCHESTRATION.yaml"
    other.parent.mkdir(parents=True)
    text = (repo / "ORCHESTRATION.yaml").read_text()
    other.write_text(
        text.replace('id: "demo-20260302-001"', 'id: "other-20260302-001"').replace("count: 1", "count: 0")
    )
    found = [f for f in _check(repo) if f.code == "A010"]
    assert [f.path for f in found] == ["ORCHESTRATION.yaml"]  # the checkpoint's workflow_id is demo-...
    assert found[0].fix == "run `ctxres ack --file ORCHESTRATION.yaml`"  # several workflows: name the file


def test_unmerged_message_says_what_to_run(tmp_path: Path) -> None:
    [pending] = [f for f in _check(RULES / "A010/bad") if f.code == "A010"]
    assert "cx-002-checkpoint.json is not merged" in pending.message
    assert pending.fix == "run `ctxres ack`"
    messages = {f.message.split(" is ")[0]: f.fix for f in _check(RULES / "A010/bad2") if f.code == "A010"}
    assert messages["checkpoint .jerry/checkpoints/cx-001-checkpoint.json"].startswith('reset `"acknowledged": false`')


def test_section_showing_the_checkpoint_state_is_not_reported(tmp_path: Path) -> None:
    repo = _copy("A011/bad", tmp_path)
    assert [f.code for f in _a(_check(repo))] == ["A011"]
    checkpoint = repo / ".jerry/checkpoints/cx-001-checkpoint.json"
    data = json.loads(checkpoint.read_text())
    data["orchestration_state"].update(current_activity="phase-2-agent-execution", current_gate=None)
    del data["orchestration_state"]["current_gate_iteration"]
    checkpoint.write_text(json.dumps(data, indent=2))
    assert _a(_check(repo)) == []


def test_only_the_orchestration_file_is_checked(tmp_path: Path) -> None:
    """Checked alone, the file still compares itself with the checkpoint files on disk."""
    report = engine.run(
        [RULES / "A010/bad/ORCHESTRATION.yaml"], load_config(RULES / "A010/bad"), cwd=RULES / "A010/bad"
    )
    assert [f.code for f in report.findings] == ["A010"]


@pytest.mark.parametrize("code", [f"A{n:03d}" for n in range(1, 12)])
def test_rule_pages_explain_why_example_and_fix(code: str) -> None:
    rule = all_rules()[code]
    page = rule.doc()
    assert "## Why" in page and "## Example" in page and "## Fix" in page
    assert (RULES / code / "bad").is_dir() and (RULES / code / "good").is_dir()
