"""Did the workflow advance while its resumption section stood still? (pure: two parsed documents in, moves out)

A commit (or a staged change) to an ORCHESTRATION file is *stale* when a state-bearing part of
the file moved and the resumption section did not move with it: a session that resumes from the
section would start from a state that is no longer true. This module compares two parsed
versions of one file; it is the one comparison behind ``ctxres stale`` (pre-commit and
``--since``), ``ctxres check --since`` (rule S013) and ``ctxres audit-history`` (all three through
``compare_versions`` in ``linters/checking/commit_comparison.py``; the git side lives in ``ctxres.git``), and the
PostToolUse hook imports it too: standard library only at import time (no ``dataclasses``, no
``typing``, no ``ctxres.formats.document``), the records are named tuples and a slotted class.

What is state-bearing
=====================

A moved state-bearing part must mean "the workflow advanced": a unit of work (the workflow, a
pipeline, a phase, a task, an agent, a quality gate or barrier, an execution group, a checkpoint)
changed its lifecycle position. The definition was derived from every committed version of two
real files (``fixtures/corpus/history/PROJ-001-oss-release`` and ``PROJ-003-je-ne-sais-quoi``, 12
versions, 10 transitions), checked against the parseable files of ``fixtures/corpus/orchestration``
and extended to the layouts of ``fixtures/state-model`` (tasks nested in a phases list, files
without pipelines). State is read everywhere outside the resumption section, in these top-level
sections (nothing else is read):

* ``workflow`` (the workflow's own ``status``, ``current_pipeline``; some files add
  ``phase_0_status``, ``qg_1_status``...), ``pipelines`` (or a single ``pipeline``) with their
  ``phases`` (a mapping or a list), the phases' ``tasks`` and ``agents`` (directly or in
  ``streams``/``tier_N`` groups) and their ``artifacts``;
* top-level ``phases`` and ``tasks`` (a file without pipelines), ``agents`` (an agent registry);
* ``quality_gates`` (by gate id, a list, or under ``gates``), ``barriers``/``sync_barriers`` and
  ``quality`` (scores per iteration, as in ``quality.phase_scores.<agent>.iteration_2``);
* ``checkpoints`` (``latest_id`` and the ``entries`` log, or a list of checkpoints);
* ``execution_queue``/``execution_groups``: the scheduler's ``current_group`` and group
  ``status`` move exactly when work is handed to the next group (in the PROJ-001 history they
  always move with a phase or gate), and some files record review iterations only there;
* a flat file's top-level scalars (``status``, ``current_phase``...).

and, inside them, in values whose *key* says what they are:

* lifecycle: ``status``, ``state`` and any ``*_status`` (``workflow.phase_0_status``, an
  artifact's ``status`` when the agent produced it), ``verdict``, ``passed``, ``accepted`` (a task
  accepted ``false -> true``) and ``blocked_by`` (a dependency list, compared as a set: clearing
  it unblocks the unit). Every transition in the two histories moves at least one of these
  (``PENDING -> COMPLETE``, ``ACTIVE -> COMPLETE``, ``COMPLETE -> COMPLETE_SUPPLEMENTAL``);
* position: ``current_phase``, ``current_pipeline``, ``current_gate``, ``current_group``,
  ``current_iteration``, ``latest_id`` (``pipelines.lic.current_phase: 1 -> 2``);
* iterations: ``iteration``, ``iteration_<n>`` (``quality.phase_scores.<agent>.iteration_2``),
  ``iterations_complete`` (``ps-critic-001: 0 -> 6``), ``retry_count``;
* scores: ``score``, any ``*_score`` (``quality_score: 0.925 -> 0.953``), ``score_recorded``,
  ``composite``, and score lists: ``scores``/``*_scores`` holding a list of numbers is one value,
  the list (``quality_scores: [] -> [0.91]``): a gate that re-scores has run another iteration
  even when no status moved;
* logs, compared by their entries and never descended into: ``iteration_history`` (by count:
  one more entry is one more gate iteration), checkpoint ``entries``/``checkpoints`` and
  ``iterations`` (by their ``id`` when every entry has one, else by count). Editing the prose of a
  past entry (``primary_defect``) is not an advance.

List items are matched by their ``id`` (else by position), so reordering a list moves nothing.
A task is named with its phase (``phase 1 task T1``): task ids repeat from phase to phase.

A move is a value that changed, or a state key added to or removed from a unit that both
versions have (``status: BLOCKED -> (removed)``: the unit left its blocked state, whatever the
writer meant by deleting the key; ``(absent) -> COMPLETE``). A key whose value says nothing
(null, ``""``, ``[]``) is the same as no key: ``score: null`` removed is not a move.

What is deliberately not state-bearing
======================================

* ``metrics``: derived counters and percentages (``phases_complete``, ``agents_percent``,
  ``timing.last_activity``), wherever they sit. In both histories every metric change coincides
  with a status change it is computed from; alone, it is a recount (fixing ``agents_total``),
  not progress.
* ``next_actions``, wherever it sits: the plan, rewritten as prose at every transition; editing
  the plan does not advance the workflow, and when the workflow advances a status moves too.
* ``blockers``, ``issues``, ``decisions``, ``risk_management``, ``document``, ``paths``,
  ``adversarial`` and any other section: tracking, configuration and reports. (Decisions and
  threshold changes, like PROJ-003 raising ``barrier-1.threshold`` from 0.92 to 0.95, are
  configuration; that commit is stale anyway because statuses moved.)
* inside the state sections: timestamps (``started_at``, ``completed_at``, ``updated_at``; they
  move with a status), prose (``name``, ``title``, ``description``, ``role``, ``reason``,
  ``note``), configuration (``threshold``, ``max_iterations``) and the sub-trees ``constraints``,
  ``strategies`` and ``score_bands`` (a strategy ranking such as ``composite_score: 4.4`` is not a
  gate score); per-dimension scores move with ``score``.
* comments, quoting, key order and whitespace: the comparison is over parsed data.
* a whole unit that appears in the plan not started yet (absent -> ``PENDING``/``BLOCKED``/
  ``READY``/null/0/false/[], any ``blocked_by``) or disappears from it before it started:
  re-planning, not progress. Once present, every change counts, ``BLOCKED -> READY`` included
  (a phase was unblocked), and so does a state key added or removed.

When the resumption section moved
=================================

* v2.0 section (``detect_version``) with a parsable ``recovery_state.updated_at``: it advanced,
  i.e. it is a timestamp later than before (or it was absent/unparsable before). The update
  protocol (docs/protocol/resumption-update-protocol.md) rewrites ``recovery_state`` at every trigger
  and sets ``updated_at`` every time.
* v2.0 section without a parsable ``updated_at`` (missing or not a timestamp: rule C001's
  finding, not a stale commit) and v1.0 section (no timestamp to look at): the section's data
  differs from before. Rewritten in the same commit as the state move, it is not stale; left
  as it was, it is.
* A file whose new version has no ``resumption`` section is never stale: there is nothing to
  keep fresh, and a new file has no previous version to compare with.

Lines
=====

:func:`extract`, :func:`moved_state` and :func:`assess` take an optional ``locate(path) ->
line`` for the new version (a caller with a :class:`ctxres.formats.document.Document` passes ``lambda p:
doc.locate(p, key=True).line``); ``Fact.line``/``Move.line`` are None without it. A removed key
has no line of its own: its move carries the line of its unit in the new version.
"""

from __future__ import annotations

import collections
import re

from ctxres.state.orchestration import is_not_started
from ctxres.timestamps import parse_datetime

# A hook loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    import datetime as dt
    from collections.abc import Callable
    from typing import Any, NamedTuple

    from ctxres.formats.document import JsonPath

    Locate = Callable[[JsonPath], int | None]

# Top-level sections that hold the workflow's state.
STATE_SECTIONS = frozenset(
    {
        "workflow",
        "pipelines",
        "pipeline",
        "phases",
        "tasks",
        "quality_gates",
        "quality",
        "barriers",
        "sync_barriers",
        "agents",
        "execution_queue",
        "execution_groups",
        "checkpoints",
    }
)
# Sub-trees never read, wherever they sit: configuration, derived counters and the plan.
EXCLUDED_SUBTREES = frozenset({"constraints", "strategies", "score_bands", "metrics", "next_actions"})
# Lists that are logs: compared by their entries' ids (or count), never descended into.
LOG_KEYS = frozenset({"iteration_history", "entries", "iterations", "checkpoints"})
STATE_KEY = re.compile(
    r"(?:status|\w+_status|state|verdict|passed|accepted|blocked_by"
    r"|current_phase|current_pipeline|current_gate|current_group|current_iteration|latest_id"
    r"|iteration|iteration_\d+|iterations_complete|retry_count"
    r"|score|\w+_score|score_recorded|composite)\Z"
)
# Keys whose value may be a list of scalars, compared as one value (``quality_scores: [0.88, 0.91]``).
LIST_STATE_KEY = re.compile(r"(?:blocked_by|scores|\w+_scores)\Z")
# Dependencies: their order means nothing, and a unit that appears with them has not started.
_DEPENDENCY_KEYS = frozenset({"blocked_by"})
# Containers whose entries are units of work: key -> kind of each entry.
_ENTRY_KINDS = {
    "pipelines": "pipeline",
    "phases": "phase",
    "tasks": "task",
    "agents": "agent",
    "streams": "stream",
    "quality_gates": "gate",
    "gates": "gate",
    "barriers": "barrier",
    "sync_barriers": "barrier",
    "groups": "group",
    "execution_groups": "group",
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
# Kinds whose ids repeat from one parent to the next (``T1`` in every phase): named with their parent.
_QUALIFIED_KINDS = frozenset({"task"})

# Identity of a value across versions: its path with list items named by their id (``[id=T1]``).
Key = tuple[str, ...]


class Unit:
    """The unit of work a state value belongs to (``agent audit-executor``, ``phase 1 task T1``)."""

    __slots__ = ("key", "kind", "name", "root", "within")

    def __init__(self, kind: str, name: str = "", root: JsonPath = (), key: Key = (), within: str = "") -> None:
        self.kind = kind
        self.name = name
        # Where the unit starts in the document; a value's field name is its path below it.
        self.root = root
        # The unit's identity path (list items by id), the same in every version that has the unit.
        self.key = key
        # The parent unit, for kinds whose names are only unique inside it (``phase 1``).
        self.within = within

    def __str__(self) -> str:
        return f"{self.within} {self.kind} {self.name}".strip()

    def __repr__(self) -> str:
        return f"Unit({self.kind!r}, {self.name!r}, within={self.within!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Unit):
            return NotImplemented
        return (self.kind, self.name, self.within) == (other.kind, other.name, other.within)

    def __hash__(self) -> int:
        return hash((self.kind, self.name, self.within))

    def label(self) -> str:
        """The unit without its quoted name (``phase 1``), to name what is inside it."""
        return f"{self.within} {self.kind} {self.name.split(' ', 1)[0]}".strip()


if TYPE_CHECKING:  # pragma: no cover

    class _FactFields(NamedTuple):
        path: JsonPath
        field: str
        value: Any
        unit: Unit
        line: int | None = None

    class _MoveFields(NamedTuple):
        path: JsonPath
        field: str
        unit: Unit
        before: Any
        after: Any
        line: int | None = None
        # How each side was written when the key is absent: "" (present), "absent" or "removed".
        change: str = ""

    class _StalenessFields(NamedTuple):
        moves: tuple[Move, ...]
        version: str
        stale: str
        fix: str
else:
    _FactFields = collections.namedtuple("_FactFields", "path field value unit line", defaults=(None,))
    _MoveFields = collections.namedtuple("_MoveFields", "path field unit before after line change", defaults=(None, ""))
    _StalenessFields = collections.namedtuple("_StalenessFields", "moves version stale fix")


class Fact(_FactFields):
    """One state-bearing value: where it is (path, and line when the caller knows positions), what
    it is, whose it is."""

    __slots__ = ()


ADDED, REMOVED = "added", "removed"


class Move(_MoveFields):
    """A state-bearing value that changed: ``before``/``after`` are None when absent or null;
    ``change`` is ``"added"`` or ``"removed"`` when the key itself appeared or disappeared.
    ``path`` and ``line`` are those of the new version (of the old one for a removed key, whose
    ``line`` is then that of its unit in the new version, when known)."""

    __slots__ = ()

    def describe(self) -> str:
        """``agent audit-executor status: PENDING -> COMPLETE``; ``status: BLOCKED -> (removed)``."""
        before = "(absent)" if self.change == ADDED else render_value(self.before, self.field)
        after = "(removed)" if self.change == REMOVED else render_value(self.after, self.field)
        return f"{self.unit} {self.field}: {before} -> {after}"

    def as_json(self) -> dict[str, Any]:
        from ctxres.formats.document import format_json_path  # the CLI only

        return {
            "path": format_json_path(self.path),
            "unit": str(self.unit),
            "kind": self.unit.kind,
            "field": self.field,
            "before": self.before,
            "after": self.after,
            "change": self.change or "changed",
            "line": self.line,
        }


class Staleness(_StalenessFields):
    """Why a change must be blocked, and how to fix it."""

    __slots__ = ()


def render_value(value: Any, field: str = "") -> str:
    if value is None:
        return "(none)"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(map(str, value)) + "]" if value else "[]"
    if isinstance(value, int) and field.rsplit(".", 1)[-1] in LOG_KEYS:
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


def _scalars(value: list[Any]) -> bool:
    return all(not isinstance(item, (dict, list)) for item in value)


def _list_value(key: str, value: list[Any]) -> list[Any]:
    if key in _DEPENDENCY_KEYS:
        return sorted(value, key=str)
    return value


class Extraction:
    """The facts of one version, and the units it has (by identity path -> their root path); made by
    :func:`extract`, compared by :func:`moves_between`. Read-only once made: a caller comparing many
    versions (``ctxres audit-history``) extracts each distinct version once and reuses it."""

    __slots__ = ("entries", "facts", "locate", "units")

    def __init__(self, locate: Locate | None, entries: EntryExtractions | None = None) -> None:
        self.facts: dict[Key, Fact] = {}
        self.units: dict[Key, JsonPath] = {}
        self.locate = locate
        # The extraction of each entry (a phase, an agent...) walked so far, by its value's identity:
        # see :func:`extract`.
        self.entries = entries

    def add(self, key: Key, path: JsonPath, value: Any, unit: Unit) -> None:
        field = ""
        for part in path[len(unit.root) :] or path[-1:]:
            field += f"[{part}]" if isinstance(part, int) else f".{part}" if field else part
        line = self.locate(path) if self.locate is not None else None
        self.facts[key] = Fact(path, field, value, unit, line)

    def unit(self, kind: str, name: str, root: JsonPath, key: Key, within: str = "") -> Unit:
        self.units[key] = root
        return Unit(kind, name, root, key, within)

    def entry_unit(self, kind: str, index: str | int, item: Any, root: JsonPath, key: Key, parent: Unit) -> Unit:
        within = parent.label() if kind in _QUALIFIED_KINDS and parent.kind != kind and parent.name else ""
        if isinstance(index, str):
            return self.unit(kind, index, root, key, within)
        label = _identity(item, kind) or f"#{index + 1}"
        name = item.get("name") if isinstance(item, dict) else None
        if kind in _NAMED_KINDS and isinstance(name, str) and name.strip() and name != label:
            label += f' "{name.strip()}"'
        return self.unit(kind, label, root, key, within)

    def value(self, key: str, value: Any, path: JsonPath, ident: Key, unit: Unit) -> bool:
        """Record ``key: value`` when it is a state-bearing value; whether it was one."""
        if key in LOG_KEYS and isinstance(value, list):
            self.add(ident, path, _log_value(value), unit)
        elif STATE_KEY.match(key) and not isinstance(value, (dict, list)):
            self.add(ident, path, value, unit)
        elif LIST_STATE_KEY.match(key) and isinstance(value, list) and _scalars(value):
            self.add(ident, path, _list_value(key, value), unit)
        else:
            return False
        return True

    def walk(self, node: Any, path: JsonPath, ident: Key, unit: Unit) -> None:
        entries_of = _ENTRY_KINDS.get(str(path[-1])) if path else None
        if isinstance(node, dict):
            for key, value in node.items():
                if not isinstance(key, str) or key in EXCLUDED_SUBTREES:
                    continue
                child_path, child_ident = (*path, key), (*ident, key)
                if self.value(key, value, child_path, child_ident, unit) or not isinstance(value, (dict, list)):
                    continue
                child_unit = unit
                if entries_of:
                    if self.entries is not None:
                        self.remembered_entry(entries_of, key, value, child_path, child_ident, unit)
                        continue
                    child_unit = self.entry_unit(entries_of, key, value, child_path, child_ident, unit)
                elif key in _SINGLE_UNITS:
                    child_unit = self.unit(*_SINGLE_UNITS[key], child_path, child_ident)
                self.walk(value, child_path, child_ident, child_unit)
        elif isinstance(node, list):
            entries_of = entries_of or _LIST_ENTRY_KINDS.get(str(path[-1]) if path else "")
            for index, item in enumerate(node):
                child_path = (*path, index)
                ident_part = _identity(item, entries_of)
                child_ident = (*ident, f"[id={ident_part}]" if ident_part else f"[{index}]")
                child_unit = unit
                if entries_of:
                    if self.entries is not None:
                        self.remembered_entry(entries_of, index, item, child_path, child_ident, unit)
                        continue
                    child_unit = self.entry_unit(entries_of, index, item, child_path, child_ident, unit)
                self.walk(item, child_path, child_ident, child_unit)

    def remembered_entry(
        self, kind: str, index: str | int, item: Any, path: JsonPath, ident: Key, parent: Unit
    ) -> None:
        """An entry's unit and what is below it (the ``walk`` of the entry), taken from
        ``self.entries`` when the very same value was walked at the same place before: all it
        records depends only on the value, its path and identity, and its parent's kind, name and
        ``within`` (the facts name the entry's unit and the units below it, not the parent)."""
        assert self.entries is not None
        memo_key = (id(item), path, ident, kind, parent.kind, parent.name, parent.within)
        known = self.entries.get(memo_key)
        if known is None or known[0] is not item:
            part = Extraction(None, self.entries)
            part.walk(item, path, ident, part.entry_unit(kind, index, item, path, ident, parent))
            known = self.entries[memo_key] = (item, part.facts, part.units)
        self.facts.update(known[1])
        self.units.update(known[2])


if TYPE_CHECKING:  # pragma: no cover
    # Sections already extracted, for a caller that extracts many versions sharing their unchanged
    # sections (the same objects): (key, id(value)) -> (value, its extraction); the value is kept
    # so that its id is not reused.
    SectionExtractions = dict[tuple[str, int], tuple[Any, Extraction]]
    # Entries already extracted (see Extraction.remembered_entry): (id(value), path, identity, kind,
    # parent's kind, name and within) -> (value, its facts, its units).
    EntryExtractions = dict[tuple[Any, ...], tuple[Any, dict[Key, Fact], dict[Key, JsonPath]]]


def extract(
    data: Any,
    locate: Locate | None = None,
    sections: SectionExtractions | None = None,
    entries: EntryExtractions | None = None,
) -> Extraction:
    """The state-bearing values and units of a parsed ORCHESTRATION document: its ``facts`` are keyed by
    an identity path (list items by ``id``) so that the same value can be found in another version.

    ``locate(path)`` gives the line of a path (a caller holding a :class:`ctxres.formats.document.Document`
    passes ``lambda p: doc.locate(p, key=True).line``); without it, every ``Fact.line`` is None.
    ``sections`` (without ``locate``) keeps the extraction of each top-level section value: a
    version whose section is the very object of one extracted before reuses it (the facts of a
    section depend on nothing else). ``entries`` (with ``sections``) does the same within a section
    that changed, for each entry (a phase, an agent...) whose value is the very object of one
    extracted before at the same place."""
    out = Extraction(locate)
    if not isinstance(data, dict):
        return out
    top = out.unit("workflow", "", (), ())
    for key, value in data.items():
        if not isinstance(key, str) or key == "resumption" or key in EXCLUDED_SUBTREES:
            continue
        if sections is None or locate is not None:
            _extract_section(out, key, value, top)
            continue
        known = sections.get((key, id(value)))
        if known is None or known[0] is not value:
            part = Extraction(None, entries)
            _extract_section(part, key, value, top)
            known = sections[(key, id(value))] = (value, part)
        out.facts.update(known[1].facts)
        out.units.update(known[1].units)
    return out


def _extract_section(out: Extraction, key: str, value: Any, top: Unit) -> None:
    """The facts and units of one top-level section ``key: value`` into ``out``."""
    if key in STATE_SECTIONS and isinstance(value, (dict, list)):
        if out.value(key, value, (key,), (key,), top):  # a checkpoint log as a top-level list
            return
        kind, name = _SINGLE_UNITS.get(key, (_ENTRY_KINDS.get(key, key), ""))
        out.walk(value, (key,), (key,), out.unit(kind, name, (key,), (key,)))
    elif not isinstance(value, dict) and key not in LOG_KEYS:
        # A flat file keeps the workflow's own status (and position) at the top level.
        out.value(key, value, (key,), (key,), top)


def _normal(value: Any) -> Any:
    return value.strip() if isinstance(value, str) else value


def _empty(value: Any) -> bool:
    """A value that says nothing (null, "", [], {}): the same as no key at all."""
    return value is None or value == "" or value == [] or value == {}


def _not_started(value: Any, field: str = "") -> bool:
    if field.rsplit(".", 1)[-1] in _DEPENDENCY_KEYS or _empty(value):
        return True
    if isinstance(value, int):
        return value == 0  # also false (``accepted: false``)
    return is_not_started(value)  # PENDING, BLOCKED, READY... (ctxres.state.orchestration.NOT_STARTED_WORDS)


def _same(before: Any, after: Any) -> bool:
    if isinstance(before, bool) != isinstance(after, bool):
        return False
    return bool(_normal(before) == _normal(after))


def _unit_line(fact: Fact, new: Extraction) -> int | None:
    """Where a key removed from a unit was, in the new version: the line of the unit."""
    root = new.units.get(fact.unit.key)
    if root is None or new.locate is None:
        return None
    return new.locate(root)


def moved_state(old: Any, new: Any, locate: Locate | None = None) -> list[Move]:
    """The state-bearing values that differ between two versions, in the order of the new one.

    A changed value is a move, and so is a key added to or removed from a unit that both versions
    have (``status: BLOCKED -> (removed)``). A unit that appears not started, or disappears before
    it started, is re-planning: not a move. ``locate`` gives lines in ``new`` (see :func:`extract`).
    """
    return moves_between(extract(old), extract(new, locate))


def located(moves: list[Move], now_: Extraction, locate: Locate) -> list[Move]:
    """``moves`` (of :func:`moves_between` with ``now_`` extracted without lines) with the lines they
    have when ``now_`` is extracted with ``locate``: of the value's path, and for a removed key of its
    unit in the new version (see :func:`_unit_line`). Only the moves are located, not every fact."""
    out = []
    for move in moves:
        if move.change == REMOVED:
            root = now_.units.get(move.unit.key)
            line = None if root is None else locate(root)
        else:
            line = locate(move.path)
        out.append(move._replace(line=line))
    return out


def moves_between(was_: Extraction, now_: Extraction) -> list[Move]:
    """:func:`moved_state` of two extracted versions (the lines are those ``now_`` was extracted with)."""
    old_facts, new_facts = was_.facts, now_.facts
    moves: list[Move] = []
    for key in [*new_facts, *(k for k in old_facts if k not in new_facts)]:
        was, now = old_facts.get(key), new_facts.get(key)
        if was is not None and now is not None:
            if not _same(was.value, now.value):
                moves.append(Move(now.path, now.field, now.unit, was.value, now.value, now.line))
            continue
        fact = now or was
        assert fact is not None
        if _empty(fact.value):
            continue  # `score: null` added or removed: nothing was said either way
        other = was_ if now is not None else now_
        if fact.unit.key not in other.units and _not_started(fact.value, fact.field):
            continue  # a whole unit planned, or dropped before it started
        if now is not None:
            moves.append(Move(now.path, now.field, now.unit, None, now.value, now.line, ADDED))
        else:
            moves.append(Move(fact.path, fact.field, fact.unit, fact.value, None, _unit_line(fact, now_), REMOVED))
    return moves


def resumption_section(data: Any) -> dict[str, Any] | None:
    section = data.get("resumption") if isinstance(data, dict) else None
    return section if isinstance(section, dict) else None


_PARSED_TIMES: dict[str, dt.datetime | None] = {}  # by text: a history reads each `updated_at` twice


def parse_timestamp(value: Any) -> dt.datetime | None:
    """An ISO 8601 date or date-time as an aware UTC instant (naive means UTC), else None
    (:func:`ctxres.timestamps.parse_datetime`; a text is parsed once, its instant remembered)."""
    if type(value) is not str:
        return parse_datetime(value)
    try:
        return _PARSED_TIMES[value]
    except KeyError:
        pass
    if len(_PARSED_TIMES) >= 4096:
        _PARSED_TIMES.clear()
    parsed = _PARSED_TIMES[value] = parse_datetime(value)
    return parsed


def _version(section: Any) -> str:
    # ctxres.state.resumption imports typing at run time: imported when needed, not when the hooks start.
    from ctxres.state.resumption import detect_version

    return detect_version(section)


def _updated_at(section: dict[str, Any] | None) -> Any:
    recovery = section.get("recovery_state") if section else None
    return recovery.get("updated_at") if isinstance(recovery, dict) else None


def resumption_moved(old: Any, new: Any) -> bool:
    """Whether the resumption section of ``new`` was updated since ``old``.

    v2.0 with a parsable ``recovery_state.updated_at``: it advanced. v2.0 without one (missing or
    not a timestamp: rule C001's finding) and v1.0: the section's data changed at all."""
    old_section, new_section = resumption_section(old), resumption_section(new)
    if new_section is None:
        return False
    if _version(new_section) == "2.0":
        now = parse_timestamp(_updated_at(new_section))
        if now is not None:
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
            "`resumption.recovery_state.updated_at` is missing and the section is unchanged: it still describes "
            "the state before this change"
        )
    if parse_timestamp(new_value) is None:
        return (
            f"`resumption.recovery_state.updated_at` ({new_value!r}) is not an ISO 8601 timestamp and the section "
            "is unchanged: it still describes the state before this change"
        )
    if _same(old_value, new_value):
        return (
            f"`resumption.recovery_state.updated_at` did not advance (still {new_value}): the section describes "
            "the state before this change"
        )
    return f"`resumption.recovery_state.updated_at` went backwards ({old_value} -> {new_value})"


def assess(
    old: Any,
    new: Any,
    *,
    example_time: str = "",
    locate: Locate | None = None,
    extracted: Callable[[], tuple[Extraction, Extraction]] | None = None,
) -> Staleness | None:
    """Whether the change from ``old`` to ``new`` must be blocked: state moved, the section did not.

    ``example_time`` (an ISO 8601 timestamp) is quoted in the fix as the value to write; ``locate``
    gives the lines of the moves in ``new`` (see :func:`extract`). ``extracted`` returns the two
    versions already extracted (:func:`extract`, without lines), for a caller that keeps them; it is
    called only when the section did not move (otherwise nothing is blocked, whatever moved); with
    ``locate`` too, only the moves found are located (:func:`located`).
    """
    new_section = resumption_section(new)
    if new_section is None or not isinstance(old, dict) or resumption_moved(old, new):
        return None
    if extracted is not None:
        was_, now_ = extracted()
        moves = moves_between(was_, now_)
        if locate is not None:
            moves = located(moves, now_, locate)
    else:
        moves = moved_state(old, new, locate)
    if not moves:
        return None
    latest = _latest_checkpoint(new)
    version = _version(new_section)
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
