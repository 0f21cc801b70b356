"""The real corpus, used as it is: every finding true and located, no traceback, no noise."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from ctxres.artifacts import DEFAULT_PATTERNS
from ctxres.config import Config
from ctxres.findings import Finding, Severity
from ctxres.linters.checking import engine
from ctxres.linters.checking.report import Report


@pytest.fixture(scope="module")
def report() -> Report:
    from ..conftest import CORPUS

    # The corpus's rule files were copied out of the folder the L2 engine reads (`.context/rules/`) into
    # `reinject/`: the project's configuration names that folder, as a project adds a rule folder of its own.
    patterns = {**DEFAULT_PATTERNS, "rule-file": (*DEFAULT_PATTERNS["rule-file"], "reinject/*.md")}
    return engine.run([CORPUS], Config(root=CORPUS, patterns=patterns), cwd=CORPUS)


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_corpus_copy_holds_every_file() -> None:
    from ..conftest import CORPUS

    assert len(_files(CORPUS)) == 69


def test_corpus_copy_is_byte_exact() -> None:
    """The copy in fixtures/corpus is the original corpus, byte for byte, where the original is at hand."""
    from ..conftest import CORPUS, SHARED_CORPUS

    if not SHARED_CORPUS.is_dir():
        pytest.skip(
            f"the original corpus is not at {SHARED_CORPUS} (only the project's own working machines keep it "
            "beside the repository): the copy in fixtures/corpus is not compared with it"
        )
    assert _files(SHARED_CORPUS) == _files(CORPUS)


def _in(report: Report, name: str) -> list[Finding]:
    return [f for f in report.findings if Path(f.path).name == name]


def test_every_artifact_is_checked(report: Report) -> None:
    # 12 orchestration-like files + 12 history versions, 10 checkpoints, 7 resume-context.md,
    # 3 precompact states, 3 rule files (CLAUDE.md, plus coding-standards.md and quality-enforcement.md in
    # the rule folder the configuration adds); a project's test data (`test_data/`: 2 precompact states, 1
    # resume-context.md) is skipped like examples
    assert report.files_checked == 44


def test_every_finding_is_located(report: Report) -> None:
    for finding in report.findings:
        assert finding.position.line >= 1 and finding.position.col >= 1, finding


def test_the_file_that_is_not_yaml_gives_one_syntax_finding(report: Report) -> None:
    name = (
        "PROJ-008__EPIC-001-transcript-skill__FEAT-001-analysis-design__"
        "EN-005-design-documentation__ORCHESTRATION_EN005.yaml"
    )
    found = _in(report, name)
    assert [(f.code, f.position.line, f.position.col) for f in found] == [("P001", 101, 5)]
    assert "line 72" in found[0].message


def test_v2_missing_updated_at_reported_once_at_recovery_state(report: Report) -> None:
    found = [f for f in _in(report, "032-PROJ-009-llm-deception-research.yaml") if "updated_at" in f.message]
    assert [(f.code, f.position.line) for f in found] == [("C001", 575)]


def test_v2_compaction_events_of_another_shape_reported_once_each(report: Report) -> None:
    deception = [
        f for f in _in(report, "032-PROJ-009-llm-deception-research.yaml") if "compaction_events" in f.json_path
    ]
    assert [(f.code, f.severity, f.position.line) for f in deception] == [("C007", Severity.WARNING, 626)]
    # times instead of events: the same facts, with the mapping; `ctxres ack` adds `events` beside them
    assert "`timestamps[*]` -> `events[*].timestamp`" in deception[0].message
    resilience = [
        f
        for f in _in(report, "023-PROJ-004-context-resilience--feat001-impl-20260220-001.yaml")
        if "compaction_events" in f.json_path
    ]
    # the event of another shape once; the count that the odd event may explain is not reported again
    assert [(f.code, f.position.line) for f in resilience] == [("C007", 335)]


def test_v2_richer_sub_sections_are_one_warning_each_with_the_mapping(report: Report) -> None:
    """032 writes gates as mappings, defect counters under other names, compactions as times: one
    finding per sub-section (before: C001 + C002 + C007 + C007, each an error); updated_at is missing."""
    found = [(f.code, f.severity, f.json_path) for f in _in(report, "032-PROJ-009-llm-deception-research.yaml")]
    assert [row for row in found if row[0][0] == "C"] == [
        ("C001", Severity.ERROR, "$.resumption.recovery_state.updated_at"),
        ("C007", Severity.WARNING, "$.resumption.quality_trajectory"),
        ("C007", Severity.WARNING, "$.resumption.defect_summary"),
        ("C007", Severity.WARNING, "$.resumption.compaction_events"),
    ]
    # 023's decisions without ids are of a COMPLETE workflow: nobody resumes it again, no warning
    decisions = [f for f in _in(report, "023-PROJ-004-context-resilience--feat001-impl-20260220-001.yaml")]
    assert [(f.code, f.severity) for f in decisions if f.json_path == "$.resumption.decision_log"] == []


def test_v2_file_that_follows_the_schema_has_only_its_consistency_defects(report: Report) -> None:
    found = _in(report, "030-PROJ-008-agentic-security--agentic-sec-20260222-001.yaml")
    # (its missing agent summaries, S012, a warning: the workflow is COMPLETE, nobody resumes it again)
    assert [(f.code, f.position.line) for f in found] == [("S004", 875), ("S010", 906)]


def test_peer_checkpoints_are_accepted_but_none_can_re_orient(report: Report) -> None:
    """Their layout is accepted as it is; but each holds `"resumption_state": null`, so the compaction alert
    built from any of them cannot say what the session was doing: one A012 each, nothing else."""
    found = [
        (Path(f.path).name[:6], f.code, f.position.line)
        for f in report.findings
        if Path(f.path).parent.name == "checkpoints"
    ]
    assert found == [(f"cx-{n:03d}", "A012", 11) for n in range(1, 11)]


def test_v1_files_extra_keys_are_silent(report: Report) -> None:
    """Their own keys (`disclaimer`, `phase_1_summary`, `overall_progress`) are no near miss of a key."""
    for name in (
        "002-PROJ-001-oss-release.yaml",
        "003-PROJ-001-oss-release--bug002-hookfix-20260217-001.yaml",
        "008-PROJ-001-oss-release--FEAT-002-research-and-preparation.yaml",
        "021-PROJ-003-je-ne-sais-quoi.yaml",
    ):
        conformance = [f for f in _in(report, name) if f.code[0] in "CP"]
        assert conformance == [], name
    # (a finished workflow: no hint to migrate its v1.0 section)
    assert [(f.code, f.message) for f in _in(report, "003-PROJ-001-oss-release--bug002-hookfix-20260217-001.yaml")] == [
        (
            "S004",
            '`resumption.last_checkpoint` names "CP-005", which the `checkpoints` section does not record; '
            'its latest checkpoint is "CP-002" (`checkpoints.latest_id` on line 756)',
        ),
    ]


def test_flat_precompact_state_nested_variant_is_one_finding() -> None:
    from ..conftest import CORPUS

    examples = engine.run([CORPUS], Config(root=CORPUS, check_examples=True), cwd=CORPUS)  # test data too
    found = _in(examples, "invalid_nested_precompact_state.json")
    assert [(f.code, f.position.line) for f in found] == [("N004", 2)]  # FLAT, not nested (N004), once
    assert _in(examples, "valid_precompact_state.json") == []


def test_no_finding_is_repeated(report: Report) -> None:
    keys = Counter((f.path, f.position, f.code, f.message) for f in report.findings)
    assert [k for k, n in keys.items() if n > 1] == []


def test_noise_budget(report: Report) -> None:
    """Real files are messy; the corpus must not drown in findings (each one reviewed by hand)."""
    by_code = Counter(f.code for f in report.findings)
    # test data skipped (its invalid precompact state and project id); 032's richer sub-sections and 023's
    # decisions without ids are warnings
    # 10 of the errors: the peer checkpoints, whose `resumption_state` is null (A012)
    # finished work (COMPLETE workflows, complete Nexus projects) has no shape or convention warning: 9 fewer
    # (023's C007 and S003, 008's S004, 030's S012, 006's and 014's S015; project 34's N002 and N008,
    # project 10's N009)
    assert report.errors == 24, by_code
    assert report.warnings == 34, by_code
    assert by_code["C006"] == 0  # the files' own keys (`disclaimer`, `phase_1_summary`, ...): silent
    # 008's last_checkpoint holds the time of its latest checkpoint: the same fact, a warning, and 008 is
    # COMPLETE: not reported
    assert [f.severity for f in report.findings if f.code == "S004" and "the time of the latest" in f.message] == []
    # Nexus: 6 manifests (7 with the test data's) list files that are not in the (partial) corpus copy,
    # 1 legacy _resume.md, 1 version written as a number (those of the complete projects 10 and 34, and 34's
    # summary in its body, are not reported)
    assert (by_code["N007"], by_code["N009"], by_code["N002"], by_code["N008"]) == (6, 1, 1, 0)
    # markers that declare no tokens: CLAUDE.md's one, and 9 in the two rules files of the added rule folder
    assert by_code["R004"] == 10
    assert by_code["R005"] == 2  # ranks used as tiers: a warning
    # one migrate hint per v1.0 section of a workflow not finished (10 history versions; the 7 files and 2
    # history versions of COMPLETE workflows are never resumed again, and PROJ-002's corrupted state lacks
    # `files_to_read`: its C001 error says so on the same line, a V001 beside it would repeat it)
    assert by_code["V001"] == 10


def test_consistency_findings_on_the_corpus(report: Report) -> None:
    """Each reviewed by hand against the file (see the closing note of the staleness work)."""
    found = sorted((Path(f.path).name[:3], f.position.line, f.code) for f in report.findings if f.code[0] == "S")
    assert found == [
        # (the warnings of COMPLETE workflows are not reported: 006's and 014's S015, 008's S004, 023's S003,
        # 030's S012; their errors are)
        ("003", 888, "S004"),
        ("008", 2708, "S014"),
        ("023", 262, "S006"),
        ("030", 875, "S004"),
        ("030", 906, "S010"),
        ("032", 579, "S005"),
        ("032", 625, "S012"),
        ("202", 733, "S014"),  # history/PROJ-003 20260219T153958Z: "Workflow not started", phase 1 IN_PROGRESS
        ("202", 738, "S014"),  # history/PROJ-003 20260219T172440Z: the same, hours later
    ]
