"""The S rules together: what they leave alone, their pages, the helpers they share, and their exact
findings on the real corpus."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxres.config import Config
from ctxres.findings import Finding, Severity
from ctxres.formats.loading import Format, load_file, parse_text
from ctxres.linters.checking import engine
from ctxres.linters.checking import resumption_context as rules
from ctxres.linters.checking.discovery import discover
from ctxres.state import orchestration

from ..conftest import CORPUS
from .s_families import CONFIG, check, s_findings


def test_rules_ignore_other_kinds_and_files_without_a_resumption_section() -> None:
    result = parse_text("cx-001-checkpoint.json", "checkpoint", Format.JSON, '{"timestamp": "2999-01-01T00:00:00Z"}')
    assert result.document is not None
    assert s_findings(result.document, CONFIG) == []
    assert check("workflow: {status: COMPLETE}\n") == []
    assert check("resumption: null\n") == []


@pytest.fixture(scope="module")
def corpus_findings() -> list[Finding]:
    """What the S rules find in the corpus's workflow files, the warnings of COMPLETE workflows included
    (`ctxres check` does not report those: finished work, `test_finished_work_keeps_its_s_errors_only`)."""
    config = Config(root=CORPUS)
    found: list[Finding] = []
    for artifact in discover([CORPUS], config, CORPUS):
        if artifact.kind == "orchestration":
            document = load_file(artifact.fs_path, artifact.kind, artifact.format, None, artifact.display).document
            if document is not None:
                found += s_findings(document, config)
    return sorted(found, key=Finding.sort_key)


def test_finished_work_keeps_its_s_errors_only(corpus_findings: list[Finding]) -> None:
    report = engine.run([CORPUS], Config(root=CORPUS), cwd=CORPUS)
    checked = [f for f in report.findings if f.code.startswith("S")]
    finished = {f.path for f in corpus_findings if orchestration.workflow_status_of(_data(f.path)) == "COMPLETE"}
    assert finished  # 006, 008, 014, 023, 030 and the history versions
    expected = [f for f in corpus_findings if f.path not in finished or f.severity is Severity.ERROR]
    assert [(f.path, f.code, f.position.line) for f in checked] == [(f.path, f.code, f.position.line) for f in expected]
    assert len(corpus_findings) - len(checked) == 5  # 023's S003, 008's S004, 030's S012, 006's and 014's S015


def _data(path: str) -> object:
    document = parse_text(path, "orchestration", Format.YAML, (CORPUS / path).read_text("utf-8")).document
    return document.data if document is not None else None


def _rows(findings: list[Finding], name: str) -> list[tuple[int, str, str]]:
    return [(f.position.line, f.code, f.message) for f in findings if Path(f.path).name == name]


def test_corpus_032_exact_findings(corpus_findings: list[Finding]) -> None:
    """workflow.status COMPLETED and current_activity WORKFLOW_COMPLETE, but workflow_status ACTIVE;
    21 agents COMPLETED with an empty agent_summaries. Its missing updated_at is C001's alone."""
    assert _rows(corpus_findings, "032-PROJ-009-llm-deception-research.yaml") == [
        (
            579,
            "S005",
            '`recovery_state.workflow_status` is "ACTIVE", but `workflow.status` on line 16 is "COMPLETED" and '
            '`recovery_state.current_activity` on line 580 says "WORKFLOW_COMPLETE"',
        ),
        (
            625,
            "S012",
            "`agent_summaries` has no entry for 21 agent(s) that `pipelines` marks complete: ps-researcher-001 "
            "(line 57), ps-researcher-002 (line 63), ps-investigator-001 (line 69) and 18 more",
        ),
    ]


def test_corpus_030_exact_findings(corpus_findings: list[Finding]) -> None:
    """Schema-valid, but CP-006 (the final checkpoint) never reached last_checkpoint, the trajectory still
    holds its planned gates, and no completed agent has a summary."""
    rows = _rows(corpus_findings, "030-PROJ-008-agentic-security--agentic-sec-20260222-001.yaml")
    assert [(line, code) for line, code, _m in rows] == [(875, "S004"), (906, "S010"), (943, "S012")]
    assert rows[0][2] == (
        '`recovery_state.last_checkpoint` names "CP-005" (`checkpoints.entries[4].id` on line 708), '
        'but the latest checkpoint is "CP-006" (`checkpoints.latest_id` on line 667)'
    )
    assert "5 remaining gate(s)" in rows[1][2] and "`recovery_state.workflow_status` on line 878" in rows[1][2]
    assert "no entry for 21 agent(s)" in rows[2][2]


def test_corpus_023_exact_findings(corpus_findings: list[Finding]) -> None:
    rows = _rows(corpus_findings, "023-PROJ-004-context-resilience--feat001-impl-20260220-001.yaml")
    assert [(line, code) for line, code, _m in rows] == [(262, "S006"), (268, "S003")]
    # a decision logged in the section after its last update: updated_at not bumped, a warning
    assert (
        "`decision_log[1].timestamp` on line 317, inside the resumption section, records 2026-02-20T22:00:00Z"
        in rows[1][2]
    )
    assert "updated_at was not bumped" in rows[1][2]
    assert [
        f.severity
        for f in corpus_findings
        if f.path.endswith("023-PROJ-004-context-resilience--feat001-impl-20260220-001.yaml") and f.code == "S003"
    ] == [Severity.WARNING]


def test_corpus_v1_last_checkpoint_findings(corpus_findings: list[Finding]) -> None:
    v1 = [
        (Path(f.path).name[:3], f.position.line)
        for f in corpus_findings
        if f.code == "S004" and not f.path.endswith("030-PROJ-008-agentic-security--agentic-sec-20260222-001.yaml")
    ]
    assert v1 == [("003", 888), ("008", 2611)]
    # 006 and 014 never used their checkpoints section: a warning of its own, not S004.
    unused = [(Path(f.path).name[:3], f.position.line, f.severity) for f in corpus_findings if f.code == "S015"]
    assert unused == [("006", 774, Severity.WARNING), ("014", 1096, Severity.WARNING)]


def test_corpus_clean_files_have_no_s_findings(corpus_findings: list[Finding]) -> None:
    flagged = {Path(f.path).name for f in corpus_findings}
    for name in (
        "002-PROJ-001-oss-release.yaml",
        "021-PROJ-003-je-ne-sais-quoi.yaml",
        "024-PROJ-004-context-resilience--spike002-cli-integration-20260219-001.yaml",
        "PROJ-002__ps-orchestration-results__PS-ORCH-010__corrupted-state.yaml",
    ):
        assert name not in flagged
    # Two versions of PROJ-003 say "Workflow not started" while phase 1 is IN_PROGRESS (S014).
    history = [
        (Path(f.path).name, f.position.line, f.code) for f in corpus_findings if Path(f.path).parts[0] == "history"
    ]
    assert sorted(history) == [
        ("20260219T153958Z-97b10396.yaml", 733, "S014"),
        ("20260219T172440Z-66652b24.yaml", 738, "S014"),
    ]
    assert len(corpus_findings) == 14


def test_json_paths_of_corpus_findings_point_at_what_they_name(corpus_findings: list[Finding]) -> None:
    for finding in corpus_findings:
        assert finding.json_path.startswith("$.resumption."), finding
    assert json.dumps([f.json_path for f in corpus_findings])  # serialisable for the reporters


def test_ids_remembered_answer_as_computed() -> None:
    import re

    for value in ["QG-1", "qg_1", "Qg1", "ÄgENT 7", "x" * 300, "", "-"] * 2:
        assert rules.id_key(value) == re.sub(r"[^0-9a-z]", "", value.casefold())
    assert rules.id_key(None) == rules.id_key(3) == ""


def test_some_of_shows_the_first_items_only() -> None:
    shown: list[int] = []

    def show(item: int) -> str:
        shown.append(item)
        return f"<{item}>"

    items = list(range(7))
    assert rules.some_of(items, show) == rules.some([f"<{i}>" for i in items])
    assert shown == items[: rules.LISTED]
    assert rules.some_of([1, 2], str) == rules.some(["1", "2"])
