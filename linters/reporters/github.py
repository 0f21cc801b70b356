"""GitHub Actions workflow commands (``::error file=...::message``), shown as annotations on a PR.

The runner resolves ``file=`` against the repository, so paths are written relative to the top of the
git work tree whatever folder the run starts from (``cd projects && ctxres check .`` still annotates
``projects/...``).
"""

from __future__ import annotations

from pathlib import Path

from ctxres.findings import Finding, Severity
from ctxres.linters.checking.report import Report
from ctxres.linters.reporters.repo_paths import for_repository, source_root
from ctxres.linters.reporters.text import summary_line

# `ctxres check` loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TextIO


def escape_data(value: str) -> str:
    """Escape a command's message, as the Actions runner expects (``%`` first)."""
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(value: str) -> str:
    """Escape a command property value: the message escapes plus ``:`` and ``,``."""
    return escape_data(value).replace(":", "%3A").replace(",", "%2C")


def format_finding(finding: Finding, path: str | None = None) -> str:
    """The workflow command of ``finding``; ``path``: the file as the runner reads it (default: as found)."""
    command = "error" if finding.severity is Severity.ERROR else "warning"
    props = ",".join(
        f"{key}={escape_property(value)}"
        for key, value in (
            ("file", finding.path if path is None else path),
            ("line", str(finding.position.line)),
            ("col", str(finding.position.col)),
            ("title", finding.code),
        )
    )
    message = f"{finding.message} (help: {finding.fix})" if finding.fix else finding.message
    return f"::{command} {props}::{escape_data(message)}"


def write(report: Report, out: TextIO, *, color: bool = False) -> None:
    """GitHub Actions annotations, written a finding at a time; ``color`` is ignored (no escape codes)."""
    cwd = Path.cwd()
    root = source_root(cwd)
    for finding, baselined in report.marked():
        if baselined:  # accepted by the baseline: counted in the summary, not annotated
            continue
        out.write(format_finding(finding, for_repository(finding.path, cwd, root)) + "\n")
    out.write(summary_line(report) + "\n")
