"""A large check keeps its findings in sorted runs on disk and writes its report as it reads them: the
output is the one a sorted list of every finding gives, in every format."""

from __future__ import annotations

import io
import re
import tempfile
from pathlib import Path

import pytest

from ctxres.config import load_config
from ctxres.findings import Finding, Position, Severity
from ctxres.linters.checking import engine, finding_runs
from ctxres.linters.checking.finding_runs import FindingRuns, SpilledFindings
from ctxres.linters.checking.report import Report
from ctxres.linters.reporters import FORMATS, render, write

ROOT = Path(__file__).resolve().parent.parent.parent
FIXTURES = ROOT / "fixtures"


def _timeless(finding: Finding) -> Finding:
    """``finding`` without the clock: staleness messages say how old a value is now."""
    return finding.replace(message=re.sub(r"\d+", "0", finding.message))


def _findings() -> list[Finding]:
    out = []
    for number in range(60):
        out.append(
            Finding(
                f"dir/f{number % 7}.yaml",
                ("C001", "S004", "C006")[number % 3],
                f'message {number % 5} ü "quoted" \\ \n',
                Severity.WARNING if number % 4 else Severity.ERROR,
                Position(number % 3 + 1, number % 2 + 1),
                "$.a" if number % 2 else "",
                "fix it" if number % 3 else "",
                Position(9, 9) if number % 5 == 0 else None,
            )
        )
    return out


@pytest.mark.parametrize("size", [1, 2, 5, 16, 1000])
def test_runs_come_back_as_a_stable_sort(size: int) -> None:
    findings = _findings()
    runs = FindingRuns(run_size=size)
    runs.extend(findings)
    result = runs.sorted()
    want = sorted(findings, key=Finding.sort_key)
    try:
        assert list(result) == want
        assert list(result) == want  # read again
        assert len(result) == len(want)
        assert result[3] == want[3] and result[-1] == want[-1] and result[2:5] == want[2:5]
        assert isinstance(result, SpilledFindings) == (size < len(findings))
        report, plain = Report(result, 9), Report(want, 9)
        assert (report.errors, report.warnings) == (plain.errors, plain.warnings)
    finally:
        finding_runs.release(result)


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_spilled_report_is_written_as_the_sorted_list_is_rendered(fmt: str) -> None:
    runs = FindingRuns(run_size=4)
    runs.extend(_findings())
    spilled = Report(runs.sorted(), 12)
    plain = Report(sorted(_findings(), key=Finding.sort_key), 12)
    out = io.StringIO()
    try:
        write(fmt, spilled, out)
        assert out.getvalue() == render(fmt, plain) == render(fmt, spilled)
    finally:
        finding_runs.release(spilled.findings)  # the runs on disk, as a check removes them


@pytest.mark.parametrize("fmt", FORMATS)
def test_an_empty_report_is_written_as_rendered(fmt: str) -> None:
    out = io.StringIO()
    write(fmt, Report([], 3), out)
    assert out.getvalue() == render(fmt, Report([], 3))


def test_a_check_with_spilled_runs_finds_what_one_in_memory_finds(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    config = load_config(FIXTURES, None)
    whole = engine.run([Path("fixtures")], config, cwd=ROOT)
    assert isinstance(whole.findings, list) and len(whole.findings) > 100
    monkeypatch.setattr(finding_runs, "RUN_SIZE", 10)
    monkeypatch.setattr(FindingRuns.__init__, "__defaults__", (10,))
    spilled = engine.run([Path("fixtures")], config, cwd=ROOT)
    try:
        assert isinstance(spilled.findings, SpilledFindings)
        assert [_timeless(f) for f in spilled.findings] == [_timeless(f) for f in whole.findings]
        assert (spilled.errors, spilled.warnings) == (whole.errors, whole.warnings)
    finally:
        finding_runs.release(spilled.findings)


def test_findings_stay_in_memory_when_no_temporary_folder_can_be_written(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_: object, **__: object) -> None:
        raise OSError("read-only file system")

    monkeypatch.setattr(tempfile, "TemporaryDirectory", refuse)  # (imported by finding_runs when it spills)
    runs = FindingRuns(run_size=3)
    runs.extend(_findings())
    assert runs.sorted() == sorted(_findings(), key=Finding.sort_key)
