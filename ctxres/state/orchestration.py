"""The state of a workflow, one definition for the hooks, the linters and the git checks.

This module owns:

* the status vocabulary: what a workflow, phase, gate, agent or task status *means*
  (:func:`normalize_status`, :func:`workflow_status_of`, :data:`LIVE_STATUSES` and the word sets);
* the readers of the state sections (pipelines and phases, quality gates, checkpoints).

Which ORCHESTRATION file is *the live workflow* (``find_live_workflow``, ``WorkflowChoice``,
``is_example_path``, ``workflow_files``) is decided in :mod:`ctxres.state.live`, which imports this
module (lazily, to read a file's status), never the other way round.

It is imported by most hooks, so it imports only ``re`` at module level (no
dataclasses, typing or pathlib: each costs milliseconds of start-up on every prompt).
"""

from __future__ import annotations

import re

# A hook loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

# --- the status vocabulary -------------------------------------------------------------------

# The values `recovery_state.workflow_status` may take (the v2.0 schema's enum).
WORKFLOW_STATUSES = ("ACTIVE", "PAUSED", "COMPLETE", "FAILED")
# A workflow in one of these is live: a session may resume it, hooks serve it, `ack` merges into it.
LIVE_STATUSES = frozenset({"ACTIVE", "PAUSED"})

# Words real files use for "finished", "running", "not started yet" and "failed", after
# :func:`normalize_status` (upper case, spaces and hyphens as underscores).
COMPLETE_WORDS = frozenset({"COMPLETE", "COMPLETED", "DONE", "FINISHED", "CLOSED"})
PASSED_WORDS = frozenset({"PASS", "PASSED", "SUCCESS", "SUCCEEDED", "ACCEPTED", "APPROVED", *COMPLETE_WORDS})
RUNNING_WORDS = frozenset(
    {"ACTIVE", "IN_PROGRESS", "RUNNING", "EXECUTING", "STARTED", "ITERATING", "SCORING", "REVISE", "REVISING"}
)
NOT_STARTED_WORDS = frozenset(
    {"PENDING", "NOT_STARTED", "BLOCKED", "READY", "QUEUED", "WAITING", "PLANNED", "TODO", "SCHEDULED"}
)
PAUSED_WORDS = frozenset({"PAUSED", "ON_HOLD", "SUSPENDED"})
FAILED_WORDS = frozenset({"FAIL", "FAILED", "REJECTED", "ABORTED", "CANCELLED", "CANCELED"})

# A workflow's own status word -> the v2.0 enum value it means.
_WORKFLOW_MEANING = {
    **{word: "COMPLETE" for word in COMPLETE_WORDS},
    **{word: "ACTIVE" for word in ("ACTIVE", "IN_PROGRESS", "RUNNING", "EXECUTING", "STARTED")},
    **{word: "PAUSED" for word in PAUSED_WORDS},
    **{word: "FAILED" for word in ("FAILED", "ABORTED", "CANCELLED", "CANCELED")},
}


def normalize_status(value: object) -> str:
    """``"In progress"`` -> ``"IN_PROGRESS"`` (each run of spaces and hyphens one underscore); "" for
    anything that is not a string. String methods, not a regular expression: every hook calls it, and
    compiling a pattern costs start-up (and a character loop costs the checks of long prose values).
    Remembered for short values: the same status words recur in every file."""
    if not isinstance(value, str):
        return ""
    known = _NORMALIZED.get(value)
    if known is None:
        known = _normalized(value)
        if len(value) <= _NORMALIZED_LENGTH and len(_NORMALIZED) < _NORMALIZED_KEPT:
            _NORMALIZED[value] = known
    return known


_NORMALIZED: dict[str, str] = {}  # a plain dict, not functools.lru_cache: no wrapper built at every hook start
_NORMALIZED_KEPT = 4096
_NORMALIZED_LENGTH = 64  # a status word, not prose


def _normalized(value: str) -> str:
    text = value.strip().replace("-", " ")
    words = text.split()  # the same white space as str.isspace
    if not words:
        return "_" if text else ""
    lead = "_" if text[0].isspace() else ""
    trail = "_" if text[-1].isspace() else ""
    return (lead + "_".join(words) + trail).upper()


def workflow_meaning(value: object) -> str:
    """The v2.0 enum value a workflow status word means (``"COMPLETED"`` -> ``"COMPLETE"``,
    ``"in progress"`` -> ``"ACTIVE"``); "" when the word is not a workflow status."""
    return _WORKFLOW_MEANING.get(normalize_status(value), "")


def is_complete(value: object) -> bool:
    return normalize_status(value) in COMPLETE_WORDS


def is_not_started(value: object) -> bool:
    return normalize_status(value) in NOT_STARTED_WORDS


def is_running(value: object) -> bool:
    return normalize_status(value) in RUNNING_WORDS


def workflow_status_of(data: object) -> str | None:
    """What the file says the workflow's status is, as a v2.0 enum value when the word is known.

    ``resumption.recovery_state.workflow_status`` when the section has one (the field hooks and
    commands act on), else ``workflow.status``. An unknown word is returned upper-cased, so a
    message can quote it; None when the file states no status.
    """
    if not isinstance(data, dict):
        return None
    section = data.get("resumption")
    recovery = section.get("recovery_state") if isinstance(section, dict) else None
    status = recovery.get("workflow_status") if isinstance(recovery, dict) else None
    if status is None and isinstance(data.get("workflow"), dict):
        status = data["workflow"].get("status")
    if status is None or isinstance(status, (dict, list)):
        return None
    return workflow_meaning(status) or normalize_status(str(status))


def is_live(data: object) -> bool:
    """Whether the workflow of a parsed ORCHESTRATION document is ACTIVE or PAUSED."""
    return workflow_status_of(data) in LIVE_STATUSES


# --- reading the state sections: pipelines and phases, quality gates, checkpoints -----------------
#
# One reader per section, used by the staleness rules, `ctxres migrate`, the PreCompact checkpoint
# and the monitor. Each accepts the layouts real files use and never raises on odd data.

if TYPE_CHECKING:  # pragma: no cover
    JsonPath = tuple[str | int, ...]


def _number(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def score_value(value: object) -> float | None:
    """A numeric score (int or float, never a bool)."""
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


_PHASE_WORD = r"\s*(?:phase[\s_-]*)?(\d+)\s*\Z"  # compiled on first use (re caches it)
_PHASE_PREFIX = r"phase[\s_-]*(\d+)\b"


def phase_number(value: object) -> int | None:
    """A phase number: ``3``, ``"3"``, ``"phase-3"``, ``"Phase 3: Validation"``; None otherwise."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if value >= 0 else None
    if isinstance(value, str):
        match = re.match(_PHASE_WORD, value, re.IGNORECASE) or re.match(_PHASE_PREFIX, value, re.IGNORECASE)
        return int(match.group(1)) if match else None
    return None


def children(container: object, base: JsonPath) -> list[tuple[JsonPath, dict[str, Any], str | None]]:
    """(path, item, key) for the mapping items of a list, or of a mapping keyed by id."""
    if isinstance(container, list):
        return [((*base, index), item, None) for index, item in enumerate(container) if isinstance(item, dict)]
    if isinstance(container, dict):
        return [((*base, key), item, str(key)) for key, item in container.items() if isinstance(item, dict)]
    return []


class Phase:
    """One phase of a pipeline (or of a file's top-level ``phases``)."""

    __slots__ = ("data", "key", "name", "number", "path", "pipeline", "status")

    def __init__(self, pipeline: str, path: JsonPath, data: dict[str, Any], key: str | None) -> None:
        self.pipeline = pipeline
        self.path = path
        self.data = data
        self.key = key  # the mapping key when phases are a mapping
        number = phase_number(data.get("id"))
        if number is None:
            number = _number(data.get("sequence"))
        if number is None:
            number = _number(data.get("number"))
        if number is None and key is not None:
            number = phase_number(key)
        self.number = number
        name = data.get("name")
        self.name = name.strip() if isinstance(name, str) and name.strip() else None
        self.status = normalize_status(data.get("status"))


class Pipeline:
    """A pipeline: ``pipelines: {name: {...}}``, ``pipelines: [{id, ...}]``, a single ``pipeline``, or
    the file itself when its ``phases`` are at the top level (name "")."""

    __slots__ = ("current_phase", "current_phase_path", "data", "name", "path", "phases", "status")

    def __init__(self, name: str, path: JsonPath, data: dict[str, Any]) -> None:
        self.name = name
        self.path = path
        self.data = data
        self.status = normalize_status(data.get("status"))
        self.current_phase_path: JsonPath | None = (*path, "current_phase") if "current_phase" in data else None
        self.current_phase = phase_number(data.get("current_phase"))
        self.phases = [Phase(name, p, item, key) for p, item, key in children(data.get("phases"), (*path, "phases"))]

    def phase(self, number: int) -> Phase | None:
        return next((phase for phase in self.phases if phase.number == number), None)

    def not_started(self) -> bool:
        """No phase has started (every phase waits), or the pipeline says so itself."""
        if self.status in NOT_STARTED_WORDS:
            return True
        return bool(self.phases) and all(phase.status in NOT_STARTED_WORDS for phase in self.phases)


def pipelines(data: object) -> list[Pipeline]:
    """Every pipeline of a parsed ORCHESTRATION document, in file order."""
    if not isinstance(data, dict):
        return []
    found: list[Pipeline] = []
    many = data.get("pipelines")
    if isinstance(many, dict):
        found += [Pipeline(str(name), ("pipelines", name), p) for name, p in many.items() if isinstance(p, dict)]
    elif isinstance(many, list):
        for index, item in enumerate(many):
            if isinstance(item, dict):
                name = item.get("id", item.get("name", index))
                found.append(Pipeline(str(name), ("pipelines", index), item))
    one = data.get("pipeline")
    if isinstance(one, dict):
        found.append(Pipeline(str(one.get("id", "")) if isinstance(one.get("id"), str) else "", ("pipeline",), one))
    if not found and isinstance(data.get("phases"), (list, dict)):
        found.append(Pipeline("", (), {"phases": data["phases"], **_top_level_position(data)}))
    return found


def _top_level_position(data: dict[str, Any]) -> dict[str, Any]:
    workflow = data.get("workflow")
    if isinstance(workflow, dict) and "current_phase" in workflow:
        return {"current_phase": workflow["current_phase"]}
    return {"current_phase": data["current_phase"]} if "current_phase" in data else {}


class Gate:
    """One quality gate (or barrier) of the ``quality_gates`` section."""

    __slots__ = ("data", "history_path", "id", "iterations", "path", "scores", "status")

    def __init__(self, gate_id: str, path: JsonPath, data: dict[str, Any]) -> None:
        self.id = gate_id
        self.path = path
        self.data = data
        self.status = normalize_status(data.get("status"))
        self.history_path: JsonPath | None = None
        self.iterations: int | None = None  # None: the section does not say
        self.scores: list[float] | None = None  # None: not every iteration has a numeric score
        for key in ("iteration_history", "iterations"):
            history = data.get(key)
            if isinstance(history, list):
                items = [item for item in history if isinstance(item, dict)]
                numeric = [s for s in (score_value(item.get("score")) for item in items) if s is not None]
                self.history_path = (*path, key)
                self.iterations = len(history)
                self.scores = numeric if len(items) == len(history) == len(numeric) else None
                break
        else:
            self.iterations = _number(data.get("iterations", data.get("iterations_completed")))

    def latest_score(self) -> float | None:
        """Its last scored iteration, else its ``score``/``final_score``."""
        history = self.data.get(str(self.history_path[-1])) if self.history_path else None
        for item in reversed(history if isinstance(history, list) else []):
            score = score_value(item.get("score")) if isinstance(item, dict) else None
            if score is not None:
                return score
        for key in ("score", "final_score"):
            score = score_value(self.data.get(key))
            if score is not None:
                return score
        return None

    def is_running(self) -> bool:
        return self.status in RUNNING_WORDS


def gates(data: object) -> list[Gate]:
    """The gates of ``quality_gates``, in file order: a mapping by gate id, a list of ``{id, ...}``, or
    a mapping whose ``gates`` key holds that list (beside settings such as ``threshold``)."""
    section = data.get("quality_gates") if isinstance(data, dict) else None
    base: JsonPath = ("quality_gates",)
    if isinstance(section, dict) and isinstance(section.get("gates"), list):
        section, base = section["gates"], ("quality_gates", "gates")
    found = []
    for path, gate, key in children(section, base):
        gate_id = gate.get("id") if isinstance(gate.get("id"), str) else key
        if gate_id:
            found.append(Gate(gate_id, path, gate))
    return found


class CheckpointEntries:
    """The ``checkpoints`` section when its shape is clear: the latest id and every entry."""

    __slots__ = ("entries", "latest", "latest_path")

    def __init__(self, latest: str | None, latest_path: JsonPath, entries: list[tuple[str, JsonPath, Any]]) -> None:
        self.latest = latest
        self.latest_path = latest_path
        self.entries = entries  # (id, path of the id, timestamp value)


def _checkpoint_entries(items: object, base: JsonPath) -> list[tuple[str, JsonPath, Any]] | None:
    if not isinstance(items, list):
        return None
    out = []
    for index, item in enumerate(items):
        if not isinstance(item, dict) or not isinstance(item.get("id"), str):
            return None
        out.append((item["id"], (*base, index, "id"), item.get("timestamp", item.get("created_at"))))
    return out


def checkpoint_entries(data: object) -> CheckpointEntries | None:
    """``checkpoints: {latest_id, entries: [{id}]}`` or a plain list of ``{id}`` entries; None when
    the section is absent or its shape is unclear (an entry without an id, ``latest_id: null``
    beside entries)."""
    section = data.get("checkpoints") if isinstance(data, dict) else None
    if isinstance(section, list):
        listed = _checkpoint_entries(section, ("checkpoints",))
        return CheckpointEntries(listed[-1][0], listed[-1][1], listed) if listed else None
    if not isinstance(section, dict):
        return None
    entries = _checkpoint_entries(section.get("entries", []), ("checkpoints", "entries"))
    if entries is None:
        return None
    if "latest_id" in section:
        latest = section["latest_id"]
        if (latest is None and entries) or (latest is not None and not isinstance(latest, str)):
            return None
        return CheckpointEntries(latest, ("checkpoints", "latest_id"), entries)
    return CheckpointEntries(entries[-1][0], entries[-1][1], entries) if entries else None
