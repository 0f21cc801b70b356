"""A timeline as one self-contained HTML page: inline SVG and CSS, no script, no URL to fetch.

The SVG draws the fill per turn with the tier thresholds (dashed, labelled), stale stretches as shaded bands
with their length, one lane per kind of event (in the order of ``EVENT_KINDS``) with one marker element per
event (``class="marker <kind>"``, ``data-kind``, ``data-turn``; a ``<title>`` gives the details on hover),
the turn axis and wall-time ticks. Below it: the summary, the legend, and a table of the same events for
screen readers. Every text is escaped: workflow names and phases come from the user's files.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from html import escape

from ctxres.linters.timeline.data import describe, iso, legend, minutes_text, summary
from ctxres.linters.timeline.model import CheckpointWritten, Event, Resumed, StaleStretch, Timeline, Turn

WIDTH = 1000
LEFT, RIGHT = 130, 860  # the plot's x range
TOP, BOTTOM = 30, 260  # 100% and 0% fill
LANE_TOP, LANE = 330, 20
TIER_CSS = {"LOW": "#16a34a", "WARNING": "#ca8a04", "CRITICAL": "#dc2626", "COMPACTION": "#9333ea"}
TIER_NAMES = ("WARNING", "CRITICAL", "COMPACTION")
MAX_TURN_DOTS = 400

CSS = """
section.picture { padding: .5rem 0; background: #fff; }
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 1.5rem auto;
       max-width: 1040px; padding: 0 1rem; color: #1f2937; background: #fff; }
h1 { font-size: 1.35rem; margin: 0 0 .25rem; }
p.meta { color: #4b5563; margin: 0 0 .75rem; word-break: break-all; }
p.summary { font-weight: 600; background: #f3f4f6; padding: .5rem .75rem; border-radius: 6px; }
svg.chart { width: 100%; height: auto; display: block; }
svg text { font: 12px system-ui, sans-serif; fill: #374151; }
svg .axis line, svg .axis path { stroke: #6b7280; }
svg .threshold line { stroke-dasharray: 6 4; stroke-width: 1.2; }
svg .threshold text { font-weight: 600; }
svg .fill-line { fill: none; stroke: #1f2937; stroke-width: 2; }
svg .fill-area { fill: #93c5fd; opacity: .35; }
svg .stale-band rect { fill: #f59e0b; opacity: .18; }
svg .stale-band text { fill: #92400e; font-weight: 600; }
svg .lane-label { font-size: 12px; }
svg .lane line { stroke: #e5e7eb; }
svg .marker { stroke: #111827; stroke-width: .8; }
svg .marker.unmerged path { fill: #fff; stroke-width: 2; }
svg .marker.mismatch circle { stroke: #dc2626; stroke-width: 3; }
svg .compaction-rule { stroke-dasharray: 3 3; stroke-width: 1.5; }
ul.legend { list-style: none; padding: 0; display: grid; grid-template-columns: repeat(auto-fill, minmax(300px, 1fr));
            gap: .25rem 1rem; }
ul.legend li { display: flex; gap: .5rem; align-items: baseline; }
ul.legend svg { flex: none; }
table { border-collapse: collapse; width: 100%; margin-top: 1rem; }
caption { text-align: left; font-weight: 600; padding: .25rem 0; }
th, td { border-bottom: 1px solid #e5e7eb; padding: .25rem .5rem; text-align: left; vertical-align: top; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
"""


def _esc(text: object) -> str:
    return escape(str(text), quote=True)


def _fmt(number: float) -> str:
    return f"{number:.1f}".rstrip("0").rstrip(".")


class _Scale:
    """Turns to x, fill to y."""

    def __init__(self, turns: Sequence[Turn]) -> None:
        self.numbers = [t.number for t in turns]
        self.step = (RIGHT - LEFT) / max(1, len(turns))

    def turn_x(self, index: int) -> float:
        return LEFT + (index + 0.5) * self.step

    def event_x(self, turn: int) -> float:
        """Between turn ``turn`` and the next one (the plot's left edge before the first)."""
        if not self.numbers:
            return LEFT + 8
        return LEFT + bisect.bisect_right(self.numbers, turn) * self.step

    @staticmethod
    def y(fill: float) -> float:
        return BOTTOM - min(max(fill, 0.0), 1.0) * (BOTTOM - TOP)


def _thresholds(timeline: Timeline) -> list[str]:
    parts = []
    for value, name in zip(timeline.thresholds, TIER_NAMES, strict=False):
        y = _Scale.y(value)
        colour = TIER_CSS[name]
        parts.append(
            f'<g class="threshold" data-threshold="{_fmt(value * 100)}">'
            f'<line x1="{LEFT}" x2="{RIGHT}" y1="{y:.1f}" y2="{y:.1f}" stroke="{colour}"/>'
            f'<text x="{RIGHT + 6}" y="{y + 4:.1f}" fill="{colour}">{_fmt(value * 100)}% {name}</text></g>'
        )
    return parts


def _fill(timeline: Timeline, scale: _Scale) -> list[str]:
    turns = timeline.turns
    if not turns:
        return [
            f'<text x="{(LEFT + RIGHT) / 2}" y="{(TOP + BOTTOM) / 2}" text-anchor="middle">'
            "no turns with usage figures</text>"
        ]
    points = " ".join(f"{scale.turn_x(i):.1f},{scale.y(t.fill):.1f}" for i, t in enumerate(turns))
    first, last = scale.turn_x(0), scale.turn_x(len(turns) - 1)
    parts = [
        f'<polygon class="fill-area" points="{first:.1f},{BOTTOM} {points} {last:.1f},{BOTTOM}"/>',
        f'<polyline class="fill-line" points="{points}"><title>context fill per turn</title></polyline>',
    ]
    if len(turns) <= MAX_TURN_DOTS:
        for i, turn in enumerate(turns):
            time = iso(turn.time)
            when = "" if time is None else " at " + time
            detail = f"turn {turn.number}{when}: {turn.tokens:,} tokens, {round(turn.fill * 100)}% {turn.tier}"
            parts.append(
                f'<circle class="turn" cx="{scale.turn_x(i):.1f}" cy="{scale.y(turn.fill):.1f}" r="2.6" '
                f'fill="{TIER_CSS.get(turn.tier, "#6b7280")}"><title>{_esc(detail)}</title></circle>'
            )
    return parts


def _ticks(count: int) -> list[int]:
    if count <= 0:
        return []
    wanted = min(count, 10)
    return sorted({round(k * (count - 1) / max(1, wanted - 1)) for k in range(wanted)})


def _axes(timeline: Timeline, scale: _Scale) -> list[str]:
    parts = ['<g class="axis">']
    parts.append(f'<path d="M{LEFT},{TOP} V{BOTTOM} H{RIGHT}" fill="none"/>')
    for pct in (0, 25, 50, 75, 100):
        y = scale.y(pct / 100)
        parts.append(f'<text x="{LEFT - 8}" y="{y + 4:.1f}" text-anchor="end">{pct}%</text>')
    parts.append(f'<text x="{LEFT - 16}" y="{BOTTOM + 22}" text-anchor="end">turn</text>')
    parts.append(f'<text x="{LEFT - 16}" y="{BOTTOM + 40}" text-anchor="end">time (UTC)</text>')
    for index in _ticks(len(timeline.turns)):
        turn = timeline.turns[index]
        x = scale.turn_x(index)
        parts.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{BOTTOM}" y2="{BOTTOM + 6}"/>')
        parts.append(f'<text class="turn-tick" x="{x:.1f}" y="{BOTTOM + 22}" text-anchor="middle">{turn.number}</text>')
        time = iso(turn.time)
        if time is not None:
            parts.append(
                f'<text class="time-tick" x="{x:.1f}" y="{BOTTOM + 40}" text-anchor="middle">{time[11:16]}</text>'
            )
    parts.append("</g>")
    return parts


def _stale_bands(timeline: Timeline, scale: _Scale) -> list[str]:
    parts = []
    for event in timeline.events:
        if not isinstance(event, StaleStretch):
            continue
        start = scale.event_x(event.turn)
        end = RIGHT if event.end_turn is None else scale.event_x(event.end_turn)
        length = "length unknown" if event.minutes is None else minutes_text(event.minutes)
        label = f"stale {length}" + (" (open)" if event.end_turn is None and event.end_time is None else "")
        parts.append(
            f'<g class="stale-band" data-turn="{event.turn}"><title>{_esc(describe(event))}</title>'
            f'<rect x="{start:.1f}" y="{TOP}" width="{max(end - start, 3):.1f}" height="{BOTTOM - TOP}"/>'
            f'<text x="{start + 4:.1f}" y="{TOP + 14}">{_esc(label)}</text></g>'
        )
    return parts


def _shape(event: Event, x: float, y: float, colour: str, scale: _Scale) -> str:
    if event.kind == "compaction":
        return f'<path d="M{x - 7:.1f},{y - 6} L{x + 7:.1f},{y - 6} L{x:.1f},{y + 7} Z" fill="{colour}"/>'
    if event.kind == "checkpoint":
        diamond = f"M{x:.1f},{y - 7} L{x + 7:.1f},{y} L{x:.1f},{y + 7} L{x - 7:.1f},{y} Z"
        return f'<path d="{diamond}" fill="{colour}" stroke="{colour}"/>'
    if isinstance(event, StaleStretch):
        end = RIGHT if event.end_turn is None else scale.event_x(event.end_turn)
        return f'<rect x="{x:.1f}" y="{y - 5}" width="{max(end - x, 4):.1f}" height="10" rx="3" fill="{colour}"/>'
    if event.kind == "session":
        return f'<rect x="{x - 5:.1f}" y="{y - 6}" width="10" height="12" fill="{colour}"/>'
    return f'<circle cx="{x:.1f}" cy="{y}" r="5.5" fill="{colour}"/>'


def _classes(event: Event) -> str:
    extra = ""
    if isinstance(event, CheckpointWritten):
        extra = " unmerged" if event.merged_at is None else " merged"
    elif isinstance(event, Resumed) and event.matches is False:
        extra = " mismatch"
    return f"marker {event.kind}{extra}"


def _lanes(timeline: Timeline, scale: _Scale) -> list[str]:
    entries = legend()
    lane_of = {entry.kind: i for i, entry in enumerate(entries)}
    parts = ['<g class="lane">']
    for i, entry in enumerate(entries):
        y = LANE_TOP + i * LANE
        parts.append(f'<line x1="{LEFT}" x2="{RIGHT}" y1="{y}" y2="{y}"/>')
        parts.append(
            f'<text class="lane-label" x="{LEFT - 8}" y="{y + 4}" text-anchor="end">{_esc(entry.style.label)}</text>'
        )
    parts.append("</g>")
    for event in timeline.events:
        entry = entries[lane_of[event.kind]]
        x = scale.event_x(event.turn)
        y = LANE_TOP + lane_of[event.kind] * LANE
        time = iso(event.time)
        title = f"turn {event.turn}{'' if time is None else ' at ' + time}: {describe(event)}"
        rule = ""
        if event.kind == "compaction":
            rule = (
                f'<path class="compaction-rule" d="M{x:.1f},{TOP} V{BOTTOM} M{x:.1f},{BOTTOM + 48} V{y}"'
                f' stroke="{entry.style.css}" fill="none"/>'
            )
        parts.append(
            f'<g class="{_classes(event)}" data-kind="{event.kind}" data-turn="{event.turn}"'
            f' data-time="{_esc(time or "")}"><title>{_esc(title)}</title>{rule}'
            f"{_shape(event, x, y, entry.style.css, scale)}</g>"
        )
    return parts


def _svg(timeline: Timeline) -> str:
    scale = _Scale(timeline.turns)
    height = LANE_TOP + len(legend()) * LANE + 10
    parts = [
        f'<svg class="chart" viewBox="0 0 {WIDTH} {height}" role="img" aria-labelledby="chart-title">',
        '<title id="chart-title">Context fill per turn, compactions, checkpoints, workflow events</title>',
        f'<text x="{LEFT - 8}" y="{TOP - 12}" text-anchor="end" font-weight="600">context fill</text>',
        *_stale_bands(timeline, scale),
        *_thresholds(timeline),
        *_fill(timeline, scale),
        *_axes(timeline, scale),
        *_lanes(timeline, scale),
        "</svg>",
    ]
    return "\n".join(parts)


def _legend() -> str:
    items = []
    for entry in legend():
        swatch = (
            f'<svg width="14" height="14" viewBox="0 0 14 14" aria-hidden="true">'
            f'<rect x="1" y="1" width="12" height="12" rx="3" fill="{entry.style.css}"/></svg>'
        )
        items.append(
            f'<li class="legend-item" data-kind="{entry.kind}">{swatch}<span><strong>{_esc(entry.style.label)}</strong>'
            f" ({_esc(entry.style.glyph)}): {_esc(entry.style.meaning)}</span></li>"
        )
    return '<ul class="legend" aria-label="legend">' + "".join(items) + "</ul>"


def _table(timeline: Timeline) -> str:
    rows = []
    for event in timeline.events:
        time = iso(event.time)
        rows.append(
            f'<tr data-kind="{event.kind}"><td class="num">{event.turn}</td><td>{_esc(time or "unknown")}</td>'
            f"<td>{_esc(event.kind)}</td><td>{_esc(describe(event))}</td></tr>"
        )
    body = "".join(rows) or '<tr><td colspan="4">no events</td></tr>'
    return (
        '<table class="events"><caption>Events, in time order</caption><thead><tr><th scope="col">Turn</th>'
        '<th scope="col">Time (UTC)</th><th scope="col">Kind</th><th scope="col">What happened</th></tr></thead>'
        f"<tbody>{body}</tbody></table>"
    )


def _skipped(timeline: Timeline) -> str:
    if not timeline.skipped:
        return ""
    items = "".join(f"<li>{item.count} from {_esc(item.source)}: {_esc(item.reason)}</li>" for item in timeline.skipped)
    return f'<h2>Skipped</h2><ul class="skipped">{items}</ul>'


def render_page(timeline: Timeline) -> str:
    """The whole page, as text (UTF-8)."""
    sessions = ", ".join(timeline.sessions) or "none"
    workflow = "" if timeline.workflow is None else f" · workflow {_esc(timeline.workflow)}"
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en"><head><meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            "<title>ctxres timeline</title>",
            f"<style>{CSS}</style></head><body>",
            "<main>",
            "<h1>ctxres timeline</h1>",
            f'<p class="meta">sessions {_esc(sessions)}{workflow}</p>',
            '<section class="picture">',
            f'<p class="summary">{_esc(summary(timeline))}</p>',
            _svg(timeline),
            "<h2>Legend</h2>",
            _legend(),
            "</section>",
            _table(timeline),
            _skipped(timeline),
            "</main></body></html>",
            "",
        ]
    )
