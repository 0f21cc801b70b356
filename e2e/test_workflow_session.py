"""One PROJ-001 session in the real client, from startup through two compactions.

The session (one HOME, one project, ``claude -p`` then ``claude -p --continue`` for each step):

0. startup: "Start FEAT-015" (the answer's usage puts the context at WARNING);
1. a prompt at WARNING; the model Edits ORCHESTRATION.yaml (scripted tool_use), its answer puts
   the context at CRITICAL;
2. a prompt at CRITICAL;
3. ``/compact`` (PreCompact ``manual``, summary, SessionStart ``compact``);
4. ``--continue`` right after that compaction (SessionStart ``compact`` then ``resume``); the
   answer puts the context at 95% (COMPACTION);
5. a prompt (at COMPACTION) the API refuses with HTTP 400 ``prompt is too long``: reactive
   compaction (PreCompact ``auto``), then the same prompt again;
6. ``--continue`` after the reactive compaction.

Each test asserts one thing the issue requires, from the request log (what the model received),
the client's debug log, or the project's files.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from e2e import assertions as check
from e2e.scenario import (
    COMPACTION_USAGE,
    CRITICAL_USAGE,
    LOW_USAGE,
    WARNING_USAGE,
    WORKFLOW,
    WORKFLOW_ID,
    Session,
    client_percent,
    session,
    tool,
)
from e2e.stand_in_api import prompt_too_long, summary, text, tool_use


def _edit_of_workflow(project: Path) -> dict[str, str]:
    path = project / WORKFLOW
    line = next(x for x in path.read_text("utf-8").splitlines() if x.strip().startswith("current_activity:"))
    return {"file_path": str(path), "old_string": line, "new_string": line.split(":", 1)[0] + ': "qg-1-iteration-1"'}


@pytest.fixture(scope="module")
def workflow_session(tmp_path_factory: pytest.TempPathFactory, claude_binary: Path) -> Iterator[Session]:
    with session(tmp_path_factory.mktemp("workflow"), claude_binary) as s:
        s.run("Start FEAT-015: run Phase 1 (dependency audit).", text("Phase 1 started.", WARNING_USAGE))
        s.run(
            "Record the audit result in the workflow file.",
            tool_use("Edit", _edit_of_workflow(s.project), CRITICAL_USAGE, preface="Recording it."),
            text("Recorded.", CRITICAL_USAGE),
        )
        s.run("Score Phase 1 with QG-1.", text("QG-1 iteration 1 scored.", CRITICAL_USAGE))
        s.run("/compact", summary())
        s.run("Continue with QG-1.", text("Continuing.", COMPACTION_USAGE))
        s.run("Run QG-1 iteration 2.", prompt_too_long(), summary(), text("Iteration 2 done.", LOW_USAGE))
        s.run("Next step.", text("Next.", LOW_USAGE))
        yield s


def test_startup_delivers_the_resumption_prompt(workflow_session: Session) -> None:
    check.assert_resumption_prompt_in_first_request(workflow_session.requests_of(0), WORKFLOW_ID)
    check.assert_hooks_ran(workflow_session.runs[0].debug_log, ["SessionStart:startup", "UserPromptSubmit"])


def test_first_prompt_at_low_fill_has_no_monitor(workflow_session: Session) -> None:
    check.assert_no_monitor(workflow_session.requests_of(0)[0])


def test_prompt_at_warning_fill(workflow_session: Session) -> None:
    check.assert_monitor_at(workflow_session.requests_of(1)[0], "WARNING")


def test_prompt_at_critical_fill(workflow_session: Session) -> None:
    check.assert_monitor_at(workflow_session.requests_of(2)[0], "CRITICAL")


def test_prompt_at_compaction_fill(workflow_session: Session) -> None:
    check.assert_monitor_at(workflow_session.requests_of(5)[0], "COMPACTION")


def test_monitor_shows_the_figure_the_client_shows(workflow_session: Session) -> None:
    """The monitor's percentage is the client's own ``N% context used``."""
    from e2e.scenario import client_percent

    for run, usage in ((1, WARNING_USAGE), (2, CRITICAL_USAGE), (5, COMPACTION_USAGE)):
        shown = check.monitor_percent(workflow_session.requests_of(run)[0])
        assert shown == client_percent(usage), (
            f"run {run}: the monitor shows {shown}%, the client {client_percent(usage)}%"
        )


def test_edit_of_the_workflow_file_gets_the_posttooluse_warning(workflow_session: Session) -> None:
    requests = workflow_session.requests_of(1)
    assert [r.answer for r in requests if r.kind == "conversation"] == ["tool_use", "text"]
    check.assert_posttooluse_warning(requests[1], "Edit", level="CRITICAL")
    check.assert_hooks_ran(workflow_session.runs[1].debug_log, ["PostToolUse:Edit"])


def test_manual_compaction_writes_a_manual_checkpoint(workflow_session: Session) -> None:
    check.assert_hooks_ran(workflow_session.runs[3].debug_log, ["PreCompact:manual", "SessionStart:compact"])
    check.assert_checkpoint(workflow_session.project, 1, "manual")


def test_reactive_compaction_writes_an_auto_checkpoint(workflow_session: Session) -> None:
    requests = workflow_session.requests_of(5)
    assert [r.answer for r in requests if r.kind != "count_tokens"][:3] == ["too_long", "summary", "text"]
    check.assert_hooks_ran(workflow_session.runs[5].debug_log, ["PreCompact:auto", "SessionStart:compact"])
    check.assert_checkpoint(workflow_session.project, 2, "auto")


def test_one_alert_after_each_compaction(workflow_session: Session) -> None:
    check.assert_alert_once_after_each_compaction(workflow_session.api.requests, compactions=2)


def test_continue_after_a_compaction_carries_the_alert_once(workflow_session: Session) -> None:
    """``--continue`` after a compaction runs SessionStart ``compact`` then ``resume``: still one alert."""
    for run in (4, 6):
        first = next(r for r in workflow_session.requests_of(run) if r.kind == "conversation")
        count = check.request_text(first).count(check.ALERT_TAG)
        assert count == 1, f"run {run} (--continue after a compaction): {count} <compaction-alert> in its first request"


def test_resumption_prompt_not_resent_on_resume(workflow_session: Session) -> None:
    """A resume of a session that already holds the resumption prompt does not send it again."""
    for run in (1, 2):
        request = workflow_session.requests_of(run)[0]
        count = request.text().count(check.RESUMPTION_MARKER)
        assert count == 1, f"run {run} (--continue): the resumption prompt is in its first request {count} times"


def test_no_hook_output_shown_as_command_output(workflow_session: Session) -> None:
    check.assert_no_hook_output_echoed(workflow_session.api.requests)


def test_every_hook_exits_zero_quietly(workflow_session: Session) -> None:
    check.assert_hooks_exit_zero(workflow_session.debug_log)
    check.assert_hooks_quiet_on_stderr(workflow_session.debug_log)


def test_the_client_complains_of_nothing(workflow_session: Session) -> None:
    check.assert_no_client_complaint(workflow_session.debug_log, workflow_session.stderr)


def _timeline(s: Session) -> dict[str, Any]:
    """``ctxres timeline --output-format json`` in the project, as its user would run it: no argument (the
    latest session, found where the client keeps it under HOME)."""
    done = subprocess.run(
        [tool("ctxres"), "timeline", "--output-format", "json"],
        cwd=s.project,
        env={**os.environ, "HOME": str(s.client.home)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def _of(document: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [event for event in document["events"] if event["kind"] == kind]


def test_the_timeline_draws_the_clients_own_figures(workflow_session: Session) -> None:
    """The session as ``ctxres timeline`` draws it: both compactions with the tokens the client recorded in
    its ``compact_boundary`` records, each reply's fill as the client shows it (``N% context used``), the
    checkpoint PreCompact wrote before each compaction, and what SessionStart told the model after each."""
    (transcript,) = workflow_session.client.transcripts()
    boundaries = [
        entry["compactMetadata"]
        for entry in map(json.loads, transcript.read_text("utf-8").splitlines())
        if entry.get("subtype") == "compact_boundary"
    ]
    document = _timeline(workflow_session)
    assert document["sessions"] == [transcript.stem]
    drawn = [(c["trigger"], c["pre_tokens"], c["post_tokens"]) for c in _of(document, "compaction")]
    assert drawn == [(b["trigger"], b["preTokens"], b.get("postTokens")) for b in boundaries]
    assert [trigger for trigger, _, _ in drawn] == ["manual", "auto"]
    fills = [round(turn["fill"] * 100) for turn in document["turns"]]
    for usage in (WARNING_USAGE, CRITICAL_USAGE, COMPACTION_USAGE, LOW_USAGE):
        assert client_percent(usage) in fills, (usage, fills)
    assert [(c["checkpoint"], c["trigger"]) for c in _of(document, "checkpoint")] == [
        ("cx-001", "manual"),
        ("cx-002", "auto"),
    ]
    compacts = [r for r in _of(document, "resumption") if r["source"] == "compact"]
    assert [r["checkpoint"] for r in compacts] == ["cx-001", "cx-002"]
    assert all(r["told_phase"] and r["matches"] is not False for r in compacts), compacts
