"""The result of a check run, as handed to a reporter."""

from __future__ import annotations

from dataclasses import dataclass, field

from ctxres import __version__
from ctxres.findings import Finding, Severity


@dataclass
class Report:
    """Findings (sorted by path, line, column, code) and what was checked."""

    findings: list[Finding]
    files_checked: int
    tool_version: str = __version__
    # Paths that were given or found but could not be checked at all (shown in the summary).
    skipped: list[str] = field(default_factory=list)

    @property
    def errors(self) -> int:
        return sum(1 for f in self.findings if f.severity is Severity.ERROR)

    @property
    def warnings(self) -> int:
        return sum(1 for f in self.findings if f.severity is Severity.WARNING)
