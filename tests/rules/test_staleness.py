"""Staleness: timestamp parsing, the FRESH/STALE/CRITICAL classification, the newest-timestamp walk,
every S rule (trigger and near miss), and the exact S findings on the real corpus."""

from __future__ import annotations

import datetime as dt
import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ctxres.config import Config
from ctxres.findings import Finding, Severity
from ctxres.formats.loading import Format, load_file, parse_text
from ctxres.linters.checking import engine
from ctxres.linters.checking import resumption_context as rules
from ctxres.linters.checking.discovery import discover
from ctxres.state import orchestration
from ctxres.state import staleness as core
from ctxres.state.freshness import Level, classify
from ctxres.state.staleness import earliest_instant, iter_timestamps, newest_timestamp
from ctxres.timestamps import (
    format_duration,
    format_utc,
    invalid_reason,
    parse_datetime,
    parse_timestamp,
)

from ..conftest import CORPUS, ROOT
from .s_families import s_findings

UTC = dt.timezone.utc


def at(text: str) -> dt.datetime:
    value = parse_datetime(text)
    assert value is not None, text
    return value


# --- timestamps -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-02-17T12:34:56Z", "2026-02-17T12:34:56+00:00"),
        ("2026-02-17t12:34:56z", "2026-02-17T12:34:56+00:00"),
        ("2026-02-17T12:34:56+02:00", "2026-02-17T10:34:56+00:00"),
        ("2026-02-17T12:34:56+0200", "2026-02-17T10:34:56+00:00"),
        ("2026-02-17T12:34:56+02", "2026-02-17T10:34:56+00:00"),
        ("2026-02-17T12:34:56-05:30", "2026-02-17T18:04:56+00:00"),
        ("2026-02-17T12:34:56.5Z", "2026-02-17T12:34:56.500000+00:00"),
        ("2026-02-17T12:34:56,25Z", "2026-02-17T12:34:56.250000+00:00"),
        ("2026-02-17T12:34:56.123456789Z", "2026-02-17T12:34:56.123456+00:00"),
        ("2026-02-17 12:34:56Z", "2026-02-17T12:34:56+00:00"),
        ("2026-02-17 12:34:56 +01:00", "2026-02-17T11:34:56+00:00"),
        ("2026-02-17T12:34Z", "2026-02-17T12:34:00+00:00"),
        ("2026-02-17T24:00:00Z", "2026-02-18T00:00:00+00:00"),
        ("  2026-02-17T12:34:56Z  ", "2026-02-17T12:34:56+00:00"),
    ],
)
def test_parse_timestamp_forms_found_in_real_files(text: str, expected: str) -> None:
    parsed = parse_timestamp(text)
    assert parsed is not None
    assert parsed.instant.isoformat() == expected
    assert parsed.instant.tzinfo is not None
    assert not parsed.assumed_utc and not parsed.date_only
    assert parsed.note() == ""


def test_no_zone_is_read_as_utc_and_says_so() -> None:
    parsed = parse_timestamp("2026-02-17T12:34:56")
    assert parsed is not None
    assert parsed.instant == dt.datetime(2026, 2, 17, 12, 34, 56, tzinfo=UTC)
    assert parsed.assumed_utc and not parsed.date_only
    assert "read as UTC" in parsed.note()


def test_date_only_is_the_start_of_the_day_in_utc_and_says_so() -> None:
    parsed = parse_timestamp("2026-02-22")
    assert parsed is not None
    assert parsed.instant == dt.datetime(2026, 2, 22, tzinfo=UTC)
    assert parsed.date_only
    assert "date without a time" in parsed.note()


def test_datetime_and_date_objects_from_other_yaml_loaders() -> None:
    aware = dt.datetime(2026, 2, 17, 13, 0, tzinfo=dt.timezone(dt.timedelta(hours=1)))
    parsed = parse_timestamp(aware)
    assert parsed is not None and parsed.instant == dt.datetime(2026, 2, 17, 12, 0, tzinfo=UTC)
    assert not parsed.assumed_utc
    naive = parse_timestamp(dt.datetime(2026, 2, 17, 12, 0))
    assert naive is not None and naive.assumed_utc and naive.instant.tzinfo is not None
    day = parse_timestamp(dt.date(2026, 2, 17))
    assert day is not None and day.date_only and day.instant == dt.datetime(2026, 2, 17, tzinfo=UTC)


@pytest.mark.parametrize(
    "value",
    [
        "2026-02-30T25:00:00Z",
        "2026-02-30",
        "2026-13-01T00:00:00Z",
        "2026-02-17T23:60:00Z",
        "2026-02-17T12:00:61Z",
        "2026-02-17T24:30:00Z",
        "2026-02-17T12:00:00+24:00",
        "2026-02-17T12:00:00+05:75",
        "2026-02-17T12:34:56Zjunk",
        "updated 2026-02-17T12:34:56Z",
        "17/02/2026",
        "",
        None,
        20260217,
        ["2026-02-17"],
    ],
)
def test_unparsable_values_give_none(value: object) -> None:
    assert parse_timestamp(value) is None
    assert parse_datetime(value) is None


def test_invalid_reason_explains_a_well_shaped_impossible_time() -> None:
    assert invalid_reason("2026-02-30T25:00:00Z") == "day is out of range for month"
    assert invalid_reason("2026-02-28T25:00:00Z") == "hour must be in 0..23"
    assert invalid_reason("2026-02-28T23:00:00Z") is None  # a real time
    assert invalid_reason("yesterday") is None  # not written like a timestamp at all


def test_formatting() -> None:
    assert format_utc(at("2026-02-17T13:34:56.7+01:00")) == "2026-02-17T12:34:56Z"
    assert format_duration(dt.timedelta(seconds=45)) == "45 s"
    assert format_duration(dt.timedelta(minutes=12, seconds=59)) == "12 min"
    assert format_duration(dt.timedelta(hours=1)) == "1 h"
    assert format_duration(dt.timedelta(hours=3, minutes=5)) == "3 h 5 min"
    assert format_duration(dt.timedelta(days=1)) == "1 day"
    assert format_duration(dt.timedelta(days=2, hours=4)) == "2 days 4 h"
    assert format_duration(dt.timedelta(minutes=-7)) == "7 min"


# --- classify -----------------------------------------------------------------------------------

NOW = at("2026-02-17T12:00:00Z")


def test_fresh_within_the_window_and_at_its_boundary() -> None:
    result = classify("2026-02-17T11:50:00Z", now=NOW)
    assert result.level is Level.FRESH and "10 min old" in result.reason
    assert classify("2026-02-17T11:30:00Z", now=NOW).level is Level.FRESH  # exactly 30 minutes


def test_stale_just_past_the_window() -> None:
    result = classify("2026-02-17T11:29:59Z", now=NOW)
    assert result.level is Level.STALE
    assert "30 min old, more than 30 minutes" in result.reason


def test_window_is_configurable() -> None:
    assert classify("2026-02-17T11:50:00Z", now=NOW, window_minutes=5).level is Level.STALE
    assert classify("2026-02-17T10:00:00Z", now=NOW, window_minutes=120).level is Level.FRESH


def test_future_beyond_the_clock_skew_is_stale() -> None:
    assert classify("2026-02-17T12:05:00Z", now=NOW).level is Level.FRESH  # exactly the 5-minute skew
    result = classify("2026-02-17T12:05:01Z", now=NOW)
    assert result.level is Level.STALE and "in the future" in result.reason
    assert classify("2026-02-17T12:05:01Z", now=NOW, clock_skew=dt.timedelta(minutes=10)).level is Level.FRESH


def test_previous_phase_is_stale_even_inside_the_window() -> None:
    result = classify("2026-02-17T11:50:00Z", now=NOW, current_phase_started_at="2026-02-17T11:56:00Z")
    assert result.level is Level.STALE
    assert "previous phase" in result.reason and "2026-02-17T11:56:00Z" in result.reason
    # Within the clock skew of the phase start: still this phase.
    assert classify("2026-02-17T11:51:00Z", now=NOW, current_phase_started_at="2026-02-17T11:56:00Z").level is (
        Level.FRESH
    )


def test_previous_session_is_critical_and_wins_over_the_phase() -> None:
    result = classify(
        "2026-02-17T11:00:00Z",
        now=NOW,
        session_started_at="2026-02-17T11:40:00Z",
        current_phase_started_at="2026-02-17T11:45:00Z",
    )
    assert result.level is Level.CRITICAL and "previous session" in result.reason
    assert classify("2026-02-17T11:35:00Z", now=NOW, session_started_at="2026-02-17T11:40:00Z").level is Level.FRESH


@pytest.mark.parametrize("value", [None, "", "2026-02-30T25:00:00Z", "soon", 42])
def test_missing_or_unreadable_updated_at_is_critical(value: object) -> None:
    result = classify(value, now=NOW)
    assert result.level is Level.CRITICAL
    assert "updated_at" in result.reason


def test_classify_accepts_datetimes_and_says_when_the_zone_was_assumed() -> None:
    assert classify(dt.datetime(2026, 2, 17, 11, 55, tzinfo=UTC), now=NOW).level is Level.FRESH
    result = classify("2026-02-17T11:00:00", now=NOW, session_started_at=dt.datetime(2026, 2, 17, 10, 0, tzinfo=UTC))
    assert result.level is Level.STALE and "read as UTC" in result.reason


def test_utc_now_is_aware_utc() -> None:
    now = core.utc_now()
    assert now.tzinfo is not None and now.utcoffset() == dt.timedelta(0)


def test_the_core_imports_only_the_standard_library() -> None:
    code = (
        "import sys, ctxres.state.staleness, ctxres.state.freshness; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in {'yaml', 'jsonschema', 'pydantic'} "
        "or m.startswith('ctxres.linters')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]"


# --- the newest-timestamp walk ------------------------------------------------------------------


def test_walk_finds_whole_timestamps_anywhere_and_skips_planned_keys_and_prose() -> None:
    data = {
        "checkpoints": {"entries": [{"id": "CP-001", "timestamp": "2026-02-17T10:00:00Z"}]},
        "quality_gates": {"qg-1": {"iterations": [{"completed_at": "2026-02-17T11:00:00+01:00"}]}},
        "metrics": {"estimated_completion": "2026-03-01T00:00:00Z", "next_review": "2026-03-02T00:00:00Z"},
        "notes": ["re-planned at 2026-02-18T09:00:00Z", "2026-02-30T25:00:00Z", "CP-001"],
        "dates": ["2026-02-16"],
    }
    found = {(f.path, f.stamp.text) for f in iter_timestamps(data)}
    assert found == {
        (("checkpoints", "entries", 0, "timestamp"), "2026-02-17T10:00:00Z"),
        (("quality_gates", "qg-1", "iterations", 0, "completed_at"), "2026-02-17T11:00:00+01:00"),
        (("dates", 0), "2026-02-16"),
    }


def test_newest_excludes_updated_at_itself_and_the_future() -> None:
    data = {
        "workflow": {"updated_at": "2026-02-17T09:00:00Z", "created_at": "2026-02-17T08:00:00Z"},
        "checkpoints": [{"timestamp": "2999-01-01T00:00:00Z"}],
        "resumption": {"recovery_state": {"updated_at": "2026-02-17T12:00:00Z"}},
    }
    newest = newest_timestamp(data, not_after=NOW)
    assert newest is not None and newest.path == ("workflow", "updated_at")
    unbounded = newest_timestamp(data)
    assert unbounded is not None and unbounded.path == ("checkpoints", 0, "timestamp")
    assert newest_timestamp({"resumption": {"recovery_state": {"updated_at": "2026-02-17T12:00:00Z"}}}) is None


def test_newest_on_a_tie_is_the_first_in_document_order() -> None:
    data = {"a": "2026-02-17T10:00:00Z", "b": ["2026-02-17T11:00:00+01:00"]}
    newest = newest_timestamp(data)
    assert newest is not None and newest.path == ("a",)


def test_a_bare_date_counts_from_the_earliest_moment_it_can_mean() -> None:
    stamp = parse_timestamp("2026-02-18")
    assert stamp is not None
    assert earliest_instant(stamp) == at("2026-02-17T10:00:00Z")  # midnight at UTC+14
    data = {"late": "2026-02-17T11:00:00Z", "day": "2026-02-18"}
    newest = newest_timestamp(data)
    assert newest is not None and newest.path == ("late",)


# --- the rules on small documents -------------------------------------------------------------

CONFIG = Config(root=Path("."))


def v2(updated_at: str = "2026-02-17T10:00:00Z", **recovery: str) -> str:
    fields = {
        "last_checkpoint": "null",
        "current_phase": "1",
        "current_phase_name": '"Audit"',
        "workflow_status": '"ACTIVE"',
        "current_activity": '"phase-1-agent-execution"',
        "next_step": '"Run the audit agent."',
        "updated_at": f'"{updated_at}"',
        **recovery,
    }
    lines = "".join(f"    {key}: {value}\n" for key, value in fields.items())
    return (
        "resumption:\n  recovery_state:\n"
        + lines
        + "  files_to_read: []\n"
        + '  quality_trajectory: {gates_completed: [], gates_remaining: ["qg-1"], score_history: {}}\n'
        + "  defect_summary: {total_defects_found: 0, total_defects_resolved: 0, unresolved_defects: []}\n"
        + "  agent_summaries: {}\n"
        + "  compaction_events: {count: 0, events: []}\n"
    )


def check(text: str, config: Config = CONFIG) -> list[Finding]:
    result = parse_text("ORCHESTRATION.yaml", "orchestration", Format.YAML, text)
    assert result.document is not None, result.issues
    return s_findings(result.document, config)


def line_of(text: str, needle: str) -> int:
    """The 1-based line of the first line of ``text`` that contains ``needle``."""
    return next(n for n, line in enumerate(text.splitlines(), start=1) if needle in line)


def codes(text: str) -> list[tuple[str, int]]:
    return [(f.code, f.position.line) for f in check(text)]


def test_rules_ignore_other_kinds_and_files_without_a_resumption_section() -> None:
    result = parse_text("cx-001-checkpoint.json", "checkpoint", Format.JSON, '{"timestamp": "2999-01-01T00:00:00Z"}')
    assert result.document is not None
    assert s_findings(result.document, CONFIG) == []
    assert check("workflow: {status: COMPLETE}\n") == []
    assert check("resumption: null\n") == []


def test_s001_well_shaped_but_impossible_updated_at() -> None:
    found = check(v2("2026-02-30T25:00:00Z"))
    assert [(f.code, f.position.line, f.position.col) for f in found] == [("S001", 9, 17)]
    assert "2026-02-30T25:00:00Z" in found[0].message and "day is out of range for month" in found[0].message
    assert found[0].severity is Severity.ERROR
    assert found[0].json_path == "$.resumption.recovery_state.updated_at"
    # Near misses: a real leap day, and a badly shaped value that C004 reports (not S001 as well).
    assert codes(v2("2024-02-29T23:59:59.5+14:00")) == []
    assert codes(v2("30 Feb 2026")) == []


def test_s002_future_updated_at_uses_the_monkeypatched_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(core, "utc_now", lambda: NOW)
    found = check(v2("2026-02-17T14:00:00Z"))
    assert [(f.code, f.position.line) for f in found] == [("S002", 9)]
    assert "2 h in the future" in found[0].message and "2026-02-17T12:00:00Z" in found[0].message
    assert codes(v2("2026-02-17T12:05:00Z")) == []  # within the clock skew
    naive = check(v2("2026-02-17T18:00:00"))
    assert [f.code for f in naive] == ["S002"]
    assert "read as UTC" in naive[0].message and "time zone" in naive[0].fix
    monkeypatch.setattr(core, "utc_now", lambda: at("2026-02-17T18:00:00Z"))
    assert codes(v2("2026-02-17T14:00:00Z")) == []


def test_s003_updated_at_older_than_a_change_recorded_elsewhere() -> None:
    text = v2("2026-02-17T10:00:00Z") + textwrap.dedent(
        """\
        checkpoints:
          latest_id: null
          entries: []
        quality_gates:
          qg-1:
            status: "IN_PROGRESS"
            iterations:
              - {iteration: 1, completed_at: "2026-02-17T10:45:00Z"}
        """
    )
    found = check(text)
    assert [(f.code, f.position.line) for f in found] == [("S003", line_of(text, "updated_at"))]
    message = found[0].message
    newer = line_of(text, "completed_at")
    assert f"`quality_gates.qg-1.iterations[0].completed_at` on line {newer}" in message
    assert "2026-02-17T10:45:00Z, 45 min later" in message
    assert f"line {newer}" in found[0].fix
    # The tolerance is the staleness window of the configuration, and its boundary is not stale.
    assert [f.code for f in check(text, Config(root=Path("."), staleness_minutes=45))] == []
    assert [f.code for f in check(text, Config(root=Path("."), staleness_minutes=44))] == ["S003"]


def test_a_bare_date_in_updated_at_is_left_to_c004(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(core, "utc_now", lambda: NOW)
    assert codes(v2("2026-02-16") + 'workflow: {updated_at: "2026-02-16T23:00:00Z"}\n') == []
    assert codes(v2("2026-02-18")) == []


def test_s003_a_bare_date_counts_only_when_it_is_a_later_day_everywhere() -> None:
    assert codes(v2("2026-02-17T10:00:00Z") + 'workflow: {completed_on: "2026-02-18"}\n') == []
    found = check(v2("2026-02-17T09:00:00Z") + 'workflow: {completed_on: "2026-02-18"}\n')
    assert [f.code for f in found] == ["S003"]
    assert "the date 2026-02-18, a later day than updated_at in every time zone" in found[0].message


def test_s004_last_checkpoint_older_than_the_latest() -> None:
    text = v2(last_checkpoint='"CP-001"') + textwrap.dedent(
        """\
        checkpoints:
          latest_id: "CP-002"
          entries:
            - {id: "CP-001", timestamp: "2026-02-17T08:00:00Z"}
            - {id: "CP-002", timestamp: "2026-02-17T09:00:00Z"}
        """
    )
    found = check(text)
    entry, latest = line_of(text, '{id: "CP-001"'), line_of(text, "latest_id")
    assert [(f.code, f.position.line, f.position.col) for f in found] == [("S004", 3, 22)]
    assert found[0].message == (
        f'`recovery_state.last_checkpoint` names "CP-001" (`checkpoints.entries[0].id` on line {entry}), '
        f'but the latest checkpoint is "CP-002" (`checkpoints.latest_id` on line {latest})'
    )
    assert found[0].fix == 'Set last_checkpoint to "CP-002".'
    assert codes(text.replace('last_checkpoint: "CP-001"', 'last_checkpoint: "cp-002"')) == []


def test_s004_null_unknown_and_time_instead_of_id() -> None:
    section = (
        'checkpoints:\n  latest_id: "CP-002"\n  entries:\n    - {id: "CP-002", timestamp: "2026-02-17T09:00:00Z"}\n'
    )
    null = check(v2() + section)
    assert [f.code for f in null] == ["S004"] and null[0].message.startswith("`recovery_state.last_checkpoint` is null")
    unknown = check(v2(last_checkpoint='"CP-005"') + section)
    assert "does not record" in unknown[0].message and "record CP-005" in unknown[0].fix
    timed = check(v2(last_checkpoint='"2026-02-17T09:00:00Z"') + section)
    assert "is the time of the latest checkpoint" in timed[0].message and 'not its id: use "CP-002"' in timed[0].message
    assert timed[0].severity is Severity.WARNING  # the same fact as the id
    assert timed[0].fix == 'Set last_checkpoint to "CP-002" (its id, not its time).'


def test_s004_nothing_recorded_and_ambiguous_sections() -> None:
    empty = "checkpoints:\n  latest_id: null\n  entries: []\n"
    # Unused section beside a free-form label: the normal state of a workflow that never compacted (S015 warning).
    found = check(v2(last_checkpoint='"workflow-complete"') + empty)
    assert [(f.code, f.severity) for f in found] == [("S015", Severity.WARNING)]
    assert "the `checkpoints` section is unused" in found[0].message and "null" in found[0].fix
    assert [f.code for f in check(v2(last_checkpoint='"CP-workflow-complete"') + empty)] == ["S015"]
    # ... but a checkpoint id that the section does not record is still S004's error.
    unrecorded = check(v2(last_checkpoint='"CP-003"') + empty)
    assert [(f.code, f.severity) for f in unrecorded] == [("S004", Severity.ERROR)]
    assert "records no checkpoint" in unrecorded[0].message
    assert codes(v2() + empty) == []
    # No checkpoints section, an unknown shape, or a section that contradicts itself: nothing to compare with.
    assert codes(v2(last_checkpoint='"barrier-4-complete"')) == []
    assert codes(v2(last_checkpoint='"CP-001"') + "checkpoints: {strategy: PHASE}\n") == []
    assert codes(v2(last_checkpoint='"CP-001"') + 'checkpoints: {latest_id: null, entries: [{id: "CP-002"}]}\n') == []
    # A plain list of entries: the last one is the latest.
    assert codes(v2(last_checkpoint='"CP-002"') + 'checkpoints: [{id: "CP-001"}, {id: "CP-002"}]\n') == []


def test_s004_applies_to_v1_sections() -> None:
    text = textwrap.dedent(
        """\
        checkpoints: {latest_id: "CP-002", entries: [{id: "CP-001"}, {id: "CP-002"}]}
        resumption:
          last_checkpoint: "CP-005"
          current_state: "WORKFLOW COMPLETE"
          next_step: "None"
          files_to_read: []
        """
    )
    assert codes(text) == [("S004", 3)]
    assert check(text)[0].message.startswith("`resumption.last_checkpoint` names")


def test_v1_sections_get_only_the_checkpoint_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(core, "utc_now", lambda: NOW)
    text = textwrap.dedent(
        """\
        workflow: {status: "COMPLETE"}
        checkpoints: {latest_id: null, entries: []}
        resumption:
          last_checkpoint: null
          current_state: "ACTIVE"
          next_step: "Close the feature"
          files_to_read: []
          updated_at: "2999-01-01T00:00:00Z"
          agent_summaries: {}
        """
    )
    assert codes(text) == []


def test_s005_workflow_status_against_the_workflow_and_the_activity() -> None:
    text = 'workflow: {status: "COMPLETED"}\n' + v2(current_activity='"WORKFLOW_COMPLETE"')
    both = check(text)
    assert [(f.code, f.position.line) for f in both] == [("S005", line_of(text, "workflow_status"))]
    assert both[0].message == (
        '`recovery_state.workflow_status` is "ACTIVE", but `workflow.status` on line 1 is "COMPLETED" and '
        f'`recovery_state.current_activity` on line {line_of(text, "current_activity")} says "WORKFLOW_COMPLETE"'
    )
    assert both[0].fix.startswith('Set workflow_status to "COMPLETE"')
    paused = check('workflow: {status: "PAUSED"}\n' + v2())
    assert [f.code for f in paused] == ["S005"] and 'Set workflow_status to "PAUSED"' in paused[0].fix
    assert [f.code for f in check(v2(current_activity='"workflow complete, waiting for sign-off"'))] == ["S005"]
    # Near misses: synonyms, unknown workflow statuses, an activity that only mentions completion.
    assert codes('workflow: {status: "IN_PROGRESS"}\n' + v2()) == []
    assert codes('workflow: {status: "PENDING_APPROVAL"}\n' + v2()) == []
    assert codes(v2(current_activity='"waiting for workflow complete signal"')) == []


def test_s006_current_phase_against_the_pipelines() -> None:
    pipelines = textwrap.dedent(
        """\
        pipelines:
          impl:
            current_phase: 2
            phases:
              - {id: 1, name: "Foundation", status: "COMPLETE"}
              - {id: 2, name: "System Validation", status: "IN_PROGRESS"}
        """
    )
    found = check(pipelines + v2())
    assert [(f.code, f.position.line) for f in found] == [("S006", line_of(pipelines + v2(), "    current_phase: 1"))]
    assert found[0].message == (
        "`recovery_state.current_phase` is 1, but `pipelines.impl.current_phase` on line 3 is 2 "
        '(phase 2 is "System Validation", IN_PROGRESS) (compared with pipeline `impl`, the only pipeline); '
        '`recovery_state.current_activity` "phase-1-agent-execution" is about phase 1, not phase 2'
    )
    at_two = {"current_phase": "2", "current_phase_name": '"System Validation"', "current_activity": '"phase-2-qa"'}
    assert codes(pipelines + v2(**at_two)) == []
    two = pipelines + "  docs:\n    current_phase: 2\n"
    assert "compared with all 2 pipelines; the other 1 agree" in check(two + v2())[0].message
    # Pipelines that disagree: a phase one of them is at is not contradicted, one none of them is at is.
    disagree = pipelines + "  docs:\n    current_phase: 1\n"
    assert codes(disagree + v2(current_phase="1", current_phase_name='"Foundation"')) == []
    apart = check(disagree + v2(current_phase="3", current_phase_name="null", current_activity="null"))
    assert [f.code for f in apart] == ["S006"]
    assert apart[0].message.startswith("`recovery_state.current_phase` is 3, but no pipeline is at phase 3: ")
    assert "no `current_pipeline` says which one" in apart[0].message
    # No pipeline declares a current phase: the section must agree with itself.
    assert codes("pipelines:\n  impl:\n    phases: []\n" + v2(current_phase="3", current_activity="null")) == []


def _position(current_pipeline: str = "", **recovery: str) -> str:
    head = f"current_pipeline: {current_pipeline}\n" if current_pipeline else ""
    return (
        head
        + textwrap.dedent(
            """\
        pipelines:
          research:
            current_phase: 3
            phases:
              - {id: 2, name: "Survey", status: "COMPLETE"}
              - {id: 3, name: "Synthesis", status: "IN_PROGRESS"}
          build:
            current_phase: 1
            phases:
              - {id: 1, name: "Scaffold", status: "IN_PROGRESS"}
              - {id: 2, name: "Wire-up", status: "PENDING"}
        """
        )
        + v2(**recovery)
    )


def test_s006_disagreeing_pipelines_are_compared_with_the_current_pipeline() -> None:
    stale = dict(current_phase="2", current_phase_name='"Survey"', current_activity='"phase-2-review"')
    found = check(_position("research", **stale))
    assert [f.code for f in found] == ["S006"]
    assert found[0].message.startswith(
        "`recovery_state.current_phase` is 2, but `pipelines.research.current_phase` on line 4 is 3 "
        '(phase 3 is "Synthesis", IN_PROGRESS) (compared with pipeline `research`, the one `current_pipeline` '
        "on line 1 names)"
    )
    at_three = dict(current_phase="3", current_phase_name='"Synthesis"', current_activity='"phase-3-agents"')
    assert codes(_position("research", **at_three)) == []
    # `workflow.current_pipeline` names it too; the other pipeline is then not compared.
    nested = 'workflow: {current_pipeline: "build"}\n' + _position(**at_three)
    assert "`pipelines.build.current_phase` on line 9 is 1" in check(nested)[0].message
    at_one = dict(current_phase="1", current_phase_name='"Scaffold"', current_activity='"phase-1-agents"')
    assert codes('workflow: {current_pipeline: "build"}\n' + _position(**at_one)) == []


def test_s006_phase_name_of_another_phase() -> None:
    pipelines = textwrap.dedent(
        """\
        pipelines:
          impl:
            current_phase: 2
            phases:
              - {id: 1, name: "Foundation", status: "COMPLETE"}
              - {id: 2, name: "System Validation", status: "IN_PROGRESS"}
        """
    )
    text = pipelines + v2(current_phase="2", current_phase_name='"Foundation (done)"', current_activity='"qg-2"')
    found = check(text)
    assert [(f.code, f.position.line) for f in found] == [("S006", line_of(text, "current_phase_name"))]
    assert found[0].message == (
        '`recovery_state.current_phase_name` "Foundation (done)" is the name of phase 1 "Foundation" '
        "(`pipelines.impl.phases[0]` on line 5, COMPLETE), not of phase 2 (compared with pipeline `impl`, the only "
        "pipeline)"
    )
    # Notes in parentheses and a "Phase 2:" label are not part of the name; an unknown name is not compared.
    for name in ('"Phase 2: System validation"', '"System Validation (ST-003)"', '"Validation work"'):
        assert codes(pipelines + v2(current_phase="2", current_phase_name=name, current_activity='"qg-2"')) == []
    # Without a declared pipeline phase, the name must be the section's own phase's.
    undeclared = pipelines.replace("    current_phase: 2\n", "")
    assert codes(undeclared + v2(current_phase="2", current_phase_name='"Foundation"', current_activity="null"))


def test_s006_phase_zero_with_nothing_started_means_the_first_phase_is_next() -> None:
    pipelines = textwrap.dedent(
        """\
        pipelines:
          a:
            current_phase: 0
            phases:
              - {id: 1, name: "Research", status: "PENDING"}
              - {id: 2, name: "Design", status: "BLOCKED"}
          b:
            current_phase: 0
            status: "NOT_STARTED"
            phases:
              - {id: 1, name: "Requirements", status: "PENDING"}
        """
    )
    first = dict(current_phase_name='"Research / Requirements"', current_activity='"phase-1-agent-execution"')
    assert codes(pipelines + v2(current_phase="1", **first)) == []
    assert codes(pipelines + v2(current_phase="0", current_phase_name="null", current_activity="null")) == []
    late = check(pipelines + v2(current_phase="3", current_phase_name="null", current_activity="null"))
    assert [f.code for f in late] == ["S006"]
    assert late[0].message == (
        "`recovery_state.current_phase` is 3, but `pipelines.a.current_phase` on line 3 is 0: no phase has "
        'started yet, the next is phase 1 "Research" (compared with all 2 pipelines; the other 1 agree)'
    )
    # A real phase 0 (ids that start at 0) is a phase like any other.
    real_zero = pipelines[: pipelines.index("  b:")].replace('{id: 2, name: "Design"', '{id: 0, name: "Kick-off"')
    found = check(real_zero + v2(current_phase="1", current_phase_name='"Research"', current_activity="null"))
    assert [f.code for f in found] == ["S006"] and 'is 0 (phase 0 is "Kick-off", BLOCKED)' in found[0].message


def test_s005_workflow_status_against_the_pipelines_when_the_workflow_has_none() -> None:
    running = "pipelines:\n  p:\n    status: ACTIVE\n    phases:\n      - {id: 1, name: Audit, status: IN_PROGRESS}\n"
    found = [f for f in check(running + v2(workflow_status='"COMPLETE"')) if f.code != "S010"]
    assert [f.code for f in found] == ["S005"]
    assert "has not finished (compared with pipeline `p`, the only pipeline)" in found[0].message
    done = running.replace("status: ACTIVE", "status: COMPLETE").replace("IN_PROGRESS", "COMPLETE")
    assert [f.code for f in check(done + v2())] == ["S005"]
    assert [c for c, _line in codes(done + v2(workflow_status='"COMPLETE"')) if c != "S010"] == []
    # A `workflow.status` is the authority: the pipelines are not consulted.
    assert codes('workflow: {status: "ACTIVE"}\n' + done + v2()) == []


def trajectory(body: str, **recovery: str) -> str:
    text = v2(**recovery)
    start = text.index("  quality_trajectory:")
    end = text.index("  defect_summary:")
    return text[:start] + "  quality_trajectory:\n" + textwrap.indent(textwrap.dedent(body), "    ") + text[end:]


def test_s007_gates_completed_against_gate_statuses() -> None:
    gates = 'quality_gates:\n  qg-1: {status: "PASS"}\n  qg-2: {status: "IN_PROGRESS"}\n  qg-3: {status: "FAIL"}\n'
    text = gates + trajectory('gates_completed: []\ngates_remaining: ["qg-1", "qg-2"]\nscore_history: {}\n')
    stale = check(text)
    assert [(f.code, f.position.line) for f in stale] == [("S007", line_of(text, "gates_completed"))]
    assert stale[0].message == (
        "`quality_trajectory.gates_completed` does not list the passed gate(s) qg-1 "
        "(`quality_gates.qg-1.status` on line 2 is PASS); `gates_remaining` still lists qg-1"
    )
    early = check(
        gates + trajectory('gates_completed: ["qg-1", "QG-2", "qg-3"]\ngates_remaining: []\nscore_history: {}\n')
    )
    assert [f.code for f in early] == ["S007"]
    assert "have not passed: qg-2" in early[0].message and "qg-3 (`quality_gates.qg-3.status` on line 4 is FAIL)" in (
        early[0].message
    )
    assert (
        codes(gates + trajectory('gates_completed: ["QG-1"]\ngates_remaining: ["qg-2", "qg-3"]\nscore_history: {}\n'))
        == []
    )


def test_trajectory_rules_skip_a_trajectory_that_names_gates_otherwise() -> None:
    """030-like: the trajectory tracks its own gate names, none of which `quality_gates` knows."""
    gates = 'quality_gates:\n  qg-1: {status: "PASS", iterations: [{score: 0.9}, {score: 0.95}]}\n'
    other = (
        'gates_completed: []\ngates_remaining: ["gate-1-research"]\n'
        "score_history: {ps-architect-001: [0.93, 0.95]}\ntotal_iterations_used: 7\n"
    )
    assert codes(gates + trajectory(other)) == []
    # Naming the same gate with other case and punctuation is the same naming.
    same = 'gates_completed: []\ngates_remaining: ["QG_1"]\nscore_history: {}\ntotal_iterations_used: 7\n'
    assert sorted(code for code, _line in codes(gates + trajectory(same))) == ["S007", "S008", "S009"]
    # A trajectory that names nothing at all is compared (it was never maintained).
    empty = "gates_completed: []\ngates_remaining: []\nscore_history: {}\n"
    assert sorted(code for code, _line in codes(gates + trajectory(empty))) == ["S007", "S008"]


def test_the_gate_reader_reads_the_three_shapes_of_quality_gates() -> None:
    """The S rules read `quality_gates` through the core reader (no copy of it in the rule module)."""
    assert not hasattr(rules, "gates_view") and not hasattr(rules, "checkpoints_view")
    by_id = {"quality_gates": {"threshold": 0.92, "qg-1": {"status": "PASS", "iterations": [{"score": 0.9}]}}}
    listed = {"quality_gates": [{"id": "QG-0", "status": "COMPLETE", "iterations_completed": 2}]}
    nested = {"quality_gates": {"threshold": 0.92, "gates": [{"id": "qg-1", "status": "PENDING"}]}}
    assert [(g.id, g.path, g.status, g.iterations, g.scores) for g in orchestration.gates(by_id)] == [
        ("qg-1", ("quality_gates", "qg-1"), "PASS", 1, [0.9])
    ]
    assert [(g.id, g.path, g.iterations, g.scores) for g in orchestration.gates(listed)] == [
        ("QG-0", ("quality_gates", 0), 2, None)
    ]
    assert [(g.id, g.path, g.status) for g in orchestration.gates(nested)] == [
        ("qg-1", ("quality_gates", "gates", 0), "PENDING")
    ]
    assert orchestration.gates({"quality_gates": "see QG report"}) == []


def test_s008_score_history_against_iteration_history() -> None:
    gates = textwrap.dedent(
        """\
        quality_gates:
          qg-1:
            status: "PASS"
            iteration_history:
              - {iteration: 1, score: 0.825}
              - {iteration: 2, score: 0.916}
              - {iteration: 3, score: 0.941}
        """
    )
    text = gates + trajectory('gates_completed: ["qg-1"]\ngates_remaining: []\nscore_history: {qg-1: [0.825]}\n')
    short = check(text)
    assert [(f.code, f.position.line) for f in short] == [("S008", line_of(text, "score_history"))]
    assert short[0].message == (
        "`quality_trajectory.score_history.qg-1` has 1 score(s) [0.825], but `quality_gates.qg-1.iteration_history` "
        "on line 4 records 3 iteration(s) scored [0.825, 0.916, 0.941]"
    )
    wrong = check(
        gates
        + trajectory('gates_completed: ["qg-1"]\ngates_remaining: []\nscore_history: {qg-1: [0.825, 0.93, 0.941]}\n')
    )
    assert "gives iteration 2 the score 0.93" in wrong[0].message
    absent = check(gates + trajectory('gates_completed: ["qg-1"]\ngates_remaining: []\nscore_history: {}\n'))
    assert [f.code for f in absent] == ["S008"] and "no entry for qg-1" in absent[0].message
    rounded = 'gates_completed: ["qg-1"]\ngates_remaining: []\nscore_history: {QG-1: [0.83, 0.92, 0.94]}\n'
    assert codes(gates + trajectory(rounded)) == []
    unscored = gates.replace("score: 0.916", "verdict: REVISE")
    assert (
        codes(unscored + trajectory('gates_completed: ["qg-1"]\ngates_remaining: []\nscore_history: {qg-1: [1]}\n'))
        == []
    )


def test_s009_total_iterations_against_the_gates() -> None:
    gates = textwrap.dedent(
        """\
        quality_gates:
          qg-1: {status: "PASS", iterations: [{score: 0.88}, {score: 0.93}]}
          qg-2: {status: "PASS", iterations_completed: 3}
          qg-3: {status: "PENDING"}
        """
    )
    body = 'gates_completed: ["qg-1", "qg-2"]\ngates_remaining: ["qg-3"]\nscore_history: {{qg-1: [0.88, 0.93]}}\n'
    text = gates + trajectory(body.format() + "total_iterations_used: 4\n")
    found = check(text)
    assert [(f.code, f.position.line) for f in found] == [("S009", line_of(text, "total_iterations_used"))]
    assert found[0].message == (
        "`quality_trajectory.total_iterations_used` is 4, but the gates in `quality_gates` on line 1 record "
        "5 iteration(s) (qg-1: 2, qg-2: 3, qg-3: 0)"
    )
    assert found[0].fix == "Set total_iterations_used to 5."
    assert codes(gates + trajectory(body.format() + "total_iterations_used: 5\n")) == []
    # A started gate that does not say how many iterations it ran: not compared.
    unknown = gates.replace('qg-2: {status: "PASS", iterations_completed: 3}', 'qg-2: {status: "PASS"}')
    assert codes(unknown + trajectory(body.format() + "total_iterations_used: 4\n")) == []


def test_s010_open_gates_after_completion() -> None:
    body = 'gates_completed: []\ngates_remaining: ["gate-1", "gate-2"]\ncurrent_gate: "gate-2"\nscore_history: {}\n'
    text = trajectory(body, workflow_status='"COMPLETE"', current_activity='"idle"')
    found = check(text)
    assert [(f.code, f.position.line) for f in found] == [("S010", line_of(text, "gates_remaining"))]
    assert found[0].message == (
        '`quality_trajectory` still lists 2 remaining gate(s) (gate-1, gate-2) and has the current gate "gate-2", '
        f"but `recovery_state.workflow_status` on line {line_of(text, 'workflow_status')} is COMPLETE"
    )
    only_current = 'gates_completed: []\ngates_remaining: []\ncurrent_gate: "gate-2"\nscore_history: {}\n'
    text = trajectory(only_current, workflow_status='"COMPLETE"', current_activity='"idle"')
    assert codes(text) == [("S010", line_of(text, "current_gate"))]
    assert codes(trajectory(body)) == []  # ACTIVE: open gates are expected
    done = 'gates_completed: ["gate-1"]\ngates_remaining: []\ncurrent_gate: null\nscore_history: {}\n'
    assert codes(trajectory(done, workflow_status='"COMPLETE"', current_activity='"idle"')) == []


AGENTS = textwrap.dedent(
    """\
    pipelines:
      main:
        phases:
          - id: 1
            agents:
              - {id: "audit-executor", status: "COMPLETE"}
              - {id: "license-replacer", status: "IN_PROGRESS"}
          - id: 2
            agents:
              header-applicator: {status: "PENDING"}
              header-verifier: {status: "FAILED"}
    """
)


def with_summaries(summaries: str) -> str:
    return AGENTS + v2().replace("  agent_summaries: {}\n", "  agent_summaries:" + summaries)


def test_s011_summary_for_an_agent_that_has_not_finished() -> None:
    text = with_summaries(
        '\n    audit-executor: "PASS. Done."\n    license-replacer: "DONE. Replaced."\n'
        '    header-verifier: "FAILED. Crashed."\n    someone-else: "DONE."\n'
    )
    found = check(text)
    assert [(f.code, f.position.line) for f in found] == [("S011", line_of(text, "license-replacer: "))]
    assert found[0].message == (
        "`agent_summaries.license-replacer` summarises agent license-replacer, but "
        "`pipelines.main.phases[0].agents[1].status` on line 7 is IN_PROGRESS"
    )


def test_s012_completed_agents_without_summaries() -> None:
    text = with_summaries(" {}\n")
    found = check(text)
    assert [(f.code, f.position.line, f.position.col) for f in found] == [("S012", line_of(text, "agent_summaries"), 3)]
    assert found[0].severity is Severity.WARNING
    assert found[0].message == (
        "`agent_summaries` has no entry for 1 agent(s) that `pipelines` marks complete: audit-executor (line 6)"
    )
    assert codes(with_summaries('\n    AUDIT-EXECUTOR: "PASS. Done."\n')) == []


def test_s012_lists_a_few_agents_and_counts_the_rest() -> None:
    agents = "".join(f'      - {{id: "agent-{n}", status: "DONE"}}\n' for n in range(1, 6))
    text = "pipelines:\n  main:\n    phases:\n    - id: 1\n      agents:\n" + agents + v2()
    found = check(text)
    assert [f.code for f in found] == ["S012"]
    assert "5 agent(s)" in found[0].message and "agent-3 (line 8) and 2 more" in found[0].message


# --- fixtures and the real corpus ---------------------------------------------------------------


def test_every_s_rule_is_documented_with_why_example_and_fix() -> None:
    from ctxres.linters.rules import all_rules

    s_rules = {code: rule for code, rule in all_rules().items() if code.startswith("S")}
    assert sorted(s_rules) == [
        f"S{n:03d}" for n in range(1, 18)
    ]  # S013: tests/commands/test_stale_git.py; S015: issue 13; S016, S017: issue 26
    for rule in s_rules.values():
        for heading in ("## Why", "## Example", "## Fix"):
            assert heading in rule.explanation, (rule.code, heading)


@pytest.fixture(scope="module")
def corpus_findings() -> list[Finding]:
    """What the S rules find in the corpus's workflow files, the warnings of COMPLETE workflows included
    (`ctxres check` does not report those: finished work, `test_finished_work_keeps_its_s_errors_only`)."""
    config = Config(root=CORPUS)
    found: list[Finding] = []
    for artifact in discover([CORPUS], config, CORPUS):
        if artifact.kind == "orchestration":
            document = load_file(artifact.fs_path, artifact.kind, artifact.format, None, artifact.display).document
            if document is not None:
                found += s_findings(document, config)
    return sorted(found, key=Finding.sort_key)


def test_finished_work_keeps_its_s_errors_only(corpus_findings: list[Finding]) -> None:
    report = engine.run([CORPUS], Config(root=CORPUS), cwd=CORPUS)
    checked = [f for f in report.findings if f.code.startswith("S")]
    finished = {f.path for f in corpus_findings if orchestration.workflow_status_of(_data(f.path)) == "COMPLETE"}
    assert finished  # 006, 008, 014, 023, 030 and the history versions
    expected = [f for f in corpus_findings if f.path not in finished or f.severity is Severity.ERROR]
    assert [(f.path, f.code, f.position.line) for f in checked] == [(f.path, f.code, f.position.line) for f in expected]
    assert len(corpus_findings) - len(checked) == 5  # 023's S003, 008's S004, 030's S012, 006's and 014's S015


def _data(path: str) -> object:
    document = parse_text(path, "orchestration", Format.YAML, (CORPUS / path).read_text("utf-8")).document
    return document.data if document is not None else None


def _rows(findings: list[Finding], name: str) -> list[tuple[int, str, str]]:
    return [(f.position.line, f.code, f.message) for f in findings if Path(f.path).name == name]


def test_corpus_032_exact_findings(corpus_findings: list[Finding]) -> None:
    """workflow.status COMPLETED and current_activity WORKFLOW_COMPLETE, but workflow_status ACTIVE;
    21 agents COMPLETED with an empty agent_summaries. Its missing updated_at is C001's alone."""
    assert _rows(corpus_findings, "032-PROJ-009-llm-deception-research.yaml") == [
        (
            579,
            "S005",
            '`recovery_state.workflow_status` is "ACTIVE", but `workflow.status` on line 16 is "COMPLETED" and '
            '`recovery_state.current_activity` on line 580 says "WORKFLOW_COMPLETE"',
        ),
        (
            625,
            "S012",
            "`agent_summaries` has no entry for 21 agent(s) that `pipelines` marks complete: ps-researcher-001 "
            "(line 57), ps-researcher-002 (line 63), ps-investigator-001 (line 69) and 18 more",
        ),
    ]


def test_corpus_030_exact_findings(corpus_findings: list[Finding]) -> None:
    """Schema-valid, but CP-006 (the final checkpoint) never reached last_checkpoint, the trajectory still
    holds its planned gates, and no completed agent has a summary."""
    rows = _rows(corpus_findings, "030-PROJ-008-agentic-security--agentic-sec-20260222-001.yaml")
    assert [(line, code) for line, code, _m in rows] == [(875, "S004"), (906, "S010"), (943, "S012")]
    assert rows[0][2] == (
        '`recovery_state.last_checkpoint` names "CP-005" (`checkpoints.entries[4].id` on line 708), '
        'but the latest checkpoint is "CP-006" (`checkpoints.latest_id` on line 667)'
    )
    assert "5 remaining gate(s)" in rows[1][2] and "`recovery_state.workflow_status` on line 878" in rows[1][2]
    assert "no entry for 21 agent(s)" in rows[2][2]


def test_corpus_023_exact_findings(corpus_findings: list[Finding]) -> None:
    rows = _rows(corpus_findings, "023-PROJ-004-context-resilience--feat001-impl-20260220-001.yaml")
    assert [(line, code) for line, code, _m in rows] == [(262, "S006"), (268, "S003")]
    # a decision logged in the section after its last update: updated_at not bumped, a warning
    assert (
        "`decision_log[1].timestamp` on line 317, inside the resumption section, records 2026-02-20T22:00:00Z"
        in rows[1][2]
    )
    assert "updated_at was not bumped" in rows[1][2]
    assert [
        f.severity
        for f in corpus_findings
        if f.path.endswith("023-PROJ-004-context-resilience--feat001-impl-20260220-001.yaml") and f.code == "S003"
    ] == [Severity.WARNING]


def test_corpus_v1_last_checkpoint_findings(corpus_findings: list[Finding]) -> None:
    v1 = [
        (Path(f.path).name[:3], f.position.line)
        for f in corpus_findings
        if f.code == "S004" and not f.path.endswith("030-PROJ-008-agentic-security--agentic-sec-20260222-001.yaml")
    ]
    assert v1 == [("003", 888), ("008", 2611)]
    # 006 and 014 never used their checkpoints section: a warning of its own, not S004.
    unused = [(Path(f.path).name[:3], f.position.line, f.severity) for f in corpus_findings if f.code == "S015"]
    assert unused == [("006", 774, Severity.WARNING), ("014", 1096, Severity.WARNING)]


def test_corpus_clean_files_have_no_s_findings(corpus_findings: list[Finding]) -> None:
    flagged = {Path(f.path).name for f in corpus_findings}
    for name in (
        "002-PROJ-001-oss-release.yaml",
        "021-PROJ-003-je-ne-sais-quoi.yaml",
        "024-PROJ-004-context-resilience--spike002-cli-integration-20260219-001.yaml",
        "PROJ-002__ps-orchestration-results__PS-ORCH-010__corrupted-state.yaml",
    ):
        assert name not in flagged
    # Two versions of PROJ-003 say "Workflow not started" while phase 1 is IN_PROGRESS (S014).
    history = [
        (Path(f.path).name, f.position.line, f.code) for f in corpus_findings if Path(f.path).parts[0] == "history"
    ]
    assert sorted(history) == [
        ("20260219T153958Z-97b10396.yaml", 733, "S014"),
        ("20260219T172440Z-66652b24.yaml", 738, "S014"),
    ]
    assert len(corpus_findings) == 14


def test_json_paths_of_corpus_findings_point_at_what_they_name(corpus_findings: list[Finding]) -> None:
    for finding in corpus_findings:
        assert finding.json_path.startswith("$.resumption."), finding
    assert json.dumps([f.json_path for f in corpus_findings])  # serialisable for the reporters


def test_merged_compaction_times_are_left_to_the_acknowledgement_rules() -> None:
    """One problem, one finding: an acknowledged event newer than updated_at is A011's, not also S003's."""
    from ctxres.config import load_config
    from ctxres.linters.checking import engine

    from ..conftest import FIXTURES

    case = FIXTURES / "rules" / "A011" / "bad"
    codes = [f.code for f in engine.run([case], load_config(case), cwd=case).findings]
    assert codes == ["A011"]


# --- S014: what a v1.0 section's prose says, against the state ----------------------------------


def v1(workflow: str, current_state: str, next_step: str = "Close the feature.", phases: str = "") -> str:
    listed = phases or (
        '      - {id: 1, name: "Research", status: "COMPLETE"}\n'
        '      - {id: 2, name: "Design", status: "COMPLETE"}\n'
        '      - {id: 3, name: "Build", status: "COMPLETE"}\n'
    )
    return (
        f'workflow:\n  status: "{workflow}"\n'
        "pipelines:\n  main:\n    phases:\n" + listed + "resumption:\n  last_checkpoint: null\n"
        f'  current_state: "{current_state}"\n  next_step: "{next_step}"\n  files_to_read: []\n'
    )


EARLY = (
    '      - {id: 1, name: "Research", status: "IN_PROGRESS"}\n'
    '      - {id: 2, name: "Design", status: "PENDING"}\n'
    '      - {id: 3, name: "Build", status: "PENDING"}\n'
)


def test_s014_not_started_prose_under_a_complete_workflow() -> None:
    text = v1("COMPLETE", "Workflow initialized, ready to execute Phase 1", "Execute Phase 1 agents")
    found = check(text)
    assert [(f.code, f.position.line, f.severity) for f in found] == [
        ("S014", line_of(text, "current_state"), Severity.ERROR)
    ]
    assert found[0].message == (
        '`resumption.current_state` on line 11 says "Workflow initialized, ready to execute Phase 1" and '
        '`resumption.next_step` on line 12 says "Execute Phase 1 agents", but `workflow.status` on line 2 is '
        'COMPLETE and phase 1 "Research" (`pipelines.main.phases[0]` on line 6) is COMPLETE'
    )


def test_s014_complete_prose_under_an_active_workflow() -> None:
    for prose in ("WORKFLOW COMPLETE. All deliverables done.", "All 3 phases complete, gates passed."):
        found = check(v1("ACTIVE", prose, phases=EARLY))
        assert [f.code for f in found] == ["S014"], prose
        assert '`workflow.status` on line 2 is ACTIVE and phase 1 "Research"' in found[0].message
        assert found[0].message.endswith("is IN_PROGRESS")


def test_s014_a_phase_that_finished_long_ago() -> None:
    later = (
        '      - {id: 1, name: "Research", status: "COMPLETE"}\n'
        '      - {id: 2, name: "Design", status: "IN_PROGRESS"}\n'
    )
    found = check(v1("ACTIVE", "Research planned.", "Next: Phase 1 Research agents", phases=later))
    assert [(f.code, f.position.line) for f in found] == [("S014", 11)]
    assert found[0].message.endswith(
        'but phase 1 "Research" (`pipelines.main.phases[0]` on line 6) is COMPLETE, and phase 2 "Design" '
        "(`pipelines.main.phases[1]` on line 7) is IN_PROGRESS"
    )
    # "not started" while a phase runs: the update at phase start was forgotten.
    assert [f.code for f in check(v1("ACTIVE", "Workflow not started.", phases=EARLY))] == ["S014"]


def test_s014_is_silent_on_prose_that_agrees_or_says_nothing_clear() -> None:
    pending = EARLY.replace("IN_PROGRESS", "PENDING")
    quiet = [
        v1("ACTIVE", "Workflow initialized. Phase 1 READY to execute.", "Execute Phase 1 agents", phases=pending),
        v1("ACTIVE", "Phase 1 in progress.", "Execute Phase 1 agents", phases=EARLY),
        v1("COMPLETE", "WORKFLOW COMPLETE. All 3 phases done.", "None - workflow finished."),
        # All phases done but the final gate is pending: the workflow is still ACTIVE, rightly.
        v1("ACTIVE", "All 3 phases COMPLETE. QG-Final pending.", "Run QG-Final."),
        # Just finished phase 2, its gate runs: "execute phase 2" is not long stale.
        v1("ACTIVE", "Phase 2 done.", "Execute Phase 2 review", phases=EARLY.replace("IN_PROGRESS", "COMPLETE")),
        # Conditions and orders are not statements; vague prose is not compared.
        v1("ACTIVE", "Phase 1 running.", "When the workflow is complete, close FEAT-1.", phases=EARLY),
        v1("ACTIVE", "Phase 1 running.", "Mark the workflow complete after QG-1.", phases=EARLY),
        v1("COMPLETE", "Wrapping up.", "Archive the notes."),
        v1("COMPLETE", "Workflow initialized on 2026-02-01; all phases completed since."),
        # A workflow.status that is the authority says COMPLETE: pipelines left behind are not the section's fault.
        v1("COMPLETE", "WORKFLOW COMPLETE.", phases=EARLY),
    ]
    for text in quiet:
        assert [f.code for f in check(text) if f.code == "S014"] == [], text


def _awaiting(current_status: str, gate_status: str, later: str = "") -> str:
    phases = (
        '      - {id: 1, name: "Research", status: "COMPLETE"}\n'
        f'      - {{id: 2, name: "Build", status: "{current_status}"}}\n{later}'
    )
    text = v1("ACTIVE", "All phases complete, awaiting approval.", "Wait for the approval of QG-2.", phases=phases)
    text = text.replace("    phases:\n", "    current_phase: 2\n    phases:\n", 1)
    return text.replace("resumption:\n", f'quality_gates:\n  QG-2: {{status: "{gate_status}"}}\nresumption:\n')


def test_s014_all_phases_complete_awaiting_approval_is_a_wait_state() -> None:
    # The gate (or the phase itself) awaits approval: the current phase may still read IN_PROGRESS or PENDING.
    for current, gate in [
        ("IN_PROGRESS", "AWAITING_APPROVAL"),
        ("PENDING", "PENDING_APPROVAL"),
        ("IN_PROGRESS", "awaiting review"),
        ("AWAITING_APPROVAL", "PENDING"),
    ]:
        assert [f.code for f in check(_awaiting(current, gate))] == [], (current, gate)


def test_s014_awaiting_approval_still_cites_the_phase_that_is_stale() -> None:
    later = '      - {id: 3, name: "Release", status: "PENDING"}\n'
    found = check(_awaiting("IN_PROGRESS", "AWAITING_APPROVAL", later))
    assert [f.code for f in found] == ["S014"]
    assert found[0].message.endswith(
        'is ACTIVE and phase 3 "Release" (`pipelines.main.phases[2]` on line 9) is PENDING'
    )
    # No gate awaits approval (it was approved, or failed): the phase that runs is the stale one.
    for gate in ("APPROVED", "REJECTED", "PENDING"):
        found = check(_awaiting("IN_PROGRESS", gate))
        assert [f.code for f in found] == ["S014"], gate
        assert 'phase 2 "Build"' in found[0].message
    # The prose does not say it waits: "all phases complete" is a plain claim, and phase 2 contradicts it.
    text = _awaiting("IN_PROGRESS", "AWAITING_APPROVAL").replace(", awaiting approval", "")
    assert [f.code for f in check(text)] == ["S014"]


def test_s014_phases_are_compared_in_the_pipeline_current_pipeline_names() -> None:
    text = textwrap.dedent(
        """\
        current_pipeline: docs
        workflow: {status: ACTIVE}
        pipelines:
          code:
            phases:
              - {id: 1, name: "Spike", status: "PENDING"}
          docs:
            phases:
              - {id: 1, name: "Outline", status: "COMPLETE"}
              - {id: 2, name: "Draft", status: "IN_PROGRESS"}
        resumption:
          current_state: "Ready to start Phase 1 (outline)."
          next_step: "Write the outline."
          files_to_read: []
        """
    )
    found = check(text)
    assert [f.code for f in found] == ["S014"]
    assert found[0].message.endswith("(compared with pipeline `docs`, the one `current_pipeline` on line 1 names)")
    # Without current_pipeline, phase 1 must be long complete in every pipeline: `code` has not started it.
    assert [f.code for f in check(text.replace("current_pipeline: docs\n", ""))] == []
    # v2.0 sections are not read as prose.
    assert "S014" not in {f.code for f in check(v1("COMPLETE", "x").replace("resumption:", "old:") + v2())}


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        ("S006/bad-current-pipeline", "(compared with pipeline `backend`, the one `current_pipeline` on line 3 names)"),
        ("S006/bad-none-started", 'no phase has started yet, the next is phase 1 "Literature Survey"'),
        ("S006/bad-phase-name", '"Schema" is the name of phase 1 "Schema"'),
        (
            "S006/bad-recovery-current-pipeline",
            "(compared with pipeline `backend`, the one `recovery_state.current_pipeline` on line 19 names)",
        ),
        ("S006/bad-pipeline-phase-lags", '`pipelines.main.current_phase` on line 5 is 2, but phase 2 "Migration"'),
        ("S014/bad-not-started", '`workflow.status` on line 5 is COMPLETE and phase 1 "Research"'),
        ("S014/bad-complete", '`workflow.status` on line 4 is ACTIVE and phase 2 "Migration"'),
        ("S014/bad-phase-long-complete", 'phase 1 "Audit" (`pipelines.main.phases[0]` on line 10) is COMPLETE'),
        ("S014/bad-awaiting-approval-later-phase", 'is ACTIVE and phase 4 "Announcement"'),
        ("S014/bad-awaiting-approval-gate-passed", 'is ACTIVE and phase 3 "Release"'),
    ],
)
def test_position_fixtures_say_what_they_compared(case: str, expected: str) -> None:
    from ctxres.config import load_config

    from ..conftest import FIXTURES

    folder = FIXTURES / "rules" / case
    found = [f for f in engine.run([folder], load_config(folder), cwd=folder).findings if f.code == case[:4]]
    assert len(found) == 1 and expected in found[0].message, found


def test_ids_remembered_answer_as_computed() -> None:
    import re

    for value in ["QG-1", "qg_1", "Qg1", "ÄgENT 7", "x" * 300, "", "-"] * 2:
        assert rules.id_key(value) == re.sub(r"[^0-9a-z]", "", value.casefold())
    assert rules.id_key(None) == rules.id_key(3) == ""


def test_some_of_shows_the_first_items_only() -> None:
    shown: list[int] = []

    def show(item: int) -> str:
        shown.append(item)
        return f"<{item}>"

    items = list(range(7))
    assert rules.some_of(items, show) == rules.some([f"<{i}>" for i in items])
    assert shown == items[: rules.LISTED]
    assert rules.some_of([1, 2], str) == rules.some(["1", "2"])


def test_s006_blames_a_pipeline_current_phase_that_lags_its_phases() -> None:
    from ..conftest import FIXTURES

    text = (FIXTURES / "rules" / "S006" / "bad-pipeline-phase-lags" / "ORCHESTRATION.yaml").read_text()
    found = [f for f in check(text) if f.code == "S006"]
    assert [(f.json_path, f.position.line) for f in found] == [("$.pipelines.main.current_phase", 5)]
    assert "lags its phases (`recovery_state.current_phase` 3 agrees with them" in found[0].message
    # The section's name still follows the old phase: a second finding, on the section's name.
    stale_name = text.replace('current_phase_name: "Verification"', 'current_phase_name: "Migration"')
    found = [f for f in check(stale_name) if f.code == "S006"]
    assert [f.json_path for f in found] == [
        "$.pipelines.main.current_phase",
        "$.resumption.recovery_state.current_phase_name",
    ]
    # The section agrees with the lagging field: the section is compared as before (no finding on it).
    both_lag = text.replace("    current_phase: 3\n", "    current_phase: 2\n").replace(
        '"Verification"\n', '"Migration"\n'
    )
    both_lag = both_lag.replace("phase-3-agent", "phase-2-agent").replace(
        'current_phase_name: "Verification"', 'current_phase_name: "Migration"'
    )
    assert [f.code for f in check(both_lag) if f.code == "S006"] == []
    # Two phases run after the finished one: which one the pipeline is at is not clear, the section is compared.
    two = text.replace(
        '- {id: 3, name: "Verification", status: "IN_PROGRESS"}',
        '- {id: 3, name: "Verification", status: "IN_PROGRESS"}\n      - {id: 4, name: "Docs", status: "IN_PROGRESS"}',
    )
    assert [f.json_path for f in check(two) if f.code == "S006"] == ["$.resumption.recovery_state.current_phase"]


# --- S016: checkpoints.latest_id against the workflow's own folder ---------------------------------


def _s016(folder: Path) -> list[Finding]:
    from ctxres.config import load_config

    return [f for f in engine.run([folder], load_config(folder), cwd=folder).findings if f.code == "S016"]


def test_s016_lists_the_later_checkpoints_of_the_folder(tmp_path: Path) -> None:
    from ..conftest import FIXTURES

    (tmp_path / "ORCHESTRATION.yaml").write_text(
        (FIXTURES / "rules" / "S016" / "good" / "ORCHESTRATION.yaml").read_text()
    )
    assert _s016(tmp_path) == []  # a folder with nothing else: the normal state
    for rel in ["CP-003.md", "a/CP-004.json", "a/b/cp-5-notes.md", "a/b/c/CP-006.md", "a/b/c/d/CP-009.md"]:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x\n")
    (found,) = _s016(tmp_path)
    assert found.severity is Severity.ERROR and found.position.line == 3
    # three levels of sub-folders are read (CP-009 is deeper); the first three names and how many more
    assert found.message.endswith(
        "records later checkpoints that the section does not: CP-003.md, a/CP-004.json, a/b/cp-5-notes.md and 1 more"
    )
    # Only a name deeper than three levels left: nothing is reported.
    for rel in ["CP-003.md", "a/CP-004.json", "a/b/cp-5-notes.md", "a/b/c/CP-006.md"]:
        (tmp_path / rel).unlink()
    assert _s016(tmp_path) == []


# --- S017: a COMPLETE v2.0 section that says work is open ---------------------------------------------


def _complete_v2(**recovery: str) -> str:
    from ..conftest import FIXTURES

    text = (FIXTURES / "rules" / "S017" / "good" / "ORCHESTRATION.yaml").read_text()
    for key, value in recovery.items():
        text = re.sub(rf"(?m)^(    {key}: ).*$", lambda m, v=value: m.group(1) + v, text)
    return text


def test_s017_prose_that_says_not_started_or_phase_ready_under_complete() -> None:
    for field, prose in [
        ("next_step", '"Execute Phase 1 agents"'),
        ("next_step", '"Next: Phase 2 drafting"'),
        ("current_activity", '"phase-1-ready"'),
        ("current_activity", '"Workflow not started"'),
        ("current_activity", '"Phase 2 ready to start"'),
    ]:
        found = [f for f in check(_complete_v2(**{field: prose})) if f.code == "S017"]
        assert [(f.json_path, f.severity) for f in found] == [
            (f"$.resumption.recovery_state.{field}", Severity.ERROR)
        ], prose
        assert found[0].message.startswith("`recovery_state.workflow_status` on line 10 is COMPLETE, but "), prose


def test_s017_is_silent_on_a_finished_workflow_and_on_live_ones() -> None:
    quiet = [
        _complete_v2(),
        _complete_v2(next_step='"Archive the workflow; the phase 1 notes were merged into the guide."'),
        _complete_v2(current_activity='"workflow-complete (phase 3 done)"'),
        # A live workflow: "phase 2 ready" and an agent under revision are its normal state.
        _complete_v2(workflow_status='"ACTIVE"', next_step='"Phase 2 ready to start"').replace(
            'status: "COMPLETE"', 'status: "ACTIVE"'
        ),
    ]
    for text in quiet:
        assert [f for f in check(text) if f.code == "S017"] == [], text


def test_s017_compares_workflow_status_when_the_section_has_none_of_the_enum() -> None:
    text = _complete_v2(
        workflow_status='"<ctxres migrate: not inferred; set this>"', next_step='"Execute Phase 1 agents"'
    )
    found = [f for f in check(text) if f.code == "S017"]
    assert len(found) == 1 and found[0].message.startswith("`workflow.status` on line 4 is COMPLETE, but ")
