"""The rules of linters/rules/phase_position.py: S005 (`workflow_status`) and S006 (`current_phase`)
against the rest of the file."""

from __future__ import annotations

import textwrap

import pytest

from .rule_folders import RULES, check_folder
from .s_families import check, codes, line_of, v2


def test_s005_workflow_status_against_the_workflow_and_the_activity() -> None:
    text = 'workflow: {status: "COMPLETED"}\n' + v2(current_activity='"WORKFLOW_COMPLETE"')
    both = check(text)
    assert [(f.code, f.position.line) for f in both] == [("S005", line_of(text, "workflow_status"))]
    assert both[0].message == (
        '`recovery_state.workflow_status` is "ACTIVE", but `workflow.status` on line 1 is "COMPLETED" and '
        f'`recovery_state.current_activity` on line {line_of(text, "current_activity")} says "WORKFLOW_COMPLETE"'
    )
    assert both[0].fix.startswith('Set workflow_status to "COMPLETE"')
    paused = check('workflow: {status: "PAUSED"}\n' + v2())
    assert [f.code for f in paused] == ["S005"] and 'Set workflow_status to "PAUSED"' in paused[0].fix
    assert [f.code for f in check(v2(current_activity='"workflow complete, waiting for sign-off"'))] == ["S005"]
    # Near misses: synonyms, unknown workflow statuses, an activity that only mentions completion.
    assert codes('workflow: {status: "IN_PROGRESS"}\n' + v2()) == []
    assert codes('workflow: {status: "PENDING_APPROVAL"}\n' + v2()) == []
    assert codes(v2(current_activity='"waiting for workflow complete signal"')) == []


def test_s006_current_phase_against_the_pipelines() -> None:
    pipelines = textwrap.dedent(
        """\
        pipelines:
          impl:
            current_phase: 2
            phases:
              - {id: 1, name: "Foundation", status: "COMPLETE"}
              - {id: 2, name: "System Validation", status: "IN_PROGRESS"}
        """
    )
    found = check(pipelines + v2())
    assert [(f.code, f.position.line) for f in found] == [("S006", line_of(pipelines + v2(), "    current_phase: 1"))]
    assert found[0].message == (
        "`recovery_state.current_phase` is 1, but `pipelines.impl.current_phase` on line 3 is 2 "
        '(phase 2 is "System Validation", IN_PROGRESS) (compared with pipeline `impl`, the only pipeline); '
        '`recovery_state.current_activity` "phase-1-agent-execution" is about phase 1, not phase 2'
    )
    at_two = {"current_phase": "2", "current_phase_name": '"System Validation"', "current_activity": '"phase-2-qa"'}
    assert codes(pipelines + v2(**at_two)) == []
    two = pipelines + "  docs:\n    current_phase: 2\n"
    assert "compared with all 2 pipelines; the other 1 agree" in check(two + v2())[0].message
    # Pipelines that disagree: a phase one of them is at is not contradicted, one none of them is at is.
    disagree = pipelines + "  docs:\n    current_phase: 1\n"
    assert codes(disagree + v2(current_phase="1", current_phase_name='"Foundation"')) == []
    apart = check(disagree + v2(current_phase="3", current_phase_name="null", current_activity="null"))
    assert [f.code for f in apart] == ["S006"]
    assert apart[0].message.startswith("`recovery_state.current_phase` is 3, but no pipeline is at phase 3: ")
    assert "no `current_pipeline` says which one" in apart[0].message
    # No pipeline declares a current phase: the section must agree with itself.
    assert codes("pipelines:\n  impl:\n    phases: []\n" + v2(current_phase="3", current_activity="null")) == []


def _position(current_pipeline: str = "", **recovery: str) -> str:
    head = f"current_pipeline: {current_pipeline}\n" if current_pipeline else ""
    return (
        head
        + textwrap.dedent(
            """\
        pipelines:
          research:
            current_phase: 3
            phases:
              - {id: 2, name: "Survey", status: "COMPLETE"}
              - {id: 3, name: "Synthesis", status: "IN_PROGRESS"}
          build:
            current_phase: 1
            phases:
              - {id: 1, name: "Scaffold", status: "IN_PROGRESS"}
              - {id: 2, name: "Wire-up", status: "PENDING"}
        """
        )
        + v2(**recovery)
    )


def test_s006_disagreeing_pipelines_are_compared_with_the_current_pipeline() -> None:
    stale = dict(current_phase="2", current_phase_name='"Survey"', current_activity='"phase-2-review"')
    found = check(_position("research", **stale))
    assert [f.code for f in found] == ["S006"]
    assert found[0].message.startswith(
        "`recovery_state.current_phase` is 2, but `pipelines.research.current_phase` on line 4 is 3 "
        '(phase 3 is "Synthesis", IN_PROGRESS) (compared with pipeline `research`, the one `current_pipeline` '
        "on line 1 names)"
    )
    at_three = dict(current_phase="3", current_phase_name='"Synthesis"', current_activity='"phase-3-agents"')
    assert codes(_position("research", **at_three)) == []
    # `workflow.current_pipeline` names it too; the other pipeline is then not compared.
    nested = 'workflow: {current_pipeline: "build"}\n' + _position(**at_three)
    assert "`pipelines.build.current_phase` on line 9 is 1" in check(nested)[0].message
    at_one = dict(current_phase="1", current_phase_name='"Scaffold"', current_activity='"phase-1-agents"')
    assert codes('workflow: {current_pipeline: "build"}\n' + _position(**at_one)) == []


def test_s006_phase_name_of_another_phase() -> None:
    pipelines = textwrap.dedent(
        """\
        pipelines:
          impl:
            current_phase: 2
            phases:
              - {id: 1, name: "Foundation", status: "COMPLETE"}
              - {id: 2, name: "System Validation", status: "IN_PROGRESS"}
        """
    )
    text = pipelines + v2(current_phase="2", current_phase_name='"Foundation (done)"', current_activity='"qg-2"')
    found = check(text)
    assert [(f.code, f.position.line) for f in found] == [("S006", line_of(text, "current_phase_name"))]
    assert found[0].message == (
        '`recovery_state.current_phase_name` "Foundation (done)" is the name of phase 1 "Foundation" '
        "(`pipelines.impl.phases[0]` on line 5, COMPLETE), not of phase 2 (compared with pipeline `impl`, the only "
        "pipeline)"
    )
    # Notes in parentheses and a "Phase 2:" label are not part of the name; an unknown name is not compared.
    for name in ('"Phase 2: System validation"', '"System Validation (ST-003)"', '"Validation work"'):
        assert codes(pipelines + v2(current_phase="2", current_phase_name=name, current_activity='"qg-2"')) == []
    # Without a declared pipeline phase, the name must be the section's own phase's.
    undeclared = pipelines.replace("    current_phase: 2\n", "")
    assert codes(undeclared + v2(current_phase="2", current_phase_name='"Foundation"', current_activity="null"))


def test_s006_phase_zero_with_nothing_started_means_the_first_phase_is_next() -> None:
    pipelines = textwrap.dedent(
        """\
        pipelines:
          a:
            current_phase: 0
            phases:
              - {id: 1, name: "Research", status: "PENDING"}
              - {id: 2, name: "Design", status: "BLOCKED"}
          b:
            current_phase: 0
            status: "NOT_STARTED"
            phases:
              - {id: 1, name: "Requirements", status: "PENDING"}
        """
    )
    first = dict(current_phase_name='"Research / Requirements"', current_activity='"phase-1-agent-execution"')
    assert codes(pipelines + v2(current_phase="1", **first)) == []
    assert codes(pipelines + v2(current_phase="0", current_phase_name="null", current_activity="null")) == []
    late = check(pipelines + v2(current_phase="3", current_phase_name="null", current_activity="null"))
    assert [f.code for f in late] == ["S006"]
    assert late[0].message == (
        "`recovery_state.current_phase` is 3, but `pipelines.a.current_phase` on line 3 is 0: no phase has "
        'started yet, the next is phase 1 "Research" (compared with all 2 pipelines; the other 1 agree)'
    )
    # A real phase 0 (ids that start at 0) is a phase like any other.
    real_zero = pipelines[: pipelines.index("  b:")].replace('{id: 2, name: "Design"', '{id: 0, name: "Kick-off"')
    found = check(real_zero + v2(current_phase="1", current_phase_name='"Research"', current_activity="null"))
    assert [f.code for f in found] == ["S006"] and 'is 0 (phase 0 is "Kick-off", BLOCKED)' in found[0].message


def test_s005_workflow_status_against_the_pipelines_when_the_workflow_has_none() -> None:
    running = "pipelines:\n  p:\n    status: ACTIVE\n    phases:\n      - {id: 1, name: Audit, status: IN_PROGRESS}\n"
    found = [f for f in check(running + v2(workflow_status='"COMPLETE"')) if f.code != "S010"]
    assert [f.code for f in found] == ["S005"]
    assert "has not finished (compared with pipeline `p`, the only pipeline)" in found[0].message
    done = running.replace("status: ACTIVE", "status: COMPLETE").replace("IN_PROGRESS", "COMPLETE")
    assert [f.code for f in check(done + v2())] == ["S005"]
    assert [c for c, _line in codes(done + v2(workflow_status='"COMPLETE"')) if c != "S010"] == []
    # A `workflow.status` is the authority: the pipelines are not consulted.
    assert codes('workflow: {status: "ACTIVE"}\n' + done + v2()) == []


def test_s006_blames_a_pipeline_current_phase_that_lags_its_phases() -> None:
    text = (RULES / "S006" / "bad-pipeline-phase-lags" / "ORCHESTRATION.yaml").read_text()
    found = [f for f in check(text) if f.code == "S006"]
    assert [(f.json_path, f.position.line) for f in found] == [("$.pipelines.main.current_phase", 5)]
    assert "lags its phases (`recovery_state.current_phase` 3 agrees with them" in found[0].message
    # The section's name still follows the old phase: a second finding, on the section's name.
    stale_name = text.replace('current_phase_name: "Verification"', 'current_phase_name: "Migration"')
    found = [f for f in check(stale_name) if f.code == "S006"]
    assert [f.json_path for f in found] == [
        "$.pipelines.main.current_phase",
        "$.resumption.recovery_state.current_phase_name",
    ]
    # The section agrees with the lagging field: the section is compared as before (no finding on it).
    both_lag = text.replace("    current_phase: 3\n", "    current_phase: 2\n").replace(
        '"Verification"\n', '"Migration"\n'
    )
    both_lag = both_lag.replace("phase-3-agent", "phase-2-agent").replace(
        'current_phase_name: "Verification"', 'current_phase_name: "Migration"'
    )
    assert [f.code for f in check(both_lag) if f.code == "S006"] == []
    # Two phases run after the finished one: which one the pipeline is at is not clear, the section is compared.
    two = text.replace(
        '- {id: 3, name: "Verification", status: "IN_PROGRESS"}',
        '- {id: 3, name: "Verification", status: "IN_PROGRESS"}\n      - {id: 4, name: "Docs", status: "IN_PROGRESS"}',
    )
    assert [f.json_path for f in check(two) if f.code == "S006"] == ["$.resumption.recovery_state.current_phase"]


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        ("S006/bad-current-pipeline", "(compared with pipeline `backend`, the one `current_pipeline` on line 3 names)"),
        ("S006/bad-none-started", 'no phase has started yet, the next is phase 1 "Literature Survey"'),
        ("S006/bad-phase-name", '"Schema" is the name of phase 1 "Schema"'),
        (
            "S006/bad-recovery-current-pipeline",
            "(compared with pipeline `backend`, the one `recovery_state.current_pipeline` on line 19 names)",
        ),
        ("S006/bad-pipeline-phase-lags", '`pipelines.main.current_phase` on line 5 is 2, but phase 2 "Migration"'),
    ],
)
def test_s006_fixtures_say_what_they_compared(case: str, expected: str) -> None:
    folder = RULES / case
    found = [f for f in check_folder(folder) if f.code == case[:4]]
    assert len(found) == 1 and expected in found[0].message, found
