"""UserPromptSubmit (L4 context monitor), run as the real ``ctxres-hook`` process in tmp workspaces."""

from __future__ import annotations

import errno
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ctxres.hooks import monitor
from ctxres.tokens import estimate_tokens

from ..conftest import CORPUS
from .claude_session import (
    FIXTURE_UPDATED_AT,
    NOW,
    SESSION,
    WORKFLOW,
    add_checkpoint,
    assistant_line,
    attachment_line,
    boundary_line,
    fill_transcript,
    prompt_payload,
    run_hook,
    user_line,
    validate,
    workspace,
    write_transcript,
)

EVENT = "UserPromptSubmit"
HEAVY = ("pydantic", "jsonschema", "ctxres.linters", "ctxres.schemas")


def _state(project: Path) -> dict[str, Any]:
    state: dict[str, Any] = json.loads((project / ".jerry" / monitor.STATE_FILE).read_text())
    validate(state, "monitor-state")
    return state


def _cache(project: Path) -> dict[str, Any]:
    cache: dict[str, Any] = json.loads((project / ".jerry" / monitor.CACHE_FILE).read_text())
    return cache


# --------------------------------------------------------------------------- the documented payload


def test_documented_payload_gives_valid_output_and_state(tmp_path: Path) -> None:
    project = workspace(tmp_path)
    transcript = fill_transcript(tmp_path, 131_400)
    payload = prompt_payload(project, transcript)
    validate(payload, "hook-userpromptsubmit-input")
    run = run_hook(EVENT, payload, project)
    assert run.output["hookSpecificOutput"]["hookEventName"] == EVENT
    assert run.stderr_lines == []
    state = _state(project)
    assert state == {
        "schema_version": "1.0",
        "session_id": SESSION,
        "timestamp": NOW,
        "fill": 0.73,
        "tokens": 131_400,
        "window": 200_000,
        "tier": "WARNING",
        "transcript_path": transcript,
        "transcript_offset": os.path.getsize(transcript),
        "source": "transcript",
    }


def test_without_a_transcript_nothing_is_written(tmp_path: Path) -> None:
    project = workspace(tmp_path)
    run = run_hook(EVENT, {"hook_event_name": EVENT, "prompt": "hi", "session_id": "s"}, project)
    assert run.output == {}
    assert run.stderr_lines == []
    assert not (project / ".jerry").exists()


# --------------------------------------------------------------------------- tiers


def test_low_fill_injects_nothing_and_records_the_reading(tmp_path: Path) -> None:
    project = workspace(tmp_path, updated_at="2026-02-16T08:00:00Z")  # even a CRITICAL section stays quiet
    run = run_hook(EVENT, prompt_payload(project, fill_transcript(tmp_path, 50_000)), project)
    assert run.output == {}
    assert run.stderr_lines == []
    assert (_state(project)["tier"], _state(project)["fill"]) == ("LOW", 0.28)  # 50,000 of 180,000 usable


WARNING_TEXT = """<context-monitor>
CONTEXT STATUS: WARNING (73% context used)
Tokens used: 131,400 / 180,000 usable (from the transcript)
Estimated remaining: 48,600 tokens (~1.7 QG iterations)
Compaction events: 1
Last checkpoint: CP-001
Resumption last updated: 2026-02-17T11:45:00Z (15 min ago)
Resumption staleness: FRESH (updated within the last 30 minutes)

ACTION RECOMMENDED:
- Update the resumption section of ORCHESTRATION.yaml now, so that it is current if compaction comes early.
</context-monitor>"""


def test_warning_injects_the_monitor_with_the_right_figures(tmp_path: Path) -> None:
    project = workspace(tmp_path)
    run = run_hook(EVENT, prompt_payload(project, fill_transcript(tmp_path, 131_400)), project)
    assert run.context == WARNING_TEXT
    assert estimate_tokens(WARNING_TEXT) < 200


@pytest.mark.parametrize(
    ("tokens", "status", "remaining", "action"),
    [
        (153_000, "CRITICAL (85% context used)", "27,000 tokens (~0.9 QG iterations)", "- Write a full update"),
        (
            166_500,  # 92.5%: the client rounds halves of the space left up, so it shows 92%
            "COMPACTION (92% context used)",
            "13,500 tokens (~0.5 QG iterations)",
            "- The client compacts once a request no longer fits",
        ),
    ],
)
def test_critical_and_compaction_tiers(tmp_path: Path, tokens: int, status: str, remaining: str, action: str) -> None:
    project = workspace(tmp_path, updated_at="2026-02-17T11:00:00Z")
    run = run_hook(EVENT, prompt_payload(project, fill_transcript(tmp_path, tokens)), project)
    assert run.context is not None
    lines = run.context.splitlines()
    assert lines[1] == f"CONTEXT STATUS: {status}"
    assert lines[2] == f"Tokens used: {tokens:,} / 180,000 usable (from the transcript)"
    assert lines[3] == f"Estimated remaining: {remaining}"
    assert "Resumption last updated: 2026-02-17T11:00:00Z (1 h ago)" in lines
    assert "Resumption staleness: STALE (1 h old, more than 30 minutes)" in lines
    assert lines[-3].startswith(action)
    assert lines[-2] == f"- In {WORKFLOW}: set recovery_state.updated_at and the fields that changed."
    assert estimate_tokens(run.context) < 200
    assert _state(project)["tier"] == status.split()[0]


def test_a_section_from_before_the_session_is_critical(tmp_path: Path) -> None:
    project = workspace(tmp_path)  # updated 11:45
    transcript = fill_transcript(tmp_path, 131_400, start="2026-02-17T11:55:00Z")
    run = run_hook(EVENT, prompt_payload(project, transcript), project)
    assert run.context is not None
    assert (
        "Resumption staleness: CRITICAL (from a previous session (this one started 2026-02-17T11:55:00Z))"
        in run.context.splitlines()
    )


def test_a_section_from_before_the_current_phase_is_stale(tmp_path: Path) -> None:
    text = (Path(__file__).parent.parent.parent / "fixtures/templates/proj001-qg2-ORCHESTRATION.yaml").read_text()
    text += '\nphases:\n  - id: 2\n    name: "Core License Changes"\n    started_at: "2026-02-17T11:55:00Z"\n'
    project = workspace(tmp_path, text=text)
    run = run_hook(EVENT, prompt_payload(project, fill_transcript(tmp_path, 131_400)), project)
    assert run.context is not None
    assert (
        "Resumption staleness: STALE (from a previous phase (the current one started 2026-02-17T11:55:00Z))"
        in run.context.splitlines()
    )


def test_the_configured_window_and_staleness_minutes_are_used(tmp_path: Path) -> None:
    project = workspace(tmp_path)
    (project / ".ctxres.toml").write_text("staleness_minutes = 10\n")
    run = run_hook(EVENT, prompt_payload(project, fill_transcript(tmp_path, 131_400)), project)
    assert run.context is not None
    assert "Resumption staleness: STALE (15 min old, more than 10 minutes)" in run.context.splitlines()


def test_a_one_million_window_model(tmp_path: Path) -> None:
    project = workspace(tmp_path)
    transcript = write_transcript(
        tmp_path, [user_line("2026-02-17T10:00:00Z"), assistant_line("m", 700_000, NOW, model="claude-opus-4-7[1m]")]
    )
    run = run_hook(EVENT, prompt_payload(project, transcript), project)
    assert run.context is not None
    assert run.context.splitlines()[1:3] == [
        "CONTEXT STATUS: WARNING (71% context used)",  # of the 980,000 usable tokens
        "Tokens used: 700,000 / 980,000 usable (from the transcript)",
    ]


def test_no_workflow_file(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    run = run_hook(EVENT, prompt_payload(project, fill_transcript(tmp_path, 131_400)), project)
    assert run.context is not None
    assert "Resumption: no ACTIVE or PAUSED ORCHESTRATION file found in the project" in run.context.splitlines()
    assert "Compaction events: 0" in run.context.splitlines()


# --------------------------------------------------------------------------- after a compaction


def test_compact_boundary_with_post_tokens_gives_a_low_reading(tmp_path: Path) -> None:
    project = workspace(tmp_path)
    transcript = write_transcript(
        tmp_path,
        [
            user_line("2026-02-17T10:00:00Z"),
            assistant_line("m", 177_200, "2026-02-17T11:44:00Z"),
            boundary_line("2026-02-17T11:45:00Z", post=31_000),
        ],
    )
    run = run_hook(EVENT, prompt_payload(project, transcript), project)
    assert run.output == {}
    state = _state(project)
    assert (state["tier"], state["tokens"], state["source"]) == ("LOW", 31_000, "compact_boundary")


def test_compact_boundary_without_post_tokens_is_unknown(tmp_path: Path) -> None:
    project = workspace(tmp_path)
    transcript = write_transcript(
        tmp_path,
        [
            user_line("2026-02-17T10:00:00Z"),
            assistant_line("m", 177_200, "2026-02-17T11:44:00Z"),
            boundary_line("2026-02-17T11:45:00Z"),
        ],
    )
    run = run_hook(EVENT, prompt_payload(project, transcript), project)
    assert run.output == {}
    assert run.stderr_lines == []  # normal: the next reply tells
    state = _state(project)
    assert (state["tier"], state["fill"], state["tokens"], state["source"]) == ("UNKNOWN", None, None, "unknown")


def _compacted(tmp_path: Path, *, delivered: bool, post: int = 31_000) -> str:
    lines = [
        user_line("2026-02-17T10:00:00Z"),
        assistant_line("m1", 177_200, "2026-02-17T11:44:00Z"),
        attachment_line(["<compaction-alert>\nolder alert\n</compaction-alert>"], "2026-02-17T10:30:00Z"),
        boundary_line("2026-02-17T11:46:00Z", post=post),
        user_line("2026-02-17T11:46:01Z", "This session is being continued from a previous conversation..."),
    ]
    if delivered:
        lines.append(
            attachment_line(["<compaction-alert>\nCOMPACTION DETECTED\n</compaction-alert>"], "2026-02-17T11:46:02Z")
        )
    return write_transcript(tmp_path, lines)


def test_missing_session_start_alert_is_resent_once(tmp_path: Path) -> None:
    project = workspace(tmp_path)
    add_checkpoint(project, 2)
    payload = prompt_payload(project, _compacted(tmp_path, delivered=False))
    first = run_hook(EVENT, payload, project)
    assert first.context is not None
    assert first.context.startswith("<compaction-alert>")
    assert ".jerry/checkpoints/cx-002-checkpoint.json" in first.context
    assert "<context-monitor>" not in first.context  # the fill is LOW after the compaction
    assert first.stderr_lines == []
    assert _cache(project)["alert"] == {
        "checkpoint": "cx-002-checkpoint.json",
        "delivered_by_session_start": False,
        "resent": True,
    }
    _state(project)
    second = run_hook(EVENT, payload, project)
    assert second.output == {}


def test_delivered_session_start_alert_is_not_resent(tmp_path: Path) -> None:
    project = workspace(tmp_path)
    add_checkpoint(project, 2)
    run = run_hook(EVENT, prompt_payload(project, _compacted(tmp_path, delivered=True)), project)
    assert run.output == {}
    assert _cache(project)["alert"]["delivered_by_session_start"] is True


def test_a_newer_checkpoint_is_checked_again(tmp_path: Path) -> None:
    project = workspace(tmp_path)
    add_checkpoint(project, 2)
    payload = prompt_payload(project, _compacted(tmp_path, delivered=True))
    assert run_hook(EVENT, payload, project).output == {}
    add_checkpoint(project, 3)
    write = _compacted(tmp_path, delivered=False)  # a new compaction whose alert did not arrive
    run = run_hook(EVENT, prompt_payload(project, write), project)
    assert run.context is not None and "cx-003-checkpoint.json" in run.context


def test_acknowledged_checkpoints_are_not_resent(tmp_path: Path) -> None:
    project = workspace(tmp_path)
    add_checkpoint(project, 1, acknowledged=True)
    run = run_hook(EVENT, prompt_payload(project, _compacted(tmp_path, delivered=False)), project)
    assert run.output == {}
    assert "alert" not in _cache(project)


def test_resent_alert_comes_before_the_monitor(tmp_path: Path) -> None:
    project = workspace(tmp_path)
    add_checkpoint(project, 2)
    run = run_hook(EVENT, prompt_payload(project, _compacted(tmp_path, delivered=False, post=150_000)), project)
    assert run.context is not None
    alert, _, rest = run.context.partition("</compaction-alert>")
    assert alert.startswith("<compaction-alert>")
    assert rest.strip().startswith("<context-monitor>")
    assert "Compaction events: 2 (1 checkpoint is not yet acknowledged: `ctxres ack` merges it)" in rest
    assert estimate_tokens(rest.strip()) < 200


# --------------------------------------------------------------------------- the cache


def test_an_unchanged_workflow_file_is_not_parsed_again(tmp_path: Path) -> None:
    project = workspace(tmp_path)
    payload = prompt_payload(project, fill_transcript(tmp_path, 131_400))
    assert run_hook(EVENT, payload, project).context == WARNING_TEXT
    target = project / WORKFLOW
    info = target.stat()
    text = target.read_text()
    assert text.count('"CP-001"') == 1
    target.write_text(text.replace('"CP-001"', '"CP-009"'))  # same size
    os.utime(target, ns=(info.st_atime_ns, info.st_mtime_ns))
    assert "Last checkpoint: CP-001" in (run_hook(EVENT, payload, project).context or "")  # from the cache
    os.utime(target, ns=(info.st_atime_ns, info.st_mtime_ns + 1_000_000_000))
    assert "Last checkpoint: CP-009" in (run_hook(EVENT, payload, project).context or "")  # parsed again


def test_the_workflow_is_chosen_as_every_command_chooses_it_and_follows_the_update_times(tmp_path: Path) -> None:
    project = workspace(tmp_path)
    payload = prompt_payload(project, fill_transcript(tmp_path, 131_400))
    run_hook(EVENT, payload, project)
    other = project / "projects" / "OTHER" / "ORCHESTRATION.yaml"
    other.parent.mkdir(parents=True)
    text = (project / WORKFLOW).read_text().replace('"CP-001"', '"CP-777"')
    other.write_text(text.replace(FIXTURE_UPDATED_AT, 'updated_at: "2026-02-17T11:00:00Z"'))  # newer mtime, older time
    assert "Last checkpoint: CP-001" in (run_hook(EVENT, payload, project).context or "")
    other.write_text(text.replace(FIXTURE_UPDATED_AT, 'updated_at: "2026-02-17T11:50:00Z"'))  # updated later
    os.utime(other, (1_000_000, 1_000_000))  # an old mtime does not hide it
    assert "Last checkpoint: CP-777" in (run_hook(EVENT, payload, project).context or "")
    assert _cache(project)["workflow"]["path"] == "projects/OTHER/ORCHESTRATION.yaml"
    other.unlink()
    assert "Last checkpoint: CP-001" in (run_hook(EVENT, payload, project).context or "")
    assert sorted(_cache(project)["candidates"]) == [WORKFLOW]  # a file gone is forgotten


def test_each_candidate_is_remembered_and_parsed_again_only_when_it_changes(tmp_path: Path) -> None:
    """Observed through the cache: an unchanged candidate keeps what was remembered of it even when its
    bytes say otherwise (same size and mtime: not parsed); a new mtime makes the hook read it again."""
    project = workspace(tmp_path)
    payload = prompt_payload(project, fill_transcript(tmp_path, 131_400))
    other = project / "projects" / "OTHER" / "ORCHESTRATION.yaml"
    other.parent.mkdir(parents=True)
    text = (project / WORKFLOW).read_text().replace('"CP-001"', '"CP-777"')
    other.write_text(text.replace(FIXTURE_UPDATED_AT, 'updated_at: "2026-02-17T11:00:00Z"'))
    run_hook(EVENT, payload, project)
    remembered = _cache(project)["candidates"]["projects/OTHER/ORCHESTRATION.yaml"]
    assert remembered[2:] == ["ACTIVE", True, "2026-02-17T11:00:00.000000Z"]
    info = other.stat()
    other.write_text(text.replace(FIXTURE_UPDATED_AT, 'updated_at: "2026-02-17T11:59:00Z"'))  # same size
    os.utime(other, ns=(info.st_atime_ns, info.st_mtime_ns))
    assert "Last checkpoint: CP-001" in (run_hook(EVENT, payload, project).context or "")  # not parsed again
    assert _cache(project)["candidates"]["projects/OTHER/ORCHESTRATION.yaml"] == remembered
    os.utime(other, ns=(info.st_atime_ns, info.st_mtime_ns + 1_000_000_000))
    assert "Last checkpoint: CP-777" in (run_hook(EVENT, payload, project).context or "")  # read again
    assert _cache(project)["candidates"]["projects/OTHER/ORCHESTRATION.yaml"][4] == "2026-02-17T11:59:00.000000Z"


def test_two_clones_with_opposite_mtimes_serve_the_same_workflow(tmp_path: Path) -> None:
    chosen = []
    for clone, (first, second) in (("a", (1_000_000, 2_000_000)), ("b", (2_000_000, 1_000_000))):
        project = workspace(tmp_path / clone)
        other = project / "projects" / "OTHER" / "ORCHESTRATION.yaml"
        other.parent.mkdir(parents=True)
        text = (project / WORKFLOW).read_text().replace('"CP-001"', '"CP-777"')
        other.write_text(text.replace(FIXTURE_UPDATED_AT, 'updated_at: "2026-02-17T11:50:00Z"'))
        os.utime(project / WORKFLOW, (first, first))
        os.utime(other, (second, second))
        context = run_hook(EVENT, prompt_payload(project, fill_transcript(tmp_path / clone, 131_400)), project).context
        chosen.append("CP-777" in (context or ""))
    assert chosen == [True, True]


def test_a_finished_workflow_is_dropped(tmp_path: Path) -> None:
    project = workspace(tmp_path)
    payload = prompt_payload(project, fill_transcript(tmp_path, 131_400))
    run_hook(EVENT, payload, project)
    target = project / WORKFLOW
    target.write_text(target.read_text().replace('workflow_status: "ACTIVE"', 'workflow_status: "COMPLETE"'))
    run = run_hook(EVENT, payload, project)
    assert "Resumption: no ACTIVE or PAUSED ORCHESTRATION file found in the project" in (run.context or "")


def test_no_workflow_found_is_remembered_for_a_while(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    payload = prompt_payload(project, fill_transcript(tmp_path, 131_400))
    run_hook(EVENT, payload, project)
    assert _cache(project)["workflow"] is None
    workspace(tmp_path.parent / (tmp_path.name + "-w"))  # build the file elsewhere, then move it in
    shutil.move(str(tmp_path.parent / (tmp_path.name + "-w") / "proj" / "projects"), str(project / "projects"))
    assert "no ACTIVE or PAUSED" in (run_hook(EVENT, payload, project, now="2026-02-17T12:04:00Z").context or "")
    later = run_hook(EVENT, payload, project, now="2026-02-17T12:06:00Z")
    assert "Last checkpoint: CP-001" in (later.context or "")


def test_ctxres_orchestration_names_the_file(tmp_path: Path) -> None:
    project = workspace(tmp_path)
    target = project / WORKFLOW
    target.write_text(target.read_text().replace('workflow_status: "ACTIVE"', 'workflow_status: "COMPLETE"'))
    run = run_hook(
        EVENT,
        prompt_payload(project, fill_transcript(tmp_path, 131_400)),
        project,
        env={"CTXRES_ORCHESTRATION": WORKFLOW},
    )
    assert "Last checkpoint: CP-001" in (run.context or "")


def test_a_broken_live_workflow_is_named_not_served_from_the_cache(tmp_path: Path) -> None:
    """The live workflow that can no longer be read is named to the model (with its place), never served from
    what the cache knew of it; below WARNING too, once the cache knows the workflow."""
    project = workspace(tmp_path)
    payload = prompt_payload(project, fill_transcript(tmp_path, 131_400))
    run_hook(EVENT, payload, project)
    (project / WORKFLOW).write_text("resumption: [unclosed\n")
    run = run_hook(EVENT, payload, project)
    context = run.context or ""
    assert "Last checkpoint: CP-001" not in context
    assert context.startswith(f"ctxres: the live workflow {WORKFLOW} cannot be read: invalid YAML: "), context
    assert " at line 1:" in context and "; fix it (`ctxres check" in context
    low = run_hook(EVENT, prompt_payload(project, fill_transcript(tmp_path, 20_000)), project)
    assert (low.context or "").startswith(f"ctxres: the live workflow {WORKFLOW} cannot be read")


# --------------------------------------------------------------------------- failures: exit 0, valid output, one line


def test_garbage_stdin(tmp_path: Path) -> None:
    project = workspace(tmp_path)
    run = run_hook(EVENT, b"\xff\xfe garbage {", project)
    assert run.output == {}
    assert len(run.stderr_lines) == 1


def test_truncated_last_line_is_skipped(tmp_path: Path) -> None:
    """The transcript is written asynchronously: a partial last line is normal and skipped."""
    project = workspace(tmp_path)
    cut = json.dumps(assistant_line("m3", 190_000, NOW)).encode()[:180]
    lines = [user_line("2026-02-17T10:00:00Z"), assistant_line("m2", 131_400, "2026-02-17T11:58:00Z")]
    run = run_hook(EVENT, prompt_payload(project, write_transcript(tmp_path, lines, tail=cut)), project)
    assert run.context == WARNING_TEXT
    assert run.stderr_lines == []


def test_truncated_transcript_without_any_figure(tmp_path: Path) -> None:
    project = workspace(tmp_path)
    cut = json.dumps(assistant_line("m3", 190_000, NOW)).encode()[:180]
    transcript = write_transcript(tmp_path, [user_line("2026-02-17T10:00:00Z")], tail=cut)
    run = run_hook(EVENT, prompt_payload(project, transcript), project)
    assert run.output == {}
    assert run.stderr_lines == []  # no reply yet is normal
    assert _state(project)["tier"] == "UNKNOWN"


def test_missing_transcript(tmp_path: Path) -> None:
    project = workspace(tmp_path)
    run = run_hook(EVENT, prompt_payload(project, str(tmp_path / "nope.jsonl")), project)
    assert run.output == {}
    assert run.stderr_lines == []  # a new session's first prompt: the client writes the transcript after it


def test_unwritable_state_dir_still_answers(tmp_path: Path) -> None:
    """Read-only simulated by a regular file where the state directory should be (chmod does not stop
    root, and these tests may run as root); the in-process test below simulates EROFS."""
    project = workspace(tmp_path)
    (project / ".jerry").write_text("not a folder")
    run = run_hook(EVENT, prompt_payload(project, fill_transcript(tmp_path, 131_400)), project)
    assert run.context == WARNING_TEXT
    assert len(run.stderr_lines) == 1 and "cannot write .jerry/context-monitor-state.json" in run.stderr_lines[0]


def test_read_only_file_system_still_answers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ctxres import atomic
    from ctxres.hooks import context, userpromptsubmit

    def refuse(path: object, data: object, **_: object) -> None:
        raise OSError(errno.EROFS, "Read-only file system")

    project = workspace(tmp_path)
    add_checkpoint(project, 2)  # and a re-sent alert to record, which cannot be recorded either
    monkeypatch.setattr(atomic, "write_atomic", refuse)
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(project))
    monkeypatch.setenv("CTXRES_NOW", NOW)
    monkeypatch.delenv("CTXRES_ORCHESTRATION", raising=False)
    stderr = io.StringIO()
    monkeypatch.setattr(sys, "stderr", stderr)
    payload = prompt_payload(project, _compacted(tmp_path, delivered=False, post=150_000))
    output = userpromptsubmit.handle(context.make_context(EVENT, payload))
    validate(output, "hook-userpromptsubmit-output")
    text = output["hookSpecificOutput"]["additionalContext"]
    assert text.startswith("<compaction-alert>") and "<context-monitor>" in text
    lines = stderr.getvalue().splitlines()
    assert len(lines) == 1 and "Read-only file system" in lines[0]
    assert not (project / ".jerry" / monitor.STATE_FILE).exists()


def test_a_state_dir_symlinked_out_of_the_project_is_refused(tmp_path: Path) -> None:
    project = workspace(tmp_path)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (project / ".jerry").symlink_to(outside, target_is_directory=True)
    run = run_hook(EVENT, prompt_payload(project, fill_transcript(tmp_path, 131_400)), project)
    assert run.context == WARNING_TEXT
    assert len(run.stderr_lines) == 1 and "refusing" in run.stderr_lines[0]
    assert list(outside.iterdir()) == []


# --------------------------------------------------------------------------- start-up cost


def _modules_after_dispatch(payload: dict[str, Any], project: Path, *, frozen: bool = True) -> list[str]:
    code = (
        "import json, sys; from ctxres.hooks.main import dispatch; "
        f"dispatch({EVENT!r}, json.loads(sys.argv[1])); print(json.dumps(sorted(sys.modules)))"
    )
    env = {**os.environ, "CLAUDE_PROJECT_DIR": str(project), "CTXRES_NOW": NOW}
    if not frozen:  # the real clock: CTXRES_NOW is read by ctxres.timestamps, as every command reads it
        del env["CTXRES_NOW"]
    out = subprocess.run(
        [sys.executable, "-c", code, json.dumps(payload)], capture_output=True, text=True, check=True, env=env
    ).stdout
    modules: list[str] = json.loads(out)
    return modules


def test_no_heavy_module_is_imported(tmp_path: Path) -> None:
    project = workspace(tmp_path)
    modules = _modules_after_dispatch(prompt_payload(project, fill_transcript(tmp_path, 131_400)), project)
    assert "ctxres.hooks.monitor" in modules  # it did run
    assert [m for m in modules if m.startswith(HEAVY)] == []


def test_a_low_prompt_parses_no_yaml_and_no_staleness(tmp_path: Path) -> None:
    project = workspace(tmp_path)
    modules = _modules_after_dispatch(prompt_payload(project, fill_transcript(tmp_path, 50_000)), project, frozen=False)
    assert (project / ".jerry" / monitor.STATE_FILE).exists()
    assert [m for m in modules if m in ("yaml", "ctxres.state.freshness", "ctxres.hooks.alerts")] == []


def test_the_clock_is_read_without_the_datetime_module(tmp_path: Path) -> None:
    """The time comes from the C classes (``_datetime``): ``import datetime`` would first run its
    pure-Python implementation, about 1 ms on every prompt."""
    project = workspace(tmp_path)
    modules = _modules_after_dispatch(prompt_payload(project, fill_transcript(tmp_path, 50_000)), project, frozen=False)
    assert "_datetime" in modules and "datetime" not in modules
    loud = prompt_payload(project, fill_transcript(tmp_path, 131_400))  # the same transcript file, fuller
    _modules_after_dispatch(loud, project, frozen=False)  # the first parses the workflow (PyYAML loads datetime)
    modules = _modules_after_dispatch(loud, project, frozen=False)  # later prompts read the cached facts
    assert "ctxres.state.freshness" in modules  # the monitor was injected, its staleness line computed
    assert "ctxres.state.staleness" not in modules  # the walk of a document for its times is the linters'
    assert "_datetime" in modules and "datetime" not in modules


def test_the_cache_is_not_rewritten_by_a_prompt_that_changes_nothing(tmp_path: Path) -> None:
    """Prompts minutes apart on a project whose files did not change: the hooks' cache (a durable write, with
    fsync) is written by the first only; the monitor state, the reading of each prompt, by every one."""
    project = workspace(tmp_path)
    payload = prompt_payload(project, fill_transcript(tmp_path, 131_400))
    cache_file = project / ".jerry" / monitor.CACHE_FILE
    run_hook(EVENT, payload, project, now="2026-02-17T11:50:00Z")
    written = cache_file.read_bytes()
    os.utime(cache_file, ns=(1, 1))  # a mark the next write would replace
    for moment in ("2026-02-17T11:53:00Z", "2026-02-17T11:58:00Z"):
        assert "CONTEXT STATUS" in (run_hook(EVENT, payload, project, now=moment).context or "")
        assert _state(project)["timestamp"] == moment
    assert cache_file.stat().st_mtime_ns == 1 and cache_file.read_bytes() == written


def test_a_command_with_a_long_path_is_given_whole(tmp_path: Path) -> None:
    """The monitor's `ctxres migrate PATH --write` for a v1.0 section under a deep folder: the path whole."""
    text = (CORPUS / "orchestration" / "002-PROJ-001-oss-release.yaml").read_text()
    project = tmp_path / "proj"
    deep = "projects/PROJ-005-markdown-ast/work/EPIC-001-parser-rewrite/FEAT-003-tables/ORCHESTRATION.yaml"
    (project / deep).parent.mkdir(parents=True)
    (project / deep).write_text(text.replace('status: "COMPLETE"', 'status: "ACTIVE"', 1), "utf-8")
    run = run_hook(EVENT, prompt_payload(project, fill_transcript(tmp_path, 131_400)), project)
    context = run.context or ""
    assert f"`ctxres migrate {deep} --write`" in context, context
    assert "..." not in context
