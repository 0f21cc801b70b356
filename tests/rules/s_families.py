"""The S rule families, run as `ctxres check` runs them on one workflow file (for the tests of the S rules
and of what a migration leaves for them to report)."""

from __future__ import annotations

from ctxres.config import Config
from ctxres.findings import Finding
from ctxres.formats.document import Document
from ctxres.linters.rules import (
    agent_summaries,
    checkpoint_position,
    phase_position,
    prose_position,
    quality_trajectory,
    update_times,
)

S_FAMILIES = (update_times, checkpoint_position, phase_position, quality_trajectory, agent_summaries, prose_position)


def s_findings(doc: Document, config: Config) -> list[Finding]:
    """Every S rule's findings on ``doc``, in the order `ctxres check` reports them."""
    return [finding for family in S_FAMILIES for finding in family.check_document(doc, config)]
