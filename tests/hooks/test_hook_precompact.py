"""The PreCompact hook (T5): the checkpoint file it writes, and how it fails."""

from __future__ import annotations

import errno
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from ctxres.hooks import precompact
from ctxres.hooks.context import HookContext, HookError, Settings
from ctxres.linters.cli import main as cli_main
from tests.conftest import ROOT

from .hook_project import (
    NOW,
    SECRETS,
    TEMPLATE_ORCHESTRATION,
    answer,
    checkpoints,
    hook_env,
    load,
    monitor_state,
    payload,
    run_hook,
    transcript,
    validate,
    workspace,
)

# Reference A.1, verbatim apart from the paths (PreCompact, manual, "" custom instructions) and the
# two other shapes Claude Code sends: auto with "" and, in print mode, null.
PAYLOADS = {
    "manual-empty": {"trigger": "manual", "custom_instructions": ""},
    "manual-text": {"trigger": "manual", "custom_instructions": "keep the QG-2 scores"},
    "auto-empty": {"trigger": "auto", "custom_instructions": ""},
    "auto-null": {"trigger": "auto", "custom_instructions": None},
}


# --- the documented payloads ---------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(PAYLOADS))
def test_documented_payload_writes_a_valid_checkpoint_and_answers_empty(tmp_path: Path, name: str) -> None:
    root = workspace(tmp_path)
    stdin = payload(root, **PAYLOADS[name])
    validate("hook-precompact-input", stdin)
    result = run_hook("PreCompact", root, stdin)
    assert answer(result, "PreCompact") == {}
    assert result.stderr == ""
    [written] = checkpoints(root)
    # the section already records CX-001, so the next number is 2 (ctxres ack can append it)
    assert written.name == "cx-002.json"
    data = load(written)
    validate("checkpoint", data)
    assert data["event_id"] == "cx-002"
    assert data["timestamp"] == NOW
    assert data["trigger"] == {"type": PAYLOADS[name]["trigger"], "source": "PreCompact hook"}
    assert data["metadata"] == {"written_by": "ctxres-hook PreCompact", "acknowledged": False, "acknowledged_at": None}


def test_checkpoint_content_comes_from_the_section_the_gates_and_the_monitor(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    monitor_state(root)
    answer(run_hook("PreCompact", root, payload(root, trigger="auto")), "PreCompact")
    data = load(checkpoints(root)[0])
    assert data["context_state"] == {
        "estimated_fill_before_compaction": 0.886,
        "estimated_tokens_used": 177_200,
        "context_window_size": 200_000,
        "source": "context_monitor",
    }
    assert data["orchestration_state"] == {
        "workflow_id": "feat015-licmig-20260217-001",
        "workflow_status": "ACTIVE",
        "current_phase": 2,
        "current_phase_name": "Core License Changes",
        "current_activity": "qg-2-iteration-1",
        "last_completed_checkpoint": "CP-001",
        "phases_complete": None,
        "phases_in_progress": None,
        "phases_remaining": None,
        "current_gate": "qg-2",
        "current_gate_iteration": 1,
        "current_gate_score": 0.96,
        "current_gate_score_iteration": 1,  # the score came from iteration 1 (one score in the history)
    }
    accumulated = data["accumulated_context"]
    assert accumulated["defect_patterns"] == [
        "Evidence quality gaps: missing source URLs and unattached artifacts",
        "Cross-artifact consistency: counts and names mismatched between deliverables",
    ]
    assert accumulated["decisions_since_last_checkpoint"] == [
        {
            "id": "RD-001",
            "summary": "Align copyright holder to 'Adam Nowak' across NOTICE, header_template, and ORCHESTRATION_PLAN",
            "affects_phases": [3],
        }
    ]
    assert set(accumulated["agent_summaries"]) == {
        "audit-executor",
        "license-replacer",
        "notice-creator",
        "metadata-updater",
    }
    recovery = data["recovery_instructions"]
    assert recovery["next_action"].startswith("Continue QG-2 iteration 1. Re-read the 3 Phase 2 deliverables")
    assert recovery["critical_context"] == (
        "Activity at compaction: qg-2-iteration-1. Quality gate qg-2 iteration 1: last score 0.960. "
        "Primary defect of the last gate iteration: DA-001: copyright holder inconsistency. "
        "Unresolved defects: DA-001."
    )
    assert [entry["path"] for entry in recovery["files_to_read"]] == [
        "projects/PROJ-001-oss-release/ORCHESTRATION.yaml",
        "projects/PROJ-001-oss-release/ORCHESTRATION_PLAN.md",
        "projects/PROJ-001-oss-release/WORKTRACKER.md",
    ]


def test_checkpoint_is_mergeable_by_ctxres_ack(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = workspace(tmp_path)
    answer(run_hook("PreCompact", root, payload(root, trigger="manual")), "PreCompact")
    monkeypatch.chdir(root)
    assert cli_main(["ack", "--now", "2026-02-17T12:10:00Z"]) == 0
    assert load(checkpoints(root)[0])["metadata"]["acknowledged"] is True
    assert 'id: "CX-002"' in (root / "ORCHESTRATION.yaml").read_text()


def test_monitor_of_another_session_is_ignored_for_the_transcript(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    monitor_state(root, session_id="someone-else", fill=0.5, tokens=100_000)
    transcript(root, 150_000)
    answer(run_hook("PreCompact", root, payload(root, trigger="auto")), "PreCompact")
    context = load(checkpoints(root)[0])["context_state"]
    assert context == {
        "estimated_fill_before_compaction": 0.83,  # 150,000 of the 180,000 usable tokens, as the client shows it
        "estimated_tokens_used": 150_000,
        "context_window_size": 200_000,
        "source": "transcript_heuristic",
    }


def test_unreadable_monitor_falls_back_to_the_transcript(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    monitor_state(root).write_text("{not json")
    transcript(root, 100_000)
    result = run_hook("PreCompact", root, payload(root, trigger="auto"))
    answer(result, "PreCompact")
    assert load(checkpoints(root)[0])["context_state"]["estimated_fill_before_compaction"] == 0.56  # 100,000 / 180,000


def test_no_monitor_and_no_transcript_gives_nulls_that_still_validate(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    answer(run_hook("PreCompact", root, payload(root, trigger="auto")), "PreCompact")
    data = load(checkpoints(root)[0])
    validate("checkpoint", data)
    assert data["context_state"] == {
        "estimated_fill_before_compaction": None,
        "estimated_tokens_used": None,
        "context_window_size": 200_000,
        "source": "unknown",
    }


V1_WORKFLOW = """\
workflow:
  id: "wf-v1"
  status: "ACTIVE"
checkpoints:
  latest_id: "CP-004"
quality_gates:
  qg-1:
    status: "PASS"
    iteration_history:
      - {iteration: 1, score: 0.93}
  qg-2:
    status: "IN_PROGRESS"
    current_iteration: 2
    iteration_history:
      - {iteration: 1, score: 0.81}
      - {iteration: 2, score: 0.88}
resumption:
  last_checkpoint: "CP-003"
  current_state: "Phase 3 in progress: QG-2 iteration 2 scoring."
  next_step: "Finish scoring QG-2 iteration 2"
  files_to_read:
    - "ORCHESTRATION.yaml"
    - ""
    - 42
"""


def test_v1_section_gives_what_it_can(tmp_path: Path) -> None:
    root = workspace(tmp_path, V1_WORKFLOW)
    answer(run_hook("PreCompact", root, payload(root, trigger="auto")), "PreCompact")
    [written] = checkpoints(root)
    assert written.name == "cx-001.json"
    data = load(written)
    validate("checkpoint", data)
    state = data["orchestration_state"]
    assert state["workflow_id"] == "wf-v1" and state["workflow_status"] == "ACTIVE"
    assert state["current_activity"] == "Phase 3 in progress: QG-2 iteration 2 scoring."
    assert data["recovery_instructions"]["critical_context"] == (
        "Activity at compaction: Phase 3 in progress: QG-2 iteration 2 scoring. "
        "Quality gate qg-2 iteration 2: last score 0.880."
    )
    assert state["last_completed_checkpoint"] == "CP-004"  # checkpoints.latest_id wins (seed mapping)
    assert (state["current_gate"], state["current_gate_iteration"], state["current_gate_score"]) == ("qg-2", 2, 0.88)
    assert state["current_phase"] is None
    assert data["recovery_instructions"]["next_action"] == "Finish scoring QG-2 iteration 2"
    assert data["recovery_instructions"]["files_to_read"] == ["ORCHESTRATION.yaml"]
    assert data["accumulated_context"] == {
        "defect_patterns": None,
        "decisions_since_last_checkpoint": None,
        "agent_summaries": None,
    }


@pytest.mark.parametrize("status", ["COMPLETE", "FAILED"])
def test_no_active_workflow_writes_nothing_and_says_nothing(tmp_path: Path, status: str) -> None:
    text = TEMPLATE_ORCHESTRATION.read_text().replace('status: "ACTIVE"', f'status: "{status}"')
    root = workspace(tmp_path, text.replace('workflow_status: "ACTIVE"', f'workflow_status: "{status}"'))
    result = run_hook("PreCompact", root, payload(root, trigger="auto"))
    assert answer(result, "PreCompact") == {}
    assert result.stderr == ""
    assert not (root / ".jerry").exists()


def test_project_without_workflow_writes_nothing(tmp_path: Path) -> None:
    root = tmp_path / "empty"
    root.mkdir()
    result = run_hook("PreCompact", root, payload(root, trigger="manual", custom_instructions=""))
    assert answer(result, "PreCompact") == {}
    assert result.stderr == "" and list(root.iterdir()) == []


# --- concurrency, atomicity --------------------------------------------------------------------


# Concurrency (64 PreCompact and 64 UserPromptSubmit processes at once): tests/hooks/test_concurrency.py.


# --- secrets, safety, failures -----------------------------------------------------------------


def test_secrets_in_the_workflow_file_never_reach_the_checkpoint(tmp_path: Path) -> None:
    planted = (
        f"Deploy with key {SECRETS['anthropic']} and {SECRETS['openai']}; AWS {SECRETS['aws']} "
        f"aws_secret_access_key={SECRETS['aws_secret']}; push with {SECRETS['github']}; notify via "
        f"{SECRETS['slack']}; call the API with Authorization: Bearer {SECRETS['bearer']}; "
        f"db password: {SECRETS['password']}"
    )
    text = TEMPLATE_ORCHESTRATION.read_text()
    start = text.index("    next_step: >-")
    end = text.index("    context_fill_at_update")
    text = text[:start] + f"    next_step: {json.dumps(planted)}\n" + text[end:]
    text = text.replace(
        '    audit-executor: "PASS.',
        '    deployer: "-----BEGIN OPENSSH PRIVATE KEY-----\\nb3BlbnNzaC1rZXktdjE\\n'
        '-----END OPENSSH PRIVATE KEY-----"\n'
        '    audit-executor: "PASS.',
    )
    root = workspace(tmp_path, text)
    answer(run_hook("PreCompact", root, payload(root, trigger="auto")), "PreCompact")
    [written] = checkpoints(root)
    raw = written.read_text()
    for secret in (*SECRETS.values(), "b3BlbnNzaC1rZXktdjE", "PRIVATE KEY"):
        assert secret not in raw
    data = load(written)
    validate("checkpoint", data)
    assert data["recovery_instructions"]["next_action"].startswith("Deploy with key [REDACTED] and [REDACTED]")
    assert "Bearer [REDACTED]" in data["recovery_instructions"]["next_action"]
    assert data["accumulated_context"]["agent_summaries"]["deployer"] == "[REDACTED]"


def test_state_dir_symlinked_outside_the_project_is_refused(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / ".jerry").symlink_to(outside, target_is_directory=True)
    result = run_hook("PreCompact", root, payload(root, trigger="auto"))
    assert answer(result, "PreCompact") == {}
    assert len(result.stderr.splitlines()) == 1
    assert "refusing" in result.stderr and "outside the project" in result.stderr
    assert list(outside.iterdir()) == []


def test_checkpoints_folder_symlinked_outside_the_project_is_refused(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / ".jerry").mkdir()
    (root / ".jerry" / "checkpoints").symlink_to(outside, target_is_directory=True)
    result = run_hook("PreCompact", root, payload(root, trigger="auto"))
    assert answer(result, "PreCompact") == {}
    assert len(result.stderr.splitlines()) == 1 and "refusing" in result.stderr
    assert list(outside.iterdir()) == []


def _read_only(folder: Path) -> str:
    """Make ``folder`` unwritable: chmod 0o500 when that is effective (not root), else replace the
    checkpoints folder by a plain file (root ignores permission bits). Returns the method used."""
    folder.mkdir(parents=True, exist_ok=True)
    folder.chmod(0o500)
    probe = folder / "probe"
    try:
        probe.touch()
    except PermissionError:
        return "chmod"
    probe.unlink()
    folder.chmod(0o700)
    shutil.rmtree(folder)
    folder.write_text("not a folder")
    return "file"


def test_read_only_state_dir_answers_empty_with_one_stderr_line(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    folder = root / ".jerry" / "checkpoints"
    method = _read_only(folder)
    try:
        result = run_hook("PreCompact", root, payload(root, trigger="auto"))
    finally:
        if method == "chmod":
            folder.chmod(0o700)
    assert answer(result, "PreCompact") == {}
    lines = result.stderr.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("ctxres-hook: PreCompact: cannot create a checkpoint in .jerry/checkpoints")


def test_failed_write_removes_the_claimed_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = workspace(tmp_path)
    ctx = HookContext("PreCompact", payload(root, trigger="auto"), str(root.resolve()), Settings())

    def full_disk(path: object, data: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr("ctxres.atomic.create_atomic", full_disk)
    with pytest.raises(HookError, match=r"cannot write cx-002\.json in \.jerry/checkpoints: No space left"):
        precompact.write_checkpoint(
            ctx, {"resumption": {"compaction_events": {"events": [{"id": "CX-001"}]}}}, "O.yaml"
        )
    assert checkpoints(root) == []


@pytest.mark.parametrize("stdin", [b"", b"not json", b"[1, 2]", b"\xff\xfe\x00garbage"])
def test_garbage_stdin_answers_empty_with_one_stderr_line_and_writes_nothing(tmp_path: Path, stdin: bytes) -> None:
    root = workspace(tmp_path)
    result = run_hook("PreCompact", root, stdin)
    assert answer(result, "PreCompact") == {}
    assert len(result.stderr.splitlines()) == 1
    assert checkpoints(root) == []


@pytest.mark.parametrize(
    ("fields", "said"),
    [({"hook_event_name": "UserPromptSubmit", "prompt": "hi"}, "is for 'UserPromptSubmit'"), ({}, "trigger is None")],
)
def test_another_events_payload_writes_nothing(tmp_path: Path, fields: dict[str, Any], said: str) -> None:
    root = workspace(tmp_path)
    stdin = {k: v for k, v in payload(root).items() if k != "hook_event_name"} | fields
    result = run_hook("PreCompact", root, stdin)
    assert answer(result, "PreCompact") == {}
    assert len(result.stderr.splitlines()) == 1 and said in result.stderr
    assert checkpoints(root) == []


def test_hook_path_loads_no_heavy_module(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    monitor_state(root)
    code = (
        "import json, sys; from ctxres.hooks.main import dispatch; "
        f"dispatch('PreCompact', json.loads({json.dumps(json.dumps(payload(root, trigger='auto')))})); "
        "heavy = ('pydantic', 'jsonschema', 'ctxres.linters', 'ctxres.schemas'); "
        "print([m for m in sys.modules if m.startswith(heavy)])"
    )
    out = subprocess.run([sys.executable, "-c", code], env=hook_env(root), capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
    assert len(checkpoints(root)) == 1


# --- the pure parts ----------------------------------------------------------------------------


def test_empty_workflow_data_still_gives_a_valid_checkpoint() -> None:
    context = {
        "estimated_fill_before_compaction": None,
        "estimated_tokens_used": None,
        "context_window_size": 200_000,
        "source": "unknown",
    }
    data = precompact.build_checkpoint(
        {}, event_id="cx-007", timestamp=NOW, trigger="bogus", context_state=context, orchestration_file="a/O.yaml"
    )
    validate("checkpoint", data)
    assert data["trigger"]["type"] == "auto"
    assert data["recovery_instructions"] == {
        "files_to_read": None,
        "next_action": "Read the resumption section of a/O.yaml to find where the workflow stopped, then continue.",
        "critical_context": None,
    }


def test_mistyped_values_become_nulls_not_schema_errors() -> None:
    data = {
        "workflow": {"id": 12, "status": "weird"},
        "resumption": {
            "recovery_state": {"current_phase": -1, "current_activity": ["x"], "next_step": "   "},
            "quality_trajectory": {"current_gate": "qg-1", "current_gate_iteration": 0, "score_history": {"qg-1": [7]}},
            "decision_log": [{"id": "RD-9", "decision": "Keep", "affects_phases": [1, "two"]}, "junk"],
            "agent_summaries": {"a": None, "b": 3},
            "files_to_read": [{"path": "x.md", "priority": 0, "sections": "all"}],
        },
    }
    context = {"estimated_fill_before_compaction": None, "estimated_tokens_used": None}
    checkpoint = precompact.build_checkpoint(
        data,
        event_id="cx-001",
        timestamp=NOW,
        trigger="manual",
        context_state={**context, "context_window_size": 1, "source": "unknown"},
        orchestration_file="O.yaml",
    )
    validate("checkpoint", checkpoint)
    state = checkpoint["orchestration_state"]
    assert state["workflow_id"] == "12" and state["workflow_status"] is None and state["current_phase"] is None
    assert (state["current_gate"], state["current_gate_iteration"], state["current_gate_score"]) == ("qg-1", None, None)
    assert checkpoint["accumulated_context"]["decisions_since_last_checkpoint"] == [{"id": "RD-9", "summary": "Keep"}]
    assert checkpoint["accumulated_context"]["agent_summaries"] == {"b": "3"}
    assert checkpoint["recovery_instructions"]["files_to_read"] == [{"path": "x.md"}]


def test_decisions_are_those_after_the_last_merged_compaction() -> None:
    section = {
        "compaction_events": {"events": [{"id": "CX-001", "timestamp": "2026-02-17T11:45:00Z"}]},
        "decisions": [  # the older name of decision_log (docs/formats.md, "The decisions alias")
            {"decision": "before", "timestamp": "2026-02-17T11:00:00Z"},
            {"decision": "after", "timestamp": "2026-02-17T11:50:00+00:00"},
            {"decision": "undated"},
        ],
    }
    assert precompact.recent_decisions(section) == [
        {"id": "RD-002", "summary": "after"},
        {"id": "RD-003", "summary": "undated"},
    ]
    assert precompact.section_floor(section) == 2
    assert precompact.section_floor({}) == 1


def test_gate_position_prefers_the_trajectory_and_falls_back_to_the_gates() -> None:
    gates = {"quality_gates": {"gates": [{"id": "qg-3", "status": "REVISE", "iterations": [{"score": 0.9}]}]}}
    assert precompact.gate_position(gates, {}) == ("qg-3", 1, 0.9)
    between = {"quality_trajectory": {"current_gate": None}}
    assert precompact.gate_position(gates, between) == (None, None, None)
    two_running = {"quality_gates": {"a": {"status": "IN_PROGRESS"}, "b": {"status": "IN_PROGRESS"}}}
    assert precompact.gate_position(two_running, {}) == (None, None, None)


def test_monitor_reading_needs_a_fill_of_this_session() -> None:
    monitor = {"session_id": "s1", "fill": 0.7, "tokens": 140_000, "window": 200_000}
    assert precompact.context_from_monitor(monitor, "s1") == {
        "estimated_fill_before_compaction": 0.7,
        "estimated_tokens_used": 140_000,
        "context_window_size": 200_000,
        "source": "context_monitor",
    }
    assert precompact.context_from_monitor(monitor, "s2") is None
    assert precompact.context_from_monitor({**monitor, "fill": None}, "s1") is None
    assert precompact.context_from_monitor({**monitor, "fill": 1.5}, "s1") is None
    assert precompact.context_from_monitor([monitor], "s1") is None


def test_next_free_number_follows_every_checkpoint_and_the_floor(tmp_path: Path) -> None:
    folder = tmp_path / "checkpoints"
    assert precompact.next_free_number(str(folder)) == 1 and folder.is_dir()  # created when missing
    (folder / "cx-004.d933ffb7.json").write_text("{}")  # another tool's numbers count too
    assert precompact.next_free_number(str(folder), floor=2) == 5
    assert precompact.next_free_number(str(folder), floor=9) == 9


CORPUS_WORKFLOWS = sorted((ROOT / "fixtures" / "corpus" / "orchestration").glob("*.yaml"))
BROKEN_WORKFLOW = (  # a real file that is not valid YAML
    "PROJ-008__EPIC-001-transcript-skill__FEAT-001-analysis-design__EN-005-design-documentation__ORCHESTRATION_EN005.yaml"
)


@pytest.mark.parametrize("path", [p for p in CORPUS_WORKFLOWS if p.name != BROKEN_WORKFLOW], ids=lambda p: p.name)
def test_every_real_workflow_file_gives_a_valid_checkpoint(path: Path) -> None:
    data = yaml.safe_load(path.read_text())
    context = {
        "estimated_fill_before_compaction": 0.9,
        "estimated_tokens_used": 180_000,
        "context_window_size": 200_000,
        "source": "context_monitor",
    }
    checkpoint = precompact.build_checkpoint(
        data, event_id="cx-001", timestamp=NOW, trigger="auto", context_state=context, orchestration_file=path.name
    )
    validate("checkpoint", json.loads(json.dumps(checkpoint)))
    assert checkpoint["recovery_instructions"]["next_action"]


def test_named_workflow_that_is_not_yaml_answers_empty_with_one_stderr_line(tmp_path: Path) -> None:
    root = workspace(tmp_path, (ROOT / "fixtures" / "corpus" / "orchestration" / BROKEN_WORKFLOW).read_text())
    result = subprocess.run(
        [sys.executable, "-m", "ctxres.hooks.main", "PreCompact"],
        input=json.dumps(payload(root, trigger="auto")).encode(),
        env={**hook_env(root), "CTXRES_ORCHESTRATION": "ORCHESTRATION.yaml"},
        capture_output=True,
    )
    assert result.returncode == 0 and result.stdout == b""
    assert len(result.stderr.splitlines()) == 1 and b"cannot read ORCHESTRATION.yaml" in result.stderr
    assert checkpoints(root) == []
