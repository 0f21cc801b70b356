"""Warnings worth reading: each noise pattern silent, its near miss still reported, and advice that is right.

Finished work (a COMPLETE workflow, a complete Nexus project) has no shape or convention warning; a project's
deliberate convention (markers without `tokens=`) is not a finding per marker; the advice says what to do
without losing a fact (a decision's `date` is not a misspelt `gate`; a `count` already there needs no
mapping; keys a collapse would drop are named; ranks that are all taken call for renumbering; a time is a
timestamp, not a label; a v1.0 section that lacks a v1.0 key has the error, not a warning beside it)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from ctxres.config import Config
from ctxres.findings import Finding, Severity
from ctxres.linters.checking import engine

SECTION = """\
resumption:
  recovery_state:
    last_checkpoint: {last_checkpoint}
    current_phase: 1
    current_phase_name: "Build"
    workflow_status: "{status}"
    current_activity: "phase-1"
    next_step: "Go on with phase 1."
    updated_at: "2026-02-20T10:00:00Z"
  files_to_read: []
  quality_trajectory: {trajectory}
  defect_summary: {{total_defects_found: 0, total_defects_resolved: 0, unresolved_defects: []}}
  decision_log: {decisions}
  agent_summaries: {{}}
  compaction_events: {compactions}
"""


def workflow(
    tmp_path: Path,
    *,
    status: str = "ACTIVE",
    last_checkpoint: str = "null",
    checkpoints: str = "",
    trajectory: str = '{gates_completed: [], gates_remaining: ["qg-1"], score_history: {}}',
    decisions: str = "[]",
    compactions: str = "{count: 0, events: []}",
) -> list[Finding]:
    text = f'workflow:\n  status: "{status}"\n{checkpoints}' + SECTION.format(
        status=status,
        last_checkpoint=last_checkpoint,
        trajectory=trajectory,
        decisions=decisions,
        compactions=compactions,
    )
    (tmp_path / "ORCHESTRATION.yaml").write_text(text, "utf-8")
    return engine.run([tmp_path], Config(root=tmp_path), cwd=tmp_path).findings


def codes(findings: list[Finding]) -> list[tuple[str, Severity]]:
    return [(f.code, f.severity) for f in findings]


# --- finished work -------------------------------------------------------------------------------

UNUSED = "checkpoints:\n  latest_id: null\n  entries: []\n"
DONE = '{gates_completed: ["qg-1"], gates_remaining: [], score_history: {qg-1: [0.95]}}'


def test_finished_work_has_no_shape_or_convention_warning(tmp_path: Path) -> None:
    shapes = {
        "last_checkpoint": '"workflow-complete"',  # S015
        "checkpoints": UNUSED,
        "decisions": '[{decision: "Use v2", rationale: "current"}]',  # C007: decisions without an id
        "trajectory": DONE,
    }
    assert codes(workflow(tmp_path, status="COMPLETE", **shapes)) == []
    # the near miss: the same file, not finished
    assert sorted(codes(workflow(tmp_path, status="PAUSED", **shapes))) == [
        ("C007", Severity.WARNING),
        ("S015", Severity.WARNING),
    ]


def test_finished_work_keeps_its_errors(tmp_path: Path) -> None:
    found = workflow(
        tmp_path, status="COMPLETE", last_checkpoint='"CP-009"', checkpoints=UNUSED.replace("null", "CP-1")
    )
    assert ("S004", Severity.ERROR) in codes(found)


def test_a_file_that_says_active_and_complete_is_not_finished(tmp_path: Path) -> None:
    shapes = {"last_checkpoint": '"workflow-complete"', "checkpoints": UNUSED, "trajectory": DONE}
    text = workflow(tmp_path, status="COMPLETE", **shapes)
    assert text == []
    path = tmp_path / "ORCHESTRATION.yaml"
    path.write_text(path.read_text("utf-8").replace('status: "COMPLETE"', 'status: "ACTIVE"', 1), "utf-8")
    assert ("S015", Severity.WARNING) in codes(engine.run([tmp_path], Config(root=tmp_path), cwd=tmp_path).findings)


# --- advice --------------------------------------------------------------------------------------


def test_a_decisions_date_is_not_a_misspelt_gate(tmp_path: Path) -> None:
    decisions = '[{id: RD-001, date: "2026-02-20", decision: "Use v2", rationale: "current"}]'
    assert [f for f in workflow(tmp_path, decisions=decisions) if f.code == "C006"] == []
    misspelt = '[{id: RD-001, gaet: "qg-1", decision: "Use v2", rationale: "current"}]'
    [finding] = [f for f in workflow(tmp_path, decisions=misspelt) if f.code == "C006"]
    assert finding.fix == "did you mean `gate`?"


def test_a_count_already_there_needs_no_mapping(tmp_path: Path) -> None:
    with_count = '{count: 1, timestamps: ["2026-02-17T11:45:00Z"]}'
    [finding] = [f for f in workflow(tmp_path, compactions=with_count) if f.code == "C007"]
    assert "`timestamps[*]` -> `events[*].timestamp`" in finding.message and "len(timestamps)" not in finding.message
    without = '{timestamps: ["2026-02-17T11:45:00Z"]}'
    [finding] = [f for f in workflow(tmp_path, compactions=without) if f.code == "C007"]
    assert "`len(timestamps)` -> `count`" in finding.message


def test_a_collapsed_trajectory_names_the_keys_it_would_drop(tmp_path: Path) -> None:
    trajectory = (
        '{gates_completed: ["qg-1"], gates_remaining: [], '
        "score_history: {qg-1: {iterations: [0.91, 0.95], final_score: 0.95, verdict: PASS}}}"
    )
    [finding] = [f for f in workflow(tmp_path, trajectory=trajectory) if f.code == "C007"]
    assert "`score_history.<gate>.iterations` -> `score_history.<gate>` (the list itself)" in finding.message
    assert "`score_history.<gate>.final_score`, `score_history.<gate>.verdict` -> the project's own facts" in (
        finding.message
    )
    gates = '{gates_completed: [{id: qg-1, score: 0.95, date: "2026-02-22"}], gates_remaining: []}'
    [finding] = [f for f in workflow(tmp_path, trajectory=gates) if f.code == "C007"]
    assert "`gates_completed[*].date` -> the project's own facts" in finding.message
    plain = "{gates_completed: [{id: qg-1, score: 0.95}], gates_remaining: []}"
    [finding] = [f for f in workflow(tmp_path, trajectory=plain) if f.code == "C007"]
    assert "own facts" not in finding.message  # nothing dropped: nothing to name


def test_a_time_in_last_checkpoint_is_called_a_timestamp(tmp_path: Path) -> None:
    [timestamp] = [
        f for f in workflow(tmp_path, last_checkpoint='"2026-02-17T11:45:00Z"', checkpoints=UNUSED) if f.code == "S015"
    ]
    assert 'is the timestamp "2026-02-17T11:45:00Z"' in timestamp.message
    [label] = [
        f for f in workflow(tmp_path, last_checkpoint='"phase-1-started"', checkpoints=UNUSED) if f.code == "S015"
    ]
    assert 'is the label "phase-1-started"' in label.message


def test_a_v1_section_without_a_v1_key_has_the_error_and_no_second_warning(tmp_path: Path) -> None:
    v1 = 'workflow:\n  status: "ACTIVE"\nresumption:\n  last_checkpoint: null\n  current_state: "Phase 1."\n'
    (tmp_path / "ORCHESTRATION.yaml").write_text(v1 + '  next_step: "Go on."\n', "utf-8")
    found = engine.run([tmp_path], Config(root=tmp_path), cwd=tmp_path).findings
    assert [(f.code, f.position.line) for f in found] == [("C001", 3)]  # V001 would repeat it on that line
    (tmp_path / "ORCHESTRATION.yaml").write_text(v1 + '  next_step: "Go on."\n  files_to_read: []\n', "utf-8")
    [v001] = [f for f in engine.run([tmp_path], Config(root=tmp_path), cwd=tmp_path).findings if f.code == "V001"]
    assert "it is still read" in v001.message


def _markers(tmp_path: Path, *markers: str) -> list[Finding]:
    rules = tmp_path / ".claude" / "rules"
    rules.mkdir(parents=True, exist_ok=True)
    (rules / "team.md").write_text("# Rules\n\n" + "\n".join(markers) + "\n", "utf-8")
    return [f for f in engine.run([tmp_path], Config(root=tmp_path), cwd=tmp_path).findings if f.code == "R005"]


def test_ranks_all_taken_call_for_renumbering(tmp_path: Path) -> None:
    marker = textwrap.dedent('<!-- L2-REINJECT: rank={rank}, tokens=3, content="Rule {n} here." -->')
    taken = [marker.format(rank=rank, n=rank) for rank in (1, 2, 3)] + [marker.format(rank=2, n=4)]
    [finding] = _markers(tmp_path, *taken)
    assert finding.fix.startswith("renumber the project's markers") and "ranks 1-3 are all taken" in finding.fix
    gap = [marker.format(rank=rank, n=rank) for rank in (1, 2, 4)] + [marker.format(rank=2, n=5)]
    [finding] = _markers(tmp_path, *gap)
    assert finding.fix.startswith("give this marker a free rank") and "(free: 3; in use: 1-2, 4)" in finding.fix
