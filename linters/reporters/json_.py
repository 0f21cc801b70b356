"""Stable machine-readable JSON output (named ``json_`` so it does not shadow the stdlib)."""

from __future__ import annotations

from ctxres.findings import Finding
from ctxres.linters.checking.registry import RULES
from ctxres.linters.checking.report import Report
from ctxres.linters.reporters import json_stream

# `ctxres check` loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TextIO

FORMAT_VERSION = 1


def rule_url(code: str) -> str:
    """The rule's documentation URL, or ``""`` for a code that is not registered."""
    rule = RULES.get(code)
    return rule.doc_url() if rule is not None else ""


def finding_to_dict(finding: Finding, baselined: bool = False) -> dict[str, object]:
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
        "baselined": baselined,
    }


def _document(report: Report, findings: object) -> dict[str, object]:
    summary: dict[str, object] = {
        "files_checked": report.files_checked,
        "errors": report.errors,
        "warnings": report.warnings,
    }
    if report.baseline is not None:  # errors and warnings are the new ones; these, what the baseline holds
        summary["baselined"] = report.baseline.baselined
        summary["baseline_fixed"] = len(report.baseline.fixed)
        summary["baseline_file"] = report.baseline.file
    return {
        "version": FORMAT_VERSION,
        "tool": {"name": "ctxres", "version": report.tool_version},
        "summary": summary,
        "findings": findings,
    }


def write(report: Report, out: TextIO, *, color: bool = False) -> None:
    """The JSON document, written a finding at a time (the baselined ones too, marked); ``color`` is ignored."""
    items = (finding_to_dict(finding, baselined) for finding, baselined in report.marked())
    json_stream.write(_document(report, json_stream.PLACEHOLDER), items, out)
