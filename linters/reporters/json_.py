"""Stable machine-readable JSON output (named ``json_`` so it does not shadow the stdlib)."""

from __future__ import annotations

from io import StringIO

from ctxres.findings import Finding
from ctxres.linters.checking.registry import RULES
from ctxres.linters.checking.report import Report
from ctxres.linters.reporters import json_stream

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is not imported at run time: about 2 ms of every start
    from typing import TextIO

FORMAT_VERSION = 1


def rule_url(code: str) -> str:
    """The rule's documentation URL, or ``""`` for a code that is not registered."""
    rule = RULES.get(code)
    return rule.doc_url() if rule is not None else ""


def finding_to_dict(finding: Finding) -> dict[str, object]:
    return {
        "path": finding.path,
        "line": finding.position.line,
        "column": finding.position.col,
        "code": finding.code,
        "severity": finding.severity.value,
        "message": finding.message,
        "json_path": finding.json_path,
        "fix": finding.fix,
        "rule_url": rule_url(finding.code),
    }


def _document(report: Report, findings: object) -> dict[str, object]:
    return {
        "version": FORMAT_VERSION,
        "tool": {"name": "ctxres", "version": report.tool_version},
        "summary": {
            "files_checked": report.files_checked,
            "errors": report.errors,
            "warnings": report.warnings,
        },
        "findings": findings,
    }


def write(report: Report, out: TextIO) -> None:
    """:func:`render`, written a finding at a time."""
    json_stream.write(_document(report, json_stream.PLACEHOLDER), map(finding_to_dict, report.findings), out)


def render(report: Report) -> str:
    out = StringIO()
    write(report, out)
    return out.getvalue()
