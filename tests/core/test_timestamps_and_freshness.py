"""Timestamps (the forms found in real files, what cannot be read), the FRESH/STALE/CRITICAL
classification and the newest-timestamp walk that the staleness rules build on."""

from __future__ import annotations

import datetime as dt
import subprocess
import sys

import pytest

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

from ..conftest import ROOT
from ..rules.s_families import NOW, at

UTC = dt.timezone.utc


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
