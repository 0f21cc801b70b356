"""Concise, ruff-like output for a terminal."""

from __future__ import annotations

from ctxres.findings import Finding, Severity
from ctxres.linters.report import Report

_BOLD = "\x1b[1m"
_RED = "\x1b[31m"
_YELLOW = "\x1b[33m"
_RESET = "\x1b[0m"


def plural(count: int, noun: str) -> str:
    """``1 error``, ``2 errors``, ``0 files``."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def summary_line(report: Report) -> str:
    """The closing line shared by the text and GitHub formats."""
    checked = plural(report.files_checked, "file")
    if not report.findings:
        return f"All checks passed ({checked} checked)."
    errors = plural(report.errors, "error")
    warnings = plural(report.warnings, "warning")
    return f"Found {errors} and {warnings} in {checked} checked."


def _paint(value: str, code: str, color: bool) -> str:
    return f"{code}{value}{_RESET}" if color else value


def format_finding(finding: Finding, *, color: bool = False) -> list[str]:
    """The line for one finding, plus a ``help:`` line when it carries a fix."""
    is_error = finding.severity is Severity.ERROR
    path = _paint(finding.path, _BOLD, color)
    code = _paint(finding.code, _RED if is_error else _YELLOW, color)
    tag = "" if is_error else " [warning]"
    pos = finding.position
    lines = [f"{path}:{pos.line}:{pos.col}: {code}{tag} {finding.message}"]
    if finding.fix:
        lines.append(f"  help: {finding.fix}")
    return lines


def render(report: Report, *, color: bool = False) -> str:
    lines: list[str] = []
    for finding in report.findings:
        lines.extend(format_finding(finding, color=color))
    lines.append(summary_line(report))
    return "\n".join(lines) + "\n"
