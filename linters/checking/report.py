"""The result of a check run, as handed to a reporter."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from ctxres import __version__
from ctxres.findings import Finding, Severity
from ctxres.linters.checking.finding_runs import SpilledFindings
from ctxres.records import Record

# `ctxres check` loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:
    from ctxres.linters.checking.baseline import Match


class Report(Record):
    """Findings (sorted by path, line, column, code) and what was checked.

    ``findings`` is a list, or for a large run a :class:`SpilledFindings` read back from disk at each
    iteration: a reporter iterates it once and writes as it goes (``write`` of each reporter module).
    """

    __slots__ = ("baseline", "files_checked", "findings", "show_baselined", "skipped", "tool_version")

    findings: Sequence[Finding]
    files_checked: int
    tool_version: str
    # Paths that were given or found but could not be checked at all (shown in the summary).
    skipped: list[str]
    # The findings matched against a baseline file (None: no baseline): ``errors`` and ``warnings`` are then
    # the new ones, and :meth:`marked` says which are baselined; ``show_baselined``: the text lists them too.
    baseline: Match | None
    show_baselined: bool

    def __init__(
        self,
        findings: Sequence[Finding],
        files_checked: int,
        tool_version: str = __version__,
        skipped: list[str] | None = None,
        baseline: Match | None = None,
        show_baselined: bool = False,
    ) -> None:
        self.findings = findings
        self.files_checked = files_checked
        self.tool_version = tool_version
        self.skipped = [] if skipped is None else skipped
        self.baseline = baseline
        self.show_baselined = show_baselined

    def marked(self) -> Iterator[tuple[Finding, bool]]:
        """Each finding, in order, with whether the baseline accepts it."""
        if self.baseline is None:
            return ((finding, False) for finding in self.findings)
        return self.baseline.marks(self.findings)

    @property
    def errors(self) -> int:
        """The errors that fail the run (not those of the baseline)."""
        if self.baseline is not None:
            return self.baseline.errors
        if isinstance(self.findings, SpilledFindings):
            return self.findings.errors
        return sum(1 for f in self.findings if f.severity is Severity.ERROR)

    @property
    def warnings(self) -> int:
        if self.baseline is not None:
            return self.baseline.warnings
        if isinstance(self.findings, SpilledFindings):
            return self.findings.warnings
        return sum(1 for f in self.findings if f.severity is Severity.WARNING)
