"""GitHub Actions workflow commands (``::error file=...::message``), shown as annotations on a PR."""

from __future__ import annotations

from ctxres.findings import Finding, Severity
from ctxres.linters.checking.report import Report
from ctxres.linters.reporters.text import summary_line


def escape_data(value: str) -> str:
    """Escape a command's message, as the Actions runner expects (``%`` first)."""
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(value: str) -> str:
    """Escape a command property value: the message escapes plus ``:`` and ``,``."""
    return escape_data(value).replace(":", "%3A").replace(",", "%2C")


def format_finding(finding: Finding) -> str:
    command = "error" if finding.severity is Severity.ERROR else "warning"
    props = ",".join(
        f"{key}={escape_property(value)}"
        for key, value in (
            ("file", finding.path),
            ("line", str(finding.position.line)),
            ("col", str(finding.position.col)),
            ("title", finding.code),
        )
    )
    message = f"{finding.message} (help: {finding.fix})" if finding.fix else finding.message
    return f"::{command} {props}::{escape_data(message)}"


def render(report: Report) -> str:
    lines = [format_finding(f) for f in report.findings]
    lines.append(summary_line(report))
    return "\n".join(lines) + "\n"
