"""What the text of a workflow file that cannot be parsed still says (``workflow_times.text_facts``): the facts
that decide whether it is the live workflow, the same in every clone."""

from __future__ import annotations

from ctxres.state.workflow_times import text_facts


def test_the_section_status_and_the_newest_time_are_read_from_the_lines() -> None:
    text = (
        'workflow:\n  id: "X"\n  status: "COMPLETE"\n  updated_at: "2026-01-01T00:00:00Z"\n'
        "pipelines:\n  main:\n    phases:\n      - status: ACTIVE\n"
        'resumption:\n  note: "unclosed\n  recovery_state:\n    workflow_status: PAUSED  # paused\n'
        '    updated_at: "2026-02-01T10:00:00+01:00"\n'
    )
    assert text_facts(text) == ("PAUSED", "2026-02-01T09:00:00.000000Z")


def test_the_workflow_status_when_the_section_has_none() -> None:
    text = 'workflow:\n  status: "ACTIVE"  # ACTIVE | PAUSED\n  phases:\n    status: PENDING\nresumption: [unclosed\n'
    assert text_facts(text) == ("ACTIVE", None)


def test_a_phase_status_is_not_the_workflow_status() -> None:
    assert text_facts("phases:\n  - status: ACTIVE\nworkflow: [x\n") == (None, None)
