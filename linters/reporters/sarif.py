"""SARIF 2.1.0 output, for GitHub code scanning and other SARIF consumers.

The paths in a report are relative to the current folder (as the text output shows them); SARIF
consumers resolve ``artifactLocation.uri`` against the repository, so each path is rewritten here,
at the edge, relative to the root of the git work tree (the current folder outside git), under
``uriBaseId`` ``%SRCROOT%``, whose absolute location ``originalUriBaseIds`` gives. A file outside
that root keeps an absolute ``file://`` URI.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from urllib.parse import quote

from ctxres.findings import Finding, Severity
from ctxres.linters.checking.registry import RULES
from ctxres.linters.checking.report import Report
from ctxres.linters.reporters import json_stream
from ctxres.linters.reporters.repo_paths import root_relative, source_root

# `ctxres check` loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TextIO

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
SARIF_VERSION = "2.1.0"
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
    descriptor: dict[str, object] = {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": rule.summary},
        "help": {"text": rule.doc(), "markdown": rule.doc()},
        "defaultConfiguration": {"level": _level(rule.severity)},
    }
    if rule.doc_url():
        descriptor["helpUri"] = rule.doc_url()
    return descriptor


def artifact_location(path: str, cwd: Path, root: Path) -> dict[str, object]:
    """A path under ``root`` becomes a percent-encoded URI under ``%SRCROOT%``; any other an absolute file URI."""
    relative = root_relative(path, cwd, root)
    if relative is None:
        return {"uri": Path(os.path.normpath(os.path.join(cwd, path))).as_uri()}
    return {"uri": quote(relative, safe="/"), "uriBaseId": SRCROOT}


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


def result(
    finding: Finding, rule_index: int, cwd: Path, root: Path, baseline_state: str | None = None
) -> dict[str, object]:
    """The SARIF result of ``finding``; ``baseline_state`` (``new``, ``unchanged``) when a baseline was used."""
    out: dict[str, object] = {
        "ruleId": finding.code,
        "ruleIndex": rule_index,
        "level": _level(finding.severity),
        "message": {"text": message_text(finding)},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": artifact_location(finding.path, cwd, root),
                    "region": region(finding),
                }
            }
        ],
    }
    if baseline_state is not None:
        out["baselineState"] = baseline_state
    if finding.json_path:
        out["properties"] = {"json_path": finding.json_path}
    return out


def _log(report: Report, cwd: Path, root: Path) -> tuple[dict[str, object], Iterable[dict[str, object]]]:
    """The SARIF log of ``report`` with :data:`json_stream.PLACEHOLDER` for its results, and the results."""
    codes = sorted({f.code for f in report.findings})
    index = {code: i for i, code in enumerate(codes)}
    driver: dict[str, object] = {
        "name": "ctxres",
        "version": report.tool_version,
        "rules": [rule_descriptor(code) for code in codes],
    }
    run: dict[str, object] = {
        "tool": {"driver": driver},
        "originalUriBaseIds": {SRCROOT: {"uri": _folder_uri(root)}},
        "results": json_stream.PLACEHOLDER,
    }
    with_baseline = report.baseline is not None
    results = (
        result(f, index[f.code], cwd, root, ("unchanged" if baselined else "new") if with_baseline else None)
        for f, baselined in report.marked()
    )
    return {"$schema": SCHEMA_URI, "version": SARIF_VERSION, "runs": [run]}, results


def _folder_uri(folder: Path) -> str:
    uri = Path(os.path.realpath(folder)).as_uri()
    return uri if uri.endswith("/") else f"{uri}/"  # SARIF: a base URI ends with a slash


def write(report: Report, out: TextIO, *, color: bool = False) -> None:
    """The SARIF log, written a result at a time; ``color`` is ignored (no escape codes)."""
    cwd = Path.cwd()
    log, results = _log(report, cwd, source_root(cwd))
    json_stream.write(log, results, out)
