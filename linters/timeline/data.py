"""A timeline as data: the JSON of ``--output-format json`` (``schemas/timeline.schema.json``), the one-line
summary every output ends with, and the legend of event kinds the terminal and the page draw.

The legend is made from :data:`~ctxres.linters.timeline.model.EVENT_KINDS` (the one table of kinds, in its
order); :data:`STYLES` only says how each kind looks, keyed by its ``kind`` and held to the table by a test.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from typing import Any, NamedTuple

from ctxres.linters.timeline.model import (
    EVENT_KINDS,
    CheckpointMerged,
    CheckpointWritten,
    Compaction,
    Event,
    PhaseChanged,
    Resumed,
    SectionUpdated,
    StaleStretch,
    Timeline,
)
from ctxres.timestamps import as_utc

SCHEMA_VERSION = "1.0"


class Style(NamedTuple):
    """How a kind of event is drawn and told: a one-character ``glyph`` (the terminal's marker, readable
    without colour), a short ``label``, what it means (``meaning``, one sentence for the legend), an ANSI
    colour code (``ansi``) and a CSS colour (``css``)."""

    glyph: str
    label: str
    meaning: str
    ansi: str
    css: str


STYLES: dict[str, Style] = {
    "session": Style("S", "session start", "a session began: a new one, a resume or a continue.", "36", "#0e7490"),
    "compaction": Style(
        "C", "compaction", "the client compacted the conversation (tokens before→after).", "1;31", "#b91c1c"
    ),
    "checkpoint": Style(
        "K", "checkpoint", "PreCompact wrote a checkpoint; hollow while it is unmerged.", "1;34", "#1d4ed8"
    ),
    "merge": Style("M", "merge", "ctxres ack merged a checkpoint into the resumption section.", "32", "#15803d"),
    "section-update": Style(
        "U", "section update", "the resumption section was updated (its updated_at moved).", "35", "#7e22ce"
    ),
    "phase-change": Style("P", "phase change", "the workflow's current phase moved.", "33", "#a16207"),
    "stale": Style("~", "stale", "the workflow's state moved and its resumption section did not.", "2;33", "#d97706"),
    "resumption": Style(
        "R",
        "resumption",
        "what SessionStart told the model; ringed red when the file said another phase.",
        "36",
        "#0f766e",
    ),
}


class LegendEntry(NamedTuple):
    kind: str
    style: Style


def kind_of(cls: type[Event]) -> str:
    """The ``kind`` a class of event carries (its field's default)."""
    for item in dataclasses.fields(cls):
        if item.name == "kind":
            return str(item.default)
    raise TypeError(f"{cls.__name__} has no kind")


def legend() -> list[LegendEntry]:
    """One entry per kind of :data:`EVENT_KINDS`, in its order."""
    return [LegendEntry(kind_of(cls), STYLES[kind_of(cls)]) for cls in EVENT_KINDS]


# ---------------------------------------------------------------------------------------------------- JSON


def iso(moment: dt.datetime | None) -> str | None:
    """ISO-8601 in UTC with ``Z`` (a naive time is taken as UTC); milliseconds only when there are some."""
    if moment is None:
        return None
    utc = as_utc(moment)
    spec = "milliseconds" if utc.microsecond else "seconds"
    return utc.replace(tzinfo=None).isoformat(timespec=spec) + "Z"


def _plain(value: object) -> Any:
    if isinstance(value, dt.datetime):
        return iso(value)
    if isinstance(value, tuple):
        return [_plain(item) for item in value]
    return value


def _record(item: object) -> dict[str, Any]:
    """A dataclass instance as a JSON object, ``kind`` first when it has one."""
    fields = {f.name: _plain(getattr(item, f.name)) for f in dataclasses.fields(item)}  # type: ignore[arg-type]
    if "kind" in fields:
        return {"kind": fields.pop("kind"), **fields}
    return fields


def to_data(timeline: Timeline) -> dict[str, Any]:
    """The timeline as JSON types (``schemas/timeline.schema.json``): every event with its ``kind``, every
    time ISO-8601 in UTC with ``Z``, and the summary line."""
    return {
        "schema_version": SCHEMA_VERSION,
        "sessions": list(timeline.sessions),
        "workflow": timeline.workflow,
        "thresholds": list(timeline.thresholds),
        "summary": summary(timeline),
        "turns": [_record(turn) for turn in timeline.turns],
        "events": [_record(event) for event in timeline.events],
        "skipped": [_record(item) for item in timeline.skipped],
    }


# ------------------------------------------------------------------------------------------------- summary


def tokens_text(tokens: int | None) -> str:
    """``164k``, ``3.6k``, ``950``, ``1.2M``; ``?`` when unknown."""
    if tokens is None:
        return "?"
    if tokens < 1000:
        return str(tokens)
    if tokens < 10_000:
        return f"{tokens / 1000:.1f}".rstrip("0").rstrip(".") + "k"
    if tokens < 1_000_000:
        return f"{round(tokens / 1000)}k"
    return f"{tokens / 1_000_000:.1f}".rstrip("0").rstrip(".") + "M"


def minutes_text(minutes: float) -> str:
    """``12 min``, ``<1 min``, ``2 h 5 min``."""
    whole = round(minutes)
    if minutes < 1:
        return "<1 min"
    if whole < 60:
        return f"{whole} min"
    hours, rest = divmod(whole, 60)
    return f"{hours} h {rest} min" if rest else f"{hours} h"


def _plural(count: int, noun: str, plural: str = "") -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {plural or noun + 's'}"


def _compactions(events: list[Event]) -> str:
    done = [e for e in events if isinstance(e, Compaction)]
    if not done:
        return "no compactions"
    figures = ", ".join(f"{tokens_text(e.pre_tokens)}→{tokens_text(e.post_tokens)}" for e in done)
    return f"{_plural(len(done), 'compaction')} ({figures})"


def _checkpoints(events: list[Event]) -> str:
    written = [e for e in events if isinstance(e, CheckpointWritten)]
    if not written:
        return "no checkpoints"
    unmerged = sum(1 for e in written if e.merged_at is None)
    return f"{_plural(len(written), 'checkpoint')}, " + (f"{unmerged} unmerged" if unmerged else "all merged")


def stale_text(stretch: StaleStretch) -> str:
    """``12 min after turn 41``, ``12 min after turn 41 (still open)``, ``after turn 41 (length unknown)``."""
    length = "" if stretch.minutes is None else minutes_text(stretch.minutes) + " "
    notes = [] if stretch.minutes is not None else ["length unknown"]
    if stretch.end_turn is None and stretch.end_time is None:
        notes.append("still open")
    return f"{length}after turn {stretch.turn}" + (f" ({', '.join(notes)})" if notes else "")


def _stale(events: list[Event]) -> str:
    stretches = [e for e in events if isinstance(e, StaleStretch)]
    if not stretches:
        return "never stale"
    return "stale " + " and ".join(stale_text(e) for e in stretches)


def summary(timeline: Timeline) -> str:
    """One line: compactions with tokens before→after (``?`` where not recorded), checkpoints and how many are
    unmerged, every stale stretch with its length and the turn it began after; then, when there are some,
    resumptions that named another phase than the file's, and what the readers skipped."""
    events = timeline.events
    parts = [_compactions(events), _checkpoints(events), _stale(events)]
    if not timeline.turns:
        parts.insert(0, "no turns")
    wrong = sum(1 for e in events if isinstance(e, Resumed) and e.matches is False)
    if wrong:
        parts.append(f"{_plural(wrong, 'resumption')} named another phase than the file")
    skipped = sum(item.count for item in timeline.skipped)
    if skipped:
        parts.append(f"{_plural(skipped, 'entry', 'entries')} skipped")
    return ", ".join(parts)


# ------------------------------------------------------------------------------------------ event in words


def _hhmm(moment: dt.datetime | None) -> str:
    text = iso(moment)
    return "?" if text is None else text[11:16]


def _phase(name: str | None) -> str:
    return "none" if name is None else name


def describe(event: Event) -> str:
    """One event in words (the terminal's list, the page's table and hover titles)."""
    if isinstance(event, Compaction):
        took = "" if event.duration_ms is None else f", {event.duration_ms / 1000:.0f} s"
        figures = f"{tokens_text(event.pre_tokens)}→{tokens_text(event.post_tokens)}"
        return f"compaction ({event.trigger}{took}): {figures} tokens"
    if isinstance(event, CheckpointWritten):
        merged = "unmerged" if event.merged_at is None else f"merged at {_hhmm(event.merged_at)}"
        return f"checkpoint {event.checkpoint} written ({event.trigger}), {merged}"
    if isinstance(event, CheckpointMerged):
        return f"checkpoint {event.checkpoint} merged (ack)"
    if isinstance(event, StaleStretch):
        return f"stale {stale_text(event)}: {', '.join(event.moves) or 'state'} moved, section did not"
    if isinstance(event, Resumed):
        return _resumed(event)
    if isinstance(event, SectionUpdated):
        where = event.source + ("" if event.revision is None else f" {event.revision}")
        return f"resumption section updated ({where}), phase {_phase(event.phase)}"
    if isinstance(event, PhaseChanged):
        return f"phase {_phase(event.before)} → {_phase(event.after)}"
    return f"session {event.session_id} started ({event.how})"


def _resumed(event: Resumed) -> str:
    told = f"resumed ({event.source}{'' if event.checkpoint is None else ' from ' + event.checkpoint}): told phase "
    told += _phase(event.told_phase)
    if event.matches is None and event.file_phase is None:
        return told + "; the file's phase then is not known"
    if event.matches is None:
        return told + f"; the file said {_phase(event.file_phase)}"
    if event.matches:
        return told + ", as the file said"
    return told + f", but the file said {_phase(event.file_phase)}"
