"""The context monitor's files and texts (ctxres.hooks.monitor).

Transcripts are built with the line shapes the real client writes, by the helpers of claude_session.py.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ctxres.hooks import monitor
from ctxres.state.freshness import classify
from ctxres.tiers import Tier, action_for
from ctxres.tokens import estimate_tokens
from ctxres.transcript import read_fill

from ..conftest import CORPUS, FIXTURES
from .claude_session import (
    NOW,
    SESSION,
    WORKFLOW,
    assistant_line,
    run_hook,
    user_line,
    validate,
    workspace,
    write_transcript,
)

MONITOR_TOKEN_BUDGET = 200  # the <context-monitor> text stays under this many tokens (estimate_tokens)

# --------------------------------------------------------------------------- the monitor text


SEED_LIKE = """<context-monitor>
CONTEXT STATUS: WARNING (73% context used)
Tokens used: 131,400 / 180,000 usable (from the transcript)
Estimated remaining: 48,600 tokens (~1.7 QG iterations)
Compaction events: 0
Last checkpoint: CP-001
Resumption last updated: 2026-02-17T11:30:00Z (23 min ago)
Resumption staleness: FRESH (updated within the last 30 minutes and the current phase)

ACTION RECOMMENDED:
- Update the resumption section of ORCHESTRATION.yaml now, so that it is current if compaction comes early.
</context-monitor>"""


def _facts(**overrides: Any) -> dict[str, Any]:
    facts: dict[str, Any] = {
        "path": WORKFLOW,
        "status": "ACTIVE",
        "version": "2.0",
        "updated_at": "2026-02-17T11:30:00Z",
        "last_checkpoint": "CP-001",
        "compaction_count": 0,
        "event_files": [],
        "phase_started_at": "2026-02-17T11:00:00Z",
    }
    facts.update(overrides)
    return facts


def test_monitor_text_has_the_seed_format_and_figures() -> None:
    """docs/formats.md, "The context-monitor injection": the original example's figures give its lines."""
    text = monitor.format_monitor(
        tier="WARNING",
        fill=0.73,
        tokens=131_400,
        window=200_000,
        compactions=monitor.compaction_line(0, 0),
        resumption=monitor.resumption_lines(
            facts=_facts(),
            updated_age="23 min ago",
            staleness=monitor.staleness_text(level="FRESH", reason="", window_minutes=30, phase_known=True),
        ),
        actions=[action_for(Tier.WARNING)],
    )
    assert text == SEED_LIKE
    assert estimate_tokens(text) < MONITOR_TOKEN_BUDGET


def test_worst_case_monitor_text_stays_under_200_tokens() -> None:
    long_path = "projects/" + "PROJ-001-a-very-long-project-name/" * 6 + "ORCHESTRATION.yaml"
    reason = classify(
        "2026-02-17T09:00:00.123456+14:00",
        now=dt.datetime(2026, 2, 19, 12, tzinfo=dt.timezone.utc),
        session_started_at="2026-02-19T11:59:59Z",
    ).reason
    facts = _facts(path=long_path, last_checkpoint="CP-" + "9" * 200, updated_at="2026-02-17T09:00:00.123456+14:00")
    text = monitor.format_monitor(
        tier="COMPACTION",
        fill=1.0,
        tokens=1_000_000,
        window=1_000_000,
        compactions=monitor.compaction_line(123, 45),
        resumption=monitor.resumption_lines(
            facts=facts,
            updated_age="99 days 23 h ago",
            staleness=monitor.staleness_text(level="CRITICAL", reason=reason, window_minutes=30, phase_known=True),
        ),
        actions=[action_for(Tier.COMPACTION), monitor.stale_action(long_path)],
    )
    assert "CRITICAL (from a previous session" in text
    assert long_path in text  # a path is given whole, never cut: only the rest has a budget
    assert estimate_tokens(text.replace(long_path, "")) < MONITOR_TOKEN_BUDGET, text


@pytest.mark.parametrize(
    ("updated", "kwargs", "expected"),
    [
        ("2026-02-17T11:00:00Z", {}, "STALE (1 h old, more than 30 minutes)"),
        (
            "2026-02-17T11:40:00Z",
            {"session_started_at": "2026-02-17T11:50:00Z"},
            "CRITICAL (from a previous session (this one started 2026-02-17T11:50:00Z))",
        ),
        (
            "2026-02-17T11:40:00Z",
            {"current_phase_started_at": "2026-02-17T11:50:00Z"},
            "STALE (from a previous phase (the current one started 2026-02-17T11:50:00Z))",
        ),
        ("2026-02-17T13:00:00Z", {}, "STALE (1 h in the future)"),
        (None, {}, "CRITICAL (missing: nothing shows the section was updated)"),
        ("yesterday", {}, "CRITICAL (not a valid ISO-8601 time)"),
    ],
)
def test_staleness_text_drops_the_time_the_monitor_already_shows(
    updated: str | None, kwargs: dict[str, Any], expected: str
) -> None:
    now = dt.datetime(2026, 2, 17, 12, tzinfo=dt.timezone.utc)
    verdict = classify(updated, now=now, **kwargs)
    text = monitor.staleness_text(
        level=verdict.level.value, reason=verdict.reason, window_minutes=30, phase_known=False
    )
    assert text == expected


def test_fresh_text_names_the_window_and_the_phase_only_when_known() -> None:
    assert monitor.staleness_text(level="FRESH", reason="x", window_minutes=45, phase_known=False) == (
        "FRESH (updated within the last 45 minutes)"
    )


def test_resumption_lines_for_v1_missing_section_no_workflow_and_no_updated_at() -> None:
    v1 = monitor.resumption_lines(facts=_facts(version="1.0"), updated_age=None, staleness=None)
    assert v1[1] == (
        f"Resumption staleness: unknown ({WORKFLOW} has a v1.0 section, which records no update time; "
        f"`ctxres migrate {WORKFLOW} --write` converts it)"
    )
    assert monitor.resumption_lines(facts=_facts(version=None), updated_age=None, staleness=None) == [
        f"Resumption: {WORKFLOW} has no resumption section"
    ]
    assert monitor.resumption_lines(facts=None, updated_age=None, staleness=None) == [
        "Resumption: no ACTIVE or PAUSED ORCHESTRATION file found in the project"
    ]
    never = monitor.resumption_lines(facts=_facts(updated_at=None), updated_age=None, staleness="CRITICAL (x)")
    assert never[1] == "Resumption last updated: never (recovery_state.updated_at is not set)"


def test_compaction_line_adds_checkpoints_not_merged_yet() -> None:
    assert monitor.compaction_line(1, 0) == "Compaction events: 1"
    assert monitor.compaction_line(1, 1) == (
        "Compaction events: 2 (1 checkpoint is not yet acknowledged: `ctxres ack` merges it)"
    )
    assert "3 checkpoints are" in monitor.compaction_line(0, 3)
    pending = ["/p/.jerry/checkpoints/cx-001-checkpoint.json", "/p/.jerry/checkpoints/cx-002-checkpoint.json"]
    assert monitor.unmerged_count(pending, ["cx-001-checkpoint.json"]) == 1


def test_age_text() -> None:
    now = dt.datetime(2026, 2, 17, 12, tzinfo=dt.timezone.utc)
    assert monitor.age_text("2026-02-17T11:37:00Z", now) == "23 min ago"
    assert monitor.age_text("2026-02-15T10:00:00Z", now) == "2 days 2 h ago"
    assert monitor.age_text("2026-02-17T12:10:00Z", now) == "10 min in the future"
    assert monitor.age_text("soon", now) == "not a valid ISO-8601 time"


def test_stale_write_text_says_what_is_stale_and_what_to_set() -> None:
    text = monitor.stale_write_text(
        path=WORKFLOW,
        level="STALE",
        reason="`updated_at` 2026-02-17T11:00:00Z is 1 h old, more than 30 minutes",
        now=NOW,
        critical=False,
    )
    assert text.splitlines()[0] == (
        f"Resumption staleness after this write to {WORKFLOW}: STALE. "
        "`updated_at` 2026-02-17T11:00:00Z is 1 h old, more than 30 minutes."
    )
    assert f"Set resumption.recovery_state.updated_at to the current time ({NOW})" in text
    assert "Bring the whole resumption section up to date" not in text
    critical = monitor.stale_write_text(path=WORKFLOW, level="CRITICAL", reason="x", now=NOW, critical=True)
    assert "Bring the whole resumption section up to date before continuing" in critical


# --------------------------------------------------------------------------- facts of a workflow file


def test_workflow_facts_of_the_v2_fixture() -> None:
    import yaml

    data = yaml.safe_load((FIXTURES / "templates" / "proj001-qg2-ORCHESTRATION.yaml").read_text())
    facts = monitor.workflow_facts(data)
    assert facts == {
        "status": "ACTIVE",
        "live": True,  # decided at parse time: a cached prompt needs no workflow model
        "version": "2.0",
        "updated_at": "2026-02-17T11:45:00Z",
        "last_checkpoint": "CP-001",
        "compaction_count": 1,
        "event_files": ["cx-001-checkpoint.json"],
        "phase_started_at": None,
    }
    json.dumps(facts)  # the cache is JSON


def test_workflow_facts_of_a_v1_corpus_file_and_of_no_section() -> None:
    import yaml

    data = yaml.safe_load((CORPUS / "orchestration" / "002-PROJ-001-oss-release.yaml").read_text())
    facts = monitor.workflow_facts(data)
    assert facts is not None
    assert (facts["version"], facts["updated_at"], facts["last_checkpoint"]) == ("1.0", None, "CP-003")
    assert monitor.workflow_facts({"workflow": {"status": "ACTIVE"}}) is None
    assert monitor.workflow_facts(["not", "a", "mapping"]) is None


def test_unquoted_yaml_times_become_text() -> None:
    import yaml

    data = yaml.safe_load("resumption:\n  recovery_state:\n    updated_at: 2026-02-17T11:45:00Z\n")
    facts = monitor.workflow_facts(data)
    assert facts is not None
    assert facts["updated_at"] == "2026-02-17T11:45:00+00:00"
    json.dumps(facts)


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (
            {
                "pipelines": {
                    "a": {
                        "phases": [
                            {"id": 1, "started_at": "2026-02-17T09:00:00Z"},
                            {"id": 2, "started_at": "2026-02-17T11:00:00Z"},
                        ]
                    }
                }
            },
            "2026-02-17T11:00:00Z",
        ),
        ({"pipeline": {"phases": {"p2": {"sequence": 2, "started_at": "2026-02-17"}}}}, "2026-02-17"),
        ({"phases": [{"id": "2", "started_at": "2026-02-17T10:00:00Z"}]}, "2026-02-17T10:00:00Z"),
        # two pipelines in phase 2: the earliest start (fewer false STALE)
        (
            {
                "pipelines": {
                    "a": {"phases": [{"id": 2, "started_at": "2026-02-17T11:00:00Z"}]},
                    "b": {"phases": [{"id": 2, "started_at": "2026-02-17T10:00:00Z"}]},
                }
            },
            "2026-02-17T10:00:00Z",
        ),
        ({"phases": [{"id": 3, "started_at": "2026-02-17T10:00:00Z"}]}, None),
        ({"phases": [{"id": 2, "started_at": "not a time"}]}, None),
        ({"phases": [{"id": 2}]}, None),
    ],
)
def test_phase_started_at(data: dict[str, Any], expected: str | None) -> None:
    assert monitor.phase_started_at(data, 2) == expected


def test_phase_started_at_of_a_real_corpus_file() -> None:
    import yaml

    data = yaml.safe_load(
        (CORPUS / "orchestration" / "006-PROJ-001-oss-release--feat024-docssite-20260217-001.yaml").read_text()
    )
    phases = data.get("phases") or data.get("pipeline", {}).get("phases")
    assert phases, "the corpus file records its phases"
    first = phases[0] if isinstance(phases, list) else next(iter(phases.values()))
    assert monitor.phase_started_at(data, first["id"]) is not None


@pytest.mark.parametrize("status", ["ACTIVE", "PAUSED", "IN_PROGRESS", None])
def test_running_workflows_are_active(status: str | None) -> None:
    assert monitor.is_active({"status": status})


def test_finished_workflows_are_not_active() -> None:
    assert not monitor.is_active({"status": "COMPLETE"})


# --------------------------------------------------------------------------- files


def test_monitor_state_matches_its_schema(tmp_path: Path) -> None:
    path = write_transcript(tmp_path, [user_line("2026-02-17T10:00:00Z"), assistant_line("m", 131_400, NOW)])
    reading = read_fill(path)
    state = monitor.monitor_state(
        session_id=SESSION, timestamp=NOW, reading=reading, tier="WARNING", transcript_path=path
    )
    validate(state, "monitor-state")
    assert state["transcript_offset"] == os.path.getsize(path)
    assert (state["fill"], state["tokens"], state["window"], state["source"]) == (0.73, 131_400, 200_000, "transcript")
    unknown = monitor.monitor_state(
        session_id="", timestamp=NOW, reading=read_fill(None), tier="UNKNOWN", transcript_path=None
    )
    validate(unknown, "monitor-state")


def test_session_start_is_remembered_per_session(tmp_path: Path) -> None:
    path = write_transcript(tmp_path, [user_line("2026-02-17T10:00:00Z")])
    cache: dict[str, Any] = {}
    assert monitor.session_started(cache, "s1", path) == "2026-02-17T10:00:00Z"
    Path(path).unlink()
    assert monitor.session_started(cache, "s1", path) == "2026-02-17T10:00:00Z"  # from the cache
    assert monitor.session_started(cache, "s2", path) is None  # another session: read again
    assert cache["session"] == {"id": "s1", "started_at": "2026-02-17T10:00:00Z"}  # nothing new to remember


def test_a_transcript_head_without_a_time_is_read_once(tmp_path: Path) -> None:
    """No timestamp in a full 64 KiB head: remembered as none (the head of a transcript never changes);
    a shorter transcript without one is read again, since its first timed line may still come."""
    short = tmp_path / "short.jsonl"
    short.write_text(json.dumps({"type": "summary", "summary": "x"}) + "\n")
    cache: dict[str, Any] = {}
    assert monitor.session_started(cache, "s1", str(short)) is None
    assert "session" not in cache
    with short.open("a") as handle:
        handle.write(json.dumps({"type": "user", "timestamp": "2026-02-17T10:00:00Z"}) + "\n")
    assert monitor.session_started(cache, "s1", str(short)) == "2026-02-17T10:00:00Z"

    untimed = tmp_path / "untimed.jsonl"
    line = json.dumps({"type": "user", "message": {"content": "x" * 200}}) + "\n"
    untimed.write_text(line * (2 * monitor.MAX_HEAD_BYTES // len(line)))
    cache = {}
    assert monitor.session_started(cache, "s2", str(untimed)) is None
    assert cache["session"] == {"id": "s2", "started_at": None}
    untimed.unlink()  # not read again: the cache answers
    assert monitor.session_started(cache, "s2", str(untimed)) is None
    assert monitor.session_started(cache, "s3", str(untimed)) is None and cache["session"]["id"] == "s2"


def test_cache_round_trip_and_damage(tmp_path: Path) -> None:
    assert monitor.load_cache(str(tmp_path)) == {"version": monitor.CACHE_VERSION}
    monitor.save_json(str(tmp_path / "new"), monitor.CACHE_FILE, {"version": monitor.CACHE_VERSION, "x": [1]})
    assert monitor.load_cache(str(tmp_path / "new")) == {"version": monitor.CACHE_VERSION, "x": [1]}
    (tmp_path / monitor.CACHE_FILE).write_text("{broken")
    assert monitor.load_cache(str(tmp_path)) == {"version": monitor.CACHE_VERSION}
    (tmp_path / monitor.CACHE_FILE).write_text('{"version": 999, "x": 1}')
    assert monitor.load_cache(str(tmp_path)) == {"version": monitor.CACHE_VERSION}


def test_checkpoint_listing(tmp_path: Path) -> None:
    assert monitor.checkpoint_listing(str(tmp_path)) == []
    folder = tmp_path / "checkpoints"
    folder.mkdir()
    (folder / "cx-002-checkpoint.json").write_text("{}")
    (folder / "cx-001.d933ffb7.json").write_text("{}")
    (folder / "notes.txt").write_text("x")
    assert [entry[0] for entry in monitor.checkpoint_listing(str(tmp_path))] == [
        "cx-001.d933ffb7.json",
        "cx-002-checkpoint.json",
    ]


def test_migrate_hint_names_the_command() -> None:
    assert f"`ctxres migrate {WORKFLOW} --write`" in monitor.migrate_hint_text(WORKFLOW)


def test_monitor_module_imports_only_cheap_modules() -> None:
    code = (
        "import sys, json, contextlib, ctxres.hooks.context; before = set(sys.modules); import ctxres.hooks.monitor; "
        "print(sorted(set(sys.modules) - before))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['ctxres.hooks.monitor']", "monitor.py imports only json/os/sys/contextlib at module level"


# --------------------------------------------------------------------------- "From a previous phase" (docs/formats.md)


def test_the_phase_the_state_says_is_current_wins_over_the_sections() -> None:
    """The section still says phase 2; the pipeline moved to phase 3 at 11:55. The section was written in
    a previous phase: phase 3's start is the reference, not phase 2's (which would make it look FRESH)."""
    data = {
        "pipelines": {
            "main": {
                "current_phase": 3,
                "phases": [
                    {"id": 2, "status": "COMPLETE", "started_at": "2026-02-17T11:00:00Z"},
                    {"id": 3, "status": "IN_PROGRESS", "started_at": "2026-02-17T11:55:00Z"},
                ],
            }
        }
    }
    assert monitor.phase_started_at(data, 2) == "2026-02-17T11:55:00Z"
    del data["pipelines"]["main"]["current_phase"]  # no position recorded: the running phase
    assert monitor.phase_started_at(data, 2) == "2026-02-17T11:55:00Z"
    data["pipelines"]["main"]["phases"][1]["status"] = "PENDING"  # nothing running: the section's phase
    assert monitor.phase_started_at(data, 2) == "2026-02-17T11:00:00Z"


def test_a_write_in_a_later_phase_than_the_section_is_stale(tmp_path: Path) -> None:
    """Updated 15 minutes ago (FRESH by age), but phase 3 started ten minutes after that: STALE, through the
    real hook."""
    phases = (
        "\npipeline:\n  current_phase: 3\n  phases:\n"
        '    - {id: 2, status: COMPLETE, started_at: "2026-02-17T11:00:00Z"}\n'
        '    - {id: 3, status: IN_PROGRESS, started_at: "2026-02-17T11:55:00Z"}\n'
    )
    project = workspace(tmp_path)  # updated_at 11:45
    target = project / WORKFLOW
    target.write_text(target.read_text() + phases)
    payload = {
        "session_id": SESSION,
        "cwd": str(project),
        "hook_event_name": "PostToolUse",
        "tool_name": "Edit",
        "tool_input": {"file_path": str(target), "old_string": "a", "new_string": "b"},
        "tool_response": {"success": True},
    }
    run = run_hook("PostToolUse", payload, project)
    first = (run.context or "").splitlines()[0]
    assert first.startswith(f"Resumption staleness after this write to {WORKFLOW}: STALE.")
    assert "2026-02-17T11:55:00Z" in first
