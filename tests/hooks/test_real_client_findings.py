"""What the real Claude Code client (2.1.328) showed about the hooks, one finding per section.

Each test runs the real ``ctxres-hook`` process (and the real ``ctxres`` command for the matcher),
with the payloads and transcript records the client sends and writes: a ``compact_boundary`` with
``compactMetadata.postTokens``, SessionStart ``resume`` with ``context_tokens``, SessionStart
``compact`` with ``model``, ``claude -p --continue`` running SessionStart ``compact`` then ``resume``.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ctxres.hook_events import HOOK_EVENTS
from ctxres.hooks import monitor
from ctxres.tiers import percent_used

from ..cli_process import ctxres
from .claude_session import (
    NOW,
    SESSION,
    assistant_line,
    boundary_line,
    prompt_payload,
    run_hook,
    user_line,
    validate,
    workspace,
    write_transcript,
)

PROMPT_START = "You are resuming a workflow that was interrupted."
ALERT = "<compaction-alert>"


def raw_hook(event: str, payload: dict[str, Any], project: Path) -> subprocess.CompletedProcess[bytes]:
    """The real hook process, its stdout left as bytes (PreCompact prints nothing)."""
    environment = {k: v for k, v in os.environ.items() if k not in ("CTXRES_ORCHESTRATION", "CTXRES_NOW")}
    environment.update({"CLAUDE_PROJECT_DIR": str(project), "CTXRES_NOW": NOW})
    return subprocess.run(
        [sys.executable, "-m", "ctxres.hooks.main", event],
        input=json.dumps(payload).encode(),
        env=environment,
        capture_output=True,
        timeout=60,
        cwd=project,
    )


def precompact(project: Path, transcript: str, trigger: str = "auto") -> None:
    payload = {
        "session_id": SESSION,
        "transcript_path": transcript,
        "cwd": str(project),
        "hook_event_name": "PreCompact",
        "trigger": trigger,
        "custom_instructions": None,
    }
    result = raw_hook("PreCompact", payload, project)
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")


def session_start(project: Path, transcript: str, source: str, *, session: str = SESSION, **extra: Any) -> str:
    """SessionStart's injected text ("" when it injects nothing); no stderr."""
    payload = {
        "session_id": session,
        "transcript_path": transcript,
        "cwd": str(project),
        "hook_event_name": "SessionStart",
        "source": source,
        **extra,
    }
    run = run_hook("SessionStart", payload, project)
    assert run.stderr_lines == []
    return run.context or ""


def state(project: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((project / ".jerry" / monitor.STATE_FILE).read_text())
    validate(data, "monitor-state")
    return data


def checkpoints(project: Path) -> list[str]:
    return sorted(path.name for path in (project / ".jerry" / "checkpoints").glob("cx-*.json"))


def append(transcript: str, *lines: dict[str, Any]) -> None:
    with open(transcript, "a", encoding="utf-8") as handle:
        handle.writelines(json.dumps(line) + "\n" for line in lines)


def reply(msg_id: str, ts: str, *, input_side: int, output: int) -> dict[str, Any]:
    """A model reply whose input side (input + cache creation + cache read) is ``input_side`` tokens."""
    line = assistant_line(msg_id, 0 + 1006 + 136, ts)
    line["message"]["usage"].update(
        {"input_tokens": 6, "cache_creation_input_tokens": 1000, "cache_read_input_tokens": input_side - 1006}
    )
    line["message"]["usage"]["output_tokens"] = output
    return line


# --------------------------------------------------------------------------- 1. PreCompact prints nothing


def test_precompact_prints_nothing_and_still_writes_its_checkpoint(tmp_path: Path) -> None:
    """The client shows a PreCompact hook's stdout to the user ("completed successfully: {}") and keeps
    it in the conversation: the hook must print nothing at all."""
    project = workspace(tmp_path)
    transcript = write_transcript(tmp_path, [user_line("2026-02-17T10:00:00Z"), assistant_line("m", 131_400, NOW)])
    precompact(project, transcript)  # asserts stdout == b"" and stderr == b""
    assert len(checkpoints(project)) == 1


def test_precompact_problems_go_to_stderr_only(tmp_path: Path) -> None:
    """A problem is one stderr line (the client's debug log on exit 0), never stdout, and never blocks."""
    project = workspace(tmp_path)
    (project / ".jerry").write_text("a file where the state folder should be")
    result = raw_hook(
        "PreCompact",
        {"session_id": SESSION, "cwd": str(project), "hook_event_name": "PreCompact", "trigger": "manual"},
        project,
    )
    assert (result.returncode, result.stdout) == (0, b"")
    lines = result.stderr.decode().splitlines()
    assert len(lines) == 1 and lines[0].startswith("ctxres-hook: PreCompact: ")


# --------------------------------------------------------------------------- 2. one alert per compaction


def test_compact_then_resume_gives_one_alert_and_a_later_compaction_alerts_again(tmp_path: Path) -> None:
    project = workspace(tmp_path)
    transcript = write_transcript(tmp_path, [user_line("2026-02-17T10:00:00Z"), assistant_line("m", 131_400, NOW)])
    opening = session_start(project, transcript, "startup")
    assert opening.startswith(PROMPT_START) and ALERT not in opening
    assert session_start(project, transcript, "resume") == ""  # the session holds the prompt already

    precompact(project, transcript, "manual")
    append(transcript, boundary_line("2026-02-17T12:00:01Z", post=21_000))
    first = session_start(project, transcript, "compact")
    [one] = checkpoints(project)  # numbered after the CX events the section records already
    assert first.count(ALERT) == 1 and one in first
    # `claude -p --continue` right after the compaction: SessionStart `resume` before the first request
    resumed = session_start(project, transcript, "resume", context_tokens=164_136)
    assert ALERT not in resumed
    assert resumed.startswith(PROMPT_START)  # the compaction summarized the prompt away: sent once more
    assert session_start(project, transcript, "resume") == ""  # and only once

    precompact(project, transcript, "auto")
    second = session_start(project, transcript, "compact")
    two = checkpoints(project)[-1]
    assert second.count(ALERT) == 1 and two in second and "COMPACTION EVENT: 2 of 2" in second

    record = json.loads((project / ".jerry" / "sessions" / f"{SESSION}.json").read_text())
    assert record["compactions"] == 2 and record["alerted_checkpoint"] == two
    other = session_start(project, transcript, "startup", session="another-session")  # a new session: both
    assert other.count(ALERT) == 1 and PROMPT_START in other


def test_session_records_of_sessions_gone_for_a_month_are_removed_when_a_new_session_starts(tmp_path: Path) -> None:
    from ctxres.timestamps import parse_datetime

    project = workspace(tmp_path)
    transcript = write_transcript(tmp_path, [user_line("2026-02-17T10:00:00Z")])
    folder = project / ".jerry" / "sessions"
    folder.mkdir(parents=True)
    moment = parse_datetime(NOW)
    assert moment is not None
    day = 24 * 3600
    for name, age_days in (("old.json", 31), ("recent.json", 29)):
        (folder / name).write_text("{}")
        os.utime(folder / name, (moment.timestamp() - age_days * day,) * 2)
    (folder / "notes.txt").write_text("not a record")
    os.utime(folder / "notes.txt", (moment.timestamp() - 90 * day,) * 2)

    session_start(project, transcript, "startup")
    assert sorted(p.name for p in folder.iterdir()) == sorted(["notes.txt", "recent.json", f"{SESSION}.json"])
    (folder / "another.json").write_text("{}")
    os.utime(folder / "another.json", (moment.timestamp() - 40 * day,) * 2)
    session_start(project, transcript, "resume")  # the same session again: no scan
    assert (folder / "another.json").exists()


def test_a_project_without_a_workflow_keeps_no_session_record(tmp_path: Path) -> None:
    project = tmp_path / "empty"
    project.mkdir()
    transcript = write_transcript(tmp_path, [user_line("2026-02-17T10:00:00Z")])
    for source in ("startup", "compact", "resume"):
        assert session_start(project, transcript, source) == ""
    assert list(project.iterdir()) == []


# --------------------------------------------------------------------------- 3. a new session's first prompt


def test_first_prompt_of_a_new_session_says_nothing_on_stderr(tmp_path: Path) -> None:
    """The client creates the transcript after the first prompt: a missing file is normal."""
    project = workspace(tmp_path)
    missing = tmp_path / "claude" / "projects" / "-work-proj" / f"{SESSION}.jsonl"
    result = raw_hook("UserPromptSubmit", prompt_payload(project, str(missing)), project)
    assert (result.returncode, result.stderr) == (0, b"")
    assert json.loads(result.stdout) == {}
    assert state(project)["tier"] == "UNKNOWN"


# --------------------------------------------------------------------------- 4. after a reactive compaction


def test_the_alert_states_the_fill_after_the_compaction_and_supersedes_the_old_reading(tmp_path: Path) -> None:
    """The retried prompt still carries the monitor reading taken before the compaction: the alert says
    the figure now, and the monitor state is reset to it."""
    project = workspace(tmp_path)
    transcript = write_transcript(tmp_path, [user_line("2026-02-17T10:00:00Z"), assistant_line("m", 164_136, NOW)])
    before = run_hook("UserPromptSubmit", prompt_payload(project, transcript), project)
    assert before.context is not None and "COMPACTION (91% context used)" in before.context
    precompact(project, transcript, "auto")
    append(transcript, boundary_line("2026-02-17T12:00:01Z", pre=164_136, post=21_000))
    alert = session_start(project, transcript, "compact", model="claude-opus-4-7")
    assert "CONTEXT NOW: 12% used after the compaction (21,000 of 180,000 usable tokens)." in alert.splitlines()
    assert "Context-monitor readings from before the compaction are superseded." in alert.splitlines()
    now = state(project)
    assert (now["tier"], now["fill"], now["tokens"], now["source"]) == ("LOW", 0.12, 21_000, "compact_boundary")


def test_hooks_that_run_before_the_boundary_is_written_say_the_fill_is_not_known_yet(tmp_path: Path) -> None:
    project = workspace(tmp_path)
    transcript = write_transcript(tmp_path, [user_line("2026-02-17T10:00:00Z"), assistant_line("m", 164_136, NOW)])
    run_hook("UserPromptSubmit", prompt_payload(project, transcript), project)
    precompact(project, transcript, "auto")
    alert = session_start(project, transcript, "compact")  # no compact_boundary in the transcript yet
    assert "CONTEXT NOW: not measured yet after the compaction (the next reply tells)." in alert.splitlines()
    assert "91%" not in alert.split("PRE-COMPACTION FILL:")[1]  # the old reading is not presented as current
    now = state(project)
    assert (now["tier"], now["fill"], now["tokens"]) == ("UNKNOWN", None, None)


def test_the_wording_at_high_fill_says_what_the_client_does(tmp_path: Path) -> None:
    project = workspace(tmp_path)
    transcript = write_transcript(tmp_path, [user_line("2026-02-17T10:00:00Z"), assistant_line("m", 170_000, NOW)])
    run = run_hook("UserPromptSubmit", prompt_payload(project, transcript), project)
    assert run.context is not None and "COMPACTION (94% context used)" in run.context
    assert "The client compacts once a request no longer fits" in run.context
    assert "imminent" not in run.context


# --------------------------------------------------------------------------- 5. the figure the client shows


def test_the_fill_is_the_figure_the_client_shows(tmp_path: Path) -> None:
    """82% by (input + cache) / 200,000, 91% in the client: output tokens count, and the window is
    200,000 less the 20,000-token output reserve."""
    project = workspace(tmp_path)
    line = reply("m", NOW, input_side=164_000, output=136)
    transcript = write_transcript(tmp_path, [user_line("2026-02-17T10:00:00Z"), line])
    run = run_hook("UserPromptSubmit", prompt_payload(project, transcript), project)
    assert run.context is not None
    assert run.context.splitlines()[1:3] == [
        "CONTEXT STATUS: COMPACTION (91% context used)",
        "Tokens used: 164,136 / 180,000 usable (from the transcript)",
    ]
    now = state(project)
    assert (now["fill"], now["tokens"], now["window"], now["tier"]) == (0.91, 164_136, 200_000, "COMPACTION")


def _client_percent(tokens: int, window: int) -> int:
    """The client's formula as written in its code (JavaScript's Math.round: halves up; doubles)."""
    usable = window - min(32_000, 20_000)
    return 100 - max(0, math.floor((usable - tokens) / usable * 100 + 0.5))


@pytest.mark.parametrize("window", [200_000, 1_000_000])
def test_percent_used_is_the_clients_formula(window: int) -> None:
    step = window // 20_000
    for tokens in range(0, window + 1, step):
        assert percent_used(tokens, window) == _client_percent(tokens, window), tokens


# --------------------------------------------------------------------------- 6. figures in the payload


def test_resume_context_tokens_replace_the_monitor_reading(tmp_path: Path) -> None:
    project = workspace(tmp_path)
    transcript = write_transcript(tmp_path, [user_line("2026-02-17T10:00:00Z"), assistant_line("m", 131_400, NOW)])
    run_hook("UserPromptSubmit", prompt_payload(project, transcript), project)
    assert state(project)["tokens"] == 131_400
    session_start(
        project,
        transcript,
        "resume",
        context_tokens=150_000,
        seconds_since_last_response=4_000,
        prompt_cache_likely_expired=True,
        estimated_cache_write_usd=0.42,
    )
    now = state(project)
    assert (now["tokens"], now["fill"], now["tier"], now["source"]) == (150_000, 0.83, "CRITICAL", "client")


def test_compact_payload_model_selects_the_window(tmp_path: Path) -> None:
    project = workspace(tmp_path)
    transcript = write_transcript(tmp_path, [user_line("2026-02-17T10:00:00Z"), assistant_line("m", 131_400, NOW)])
    precompact(project, transcript)
    append(transcript, boundary_line("2026-02-17T12:00:01Z", post=21_000))
    alert = session_start(project, transcript, "compact", model="claude-opus-4-7[1m]")
    assert "CONTEXT NOW: 2% used after the compaction (21,000 of 980,000 usable tokens)." in alert.splitlines()


# --------------------------------------------------------------------------- 7. the tools the client has


def _l3(repo: Path) -> str:
    report = json.loads(ctxres("doctor", "--output-format", "json", cwd=repo).stdout)
    return next(str(row["status"]) for row in report["layers"] if row["layer"] == "L3")


def test_the_matchers_name_the_tools_the_client_has_and_older_settings_stay_valid(tmp_path: Path) -> None:
    post_tool_use = next(event for event in HOOK_EVENTS if event.name == "PostToolUse")
    assert post_tool_use.matcher == "Write|Edit"  # the plugin's registration and install-hooks' entry read it
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    assert ctxres("install-hooks", cwd=tmp_path).returncode == 0
    settings = tmp_path / ".claude" / "settings.json"
    data = json.loads(settings.read_text())
    assert [group["matcher"] for group in data["hooks"]["PostToolUse"]] == ["Write|Edit"]
    assert _l3(tmp_path) == "present"
    data["hooks"]["PostToolUse"][0]["matcher"] = "Write|Edit|MultiEdit"  # what older versions wrote
    settings.write_text(json.dumps(data))
    assert _l3(tmp_path) == "present"
    data["hooks"]["PostToolUse"][0]["matcher"] = "Edit"
    settings.write_text(json.dumps(data))
    assert _l3(tmp_path) == "misconfigured"
