"""Running the checks: discover artifacts, load them, apply every rule, filter the findings."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path

from ctxres.config import Config
from ctxres.document import Document
from ctxres.findings import Finding, Severity
from ctxres.globs import matches_any
from ctxres.linters.checking import suppression
from ctxres.linters.checking.discovery import Artifact, discover
from ctxres.linters.checking.registry import RULES, matches
from ctxres.linters.checking.report import Report
from ctxres.linters.rules import parsing, rule_modules
from ctxres.linters.rules import secrets as security
from ctxres.loading import Limits, load_file

DocumentCheck = Callable[[Document, Config], list[Finding]]
WorkspaceCheck = Callable[["Workspace"], list[Finding]]


@dataclass
class Workspace:
    """Everything one run loaded, for rules that compare several files."""

    config: Config
    documents: list[Document] = field(default_factory=list)
    # The paths given to the check and the folder paths are shown relative to (empty/None: unknown), for
    # rules that look for files that are not artifacts wherever the check is run from.
    roots: list[Path] = field(default_factory=list)
    cwd: Path | None = None

    def of_kind(self, kind: str) -> list[Document]:
        return [doc for doc in self.documents if doc.kind == kind]


@lru_cache(maxsize=1)
def _checks() -> tuple[list[DocumentCheck], list[WorkspaceCheck]]:
    """A rule module takes part through ``check_document(doc, config)`` and/or ``check_workspace(ws)``."""
    per_document: list[DocumentCheck] = []
    per_workspace: list[WorkspaceCheck] = []
    for module in rule_modules():
        if hasattr(module, "check_document"):
            per_document.append(module.check_document)
        if hasattr(module, "check_workspace"):
            per_workspace.append(module.check_workspace)
    return per_document, per_workspace


def check_artifact(artifact: Artifact, config: Config) -> tuple[Document | None, list[Finding]]:
    """Load one artifact and run the per-document checks on it."""
    limits = Limits(max_bytes=config.max_file_size)
    result = load_file(str(artifact.path), artifact.kind, artifact.format, limits, artifact.display)
    findings = parsing.findings_for(artifact.display, result.issues)
    if result.document is not None:
        for rule_check in _checks()[0]:
            findings += rule_check(result.document, config)
    return result.document, findings


def selected(code: str, config: Config) -> bool:
    chosen = (*config.select, *config.extend_select)
    if not matches(code, chosen):
        return False
    # A more specific selector wins over a broader ignore, as in ruff.
    ignoring = [sel for sel in config.ignore if sel == "ALL" or code.startswith(sel)]
    if not ignoring:
        return True
    picking = [sel for sel in chosen if sel == "ALL" or code.startswith(sel)]
    return _specificity(picking) > _specificity(ignoring)


def _specificity(selectors: list[str]) -> int:
    return max(0 if sel == "ALL" else len(sel) for sel in selectors)


def _per_file_ignored(finding: Finding, config: Config) -> bool:
    for glob, codes in config.per_file_ignores.items():
        if matches_any(finding.path, (glob,)) and matches(finding.code, codes):
            return True
    return False


def apply_policy(findings: list[Finding], texts: dict[str, str], config: Config) -> list[Finding]:
    """Selection, suppression comments, per-file ignores and severity overrides."""
    kept = []
    cache: dict[str, suppression.Suppressions] = {}
    for finding in findings:
        if not selected(finding.code, config) or _per_file_ignored(finding, config):
            continue
        if finding.path not in cache:
            cache[finding.path] = suppression.parse(texts.get(finding.path, ""))
        if cache[finding.path].covers(finding.code, finding.position.line):
            continue
        override = config.severity.get(finding.code)
        if override:
            finding = replace(finding, severity=Severity(override))
        kept.append(finding)
    return sorted(kept, key=Finding.sort_key)


def run(paths: list[Path], config: Config, cwd: Path | None = None) -> Report:
    """Check every artifact under ``paths``."""
    artifacts = discover(paths, config, cwd)
    findings: list[Finding] = []
    texts: dict[str, str] = {}
    workspace = Workspace(config, roots=list(paths), cwd=cwd or Path.cwd())
    for artifact in artifacts:
        document, found = check_artifact(artifact, config)
        if document is not None:
            texts[artifact.display] = document.text
            workspace.documents.append(document)
        elif found:
            # Not parsed (binary, not UTF-8, too large, a syntax error): its text still serves suppression
            # comments (YAML) and the secrets rule. A key is leaked whatever else is wrong with the file, so
            # every rejected file is scanned: at most `max-file-size` bytes, undecodable bytes replaced.
            text = _read_text(artifact.path, config.max_file_size)
            if artifact.format.value in ("yaml", "front-matter"):
                texts[artifact.display] = text
            found = found + security.findings_in_text(artifact.display, text)
        findings += found
    for workspace_check in _checks()[1]:
        findings += workspace_check(workspace)
    unknown = sorted({f.code for f in findings} - set(RULES))
    assert not unknown, f"findings with unregistered codes: {unknown}"
    return Report(apply_policy(findings, texts, config), files_checked=len(artifacts))


def _read_text(path: Path, max_bytes: int) -> str:
    """The text of a file that failed to load (for its suppression comments and the secrets rule): never a
    FIFO or a device, never more than ``max_bytes`` (a hostile 100 MB file is not read whole); bytes that
    are not UTF-8 are replaced, NUL bytes kept."""
    try:
        if not path.is_file():
            return ""
        with path.open("rb") as handle:
            return handle.read(max_bytes).decode("utf-8", "replace")
    except OSError:
        return ""


def exit_code(report: Report, strict: bool) -> int:
    """0 clean, 1 findings that fail the run (errors; warnings too under ``--strict``)."""
    if report.errors or (strict and report.warnings):
        return 1
    return 0
