"""Richer shapes real projects give the v2.0 sub-sections, recognised as one problem each.

Projects evolve the format their own way: `gates_completed` as mappings with `id`/`score`/
`iterations`, `score_history.<gate>` as a mapping with an `iterations` list, `defect_summary`
counters named `total_defects`/`open_defects`, `compaction_events` as `timestamps` +
`recovery_notes`, decision or compaction entries without an `id`. Each is one problem for its
sub-section that says the mapping to the documented keys (instead of a C001, a C002 and a C007 for
one cause), a warning where the facts are all there, an error where `ctxres ack` or a hook cannot
work with it (a compaction event without an id: `ack` matches checkpoints to events by id).

Pure functions over the parsed section; :mod:`.conformance` drops the schema problems under a
recognised sub-section and reports the one problem instead.
"""

from __future__ import annotations

from ctxres.formats.document import JsonPath
from ctxres.records import FrozenRecord, init_field

# `ctxres check` loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

SECTION: JsonPath = ("resumption",)
# The kinds of the schema problem of a recognised shape: every fact there (a warning), or not workable
VARIANT, VARIANT_BLOCKING = "variant", "variant-blocking"


class Variant(FrozenRecord):
    """A sub-section written in a recognised richer shape: where, what maps to what, how serious."""

    __slots__ = ("blocking", "mapping", "path", "what")

    path: JsonPath
    what: str  # the shape, in words
    mapping: tuple[str, ...]  # "`theirs` -> `ours`" lines
    blocking: str  # why ack or a hook cannot work with it ("" for a warning)

    def __init__(self, path: JsonPath, what: str, mapping: tuple[str, ...], blocking: str = "") -> None:
        init_field(self, "path", path)
        init_field(self, "what", what)
        init_field(self, "mapping", mapping)
        init_field(self, "blocking", blocking)


def _mappings(items: Any) -> list[dict[str, Any]] | None:
    """The items when ``items`` is a non-empty list of mappings, else None."""
    if not isinstance(items, list) or not items or not all(isinstance(i, dict) for i in items):
        return None
    return items


def _trajectory(section: dict[str, Any]) -> Variant | None:
    trajectory = section.get("quality_trajectory")
    if not isinstance(trajectory, dict):
        return None
    mapping: list[str] = []
    gates = _mappings(trajectory.get("gates_completed"))
    if gates is not None and all(isinstance(g.get("id"), str) for g in gates):
        mapping.append("`gates_completed[*].id` -> `gates_completed` (the gate ids)")
        scored = any("score" in g or "scores" in g for g in gates)
        moved = {"id"}
        if scored and "score_history" not in trajectory:
            mapping.append("`gates_completed[*].score` -> `score_history.<gate>` (a list of scores per gate)")
            moved |= {"score", "scores"}
        mapping += _kept_beside("gates_completed[*]", gates, moved)
    history = trajectory.get("score_history")
    if isinstance(history, dict):
        nested = [v for v in history.values() if isinstance(v, dict) and isinstance(v.get("iterations"), list)]
        if nested:
            mapping.append("`score_history.<gate>.iterations` -> `score_history.<gate>` (the list itself)")
            mapping += _kept_beside("score_history.<gate>", nested, {"iterations"})
    if not mapping:
        return None
    return Variant((*SECTION, "quality_trajectory"), "gates and scores as mappings", tuple(mapping))


def _kept_beside(where: str, items: list[dict[str, Any]], moved: set[str]) -> list[str]:
    """The other keys of mappings that the shape collapses to one value (``final_score``, ``verdict``), so that
    following the mapping loses none of their facts: the project's own, with no documented place."""
    others = list(dict.fromkeys(key for item in items for key in item if key not in moved))
    if not others:
        return []
    keys = ", ".join(f"`{where}.{key}`" for key in others)
    return [f"{keys} -> the project's own facts (no documented place: keep them, under keys of your own)"]


_DEFECT_NAMES = {
    "total_defects": "total_defects_found",
    "resolved_defects": "total_defects_resolved",
    "open_defects": "unresolved_defects",
}


def _defects(section: dict[str, Any]) -> Variant | None:
    summary = section.get("defect_summary")
    if not isinstance(summary, dict):
        return None
    renamed = [(theirs, ours) for theirs, ours in _DEFECT_NAMES.items() if theirs in summary and ours not in summary]
    if not renamed:
        return None
    mapping = [f"`{theirs}` -> `{ours}`" for theirs, ours in renamed]
    if any(theirs == "open_defects" and not isinstance(summary[theirs], list) for theirs, _ in renamed):
        mapping[-1] += " (the ids of the open defects, not their number)"
    return Variant((*SECTION, "defect_summary"), "defect counters under other names", tuple(mapping))


def _compactions(section: dict[str, Any]) -> Variant | None:
    events = section.get("compaction_events")
    if not isinstance(events, dict):
        return None
    if "events" not in events and isinstance(events.get("timestamps"), list):
        mapping = ["`timestamps[*]` -> `events[*].timestamp`"]
        if "count" not in events:  # a count already there needs no mapping
            mapping.append("`len(timestamps)` -> `count`")
        if "recovery_notes" in events:
            mapping.append("`recovery_notes` -> the project's own notes (no documented place)")
        return Variant(
            (*SECTION, "compaction_events"),
            "compactions as a list of times",
            tuple(mapping),
        )
    listed = _mappings(events.get("events"))
    # entries written as documented but for their id (another shape altogether is C007's own error)
    if listed is not None and all("timestamp" in e for e in listed) and any("id" not in e for e in listed):
        return Variant(
            (*SECTION, "compaction_events"),
            "compaction events without an `id`",
            ("number them `CX-001`, `CX-002`, ... in order",),
            blocking="`ctxres ack` matches a checkpoint file to its compaction event by id",
        )
    return None


def _decisions(section: dict[str, Any]) -> Variant | None:
    for key in ("decision_log", "decisions"):
        entries = _mappings(section.get(key))
        if entries is not None and all("decision" in e for e in entries) and any("id" not in e for e in entries):
            return Variant(
                (*SECTION, key),
                "decisions without an `id`",
                ("number them `RD-001`, `RD-002`, ... in order",),
            )
    return None


def variants(section: Any) -> list[Variant]:
    """The recognised richer shapes of a v2.0 section's sub-sections, one per sub-section."""
    if not isinstance(section, dict):
        return []
    found = (_trajectory(section), _defects(section), _compactions(section), _decisions(section))
    return [v for v in found if v is not None]


def under(path: JsonPath, prefix: JsonPath) -> bool:
    """Whether ``path`` is ``prefix`` or inside it."""
    return path[: len(prefix)] == prefix
