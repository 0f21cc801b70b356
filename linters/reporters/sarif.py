"""SARIF 2.1.0 output, for GitHub code scanning and other SARIF consumers."""

from __future__ import annotations

import json
import os
from pathlib import PurePath
from urllib.parse import quote

from ctxres.findings import Finding, Severity
from ctxres.linters.checking.registry import RULES
from ctxres.linters.checking.report import Report

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
SARIF_VERSION = "2.1.0"
INFORMATION_URI = "https://github.com/ctxres/ctxres"
SRCROOT = "%SRCROOT%"


def _level(severity: Severity) -> str:
    return "error" if severity is Severity.ERROR else "warning"


def _sentence(text: str) -> str:
    text = text.strip()
    return text if not text or text[-1] in ".!?" else f"{text}."


def rule_descriptor(code: str) -> dict[str, object]:
    """The reportingDescriptor for ``code``; just the id when the code is not registered."""
    rule = RULES.get(code)
    if rule is None:
        return {"id": code}
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": rule.summary},
        "helpUri": rule.doc_url(),
        "defaultConfiguration": {"level": _level(rule.severity)},
    }


def artifact_location(path: str) -> dict[str, object]:
    """A relative path becomes a percent-encoded URI under ``%SRCROOT%``; an absolute one a file URI."""
    if PurePath(path).is_absolute():
        return {"uri": PurePath(path).as_uri()}
    posix = path.replace(os.sep, "/")
    while posix.startswith("./"):
        posix = posix[2:]
    return {"uri": quote(posix, safe="/"), "uriBaseId": SRCROOT}


def region(finding: Finding) -> dict[str, object]:
    start = finding.position
    out: dict[str, object] = {"startLine": max(1, start.line), "startColumn": max(1, start.col)}
    end = finding.end_position
    if end is not None and (end.line, end.col) >= (start.line, start.col):
        out["endLine"] = max(1, end.line)
        out["endColumn"] = max(1, end.col)
    return out


def message_text(finding: Finding) -> str:
    if not finding.fix:
        return finding.message
    return f"{_sentence(finding.message)} {_sentence(finding.fix)}"


def result(finding: Finding, rule_index: int) -> dict[str, object]:
    out: dict[str, object] = {
        "ruleId": finding.code,
        "ruleIndex": rule_index,
        "level": _level(finding.severity),
        "message": {"text": message_text(finding)},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": artifact_location(finding.path),
                    "region": region(finding),
                }
            }
        ],
    }
    if finding.json_path:
        out["properties"] = {"json_path": finding.json_path}
    return out


def report_to_sarif(report: Report) -> dict[str, object]:
    codes = sorted({f.code for f in report.findings})
    index = {code: i for i, code in enumerate(codes)}
    driver: dict[str, object] = {
        "name": "ctxres",
        "version": report.tool_version,
        "informationUri": INFORMATION_URI,
        "rules": [rule_descriptor(code) for code in codes],
    }
    run: dict[str, object] = {
        "tool": {"driver": driver},
        "results": [result(f, index[f.code]) for f in report.findings],
    }
    return {"$schema": SCHEMA_URI, "version": SARIF_VERSION, "runs": [run]}


def render(report: Report) -> str:
    return json.dumps(report_to_sarif(report), indent=2, ensure_ascii=False) + "\n"
