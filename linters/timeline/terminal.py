"""A timeline for the terminal: the fill per turn as bars with the tier thresholds marked, a marker row of
the events on the turn axis, turn and wall-time labels, the legend, the events listed, the summary.

Every line fits ``width`` columns (the chart's lines take all of them); colour (ANSI) only when asked,
and the text reads the same without it: each kind of event has its own letter.
"""

from __future__ import annotations

import bisect
import textwrap
import unicodedata
from collections.abc import Sequence

from ctxres.linters.timeline.data import STYLES, describe, iso, legend, summary
from ctxres.linters.timeline.model import Event, StaleStretch, Timeline, Turn

ROWS = 10
GUTTER = 5  # "100%" and the axis
BLOCKS = " ▁▂▃▄▅▆▇█"
TIER_ANSI = {"LOW": "32", "WARNING": "33", "CRITICAL": "31", "COMPACTION": "35"}
# Which marker wins a column when several events fall on it (the others move to a free column nearby).
PRIORITY = ("compaction", "checkpoint", "resumption", "merge", "phase-change", "section-update", "session")
MIN_WIDTH = 20


class _Paint:
    def __init__(self, color: bool) -> None:
        self.color = color

    def __call__(self, text: str, code: str | None) -> str:
        if not self.color or not code or not text.strip():
            return text
        return f"\x1b[{code}m{text}\x1b[0m"


def _cell_width(char: str) -> int:
    if unicodedata.combining(char):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def clip(text: str, width: int) -> str:
    """``text`` made printable (control characters shown as ``?``) and cut to ``width`` columns, with ``…``."""
    shown = "".join(c if c.isprintable() else "?" for c in text)
    if sum(_cell_width(c) for c in shown) <= width:
        return shown
    out, used = [], 0
    for char in shown:
        if used + _cell_width(char) > width - 1:
            break
        out.append(char)
        used += _cell_width(char)
    return "".join(out) + "…"


def _span(index: int, count: int, columns: int) -> range:
    """The turns (indices) drawn in chart column ``index``."""
    first = index * count // columns
    last = max(first + 1, (index + 1) * count // columns)
    return range(first, min(last, count))


def _column_turns(turns: Sequence[Turn], columns: int) -> list[Turn | None]:
    """For each column, the fullest turn drawn in it (None when there are no turns)."""
    if not turns:
        return [None] * columns
    return [max((turns[i] for i in _span(c, len(turns), columns)), key=lambda t: t.fill) for c in range(columns)]


def column_of(turn: int, numbers: Sequence[int], columns: int) -> int:
    """The chart column of an event after turn ``turn``: where the next turn begins."""
    if not numbers:
        return 0
    return min(columns - 1, bisect.bisect_right(numbers, turn) * columns // len(numbers))


def _chart(timeline: Timeline, columns: int, paint: _Paint) -> list[str]:
    drawn = _column_turns(timeline.turns, columns)
    marks = {min(ROWS - 1, int(t * ROWS + 1e-9)): t for t in timeline.thresholds}
    lines = []
    for row in range(ROWS - 1, -1, -1):
        label = f"{round(marks[row] * 100)}%" if row in marks else ("100%" if row == ROWS - 1 else "")
        cells = []
        for turn in drawn:
            eighths = 0 if turn is None else round(min(turn.fill, 1.0) * ROWS * 8) - row * 8
            if eighths > 0:
                cells.append(paint(BLOCKS[min(eighths, 8)], TIER_ANSI.get(turn.tier if turn else "")))
            else:
                cells.append(paint("╌", "2") if row in marks else " ")
        lines.append(f"{label:>4}{'┤' if row in marks else '│'}" + "".join(cells))
    return lines


def _labels(positions: list[tuple[int, str]], columns: int) -> str:
    """A row of ``columns`` characters with each text at its column, none overlapping (later ones dropped)."""
    row = [" "] * columns
    taken = -2
    for column, text in positions:
        start = min(column, columns - len(text))
        if start <= taken + 1 or start < 0:
            continue
        row[start : start + len(text)] = list(text)
        taken = start + len(text) - 1
    return "".join(row)


def _axis(timeline: Timeline, columns: int) -> list[str]:
    turns = timeline.turns
    ticks = sorted({c * (columns - 1) // max(1, columns // 14) for c in range(columns // 14 + 1)})
    axis = ["─"] * columns
    for column in ticks:
        axis[column] = "┬"
    lines = ["    └" + "".join(axis)]
    if not turns:
        lines.append("turn " + _labels([(0, "no turns with usage figures")], columns))
        return lines
    at = [(c, turns[_span(c, len(turns), columns)[0]]) for c in ticks]
    lines.append("turn " + _labels([(c, str(t.number)) for c, t in at], columns))
    lines.append(" UTC " + _labels([(c, iso(t.time)[11:16]) for c, t in at if t.time is not None], columns))  # type: ignore[index]
    return lines


def _markers(timeline: Timeline, columns: int, paint: _Paint) -> list[str]:
    numbers = [t.number for t in timeline.turns]
    row: list[str | None] = [None] * columns
    order = sorted((e for e in timeline.events if e.kind in PRIORITY), key=lambda e: (PRIORITY.index(e.kind), e.turn))
    for event in order:
        home = column_of(event.turn, numbers, columns)
        for step in (0, 1, -1, 2, -2, 3, -3):
            column = home + step
            if 0 <= column < columns and row[column] is None:
                row[column] = event.kind
                break
    lines = [" evt " + "".join(" " if k is None else paint(STYLES[k].glyph, STYLES[k].ansi) for k in row)]
    stale = [e for e in timeline.events if isinstance(e, StaleStretch)]
    if stale:
        band = [" "] * columns
        for stretch in stale:
            first = column_of(stretch.turn, numbers, columns)
            end = columns - 1 if stretch.end_turn is None else column_of(stretch.end_turn, numbers, columns)
            for column in range(first, max(first, end) + 1):
                band[column] = "~"
        lines.append("stale" + paint("".join(band), STYLES["stale"].ansi))
    return lines


def _legend(width: int, paint: _Paint) -> list[str]:
    """The kinds of :data:`EVENT_KINDS`, as many on a line as fit."""
    lines: list[str] = []
    current, used = "", 0
    for entry in legend():
        text = clip(f"{entry.style.glyph} {entry.style.label}", width)
        if used and used + 3 + len(text) > width:
            lines.append(current)
            current, used = "", 0
        current += ("   " if used else "") + paint(text[0], entry.style.ansi) + text[1:]
        used += (3 if used else 0) + len(text)
    return [*lines, current]


def _event_lines(event: Event, width: int, paint: _Paint) -> list[str]:
    """``turn time glyph what``, the words wrapped under themselves when they do not fit."""
    time = iso(event.time)
    head = f"{event.turn:>5} {'--:--' if time is None else time[11:16]} "
    style = STYLES[event.kind]
    room = width - len(head) - 2
    if room < 10:
        return [clip(f"{head}{style.glyph} {describe(event)}", width)]
    words = textwrap.wrap(clip(describe(event), 10 * width), room) or [""]
    lines = [head + paint(style.glyph, style.ansi) + " " + clip(words[0], room)]
    return lines + [" " * (len(head) + 2) + clip(more, room) for more in words[1:]]


def _header(timeline: Timeline, width: int) -> list[str]:
    sessions = len(timeline.sessions)
    times = [t.time for t in timeline.turns if t.time is not None] or [e.time for e in timeline.events if e.time]
    span = ""
    if times:
        first, last = iso(min(times)), iso(max(times))
        span = f", {first[:10]} {first[11:16]}–{last[11:16]} UTC" if first and last else ""
    lines = [clip(f"timeline: {sessions} session{'s' * (sessions != 1)}{span}", width)]
    return lines + ([clip(f"workflow: {timeline.workflow}", width)] if timeline.workflow else [])


def render_terminal(timeline: Timeline, *, width: int, color: bool) -> str:
    """The timeline in ``width`` columns (at least 20), with ANSI colour when ``color``."""
    width = max(width, MIN_WIDTH)
    columns = width - GUTTER
    paint = _Paint(color)
    lines = [*_header(timeline, width), ""]
    lines += _chart(timeline, columns, paint)
    lines += _axis(timeline, columns)
    lines += _markers(timeline, columns, paint)
    lines += ["", *_legend(width, paint), ""]
    lines += [clip(" turn  time   event", width)]
    lines += [line for event in timeline.events for line in _event_lines(event, width, paint)] or ["  (no events)"]
    for item in timeline.skipped:
        lines.append(clip(f"skipped {item.count} from {item.source}: {item.reason}", width))
    lines.append("")
    lines += textwrap.wrap(summary(timeline), width) or [""]
    return "\n".join(lines) + "\n"
