"""The findings of a run, sorted, without holding them all: sorted runs spilled to files, merged when read.

A check of thousands of files finds thousands of findings; the reporters print them in one order (path, line,
column, code, message). :class:`FindingRuns` keeps up to ``RUN_SIZE`` of them in memory; past that it sorts
them and writes them to a temporary file (a *run*), and :class:`SpilledFindings` reads the runs back merged,
one finding at a time. The merge is stable, run by run: the findings come out in the order a stable sort of
all of them, in the order they were added, would give.
"""

from __future__ import annotations

import heapq
import itertools
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

from ctxres.findings import Finding, Position, Severity

# `ctxres check` loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if not TYPE_CHECKING:

    def overload(function: object) -> object:  # the overloads below are for the type checker
        return function

else:
    import tempfile  # pickle and tempfile are imported when findings are spilled: most checks never spill
    from typing import overload


RUN_SIZE = 2048  # findings held in memory before they are spilled (about 2 MB)
_BLOCK = 256  # findings per pickled block of a run file

_Row = tuple[str, str, str, str, int, int, str, str, int | None, int | None, tuple[str, ...]]


def _row(finding: Finding) -> _Row:
    end = finding.end_position
    return (
        finding.path,
        finding.code,
        finding.message,
        finding.severity.value,
        finding.position.line,
        finding.position.col,
        finding.json_path,
        finding.fix,
        None if end is None else end.line,
        None if end is None else end.col,
        finding.related,
    )


def _finding(row: _Row) -> Finding:
    path, code, message, severity, line, col, json_path, fix, end_line, end_col, related = row
    end = None if end_line is None or end_col is None else Position(end_line, end_col)
    return Finding(path, code, message, Severity(severity), Position(line, col), json_path, fix, end, related)


class SpilledFindings(Sequence[Finding]):
    """Findings sorted in runs on disk (and the last run in memory), read back merged at each iteration."""

    def __init__(self, folder: tempfile.TemporaryDirectory[str], runs: list[Path], last: list[Finding]) -> None:
        self._folder = folder  # removed by close, or when this object is collected
        self._runs = runs
        self._last = last
        self._count = 0
        self.errors = 0
        self.warnings = 0

    def _read(self, run: Path) -> Iterator[Finding]:
        import pickle

        with run.open("rb") as handle:
            while True:
                try:
                    block = pickle.load(handle)
                except EOFError:
                    return
                yield from map(_finding, block)

    def close(self) -> None:
        """Remove the runs on disk now (the console script ends without collecting objects: ``ctxres.linters.cli``)."""
        self._folder.cleanup()

    def __iter__(self) -> Iterator[Finding]:
        return heapq.merge(*(self._read(run) for run in self._runs), self._last, key=Finding.sort_key)

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, index: int) -> Finding: ...

    @overload
    def __getitem__(self, index: slice) -> list[Finding]: ...

    def __getitem__(self, index: int | slice) -> Finding | list[Finding]:
        if isinstance(index, slice):
            return list(self)[index]
        if index < 0:
            index += self._count
        if not 0 <= index < self._count:
            raise IndexError(index)
        return next(itertools.islice(iter(self), index, None))


class FindingRuns:
    """Findings added in any order, handed back sorted by :meth:`sorted`: held in memory up to ``run_size``."""

    def __init__(self, run_size: int = RUN_SIZE) -> None:
        self.run_size = run_size
        self.held: list[Finding] = []
        self.folder: tempfile.TemporaryDirectory[str] | None = None
        self.runs: list[Path] = []
        self.count = 0
        self.errors = 0
        self.warnings = 0

    def append(self, finding: Finding) -> None:
        self.held.append(finding)
        self.count += 1
        if finding.severity is Severity.ERROR:
            self.errors += 1
        elif finding.severity is Severity.WARNING:
            self.warnings += 1
        if len(self.held) >= self.run_size:
            self._spill()

    def extend(self, findings: list[Finding]) -> None:
        for finding in findings:
            self.append(finding)

    def _spill(self) -> None:
        import pickle
        import tempfile

        try:
            if self.folder is None:
                self.folder = tempfile.TemporaryDirectory(prefix="ctxres-findings-")
            run = Path(self.folder.name) / f"run-{len(self.runs):05d}"
            rows = [_row(finding) for finding in sorted(self.held, key=Finding.sort_key)]
            with run.open("wb") as handle:
                for start in range(0, len(rows), _BLOCK):
                    pickle.dump(rows[start : start + _BLOCK], handle, protocol=pickle.HIGHEST_PROTOCOL)
        except OSError:  # no temporary folder to write to (read-only, full): the findings stay in memory
            self.run_size = sys.maxsize
            return
        self.runs.append(run)
        self.held = []

    def sorted(self) -> Sequence[Finding]:
        """Every finding added, sorted by :meth:`Finding.sort_key` (stable): a list when none was spilled."""
        last = sorted(self.held, key=Finding.sort_key)
        if self.folder is None:
            return last
        spilled = SpilledFindings(self.folder, self.runs, last)
        spilled._count, spilled.errors, spilled.warnings = self.count, self.errors, self.warnings
        return spilled


def release(findings: Sequence[Finding]) -> None:
    """Remove the runs on disk of ``findings`` now, when :meth:`FindingRuns.sorted` spilled them."""
    if isinstance(findings, SpilledFindings):
        findings.close()
