"""The rules of linters/rules/quality_trajectory.py: S007 to S010, the quality trajectory against the
quality gates."""

from __future__ import annotations

import textwrap

from ctxres.linters.checking import resumption_context as rules
from ctxres.state import orchestration

from .s_families import check, codes, line_of, v2


def trajectory(body: str, **recovery: str) -> str:
    text = v2(**recovery)
    start = text.index("  quality_trajectory:")
    end = text.index("  defect_summary:")
    return text[:start] + "  quality_trajectory:\n" + textwrap.indent(textwrap.dedent(body), "    ") + text[end:]


def test_s007_gates_completed_against_gate_statuses() -> None:
    gates = 'quality_gates:\n  qg-1: {status: "PASS"}\n  qg-2: {status: "IN_PROGRESS"}\n  qg-3: {status: "FAIL"}\n'
    text = gates + trajectory('gates_completed: []\ngates_remaining: ["qg-1", "qg-2"]\nscore_history: {}\n')
    stale = check(text)
    assert [(f.code, f.position.line) for f in stale] == [("S007", line_of(text, "gates_completed"))]
    assert stale[0].message == (
        "`quality_trajectory.gates_completed` does not list the passed gate(s) qg-1 "
        "(`quality_gates.qg-1.status` on line 2 is PASS); `gates_remaining` still lists qg-1"
    )
    early = check(
        gates + trajectory('gates_completed: ["qg-1", "QG-2", "qg-3"]\ngates_remaining: []\nscore_history: {}\n')
    )
    assert [f.code for f in early] == ["S007"]
    assert "have not passed: qg-2" in early[0].message and "qg-3 (`quality_gates.qg-3.status` on line 4 is FAIL)" in (
        early[0].message
    )
    assert (
        codes(gates + trajectory('gates_completed: ["QG-1"]\ngates_remaining: ["qg-2", "qg-3"]\nscore_history: {}\n'))
        == []
    )


def test_trajectory_rules_skip_a_trajectory_that_names_gates_otherwise() -> None:
    """030-like: the trajectory tracks its own gate names, none of which `quality_gates` knows."""
    gates = 'quality_gates:\n  qg-1: {status: "PASS", iterations: [{score: 0.9}, {score: 0.95}]}\n'
    other = (
        'gates_completed: []\ngates_remaining: ["gate-1-research"]\n'
        "score_history: {ps-architect-001: [0.93, 0.95]}\ntotal_iterations_used: 7\n"
    )
    assert codes(gates + trajectory(other)) == []
    # Naming the same gate with other case and punctuation is the same naming.
    same = 'gates_completed: []\ngates_remaining: ["QG_1"]\nscore_history: {}\ntotal_iterations_used: 7\n'
    assert sorted(code for code, _line in codes(gates + trajectory(same))) == ["S007", "S008", "S009"]
    # A trajectory that names nothing at all is compared (it was never maintained).
    empty = "gates_completed: []\ngates_remaining: []\nscore_history: {}\n"
    assert sorted(code for code, _line in codes(gates + trajectory(empty))) == ["S007", "S008"]


def test_the_gate_reader_reads_the_three_shapes_of_quality_gates() -> None:
    """The S rules read `quality_gates` through the core reader (no copy of it in the rule module)."""
    assert not hasattr(rules, "gates_view") and not hasattr(rules, "checkpoints_view")
    by_id = {"quality_gates": {"threshold": 0.92, "qg-1": {"status": "PASS", "iterations": [{"score": 0.9}]}}}
    listed = {"quality_gates": [{"id": "QG-0", "status": "COMPLETE", "iterations_completed": 2}]}
    nested = {"quality_gates": {"threshold": 0.92, "gates": [{"id": "qg-1", "status": "PENDING"}]}}
    assert [(g.id, g.path, g.status, g.iterations, g.scores) for g in orchestration.gates(by_id)] == [
        ("qg-1", ("quality_gates", "qg-1"), "PASS", 1, [0.9])
    ]
    assert [(g.id, g.path, g.iterations, g.scores) for g in orchestration.gates(listed)] == [
        ("QG-0", ("quality_gates", 0), 2, None)
    ]
    assert [(g.id, g.path, g.status) for g in orchestration.gates(nested)] == [
        ("qg-1", ("quality_gates", "gates", 0), "PENDING")
    ]
    assert orchestration.gates({"quality_gates": "see QG report"}) == []


def test_s008_score_history_against_iteration_history() -> None:
    gates = textwrap.dedent(
        """\
        quality_gates:
          qg-1:
            status: "PASS"
            iteration_history:
              - {iteration: 1, score: 0.825}
              - {iteration: 2, score: 0.916}
              - {iteration: 3, score: 0.941}
        """
    )
    text = gates + trajectory('gates_completed: ["qg-1"]\ngates_remaining: []\nscore_history: {qg-1: [0.825]}\n')
    short = check(text)
    assert [(f.code, f.position.line) for f in short] == [("S008", line_of(text, "score_history"))]
    assert short[0].message == (
        "`quality_trajectory.score_history.qg-1` has 1 score(s) [0.825], but `quality_gates.qg-1.iteration_history` "
        "on line 4 records 3 iteration(s) scored [0.825, 0.916, 0.941]"
    )
    wrong = check(
        gates
        + trajectory('gates_completed: ["qg-1"]\ngates_remaining: []\nscore_history: {qg-1: [0.825, 0.93, 0.941]}\n')
    )
    assert "gives iteration 2 the score 0.93" in wrong[0].message
    absent = check(gates + trajectory('gates_completed: ["qg-1"]\ngates_remaining: []\nscore_history: {}\n'))
    assert [f.code for f in absent] == ["S008"] and "no entry for qg-1" in absent[0].message
    rounded = 'gates_completed: ["qg-1"]\ngates_remaining: []\nscore_history: {QG-1: [0.83, 0.92, 0.94]}\n'
    assert codes(gates + trajectory(rounded)) == []
    unscored = gates.replace("score: 0.916", "verdict: REVISE")
    assert (
        codes(unscored + trajectory('gates_completed: ["qg-1"]\ngates_remaining: []\nscore_history: {qg-1: [1]}\n'))
        == []
    )


def test_s009_total_iterations_against_the_gates() -> None:
    gates = textwrap.dedent(
        """\
        quality_gates:
          qg-1: {status: "PASS", iterations: [{score: 0.88}, {score: 0.93}]}
          qg-2: {status: "PASS", iterations_completed: 3}
          qg-3: {status: "PENDING"}
        """
    )
    body = 'gates_completed: ["qg-1", "qg-2"]\ngates_remaining: ["qg-3"]\nscore_history: {{qg-1: [0.88, 0.93]}}\n'
    text = gates + trajectory(body.format() + "total_iterations_used: 4\n")
    found = check(text)
    assert [(f.code, f.position.line) for f in found] == [("S009", line_of(text, "total_iterations_used"))]
    assert found[0].message == (
        "`quality_trajectory.total_iterations_used` is 4, but the gates in `quality_gates` on line 1 record "
        "5 iteration(s) (qg-1: 2, qg-2: 3, qg-3: 0)"
    )
    assert found[0].fix == "Set total_iterations_used to 5."
    assert codes(gates + trajectory(body.format() + "total_iterations_used: 5\n")) == []
    # A started gate that does not say how many iterations it ran: not compared.
    unknown = gates.replace('qg-2: {status: "PASS", iterations_completed: 3}', 'qg-2: {status: "PASS"}')
    assert codes(unknown + trajectory(body.format() + "total_iterations_used: 4\n")) == []


def test_s010_open_gates_after_completion() -> None:
    body = 'gates_completed: []\ngates_remaining: ["gate-1", "gate-2"]\ncurrent_gate: "gate-2"\nscore_history: {}\n'
    text = trajectory(body, workflow_status='"COMPLETE"', current_activity='"idle"')
    found = check(text)
    assert [(f.code, f.position.line) for f in found] == [("S010", line_of(text, "gates_remaining"))]
    assert found[0].message == (
        '`quality_trajectory` still lists 2 remaining gate(s) (gate-1, gate-2) and has the current gate "gate-2", '
        f"but `recovery_state.workflow_status` on line {line_of(text, 'workflow_status')} is COMPLETE"
    )
    only_current = 'gates_completed: []\ngates_remaining: []\ncurrent_gate: "gate-2"\nscore_history: {}\n'
    text = trajectory(only_current, workflow_status='"COMPLETE"', current_activity='"idle"')
    assert codes(text) == [("S010", line_of(text, "current_gate"))]
    assert codes(trajectory(body)) == []  # ACTIVE: open gates are expected
    done = 'gates_completed: ["gate-1"]\ngates_remaining: []\ncurrent_gate: null\nscore_history: {}\n'
    assert codes(trajectory(done, workflow_status='"COMPLETE"', current_activity='"idle"')) == []
