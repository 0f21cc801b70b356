"""V rules: v1.0 / v2.0 resumption sections, each rule triggered and each near miss silent."""

from __future__ import annotations

import pytest

from ctxres.config import Config
from ctxres.findings import Severity
from ctxres.formats.document import Document
from ctxres.formats.loading import Format, parse_text
from ctxres.linters.checking.engine import document_findings
from ctxres.linters.rules import all_rules, compatibility
from ctxres.migration.migrate import PLACEHOLDER
from ctxres.state.resumption import detect_version, v1_leftovers, v1_view, v1_view_paths

V2 = """\
schema_version: "1.0"
resumption:
  recovery_state:
    last_checkpoint: "CP-001"
    current_phase: 2
    current_phase_name: "Core License Changes"
    workflow_status: "ACTIVE"
    current_activity: "qg-2-iteration-1"
    next_step: "Re-score the deliverables."
    updated_at: "2026-02-17T11:40:00Z"
  files_to_read: ["ORCHESTRATION.yaml"]
  quality_trajectory: {gates_completed: [], gates_remaining: [], score_history: {}}
  defect_summary: {total_defects_found: 0, total_defects_resolved: 0, unresolved_defects: []}
  decision_log: []
  agent_summaries: {}
  compaction_events: {count: 0, events: []}
"""
V1 = """\
schema_version: "2.0.0"
resumption:
  last_checkpoint: "CP-003"
  current_state: "WORKFLOW COMPLETE."
  next_step: "Close the feature."
  files_to_read: ["ORCHESTRATION.yaml"]
"""


def _doc(text: str, kind: str = "orchestration") -> Document:
    document = parse_text("ORCHESTRATION.yaml", kind, Format.YAML, text).document
    assert document is not None
    return document


def _found(text: str) -> list[tuple[str, int, str]]:
    return [(f.code, f.position.line, f.json_path) for f in compatibility.check_document(_doc(text), Config())]


def _add(text: str, after: str, lines: str) -> str:
    assert after in text
    return text.replace(after, after + lines, 1)


def test_rules_are_registered_with_their_severity() -> None:
    rules = all_rules()
    assert {code: rules[code].severity for code in rules if code.startswith("V")} == {
        "V001": Severity.WARNING,
        "V002": Severity.WARNING,
        "V003": Severity.ERROR,
        "V004": Severity.WARNING,
        "V005": Severity.ERROR,
        "V006": Severity.ERROR,
        "V007": Severity.ERROR,
    }


def test_clean_v2_section_has_no_finding() -> None:
    assert _found(V2) == []


def test_v1_section_gets_a_migrate_hint_whatever_the_schema_version() -> None:
    findings = compatibility.check_document(_doc(V1), Config())
    assert [(f.code, f.position.line, f.position.col) for f in findings] == [("V001", 2, 1)]
    assert findings[0].severity is Severity.WARNING
    assert "ctxres migrate --write ORCHESTRATION.yaml" in findings[0].fix


def test_other_artifacts_and_sections_are_ignored() -> None:
    assert document_findings(_doc(V1, kind="checkpoint"), Config(select=("V",))) == []
    assert _found("workflow: {}\n") == []
    assert _found("resumption:\n") == []
    assert _found("resumption: [1]\n") == []


def test_v1_leftovers_in_a_v2_section() -> None:
    text = _add(V2, '  files_to_read: ["ORCHESTRATION.yaml"]\n', '  current_state: "QG-2 running"\n')
    text = _add(
        text, "  decision_log: []\n", '  next_step: "Re-score the deliverables."\n  ephemeral_references: false\n'
    )
    findings = compatibility.check_document(_doc(text), Config())
    assert [(f.code, f.position.line, f.position.col) for f in findings] == [
        ("V002", 12, 3),
        ("V002", 16, 3),
        ("V002", 17, 3),
    ]
    messages = [f.message for f in findings]
    assert "v1.0 field left in a v2.0 section" in messages[0]
    assert "repeats `resumption.recovery_state.next_step`" in messages[1]
    assert "belongs in `recovery_state`" in messages[2]
    assert findings[2].fix == "move `ephemeral_references` into `recovery_state`"


def test_v1_fields_that_contradict_their_v2_location() -> None:
    text = _add(V2, '  files_to_read: ["ORCHESTRATION.yaml"]\n', '  last_checkpoint: "CP-000"\n')
    text = _add(text, "  decision_log: []\n", '  current_state: "WORKFLOW COMPLETE."\n')
    found = compatibility.check_document(_doc(text), Config())
    assert [(f.code, f.position.line, f.position.col) for f in found] == [("V003", 12, 20), ("V003", 16, 18)]
    assert '"CP-000" but `resumption.recovery_state.last_checkpoint` is "CP-001"' in found[0].message
    assert "says the workflow is COMPLETE but `recovery_state.workflow_status` is ACTIVE" in found[1].message
    phase = _add(V2, "  decision_log: []\n", '  current_state: "Phase 3 started"\n')
    assert [(code, line) for code, line, _ in _found(phase)] == [("V003", 15)]


def test_prose_leftover_that_agrees_is_only_a_leftover() -> None:
    text = _add(V2, "  decision_log: []\n", '  current_state: "Phase 1 done; phase 2 in QG-2"\n')
    assert [code for code, _, _ in _found(text)] == ["V002"]


def test_keys_with_v1_names_outside_the_section_are_not_leftovers() -> None:
    text = 'next_step: "x"\ncurrent_state: "y"\ndecisions: [{id: DEC-001}]\n' + V2
    assert _found(text) == []


def test_decisions_alias_and_both_names() -> None:
    alias = V2.replace("  decision_log: []\n", '  decisions:\n    - {id: "RD-001", decision: "Align"}\n')
    found = compatibility.check_document(_doc(alias), Config())
    assert [(f.code, f.position.line, f.severity) for f in found] == [("V004", 14, Severity.WARNING)]
    assert found[0].fix == "rename `decisions` to `decision_log`"
    both = _add(V2, "  decision_log: []\n", '  decisions: [{id: "RD-001", decision: "Align"}]\n')
    assert [(code, line) for code, line, _ in _found(both)] == [("V005", 15)]


def test_v1_view_must_not_be_empty() -> None:
    text = V2.replace('next_step: "Re-score the deliverables."', 'next_step: ""')
    assert _found(text) == [("V006", 9, "$.resumption.recovery_state.next_step")]
    blank = V2.replace('last_checkpoint: "CP-001"', 'last_checkpoint: " "')
    blank = blank.replace('files_to_read: ["ORCHESTRATION.yaml"]', 'files_to_read: ["ORCHESTRATION.yaml", ""]')
    assert [path for _, _, path in _found(blank)] == [
        "$.resumption.recovery_state.last_checkpoint",
        "$.resumption.files_to_read[1]",
    ]
    # a v1.0 section gets the migrate hint, not more
    v1 = V1.replace('next_step: "Close the feature."', 'next_step: ""')
    assert [code for code, _, _ in _found(v1)] == ["V001"]


def test_null_last_checkpoint_empty_list_and_missing_fields_are_not_v006() -> None:
    text = V2.replace('last_checkpoint: "CP-001"', "last_checkpoint: null")
    assert _found(text) == []
    assert _found(V2.replace('files_to_read: ["ORCHESTRATION.yaml"]', "files_to_read: []")) == []
    missing = V2.replace('    next_step: "Re-score the deliverables."\n', "")  # C001 reports it
    assert _found(missing) == []


def test_placeholders_are_reported_where_they_are() -> None:
    text = V2.replace('updated_at: "2026-02-17T11:40:00Z"', f'updated_at: "{PLACEHOLDER}"')
    text = text.replace("current_phase: 2", f'current_phase: "{PLACEHOLDER}"')
    text = text.replace("agent_summaries: {}", f'agent_summaries: {{a: "{PLACEHOLDER}"}}')
    found = compatibility.check_document(_doc(text), Config())
    assert [(f.code, f.position.line, f.position.col, f.json_path) for f in found] == [
        ("V007", 5, 20, "$.resumption.recovery_state.current_phase"),
        ("V007", 10, 17, "$.resumption.recovery_state.updated_at"),
        ("V007", 15, 24, "$.resumption.agent_summaries.a"),
    ]
    assert "phase in progress" in found[0].fix and "ISO-8601" in found[1].fix
    mentioned = V2.replace('"qg-2-iteration-1"', '"qg-2-iteration-1 (after ctxres migrate, <ctxres migrate: ...> set)"')
    assert _found(mentioned) == []


def test_owned_paths_name_what_the_v_rules_report() -> None:
    text = V2.replace('updated_at: "2026-02-17T11:40:00Z"', f'updated_at: "{PLACEHOLDER}"')
    text = text.replace('    next_step: "Re-score the deliverables."\n', "")
    text = _add(text, "  decision_log: []\n", '  next_step: "Re-score."\n  current_state: "x"\n')
    data = _doc(text).data
    assert compatibility.owned_paths(data) == {
        ("resumption", "recovery_state", "updated_at"),
        ("resumption", "next_step"),
        ("resumption", "recovery_state", "next_step"),
        ("resumption", "current_state"),
    }
    assert compatibility.owned_paths(_doc(V2).data) == frozenset()
    assert compatibility.owned_paths(None) == frozenset()


# --- the v1.0 reader's view (ctxres.state.resumption) --------------------------------------------------


@pytest.mark.parametrize(
    ("section", "view"),
    [
        (
            {"last_checkpoint": None, "next_step": "n", "files_to_read": ["a"], "current_state": "s"},
            {"last_checkpoint": None, "next_step": "n", "files_to_read": ["a"]},
        ),
        (
            {"recovery_state": {"last_checkpoint": "CP-1", "next_step": "n"}, "files_to_read": [], "next_step": "old"},
            {"last_checkpoint": "CP-1", "next_step": "n", "files_to_read": []},
        ),
        ({"recovery_state": "not a mapping", "files_to_read": ["a"]}, {"files_to_read": ["a"]}),
        ({"decisions": []}, {}),
        (None, {}),
    ],
)
def test_v1_view(section: object, view: dict[str, object]) -> None:
    assert v1_view(section) == view


def test_v1_view_paths_and_leftovers() -> None:
    assert v1_view_paths("2.0")["next_step"] == ("recovery_state", "next_step")
    assert v1_view_paths("1.0")["next_step"] == ("next_step",)
    assert v1_leftovers({"recovery_state": {}, "files_to_read": [], "current_state": "x", "last_checkpoint": 1}) == [
        "current_state",
        "last_checkpoint",
    ]
    assert v1_leftovers({"current_state": "x", "files_to_read": []}) == []  # a v1.0 section has no leftovers
    assert detect_version({"current_state": "x"}) == "1.0"
