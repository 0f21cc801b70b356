"""The HTML page: one file with nothing to fetch and no script, a marker per compaction and checkpoint,
thresholds, axis and legend drawn, stale stretches shaded with their length, an events table for screen
readers, every text escaped."""

from __future__ import annotations

import re
from html.parser import HTMLParser

from ctxres.linters.timeline.data import kind_of, legend, summary
from ctxres.linters.timeline.model import EVENT_KINDS, CheckpointWritten, Compaction
from ctxres.linters.timeline.page import render_page

from .sample import busy, empty


class _Elements(HTMLParser):
    """Every start tag with its attributes, and the text."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, {k: v or "" for k, v in attrs}))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _parse(html: str) -> _Elements:
    parser = _Elements()
    parser.feed(html)
    return parser


def _with_class(parsed: _Elements, *names: str) -> list[dict[str, str]]:
    return [attrs for _tag, attrs in parsed.tags if set(names) <= set(attrs.get("class", "").split())]


def test_nothing_to_fetch_and_no_script() -> None:
    html = render_page(busy())
    parsed = _parse(html)
    assert not re.search(r"https?:|//[a-z]|@import|url\(", html, re.IGNORECASE)
    assert all(tag not in ("script", "link", "img", "iframe", "object") for tag, _ in parsed.tags)
    assert not [a for _t, a in parsed.tags if any(k.startswith("on") or k in ("src", "href") for k in a)]
    assert html.startswith("<!DOCTYPE html>") and "<style>" in html and "<svg" in html


def test_one_marker_per_compaction_and_per_checkpoint() -> None:
    timeline = busy()
    parsed = _parse(render_page(timeline))
    compactions = _with_class(parsed, "marker", "compaction")
    checkpoints = _with_class(parsed, "marker", "checkpoint")
    assert [m["data-turn"] for m in compactions] == [str(e.turn) for e in timeline.events if isinstance(e, Compaction)]
    assert len(checkpoints) == sum(isinstance(e, CheckpointWritten) for e in timeline.events)
    assert [m["data-kind"] for m in checkpoints] == ["checkpoint", "checkpoint"]
    assert len(_with_class(parsed, "marker", "checkpoint", "unmerged")) == 1
    assert len(_with_class(parsed, "marker", "resumption", "mismatch")) == 1
    assert len(_with_class(parsed, "marker")) == len(timeline.events)


def test_thresholds_axis_ticks_and_legend() -> None:
    parsed = _parse(render_page(busy()))
    assert [a["data-threshold"] for a in _with_class(parsed, "threshold")] == ["60", "80", "90"]
    text = "".join(parsed.text)
    for label in ("60% WARNING", "80% CRITICAL", "90% COMPACTION"):
        assert label in text
    assert len(_with_class(parsed, "turn-tick")) >= 5
    assert len(_with_class(parsed, "time-tick")) >= 5
    assert [a["data-kind"] for a in _with_class(parsed, "legend-item")] == [kind_of(c) for c in EVENT_KINDS]
    for entry in legend():
        assert entry.style.label in text


def test_stale_stretches_are_shaded_with_their_length() -> None:
    parsed = _parse(render_page(busy()))
    assert [a["data-turn"] for a in _with_class(parsed, "stale-band")] == ["12", "41"]
    text = "".join(parsed.text)
    assert "stale 12 min" in text and "stale 19 min (open)" in text


def test_a_table_of_the_same_events_for_screen_readers_and_the_summary() -> None:
    timeline = busy()
    html = render_page(timeline)
    parsed = _parse(html)
    assert "<caption>" in html
    headers = [a for tag, a in parsed.tags if tag == "th"]
    assert headers and all(a.get("scope") == "col" for a in headers)
    rows = [a for tag, a in parsed.tags if tag == "tr" and "data-kind" in a]
    assert [r["data-kind"] for r in rows] == [e.kind for e in timeline.events]
    assert summary(timeline) in "".join(parsed.text)


def test_every_text_from_the_user_files_is_escaped() -> None:
    timeline = busy()
    timeline.workflow = '</title><script>alert("x")</script>'
    html = render_page(timeline)
    assert "<script" not in html
    assert "&lt;script&gt;" in html
    assert "build &lt;alpha&gt;" in html and "build <alpha>" not in html


def test_a_timeline_with_no_turns_still_makes_a_page() -> None:
    html = render_page(empty())
    assert "no turns with usage figures" in html
    assert len(_with_class(_parse(html), "marker", "session")) == 1
