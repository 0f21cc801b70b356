"""The rules of linters/rules/update_times.py: S001 (an impossible `updated_at`), S002 (in the future),
S003 (older than a change recorded elsewhere in the file)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from ctxres.config import Config
from ctxres.findings import Severity
from ctxres.state import staleness as core

from .s_families import NOW, at, check, codes, line_of, v2


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


def test_merged_compaction_times_are_left_to_the_acknowledgement_rules() -> None:
    """One problem, one finding: an acknowledged event newer than updated_at is A011's, not also S003's."""
    from ctxres.config import load_config
    from ctxres.linters.checking import engine

    from ..conftest import FIXTURES

    case = FIXTURES / "rules" / "A011" / "bad"
    codes = [f.code for f in engine.run([case], load_config(case), cwd=case).findings]
    assert codes == ["A011"]
