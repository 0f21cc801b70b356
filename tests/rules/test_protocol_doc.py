"""The L1 protocol document says what ctxres.protocol and the schema say, and its L2 marker is the one ctxres checks."""

from __future__ import annotations

import re

import pytest

from ctxres import protocol
from ctxres.linters.rules.reinject import reminder_marker
from ctxres.reinject import scan, token_range
from ctxres.schemas.resumption import V2_SUBSECTIONS

from ..conftest import ROOT

DOC = ROOT / "docs" / "protocol" / "resumption-update-protocol.md"


@pytest.fixture(scope="module")
def text() -> str:
    return DOC.read_text("utf-8")


def _section(text: str, heading: str) -> str:
    """The body of the ``## heading`` section."""
    match = re.search(rf"^## {re.escape(heading)}\n(.*?)(?=^## |\Z)", text, re.MULTILINE | re.DOTALL)
    assert match, f"no section {heading!r}"
    return match.group(1)


def _table(body: str) -> list[list[str]]:
    """The rows of the first Markdown table in ``body`` (header first, the separator row dropped)."""
    rows = [line for line in body.splitlines() if line.startswith("|")]
    cells = [[cell.strip() for cell in row.strip("|").split("|")] for row in rows]
    return [row for row in cells if not all(re.fullmatch(r":?-+:?", cell) for cell in row)]


def test_the_protocol_module_has_the_schema_sub_sections_and_seven_triggers() -> None:
    triggers = tuple(trigger.id for trigger in protocol.TRIGGERS)
    assert triggers == ("T1", "T2", "T3", "T4", "T5", "T6", "T7")
    assert set(protocol.MATRIX) == set(triggers)
    for row in protocol.MATRIX.values():
        assert set(row) <= set(V2_SUBSECTIONS)
        assert row["recovery_state"] is protocol.Action.OVERWRITE  # every trigger overwrites it


def test_the_document_names_every_trigger_and_every_sub_section(text: str) -> None:
    missing = [t.id for t in protocol.TRIGGERS if not re.search(rf"\b{t.id}\b", text)]
    missing += [t.name for t in protocol.TRIGGERS if t.name not in text]
    missing += [
        name for name in V2_SUBSECTIONS if f"### {name}" not in text or name not in _section(text, "Who writes what")
    ]
    assert not missing


def test_the_trigger_table_lists_the_triggers_in_order_with_their_urgency(text: str) -> None:
    rows = _table(_section(text, "Triggers"))[1:]
    assert [(row[0], row[1]) for row in rows] == [(t.id, t.name) for t in protocol.TRIGGERS]
    for row, trigger in zip(rows, protocol.TRIGGERS, strict=True):
        assert ("advisory" in row[3]) == (trigger.urgency is protocol.Urgency.ADVISORY), row
        assert ("urgent" in row[3]) == (trigger.urgency is protocol.Urgency.URGENT), row


def test_the_matrix_in_the_document_is_the_matrix_of_the_protocol_module(text: str) -> None:
    header, *rows = _table(_section(text, "Which sub-sections each trigger writes"))
    assert tuple(header[1:]) == V2_SUBSECTIONS
    documented = {}
    for row in rows:
        trigger = row[0].split()[0]
        documented[trigger] = {
            name: protocol.Action(cell) for name, cell in zip(header[1:], row[1:], strict=True) if cell != "-"
        }
    assert documented == protocol.MATRIX
    legend = _section(text, "Which sub-sections each trigger writes")
    for letter in protocol.Action:
        assert f"**{letter.value}**" in legend


def test_the_document_covers_staleness_responsibility_and_ctxres_ack(text: str) -> None:
    staleness = _section(text, "Staleness")
    assert [row[0] for row in _table(staleness)[1:]] == ["FRESH", "STALE", "CRITICAL"]
    assert "30 minutes" in staleness and "staleness-minutes" in staleness
    after = _section(text, "After a compaction")
    assert "`ctxres ack`" in after and "`ctxres ack --all`" in after
    assert "PreCompact hook" in _section(text, "Who writes what")
    assert "`ctxres ack`" in _section(text, "For the model: the short version")


def test_the_l2_marker_shown_is_the_one_the_linter_suggests_and_is_correct(text: str) -> None:
    shown = [line for line in text.splitlines() if line.startswith("<!-- L2-REINJECT:")]
    assert shown == [reminder_marker()]
    (marker,) = scan(shown[0]).markers
    assert marker.valid and not marker.style
    assert marker.rank == protocol.RESUMPTION_MARKER_RANK
    assert marker.content == protocol.RESUMPTION_MARKER_CONTENT
    assert marker.tokens is not None
    assert marker.content is not None and token_range(marker.content).verdict(marker.tokens) == "ok"  # no R003
    # In the document it is an example inside a fenced code block, not a marker of the document.
    assert scan(text).markers == [] and scan(text).stray == []


def test_the_contents_table_links_to_real_headings(text: str) -> None:
    anchors = {
        re.sub(r"[^a-z0-9 -]", "", heading.lower()).replace(" ", "-")
        for heading in re.findall(r"^#{2,3} (.+)$", text, re.MULTILINE)
    }
    links = re.findall(r"\]\(#([^)]+)\)", text)
    assert links and not [link for link in links if link not in anchors]
