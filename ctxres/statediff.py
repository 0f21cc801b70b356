"""Did the workflow advance while its resumption section stood still? (pure: two parsed documents in, moves out)

A commit (or a staged change) to an ORCHESTRATION file is *stale* when a state-bearing part of
the file moved and the resumption section did not move with it: a session that resumes from the
section would start from a state that is no longer true. This module compares two parsed
versions of one file; the git side (which versions to compare) lives in ``ctxres.git`` and the
commands in ``linters/cmd_stale.py`` and ``linters/cmd_audit.py``.

What is state-bearing
=====================

A moved state-bearing part must mean "the workflow advanced": a unit of work (the workflow, a
pipeline, a phase, an agent, a quality gate or barrier, an execution group, a checkpoint) changed
its lifecycle position. The definition was derived from every committed version of two real files
(``fixtures/corpus/history/PROJ-001-oss-release`` and ``PROJ-003-je-ne-sais-quoi``, 12 versions,
10 transitions) and checked against the 12 parseable files of ``fixtures/corpus/orchestration``.
In those files state lives in these top-level sections (nothing else is read):

* ``workflow`` (the workflow's own ``status``; some files add ``phase_0_status``,
  ``qg_1_status``...), ``pipelines`` (or a single ``pipeline``) with their ``phases``, the
  phases' ``agents`` (directly or in ``streams``/``tier_N`` groups) and their ``artifacts``;
* ``quality_gates`` (by gate id, a list, or under ``gates``), ``barriers`` and ``quality``
  (scores per iteration, as in ``quality.phase_scores.<agent>.iteration_2``);
* ``checkpoints`` (``latest_id`` and the ``entries`` log);
* ``agents`` (a top-level agent registry with statuses);
* ``execution_queue``: the scheduler's ``current_group`` and group ``status`` move exactly when
  work is handed to the next group (in the PROJ-001 history they always move with a phase or
  gate), and some files record review iterations only there.

and, inside them, in values whose *key* says what they are:

* lifecycle: ``status`` and any ``*_status`` (``workflow.phase_0_status``, an artifact's
  ``status`` when the agent produced it), ``verdict``, ``passed``. Every transition in the two histories
  moves at least one of these (``PENDING -> COMPLETE``, ``ACTIVE -> COMPLETE``,
  ``COMPLETE -> COMPLETE_SUPPLEMENTAL``);
* position: ``current_phase``, ``current_gate``, ``current_group``, ``current_iteration``,
  ``latest_id`` (``pipelines.lic.current_phase: 1 -> 2``, ``checkpoints.latest_id``);
* iterations: ``iteration``, ``iteration_<n>`` (``quality.phase_scores.<agent>.iteration_2``),
  ``iterations_complete`` (``ps-critic-001: 0 -> 6``), ``retry_count``;
* scores: ``score``, any ``*_score`` (``quality_score: 0.925 -> 0.953``), ``score_recorded``,
  ``composite``: a gate that re-scores has run another iteration even when no status moved;
* logs, compared by their entries and never descended into: ``iteration_history`` (by count:
  one more entry is one more gate iteration), checkpoint ``entries`` and ``iterations`` (by their
  ``id`` when every entry has one, else by count). Editing the prose of a past entry
  (``primary_defect``) is not an advance.

List items are matched by their ``id`` (else by position), so reordering a list moves nothing.

What is deliberately not state-bearing
======================================

* ``metrics``: derived counters and percentages (``phases_complete``, ``agents_percent``,
  ``timing.last_activity``). In both histories every metric change coincides with a status
  change it is computed from; alone, it is a recount (fixing ``agents_total``), not progress.
* ``next_actions``: the plan, rewritten as prose at every transition; editing the plan does not
  advance the workflow, and when the workflow advances a status moves too.
* ``blockers``, ``issues``, ``decisions``, ``risk_management``, ``document``, ``paths``,
  ``adversarial`` and any other section: tracking, configuration and reports. (Decisions and
  threshold changes, like PROJ-003 raising ``barrier-1.threshold`` from 0.92 to 0.95, are
  configuration; that commit is stale anyway because statuses moved.)
* inside the state sections: timestamps (``started_at``, ``completed_at``, ``updated_at``; they
  move with a status), prose (``name``, ``description``, ``role``, ``reason``, ``note``),
  configuration (``threshold``, ``max_iterations``, ``blocked_by``) and the sub-trees
  ``constraints``, ``strategies`` and ``score_bands`` (a strategy ranking such as
  ``composite_score: 4.4`` is not a gate score); per-dimension scores move with ``score``.
* comments, quoting, key order and whitespace: the comparison is over parsed data.
* a unit that appears in the plan not started yet (absent -> ``PENDING``/``BLOCKED``/
  ``READY``/null/0) or disappears from it before it started: re-planning, not progress.
  Once present, every change counts, ``BLOCKED -> READY`` included (a phase was unblocked).

When the resumption section moved
=================================

* v2.0 section (``detect_version``): ``recovery_state.updated_at`` advanced, i.e. it is a
  timestamp later than before (or it was absent/unparsable before). The update protocol (seed
  000) rewrites ``recovery_state`` at every trigger and sets ``updated_at`` every time.
* v1.0 section: the section's data differs from before (v1 has no timestamp to look at).
* A file whose new version has no ``resumption`` section is never stale: there is nothing to
  keep fresh, and a new file has no previous version to compare with.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from typing import Any

from ctxres.document import JsonPath, format_json_path
from ctxres.resumption import detect_version

# Top-level sections that hold the workflow's state.
STATE_SECTIONS = frozenset(
    {
        "workflow",
        "pipelines",
        "pipeline",
        "quality_gates",
        "quality",
        "barriers",
        "agents",
        "execution_queue",
        "checkpoints",
    }
)
# Configuration sub-trees inside those sections.
EXCLUDED_SUBTREES = frozenset({"constraints", "strategies", "score_bands"})
# Lists that are logs: compared by their entries' ids (or count), never descended into.
LOG_KEYS = frozenset({"iteration_history", "entries", "iterations"})
STATE_KEY = re.compile(
    r"(?:status|\w+_status|verdict|passed"
    r"|current_phase|current_gate|current_group|current_iteration|latest_id"
    r"|iteration|iteration_\d+|iterations_complete|retry_count"
    r"|score|\w+_score|score_recorded|composite)\Z"
)
# A unit that appears with one of these (or null/0) has been planned, not advanced.
NOT_STARTED = frozenset({"PENDING", "BLOCKED", "READY", "NOT_STARTED", "TODO", "PLANNED", "QUEUED", "WAITING"})

# Containers whose entries are units of work: key -> kind of each entry.
_ENTRY_KINDS = {
    "pipelines": "pipeline",
    "phases": "phase",
    "agents": "agent",
    "streams": "stream",
    "quality_gates": "gate",
    "gates": "gate",
    "barriers": "barrier",
    "groups": "group",
    "entries": "checkpoint",
    "phase_scores": "agent",
    "barrier_scores": "barrier",
}
# Keys whose entries are units of work only when they hold a list (an execution queue as a list of groups).
_LIST_ENTRY_KINDS = {"execution_queue": "group"}
# Keys that are one unit of work themselves: key -> (kind, name).
_SINGLE_UNITS = {
    "workflow": ("workflow", ""),
    "pipeline": ("pipeline", ""),
    "synthesis_agent": ("agent", "synthesis"),
    "execution_queue": ("execution queue", ""),
    "checkpoints": ("checkpoints", ""),
    "quality": ("quality", ""),
}
_NAMED_KINDS = frozenset({"phase", "group"})


@dataclass(frozen=True)
class Unit:
    """The unit of work a state value belongs to (``agent audit-executor``)."""

    kind: str
    name: str = ""
    # Where the unit starts in the document; a value's field name is its path below it.
    root: JsonPath = field(default=(), compare=False)

    def __str__(self) -> str:
        return f"{self.kind} {self.name}".strip()


@dataclass(frozen=True)
class Fact:
    """One state-bearing value: where it is, what it is, whose it is."""

    path: JsonPath
    field: str
    value: Any
    unit: Unit


@dataclass(frozen=True)
class Move:
    """A state-bearing value that changed: ``before`` and ``after`` are None when absent or null."""

    path: JsonPath
    field: str
    unit: Unit
    before: Any
    after: Any

    def describe(self) -> str:
        """``agent audit-executor status: PENDING -> COMPLETE``."""
        before, after = render_value(self.before, self.field), render_value(self.after, self.field)
        return f"{self.unit} {self.field}: {before} -> {after}"

    def as_json(self) -> dict[str, Any]:
        return {
            "path": format_json_path(self.path),
            "unit": str(self.unit),
            "kind": self.unit.kind,
            "field": self.field,
            "before": self.before,
            "after": self.after,
        }


@dataclass(frozen=True)
class Staleness:
    """Why a change must be blocked, and how to fix it."""

    moves: tuple[Move, ...]
    version: str
    stale: str
    fix: str


def render_value(value: Any, field: str = "") -> str:
    if value is None:
        return "(none)"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ", ".join(map(str, value)) if value else "(none)"
    if isinstance(value, int) and field in LOG_KEYS:
        return f"{value} {'entry' if value == 1 else 'entries'}"
    return str(value)


def _scalar_id(value: Any) -> str | None:
    return str(value) if isinstance(value, (str, int)) and not isinstance(value, bool) else None


def _identity(item: Any, kind: str | None) -> str | None:
    """An entry's ``id`` (or ``<kind>_id``, as in ``stream_id``)."""
    if not isinstance(item, dict):
        return None
    ident = _scalar_id(item.get("id"))
    if ident is None and kind:
        ident = _scalar_id(item.get(f"{kind}_id"))
    return ident


def _log_value(items: list[Any]) -> Any:
    if not items:
        return []
    ids = [_identity(item, None) for item in items]
    return ids if all(ident is not None for ident in ids) else len(items)


def _entry_unit(kind: str, key: str | int, item: Any, root: JsonPath) -> Unit:
    if isinstance(key, str):
        return Unit(kind, key, root)
    label = _identity(item, kind) or f"#{key + 1}"
    name = item.get("name") if isinstance(item, dict) else None
    if kind in _NAMED_KINDS and isinstance(name, str) and name.strip() and name != label:
        label += f' "{name.strip()}"'
    return Unit(kind, label, root)


def _fact(path: JsonPath, value: Any, unit: Unit) -> Fact:
    field = ""
    for part in path[len(unit.root) :] or path[-1:]:
        field += f"[{part}]" if isinstance(part, int) else f".{part}" if field else part
    return Fact(path, field, value, unit)


def _walk(node: Any, path: JsonPath, ident: tuple[str, ...], unit: Unit, out: dict[tuple[str, ...], Fact]) -> None:
    entries_of = _ENTRY_KINDS.get(str(path[-1])) if path else None
    if isinstance(node, dict):
        for key, value in node.items():
            if not isinstance(key, str) or key in EXCLUDED_SUBTREES:
                continue
            child_path, child_ident = (*path, key), (*ident, key)
            if key in LOG_KEYS and isinstance(value, list):
                out[child_ident] = _fact(child_path, _log_value(value), unit)
            elif STATE_KEY.match(key) and not isinstance(value, (dict, list)):
                out[child_ident] = _fact(child_path, value, unit)
            else:
                child_unit = unit
                if entries_of and isinstance(value, (dict, list)):
                    child_unit = _entry_unit(entries_of, key, value, child_path)
                elif key in _SINGLE_UNITS:
                    child_unit = Unit(*_SINGLE_UNITS[key], child_path)
                _walk(value, child_path, child_ident, child_unit, out)
    elif isinstance(node, list):
        entries_of = entries_of or _LIST_ENTRY_KINDS.get(str(path[-1]) if path else "")
        for index, item in enumerate(node):
            child_path = (*path, index)
            child_unit = _entry_unit(entries_of, index, item, child_path) if entries_of else unit
            ident_part = _identity(item, entries_of)
            _walk(item, child_path, (*ident, f"[id={ident_part}]" if ident_part else f"[{index}]"), child_unit, out)


def state_facts(data: Any) -> dict[tuple[str, ...], Fact]:
    """Every state-bearing value of a parsed ORCHESTRATION document, keyed by an identity path
    (list items by ``id``) so that the same value can be found in another version."""
    out: dict[tuple[str, ...], Fact] = {}
    if not isinstance(data, dict):
        return out
    for key, value in data.items():
        if key in STATE_SECTIONS and isinstance(value, (dict, list)):
            kind, name = _SINGLE_UNITS.get(key, (_ENTRY_KINDS.get(str(key), str(key)), ""))
            unit = Unit(kind, name, (key,))
            _walk(value, (key,), (key,), unit, out)
        elif isinstance(key, str) and STATE_KEY.match(key) and not isinstance(value, (dict, list)):
            # A flat file keeps the workflow's own status at the top level.
            out[(key,)] = _fact((key,), value, Unit("workflow"))
    return out


def _normal(value: Any) -> Any:
    return value.strip() if isinstance(value, str) else value


def _not_started(value: Any) -> bool:
    if value is None or value == [] or value == "":
        return True
    if isinstance(value, int) and not isinstance(value, bool):
        return value == 0
    return isinstance(value, str) and value.strip().upper() in NOT_STARTED


def _same(before: Any, after: Any) -> bool:
    if isinstance(before, bool) != isinstance(after, bool):
        return False
    return bool(_normal(before) == _normal(after))


def moved_state(old: Any, new: Any) -> list[Move]:
    """The state-bearing values that differ between two versions, in the order of the new one."""
    old_facts, new_facts = state_facts(old), state_facts(new)
    moves: list[Move] = []
    for key in [*new_facts, *(k for k in old_facts if k not in new_facts)]:
        was, now = old_facts.get(key), new_facts.get(key)
        before = was.value if was else None
        after = now.value if now else None
        if _same(before, after):
            continue
        if (before is None and _not_started(after)) or (after is None and _not_started(before)):
            continue
        fact = now or was
        assert fact is not None
        moves.append(Move(fact.path, fact.field, fact.unit, before, after))
    return moves


def resumption_section(data: Any) -> dict[str, Any] | None:
    section = data.get("resumption") if isinstance(data, dict) else None
    return section if isinstance(section, dict) else None


def parse_timestamp(value: Any) -> datetime | None:
    """An ISO 8601 date or date-time (``Z`` allowed; naive means UTC), else None."""
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=timezone.utc)
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day, tzinfo=timezone.utc)
    if not isinstance(value, str) or not value.strip():
        return None
    text = value.strip()
    if text[-1:] in ("Z", "z"):
        text = text[:-1] + "+00:00"
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)


def _updated_at(section: dict[str, Any] | None) -> Any:
    recovery = section.get("recovery_state") if section else None
    return recovery.get("updated_at") if isinstance(recovery, dict) else None


def resumption_moved(old: Any, new: Any) -> bool:
    """Whether the resumption section of ``new`` was updated since ``old``: for a v2.0 section,
    ``recovery_state.updated_at`` advanced; for a v1.0 section, the section changed at all."""
    old_section, new_section = resumption_section(old), resumption_section(new)
    if new_section is None:
        return False
    if detect_version(new_section) == "2.0":
        now = parse_timestamp(_updated_at(new_section))
        if now is None:
            return False
        before = parse_timestamp(_updated_at(old_section))
        return before is None or now > before
    return old_section != new_section


def _latest_checkpoint(data: Any) -> str | None:
    checkpoints = data.get("checkpoints") if isinstance(data, dict) else None
    if not isinstance(checkpoints, dict):
        return None
    latest = checkpoints.get("latest_id")
    if isinstance(latest, (str, int)) and not isinstance(latest, bool):
        return str(latest)
    entries = checkpoints.get("entries")
    if isinstance(entries, list) and entries and isinstance(entries[-1], dict) and entries[-1].get("id"):
        return str(entries[-1]["id"])
    return None


_PHASE_KINDS = frozenset({"pipeline", "phase", "stream", "group", "execution queue"})
_GATE_KINDS = frozenset({"gate", "barrier", "quality"})


def _v2_fields(moves: list[Move], latest: str | None) -> list[str]:
    kinds = {move.unit.kind for move in moves}
    fields: list[str] = []
    if "workflow" in kinds:
        fields.append("`recovery_state.workflow_status`")
    if kinds & _PHASE_KINDS:
        fields += ["`recovery_state.current_phase`", "`recovery_state.current_phase_name`"]
    if kinds & {"checkpoint", "checkpoints"}:
        fields.append(
            f'`recovery_state.last_checkpoint` (to "{latest}")' if latest else "`recovery_state.last_checkpoint`"
        )
    if kinds & _GATE_KINDS:
        fields.append("`quality_trajectory` (current gate, iteration, score history)")
    if "agent" in kinds:
        fields.append("`agent_summaries` (one line per finished agent)")
    return [*fields, "`recovery_state.current_activity`", "`recovery_state.next_step`"]


def _join(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _v2_stale(old_section: dict[str, Any] | None, new_section: dict[str, Any]) -> str:
    new_value, old_value = _updated_at(new_section), _updated_at(old_section)
    if new_value is None:
        return (
            "`resumption.recovery_state.updated_at` is missing, so nothing records when the section was last "
            "brought up to date"
        )
    if parse_timestamp(new_value) is None:
        return f"`resumption.recovery_state.updated_at` ({new_value!r}) is not an ISO 8601 timestamp"
    if _same(old_value, new_value):
        return (
            f"`resumption.recovery_state.updated_at` did not advance (still {new_value}): the section describes "
            "the state before this change"
        )
    return f"`resumption.recovery_state.updated_at` went backwards ({old_value} -> {new_value})"


def assess(old: Any, new: Any, *, example_time: str = "") -> Staleness | None:
    """Whether the change from ``old`` to ``new`` must be blocked: state moved, the section did not.

    ``example_time`` (an ISO 8601 timestamp) is quoted in the fix as the value to write.
    """
    new_section = resumption_section(new)
    if new_section is None or not isinstance(old, dict):
        return None
    moves = moved_state(old, new)
    if not moves or resumption_moved(old, new):
        return None
    latest = _latest_checkpoint(new)
    version = detect_version(new_section)
    if version == "2.0":
        when = f" (for example {example_time})" if example_time else ""
        fix = (
            "update the resumption section: set `resumption.recovery_state.updated_at` to the time of this "
            f"update{when} and bring up to date {_join(_v2_fields(moves, latest))}"
        )
        return Staleness(tuple(moves), version, _v2_stale(resumption_section(old), new_section), fix)
    return Staleness(tuple(moves), version, _v1_stale(new_section), _v1_fix(new_section, moves, latest))


_V1_STATE_KEYS = ("current_state", "next_step", "last_checkpoint")


def _v1_stale(section: dict[str, Any]) -> str:
    present = [f"`{key}`" for key in _V1_STATE_KEYS if key in section]
    if not present:
        return "the resumption section (v1.0) is unchanged: it still describes the state before this change"
    verb = "describes" if len(present) == 1 else "describe"
    return f"the resumption section (v1.0) is unchanged: {_join(present)} still {verb} the state before this change"


def _v1_fix(section: dict[str, Any], moves: list[Move], latest: str | None) -> str:
    fields = [f"`resumption.{key}`" for key in ("current_state", "next_step") if key in section]
    if any(move.unit.kind in ("checkpoint", "checkpoints") for move in moves):
        fields.append(f'`resumption.last_checkpoint` (to "{latest}")' if latest else "`resumption.last_checkpoint`")
    if not fields:
        return "update the resumption section: rewrite the fields that say where the workflow is and what comes next"
    return f"update the resumption section: rewrite {_join(fields)} to describe the new state"
