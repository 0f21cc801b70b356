"""The result of a check run, as handed to a reporter."""

from __future__ import annotations

from collections.abc import Sequence

from ctxres import __version__
from ctxres.findings import Finding, Severity
from ctxres.linters.checking.finding_runs import SpilledFindings
from ctxres.records import Record


class Report(Record):
    """Findings (sorted by path, line, column, code) and what was checked.

    ``findings`` is a list, or for a large run a :class:`SpilledFindings` read back from disk at each
    iteration: a reporter iterates it once and writes as it goes (``write`` of each reporter module).
    """

    __slots__ = ("files_checked", "findings", "skipped", "tool_version")

    findings: Sequence[Finding]
    files_checked: int
    tool_version: str
    # Paths that were given or found but could not be checked at all (shown in the summary).
    skipped: list[str]

    def __init__(
        self,
        findings: Sequence[Finding],
        files_checked: int,
        tool_version: str = __version__,
        skipped: list[str] | None = None,
    ) -> None:
        self.findings = findings
        self.files_checked = files_checked
        self.tool_version = tool_version
        self.skipped = [] if skipped is None else skipped

    @property
    def errors(self) -> int:
        if isinstance(self.findings, SpilledFindings):
            return self.findings.errors
        return sum(1 for f in self.findings if f.severity is Severity.ERROR)

    @property
    def warnings(self) -> int:
        if isinstance(self.findings, SpilledFindings):
            return self.findings.warnings
        return sum(1 for f in self.findings if f.severity is Severity.WARNING)
