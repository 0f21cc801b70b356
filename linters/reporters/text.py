"""Concise, ruff-like output for a terminal."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from ctxres.findings import Finding, Severity
from ctxres.linters.checking.report import Report

# `ctxres check` loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TextIO

_BOLD = "\x1b[1m"
_RED = "\x1b[31m"
_YELLOW = "\x1b[33m"
_RESET = "\x1b[0m"
# Control characters in a message (a key such as "\r" quoted from the file) would break the one
# finding per line format or drive the terminal: shown escaped instead.
_CONTROL = {c: f"\\x{c:02x}" for c in (*range(32), 127, 0x85) if c != 9} | {10: "\\n", 13: "\\r"}
_CONTROL |= {0x2028: "\\u2028", 0x2029: "\\u2029"}  # line separators to str.splitlines


def plural(count: int, noun: str) -> str:
    """``1 error``, ``2 errors``, ``0 files``."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def summary_line(report: Report) -> str:
    """The closing line shared by the text and GitHub formats; with a baseline, what it accepted and which of
    its entries are fixed."""
    checked = plural(report.files_checked, "file")
    match = report.baseline
    clean = not report.findings if match is None else not report.errors + report.warnings
    if clean:
        line = f"All checks passed ({checked} checked)"
    else:
        errors = plural(report.errors, "error")
        warnings = plural(report.warnings, "warning")
        line = f"Found {errors} and {warnings} in {checked} checked"
    if match is None:
        return line + "."
    if match.baselined:
        existing = plural(match.baselined, "existing finding")
        line += f"; {existing} {'is' if match.baselined == 1 else 'are'} in the baseline ({match.file})"
    if match.fixed:
        entries = plural(len(match.fixed), "baseline entry").replace("entrys", "entries")
        line += f"; {entries} {'is' if len(match.fixed) == 1 else 'are'} fixed: run `ctxres baseline` to drop them"
    if match.unread:
        files = ", ".join(match.places.shown(path) for path in match.unread)
        line += (
            f"; {files} cannot be read: fix {'it' if len(match.unread) == 1 else 'them'} (a baseline never records "
            "that, and keeps the file's entries until it can be read)"
        )
    return line + "."


def _paint(value: str, code: str, color: bool) -> str:
    return f"{code}{value}{_RESET}" if color else value


def format_finding(finding: Finding, *, color: bool = False, baselined: bool = False) -> list[str]:
    """The line for one finding, plus a ``help:`` line when it carries a fix."""
    is_error = finding.severity is Severity.ERROR
    path = _paint(finding.path, _BOLD, color)
    code = _paint(finding.code, _RED if is_error else _YELLOW, color)
    tag = ("" if is_error else " [warning]") + (" [baselined]" if baselined else "")
    pos = finding.position
    lines = [f"{path}:{pos.line}:{pos.col}: {code}{tag} {finding.message.translate(_CONTROL)}"]
    if finding.fix:
        lines.append(f"  help: {finding.fix.translate(_CONTROL)}")
    return lines


def write(report: Report, out: TextIO, *, color: bool = False) -> None:
    """One line per finding (and its help), then the summary line; ``color``: ANSI colors."""
    for finding, baselined in report.marked():
        if baselined and not report.show_baselined:
            continue
        for line in format_finding(finding, color=color, baselined=baselined):
            out.write(line + "\n")
    out.write(summary_line(report) + "\n")


def statistics(report: Report, names: Mapping[str, str]) -> list[tuple[int, str, str, int]]:
    """(count, code, rule name, how many of them the baseline accepts) for each code with findings, most
    frequent first (``--statistics``)."""
    counts: Counter[str] = Counter()
    accepted: Counter[str] = Counter()
    for finding, baselined in report.marked():
        counts[finding.code] += 1
        accepted[finding.code] += baselined
    ordered = sorted(counts.items(), key=lambda c: (-c[1], c[0]))
    return [(count, code, names.get(code, ""), accepted[code]) for code, count in ordered]


def render_statistics(report: Report, names: Mapping[str, str]) -> str:
    """One line per code, like ruff's ``--statistics``: the count, the code and the rule's name (and how many
    are in the baseline); then the summary line."""
    rows = statistics(report, names)
    width = max((len(str(count)) for count, _, _, _ in rows), default=1)
    lines = [
        f"{count:>{width}}  {code}  {name}" + (f" ({baselined} in the baseline)" if baselined else "")
        for count, code, name, baselined in rows
    ]
    return "\n".join([*lines, summary_line(report)]) + "\n"
