"""The rules of linters/rules/prose_position.py: S014 (what a v1.0 section's prose says) and S017 (a
COMPLETE v2.0 section that says work is open), against the state."""

from __future__ import annotations

import re
import textwrap

import pytest

from ctxres.findings import Severity

from .rule_folders import RULES, check_folder
from .s_families import check, line_of, v2


def v1(workflow: str, current_state: str, next_step: str = "Close the feature.", phases: str = "") -> str:
    listed = phases or (
        '      - {id: 1, name: "Research", status: "COMPLETE"}\n'
        '      - {id: 2, name: "Design", status: "COMPLETE"}\n'
        '      - {id: 3, name: "Build", status: "COMPLETE"}\n'
    )
    return (
        f'workflow:\n  status: "{workflow}"\n'
        "pipelines:\n  main:\n    phases:\n" + listed + "resumption:\n  last_checkpoint: null\n"
        f'  current_state: "{current_state}"\n  next_step: "{next_step}"\n  files_to_read: []\n'
    )


EARLY = (
    '      - {id: 1, name: "Research", status: "IN_PROGRESS"}\n'
    '      - {id: 2, name: "Design", status: "PENDING"}\n'
    '      - {id: 3, name: "Build", status: "PENDING"}\n'
)


def test_s014_not_started_prose_under_a_complete_workflow() -> None:
    text = v1("COMPLETE", "Workflow initialized, ready to execute Phase 1", "Execute Phase 1 agents")
    found = check(text)
    assert [(f.code, f.position.line, f.severity) for f in found] == [
        ("S014", line_of(text, "current_state"), Severity.ERROR)
    ]
    assert found[0].message == (
        '`resumption.current_state` on line 11 says "Workflow initialized, ready to execute Phase 1" and '
        '`resumption.next_step` on line 12 says "Execute Phase 1 agents", but `workflow.status` on line 2 is '
        'COMPLETE and phase 1 "Research" (`pipelines.main.phases[0]` on line 6) is COMPLETE'
    )


def test_s014_complete_prose_under_an_active_workflow() -> None:
    for prose in ("WORKFLOW COMPLETE. All deliverables done.", "All 3 phases complete, gates passed."):
        found = check(v1("ACTIVE", prose, phases=EARLY))
        assert [f.code for f in found] == ["S014"], prose
        assert '`workflow.status` on line 2 is ACTIVE and phase 1 "Research"' in found[0].message
        assert found[0].message.endswith("is IN_PROGRESS")


def test_s014_a_phase_that_finished_long_ago() -> None:
    later = (
        '      - {id: 1, name: "Research", status: "COMPLETE"}\n'
        '      - {id: 2, name: "Design", status: "IN_PROGRESS"}\n'
    )
    found = check(v1("ACTIVE", "Research planned.", "Next: Phase 1 Research agents", phases=later))
    assert [(f.code, f.position.line) for f in found] == [("S014", 11)]
    assert found[0].message.endswith(
        'but phase 1 "Research" (`pipelines.main.phases[0]` on line 6) is COMPLETE, and phase 2 "Design" '
        "(`pipelines.main.phases[1]` on line 7) is IN_PROGRESS"
    )
    # "not started" while a phase runs: the update at phase start was forgotten.
    assert [f.code for f in check(v1("ACTIVE", "Workflow not started.", phases=EARLY))] == ["S014"]


def test_s014_is_silent_on_prose_that_agrees_or_says_nothing_clear() -> None:
    pending = EARLY.replace("IN_PROGRESS", "PENDING")
    quiet = [
        v1("ACTIVE", "Workflow initialized. Phase 1 READY to execute.", "Execute Phase 1 agents", phases=pending),
        v1("ACTIVE", "Phase 1 in progress.", "Execute Phase 1 agents", phases=EARLY),
        v1("COMPLETE", "WORKFLOW COMPLETE. All 3 phases done.", "None - workflow finished."),
        # All phases done but the final gate is pending: the workflow is still ACTIVE, rightly.
        v1("ACTIVE", "All 3 phases COMPLETE. QG-Final pending.", "Run QG-Final."),
        # Just finished phase 2, its gate runs: "execute phase 2" is not long stale.
        v1("ACTIVE", "Phase 2 done.", "Execute Phase 2 review", phases=EARLY.replace("IN_PROGRESS", "COMPLETE")),
        # Conditions and orders are not statements; vague prose is not compared.
        v1("ACTIVE", "Phase 1 running.", "When the workflow is complete, close FEAT-1.", phases=EARLY),
        v1("ACTIVE", "Phase 1 running.", "Mark the workflow complete after QG-1.", phases=EARLY),
        v1("COMPLETE", "Wrapping up.", "Archive the notes."),
        v1("COMPLETE", "Workflow initialized on 2026-02-01; all phases completed since."),
        # A workflow.status that is the authority says COMPLETE: pipelines left behind are not the section's fault.
        v1("COMPLETE", "WORKFLOW COMPLETE.", phases=EARLY),
    ]
    for text in quiet:
        assert [f.code for f in check(text) if f.code == "S014"] == [], text


def _awaiting(current_status: str, gate_status: str, later: str = "") -> str:
    phases = (
        '      - {id: 1, name: "Research", status: "COMPLETE"}\n'
        f'      - {{id: 2, name: "Build", status: "{current_status}"}}\n{later}'
    )
    text = v1("ACTIVE", "All phases complete, awaiting approval.", "Wait for the approval of QG-2.", phases=phases)
    text = text.replace("    phases:\n", "    current_phase: 2\n    phases:\n", 1)
    return text.replace("resumption:\n", f'quality_gates:\n  QG-2: {{status: "{gate_status}"}}\nresumption:\n')


def test_s014_all_phases_complete_awaiting_approval_is_a_wait_state() -> None:
    # The gate (or the phase itself) awaits approval: the current phase may still read IN_PROGRESS or PENDING.
    for current, gate in [
        ("IN_PROGRESS", "AWAITING_APPROVAL"),
        ("PENDING", "PENDING_APPROVAL"),
        ("IN_PROGRESS", "awaiting review"),
        ("AWAITING_APPROVAL", "PENDING"),
    ]:
        assert [f.code for f in check(_awaiting(current, gate))] == [], (current, gate)


def test_s014_awaiting_approval_still_cites_the_phase_that_is_stale() -> None:
    later = '      - {id: 3, name: "Release", status: "PENDING"}\n'
    found = check(_awaiting("IN_PROGRESS", "AWAITING_APPROVAL", later))
    assert [f.code for f in found] == ["S014"]
    assert found[0].message.endswith(
        'is ACTIVE and phase 3 "Release" (`pipelines.main.phases[2]` on line 9) is PENDING'
    )
    # No gate awaits approval (it was approved, or failed): the phase that runs is the stale one.
    for gate in ("APPROVED", "REJECTED", "PENDING"):
        found = check(_awaiting("IN_PROGRESS", gate))
        assert [f.code for f in found] == ["S014"], gate
        assert 'phase 2 "Build"' in found[0].message
    # The prose does not say it waits: "all phases complete" is a plain claim, and phase 2 contradicts it.
    text = _awaiting("IN_PROGRESS", "AWAITING_APPROVAL").replace(", awaiting approval", "")
    assert [f.code for f in check(text)] == ["S014"]


def test_s014_phases_are_compared_in_the_pipeline_current_pipeline_names() -> None:
    text = textwrap.dedent(
        """\
        current_pipeline: docs
        workflow: {status: ACTIVE}
        pipelines:
          code:
            phases:
              - {id: 1, name: "Spike", status: "PENDING"}
          docs:
            phases:
              - {id: 1, name: "Outline", status: "COMPLETE"}
              - {id: 2, name: "Draft", status: "IN_PROGRESS"}
        resumption:
          current_state: "Ready to start Phase 1 (outline)."
          next_step: "Write the outline."
          files_to_read: []
        """
    )
    found = check(text)
    assert [f.code for f in found] == ["S014"]
    assert found[0].message.endswith("(compared with pipeline `docs`, the one `current_pipeline` on line 1 names)")
    # Without current_pipeline, phase 1 must be long complete in every pipeline: `code` has not started it.
    assert [f.code for f in check(text.replace("current_pipeline: docs\n", ""))] == []
    # v2.0 sections are not read as prose.
    assert "S014" not in {f.code for f in check(v1("COMPLETE", "x").replace("resumption:", "old:") + v2())}


def _complete_v2(**recovery: str) -> str:
    text = (RULES / "S017" / "good" / "ORCHESTRATION.yaml").read_text()
    for key, value in recovery.items():
        text = re.sub(rf"(?m)^(    {key}: ).*$", lambda m, v=value: m.group(1) + v, text)
    return text


def test_s017_prose_that_says_not_started_or_phase_ready_under_complete() -> None:
    for field, prose in [
        ("next_step", '"Execute Phase 1 agents"'),
        ("next_step", '"Next: Phase 2 drafting"'),
        ("current_activity", '"phase-1-ready"'),
        ("current_activity", '"Workflow not started"'),
        ("current_activity", '"Phase 2 ready to start"'),
    ]:
        found = [f for f in check(_complete_v2(**{field: prose})) if f.code == "S017"]
        assert [(f.json_path, f.severity) for f in found] == [
            (f"$.resumption.recovery_state.{field}", Severity.ERROR)
        ], prose
        assert found[0].message.startswith("`recovery_state.workflow_status` on line 10 is COMPLETE, but "), prose


def test_s017_is_silent_on_a_finished_workflow_and_on_live_ones() -> None:
    quiet = [
        _complete_v2(),
        _complete_v2(next_step='"Archive the workflow; the phase 1 notes were merged into the guide."'),
        _complete_v2(current_activity='"workflow-complete (phase 3 done)"'),
        # A live workflow: "phase 2 ready" and an agent under revision are its normal state.
        _complete_v2(workflow_status='"ACTIVE"', next_step='"Phase 2 ready to start"').replace(
            'status: "COMPLETE"', 'status: "ACTIVE"'
        ),
    ]
    for text in quiet:
        assert [f for f in check(text) if f.code == "S017"] == [], text


def test_s017_compares_workflow_status_when_the_section_has_none_of_the_enum() -> None:
    text = _complete_v2(
        workflow_status='"<ctxres migrate: not inferred; set this>"', next_step='"Execute Phase 1 agents"'
    )
    found = [f for f in check(text) if f.code == "S017"]
    assert len(found) == 1 and found[0].message.startswith("`workflow.status` on line 4 is COMPLETE, but ")


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        ("S014/bad-not-started", '`workflow.status` on line 5 is COMPLETE and phase 1 "Research"'),
        ("S014/bad-complete", '`workflow.status` on line 4 is ACTIVE and phase 2 "Migration"'),
        ("S014/bad-phase-long-complete", 'phase 1 "Audit" (`pipelines.main.phases[0]` on line 10) is COMPLETE'),
        ("S014/bad-awaiting-approval-later-phase", 'is ACTIVE and phase 4 "Announcement"'),
        ("S014/bad-awaiting-approval-gate-passed", 'is ACTIVE and phase 3 "Release"'),
    ],
)
def test_s014_fixtures_say_what_they_compared(case: str, expected: str) -> None:
    folder = RULES / case
    found = [f for f in check_folder(folder) if f.code == case[:4]]
    assert len(found) == 1 and expected in found[0].message, found
