"""``ctxres-hook statusline``, run as Claude Code runs it: the documented JSON on stdin, one line out."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ctxres.hooks.statusline import compose, visible

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW = ROOT / "fixtures" / "templates" / "proj001-qg2-ORCHESTRATION.yaml"
CHECKPOINT = ROOT / "fixtures" / "templates" / "proj001-qg2-checkpoint.json"
SESSION = "0b6f4a52-statusline-test"
# The last reply of the documented example: T = 1,000 + 170,000 + 500 = 171,500 of a 200,000 window; the
# client's footer says 95% (its usable window is 180,000), its `used_percentage` says 86.
USAGE = {
    "input_tokens": 1000,
    "output_tokens": 500,
    "cache_creation_input_tokens": 0,
    "cache_read_input_tokens": 170000,
}


def document(project: Path, usage: dict[str, int] | None = USAGE, window: int = 200_000) -> dict[str, Any]:
    """A statusline input as Claude Code 2.1.328 documents (and was seen to send) it."""
    return {
        "session_id": SESSION,
        "transcript_path": str(project / "no-transcript.jsonl"),
        "cwd": str(project),
        "version": "2.1.328",
        "model": {"id": "claude-sonnet-4-5-20250929", "display_name": "Sonnet 4.5"},
        "workspace": {"current_dir": str(project), "project_dir": str(project), "added_dirs": []},
        "output_style": {"name": "default"},
        "context_window": {
            "total_input_tokens": 171000,
            "total_output_tokens": 500,
            "context_window_size": window,
            "current_usage": usage,
            "used_percentage": 86 if usage else None,
            "remaining_percentage": 14 if usage else None,
        },
    }


def run_line(
    project: Path,
    stdin: bytes | dict[str, Any],
    now: str = "2026-02-17T11:49:00Z",
    *args: str,
    columns: int = 82,
) -> subprocess.CompletedProcess[str]:
    """The statusline's answer; ``columns``: the terminal's width as ``$COLUMNS`` says it (80 columns for the
    line: 2 are left free)."""
    hook = Path(sys.executable).parent / "ctxres-hook"
    raw = stdin if isinstance(stdin, bytes) else json.dumps(stdin).encode()
    env = {
        **os.environ,
        "CTXRES_NOW": now,
        "NO_COLOR": "1",
        "HOME": str(project.parent / "home"),
        "COLUMNS": str(columns),
    }
    env.pop("CLAUDE_PROJECT_DIR", None)
    env.pop("CTXRES_ORCHESTRATION", None)
    done = subprocess.run([str(hook), "statusline", *args], input=raw, capture_output=True, env=env, check=False)
    return subprocess.CompletedProcess(done.args, done.returncode, done.stdout.decode(), done.stderr.decode())


def the_line(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 0
    assert done.stderr == ""
    lines = done.stdout.splitlines()
    assert len(lines) == 1
    assert visible(lines[0]) <= 80, lines[0]
    return lines[0]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    shutil.copy(WORKFLOW, folder / "ORCHESTRATION.yaml")
    return folder


def test_fresh_section_shows_figure_tier_workflow_phase_gate_and_age(project: Path) -> None:
    line = the_line(run_line(project, document(project)))
    assert line == "ctx 95% COMPACTION │ feat015-licmig-20260217-001 P2 qg-2#1 │ FRESH 4m"


def test_full_form_names_the_phase_when_it_fits(project: Path) -> None:
    low = {
        "input_tokens": 3000,
        "output_tokens": 200,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 12000,
    }
    text = (project / "ORCHESTRATION.yaml").read_text("utf-8").replace("feat015-licmig-20260217-001", "feat015")
    (project / "ORCHESTRATION.yaml").write_text(text, "utf-8")
    line = the_line(run_line(project, document(project, low)))
    assert line == "ctx 8% LOW │ feat015 P2 Core License Changes qg-2#1 │ FRESH 4m"


def test_stale_by_age(project: Path) -> None:
    line = the_line(run_line(project, document(project), "2026-02-17T12:47:00Z"))
    assert line.endswith("│ STALE 1h02")


def test_stale_by_phase_names_the_phase_it_lags(project: Path) -> None:
    text = (project / "ORCHESTRATION.yaml").read_text("utf-8")
    text += (
        "pipeline:\n  id: main\n  current_phase: 3\n  phases:\n"
        "    - {id: 2, name: Core License Changes, status: COMPLETE, started_at: '2026-02-17T10:00:00Z'}\n"
        "    - {id: 3, name: Validation, status: IN_PROGRESS, started_at: '2026-02-17T11:47:00Z'}\n"
    )
    (project / "ORCHESTRATION.yaml").write_text(text, "utf-8")
    line = the_line(run_line(project, document(project)))
    assert line == "ctx 95% COMPACTION │ feat015-licmig-20260217-001 P3 qg-2#1 │ STALE phase 2<3"


def test_unacknowledged_compactions_are_counted(project: Path) -> None:
    folder = project / ".jerry" / "checkpoints"
    folder.mkdir(parents=True)
    checkpoint = json.loads(CHECKPOINT.read_text("utf-8"))
    checkpoint["event_id"] = "cx-002"
    (folder / "cx-002-checkpoint.json").write_text(json.dumps(checkpoint), "utf-8")
    line = the_line(run_line(project, document(project)))
    assert line.endswith("│ 1 unacked compaction") or line.endswith("│ 1 unacked"), line
    assert "│ FRESH" in line


def test_nexus_profile_shows_the_project_and_phase(tmp_path: Path) -> None:
    workspace = tmp_path / "nexus"
    (workspace / "00-system" / ".cache").mkdir(parents=True)
    (workspace / ".ctxres.toml").write_text('profile = "nexus"\n', "utf-8")
    state = {"active_project_id": "03-billing", "confidence": "high", "detection_method": "transcript"}
    (workspace / "00-system" / ".cache" / "precompact_state.json").write_text(json.dumps(state), "utf-8")
    planning = workspace / "02-projects" / "03-billing" / "01-planning"
    planning.mkdir(parents=True)
    (planning / "resume-context.md").write_text("---\ncurrent_phase: execution\n---\n# Resume\n", "utf-8")
    line = the_line(run_line(workspace, document(workspace)))
    assert line == "ctx 95% COMPACTION │ nexus 03-billing execution"


def test_no_workflow_shows_the_figure_alone(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    assert the_line(run_line(empty, document(empty))) == "ctx 95% COMPACTION"


def test_before_the_first_reply_the_figure_is_unknown(project: Path) -> None:
    line = the_line(run_line(project, document(project, usage=None)))
    assert line.startswith("ctx -- │ feat015-licmig-20260217-001")


@pytest.mark.parametrize("stdin", [b"", b"not json", b"[1, 2]", b'{"context_window": 7}', b"\xff\xfe"])
def test_unreadable_input_is_a_short_line(tmp_path: Path, stdin: bytes) -> None:
    assert the_line(run_line(tmp_path, stdin)) == "ctx --"


def test_huge_workflow_file_is_not_read(project: Path) -> None:
    text = WORKFLOW.read_text("utf-8") + "padding: |\n" + ("  " + "x" * 1000 + "\n") * 3000
    (project / "ORCHESTRATION.yaml").write_text(text, "utf-8")
    assert the_line(run_line(project, document(project))) == "ctx 95% COMPACTION"


def test_broken_workflow_file_that_says_nothing_is_left_out(project: Path) -> None:
    (project / "ORCHESTRATION.yaml").write_text("workflow: [unclosed\n  : :", "utf-8")
    assert the_line(run_line(project, document(project))) == "ctx 95% COMPACTION"


def test_a_broken_live_workflow_is_named_with_its_place(project: Path) -> None:
    (project / "ORCHESTRATION.yaml").write_text('workflow:\n  status: "ACTIVE"\nresumption: [unclosed\n', "utf-8")
    line = the_line(run_line(project, document(project)))
    assert line == "ctx 95% COMPACTION │ ORCHESTRATION.yaml cannot be read at 3:22: fix it"


def test_a_live_workflow_that_breaks_is_named_not_its_cached_facts(project: Path) -> None:
    """The cache knew the file as live: once it cannot be read, the line says so (no older view)."""
    assert "feat015-licmig-20260217-001" in the_line(run_line(project, document(project)))
    path = project / "ORCHESTRATION.yaml"
    path.write_text(path.read_text("utf-8").replace("resumption:", 'note: "unclosed\nresumption:', 1), "utf-8")
    line = the_line(run_line(project, document(project)))
    assert "feat015" not in line and "ORCHESTRATION.yaml cannot be read at" in line


def test_the_parse_is_remembered_between_runs(project: Path) -> None:
    the_line(run_line(project, document(project)))
    cache = json.loads((project / ".jerry" / "statusline-cache.json").read_text("utf-8"))
    assert cache["workflow"]["path"] == "ORCHESTRATION.yaml"
    cache["workflow"]["id"] = "remembered-id"  # what the next run shows if it does not parse the file again
    (project / ".jerry" / "statusline-cache.json").write_text(json.dumps(cache), "utf-8")
    assert "remembered-id" in the_line(run_line(project, document(project)))
    os.utime(project / "ORCHESTRATION.yaml", ns=(1, 1))  # the file changed (its mtime): parsed again
    assert "feat015-licmig-20260217-001" in the_line(run_line(project, document(project)))


def test_client_figure_is_recorded_and_used_by_the_monitor(project: Path) -> None:
    """A 1M-window session: the transcript estimate would not know the window, the client does."""
    usage = {
        "input_tokens": 2000,
        "output_tokens": 500,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 700000,
    }
    the_line(run_line(project, document(project, usage, window=1_000_000)))
    record = json.loads((project / ".jerry" / "sessions" / f"{SESSION}.figure.json").read_text("utf-8"))
    assert record["tokens"] == 702_500 and record["window"] == 1_000_000
    hook = Path(sys.executable).parent / "ctxres-hook"
    payload = {"session_id": SESSION, "cwd": str(project), "prompt": "go on", "hook_event_name": "UserPromptSubmit"}
    env = {**os.environ, "CTXRES_NOW": "2026-02-17T11:49:30Z"}
    env.pop("CLAUDE_PROJECT_DIR", None)
    done = subprocess.run(
        [str(hook), "UserPromptSubmit"], input=json.dumps(payload).encode(), capture_output=True, env=env
    )
    text = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "CONTEXT STATUS: WARNING (72% context used)" in text
    assert "Tokens used: 702,500 / 980,000 usable (from the client)" in text
    # another session, or a figure older than 30 minutes: the transcript estimate (none here) stands
    late = {**env, "CTXRES_NOW": "2026-02-17T12:30:00Z"}
    done = subprocess.run(
        [str(hook), "UserPromptSubmit"], input=json.dumps(payload).encode(), capture_output=True, env=late
    )
    assert json.loads(done.stdout) == {}


def test_statusline_kept_beside_ours(project: Path) -> None:
    """Beside the team's line, ours shows what only we know (the workflow, its position, its freshness), not a
    second context figure: theirs has one."""
    theirs = "printf 'their line 61%%\\nsecond line\\n'"
    line = the_line(run_line(project, document(project), "2026-02-17T11:49:00Z", "--beside", theirs))
    assert line == "their line 61%  feat015-licmig-20260217-001 P2 qg-2#1 │ FRESH 4m"


def test_user_statusline_hidden_by_the_project_is_shown_beside_ours(project: Path) -> None:
    home = project.parent / "home" / ".claude"
    home.mkdir(parents=True)
    (home / "settings.json").write_text(json.dumps({"statusLine": {"type": "command", "command": "echo mine"}}))
    line = the_line(run_line(project, document(project)))
    assert line.startswith("mine  feat015-licmig-20260217-001 P2") and "%" not in line


def test_compact_form_keeps_80_columns_and_whole_words() -> None:
    place = {
        "id": "a-very-long-workflow-identifier-" * 3,
        "phase": 12,
        "phase_name": "N" * 40,
        "gate": "qg-final",
        "iteration": 7,
    }
    line = compose(percent=91, tier="COMPACTION", place=place, fresh=("STALE", "phase 11<12"), unacked=3, colour=True)
    assert visible(line) <= 80
    assert "\x1b[1;31mctx 91% COMPACTION\x1b[0m" in line and "P12 qg-final#7" in line and "3 unacked" in line
    assert "…" not in line and "a-very-long" not in line  # an id that does not fit is left out, never cut


def _prompt_answer(project: Path, now: str) -> dict[str, Any]:
    hook = Path(sys.executable).parent / "ctxres-hook"
    payload = {"session_id": SESSION, "cwd": str(project), "prompt": "go on", "hook_event_name": "UserPromptSubmit"}
    env = {**os.environ, "CTXRES_NOW": now}
    env.pop("CLAUDE_PROJECT_DIR", None)
    done = subprocess.run(
        [str(hook), "UserPromptSubmit"], input=json.dumps(payload).encode(), capture_output=True, env=env
    )
    assert done.returncode == 0, done.stderr
    answer: dict[str, Any] = json.loads(done.stdout)
    return answer


def test_an_unchanged_figure_stays_fresh_for_the_monitor(project: Path) -> None:
    """The client re-sends the same figure for 40 minutes (a long discussion without a new reply's usage
    changing): the record's time follows, at most every 5 minutes, and a prompt after that still uses it."""
    record = project / ".jerry" / "sessions" / f"{SESSION}.figure.json"
    the_line(run_line(project, document(project), "2026-02-17T11:49:00Z"))
    first = json.loads(record.read_text("utf-8"))
    assert first["recorded_at"] == "2026-02-17T11:49:00Z"
    # redraws a minute later: nothing is written (the statusline does not write a file on every redraw)
    stamp = record.stat().st_mtime_ns
    the_line(run_line(project, document(project), "2026-02-17T11:50:00Z"))
    assert record.stat().st_mtime_ns == stamp
    assert json.loads(record.read_text("utf-8")) == first
    # the same figure 38 minutes after it first came: the record is refreshed
    the_line(run_line(project, document(project), "2026-02-17T12:27:00Z"))
    assert json.loads(record.read_text("utf-8"))["recorded_at"] == "2026-02-17T12:27:00Z"
    text = _prompt_answer(project, "2026-02-17T12:27:30Z")["hookSpecificOutput"]["additionalContext"]
    assert "Tokens used: 171,500 / 180,000 usable (from the client)" in text


# --------------------------------------------------------------------------- widths, beside, segment

THEIRS = "printf '[Sonnet 4.5] ctx 61%% | $0.42\\n'"  # a team's statusline: its own context figure
THEIRS_LINE = "[Sonnet 4.5] ctx 61% | $0.42"


def _words(line: str) -> set[str]:
    return set(line.replace("│", " ").split())


def _stale_project(project: Path) -> None:
    """The workflow with an unacknowledged compaction: every segment has something to say."""
    folder = project / ".jerry" / "checkpoints"
    folder.mkdir(parents=True)
    checkpoint = json.loads(CHECKPOINT.read_text("utf-8"))
    checkpoint["event_id"] = "cx-002"
    (folder / "cx-002-checkpoint.json").write_text(json.dumps(checkpoint), "utf-8")


@pytest.mark.parametrize("columns", [202, 122, 92, 72, 56, 48, 40, 34])
def test_beside_a_team_line_ours_fits_with_whole_words_and_no_second_figure(project: Path, columns: int) -> None:
    _stale_project(project)
    wide = run_line(project, document(project), "2026-02-17T13:49:00Z", "--beside", THEIRS, columns=400)
    full = wide.stdout.splitlines()[0]
    assert full == (
        f"{THEIRS_LINE}  feat015-licmig-20260217-001 P2 Core License Changes qg-2#1 │ STALE 2h04 │ 1 unacked compaction"
    )
    done = run_line(project, document(project), "2026-02-17T13:49:00Z", "--beside", THEIRS, columns=columns)
    assert done.returncode == 0 and done.stderr == ""
    line = done.stdout.splitlines()[0]
    assert visible(line) <= columns - 2, line
    assert line.startswith(THEIRS_LINE)
    ours = line[len(THEIRS_LINE) :]
    assert "%" not in ours and "ctx" not in ours  # no second context figure beside theirs
    assert _words(ours) <= _words(full), line  # whole segments dropped, never a word cut
    if columns >= 56:
        assert "STALE" in ours and "unacked" in ours and "P2" in ours
    if columns >= 122:
        assert "feat015-licmig-20260217-001 P2" in ours and "qg-2#1" in ours


@pytest.mark.parametrize("width", range(8, 90, 3))
def test_a_narrow_line_drops_segments_and_never_cuts_a_word(width: int) -> None:
    """``CRITI old session`` was seen: a level cut in the middle. Each width gets whole words of the full line."""
    place = {"id": "feat015-licmig-20260217-001", "phase": 2, "phase_name": "Core License Changes", "gate": "qg-2"}
    parts: dict[str, Any] = {"place": place, "fresh": ("CRITICAL", "old session"), "unacked": 2}
    full = compose(percent=68, tier="WARNING", width=1000, **parts)
    assert (
        full == "ctx 68% WARNING │ feat015-licmig-20260217-001 P2 Core License Changes qg-2 │ CRITICAL old session │ "
        "2 unacked compactions"
    )
    line = compose(percent=68, tier="WARNING", width=width, **parts)
    assert visible(line) <= width
    assert _words(line) <= _words(full), line
    beside = compose(percent=68, tier="WARNING", width=width, figure=False, **parts)
    assert visible(beside) <= width and _words(beside) <= _words(full) and "68%" not in beside
    if width >= 20:
        assert "CRITICAL" in beside  # the staleness and the compactions outlive the workflow's name
    if width >= 29:
        assert "2 unacked" in beside


def test_the_width_is_the_terminals(project: Path) -> None:
    """$COLUMNS (else the controlling terminal) gives the width: a wide terminal shows the phase's name."""
    wide = run_line(project, document(project), columns=200).stdout
    assert wide == "ctx 95% COMPACTION │ feat015-licmig-20260217-001 P2 Core License Changes qg-2#1 │ FRESH 4m\n"
    narrow = run_line(project, document(project), columns=40).stdout.splitlines()[0]
    assert visible(narrow) <= 38 and "Core" not in narrow


def test_segment_mode_prints_our_part_in_the_width_ccstatusline_gives(project: Path) -> None:
    """ccstatusline runs a Custom Command widget with the client's JSON plus ``terminal_width``."""
    _stale_project(project)
    home = project.parent / "home" / ".claude"
    home.mkdir(parents=True)  # the user's statusline (ccstatusline itself) is never run by the segment
    (home / "settings.json").write_text(json.dumps({"statusLine": {"command": "echo RECURSION"}}), "utf-8")
    wide = {**document(project), "terminal_width": 300}
    line = run_line(project, wide, "2026-02-17T13:49:00Z", "--segment", columns=50).stdout.splitlines()[0]
    assert line == "feat015-licmig-20260217-001 P2 Core License Changes qg-2#1 │ STALE 2h04 │ 1 unacked compaction"
    narrow = {**document(project), "terminal_width": 100}
    done = run_line(project, narrow, "2026-02-17T13:49:00Z", "--segment", columns=300)
    assert done.returncode == 0 and done.stderr == ""
    line = done.stdout.splitlines()[0]
    assert line == "P2 qg-2#1 │ STALE 2h04 │ 1 unacked"  # half the row: it sits among other widgets
    assert "RECURSION" not in line


def test_segment_mode_says_nothing_without_a_workflow(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    done = run_line(empty, {**document(empty), "terminal_width": 120}, "2026-02-17T11:49:00Z", "--segment")
    assert done.returncode == 0 and done.stdout == "\n"  # an empty widget: ccstatusline hides it


# --------------------------------------------------------------------------- the session's compactions


def _reply(tokens: int) -> dict[str, Any]:
    return {
        "type": "assistant",
        "isSidechain": False,
        "message": {"usage": {"input_tokens": tokens - 500, "output_tokens": 500}},
    }


def _boundary(pre: int, post: int) -> dict[str, Any]:
    meta = {"trigger": "manual", "preTokens": pre, "postTokens": post}
    return {
        "type": "system",
        "subtype": "compact_boundary",
        "content": "Conversation compacted",
        "compactMetadata": meta,
    }


def _transcript(project: Path, *entries: dict[str, Any], mode: str = "w") -> Path:
    path = project / "session.jsonl"
    with path.open(mode, encoding="utf-8") as handle:
        handle.writelines(json.dumps(entry) + "\n" for entry in entries)
    return path


def _after(project: Path, usage: dict[str, int] | None) -> dict[str, Any]:
    """The client's document with the session's transcript (``usage=None``: what it sends right after /compact)."""
    return {**document(project, usage), "transcript_path": str(project / "session.jsonl")}


TWICE = (_reply(90_000), _boundary(90_500, 2_950), _reply(171_500), _boundary(171_500, 3_183))


def test_after_compact_the_line_counts_compactions_and_shows_the_figure_of_post_tokens(project: Path) -> None:
    """Right after /compact the client sends no usage: the line shows the count, the tokens before and after
    the newest compaction, and ``postTokens``'s figure (2% of the 180,000 usable), not ``ctx --``."""
    _transcript(project, *TWICE)
    line = the_line(run_line(project, _after(project, None)))
    assert line == "ctx 2% LOW │ 2× 172k→3.2k │ feat015-licmig-20260217-001 P2 qg-2#1 │ FRESH"


def test_a_pre_compact_usage_the_client_still_sends_gives_way_to_post_tokens(project: Path) -> None:
    _transcript(project, *TWICE)
    assert the_line(run_line(project, _after(project, USAGE))).startswith("ctx 2% LOW │ 2× 172k→3.2k │")


def test_the_reply_after_a_compaction_brings_back_the_clients_figure(project: Path) -> None:
    _transcript(project, *TWICE, _reply(171_500))
    assert the_line(run_line(project, _after(project, USAGE))).startswith("ctx 95% COMPACTION │ 2× 172k→3.2k │")


def test_a_session_without_compaction_shows_no_count(project: Path) -> None:
    _transcript(project, _reply(171_500))
    assert "compacted" not in the_line(run_line(project, _after(project, USAGE)))


def test_the_transcript_is_read_only_where_it_grew(project: Path) -> None:
    """The cache keeps how far the transcript was read: a count planted there is what the next run adds to."""
    path = _transcript(project, *TWICE)
    the_line(run_line(project, _after(project, None)))
    cache_file = project / ".jerry" / "statusline-cache.json"
    cache = json.loads(cache_file.read_text("utf-8"))
    state = cache["compactions"][str(path)]
    assert state["offset"] == path.stat().st_size and state["count"] == 2
    state["count"] = 7  # what a run that read the whole file again would not keep
    cache_file.write_text(json.dumps(cache), "utf-8")
    assert "7× 172k" in the_line(run_line(project, _after(project, None)))
    _transcript(project, _reply(60_000), _boundary(60_000, 1_200), mode="a")
    assert the_line(run_line(project, _after(project, None))).startswith("ctx 1% LOW │ 8× 60k→1.2k │")
    _transcript(project, _boundary(20_000, 900))  # another, shorter file: read from its start
    assert "1× 20k→900" in the_line(run_line(project, _after(project, None)))


def test_a_line_still_being_written_is_read_when_it_is_complete(project: Path) -> None:
    path = _transcript(project, *TWICE)
    text = json.dumps(_boundary(9_000, 800))
    with path.open("a", encoding="utf-8") as handle:
        handle.write(text[:30])
    assert "2× 172k→3.2k" in the_line(run_line(project, _after(project, None)))
    with path.open("a", encoding="utf-8") as handle:
        handle.write(text[30:] + "\n")
    assert "3× 9.0k→800" in the_line(run_line(project, _after(project, None)))


def test_a_huge_line_is_skipped_and_the_boundary_after_it_counted(project: Path) -> None:
    path = _transcript(project, *TWICE)
    with path.open("a", encoding="utf-8") as handle:
        handle.write('{"type": "user", "compact_boundary": "' + "x" * (5 * 1024 * 1024) + '"}\n')
    _transcript(project, _boundary(50_000, 2_000), mode="a")
    assert "3× 50k→2.0k" in the_line(run_line(project, _after(project, None)))


def test_segment_mode_shows_the_compaction_count(project: Path) -> None:
    _transcript(project, *TWICE)
    done = run_line(project, {**_after(project, None), "terminal_width": 200}, "2026-02-17T11:49:00Z", "--segment")
    line = done.stdout.splitlines()[0]
    assert line.startswith("2× compacted 172k→3.2k │ feat015-licmig-20260217-001"), line
    assert "%" not in line


@pytest.mark.parametrize("width", range(8, 90, 3))
def test_a_narrow_line_shortens_the_compaction_count_by_whole_words(width: int) -> None:
    place = {"id": "feat015-licmig-20260217-001", "phase": 2, "gate": "qg-2"}
    parts: dict[str, Any] = {"place": place, "fresh": ("STALE", "42m"), "compacted": (2, 171_500, 3_183)}
    full = compose(percent=2, tier="LOW", width=1000, **parts)
    assert full == "ctx 2% LOW │ 2× compacted 172k→3.2k │ feat015-licmig-20260217-001 P2 qg-2 │ STALE 42m"
    line = compose(percent=2, tier="LOW", width=width, **parts)
    assert visible(line) <= width and _words(line) <= _words(full), line
    if width >= 31:
        assert "2×" in line and "172k→3.2k" in line
