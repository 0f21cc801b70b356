"""The S rule families, run as `ctxres check` runs them on one workflow file (for the tests of the S rules
and of what a migration leaves for them to report), and the small workflow documents those tests share."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from ctxres.config import Config
from ctxres.findings import Finding
from ctxres.formats.document import Document
from ctxres.formats.loading import Format, parse_text
from ctxres.linters.checking.engine import document_findings
from ctxres.timestamps import parse_datetime


def s_findings(doc: Document, config: Config) -> list[Finding]:
    """Every S rule's findings on ``doc``, in the order `ctxres check` runs their checks."""
    return document_findings(doc, config.replace(select=("S",), extend_select=(), ignore=()))


def at(text: str) -> dt.datetime:
    """The instant ``text`` names (a test's literal, so it must parse)."""
    value = parse_datetime(text)
    assert value is not None, text
    return value


NOW = at("2026-02-17T12:00:00Z")


CONFIG = Config(root=Path("."))


def v2(updated_at: str = "2026-02-17T10:00:00Z", **recovery: str) -> str:
    fields = {
        "last_checkpoint": "null",
        "current_phase": "1",
        "current_phase_name": '"Audit"',
        "workflow_status": '"ACTIVE"',
        "current_activity": '"phase-1-agent-execution"',
        "next_step": '"Run the audit agent."',
        "updated_at": f'"{updated_at}"',
        **recovery,
    }
    lines = "".join(f"    {key}: {value}\n" for key, value in fields.items())
    return (
        "resumption:\n  recovery_state:\n"
        + lines
        + "  files_to_read: []\n"
        + '  quality_trajectory: {gates_completed: [], gates_remaining: ["qg-1"], score_history: {}}\n'
        + "  defect_summary: {total_defects_found: 0, total_defects_resolved: 0, unresolved_defects: []}\n"
        + "  agent_summaries: {}\n"
        + "  compaction_events: {count: 0, events: []}\n"
    )


def check(text: str, config: Config = CONFIG) -> list[Finding]:
    result = parse_text("ORCHESTRATION.yaml", "orchestration", Format.YAML, text)
    assert result.document is not None, result.issues
    return s_findings(result.document, config)


def line_of(text: str, needle: str) -> int:
    """The 1-based line of the first line of ``text`` that contains ``needle``."""
    return next(n for n, line in enumerate(text.splitlines(), start=1) if needle in line)


def codes(text: str) -> list[tuple[str, int]]:
    return [(f.code, f.position.line) for f in check(text)]
