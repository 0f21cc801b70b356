"""A normal state is not an error, and one root cause is one error."""

from __future__ import annotations

import textwrap
from pathlib import Path

from ctxres.config import Config
from ctxres.findings import Finding, Severity
from ctxres.linters.checking import engine

V2_HEAD = textwrap.dedent(
    """\
    workflow:
      id: "demo-20260217-001"
      status: "ACTIVE"
    resumption:
      recovery_state:
        last_checkpoint: null
        current_phase: 1
        current_phase_name: "Audit"
        workflow_status: "ACTIVE"
        current_activity: "phase-1-agent-execution"
        next_step: "Run the next agent of the phase."
        updated_at: "2026-02-17T10:00:00Z"
      files_to_read: ["ORCHESTRATION.yaml"]
    """
)


def _check(tmp_path: Path, text: str) -> list[Finding]:
    (tmp_path / "ORCHESTRATION.yaml").write_text(text)
    return engine.run([tmp_path], Config(root=tmp_path), cwd=tmp_path).findings


def test_a_v2_section_missing_several_sub_sections_is_one_c001(tmp_path: Path) -> None:
    found = _check(tmp_path, V2_HEAD + "  agent_summaries: {}\n")
    assert [(f.code, f.position.line, f.severity) for f in found] == [("C001", 4, Severity.ERROR)]
    message = found[0].message
    assert message == (
        "missing 3 required keys in `resumption`: `quality_trajectory`, `defect_summary`, `compaction_events`"
    )
    assert found[0].json_path == "$.resumption"
    assert "`quality_trajectory`" in found[0].fix and "`compaction_events`" in found[0].fix


def test_near_miss_one_missing_key_and_keys_missing_in_two_sub_sections_stay_separate(tmp_path: Path) -> None:
    rest = (
        "  quality_trajectory: {gates_completed: [], gates_remaining: []}\n"
        "  defect_summary: {total_defects_found: 0, total_defects_resolved: 0, unresolved_defects: []}\n"
        "  agent_summaries: {}\n"
    )
    found = _check(tmp_path, V2_HEAD.replace('    updated_at: "2026-02-17T10:00:00Z"\n', "") + rest)
    messages = sorted(f.message for f in found if f.code == "C001")
    assert messages == [
        "missing required key `compaction_events` in `resumption`",
        "missing required key `score_history` in `resumption.quality_trajectory`",
        "missing required key `updated_at` in `resumption.recovery_state`",
    ]


def test_repeated_list_items_missing_the_same_keys_are_still_one_finding(tmp_path: Path) -> None:
    text = V2_HEAD + textwrap.indent(
        textwrap.dedent(
            """\
            quality_trajectory: {gates_completed: [], gates_remaining: [], score_history: {}}
            defect_summary: {total_defects_found: 0, total_defects_resolved: 0, unresolved_defects: []}
            agent_summaries: {}
            decision_log:
              - {id: "D-001"}
              - {id: "D-002"}
            compaction_events: {count: 0, events: []}
            """
        ),
        "  ",
    )
    c001 = [f for f in _check(tmp_path, text) if f.code == "C001"]
    assert len(c001) == 1 and "(and 1 more like it)" in c001[0].message
    assert c001[0].message.startswith("missing ") and "in `resumption.decision_log[0]`" in c001[0].message


def test_unused_checkpoints_section_is_a_warning_of_its_own(tmp_path: Path) -> None:
    rest = textwrap.dedent(
        """\
          quality_trajectory: {gates_completed: [], gates_remaining: ["qg-1"], score_history: {}}
          defect_summary: {total_defects_found: 0, total_defects_resolved: 0, unresolved_defects: []}
          agent_summaries: {}
          compaction_events: {count: 0, events: []}
        checkpoints: {latest_id: null, entries: []}
        """
    )
    text = V2_HEAD + rest
    labelled = text.replace("last_checkpoint: null", 'last_checkpoint: "phase-1-started"')
    assert [(f.code, f.severity) for f in _check(tmp_path, labelled)] == [("S015", Severity.WARNING)]
    assert _check(tmp_path, text) == []
    # Near misses that keep S004's error: a checkpoint id never recorded, one behind the entries.
    unrecorded = text.replace("last_checkpoint: null", 'last_checkpoint: "CP-002"')
    assert [(f.code, f.severity) for f in _check(tmp_path, unrecorded)] == [("S004", Severity.ERROR)]
    behind = labelled.replace(
        "checkpoints: {latest_id: null, entries: []}",
        'checkpoints: {latest_id: "CP-002", entries: [{id: "CP-001"}, {id: "CP-002"}]}',
    ).replace('"phase-1-started"', '"CP-001"')
    assert [(f.code, f.severity) for f in _check(tmp_path, behind)] == [("S004", Severity.ERROR)]
