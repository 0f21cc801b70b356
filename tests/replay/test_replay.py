"""The replay harness (``ctxres replay``) and the PROJ-001 golden fixtures."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ctxres.linters.replay import player as rp
from tests.conftest import FIXTURES

REPLAY = FIXTURES / "replay"
ALL = sorted(p for p in REPLAY.iterdir() if (p / rp.STEPS_FILE).is_file())
NAMES = [p.name for p in ALL]


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ctxres.linters.cli", "replay", *args], capture_output=True, text=True, check=False
    )


def _copy(tmp_path: Path, name: str) -> Path:
    target = tmp_path / name
    shutil.copytree(REPLAY / name, target)
    return target


def test_the_proj001_fixtures_exist() -> None:
    assert [n[0] for n in NAMES] == ["a", "b", "c", "d", "e", "f", "g"]


@pytest.mark.parametrize("fixture", ALL, ids=NAMES)
def test_every_fixture_replays_without_difference(fixture: Path) -> None:
    assert rp.replay(fixture) == []


def test_two_runs_are_byte_identical() -> None:
    first = _cli(str(REPLAY))
    second = _cli(str(REPLAY))
    assert first.returncode == 0, first.stdout + first.stderr
    assert first.stdout == second.stdout
    results = [rp.run_fixture(rp.load_fixture(REPLAY / NAMES[0])) for _ in range(2)]
    assert [r.outputs for r in results[0]] == [r.outputs for r in results[1]]


def test_outputs_carry_no_temporary_path() -> None:
    for path in REPLAY.rglob("expected/**/*"):
        if path.is_file():
            text = path.read_text(encoding="utf-8")
            assert "ctxres-replay-" not in text, path


def test_a_modified_golden_fails_with_a_diff_naming_fixture_step_and_file(tmp_path: Path) -> None:
    fixture = _copy(tmp_path, "a-feat015-single-session")
    step = _step("a-feat015-single-session", "sessionstart-compact")
    golden = fixture / "expected" / step / "additional-context.txt"
    golden.write_text(golden.read_text().replace("qg-2-iteration-2", "qg-2-iteration-9"))
    done = _cli(str(fixture))
    assert done.returncode == 1
    assert f"a-feat015-single-session: step {step}: additional-context.txt differs" in done.stdout
    assert "-YOU WERE DOING: Phase 2 (Core License Changes), qg-2-iteration-9" in done.stdout
    assert "+YOU WERE DOING: Phase 2 (Core License Changes), qg-2-iteration-2" in done.stdout
    assert "1 of 1 fixture(s) differ" in done.stderr


def test_a_hook_behaving_differently_fails(tmp_path: Path) -> None:
    """The environment points the hooks at a workflow file that does not exist: nothing is injected."""
    fixture = REPLAY / "b-cross-session-resumption"
    differences = rp.replay(fixture, extra_env={"CTXRES_ORCHESTRATION": str(tmp_path / "missing.yaml")})
    assert differences
    assert differences[0].startswith("b-cross-session-resumption: step 01-sessionstart-startup: ")
    assert "-You are resuming a workflow that was interrupted." in "".join(differences)


def test_update_rewrites_the_goldens_and_reports_what_changed(tmp_path: Path) -> None:
    fixture = _copy(tmp_path, "e-corrupted-checkpoint")
    stray = fixture / "expected" / "01-sessionstart-startup" / "files" / "stray.txt"
    stray.parent.mkdir(parents=True, exist_ok=True)
    stray.write_text("not produced by the hook\n")
    (fixture / "expected" / "02-userpromptsubmit" / "stdout.json").write_text("{}\n{}\n")
    done = _cli(str(fixture), "--update")
    assert done.returncode == 0
    assert "files/stray.txt differs" in done.stdout
    assert "02-userpromptsubmit: stdout.json differs" in done.stdout
    assert "expected/ rewritten (2 golden file(s) changed)" in done.stdout
    assert not stray.exists()
    assert _cli(str(fixture)).returncode == 0


def test_a_missing_step_golden_is_a_difference(tmp_path: Path) -> None:
    fixture = _copy(tmp_path, "b-cross-session-resumption")
    step = _step("b-cross-session-resumption", "sessionstart-startup", 2)
    shutil.rmtree(fixture / "expected" / step)
    differences = rp.replay(fixture)
    assert any(f"step {step}: additional-context.txt differs" in d and "--- /dev/null" in d for d in differences)


def test_malformed_fixture_is_a_usage_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad"
    (bad / "workspace").mkdir(parents=True)
    (bad / "steps.yaml").write_text("steps:\n  - name: x\n    event: Nope\n    now: '2026-02-17T09:00:00Z'\n")
    done = _cli(str(bad))
    assert done.returncode == 2
    assert "unknown event 'Nope'" in done.stderr
    assert "Traceback" not in done.stderr
    assert _cli(str(tmp_path / "absent")).returncode == 2


def test_a_step_asking_for_more_transcript_lines_than_recorded_is_a_usage_error(tmp_path: Path) -> None:
    fixture = _copy(tmp_path, "b-cross-session-resumption")
    steps = fixture / "steps.yaml"
    name = next((fixture / "transcripts").iterdir()).name
    text, count = re.subn(rf"({re.escape(name)}): \d+\n", r"\1: 99999\n", steps.read_text(), count=1)
    assert count == 1
    steps.write_text(text)
    done = _cli(str(fixture))
    assert done.returncode == 2
    assert f"transcripts/{name} has" in done.stderr and "not 99999" in done.stderr


# ----------------------------------------------------------------------------- what the goldens say


def _golden(fixture: str, step: str, name: str) -> str:
    return (REPLAY / fixture / "expected" / step / name).read_text(encoding="utf-8")


def _step(fixture: str, name: str, occurrence: int = 1) -> str:
    """The ``NN-name`` folder of the ``occurrence``-th step called ``name`` (recorded fixtures name their
    steps after the event and its source: ``sessionstart-compact``, ``userpromptsubmit``, ...)."""
    found = sorted(p.name for p in (REPLAY / fixture / "expected").iterdir() if p.name.split("-", 1)[1] == name)
    assert len(found) >= occurrence, f"{fixture} has {len(found)} step(s) {name}"
    return found[occurrence - 1]


def _edits(fixture: str) -> str:
    """Every text the recorded workflow edits wrote (replacements and whole files), joined."""
    steps = rp.load_fixture(REPLAY / fixture).steps
    return "\n".join(
        text
        for step in steps
        for edit in step.edits
        for text in [*(new for _old, new in edit.replacements), *([edit.content] if edit.content else [])]
    )


def _recorded(fixture: str, name: str, occurrence: int = 1, file: str = "additional-context.txt") -> str:
    return _golden(fixture, _step(fixture, name, occurrence), file)


def test_a_injects_template2_with_the_qg2_state_after_the_first_compaction() -> None:
    name = "a-feat015-single-session"
    text = _recorded(name, "sessionstart-compact")
    assert text.startswith("<compaction-alert>")
    assert "CHECKPOINT: .jerry/checkpoints/cx-001.json" in text
    assert "TRIGGER: auto (PreCompact hook)" in text  # the client compacted reactively (prompt too long)
    assert "PRE-COMPACTION FILL: 89.0%" in text
    assert "YOU WERE DOING: Phase 2 (Core License Changes), qg-2-iteration-2" in text
    precompact = _step(name, "precompact-auto")
    checkpoint = json.loads(_golden(name, precompact, "files/.jerry/checkpoints/cx-001.json"))
    assert checkpoint["context_state"]["estimated_tokens_used"] == 159_480
    assert _golden(name, precompact, "stdout.json") == ""  # PreCompact prints nothing
    second = _recorded(name, "sessionstart-compact", 2)
    assert "cx-002.json" in second and "qg-final-iteration-2" in second
    assert "TRIGGER: manual (PreCompact hook)" in second  # /compact


def test_a_monitor_injects_at_warning_and_critical_only() -> None:
    name = "a-feat015-single-session"
    prompts = sorted(p for p in (REPLAY / name / "expected").iterdir() if p.name.endswith("-userpromptsubmit"))
    levels = [
        (p / "additional-context.txt").read_text().splitlines()[1] if (p / "additional-context.txt").exists() else ""
        for p in prompts
    ]
    assert [level.split(" context used")[0] for level in levels if level] == [
        "CONTEXT STATUS: WARNING (61%",  # the fill as the client shows it: 109,800 of 180,000 usable tokens
        "CONTEXT STATUS: CRITICAL (82%",
        "CONTEXT STATUS: CRITICAL (89%",  # then the API refuses the next request: reactive compaction
        "CONTEXT STATUS: CRITICAL (89%",  # the second time, the operator runs /compact
    ]
    assert levels[0] == ""  # the first prompt of the session, at a low fill: nothing injected
    assert levels[-1] == ""  # after the acknowledgement: nothing injected


def test_a_acknowledges_both_checkpoints() -> None:
    """``ctxres ack`` ran through the client's Bash tool: its writes are recorded as the workflow's edits."""
    edits = _edits("a-feat015-single-session")
    assert 'id: "CX-001"' in edits and 'id: "CX-002"' in edits


def test_b_injects_template1_at_a_new_session() -> None:
    name = "b-cross-session-resumption"
    text = _recorded(name, "sessionstart-startup")
    assert text.startswith("You are resuming a workflow that was interrupted.")
    assert "- Current phase: Phase 2 (Core License Changes)" in text
    assert "- Current phase: Phase 3 (Source Headers)" in _recorded(name, "sessionstart-startup", 2)


def test_c_warns_about_the_stale_section_in_l3_and_l4_and_pre_commit_blocks() -> None:
    name = "c-forgotten-update-rg6"
    # the first tool write after the phase moved (QG-1 pass) gets the L3 warning
    l3 = _recorded(name, "posttooluse-edit", 2)
    assert "STALE" in l3 and "2026-02-17T09:20:00Z" in l3 and "- gate qg-1 status: PENDING -> PASS" in l3
    # the monitor (L4) at WARNING and at CRITICAL fill
    folders = sorted((REPLAY / name / "expected").glob("*-userpromptsubmit/additional-context.txt"))
    prompts = [path.read_text(encoding="utf-8") for path in folders]
    assert [text.splitlines()[1].split(" (")[0] for text in prompts] == [
        "CONTEXT STATUS: WARNING",
        "CONTEXT STATUS: CRITICAL",
        "CONTEXT STATUS: CRITICAL",
    ]
    assert all("Resumption staleness: STALE" in text for text in prompts)
    # and committing that change is blocked by the pre-commit stale check
    stale = _step(name, "stale")
    assert _golden(name, stale, "exit-code") == "1\n"
    blocked = _golden(name, stale, "stdout.json")
    assert "blocked: the workflow state moved but the resumption section did not" in blocked
    assert "gate qg-1 status: PENDING -> PASS" in blocked


def test_f_a_state_move_without_the_section_is_stale_at_once() -> None:
    """Ten minutes after the last update, qg-1 PENDING -> COMPLETE with the section untouched: PostToolUse
    names the move (against git HEAD), repeats it while the section is behind, and is silent otherwise."""
    name = "f-posttooluse-state-move"
    moved = _golden(name, "02-qg1-complete-section-untouched", "additional-context.txt")
    assert moved.startswith(
        "Resumption staleness after this write to projects/PROJ-001-oss-release/ORCHESTRATION.yaml: STALE. "
        "This write moved the workflow's state, but not the resumption section (its recovery_state.updated_at, "
        "2026-02-17T09:20:00Z, did not advance; compared with the file at git HEAD):\n"
        "- gate qg-1 status: PENDING -> COMPLETE\n"
    )
    again = _golden(name, "03-prose-edit-while-behind", "additional-context.txt")
    assert "- gate qg-1 status: PENDING -> COMPLETE" in again
    for silent in ("04-section-catches-up", "05-prose-only", "06-qg2-starts-with-the-section"):
        assert _golden(name, silent, "stdout.json") == "{}\n"
    baseline = json.loads(_golden(name, "06-qg2-starts-with-the-section", "files/.jerry/orchestration-snapshot.json"))
    state = baseline["files"]["projects/PROJ-001-oss-release/ORCHESTRATION.yaml"]["state"]
    assert state["quality_gates"]["qg-2"]["status"] == "IN_PROGRESS"


def test_d_reports_two_pending_compactions_and_acks_both() -> None:
    name = "d-two-compactions-before-ack"
    assert "COMPACTION EVENT" not in _recorded(name, "sessionstart-compact")
    assert "COMPACTION EVENT: 2 of 2" in _recorded(name, "sessionstart-compact", 2)
    edits = _edits(name)  # ctxres ack --all ran through the Bash tool: it merged both, oldest first
    assert "count: 2" in edits and edits.index('id: "CX-001"') < edits.index('id: "CX-002"')


def test_e_corrupted_checkpoint_is_a_graceful_alert() -> None:
    name = "e-corrupted-checkpoint"
    steps = (REPLAY / name / rp.STEPS_FILE).read_text(encoding="utf-8")
    assert "path: .jerry/checkpoints/cx-001.json" in steps  # the truncation, recorded as an edit
    text = _recorded(name, "sessionstart-startup", 2)  # the next new session
    assert text.startswith("<compaction-alert>") and "could not be read" in text and "not valid JSON" in text
    assert "You are resuming a workflow that was interrupted." in text  # Template 1 still renders
    transcript = next((REPLAY / name / "transcripts").iterdir()).read_text(encoding="utf-8")
    assert "not valid JSON" in transcript and "fix or remove it, then run ctxres ack again" in transcript


# --------------------------------------------------------------------------------- pure parts


def test_stdout_outputs_pretty_prints_json_and_extracts_the_context() -> None:
    raw = json.dumps({"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "hi"}})
    outputs = rp.stdout_outputs(raw)
    assert outputs["additional-context.txt"] == b"hi\n"
    assert outputs["stdout.json"].startswith(b"{\n  ")
    assert rp.stdout_outputs("not json") == {"stdout.json": b"not json"}


def test_paths_normalise_and_expand_are_inverse(tmp_path: Path) -> None:
    paths = rp.Paths(tmp_path)
    payload = {"cwd": "$PROJECT", "transcript_path": "$TRANSCRIPTS/s.jsonl", "n": [1, "$PROJECT/x"]}
    expanded = paths.expand(payload)
    assert expanded["cwd"] == str(tmp_path / "project")
    assert paths.normalise(json.dumps(expanded)) == json.dumps(payload)


def test_settle_pins_mtimes_of_new_and_written_files(tmp_path: Path) -> None:
    pinned: dict[Path, int] = {}
    (tmp_path / "a").write_text("x")
    assert rp.settle(tmp_path, pinned, 1_000_000_000_000) == {tmp_path / "a"}
    assert (tmp_path / "a").stat().st_mtime_ns == 1_000_000_000_000
    assert rp.settle(tmp_path, pinned, 2_000_000_000_000) == set()
    (tmp_path / "a").write_text("y")
    assert rp.settle(tmp_path, pinned, 2_000_000_000_000) == {tmp_path / "a"}


# ----------------------------------------------------------------------------------- ctxres record


def _assistant(tokens: int) -> str:
    usage = {"input_tokens": 6, "cache_creation_input_tokens": 0, "cache_read_input_tokens": tokens - 6}
    line = {"type": "assistant", "isSidechain": False, "uuid": "u1", "sessionId": "s1", "requestId": "r1"}
    line["message"] = {"model": "claude-opus-4-1-20250805", "id": "m1", "role": "assistant", "usage": usage}
    return json.dumps(line, separators=(",", ":")) + "\n"


def _record(tmp_path: Path, event: str, payload: dict[str, object], now: str) -> subprocess.CompletedProcess[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CTXRES_", "CLAUDE_"))}
    env.update({"CLAUDE_PROJECT_DIR": str(tmp_path / "project"), "CTXRES_NOW": now})
    argv = [sys.executable, "-m", "ctxres.linters.cli", "record", "--into", str(tmp_path / "fx"), "--"]
    hook = [sys.executable, "-m", "ctxres.hooks.main", event]
    return subprocess.run(argv + hook, input=json.dumps(payload).encode(), capture_output=True, env=env, check=False)


def test_record_writes_a_fixture_that_replays(tmp_path: Path) -> None:
    project = tmp_path / "project"
    shutil.copytree(REPLAY / "a-feat015-single-session" / "workspace", project)
    transcript = tmp_path / "logs" / "s1.jsonl"
    transcript.parent.mkdir()
    opening = json.dumps({"type": "user", "cwd": str(project), "timestamp": "2026-02-17T09:59:00.000Z"}) + "\n"
    transcript.write_text(opening + _assistant(122_000))
    base = {"session_id": "s1", "transcript_path": str(transcript), "cwd": str(project)}
    prompt = base | {"hook_event_name": "UserPromptSubmit", "prompt": "deploy with password=hunter2xyz"}
    first = _record(tmp_path, "UserPromptSubmit", prompt, "2026-02-17T10:00:00Z")
    assert first.returncode == 0, first.stderr
    assert b"<context-monitor>" in first.stdout  # the hook's answer is passed through
    workflow = project / "projects/PROJ-001-oss-release/ORCHESTRATION.yaml"
    workflow.write_text(workflow.read_text().replace('"2026-02-17T09:00:00Z"', '"2026-02-17T10:04:00Z"'))
    second = _record(
        tmp_path, "PreCompact", base | {"hook_event_name": "PreCompact", "trigger": "auto"}, "2026-02-17T10:05:00Z"
    )
    assert second.returncode == 0 and second.stdout.strip() == b"", second.stderr  # PreCompact prints nothing
    fx = tmp_path / "fx"
    steps = (fx / "steps.yaml").read_text()
    assert "hunter2xyz" not in steps and "password=[REDACTED]" in steps
    assert str(project) not in steps and "$PROJECT" in steps and "$TRANSCRIPTS/s1.jsonl" in steps
    fixture = rp.load_fixture(fx)
    assert [s.event for s in fixture.steps] == ["UserPromptSubmit", "PreCompact"]
    assert fixture.steps[1].edits[0].replacements == (
        ('    updated_at: "2026-02-17T09:00:00Z"', '    updated_at: "2026-02-17T10:04:00Z"'),
    )
    assert (fx / "expected/02-precompact-auto/files/.jerry/checkpoints/cx-001.json").is_file()
    # the transcript is kept byte for byte (its paths too): the monitor records its size
    assert (fx / "transcripts" / "s1.jsonl").read_bytes() == transcript.read_bytes()
    assert fixture.steps[0].transcript == {"s1.jsonl": 2}
    # the clock was frozen, so the recorder pinned the file times as the replay does: the live run and
    # its first replay agree on everything, the hooks' caches included
    assert rp.replay(fx) == []


def test_record_serialises_hooks_the_client_runs_side_by_side(tmp_path: Path) -> None:
    """Claude Code may run several hooks at once: every call becomes one step, none is lost."""
    project = tmp_path / "project"
    shutil.copytree(REPLAY / "a-feat015-single-session" / "workspace", project)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CTXRES_", "CLAUDE_"))}
    env.update({"CLAUDE_PROJECT_DIR": str(project), "CTXRES_NOW": "2026-02-17T10:00:00Z"})
    argv = [sys.executable, "-m", "ctxres.linters.cli", "record", "--into", str(tmp_path / "fx"), "--"]
    payload = json.dumps(
        {"session_id": "s1", "cwd": str(project), "hook_event_name": "SessionStart", "source": "startup"}
    )
    calls = [
        subprocess.Popen(
            [*argv, sys.executable, "-m", "ctxres.hooks.main", "SessionStart"],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env=env,
        )
        for _ in range(4)
    ]
    for call in calls:
        _out, err = call.communicate(payload.encode())
        assert call.returncode == 0 and not err, err
    assert len(rp.load_fixture(tmp_path / "fx").steps) == 4
    assert sorted(p.name for p in (tmp_path / "fx" / "expected").iterdir()) == [
        f"0{n}-sessionstart-startup" for n in range(1, 5)
    ]


def test_record_without_a_command_is_a_usage_error(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "ctxres.linters.cli", "record", "--into", str(tmp_path / "fx")],
        input=b"{}",
        capture_output=True,
        check=False,
    )
    assert done.returncode == 2 and b"after `--`" in done.stderr


def test_replacements_fall_back_when_ambiguous() -> None:
    from ctxres.linters.replay.recorder import edits_between, replacements

    assert replacements("a: 1\nb: 2\n", "a: 1\nb: 3\n") == [{"old": "b: 2", "new": "b: 3"}]
    assert replacements("x\nx\n", "x\ny\n") is None
    assert edits_between({"f": "x\nx\n"}, {"f": "x\ny\n"}) == [{"path": "f", "content": "x\ny\n"}]
    assert edits_between({"f": "1"}, {}) == [{"path": "f", "delete": True}]


def test_record_turns_a_developer_command_into_a_command_step() -> None:
    from ctxres.linters.replay.recorder import replayed_command

    assert replayed_command(["/venv/bin/ctxres", "ack", "--now", "2026-02-17T10:00:00Z", "--all"]) == ["ack", "--all"]
    assert replayed_command(["ctxres", "check", "."]) == ["check", "."]
    assert replayed_command(["git", "-c", "user.name=x", "commit", "-m", "m"]) == ["commit"]
    assert replayed_command(["ctxres-hook", "PreCompact"]) == []
    assert replayed_command(["ctxres", "doctor"]) == []
