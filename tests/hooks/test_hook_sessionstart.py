"""The SessionStart hook (Template 1 / Template 2) and the compaction-alert helper it shares."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ctxres.hooks import alerts, sessionstart
from ctxres.hooks.context import HookContext, Settings
from ctxres.prompts import TEMPLATE2_CEILING, estimate_tokens
from ctxres.state import checkpoint_names

from ..conftest import FIXTURES
from .hook_project import (
    ALERT_HEAD,
    SECRETS,
    TEMPLATE1_HEAD,
    TEMPLATE_CHECKPOINT,
    TEMPLATE_ORCHESTRATION,
    answer,
    hook_env,
    payload,
    put_checkpoint,
    run_hook,
    validate,
    workspace,
)

SOURCES = ("startup", "resume", "clear", "compact", "fork")
OTHER_SESSION_HEAD = "<compaction-alert>\nA CHECKPOINT IS NOT MERGED YET. Another session wrote it at "


def start(root: Path, source: str, **extra: Any) -> tuple[str | None, subprocess.CompletedProcess[str]]:
    """(the injected text or None, the process) of a SessionStart run with the documented payload."""
    stdin = payload(root, "SessionStart", source=source, model="claude-sonnet-5", **extra)
    validate("hook-sessionstart-input", stdin)
    result = run_hook("SessionStart", root, stdin)
    output = answer(result, "SessionStart")
    if not output:
        return None, result
    specific = output["hookSpecificOutput"]
    assert specific["hookEventName"] == "SessionStart"
    text: str = specific["additionalContext"]
    return text, result


def context(root: Path) -> HookContext:
    return HookContext("SessionStart", {"source": "compact"}, str(root.resolve()), Settings())


# --- each documented source ---------------------------------------------------------------------


@pytest.mark.parametrize("source", SOURCES)
def test_every_documented_source_answers_valid_output(tmp_path: Path, source: str) -> None:
    root = workspace(tmp_path)
    put_checkpoint(root, 2)
    text, result = start(root, source)
    assert result.stderr == ""
    if source == "clear":
        assert text is None
    elif source == "compact":
        assert text is not None and text.startswith(ALERT_HEAD) and TEMPLATE1_HEAD not in text
    else:  # startup, resume, fork: the alert for the waiting checkpoint first, then Template 1
        assert text is not None and text.startswith(OTHER_SESSION_HEAD)  # this session was not compacted
        _, _, prompt = text.partition("</compaction-alert>\n\n")
        assert prompt.startswith(TEMPLATE1_HEAD)
        assert "WORKFLOW: feat015-licmig-20260217-001" in prompt and "PROJECT: PROJ-001-oss-release" in prompt


def test_compact_injects_template2_for_the_only_pending_checkpoint(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    put_checkpoint(root, 1, acknowledged=True)
    put_checkpoint(root, 2)
    text, _ = start(root, "compact")
    assert text is not None
    assert "COMPACTION EVENT" not in text
    assert "CHECKPOINT: .jerry/checkpoints/cx-002-checkpoint.json" in text
    assert "2. Read ORCHESTRATION.yaml resumption section: ORCHESTRATION.yaml" in text
    assert "3. Run `ctxres ack` to merge the checkpoint into the resumption section and acknowledge it" in text
    assert estimate_tokens(text) <= 400


def test_several_pending_checkpoints_say_n_of_m_and_ack_all(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    for number in (1, 2, 3):
        put_checkpoint(root, number)
    text, _ = start(root, "compact")
    assert text is not None
    assert "COMPACTION EVENT: 3 of 3 this session" in text
    assert "CHECKPOINT: .jerry/checkpoints/cx-003-checkpoint.json" in text
    assert "Run `ctxres ack --all` to merge the checkpoints" in text
    assert estimate_tokens(text) <= TEMPLATE2_CEILING


def test_long_free_text_stays_under_the_hard_ceiling(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    data = json.loads(TEMPLATE_CHECKPOINT.read_text())
    data["recovery_instructions"]["critical_context"] = "Very long context. " * 200
    data["accumulated_context"]["decisions_since_last_checkpoint"] = [
        {"id": f"RD-{n:03d}", "summary": "A decision with a long explanation. " * 5} for n in range(20)
    ]
    put_checkpoint(root, 1, text=json.dumps(data))
    text, _ = start(root, "compact")
    assert text is not None and estimate_tokens(text) <= TEMPLATE2_CEILING
    assert text.rstrip().endswith("</compaction-alert>")


def test_broken_checkpoint_gives_the_generic_alert(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    put_checkpoint(root, 1)
    put_checkpoint(root, 2, text='{"schema_version": "1.0.0", "event_id": ')
    text, result = start(root, "compact")
    assert text is not None and result.stderr == ""
    assert text.startswith(ALERT_HEAD)
    assert "could not be read (.jerry/checkpoints/cx-002-checkpoint.json is not valid JSON" in text
    assert "1. Read the resumption section of ORCHESTRATION.yaml" in text


def test_compact_with_an_active_workflow_but_no_checkpoint_says_so(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    put_checkpoint(root, 1, acknowledged=True)
    text, _ = start(root, "compact")
    assert text is not None and text.startswith(ALERT_HEAD)
    assert "no unacknowledged checkpoint in .jerry/checkpoints/" in text


def test_compact_without_any_workflow_says_nothing(tmp_path: Path) -> None:
    root = tmp_path / "bare"
    root.mkdir()
    text, result = start(root, "compact")
    assert text is None and result.stderr == ""


def test_startup_without_pending_checkpoint_is_template1_only(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    put_checkpoint(root, 1, acknowledged=True)
    (root / "ORCHESTRATION_PLAN.md").write_text("# plan\n")
    text, _ = start(root, "startup")
    assert text is not None and text.startswith(TEMPLATE1_HEAD)
    assert "<compaction-alert>" not in text
    assert "ORCHESTRATION PLAN: ORCHESTRATION_PLAN.md" in text
    assert "NEXT ACTION: Continue QG-2 iteration 1." in text
    assert 500 <= estimate_tokens(text) <= 1000


def test_project_id_falls_back_to_the_workflow_folder_name(tmp_path: Path) -> None:
    root = tmp_path / "project"
    (root / "work" / "feat-042").mkdir(parents=True)
    text = TEMPLATE_ORCHESTRATION.read_text().replace('  project_id: "PROJ-001-oss-release"\n', "")
    (root / "work" / "feat-042" / "ORCHESTRATION.yaml").write_text(text)
    (root / "work" / "feat-042" / "ORCHESTRATION_PLAN.md").write_text("# plan\n")
    prompt, _ = start(root, "resume")
    assert prompt is not None
    assert "PROJECT: feat-042" in prompt and "ORCHESTRATION PLAN: work/feat-042/ORCHESTRATION_PLAN.md" in prompt


@pytest.mark.parametrize("status", ["COMPLETE", "FAILED"])
def test_startup_with_a_finished_workflow_says_nothing(tmp_path: Path, status: str) -> None:
    text = TEMPLATE_ORCHESTRATION.read_text().replace('"ACTIVE"', f'"{status}"')
    root = workspace(tmp_path, text)
    put_checkpoint(root, 2)
    injected, result = start(root, "startup")
    assert injected is None and result.stderr == ""


def test_v1_workflow_gets_template1_from_what_it_has(tmp_path: Path) -> None:
    root = workspace(
        tmp_path,
        'workflow:\n  id: "wf-1"\n  status: "PAUSED"\nresumption:\n  last_checkpoint: "CP-002"\n'
        '  current_state: "Phase 2 paused for review"\n  next_step: "Resume phase 2 after the review"\n'
        '  files_to_read:\n    - "ORCHESTRATION.yaml"\n',
    )
    text, _ = start(root, "startup")
    assert text is not None
    assert "- Workflow status: PAUSED" in text
    assert "- Last activity: Phase 2 paused for review" in text
    assert "- Last checkpoint: CP-002" in text
    assert "NEXT ACTION: Resume phase 2 after the review" in text
    assert "1. [PRIORITY 1] ORCHESTRATION.yaml" in text


def test_secrets_in_the_workflow_are_not_injected(tmp_path: Path) -> None:
    text = TEMPLATE_ORCHESTRATION.read_text()
    begin, end = text.index("    next_step: >-"), text.index("    context_fill_at_update")
    planted = f"Use {SECRETS['github']} and password: {SECRETS['password']}"
    root = workspace(tmp_path, text[:begin] + f"    next_step: {json.dumps(planted)}\n" + text[end:])
    injected, _ = start(root, "startup")
    assert injected is not None
    assert SECRETS["github"] not in injected and SECRETS["password"] not in injected
    assert "NEXT ACTION: Use [REDACTED] and password: [REDACTED]" in injected


def test_precompact_then_sessionstart_compact_point_at_the_new_checkpoint(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    answer(run_hook("PreCompact", root, payload(root, trigger="auto", custom_instructions="")), "PreCompact")
    text, _ = start(root, "compact")
    assert text is not None
    assert "CHECKPOINT: .jerry/checkpoints/cx-002.json" in text
    assert "TRIGGER: auto (PreCompact hook)" in text
    assert "LAST SCORE: 0.960 (qg-2, iteration 1)" in text
    assert 300 <= estimate_tokens(text) <= 400
    # the section's files_to_read name another checkout's path: the workflow file found on disk is named
    assert "2. Read ORCHESTRATION.yaml resumption section: ORCHESTRATION.yaml" in text


@pytest.mark.parametrize("stdin", [b"", b"garbage", b"[]", b"\x00\xff"])
def test_garbage_stdin_answers_empty_with_one_stderr_line(tmp_path: Path, stdin: bytes) -> None:
    root = workspace(tmp_path)
    put_checkpoint(root, 2)
    result = run_hook("SessionStart", root, stdin)
    assert answer(result, "SessionStart") == {}
    assert len(result.stderr.splitlines()) == 1


def test_unknown_source_answers_empty_with_one_stderr_line(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    result = run_hook("SessionStart", root, payload(root, "SessionStart", source="teleport"))
    assert answer(result, "SessionStart") == {}
    assert len(result.stderr.splitlines()) == 1 and "unknown source 'teleport'" in result.stderr


def test_state_dir_symlinked_outside_is_not_read(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    outside = tmp_path / "outside"
    put_checkpoint(outside.parent / "outside-project", 5)
    shutil.move(str(outside.parent / "outside-project" / ".jerry"), str(outside))
    (root / ".jerry").symlink_to(outside, target_is_directory=True)
    text, result = start(root, "startup")
    assert text is not None and text.startswith(TEMPLATE1_HEAD) and "cx-005" not in text
    assert len(result.stderr.splitlines()) == 1 and "outside the project directory" in result.stderr


def test_hook_path_loads_no_heavy_module(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    put_checkpoint(root, 2)
    for source in ("compact", "startup"):
        stdin = json.dumps(payload(root, "SessionStart", source=source))
        code = (
            "import json, sys; from ctxres.hooks.main import dispatch; "
            f"out = dispatch('SessionStart', json.loads({json.dumps(stdin)})); "
            "heavy = ('pydantic', 'jsonschema', 'ctxres.linters', 'ctxres.schemas'); "
            "print(bool(out), [m for m in sys.modules if m.startswith(heavy)])"
        )
        result = subprocess.run([sys.executable, "-c", code], env=hook_env(root), capture_output=True, text=True)
        assert result.stdout.strip() == "True []"


# --- hooks/alerts.py (the API UserPromptSubmit uses too) ----------------------------------------


def test_pending_checkpoints_oldest_first_skipping_acknowledged_and_peer_layout(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    put_checkpoint(root, 1, acknowledged=True)
    second = put_checkpoint(root, 2)
    broken = put_checkpoint(root, 10, text="")
    peer = root / ".jerry" / "checkpoints" / "cx-003.d933ffb7.json"
    peer.write_text(json.dumps({"checkpoint_id": "cx-003", "created_at": "2026-02-17T11:00:00Z"}))
    (root / ".jerry" / "checkpoints" / "notes.json").write_text("{}")
    assert alerts.pending_checkpoints(context(root)) == [str(second.resolve()), str(broken.resolve())]


def test_compaction_alert_is_none_when_nothing_waits(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    assert alerts.compaction_alert(context(root)) is None
    put_checkpoint(root, 1, acknowledged=True)
    assert alerts.compaction_alert(context(root)) is None
    put_checkpoint(root, 2)
    alert = alerts.compaction_alert(context(root))
    assert alert is not None and alert.startswith(alerts.ALERT_MARKER)


def test_empty_checkpoint_file_gives_the_generic_alert(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    put_checkpoint(root, 1, text="")
    alert = alerts.compaction_alert(context(root))
    assert alert is not None and "cx-001-checkpoint.json is empty" in alert


@pytest.mark.parametrize(
    ("name", "number"),
    [
        ("cx-001-checkpoint.json", 1),
        ("cx-012.json", 12),
        ("cx-1234.d933ffb7.json", 1234),
        ("cx-01-checkpoint.json", None),
        ("cx-001-checkpoint.json.tmp", None),
        (".cx-001-checkpoint.json.abc.tmp", None),
        ("cx-abc.json", None),
        ("cx-001.a-b.json", None),
    ],
)
def test_checkpoint_number(name: str, number: int | None) -> None:
    assert checkpoint_names.number_of_name(name) == number


def test_template1_input_sees_a_v1_section_as_recovery_state() -> None:
    data = {"workflow": {"status": "active"}, "resumption": {"current_state": "busy", "next_step": "go"}}
    view = sessionstart.template1_input(data)
    assert view["resumption"]["recovery_state"] == {
        "current_state": "busy",
        "next_step": "go",
        "current_activity": "busy",
        "workflow_status": "ACTIVE",
    }
    assert data["resumption"] == {"current_state": "busy", "next_step": "go"}  # not modified


def test_compact_with_the_state_dir_outside_names_the_reason(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / ".jerry").symlink_to(outside, target_is_directory=True)
    text, result = start(root, "compact")
    assert text is not None and ".jerry/ leads outside the project, so its checkpoints were not read" in text
    assert len(result.stderr.splitlines()) == 1


# --- which workflow: the core's choice, named when there was one to make -------------------------


def _second_workflow(
    root: Path, rel: str, *, status: str = "ACTIVE", mtime: float | None = None, updated: str | None = None
) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    text = TEMPLATE_ORCHESTRATION.read_text().replace('workflow_status: "ACTIVE"', f'workflow_status: "{status}"')
    if updated is not None:
        assert text.count('updated_at: "2026-02-17T11:45:00Z"') == 1
        text = text.replace('updated_at: "2026-02-17T11:45:00Z"', f'updated_at: "{updated}"')
    path.write_text(text)
    if mtime is not None:
        os.utime(path, (mtime, mtime))
    return path


@pytest.mark.parametrize("source", ["startup", "resume", "compact"])
def test_several_live_workflows_the_text_names_the_one_chosen_and_why(tmp_path: Path, source: str) -> None:
    root = workspace(tmp_path)
    os.utime(root / "ORCHESTRATION.yaml", (2_000_000, 2_000_000))  # the newer mtime: it does not count
    _second_workflow(root, "other/ORCHESTRATION.yaml", status="PAUSED", mtime=1_000_000, updated="2026-02-17T12:00:00Z")
    if source == "compact":
        put_checkpoint(root, 2)
    text, result = start(root, source)
    assert text is not None and result.stderr == ""
    note = (
        "Workflow: using other/ORCHESTRATION.yaml: the most recently updated of 2 live workflows (status PAUSED, "
        "updated 2026-02-17T12:00:00Z); also live: ORCHESTRATION.yaml."
    )
    assert note in text.splitlines()


def test_one_live_workflow_needs_no_note(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    _second_workflow(root, "done/ORCHESTRATION.yaml", status="COMPLETE", mtime=4_000_000_000)
    text, _ = start(root, "startup")
    assert text is not None and "Workflow: using" not in text


def test_the_template_ctxres_init_writes_is_never_the_workflow(tmp_path: Path) -> None:
    """`ctxres init`, then its template is touched and made to look live (the newest ACTIVE file, under
    its own name and as docs/protocol/ORCHESTRATION.yaml): the hook still serves the real workflow."""
    root = workspace(tmp_path)
    real = root / "ORCHESTRATION.yaml"
    text = real.read_text()
    real.unlink()  # init writes its template only into a repository without a workflow yet
    done = subprocess.run(
        [sys.executable, "-m", "ctxres.linters.cli", "init", str(root)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    real.write_text(text)
    os.utime(real, (1_000_000, 1_000_000))
    template = root / "docs" / "protocol" / "orchestration-template.yaml"
    assert template.is_file(), "ctxres init writes an example workflow under docs/protocol/"
    _second_workflow(root, "docs/protocol/orchestration-template.yaml", mtime=3_000_000)
    _second_workflow(root, "docs/protocol/ORCHESTRATION.yaml", mtime=3_000_000)
    prompt, result = start(root, "startup")
    assert prompt is not None and result.stderr == ""
    assert prompt.startswith(TEMPLATE1_HEAD) and "Workflow: using" not in prompt


# --- a live workflow that cannot be read: named, never replaced by an older one -----------------


def _break(path: Path) -> None:
    """An unclosed quote, the way a hand edit leaves one."""
    path.write_text(path.read_text().replace("resumption:", 'note: "unclosed\nresumption:', 1))


@pytest.mark.parametrize("source", ["startup", "resume", "compact"])
def test_the_broken_live_workflow_is_named_instead_of_an_older_one(tmp_path: Path, source: str) -> None:
    """The most recently updated workflow (by the times its text still shows) cannot be read: the session is
    told so, with the place, and the older live workflow beside it is not resumed in its place."""
    root = workspace(tmp_path)
    _second_workflow(
        root, "old/ORCHESTRATION.yaml", status="PAUSED", mtime=4_000_000_000, updated="2026-02-17T10:00:00Z"
    )
    _break(root / "ORCHESTRATION.yaml")
    if source == "compact":
        put_checkpoint(root, 2)
    text, result = start(root, source)
    assert text is not None, result.stderr
    assert "old/ORCHESTRATION.yaml" not in text
    assert TEMPLATE1_HEAD not in text
    expected = "ctxres: the live workflow ORCHESTRATION.yaml cannot be read: invalid YAML: "
    line = next(line for line in text.splitlines() if line.startswith(expected))
    assert " at line " in line and "; fix it (`ctxres check ORCHESTRATION.yaml` shows the error)." in line
    if source == "compact":
        assert ALERT_HEAD in text  # the checkpoint itself is still announced


@pytest.mark.parametrize(
    ("status", "updated"), [("COMPLETE", "2026-02-17T12:00:00Z"), ("ACTIVE", "2026-02-17T10:00:00Z")]
)
def test_a_broken_workflow_that_is_finished_or_older_is_skipped(tmp_path: Path, status: str, updated: str) -> None:
    """A broken workflow file whose text says it is finished, or was updated before the readable live workflow,
    is not the live one (however recently its file was touched)."""
    root = workspace(tmp_path)
    broken = _second_workflow(root, "old/ORCHESTRATION.yaml", status=status, updated=updated)
    _break(broken)
    os.utime(broken, (4_000_000_000, 4_000_000_000))
    text, _ = start(root, "startup")
    assert text is not None and TEMPLATE1_HEAD in text and "cannot be read" not in text


# --- a new session and another session's checkpoint: what is true for it -----------------------


def test_a_new_session_is_not_told_it_lost_track_of_anything(tmp_path: Path) -> None:
    """A teammate's committed, unmerged checkpoint: a brand-new session is told another session wrote it (and
    when), to read it and run `ctxres ack`; not that its own context was compacted."""
    root = workspace(tmp_path)
    put_checkpoint(root, 2)
    text, _ = start(root, "startup")
    assert text is not None and text.startswith(OTHER_SESSION_HEAD)
    assert "CONTEXT COMPACTION OCCURRED" not in text and "You may have lost track" not in text
    assert "this session's context was not compacted" in text
    assert "3. Run `ctxres ack` to merge the checkpoint into the resumption section" in text


def test_a_session_compacted_itself_still_gets_the_compaction_alert(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    put_checkpoint(root, 2)
    text, _ = start(root, "compact")
    assert text is not None and text.startswith(ALERT_HEAD)


def test_a_v1_section_names_the_migration_before_ack(tmp_path: Path) -> None:
    """`ctxres ack` refuses a v1.0 section: the alert names the command that works first, whole."""
    v1 = (FIXTURES / "corpus" / "orchestration" / "002-PROJ-001-oss-release.yaml").read_text()
    root = workspace(tmp_path, v1.replace('status: "COMPLETE"', 'status: "ACTIVE"', 1))
    put_checkpoint(root, 2)
    text, _ = start(root, "startup")
    assert text is not None
    step = "3. Run `ctxres migrate ORCHESTRATION.yaml --write` (its v1.0 section has no compaction events), then"
    assert step + " `ctxres ack` to merge" in " ".join(text.split()), text


# --- how old the state is ------------------------------------------------------------------------


def test_the_prompt_says_how_old_the_state_is(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    text, _ = start(root, "startup")
    assert text is not None and text.startswith(TEMPLATE1_HEAD)
    assert text.endswith("STATE AGE: last updated 2026-02-17T11:45:00Z (15 min ago).\n")


def test_state_weeks_old_gets_a_few_lines_not_the_full_prompt(tmp_path: Path) -> None:
    """An ACTIVE workflow nobody updated for five weeks: the workflow, its age and how to see the full
    prompt, in a few lines; not "You are resuming a workflow ... Do NOT start over"."""
    root = workspace(tmp_path)
    stdin = payload(root, "SessionStart", source="startup", model="claude-sonnet-5")
    result = subprocess.run(
        [sys.executable, "-m", "ctxres.hooks.main", "SessionStart"],
        input=json.dumps(stdin),
        env=hook_env(root, CTXRES_NOW="2026-03-24T11:45:00Z"),
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    text = answer(result, "SessionStart")["hookSpecificOutput"]["additionalContext"]
    assert TEMPLATE1_HEAD not in text and "Do NOT start over" not in text
    assert text.startswith(
        "A workflow is still marked ACTIVE: ORCHESTRATION.yaml (PROJ-001-oss-release), its state last updated "
        "2026-02-17T11:45:00Z (35 days ago)."
    ), text
    assert "`ctxres prompt` prints its full resumption prompt." in text
    assert len(text.splitlines()) <= 3 and len(text) < 500
