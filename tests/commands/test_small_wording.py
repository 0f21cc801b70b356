"""Small things a person reads: the doctor's L1 recognises the protocol document by what it is, `init` says what it
did not write for L1, the L2 row without a rule file reads plainly, and the V007 hint for `current_phase` uses the
workflow's own phase ids."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

from ctxres.linters.rules.layers import PROTOCOL_PATH, is_protocol_document

from ..cli_process import ctxres

PROTOCOL = (resources.files("ctxres.linters") / "data" / "resumption-update-protocol.md").read_text("utf-8")
DELIVERABLE = "# Findings of the research agent\n\nWe kept to the resumption update protocol (T1 to T7) throughout.\n"


def _row(root: Path, layer: str) -> dict[str, str]:
    report = json.loads(ctxres("doctor", "--output-format", "json", cwd=root).stdout)
    row: dict[str, str] = next(r for r in report["layers"] if r["layer"] == layer)
    return row


def test_a_file_that_mentions_the_protocol_is_not_the_protocol_document(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    deliverable = tmp_path / "projects" / "P1" / "work" / "resumption-update-protocol.md"
    deliverable.parent.mkdir(parents=True)
    deliverable.write_text(DELIVERABLE)
    assert not is_protocol_document(DELIVERABLE) and is_protocol_document(PROTOCOL)
    row = _row(tmp_path, "L1")
    assert row["status"] == "missing", row
    assert "projects/P1/work/resumption-update-protocol.md has its name but is another document" in row["detail"]
    init = ctxres("init", "--only", "L1", cwd=tmp_path)
    assert init.returncode == 0 and f": {PROTOCOL_PATH}\n" in init.stdout, init.stdout
    assert _row(tmp_path, "L1") == {"layer": "L1", "status": "present", "detail": PROTOCOL_PATH, "fix": ""}


def test_init_says_where_the_project_keeps_its_protocol_document(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    kept = tmp_path / "handbook" / "resumption-update-protocol.md"
    kept.parent.mkdir()
    kept.write_text(PROTOCOL)
    assert _row(tmp_path, "L1")["detail"] == "handbook/resumption-update-protocol.md"
    init = ctxres("init", "--only", "L1", cwd=tmp_path)
    assert init.returncode == 0
    said = "keep the protocol document (L1) the project has: handbook/resumption-update-protocol.md"
    assert said in init.stdout, init.stdout
    assert not (tmp_path / PROTOCOL_PATH).exists()
    elsewhere = tmp_path / PROTOCOL_PATH  # a file of the project's own at the usual place: said, never overwritten
    kept.unlink()
    elsewhere.parent.mkdir(parents=True)
    elsewhere.write_text(DELIVERABLE)
    init = ctxres("init", "--only", "L1", cwd=tmp_path)
    assert f"ctxres: warning: {PROTOCOL_PATH} is not the resumption update protocol (L1)" in init.stderr, init.stderr
    assert elsewhere.read_text() == DELIVERABLE
    assert _row(tmp_path, "L1")["fix"] == f"move {PROTOCOL_PATH}, then ctxres init --only L1"


def test_the_l2_row_without_a_rule_file_reads_plainly(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    row = _row(tmp_path, "L2")
    assert row["status"] == "missing"
    assert "in no rule file" not in row["detail"] and row["detail"].startswith("no rule file (CLAUDE.md"), row


WORKFLOW = """workflow:
  id: "W-1"
  status: "ACTIVE"
pipelines:
  main:
    phases:
      - id: "research"
        name: "Research"
        status: "IN_PROGRESS"
      - id: "build"
        name: "Build"
        status: "PENDING"
resumption:
  recovery_state:
    last_checkpoint: null
    current_phase: "<ctxres migrate: not inferred; set this>"
    current_phase_name: "Research"
    workflow_status: "ACTIVE"
    current_activity: "reading"
    next_step: "Read the sources"
    context_fill_at_update: null
    updated_at: "2026-11-26T10:00:00Z"
  files_to_read:
    - "ORCHESTRATION.yaml"
"""


def test_the_placeholder_hint_follows_the_workflow_s_phase_ids(tmp_path: Path) -> None:
    (tmp_path / "ORCHESTRATION.yaml").write_text(WORKFLOW)
    done = ctxres("check", "--select", "V007", "--output-format", "json", "ORCHESTRATION.yaml", cwd=tmp_path)
    (finding,) = json.loads(done.stdout)["findings"]
    assert "one of research, build" in finding["fix"] and "number" not in finding["fix"], finding
    numbered = WORKFLOW.replace('id: "research"', "id: 1").replace('id: "build"', "id: 2")
    (tmp_path / "ORCHESTRATION.yaml").write_text(numbered)
    done = ctxres("check", "--select", "V007", "--output-format", "json", "ORCHESTRATION.yaml", cwd=tmp_path)
    assert "the number of the phase in progress" in done.stdout
