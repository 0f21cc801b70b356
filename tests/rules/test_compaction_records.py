"""The rules of linters/rules/compaction_records.py: the compaction events' count and ids, their
acknowledgement fields, and what a checkpoint file holds (A001 to A003, A008, A009, A012; beyond the rule
fixtures)."""

from __future__ import annotations

import json
from pathlib import Path

from ctxres.config import Config
from ctxres.linters.checking import engine
from ctxres.linters.cli import main as cli_main

from ..conftest import CORPUS, ROOT
from ..other_writer import written
from .rule_folders import a_findings, check_folder, copy_case

SECTION_023 = "023-PROJ-004-context-resilience--feat001-impl-20260220-001.yaml"


def test_corpus_v2_file_count_explained_by_an_event_of_another_shape_is_one_c007() -> None:
    """count: 6 with one event of another shape (`compactions: 6`): the C007 on the event is the one
    error; A001 does not report the same root cause again."""
    path = CORPUS / "orchestration" / SECTION_023
    report = engine.run([path], Config(root=CORPUS), cwd=CORPUS)
    assert a_findings(report.findings) == []
    assert [(f.code, f.position.line) for f in report.findings if f.code == "C007" and f.position.line == 335] == [
        ("C007", 335)
    ]


def test_corpus_acknowledgement_findings_are_the_checkpoints_without_recovery_state() -> None:
    report = engine.run([CORPUS], Config(root=CORPUS), cwd=CORPUS)
    assert {(Path(f.path).parent.name, f.code) for f in a_findings(report.findings)} == {("checkpoints", "A012")}
    assert len(a_findings(report.findings)) == 10


def test_a012_a_checkpoint_without_the_workflow_position(tmp_path: Path) -> None:

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
    repo = copy_case("A001/good", tmp_path)
    orchestration = repo / "ORCHESTRATION.yaml"
    text = orchestration.read_text()
    odd = '      - session: "s-1"\n        compactions: 3\n'
    orchestration.write_text(text.replace("    count: 1\n", "    count: 0\n") + odd)
    found = check_folder(repo)
    assert [f.code for f in a_findings(found)] == ["A001"] and "is 0 but `events` has 2 entries" in a_findings(found)[
        0
    ].message
    # The same odd event with a count it may explain: only the C007.
    orchestration.write_text(text.replace("    count: 1\n", "    count: 4\n") + odd)
    assert [f.code for f in check_folder(repo)] == ["C007"]


def test_events_of_another_shape_produce_no_follow_up_findings(tmp_path: Path) -> None:
    repo = copy_case("A001/good", tmp_path)
    orchestration = repo / "ORCHESTRATION.yaml"
    text = orchestration.read_text()
    odd = '      - session: "s-1"\n        compactions: 3\n'
    orchestration.write_text(text.replace("    count: 1\n", "    count: 2\n") + odd)
    found = check_folder(repo)
    assert [f.code for f in found if not f.code.startswith("C")] == []  # count == 2 entries; the odd one skipped
    assert [f.code for f in found if f.code.startswith("C")] == ["C007"]


def test_a012_never_suggests_an_ack_that_ack_refuses(tmp_path: Path) -> None:
    """The other tool's checkpoint (no trigger, no acknowledgement flag): `ctxres ack FILE` refuses it as
    another tool's layout, so the help must not send the user there; the page says the same."""
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    path = written(root / ".jerry" / "checkpoints")
    [finding] = [f for f in engine.run([path], Config(root=root), cwd=root).findings if f.code == "A012"]
    workflow = root / "ORCHESTRATION.yaml"
    workflow.write_text((ROOT / "fixtures/templates/proj001-qg2-ORCHESTRATION.yaml").read_text())
    refused = cli_main(["ack", str(path), "--file", str(workflow)])
    assert refused != 0  # another tool's layout: ack cannot merge it
    assert "ctxres ack" not in finding.fix, finding.fix
    assert "another tool" in finding.fix and "extend-exclude" in finding.fix, finding.fix
    page = (ROOT / "docs" / "rules" / "A012.md").read_text()
    assert "acknowledge it (`ctxres ack`)" not in page
