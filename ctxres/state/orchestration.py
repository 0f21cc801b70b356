"""The state of a workflow, one definition for the hooks, the linters and the git checks.

This module owns:

* the status vocabulary: what a workflow, phase, gate, agent or task status *means*
  (:func:`normalize_status`, :func:`workflow_status_of`, :data:`LIVE_STATUSES` and the word sets);
* which ORCHESTRATION file is *the live workflow* of a project (:func:`find_live_workflow`), and
  the sentence every command uses to say which one it chose and why (:meth:`WorkflowChoice.note`);
* which files are examples or templates and never a live workflow (:func:`is_example_path`).

It is imported by every hook, so it imports only ``os`` and ``re`` at module level (no
dataclasses, typing or pathlib: each costs milliseconds of start-up on every prompt).
"""

from __future__ import annotations

import os
import re

from ctxres.defaults import WORKFLOW_ENV as WORKFLOW_ENV  # re-exported: the one name of the variable

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover - for type checkers only
    from collections.abc import Callable, Iterable
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


# --- examples and templates ----------------------------------------------------------------------

# What is an example or a template, in one place: the hooks never take one for the live workflow, and
# `ctxres check` (its walk of a folder, `--force-exclude`), `ctxres stale` and `check --since` skip them
# unless `check-examples` is set. A folder name added here (a test data folder) applies to all of them.
# The folder `ctxres init` writes its protocol document and its example section into.
PROTOCOL_DOCS_FOLDER = "docs/protocol"
# Test data is an example too: a project's test inputs and its deliberately invalid files
# (`test_data/`, `testdata/`, `fixtures/`, `invalid_*`) are no state of its own.
_EXAMPLE_FOLDERS = frozenset(
    {"example", "examples", "template", "templates", "_templates", "skeleton", "skeletons"}
    | {"test_data", "testdata", "fixtures"}
)
_EXAMPLE_WORDS = frozenset({"example", "examples", "template", "templates", "sample", "skeleton"})
# A file name that starts with one of these is a deliberately invalid example.
_INVALID_PREFIXES = ("invalid_", "invalid-")
# Each of them is a substring of the lower-cased path of a file they make an example: a path that holds
# none of them is not one, found without splitting it into words (a check tests every file it lists).
_EXAMPLE_HINTS = tuple(
    sorted(_EXAMPLE_FOLDERS | _EXAMPLE_WORDS | set(_INVALID_PREFIXES) | {PROTOCOL_DOCS_FOLDER.lower()})
)


def _name_words(name: str) -> list[str]:
    """The lower-case words of a file name: runs of ASCII letters, CamelCase split
    (``OrchestrationTemplate.yaml`` -> orchestration, template, yaml). Loops, not regular
    expressions: the hooks call it for every workflow file they find."""
    split = ""
    previous = ""
    for char in name:
        if "a" <= previous <= "z" and "A" <= char <= "Z":
            split += " "
        split += char
        previous = char
    words: list[str] = []
    word = ""
    for char in split.lower():
        if "a" <= char <= "z":
            word += char
        elif word:
            words.append(word)
            word = ""
    if word:
        words.append(word)
    return words


def is_example_path(relpath: str) -> bool:
    """Whether a file (path relative to the project, ``/`` separators) is an example or a template:
    anything under the folder ``ctxres init`` writes its documents into (``docs/protocol/``), under
    a folder named ``examples``/``templates`` or holding test data (``test_data``, ``testdata``,
    ``fixtures``), whose file name starts with ``invalid_`` (a deliberately invalid example), or whose
    file name says ``template``/``example``/``sample`` (``orchestration-template.yaml``,
    ``ORCHESTRATION.example.yaml``). Such a file is never
    *the live workflow*, and ``ctxres check`` skips it unless ``check-examples`` is set (the path is
    then relative to the folder named on the command line)."""
    rel = relpath.replace(os.sep, "/")
    lowered = rel.lower()
    if not any(hint in lowered for hint in _EXAMPLE_HINTS):
        return False
    while rel.startswith("./"):
        rel = rel[2:]
    if rel == PROTOCOL_DOCS_FOLDER or rel.startswith(PROTOCOL_DOCS_FOLDER + "/"):
        return True
    *folders, name = rel.split("/")
    if any(folder.lower() in _EXAMPLE_FOLDERS for folder in folders):
        return True
    if name.lower().startswith(_INVALID_PREFIXES):
        return True
    return any(word in _EXAMPLE_WORDS for word in _name_words(name))


# --- finding the live workflow -------------------------------------------------------------------

# The configured default (`[tool.ctxres.patterns] orchestration`); ctxres.artifacts re-exports it.
ORCHESTRATION_PATTERNS = ("*ORCHESTRATION*.yaml", "*ORCHESTRATION*.yml")
# $CTXRES_ORCHESTRATION (ctxres.defaults.WORKFLOW_ENV) names the workflow file and skips the search.
MAX_WALK_ENTRIES = 20_000  # bound on the directory entries visited to find workflow files


class WorkflowChoice:
    """The live workflow a command or hook acts on, and why it was chosen."""

    __slots__ = ("data", "named", "others", "path", "pinned", "relpath", "status", "tied", "updated")

    def __init__(
        self,
        path: str,
        relpath: str,
        data: Any,
        status: str,
        others: list[str],
        named: bool = False,
        *,
        pinned: str = "",
        updated: str | None = None,
        tied: bool = False,
    ) -> None:
        self.path = path  # absolute
        self.relpath = relpath  # relative to the project, "/" separators
        self.data = data  # the parsed document (None when the caller asked not to load it)
        self.status = status  # ACTIVE or PAUSED (or whatever a named or pinned file says)
        self.others = others  # the other live workflows (relative paths), in rank order
        self.named = named  # chosen by $CTXRES_ORCHESTRATION, not by a search
        self.pinned = pinned  # the setting that pinned it ("live-workflow in pyproject.toml"), "" if none
        self.updated = updated  # its content time (ctxres.state.workflow_times.sortable), None if it records none
        self.tied = tied  # another live workflow records the same content time (the path decided)

    def reason(self, cwd: str | None = None) -> str:
        """Why this one: the same words in every command and hook (the paths relative to ``cwd`` when given)."""
        if self.named:
            return f"named by ${WORKFLOW_ENV}"
        if self.pinned:
            return f"pinned by {self.pinned}"
        if not self.others:
            return f"the only live workflow (status {self.status})"
        others = [self._from(other, cwd) for other in self.others[:5]]
        shown = ", ".join(others) + (f" and {len(self.others) - 5} more" if len(self.others) > 5 else "")
        total = len(self.others) + 1
        if self.updated is None:
            return (
                f"the first by path of {total} live workflows, none of which records when it was updated "
                f"(status {self.status}); also live: {shown}"
            )
        from ctxres.state.workflow_times import shown as shown_time

        when = f"status {self.status}, updated {shown_time(self.updated)}"
        if self.tied:
            when += "; the first by path of those updated then"
        return f"the most recently updated of {total} live workflows ({when}); also live: {shown}"

    def note(self, cwd: str | None = None) -> str:
        """``using docs/ORCHESTRATION.yaml: the most recently updated of 2 live workflows (...)``; a command run
        in a subfolder passes its working folder (``cwd``): the paths are then said from there."""
        return f"using {self._from(self.relpath, cwd)}: {self.reason(cwd)}"

    def _from(self, relpath: str, cwd: str | None) -> str:
        """A path relative to the project (``relpath``), relative to ``cwd`` instead (unchanged without it)."""
        if cwd is None:
            return relpath
        root = self.path
        for _ in relpath.split("/"):
            root = os.path.dirname(root)
        return _relative(os.path.join(root, relpath), cwd)


def _relative(path: str, root: str) -> str:
    return os.path.relpath(path, root).replace(os.sep, "/")


def matches_pattern(relpath: str, patterns: Iterable[str]) -> bool:
    """Whether a file matches one of the configured orchestration patterns (as ``ctxres check``
    matches them: a pattern without ``/`` matches the file name)."""
    from ctxres.globs import matches_any

    return matches_any(relpath, tuple(patterns))


def workflow_files(
    root: str,
    patterns: Iterable[str] = ORCHESTRATION_PATTERNS,
    *,
    skipped: Iterable[str] | None = None,
    limit: int = MAX_WALK_ENTRIES,
) -> list[str]:
    """Files under ``root`` that match the orchestration patterns and are not examples or templates,
    sorted by path. The walk skips version control, virtual environments, caches and build output,
    and stops after ``limit`` directory entries."""
    from ctxres.defaults import SKIPPED_FOLDERS
    from ctxres.globs import matches_any

    skip = frozenset(SKIPPED_FOLDERS if skipped is None else skipped)
    wanted = tuple(patterns)
    found: list[str] = []
    visited = 0
    # One scandir per folder, its entries' types from the directory listing (os.walk also lstat()s every
    # folder it enters): the hooks walk the project on every prompt. Symlinked folders are not entered.
    folders = [(root, "")]
    while folders and visited <= limit:
        dirpath, folder = folders.pop()
        try:
            entries = list(os.scandir(dirpath))
        except OSError:
            continue
        visited += len(entries)
        subfolders = []
        for entry in entries:
            try:
                is_folder = entry.is_dir(follow_symlinks=False)
                if not is_folder and entry.is_symlink() and entry.is_dir():
                    continue  # a link to a folder: neither entered nor a file
            except OSError:
                continue
            rel = f"{folder}/{entry.name}" if folder else entry.name
            if is_folder:
                if entry.name not in skip:
                    subfolders.append((entry.path, rel))
            elif matches_any(rel, wanted) and not is_example_path(rel):
                found.append(entry.path)
        folders.extend(sorted(subfolders, reverse=True))  # visited in name order, as os.walk sorted would
    found.sort()
    return found


# What a search remembers of a candidate file (the hooks keep it in their cache, keyed by the
# file's path relative to the project): [size, mtime_ns, status or None, live, content time or None].
# A file whose size and mtime did not change is not parsed again; an unreadable file is remembered
# as not live until it changes, and a known file that can no longer be read (caught mid-write) keeps
# what was known of it until it can be read again.
if TYPE_CHECKING:  # pragma: no cover
    Known = dict[str, list[Any]]


class _Candidate:
    __slots__ = ("data", "path", "relpath", "status", "time")

    def __init__(self, path: str, relpath: str, status: str, time: str | None, data: Any) -> None:
        self.path = path
        self.relpath = relpath
        self.status = status
        self.time = time
        self.data = data  # None unless parsed during this search


def _remembered(entry: object, info: os.stat_result) -> list[Any] | None:
    if isinstance(entry, list) and len(entry) == 5 and entry[0] == info.st_size and entry[1] == info.st_mtime_ns:
        return entry
    return None


def _live_candidates(
    root: str,
    read: Callable[[str], Any],
    patterns: Iterable[str],
    accept: Callable[[str], bool] | None,
    skipped: Iterable[str] | None,
    known: Known | None,
) -> list[_Candidate]:
    """The live workflows among the workflow files, in rank order (:func:`find_live_workflow`)."""
    seen: Known = {}
    live: list[_Candidate] = []
    prefix = len(os.path.join(root, ""))  # every file found is under root: its relative path is a slice
    for path in workflow_files(root, patterns, skipped=skipped):
        if accept is not None and not accept(path):
            continue
        try:
            info = os.stat(path)
        except OSError:
            continue
        rel = path[prefix:].replace(os.sep, "/")
        entry = _remembered(known.get(rel), info) if known is not None else None
        data = None
        if entry is None:
            from ctxres.state.workflow_times import content_time

            data = read(path)
            previous = known.get(rel) if known is not None else None
            if data is None and isinstance(previous, list) and len(previous) == 5:
                entry = previous  # caught mid-write: what was known of it stands until it can be read again
            else:
                status = workflow_status_of(data) if data is not None else None
                entry = [info.st_size, info.st_mtime_ns, status, status in LIVE_STATUSES, content_time(data)]
        seen[rel] = entry
        if entry[3]:
            live.append(_Candidate(path, rel, str(entry[2]), entry[4] if isinstance(entry[4], str) else None, data))
    if known is not None:
        known.clear()
        known.update(seen)
    live.sort(key=lambda candidate: candidate.relpath)
    live.sort(key=lambda candidate: candidate.time or "", reverse=True)  # stable: the path breaks ties
    return live


def find_live_workflow(
    root: str,
    read: Callable[[str], Any],
    *,
    patterns: Iterable[str] = ORCHESTRATION_PATTERNS,
    accept: Callable[[str], bool] | None = None,
    skipped: Iterable[str] | None = None,
    pinned: str | None = None,
    pinned_by: str = "the live-workflow setting",
    known: Known | None = None,
    load: bool = True,
) -> WorkflowChoice | None:
    """The live workflow of the project at ``root``; None when there is none.

    In order:

    1. ``$CTXRES_ORCHESTRATION`` (a path relative to ``root``) names it outright;
    2. ``pinned`` (the ``live-workflow`` setting, a path relative to ``root`` or absolute; ``pinned_by``
       says where it is set) pins it; a pinned file that is refused or cannot be read gives None, never
       a search (the caller says why);
    3. otherwise, among the files matching the orchestration patterns that are not examples or
       templates and whose workflow is ACTIVE or PAUSED (:func:`is_live`): the one with the newest
       content time (:func:`ctxres.state.workflow_times.content_time`: the workflow's and its resumption
       section's own update times, compared as instants), then the first by path (relative, ``/``
       separators, in code point order) among those with the same time; files that record no time
       come after those that do, by path. Modification times are never used: git does not keep
       them, and every clone of a commit must name the same workflow.

    ``read(path)`` returns a file's parsed data, or None when it cannot be read (such a file is
    skipped). ``accept(path)`` may refuse a path (a hook refuses one that a symlink takes out of
    the project). ``known`` (the hooks' cache) remembers each candidate's status and content time by
    its size and mtime, so that an unchanged file is not parsed again; it is updated in place.
    ``load=False``: the chosen file is not parsed only to fill :attr:`WorkflowChoice.data` (None
    unless this search parsed it).
    """
    root = os.path.realpath(root)
    named = os.environ.get(WORKFLOW_ENV) or pinned
    if named:
        path = named if os.path.isabs(named) else os.path.join(root, named)
        if accept is not None and not accept(path):
            return None
        data = read(path)
        if data is None:
            return None
        status = workflow_status_of(data) or ""
        by_env = bool(os.environ.get(WORKFLOW_ENV))
        return WorkflowChoice(path, _relative(path, root), data, status, [], by_env, pinned="" if by_env else pinned_by)
    ranked = _live_candidates(root, read, patterns, accept, skipped, known)
    while ranked:
        best = ranked[0]
        if best.data is None and load:
            best.data = read(best.path)
            if best.data is None:  # changed since it was remembered, and no longer readable
                ranked.pop(0)
                continue
        tied = best.time is not None and len(ranked) > 1 and ranked[1].time == best.time
        others = [candidate.relpath for candidate in ranked[1:]]
        return WorkflowChoice(best.path, best.relpath, best.data, best.status, others, updated=best.time, tied=tied)
    return None


def no_live_workflow(root_shown: str) -> str:
    """The sentence every command uses when there is no live workflow."""
    return (
        f"no live workflow under {root_shown}: no ORCHESTRATION file (examples and templates aside) has "
        "workflow status ACTIVE or PAUSED"
    )


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
