"""PostToolUse (L3 staleness after writes to a workflow file), run as the real ``ctxres-hook`` process."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ctxres.hooks import monitor
from ctxres.hooks.posttooluse import has_resumption_key, written_yaml

from ..conftest import CORPUS
from ..git_sandbox import git
from .claude_session import NOW, SESSION, WORKFLOW, run_hook, user_line, validate, workspace, write_transcript

EVENT = "PostToolUse"
HEAVY = ("pydantic", "jsonschema", "ctxres.linters", "ctxres.schemas")


def tool_payload(
    project: Path, file_path: str, *, tool: str = "Write", transcript: str | None = None, session: str = SESSION
) -> dict[str, Any]:
    """Reference A.1's PostToolUse example, pointed at the test's project."""
    payload: dict[str, Any] = {
        "session_id": session,
        "transcript_path": transcript or str(project.parent / "transcript.jsonl"),
        "cwd": str(project),
        "permission_mode": "default",
        "hook_event_name": "PostToolUse",
        "tool_name": tool,
        "tool_input": {"file_path": file_path, "content": "file content"},
        "tool_response": {"filePath": file_path, "success": True},
        "tool_use_id": "toolu_01ABC123",
        "duration_ms": 12,
    }
    if tool == "Edit":
        payload["tool_input"] = {"file_path": file_path, "old_string": "a", "new_string": "b"}
    return payload


def _path(project: Path, rel: str = WORKFLOW) -> str:
    return str(project / rel)


# --------------------------------------------------------------------------- the documented payload


def test_documented_payload_gives_valid_output(tmp_path: Path) -> None:
    project = workspace(tmp_path)
    payload = tool_payload(project, "/path/to/file.txt")
    validate(payload, "hook-posttooluse-input")
    run = run_hook(EVENT, payload, project)
    assert run.output == {}
    assert run.stderr_lines == []


# --------------------------------------------------------------------------- fresh and stale writes


@pytest.mark.parametrize("tool", ["Write", "Edit", "MultiEdit"])
def test_a_fresh_write_says_nothing(tmp_path: Path, tool: str) -> None:
    project = workspace(tmp_path)  # updated_at 11:45, now 12:00
    run = run_hook(EVENT, tool_payload(project, _path(project), tool=tool), project)
    assert run.output == {}
    assert run.stderr_lines == []


@pytest.mark.parametrize("tool", ["Write", "Edit", "MultiEdit"])
def test_a_stale_write_gets_the_warning(tmp_path: Path, tool: str) -> None:
    project = workspace(tmp_path, updated_at="2026-02-17T11:00:00Z")
    run = run_hook(EVENT, tool_payload(project, _path(project), tool=tool), project)
    assert run.output["hookSpecificOutput"]["hookEventName"] == EVENT
    lines = (run.context or "").splitlines()
    assert lines[0] == (
        f"Resumption staleness after this write to {WORKFLOW}: STALE. "
        "`updated_at` 2026-02-17T11:00:00Z is 1 h old, more than 30 minutes."
    )
    assert f"Set resumption.recovery_state.updated_at to the current time ({NOW})" in lines[1]
    assert run.stderr_lines == []


def test_a_write_in_a_new_session_is_critical(tmp_path: Path) -> None:
    project = workspace(tmp_path)  # updated 11:45
    transcript = write_transcript(tmp_path, [user_line("2026-02-17T11:55:00Z")])
    run = run_hook(EVENT, tool_payload(project, _path(project), transcript=transcript), project)
    text = run.context or ""
    assert text.startswith(f"Resumption staleness after this write to {WORKFLOW}: CRITICAL.")
    assert "from a previous session (this one started 2026-02-17T11:55:00Z)" in text
    assert "Bring the whole resumption section up to date before continuing" in text


def test_a_write_in_a_later_phase_is_stale(tmp_path: Path) -> None:
    project = workspace(tmp_path)
    target = project / WORKFLOW
    target.write_text(target.read_text() + '\nphases:\n  - id: 2\n    started_at: "2026-02-17T11:55:00Z"\n')
    run = run_hook(EVENT, tool_payload(project, _path(project)), project)
    assert "is from a previous phase (the current one started 2026-02-17T11:55:00Z)" in (run.context or "")


def test_the_configured_window_is_used(tmp_path: Path) -> None:
    project = workspace(tmp_path)
    (project / ".ctxres.toml").write_text("staleness_minutes = 10\n")
    run = run_hook(EVENT, tool_payload(project, _path(project)), project)
    assert "is 15 min old, more than 10 minutes" in (run.context or "")


def test_missing_updated_at_is_critical(tmp_path: Path) -> None:
    project = workspace(tmp_path)
    target = project / WORKFLOW
    target.write_text(target.read_text().replace('    updated_at: "2026-02-17T11:45:00Z"\n', ""))
    run = run_hook(EVENT, tool_payload(project, _path(project)), project)
    assert ": CRITICAL. `updated_at` is missing" in (run.context or "")


# --------------------------------------------------------------------------- what is checked


@pytest.mark.parametrize("tool", ["Bash", "Read", "NotebookEdit", "Grep"])
def test_other_tools_are_ignored(tmp_path: Path, tool: str) -> None:
    project = workspace(tmp_path, updated_at="2026-02-17T11:00:00Z")
    assert run_hook(EVENT, tool_payload(project, _path(project), tool=tool), project).output == {}


@pytest.mark.parametrize("name", ["README.md", "config.yaml", "ORCHESTRATION.md", "notes/plan.yml"])
def test_other_files_are_ignored(tmp_path: Path, name: str) -> None:
    project = workspace(tmp_path, updated_at="2026-02-17T11:00:00Z")
    target = project / name
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("title: x\nnotes:\n  resumption: not a top-level key\n")
    assert run_hook(EVENT, tool_payload(project, str(target)), project).output == {}


def test_a_yaml_file_with_a_top_level_resumption_key_is_checked_whatever_its_name(tmp_path: Path) -> None:
    project = workspace(tmp_path, updated_at="2026-02-17T11:00:00Z")
    other = project / "workflows" / "feat-015.yaml"
    other.parent.mkdir()
    other.write_text((project / WORKFLOW).read_text())
    run = run_hook(EVENT, tool_payload(project, str(other)), project)
    assert (run.context or "").startswith("Resumption staleness after this write to workflows/feat-015.yaml: STALE.")


def test_a_file_outside_the_project_is_ignored(tmp_path: Path) -> None:
    project = workspace(tmp_path)
    outside = workspace(tmp_path / "other", updated_at="2026-02-17T11:00:00Z")
    assert run_hook(EVENT, tool_payload(project, _path(outside)), project).output == {}


def test_a_relative_path_is_ignored(tmp_path: Path) -> None:
    project = workspace(tmp_path, updated_at="2026-02-17T11:00:00Z")
    assert run_hook(EVENT, tool_payload(project, WORKFLOW), project).output == {}


def test_a_finished_workflow_is_not_checked(tmp_path: Path) -> None:
    project = workspace(tmp_path, updated_at="2026-02-17T11:00:00Z")
    target = project / WORKFLOW
    target.write_text(target.read_text().replace('workflow_status: "ACTIVE"', 'workflow_status: "COMPLETE"'))
    assert run_hook(EVENT, tool_payload(project, _path(project)), project).output == {}


def test_a_file_without_a_resumption_section_is_ignored(tmp_path: Path) -> None:
    project = workspace(tmp_path, text="workflow:\n  status: ACTIVE\n")
    assert run_hook(EVENT, tool_payload(project, _path(project)), project).output == {}


# --------------------------------------------------------------------------- v1.0 sections


def test_v1_section_gets_the_migrate_hint_once_per_session(tmp_path: Path) -> None:
    text = (CORPUS / "orchestration" / "002-PROJ-001-oss-release.yaml").read_text()
    project = workspace(tmp_path, text=text.replace('status: "COMPLETE"', 'status: "ACTIVE"', 1))
    payload = tool_payload(project, _path(project))
    first = run_hook(EVENT, payload, project)
    assert first.context == monitor.migrate_hint_text(WORKFLOW)
    assert f"`ctxres migrate {WORKFLOW} --write`" in (first.context or "")
    assert run_hook(EVENT, payload, project).output == {}
    again = run_hook(EVENT, tool_payload(project, _path(project), session="another-session"), project)
    assert again.context == monitor.migrate_hint_text(WORKFLOW)


def test_v1_corpus_file_as_is_is_a_finished_workflow(tmp_path: Path) -> None:
    project = workspace(tmp_path, text=(CORPUS / "orchestration" / "002-PROJ-001-oss-release.yaml").read_text())
    assert run_hook(EVENT, tool_payload(project, _path(project)), project).output == {}


# --------------------------------------------------------------------------- failures: exit 0, valid output, one line


def test_garbage_stdin(tmp_path: Path) -> None:
    project = workspace(tmp_path)
    run = run_hook(EVENT, b"{not json", project)
    assert run.output == {}
    assert len(run.stderr_lines) == 1


def test_unparsable_workflow_file_is_named_to_the_model(tmp_path: Path) -> None:
    """A write that leaves the workflow file unreadable: the model is told which file, where, and to fix it."""
    project = workspace(tmp_path, text="resumption: [unclosed\n")
    run = run_hook(EVENT, tool_payload(project, _path(project)), project)
    context = run.context or ""
    rel = Path(_path(project)).relative_to(project).as_posix()
    assert context.startswith(f"ctxres: the live workflow {rel} cannot be read: invalid YAML: "), context
    assert " at line 1:22; fix it" in context
    assert run.stderr_lines == []


def test_unwritable_state_dir_still_gives_the_hint(tmp_path: Path) -> None:
    """Read-only simulated by a regular file where the state directory should be (chmod does not stop root)."""
    text = (CORPUS / "orchestration" / "002-PROJ-001-oss-release.yaml").read_text()
    project = workspace(tmp_path, text=text.replace('status: "COMPLETE"', 'status: "ACTIVE"', 1))
    (project / ".jerry").write_text("not a folder")
    run = run_hook(EVENT, tool_payload(project, _path(project)), project)
    assert run.context == monitor.migrate_hint_text(WORKFLOW)
    assert len(run.stderr_lines) == 1 and "cannot write .jerry/context-monitor-cache.json" in run.stderr_lines[0]


def test_unwritable_state_dir_still_gives_the_warning(tmp_path: Path) -> None:
    project = workspace(tmp_path, updated_at="2026-02-17T11:00:00Z")
    (project / ".jerry").write_text("not a folder")
    transcript = write_transcript(tmp_path, [user_line("2026-02-17T10:00:00Z")])
    run = run_hook(EVENT, tool_payload(project, _path(project), transcript=transcript), project)
    assert (run.context or "").startswith(f"Resumption staleness after this write to {WORKFLOW}: STALE.")
    assert len(run.stderr_lines) == 1


# --------------------------------------------------------------------------- pure parts and start-up cost


@pytest.mark.parametrize(
    ("payload", "expected"),
    [
        ({"tool_name": "Write", "tool_input": {"file_path": "/p/ORCHESTRATION.yaml"}}, "/p/ORCHESTRATION.yaml"),
        ({"tool_name": "Edit", "tool_input": {"file_path": "/p/x.YML"}}, "/p/x.YML"),
        ({"tool_name": "Write", "tool_input": {"file_path": "/p/x.json"}}, None),
        ({"tool_name": "Bash", "tool_input": {"command": "ls"}}, None),
        ({"tool_name": "Write", "tool_input": "not an object"}, None),
        ({"tool_name": "Write", "tool_input": {"file_path": 5}}, None),
        ({}, None),
    ],
)
def test_written_yaml(payload: dict[str, Any], expected: str | None) -> None:
    assert written_yaml(payload) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (b"resumption:\n  a: 1\n", True),
        (b"workflow: {}\nresumption :\n", True),
        (b"# resumption: in a comment\nresumption:\n", True),
        (b"workflow:\n  resumption: nested\n", False),
        (b"# resumption: in a comment\n", False),
        (b"resumptions:\n", False),
        (b"", False),
    ],
)
def test_has_resumption_key(text: bytes, expected: bool) -> None:
    assert has_resumption_key(text) is expected


def _modules_after_dispatch(payload: dict[str, Any], project: Path) -> list[str]:
    code = (
        "import json, sys; from ctxres.hooks.main import dispatch; "
        f"print(json.dumps([dispatch({EVENT!r}, json.loads(sys.argv[1])), sorted(sys.modules)]))"
    )
    env = {**os.environ, "CLAUDE_PROJECT_DIR": str(project), "CTXRES_NOW": NOW}
    out = subprocess.run(
        [sys.executable, "-c", code, json.dumps(payload)], capture_output=True, text=True, check=True, env=env
    ).stdout
    answer, modules = json.loads(out)
    assert isinstance(answer, dict)
    return list(modules)


def test_other_files_are_ignored_before_anything_heavy_is_imported(tmp_path: Path) -> None:
    project = workspace(tmp_path)
    modules = _modules_after_dispatch(tool_payload(project, str(project / "README.md")), project)
    assert "ctxres.hooks.posttooluse" in modules
    light = (
        "yaml",
        "ctxres.state.freshness",
        "ctxres.state.staleness",
        "ctxres.timestamps",
        "ctxres.hooks.monitor",
        "ctxres.transcript",
        "ctxres.state.orchestration",
        "ctxres.hooks.writecheck",
        "ctxres.hooks.statemoves",
        "ctxres.state.statediff",
    )
    assert [m for m in modules if m.startswith(HEAVY) or m in light] == []


def test_a_state_move_imports_no_heavy_module(tmp_path: Path) -> None:
    project = _gate_workspace(tmp_path)
    assert run_hook(EVENT, tool_payload(project, _path(project), tool="Edit"), project).output == {}  # baseline
    _edit(project, *GATE_DONE)
    modules = _modules_after_dispatch(tool_payload(project, _path(project), tool="Edit"), project)
    assert "ctxres.state.statediff" in modules  # it did compare
    assert [m for m in modules if m.startswith(HEAVY)] == []


def test_a_checked_write_imports_no_heavy_module(tmp_path: Path) -> None:
    project = workspace(tmp_path, updated_at="2026-02-17T11:00:00Z")
    modules = _modules_after_dispatch(tool_payload(project, _path(project)), project)
    assert "ctxres.state.freshness" in modules  # it did check
    assert [m for m in modules if m.startswith(HEAVY)] == []


# --------------------------------------------------------------------------- the state moved, the section did not

GATES = '\nquality_gates:\n  qg-2:\n    status: "PENDING"  # the gate the section is on\n    threshold: 0.92\n'
TEN_MINUTES_AGO = "2026-02-17T11:50:00Z"  # NOW is 12:00: FRESH by its age


def _gate_workspace(tmp_path: Path) -> Path:
    project = workspace(tmp_path, updated_at=TEN_MINUTES_AGO)
    target = project / WORKFLOW
    target.write_text(target.read_text() + GATES)
    return project


def _edit(project: Path, old: str, new: str) -> None:
    target = project / WORKFLOW
    text = target.read_text()
    assert old in text
    target.write_text(text.replace(old, new, 1))


GATE_DONE = ('status: "PENDING"  # the gate', 'status: "COMPLETE"  # the gate')
SECTION_UPDATED = (f'updated_at: "{TEN_MINUTES_AGO}"', 'updated_at: "2026-02-17T12:00:00Z"')
PROSE = ("Strategic context.", "Strategic context, reworded.")


def _snapshot(project: Path) -> dict[str, Any]:
    from ctxres.hooks.statemoves import SNAPSHOT_FILE

    loaded: dict[str, Any] = json.loads((project / ".jerry" / SNAPSHOT_FILE).read_text())
    return loaded


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_a_gate_moved_without_the_section_is_stale_at_once_against_git_head(tmp_path: Path) -> None:
    """Ten minutes after the last update (FRESH by its age), an Edit moves quality gate qg-2 from PENDING to
    COMPLETE and leaves the section alone: the real hook process warns at once, naming the move."""
    project = _gate_workspace(tmp_path)
    git(project, "init", "-q")
    git(project, "add", WORKFLOW)
    git(project, "commit", "-q", "-m", "qg-2 pending")
    _edit(project, *GATE_DONE)
    run = run_hook(EVENT, tool_payload(project, _path(project), tool="Edit"), project)
    lines = (run.context or "").splitlines()
    assert lines[0] == (
        f"Resumption staleness after this write to {WORKFLOW}: STALE. This write moved the workflow's state, "
        "but not the resumption section (its recovery_state.updated_at, 2026-02-17T11:50:00Z, did not advance; "
        "compared with the file at git HEAD):"
    )
    assert lines[1] == "- gate qg-2 status: PENDING -> COMPLETE"
    assert "Set resumption.recovery_state.updated_at to the current time (2026-02-17T12:00:00Z)" in lines[2]
    assert run.stderr_lines == []
    entry = _snapshot(project)["files"][WORKFLOW]  # HEAD stays the reference while the file is as the hooks saw it
    assert (entry["from"], entry["state"]["quality_gates"]["qg-2"]["status"]) == ("HEAD", "PENDING")
    assert entry["seen"]["quality_gates"]["qg-2"]["status"] == "COMPLETE"


def test_a_gate_moved_without_the_section_against_the_last_state_the_hooks_saw(tmp_path: Path) -> None:
    project = _gate_workspace(tmp_path)  # no git: the first write only records the baseline
    first = run_hook(EVENT, tool_payload(project, _path(project), tool="Edit"), project)
    assert first.output == {} and first.stderr_lines == []
    assert _snapshot(project)["files"][WORKFLOW]["state"]["quality_gates"]["qg-2"]["status"] == "PENDING"

    _edit(project, *GATE_DONE)
    moved = run_hook(EVENT, tool_payload(project, _path(project), tool="Edit"), project)
    assert "compared with the last state the hooks saw of this file" in (moved.context or "")
    assert "- gate qg-2 status: PENDING -> COMPLETE" in (moved.context or "").splitlines()

    _edit(project, *PROSE)  # a later prose edit: the section is still behind, so the warning stays
    again = run_hook(EVENT, tool_payload(project, _path(project), tool="Edit"), project)
    assert "- gate qg-2 status: PENDING -> COMPLETE" in (again.context or "").splitlines()
    assert _snapshot(project)["files"][WORKFLOW]["state"]["quality_gates"]["qg-2"]["status"] == "PENDING"

    _edit(project, *SECTION_UPDATED)  # the section catches up: silent, and the baseline advances
    caught_up = run_hook(EVENT, tool_payload(project, _path(project), tool="Edit"), project)
    assert caught_up.output == {} and caught_up.stderr_lines == []
    assert _snapshot(project)["files"][WORKFLOW]["state"]["quality_gates"]["qg-2"]["status"] == "COMPLETE"


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
@pytest.mark.parametrize(
    "edits",
    [
        pytest.param([GATE_DONE, SECTION_UPDATED], id="section-updated-in-the-same-edit"),
        pytest.param([PROSE], id="prose-only"),
        pytest.param([("# the gate the section is on", "# reworded comment")], id="comment-only"),
        pytest.param([("threshold: 0.92", "threshold: 0.95")], id="configuration-only"),
    ],
)
def test_near_misses_stay_silent(tmp_path: Path, edits: list[tuple[str, str]]) -> None:
    project = _gate_workspace(tmp_path)
    git(project, "init", "-q")
    git(project, "add", WORKFLOW)
    git(project, "commit", "-q", "-m", "qg-2 pending")
    for old, new in edits:
        _edit(project, old, new)
    run = run_hook(EVENT, tool_payload(project, _path(project), tool="Edit"), project)
    assert run.output == {} and run.stderr_lines == []
    assert WORKFLOW in _snapshot(project)["files"]  # the written state became the baseline


def test_a_v1_section_left_behind_by_a_state_move_gets_the_v1_fix(tmp_path: Path) -> None:
    text = (CORPUS / "orchestration" / "002-PROJ-001-oss-release.yaml").read_text()
    project = workspace(tmp_path, text=text.replace('status: "COMPLETE"', 'status: "ACTIVE"', 1) + GATES)
    first = run_hook(EVENT, tool_payload(project, _path(project)), project)
    assert first.context == monitor.migrate_hint_text(WORKFLOW)  # no baseline yet: the usual v1.0 hint
    _edit(project, *GATE_DONE)
    run = run_hook(EVENT, tool_payload(project, _path(project)), project)
    lines = (run.context or "").splitlines()
    assert "but not the resumption section (its v1.0 resumption section did not change;" in lines[0]
    assert "- gate qg-2 status: PENDING -> COMPLETE" in lines
    assert "Update current_state and next_step" in lines[-1]


def test_an_example_is_never_checked(tmp_path: Path) -> None:
    project = workspace(tmp_path, updated_at="2026-02-17T09:00:00Z")  # STALE, but an example
    example = project / "docs" / "protocol" / "ORCHESTRATION.yaml"
    example.parent.mkdir(parents=True)
    example.write_text((project / WORKFLOW).read_text())
    run = run_hook(EVENT, tool_payload(project, str(example)), project)
    assert run.output == {} and run.stderr_lines == []


def test_the_configured_orchestration_patterns_decide_what_a_workflow_file_is(tmp_path: Path) -> None:
    project = workspace(tmp_path, updated_at="2026-02-17T11:00:00Z")  # STALE by its age
    plan = project / "workflow" / "plan.yaml"
    plan.parent.mkdir()
    plan.write_text(
        "# no resumption key at the top level\nstate:\n  " + (project / WORKFLOW).read_text().replace("\n", "\n  ")
    )
    assert run_hook(EVENT, tool_payload(project, str(plan)), project).output == {}
    (project / ".ctxres.toml").write_text('[patterns]\norchestration = ["workflow/*.yaml"]\n')
    plan.write_text((project / WORKFLOW).read_text())
    run = run_hook(EVENT, tool_payload(project, str(plan)), project)
    assert (run.context or "").startswith("Resumption staleness after this write to workflow/plan.yaml: STALE.")
