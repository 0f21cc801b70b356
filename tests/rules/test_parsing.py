"""The rules of linters/rules/parsing.py: P001 to P009, one finding for each problem met while reading a
file (the readers themselves: tests/core/test_loading.py and tests/core/test_hostile_input.py)."""

from __future__ import annotations

from ctxres.findings import Position
from ctxres.formats.loading import Format, IssueKind, LoadIssue, parse_text
from ctxres.linters.rules import all_rules
from ctxres.linters.rules.parsing import UNREAD_CODES, findings_for


def test_each_kind_of_reading_problem_is_a_p_rule_of_its_own() -> None:
    codes = [finding.code for kind in IssueKind for finding in findings_for("f.yaml", [LoadIssue(kind, "m")])]
    assert len(codes) == len(IssueKind) == len(set(codes))
    assert sorted(codes) == sorted(code for code in all_rules() if code.startswith("P"))


def test_a_finding_carries_the_issue_where_it_was_met() -> None:
    result = parse_text("ORCHESTRATION.yaml", "orchestration", Format.YAML, "resumption:\n  a: 1\n  a: 2\n")
    assert result.document is not None  # a duplicate key: the file is still read, the last value kept
    [finding] = findings_for("ORCHESTRATION.yaml", result.issues)
    assert (finding.path, finding.code, finding.position.line, finding.position.col) == (
        "ORCHESTRATION.yaml",
        "P002",
        3,
        3,
    )
    assert finding.severity is all_rules()["P002"].severity
    assert finding.message == result.issues[0].message and finding.fix == result.issues[0].fix
    assert finding.json_path == "$.resumption.a"
    assert "P002" not in UNREAD_CODES


def test_a_file_that_cannot_be_read_is_an_unread_code() -> None:
    result = parse_text("ORCHESTRATION.yaml", "orchestration", Format.YAML, "resumption: [\n")
    assert result.document is None
    [finding] = findings_for("ORCHESTRATION.yaml", result.issues)
    assert finding.code == "P001" and finding.code in UNREAD_CODES
    assert finding.position != Position() and finding.json_path == ""
