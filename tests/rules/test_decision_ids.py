"""Decision ids: any `PREFIX-NNN` is valid (C004 otherwise); one log with two prefixes is C009, a warning."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxres.config import load_config
from ctxres.findings import Severity
from ctxres.linters.checking import engine
from ctxres.linters.rules.decision_ids import log_prefix, prefixes

SECTION = """resumption:
  recovery_state:
    last_checkpoint: "CP-001"
    current_phase: 2
    current_phase_name: "Core"
    workflow_status: "ACTIVE"
    current_activity: "qg-2-iteration-1"
    next_step: "Re-score QG-2"
    updated_at: "2026-02-17T12:34:56Z"
  files_to_read: []
  quality_trajectory: {gates_completed: [], gates_remaining: [], score_history: {}}
  defect_summary: {total_defects_found: 0, total_defects_resolved: 0, unresolved_defects: []}
  agent_summaries: {}
  compaction_events: {count: 0, events: []}
  decision_log:
"""


def check(tmp_path: Path, *ids: str) -> list[tuple[str, int, Severity, str]]:
    entries = "".join(f'    - id: "{i}"\n      decision: "d"\n' for i in ids)
    (tmp_path / "ORCHESTRATION.yaml").write_text(SECTION + entries)
    report = engine.run([tmp_path], load_config(tmp_path), cwd=tmp_path)
    return [(f.code, f.position.line, f.severity, f.message) for f in report.findings]


@pytest.mark.parametrize(
    "ids",
    [("RD-001", "RD-002"), ("DL-001", "DL-002", "DL-003"), ("ADR-0001",), ("D2-100", "D2-101"), ()],
)
def test_one_prefix_throughout_is_silent(tmp_path: Path, ids: tuple[str, ...]) -> None:
    assert check(tmp_path, *ids) == []


def test_a_second_prefix_is_one_warning_at_its_first_entry_naming_every_odd_id(tmp_path: Path) -> None:
    ((code, line, severity, message),) = check(tmp_path, "DL-001", "DL-002", "RD-003", "DL-004", "RD-005")
    assert (code, severity) == ("C009", Severity.WARNING)
    assert line == SECTION.count("\n") + 5  # the id of the third entry
    assert message.endswith("3 entries use `DL-`, and RD-003, RD-005 do not")


@pytest.mark.parametrize("bad", ["dl-001", "DL-01", "DL001", "-001", "DL-00A"])
def test_an_id_without_the_prefix_number_shape_is_still_c004(tmp_path: Path, bad: str) -> None:
    assert [(c, s) for c, _, s, _ in check(tmp_path, "DL-001", bad)] == [("C004", Severity.ERROR)]


def test_the_log_prefix_is_the_most_used_then_the_first_written() -> None:
    entries = [{"id": "RD-001"}, {"id": "DL-002"}, {"id": "DL-003"}, {"id": 4}, "x", {"id": "RD-005"}]
    assert prefixes(entries) == [(0, "RD"), (1, "DL"), (2, "DL"), (5, "RD")]
    assert log_prefix(prefixes(entries)) == "RD"
    assert log_prefix(prefixes(entries[:3])) == "DL"
