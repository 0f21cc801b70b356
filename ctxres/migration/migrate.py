"""Migrating a v1.0 resumption section to v2.0 (docs/formats.md, "From v1.0 to v2.0").

Pure: text in, text out. Only the span of the top-level ``resumption:`` entry is replaced; every
other byte of the file stays as it was. Inside the section, the lines of the v1.0 fields are moved,
not re-written, so their quoting and comments survive:

- ``last_checkpoint``, ``next_step``, ``cross_session_portable``, ``ephemeral_references`` move
  into ``recovery_state`` (re-indented); ``last_checkpoint_id``, a common v1.0 spelling, moves
  there as ``last_checkpoint`` when the section has no ``last_checkpoint``;
- ``current_state`` becomes ``recovery_state.current_activity`` (the full prose is kept), and
  ``current_phase``, ``current_phase_name`` and ``workflow_status`` are inferred from it and from
  the rest of the file (``workflow.status``, the pipelines and their phases), only where they
  agree: an already-stale file (``workflow.status: COMPLETE`` next to a ``current_state`` that
  says "ready for phase 2", or gates not passed) gets a placeholder instead of a contradiction;
- ``files_to_read`` and every key the migration does not know stay verbatim;
- the other sub-sections are added with values inferred from ``quality_gates`` where that is
  reliable, else with empty values.

A value that cannot be inferred is written as :data:`PLACEHOLDER` and listed in the result; the V
rules report any placeholder left in a file. The result is parsed again and compared with the
original before it is returned: a migration that would change what a v1.0 reader sees, or any
other value, is refused.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from enum import Enum
from typing import Any

import yaml

from ctxres.formats.document import JsonPath
from ctxres.formats.loading import Format, IssueKind, parse_text
from ctxres.formats.yamledit import EditError, find, top_level_span
from ctxres.formats.yamlemit import render
from ctxres.formats.yamlguard import YamlGuardError, loader_for
from ctxres.migration.migration_marks import PLACEHOLDER as PLACEHOLDER
from ctxres.migration.migration_marks import PLACEHOLDER_PREFIX as PLACEHOLDER_PREFIX
from ctxres.migration.migration_marks import is_placeholder as is_placeholder
from ctxres.migration.migration_marks import phases_in_prose as phases_in_prose
from ctxres.migration.migration_marks import placeholders as placeholders
from ctxres.migration.migration_marks import status_from_prose as status_from_prose
from ctxres.state import orchestration as state
from ctxres.state.orchestration import WORKFLOW_STATUSES as WORKFLOW_STATUSES  # the v2.0 enum; the V rules import it
from ctxres.state.orchestration import normalize_status, workflow_meaning
from ctxres.state.resumption import MOVED_TO_RECOVERY_STATE, detect_version, v1_view

SECTION = "resumption"


# --------------------------------------------------------------------------------------------
# Inference
# --------------------------------------------------------------------------------------------


@dataclass(slots=True, frozen=True)
class Inferred:
    """A ``recovery_state`` value the migration worked out, and where it came from (or why not)."""

    name: str
    value: Any
    source: str

    @property
    def ok(self) -> bool:
        return not is_placeholder(self.value)


def _missing(name: str, why: str) -> Inferred:
    return Inferred(name, PLACEHOLDER, why)


def infer_workflow_status(data: dict[str, Any], prose: Any) -> Inferred:
    """``workflow_status`` from ``workflow.status`` and the ``current_state`` prose."""
    workflow = data.get("workflow")
    raw = workflow.get("status") if isinstance(workflow, dict) else None
    declared = workflow_meaning(raw) or None
    stated = status_from_prose(prose)
    if declared and stated and declared != stated:
        return _missing(
            "workflow_status", f"workflow.status is {raw!r} but current_state says {stated}; decide which is true"
        )
    if declared:
        source = "from workflow.status" + (" and current_state" if stated else "")
        return Inferred("workflow_status", declared, source)
    if stated:
        return Inferred("workflow_status", stated, "from current_state")
    if isinstance(raw, str):
        return _missing("workflow_status", f"workflow.status is {raw!r}, not one of {', '.join(WORKFLOW_STATUSES)}")
    return _missing("workflow_status", "neither workflow.status nor current_state states the workflow's state")


@dataclass(slots=True, frozen=True)
class _Phase:
    pipeline: str
    number: int | None
    name: str | None
    status: str


# A skipped phase is out of the way like a finished one.
_DONE = state.PASSED_WORDS | {"SKIPPED"}
# A failed phase is where the workflow stopped: it is the current phase, like a running one.
_RUNNING = state.RUNNING_WORDS | state.FAILED_WORDS
_WAITING = state.NOT_STARTED_WORDS


def _phases(pipelines: list[state.Pipeline]) -> list[_Phase]:
    return [
        _Phase(pipeline.name or "the file's", phase.number, phase.name, phase.status)
        for pipeline in pipelines
        for phase in pipeline.phases
    ]


def _current_from_statuses(phases: list[_Phase]) -> int | None:
    numbered = [p for p in phases if p.number is not None]
    running = {p.number for p in numbered if p.status in _RUNNING}
    if len(running) == 1:
        return running.pop()
    if running or not numbered:
        return None
    if all(p.status in _DONE for p in phases):
        return max(p.number for p in numbered if p.number is not None)
    if all(p.status in _WAITING for p in phases):
        return min(p.number for p in numbered if p.number is not None)
    return None


def _declared(pipelines: list[state.Pipeline]) -> dict[str, int]:
    """The ``current_phase`` each pipeline declares, when it is a phase number."""
    return {pipeline.name: pipeline.current_phase for pipeline in pipelines if pipeline.current_phase is not None}


def infer_phase(data: dict[str, Any], prose: Any, status: Inferred) -> tuple[Inferred, Inferred]:
    """``current_phase`` and ``current_phase_name`` from the pipelines, checked against the prose."""
    pipelines = state.pipelines(data)
    phases = _phases(pipelines)
    declared = _declared(pipelines)
    mentioned = phases_in_prose(prose)
    number: int | None = None
    source = ""
    if len(set(declared.values())) > 1:
        listed = ", ".join(f"{name} at {value}" for name, value in declared.items())
        why = f"the pipelines are at different phases ({listed})"
        return _missing("current_phase", why), _missing("current_phase_name", why)
    if declared:
        number, source = next(iter(declared.values())), "from the pipelines' current_phase"
    elif (from_statuses := _current_from_statuses(phases)) is not None:
        number, source = from_statuses, "from the phase statuses"
    elif len(mentioned) == 1:
        number, source = next(iter(mentioned)), "from current_state"
    if number is None:
        why = "no pipeline current_phase, phase statuses or phase number in current_state to infer it from"
        return _missing("current_phase", why), _missing("current_phase_name", why)
    conflict = _phase_conflict(number, source, mentioned, phases, status)
    if conflict:
        return _missing("current_phase", conflict), _missing("current_phase_name", conflict)
    names = list(dict.fromkeys(p.name for p in phases if p.number == number and p.name))
    phase = Inferred("current_phase", number, source)
    if not names:
        return phase, _missing("current_phase_name", f"no phase {number} with a name in the pipelines")
    return phase, Inferred("current_phase_name", " / ".join(names), f"from the name of phase {number} in the pipelines")


def _label(phase: _Phase) -> str:
    return str(phase.number) if phase.number is not None else repr(phase.name or "?")


def _phase_conflict(number: int, source: str, mentioned: frozenset[int], phases: list[_Phase], status: Inferred) -> str:
    """Why ``number`` cannot be trusted ("" when nothing contradicts it)."""
    if mentioned and number not in mentioned:
        said = ", ".join(map(str, sorted(mentioned)))
        return f"phase {number} ({source}) but current_state mentions phase {said}"
    if status.value == "COMPLETE" and phases:
        open_phases = [p for p in phases if p.status not in _DONE]
        if open_phases:
            listed = ", ".join(
                f"{p.pipeline} phase {_label(p)} {p.status or 'without status'}" for p in open_phases[:3]
            )
            more = f" and {len(open_phases) - 3} more" if len(open_phases) > 3 else ""
            return f"the workflow is COMPLETE but some phases are not: {listed}{more}"
        last = max((p.number for p in phases if p.number is not None), default=number)
        if number != last:
            return f"the workflow is COMPLETE but phase {number} ({source}) is not its last phase, {last}"
    return ""


# A conditional pass lets the workflow go on: for migrate the gate is done (the staleness rules
# treat it as neither passed nor open: it may still be re-scored).
_GATE_DONE = state.PASSED_WORDS | {"CONDITIONAL_PASS"}
_GATE_RUNNING = state.RUNNING_WORDS
# Statuses of gates that are neither done nor running; escalated and skipped gates are still to be settled.
_GATE_OTHER = state.NOT_STARTED_WORDS | state.FAILED_WORDS | {"ESCALATED", "SKIPPED"}


def _gates(data: dict[str, Any]) -> list[state.Gate] | None:
    """Every quality gate, or None when the layout is not one we can read reliably (a listed gate
    without an id, or a status we do not know)."""
    section = data.get("quality_gates")
    if isinstance(section, dict) and isinstance(section.get("gates"), list):
        section = section["gates"]
    if isinstance(section, list) and any(not isinstance(g, dict) or not isinstance(g.get("id"), str) for g in section):
        return None
    found = state.gates(data)
    known = _GATE_DONE | _GATE_RUNNING | _GATE_OTHER
    if not found or any(gate.status not in known for gate in found):
        return None
    return found


NEUTRAL_TRAJECTORY: dict[str, Any] = {
    "gates_completed": [],
    "gates_remaining": [],
    "current_gate": None,
    "current_gate_iteration": None,
    "score_history": {},
    "lowest_dimension": None,
    "total_iterations_used": None,
    "total_iterations_budget": None,
}


def infer_quality_trajectory(data: dict[str, Any]) -> dict[str, Any] | None:
    """``quality_trajectory`` from ``quality_gates`` (a mapping of gates, or a list with ids), or None."""
    gates = _gates(data)
    if gates is None:
        return None
    running = [gate for gate in gates if gate.status in _GATE_RUNNING]
    current = running[0] if len(running) == 1 else None
    iteration = current.data.get("current_iteration") if current else None
    history = {gate.id: gate.scores for gate in gates if gate.scores}
    started = [gate.id for gate in gates if gate.status not in state.NOT_STARTED_WORDS]
    budgets = [gate.data.get("max_iterations") for gate in gates]
    return {
        "gates_completed": [gate.id for gate in gates if gate.status in _GATE_DONE],
        "gates_remaining": [gate.id for gate in gates if gate.status not in _GATE_DONE],
        "current_gate": current.id if current else None,
        "current_gate_iteration": iteration if isinstance(iteration, int) and iteration >= 1 else None,
        "score_history": history,
        "lowest_dimension": None,
        "total_iterations_used": sum(len(s) for s in history.values()) if set(started) <= set(history) else None,
        "total_iterations_budget": sum(budgets) if all(isinstance(b, int) and b >= 0 for b in budgets) else None,
    }


_AGENT_DONE = state.PASSED_WORDS


def _agents(phase: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    agents = phase.get("agents")
    if isinstance(agents, dict):
        agents = [
            {"id": key, **item} if "id" not in item else item for key, item in agents.items() if isinstance(item, dict)
        ]
    for agent in agents if isinstance(agents, list) else []:
        if isinstance(agent, dict) and isinstance(agent.get("id"), str) and agent["id"].strip():
            yield agent["id"].strip(), agent


def _one_line(text: str) -> str:
    return " ".join(text.split()).rstrip(".")


def infer_agent_summaries(data: dict[str, Any]) -> dict[str, str]:
    """One line per agent the pipelines mark complete: its status and its summary or artifact."""
    summaries: dict[str, str] = {}
    for pipeline in state.pipelines(data):
        for phase in pipeline.phases:
            for agent_id, agent in _agents(phase.data):
                status = normalize_status(agent.get("status"))
                if status not in _AGENT_DONE or agent_id in summaries:
                    continue
                said = next((agent[k] for k in ("summary", "findings_summary") if isinstance(agent.get(k), str)), None)
                artifact = agent.get("artifact")
                if said and said.strip():
                    summaries[agent_id] = f"{status}. {_one_line(said)}."
                elif isinstance(artifact, str) and artifact.strip():
                    summaries[agent_id] = f"{status}. Artifact: {artifact.strip()}."
                else:
                    summaries[agent_id] = f"{status}."
    return summaries


NEUTRAL_DEFECTS: dict[str, Any] = {
    "total_defects_found": 0,
    "total_defects_resolved": 0,
    "unresolved_defects": [],
    "recurring_patterns": [],
    "last_gate_primary_defect": None,
}


# current_state prose that places the workflow before its end: a COMPLETE status does not agree with it.
_OPEN_PROSE = re.compile(
    r"(?<![a-z])(?:ready|in[\s_-]*progress|pending|next|awaiting|waiting|executing|running|blocked|"
    r"not[\s_-]+(?:yet[\s_-]+)?started|initiali[sz]ed|about[\s_-]+to)(?![a-z])",
    re.IGNORECASE,
)


def _complete_disagrees(data: dict[str, Any], prose: Any) -> list[str]:
    """What in the file says the workflow is not complete (empty when a COMPLETE status agrees).

    An already-stale v1.0 file often has ``workflow.status: COMPLETE`` next to a ``current_state``
    written long before (``"PHASE_2_READY"``) and gates never passed: writing ``workflow_status:
    COMPLETE`` there would make the new section contradict itself (S005/S010).
    """
    reasons = []
    if isinstance(prose, str) and status_from_prose(prose) != "COMPLETE" and _OPEN_PROSE.search(prose):
        reasons.append(f"current_state says {_one_line(prose)[:80]!r}")
    # Phases not done are left to infer_phase: with a COMPLETE status it leaves current_phase a placeholder.
    trajectory = infer_quality_trajectory(data)
    remaining = trajectory["gates_remaining"] if trajectory else []
    if remaining:
        more = f" and {len(remaining) - 3} more" if len(remaining) > 3 else ""
        reasons.append(f"quality gates are not passed ({', '.join(remaining[:3])}{more})")
    return reasons


def infer_recovery_state(data: dict[str, Any], section: dict[str, Any]) -> dict[str, Inferred]:
    """The ``recovery_state`` values that v1.0 did not have, inferred or marked as placeholders.

    Only what agrees with the rest of the file is inferred: a COMPLETE status that the activity,
    the phases or the gates contradict (an already-stale file) is left a placeholder that says why.
    """
    prose = section.get("current_state")
    status = infer_workflow_status(data, prose)
    if status.value == "COMPLETE" and (reasons := _complete_disagrees(data, prose)):
        sources = status.source[len("from ") :]
        status = _missing(
            "workflow_status",
            f"the file is already stale: {sources} {'say' if ' and ' in sources else 'says'} COMPLETE, but "
            + "; ".join(reasons)
            + "; decide which is true",
        )
    phase, name = infer_phase(data, prose, status)
    if "current_state" in section:
        activity = Inferred("current_activity", prose, "from current_state, the full text")
    else:
        activity = _missing("current_activity", "the v1.0 section has no current_state")
    return {
        item.name: item
        for item in (
            phase,
            name,
            status,
            activity,
            Inferred("context_fill_at_update", None, "v1.0 records no context fill; null means unknown"),
            _missing("updated_at", "v1.0 records no time of the last update of the section"),
        )
    }


# --------------------------------------------------------------------------------------------
# The section's text, entry by entry
# --------------------------------------------------------------------------------------------


@dataclass(slots=True, frozen=True)
class _Entry:
    key: str
    lead: tuple[str, ...]  # blank lines and comments just above the key
    body: tuple[str, ...]  # the key's line and the lines of its value
    key_end: int  # column just past the key on body[0]


@dataclass(slots=True, frozen=True)
class _Section:
    header: str
    preamble: tuple[str, ...]
    entries: tuple[_Entry, ...]
    trailer: tuple[str, ...]
    column: int


class _Refused(Exception):
    pass


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _is_lead(line: str, column: int) -> bool:
    stripped = line.strip()
    return not stripped or (stripped.startswith("#") and _indent(line) <= column)


def _keys(text: str, start: int, lines: list[str]) -> list[tuple[str, int, int, int]]:
    """(key, row in ``lines``, column, column past the key) of each key of the block mapping
    under the ``resumption:`` line that starts at ``start``."""
    try:
        root = yaml.compose(text, Loader=loader_for(text))  # libyaml crashes on very deep nesting
        key_node, mapping = find(root, (SECTION,)) if root is not None else (None, None)
    except (yaml.YAMLError, EditError, YamlGuardError, RecursionError) as exc:
        raise _Refused(f"cannot read the section: {exc}") from None
    if key_node is None or key_node.start_mark.index != start:
        raise _Refused("cannot locate the `resumption:` entry in the text")
    if not isinstance(mapping, yaml.MappingNode) or mapping.flow_style or not mapping.value:
        raise _Refused("`resumption` is written in flow style ({...}); rewrite it in block style first")
    keys = []
    for key, _ in mapping.value:
        if not isinstance(key, yaml.ScalarNode) or key.start_mark.line != key.end_mark.line:
            raise _Refused("the section has a key that is not a plain string")
        row, column = key.start_mark.line - key_node.start_mark.line, key.start_mark.column
        if row <= 0 or row >= len(lines) or lines[row][:column].strip():
            raise _Refused(f"the key {key.value!r} does not start its own line")
        keys.append((str(key.value), row, column, key.end_mark.column))
    return keys


def _split(text: str, start: int, lines: list[str]) -> _Section:
    """The section's lines cut into entries; comments and blank lines above a key go with it."""
    keys = _keys(text, start, lines)
    column = keys[0][2]
    entries: list[_Entry] = []
    lead: tuple[str, ...] = ()
    for index, (key, row, _, key_end) in enumerate(keys):
        body = lines[row : keys[index + 1][1] if index + 1 < len(keys) else len(lines)]
        cut = len(body)
        while cut > 1 and _is_lead(body[cut - 1], column):
            cut -= 1
        entries.append(_Entry(key, lead, tuple(body[:cut]), key_end))
        lead = tuple(body[cut:])
    return _Section(lines[0], tuple(lines[1 : keys[0][1]]), tuple(entries), lead, column)


def _field(key: str, value: Any, indent: int, step: int) -> list[str]:
    """Block lines for ``key: value``: mappings as blocks, lists and scalars on one line."""
    return render({key: value}, indent, step, flow_lists=True)


def _shift(lines: Iterable[str], step: int) -> list[str]:
    return [" " * step + line if line.strip() else line for line in lines]


def _comments(lines: Iterable[str]) -> list[str]:
    return [line for line in lines if line.strip()]


RECOVERY_ORDER = (
    "last_checkpoint",
    "current_phase",
    "current_phase_name",
    "workflow_status",
    "current_activity",
    "next_step",
    "context_fill_at_update",
    "updated_at",
    "cross_session_portable",
    "ephemeral_references",
)


# v1.0 spellings of a field that the mapping moves into recovery_state (docs/formats.md, "From v1.0 to v2.0"),
# used when the canonical key is absent: ``last_checkpoint_id: "CP-003"`` is ``last_checkpoint``.
V1_SPELLINGS: dict[str, str] = {"last_checkpoint_id": "last_checkpoint"}


def spelled(section: Any) -> dict[str, str]:
    """{v1.0 spelling: canonical key} for the spellings this section uses instead of the key."""
    if not isinstance(section, dict):
        return {}
    return {old: new for old, new in V1_SPELLINGS.items() if old in section and new not in section}


def _render(
    section: _Section, inferred: dict[str, Inferred], added: dict[str, Any], renamed: dict[str, str]
) -> list[str]:
    step = section.column
    pad = " " * section.column
    by_key = {entry.key: entry for entry in section.entries}
    by_key.update({new: by_key[old] for old, new in renamed.items()})
    out = [section.header, *section.preamble, f"{pad}recovery_state:"]
    for name in RECOVERY_ORDER:
        entry = by_key.get("current_state") if name == "current_activity" else by_key.get(name)
        if name in inferred and not (name == "current_activity" and entry is not None):
            out += _field(name, inferred[name].value, section.column + step, step)
        elif entry is not None:
            first = entry.body[0]
            if name == "current_activity" or entry.key != name:
                first = first[: _indent(first)] + name + first[entry.key_end :]
            out += _shift([*_comments(entry.lead), first, *entry.body[1:]], step)
    if "files_to_read" in by_key:
        entry = by_key["files_to_read"]
        out += [*entry.lead, *entry.body]
    gap = [""] if any(not line.strip() for entry in section.entries for line in (*entry.lead, *entry.body)) else []
    for name, value in added.items():
        out += [*gap, *_field(name, value, section.column, step)]
    moved = (*MOVED_TO_RECOVERY_STATE, *renamed, "current_state", "files_to_read")
    kept = [e for e in section.entries if e.key not in moved]
    for index, entry in enumerate(kept):
        spacing = gap if index == 0 and not (entry.lead and not entry.lead[0].strip()) else []
        out += [*spacing, *entry.lead, *entry.body]
    return out + list(section.trailer)


# --------------------------------------------------------------------------------------------
# Migration
# --------------------------------------------------------------------------------------------


class Outcome(str, Enum):
    MIGRATED = "migrated"
    UNCHANGED = "unchanged"  # already v2.0
    SKIPPED = "skipped"  # nothing to migrate: no (or an empty) resumption section
    REFUSED = "refused"  # cannot be migrated safely; ``message`` says why


@dataclass(slots=True, frozen=True)
class Gap:
    """A field the migration could not fill: a placeholder was written, or the key is left out."""

    path: JsonPath
    reason: str
    placeholder: bool = True


@dataclass(slots=True, frozen=True)
class Migration:
    outcome: Outcome
    text: str
    message: str = ""
    gaps: tuple[Gap, ...] = ()
    inferred: tuple[Inferred, ...] = ()
    neutral: tuple[str, ...] = ()  # sub-sections written with empty values
    notes: tuple[str, ...] = ()  # what the user should know: v1.0 spellings mapped, a stale file

    @property
    def changed(self) -> bool:
        return self.outcome is Outcome.MIGRATED


def _load(text: str) -> tuple[Any, str]:
    """(data, "") or (None, why the text cannot be migrated).

    A duplicate key inside the section is refused (which of the two lines is the value?);
    elsewhere it is left alone, like everything outside the section.
    """
    result = parse_text("<migrate>", "orchestration", Format.YAML, text)
    bad = [
        issue
        for issue in result.issues
        if issue.kind is not IssueKind.NON_STRING_KEY
        and (issue.kind is not IssueKind.DUPLICATE_KEY or issue.json_path[:1] == (SECTION,))
    ]
    if result.document is None or bad:
        issue = bad[0] if bad else result.issues[0]
        return None, f"line {issue.position.line}: {issue.message}"
    return result.document.data, ""


def _added(data: dict[str, Any]) -> tuple[dict[str, Any], tuple[str, ...]]:
    trajectory = infer_quality_trajectory(data)
    summaries = infer_agent_summaries(data)
    added = {
        "quality_trajectory": trajectory if trajectory is not None else dict(NEUTRAL_TRAJECTORY),
        "defect_summary": dict(NEUTRAL_DEFECTS),
        "decision_log": [],
        "agent_summaries": summaries,
        "compaction_events": {"count": 0, "events": []},
    }
    neutral = [name for name in added if (name != "quality_trajectory" or trajectory is None)]
    return added, tuple(name for name in neutral if name != "agent_summaries" or not summaries)


def _gaps(section: dict[str, Any], inferred: dict[str, Inferred]) -> tuple[Gap, ...]:
    base: JsonPath = (SECTION, "recovery_state")
    gaps = [Gap((*base, item.name), item.source) for item in inferred.values() if not item.ok]
    for name in ("last_checkpoint", "next_step"):
        if name not in section and name not in spelled(section).values():
            gaps.append(Gap((*base, name), f"the v1.0 section has no {name}", placeholder=False))
    if "files_to_read" not in section:
        gaps.append(Gap((SECTION, "files_to_read"), "the v1.0 section has no files_to_read", placeholder=False))
    order = {name: index for index, name in enumerate(RECOVERY_ORDER)}
    return tuple(sorted(gaps, key=lambda gap: (len(gap.path), order.get(str(gap.path[-1]), 99), gap.path)))


def _verify(old: dict[str, Any], new_text: str, inferred: dict[str, Inferred]) -> str:
    """Why the migrated text is not a faithful migration of ``old`` ("" when it is)."""
    new, problem = _load(new_text)
    if problem:
        return f"the result does not parse ({problem})"
    before, after = old[SECTION], new.get(SECTION) if isinstance(new, dict) else None
    if not isinstance(after, dict) or detect_version(after) != "2.0":
        return "the result is not a v2.0 section"
    if {k: v for k, v in new.items() if k != SECTION} != {k: v for k, v in old.items() if k != SECTION}:
        return "a value outside the section changed"
    renamed = spelled(before)
    canonical = {**before, **{new: before[old] for old, new in renamed.items()}}
    if v1_view(after) != v1_view(canonical):
        return "what a v1.0 reader sees changed"
    state = after.get("recovery_state")
    expected = {name: canonical[name] for name in MOVED_TO_RECOVERY_STATE if name in canonical}
    expected.update({name: item.value for name, item in inferred.items() if name != "current_activity"})
    expected["current_activity"] = before.get("current_state", PLACEHOLDER)
    if not isinstance(state, dict) or any(state.get(k, PLACEHOLDER + "?") != v for k, v in expected.items()):
        return "a recovery_state value differs from its source"
    known = {*MOVED_TO_RECOVERY_STATE, *renamed, "current_state"}
    if any(key in after for key in renamed):
        return "a v1.0 spelling was left beside its v2.0 key"
    if any(after.get(key) != value for key, value in before.items() if key not in known):
        return "a key kept from the v1.0 section changed"
    return ""


def migrate_text(text: str) -> Migration:
    """Migrate the ``resumption:`` section of an ORCHESTRATION.yaml text from v1.0 to v2.0."""
    data, problem = _load(text)
    if problem:
        return Migration(Outcome.REFUSED, text, f"{problem}; nothing changed")
    if not isinstance(data, dict) or SECTION not in data:
        return Migration(Outcome.SKIPPED, text, "no top-level `resumption:` section")
    section = data[SECTION]
    if section is None or section == {}:
        return Migration(Outcome.SKIPPED, text, "the `resumption:` section is empty")
    if not isinstance(section, dict):
        return Migration(Outcome.REFUSED, text, "`resumption` is not a mapping; nothing changed")
    if detect_version(section) == "2.0":
        return Migration(Outcome.UNCHANGED, text, "already v2.0")
    span = top_level_span(text, SECTION)
    if span is None:
        return Migration(Outcome.REFUSED, text, "cannot locate the `resumption:` entry in the text")
    start, end = span
    chunk = text[start:end]
    crlf = chunk.endswith("\r")
    lines = [line[:-1] if line.endswith("\r") else line for line in chunk.split("\n")]
    try:
        parsed = _split(text, start, lines)
    except _Refused as exc:
        return Migration(Outcome.REFUSED, text, f"{exc}; nothing changed")
    inferred = infer_recovery_state(data, section)
    added, neutral = _added(data)
    renamed = spelled(section)
    rendered = ("\r\n" if crlf else "\n").join(_render(parsed, inferred, added, renamed)) + ("\r" if crlf else "")
    new_text = text[:start] + rendered + text[end:]
    why = _verify(data, new_text, inferred)
    if why:
        return Migration(Outcome.REFUSED, text, f"cannot migrate this section faithfully ({why}); nothing changed")
    notes = [f"`{old}` (a v1.0 spelling) moved to `recovery_state.{new}`" for old, new in renamed.items()]
    stale = inferred["workflow_status"]
    if not stale.ok and stale.source.startswith("the file is already stale"):
        notes.append(
            "the v1.0 file is already stale: only what agrees with the rest of the file was inferred; "
            "`recovery_state.workflow_status` is left a placeholder (see above)"
        )
    return Migration(
        Outcome.MIGRATED,
        new_text,
        "v1.0 -> v2.0",
        _gaps(section, inferred),
        tuple(inferred.values()),
        neutral,
        tuple(notes),
    )
