"""The terminal rendering: every line fits the width, the chart takes all of it, the thresholds and every
kind of event are marked, the legend lists the one table of kinds, colour only when asked."""

from __future__ import annotations

import re

import pytest

from ctxres.linters.timeline.data import STYLES, describe, legend, summary
from ctxres.linters.timeline.model import Timeline
from ctxres.linters.timeline.terminal import render_terminal

from .sample import WORKFLOW, busy, empty

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _plain(text: str) -> str:
    return ANSI.sub("", text)


@pytest.mark.parametrize("width", [40, 80, 200])
@pytest.mark.parametrize("color", [False, True])
@pytest.mark.parametrize("timeline", [busy(), empty()], ids=["busy", "empty"])
def test_no_line_is_longer_than_the_width_and_the_chart_takes_all_of_it(
    width: int, color: bool, timeline: Timeline
) -> None:
    lines = _plain(render_terminal(timeline, width=width, color=color)).splitlines()
    assert max(len(line) for line in lines) <= width
    chart = [line for line in lines if line[4:5] in ("│", "┤", "└")]
    assert len(chart) == 11
    assert all(len(line) == width for line in chart)


@pytest.mark.parametrize("width", [40, 80, 200])
def test_colour_only_when_asked_and_the_text_is_the_same_without_it(width: int) -> None:
    plain = render_terminal(busy(), width=width, color=False)
    coloured = render_terminal(busy(), width=width, color=True)
    assert "\x1b[" not in plain
    assert "\x1b[" in coloured
    assert _plain(coloured) == plain


def test_the_thresholds_are_marked_on_the_fill_axis() -> None:
    lines = render_terminal(busy(), width=80, color=False).splitlines()
    for label in ("60%┤", "80%┤", "90%┤"):
        (row,) = [line for line in lines if line.lstrip().startswith(label)]
        assert "╌" in row


def test_the_fill_bars_drop_after_each_compaction() -> None:
    lines = render_terminal(busy(), width=65, color=False).splitlines()
    # 60 turns on 60 columns: turn n in column n-1; the 80% row is full at turn 20 and 40, empty just after.
    (row,) = [line for line in lines if line.lstrip().startswith("80%┤")]
    bars = row[5:]
    assert bars[19] == "█" and bars[20] == "╌"
    assert bars[39] == "█" and bars[40] == "╌"


def test_every_kind_of_event_is_marked_on_the_turn_axis_and_listed() -> None:
    text = render_terminal(busy(), width=200, color=False)
    lines = text.splitlines()
    (markers,) = [line for line in lines if line.startswith(" evt ")]
    (stale,) = [line for line in lines if line.startswith("stale")]
    assert set(markers[5:]) - {" "} == {style.glyph for kind, style in STYLES.items() if kind != "stale"}
    assert markers[5:].count("C") == 2 and markers[5:].count("K") == 2
    assert "~" in stale
    for event in busy().events:
        assert describe(event) in text


def test_the_legend_lists_every_kind_in_the_order_of_the_table() -> None:
    text = render_terminal(busy(), width=80, color=False)
    positions = [text.index(f"{entry.style.glyph} {entry.style.label}") for entry in legend()]
    assert positions == sorted(positions)


def test_wall_time_labels_and_the_summary() -> None:
    text = render_terminal(busy(), width=80, color=False)
    (times,) = [line for line in text.splitlines() if line.startswith(" UTC ")]
    assert "09:01" in times and "10:00" in times
    assert " ".join(text.split("\n\n")[-1].split()) == summary(busy())
    assert WORKFLOW in text


def test_control_characters_from_user_files_are_not_written_to_the_terminal() -> None:
    timeline = busy()
    timeline.workflow = "evil\x1b]0;pwned\x07.yaml"
    text = render_terminal(timeline, width=120, color=False)
    assert "\x1b" not in text and "\x07" not in text


def test_a_timeline_with_no_turns_says_so() -> None:
    text = render_terminal(empty(), width=40, color=False)
    assert "no turns with usage figures" in text
    assert "session s-lone started" in text
