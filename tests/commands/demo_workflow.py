"""A small v2.0 workflow and two later versions of it, for the tests of `ctxres stale`, the history
commands and CI: ``ADVANCED`` moves the state without the resumption section, ``UPDATED`` brings the
section up to date."""

from __future__ import annotations

from pathlib import Path

from ..git_sandbox import GitRepo

# A small v2.0 ORCHESTRATION file: phase 1 is running, phase 2 waits for it.
ORCH = """\
# Orchestration state of the demo workflow.
schema_version: "2.0.0"
workflow:
  id: "demo-20260220-001"
  status: "ACTIVE"  # ACTIVE | PAUSED | COMPLETE
  description: "Build and ship the demo."
pipelines:
  main:
    status: "PHASE_1_IN_PROGRESS"
    current_phase: 1
    phases:
      - id: 1
        name: "Build"
        status: "IN_PROGRESS"
        agents:
          - id: "builder"
            status: "IN_PROGRESS"
      - id: 2
        name: "Ship"
        status: "BLOCKED"
        agents:
          - id: "shipper"
            status: "BLOCKED"
quality_gates:
  qg-1:
    status: "PENDING"
    current_iteration: 0
    score: null
checkpoints:
  latest_id: "CP-001"
  entries:
    - id: "CP-001"
      trigger: "MANUAL"
resumption:
  recovery_state:
    last_checkpoint: "CP-001"
    current_phase: 1
    current_phase_name: "Build"
    workflow_status: "ACTIVE"
    current_activity: "phase-1-agent-execution"
    next_step: "Let the builder finish, then start phase 2."
    updated_at: "2026-02-20T09:00:00Z"
  agent_summaries: {}
"""

ADVANCED = (
    ORCH.replace(
        '    status: "PHASE_1_IN_PROGRESS"\n    current_phase: 1',
        '    status: "PHASE_2_IN_PROGRESS"\n    current_phase: 2',
    )
    .replace(
        '        name: "Build"\n        status: "IN_PROGRESS"', '        name: "Build"\n        status: "COMPLETE"'
    )
    .replace('            status: "IN_PROGRESS"', '            status: "COMPLETE"')
    .replace('        name: "Ship"\n        status: "BLOCKED"', '        name: "Ship"\n        status: "IN_PROGRESS"')
)

UPDATED = ADVANCED.replace(
    '    current_phase: 1\n    current_phase_name: "Build"', '    current_phase: 2\n    current_phase_name: "Ship"'
).replace('updated_at: "2026-02-20T09:00:00Z"', 'updated_at: "2026-02-20T10:15:00Z"')


def line_of(text: str, needle: str, occurrence: int = 1) -> int:
    """The number of the line of ``text`` that holds ``needle`` for the ``occurrence``-th time."""
    lines = text.splitlines()
    hits = [number for number, line in enumerate(lines, start=1) if needle in line]
    return hits[occurrence - 1]


def demo_repository(tmp_path: Path) -> GitRepo:
    """A git repository whose one commit holds ``ORCH`` as ``ORCHESTRATION.yaml``."""
    repo = GitRepo(tmp_path / "repo")
    repo.stage("ORCHESTRATION.yaml", ORCH)
    repo.commit("start the workflow")
    return repo
