"""agent-memory runs: task state derived from append-only event logs (docs/formats.md, "Agent-memory runs").

A run lives in ``.agent-memory/runs/<run-id>/``: the core artifacts ``constitution.md``,
``prd.md``, ``plan.md`` and ``task-graph.json`` (the tasks and their dependencies), and one
folder of JSON Lines event logs per actor, ``events/<actor>/<YYYYMMDD-HHMM>.jsonl``. Nothing
stores a task's status: it is derived from the newest lifecycle event of the task, in time order
across every actor's log.

Two vocabularies are read. The agent-memory format names ``task_started``, ``task_completed``,
``task_failed`` and ``task_blocked``. The agent pack (its ``event-format.md`` and ``agentic-event-schema.yaml``)
writes ``task-claimed``, ``task-implemented``, ``task-verified`` (verification passed: the last
step of its JSONL vocabulary, so the task is done), ``task-failed``, ``task-blocked``,
``phase-complete`` and ``run-complete``, and its catalog adds ``task-created``, ``task-ready``,
``task-started``, ``task-verification-failed``, ``task-completed`` and run-level events:

=========== ===================================================================
``pending``  no lifecycle event yet (or only ``task_created`` / ``task_ready``)
``in_progress`` ``task_started``, ``task_claimed``, ``task_implemented``: work under way
``done``     ``task_completed``, ``task_verified``
``failed``   ``task_failed`` (or ``task_verification_failed``)
``blocked``  ``task_blocked``
=========== ===================================================================

Event types are read in both spellings (``task_started`` and ``task-started``). An event type
in neither vocabulary (or an event without ``event_type``) changes nothing; :func:`unmapped_events`
lists them so that they are reported rather than ignored. A task is *runnable* when every
dependency is done and the task itself is neither done nor blocked.

Everything here is pure except the readers at the end (:func:`read_run`, :func:`find_runs`).
Standard library only (plus :mod:`ctxres.formats.loading` for the positions of every value).
"""

from __future__ import annotations

import datetime as dt
import difflib
import os
from collections.abc import Iterable, Sequence

from ctxres.formats.document import Document
from ctxres.formats.loading import Format, IssueKind, load_file
from ctxres.records import FrozenRecord, Record, init_field
from ctxres.timestamps import format_duration, format_utc, parse_datetime

# `ctxres check` loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

RUNS_FOLDER = os.path.join(".agent-memory", "runs")
TASK_GRAPH = "task-graph.json"
EVENTS_FOLDER = "events"
CORE_ARTIFACTS = ("constitution.md", "prd.md", "plan.md", TASK_GRAPH)
EXECUTION_PHASE = 2  # from phase 2 on, every core artifact must exist (the tasks come from them)

PENDING, IN_PROGRESS, DONE, FAILED, BLOCKED = "pending", "in_progress", "done", "failed", "blocked"

# Normalised event type -> the task state it sets (docs/formats.md, "Event vocabulary"): the format's own,
# plus the agent pack's catalog and JSONL vocabulary: in the pack, `task-verified` is the last step of
# a task that passed verification).
STATE_OF_EVENT: dict[str, str] = {
    "task_created": PENDING,
    "task_ready": PENDING,
    "task_claimed": IN_PROGRESS,
    "task_started": IN_PROGRESS,
    "task_implemented": IN_PROGRESS,
    "task_verified": DONE,
    "task_completed": DONE,
    "task_failed": FAILED,
    "task_verification_failed": FAILED,
    "task_blocked": BLOCKED,
}
# Events that mean work on the task has begun (what a completion must come after).
START_EVENTS = frozenset({"task_claimed", "task_started", "task_implemented", "task_verified"})
COMPLETED = "task_completed"
# Two events stamped with the same instant: the later step of the lifecycle is taken as the newer.
_LIFECYCLE_RANK = {kind: rank for rank, kind in enumerate(STATE_OF_EVENT)}
RUN_FINISHED = frozenset({"run_completed", "run_complete", "run_cancelled"})
# Run-level events that tell the phase: (normalised type) -> the phase they imply (None: ``details.phase``).
PHASE_EVENTS: dict[str, int | None] = {
    "phase_started": None,
    "phase_completed": None,
    "phase_complete": None,
    "phase_gate_passed": None,
    "cleanup_started": 3,
    "cleanup_completed": 3,
    "pr_prep_started": 3,
    "pr_prep_completed": 3,
    "ready_for_human_review": 3,
    "consolidation_started": 4,
    "consolidation_completed": 4,
    "stm_archived": 4,
    "run_completed": 4,
    "run_complete": 4,
}
# Every other event type of the two vocabularies: known, and setting no task state.
OTHER_EVENTS = frozenset(
    {
        "run_started",
        "run_failed",
        "run_cancelled",
        "escalation",
        "escalation_resolved",
        "artifact_created",
        "artifact_approved",
        "execution_error",
        "checkpoint_created",
        "session_resumed",
    }
)
KNOWN_EVENTS = frozenset(STATE_OF_EVENT) | frozenset(PHASE_EVENTS) | RUN_FINISHED | OTHER_EVENTS
MAX_PHASE = 4


def normalise_event_type(value: str) -> str:
    """``task-started`` and ``Task_Started`` both read as ``task_started``."""
    return value.strip().lower().replace("-", "_")


def spelling_of(value: str) -> str:
    """``"underscore"``, ``"hyphen"``, ``"mixed"`` (both separators) or ``"plain"`` (neither)."""
    has_underscore, has_hyphen = "_" in value, "-" in value
    if has_underscore and has_hyphen:
        return "mixed"
    if has_underscore:
        return "underscore"
    return "hyphen" if has_hyphen else "plain"


def respell(value: str, spelling: str) -> str:
    """``value`` written with the separator of ``spelling`` (``"underscore"`` or ``"hyphen"``)."""
    return value.replace("-", "_") if spelling == "underscore" else value.replace("_", "-")


# --------------------------------------------------------------------------- the data


class Task(FrozenRecord):
    """One task of ``task-graph.json`` (``index``: its position in ``tasks``)."""

    __slots__ = ("dependencies", "id", "index", "title")

    id: str
    title: str
    dependencies: tuple[str, ...]
    index: int

    def __init__(self, id: str, title: str, dependencies: tuple[str, ...], index: int) -> None:
        init_field(self, "id", id)
        init_field(self, "title", title)
        init_field(self, "dependencies", dependencies)
        init_field(self, "index", index)


class RunEvent(FrozenRecord, uncompared=("details",)):
    """One readable line of an event log."""

    __slots__ = (
        "actor",
        "details",
        "event_type",
        "folder",
        "instant",
        "item",
        "kind",
        "line",
        "path",
        "task_id",
        "timestamp",
    )

    path: str  # the log file, as shown to the user
    line: int  # 1-based line in that file
    item: int  # index of the line among the file's readable lines (``Document.data``)
    folder: str  # the actor folder the file is in (``events/<folder>/``)
    actor: str | None
    event_type: str  # as written
    kind: str  # normalised (``task_started``)
    task_id: str | None
    timestamp: str | None
    instant: dt.datetime | None
    details: dict[str, Any]

    def __init__(
        self,
        path: str,
        line: int,
        item: int,
        folder: str,
        actor: str | None,
        event_type: str,
        kind: str,
        task_id: str | None,
        timestamp: str | None,
        instant: dt.datetime | None,
        details: dict[str, Any] | None = None,
    ) -> None:
        init_field(self, "path", path)
        init_field(self, "line", line)
        init_field(self, "item", item)
        init_field(self, "folder", folder)
        init_field(self, "actor", actor)
        init_field(self, "event_type", event_type)
        init_field(self, "kind", kind)
        init_field(self, "task_id", task_id)
        init_field(self, "timestamp", timestamp)
        init_field(self, "instant", instant)
        init_field(self, "details", {} if details is None else details)

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}"


class Corruption(FrozenRecord):
    """A line of an event log that could not be read (it is skipped)."""

    __slots__ = ("line", "message", "path")

    path: str
    line: int
    message: str

    def __init__(self, path: str, line: int, message: str) -> None:
        init_field(self, "path", path)
        init_field(self, "line", line)
        init_field(self, "message", message)


class Run(Record):
    """Everything read from one run folder."""

    __slots__ = (
        "artifacts",
        "corrupted",
        "directory",
        "documents",
        "events",
        "graph_path",
        "graph_problem",
        "run_id",
        "tasks",
    )

    run_id: str
    directory: str
    tasks: list[Task] | None  # None: no readable task-graph.json
    graph_path: str
    graph_problem: str
    events: list[RunEvent]
    corrupted: list[Corruption]
    artifacts: frozenset[str]
    documents: list[Document]

    def __init__(
        self,
        run_id: str,
        directory: str,
        tasks: list[Task] | None = None,
        graph_path: str = "",
        graph_problem: str = "",
        events: list[RunEvent] | None = None,
        corrupted: list[Corruption] | None = None,
        artifacts: frozenset[str] = frozenset(),
        documents: list[Document] | None = None,
    ) -> None:
        self.run_id = run_id
        self.directory = directory
        self.tasks = tasks
        self.graph_path = graph_path
        self.graph_problem = graph_problem
        self.events = [] if events is None else events
        self.corrupted = [] if corrupted is None else corrupted
        self.artifacts = artifacts
        self.documents = [] if documents is None else documents


class TaskStatus(FrozenRecord):
    """A task's derived state and the event that set it (None: no lifecycle event)."""

    __slots__ = ("event", "state", "task")

    task: Task
    state: str
    event: RunEvent | None

    def __init__(self, task: Task, state: str, event: RunEvent | None) -> None:
        init_field(self, "task", task)
        init_field(self, "state", state)
        init_field(self, "event", event)


class RunStatus(Record):
    """What the resume report says about a run."""

    __slots__ = (
        "complete",
        "last_activity",
        "last_completed",
        "next_action",
        "phase",
        "run",
        "runnable",
        "tasks",
        "warnings",
    )

    run: Run
    phase: int
    complete: bool
    tasks: list[TaskStatus]
    runnable: list[Task]
    last_activity: RunEvent | None
    last_completed: TaskStatus | None
    next_action: str
    warnings: list[str]

    def __init__(
        self,
        run: Run,
        phase: int,
        complete: bool,
        tasks: list[TaskStatus],
        runnable: list[Task],
        last_activity: RunEvent | None,
        last_completed: TaskStatus | None,
        next_action: str,
        warnings: list[str],
    ) -> None:
        self.run = run
        self.phase = phase
        self.complete = complete
        self.tasks = tasks
        self.runnable = runnable
        self.last_activity = last_activity
        self.last_completed = last_completed
        self.next_action = next_action
        self.warnings = warnings

    @property
    def done(self) -> int:
        return sum(1 for status in self.tasks if status.state == DONE)


# --------------------------------------------------------------------------- reading parsed data (pure)


def tasks_of(data: Any) -> list[Task] | None:
    """The tasks of a parsed ``task-graph.json`` (items that are not tasks are skipped); None when
    the data has no ``tasks`` list."""
    if not isinstance(data, dict) or not isinstance(data.get("tasks"), list):
        return None
    tasks = []
    for index, item in enumerate(data["tasks"]):
        if not isinstance(item, dict) or not isinstance(item.get("id"), str) or not item["id"]:
            continue
        deps = item.get("dependencies")
        dependencies = tuple(dep for dep in deps if isinstance(dep, str)) if isinstance(deps, list) else ()
        title = item.get("title")
        tasks.append(Task(item["id"], title if isinstance(title, str) else "", dependencies, index))
    return tasks


def actor_folder(path: str) -> str:
    """The ``<actor>`` of ``.../events/<actor>/<file>.jsonl`` ("" when the path has another shape)."""
    parts = path.replace(os.sep, "/").split("/")
    return parts[-2] if len(parts) >= 3 and parts[-3] == EVENTS_FOLDER else ""


def run_directory(path: str) -> str:
    """The run folder of an event log (``<run>/events/<actor>/x.jsonl``) or of a ``task-graph.json``."""
    parts = path.replace(os.sep, "/").split("/")
    if len(parts) >= 3 and parts[-3] == EVENTS_FOLDER:
        return "/".join(parts[:-3]) or "."
    return "/".join(parts[:-1]) or "."


def events_of(doc: Document) -> list[RunEvent]:
    """The readable events of a parsed event log (lines that are not JSON objects are skipped)."""
    items = doc.data if isinstance(doc.data, list) else []
    folder = actor_folder(doc.fs_path or doc.path)
    events = []
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            continue
        event_type = item.get("event_type")
        event_type = event_type if isinstance(event_type, str) else ""
        actor, task_id, timestamp = item.get("actor"), item.get("task_id"), item.get("timestamp")
        details = item.get("details")
        line = doc.line_numbers[index] if index < len(doc.line_numbers) else index + 1
        events.append(
            RunEvent(
                path=doc.path,
                line=line,
                item=index,
                folder=folder,
                actor=actor if isinstance(actor, str) else None,
                event_type=event_type,
                kind=normalise_event_type(event_type),
                task_id=task_id if isinstance(task_id, str) and task_id else None,
                timestamp=timestamp if isinstance(timestamp, str) else None,
                instant=parse_datetime(timestamp),
                details=details if isinstance(details, dict) else {},
            )
        )
    return events


_EARLIEST = dt.datetime.min.replace(tzinfo=dt.timezone.utc)


def in_time_order(events: Iterable[RunEvent]) -> list[RunEvent]:
    """Events by timestamp; equal (or unreadable) timestamps keep file and line order."""
    return sorted(events, key=lambda event: (event.instant or _EARLIEST, event.path, event.line))


# --------------------------------------------------------------------------- the task graph (pure)


def duplicate_ids(tasks: Sequence[Task]) -> list[tuple[Task, Task]]:
    """(repeated task, its first occurrence) for every id used twice."""
    first: dict[str, Task] = {}
    repeated = []
    for task in tasks:
        if task.id in first:
            repeated.append((task, first[task.id]))
        else:
            first[task.id] = task
    return repeated


def dangling_dependencies(tasks: Sequence[Task]) -> list[tuple[Task, int, str]]:
    """(task, position in its ``dependencies``, id) for each dependency that names no task."""
    known = {task.id for task in tasks}
    return [
        (task, position, dep) for task in tasks for position, dep in enumerate(task.dependencies) if dep not in known
    ]


def cycles(tasks: Sequence[Task]) -> list[list[str]]:
    """Each dependency cycle once, as the ids along it starting from its first task in graph order
    (``["T1", "T2", "T1"]``); a task that depends on itself is ``["T1", "T1"]``."""
    graph: dict[str, list[str]] = {}
    order: dict[str, int] = {}
    for task in tasks:
        graph.setdefault(task.id, [])
        order.setdefault(task.id, task.index)
        graph[task.id] += [dep for dep in task.dependencies if dep not in graph[task.id]]
    found = []
    for component in _strongly_connected(graph):
        members = set(component)
        if len(component) == 1 and component[0] not in graph[component[0]]:
            continue
        start = min(component, key=lambda node: order[node])
        found.append(_cycle_through(start, graph, members))
    return sorted(found, key=lambda cycle: order[cycle[0]])


def _strongly_connected(graph: dict[str, list[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iterative (a long dependency chain must not hit the recursion limit)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components: list[list[str]] = []
    counter = 0
    for root in graph:
        if root in index:
            continue
        work: list[tuple[str, int]] = [(root, 0)]
        while work:
            node, child = work.pop()
            if child == 0:
                index[node] = low[node] = counter
                counter += 1
                stack.append(node)
                on_stack.add(node)
            successors = [dep for dep in graph[node] if dep in graph]
            if child < len(successors):
                work.append((node, child + 1))
                nxt = successors[child]
                if nxt not in index:
                    work.append((nxt, 0))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                components.append(component)
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    return components


def _cycle_through(start: str, graph: dict[str, list[str]], members: set[str]) -> list[str]:
    """A path ``start -> ... -> start`` inside one strongly connected component (breadth-first: shortest)."""
    previous: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for dep in graph[node]:
                if dep == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(previous[path[-1]])
                    return [*reversed(path), start]
                if dep in members and dep not in previous:
                    previous[dep] = node
                    following.append(dep)
        frontier = following
    return [start, start]  # not reached: a component of several nodes always has a cycle


# --------------------------------------------------------------------------- task state (pure)


def derive_states(tasks: Sequence[Task], events: Iterable[RunEvent]) -> list[TaskStatus]:
    """Each task's state: the state set by its newest lifecycle event.

    docs/formats.md, "Task state and runnable tasks".
    """
    newest: dict[str, RunEvent] = {}
    lifecycle = [event for event in events if event.task_id is not None and event.kind in STATE_OF_EVENT]
    for event in sorted(
        lifecycle,
        key=lambda event: (event.instant or _EARLIEST, _LIFECYCLE_RANK[event.kind], event.path, event.line),
    ):
        assert event.task_id is not None
        newest[event.task_id] = event
    statuses = []
    for task in tasks:
        latest = newest.get(task.id)
        statuses.append(TaskStatus(task, STATE_OF_EVENT[latest.kind] if latest else PENDING, latest))
    return statuses


def unmapped_events(events: Iterable[RunEvent]) -> list[RunEvent]:
    """Events whose type is in neither vocabulary (the format's, the agent pack's), or that have no
    ``event_type`` at all: they change no task state and no phase."""
    return [event for event in events if event.kind not in KNOWN_EVENTS]


def describe_unmapped(event: RunEvent) -> str:
    """Why ``event`` (one of :func:`unmapped_events`) is not used, for a warning."""
    task = f" for task {event.task_id}" if event.task_id else ""
    effect = f"the state of task {event.task_id} may be wrong" if event.task_id else "the run's phase may be wrong"
    if not event.event_type:
        return f"an event{task} without `event_type` is ignored: {effect}"
    return (
        f"event type {event.event_type!r}{task} is in neither the agent-memory format's nor the agent pack's "
        f"vocabulary: ignored, {effect}"
    )


def runnable_tasks(statuses: Sequence[TaskStatus]) -> list[Task]:
    """Tasks whose dependencies are all done and that are neither done nor blocked; work already in
    progress first, then in graph order (docs/formats.md, "Task state and runnable tasks")."""
    state = {status.task.id: status.state for status in statuses}
    ready = [
        status
        for status in statuses
        if status.state not in (DONE, BLOCKED) and all(state.get(dep) == DONE for dep in status.task.dependencies)
    ]
    ready.sort(key=lambda status: (status.state != IN_PROGRESS, status.task.index))
    return [status.task for status in ready]


class Transition(FrozenRecord):
    """An impossible step in a task's history: ``event`` cannot follow (or precede) ``other``."""

    __slots__ = ("event", "kind", "other")

    kind: str  # "not-started" (completed, never started), "started-later", "after-completion"
    event: RunEvent
    other: RunEvent | None

    def __init__(self, kind: str, event: RunEvent, other: RunEvent | None = None) -> None:
        init_field(self, "kind", kind)
        init_field(self, "event", event)
        init_field(self, "other", other)


def impossible_transitions(events: Iterable[RunEvent]) -> list[Transition]:
    """Completions with no earlier start, and lifecycle events later than the task's completion.

    Only strictly earlier/later timestamps count: events of two actors stamped with the same
    second have no order.
    """
    by_task: dict[str, list[RunEvent]] = {}
    for event in in_time_order(events):
        if event.task_id is not None and event.kind in STATE_OF_EVENT and event.instant is not None:
            by_task.setdefault(event.task_id, []).append(event)
    found = []
    for history in by_task.values():
        completions = [event for event in history if event.kind == COMPLETED]
        if not completions:
            continue
        first_done = completions[0]
        assert first_done.instant is not None
        starts = [event for event in history if event.kind in START_EVENTS]
        later = None
        if not any(start.instant is not None and start.instant < first_done.instant for start in starts):
            later = next((start for start in starts if start.instant and start.instant > first_done.instant), None)
            found.append(Transition("started-later" if later else "not-started", first_done, later))
        found += [
            Transition("after-completion", event, first_done)
            for event in history
            if event.instant is not None and event.instant > first_done.instant and event is not later
        ]
    return sorted(found, key=lambda t: (t.event.instant or _EARLIEST, t.event.path, t.event.line))


# --------------------------------------------------------------------------- the run (pure)


def run_phase(run: Run) -> int:
    """The phase (0-4) the run is in: the highest phase its events name, at least 2 once a task has
    been worked on; without such events 1 when a PRD, plan or task graph exists, else 0."""
    phase = -1
    for event in run.events:
        if event.kind in PHASE_EVENTS:
            implied = PHASE_EVENTS[event.kind]
            named = event.details.get("phase")
            if implied is None and isinstance(named, int) and not isinstance(named, bool):
                implied = named
            if implied is not None and 0 <= implied <= MAX_PHASE:
                phase = max(phase, implied)
        elif event.kind in START_EVENTS or event.kind in (COMPLETED, "task_failed", "task_verification_failed"):
            phase = max(phase, EXECUTION_PHASE)
    if phase >= 0:
        return phase
    return 1 if run.artifacts & {"prd.md", "plan.md", TASK_GRAPH} else 0


def missing_artifacts(run: Run, phase: int) -> list[str]:
    """The core artifacts a run in ``phase`` must have and does not (from phase 2 on: all four)."""
    if phase < EXECUTION_PHASE:
        return []
    return [name for name in CORE_ARTIFACTS if name not in run.artifacts]


def is_complete(events: Iterable[RunEvent]) -> bool:
    """Whether the run finished (``run_completed``/``run_cancelled``, or ``run_failed`` saying it cannot
    be recovered)."""
    for event in events:
        if event.kind in RUN_FINISHED:
            return True
        if event.kind == "run_failed" and event.details.get("recovery_possible") is False:
            return True
    return False


def _label(task: Task) -> str:
    return f"{task.id} - {task.title}" if task.title else task.id


def next_action(run: Run, phase: int, statuses: Sequence[TaskStatus], runnable: Sequence[Task]) -> str:
    """The "Next Action" of the resume report for the run's phase (docs/formats.md, "The resume report")."""
    missing = missing_artifacts(run, phase)
    if missing:
        return f"re-run the step that produces the missing {', '.join(missing)}, then resume phase {phase}"
    if phase <= 1:
        absent = [name for name in ("prd.md", "plan.md") if name not in run.artifacts]
        if absent:
            return f"phase {phase}: continue the PRD/plan ({', '.join(absent)} not written yet)"
        return f"phase {phase}: the PRD and plan exist; wait for approval, then start executing tasks (phase 2)"
    if phase == EXECUTION_PHASE:
        if runnable:
            first = runnable[0]
            state = next(status.state for status in statuses if status.task is first)
            verb = "continue" if state == IN_PROGRESS else ("retry" if state == FAILED else "execute")
            more = f" ({len(runnable) - 1} more runnable)" if len(runnable) > 1 else ""
            return f"{verb} task {_label(first)}{more}"
        blocked = [status.task.id for status in statuses if status.state == BLOCKED]
        if blocked:
            return f"no runnable task: resolve the blocker of {', '.join(blocked)}"
        if statuses and all(status.state == DONE for status in statuses):
            return "every task is done: move to phase 3 (cleanup and PR preparation)"
        return "no runnable task: check the task graph's dependencies"
    if phase == 3:
        return "phase 3: re-run cleanup and PR preparation"
    return "phase 4: run memory consolidation"


def assess(run: Run, *, now: dt.datetime, stale_after: dt.timedelta) -> RunStatus:
    """The resume report's content for ``run`` at ``now``; runs idle longer than ``stale_after`` are stale."""
    tasks = run.tasks or []
    statuses = derive_states(tasks, run.events)
    runnable = runnable_tasks(statuses)
    phase = run_phase(run)
    timed = [event for event in run.events if event.instant is not None]
    last = max(timed, key=lambda event: (event.instant, event.path, event.line)) if timed else None
    done = [status for status in statuses if status.state == DONE and status.event is not None]
    last_completed = max(done, key=lambda s: (s.event.instant or _EARLIEST) if s.event else _EARLIEST, default=None)
    warnings = [
        f"{item.path}:{item.line}: unreadable line skipped ({item.message.split('skipped: ', 1)[-1]}); "
        "the task states may miss an event"
        for item in run.corrupted
    ]
    warnings += [f"{event.where}: {describe_unmapped(event)}" for event in in_time_order(unmapped_events(run.events))]
    if run.graph_problem:
        warnings.append(f"{run.graph_problem}: task states cannot be derived")
    elif run.tasks is None and phase >= EXECUTION_PHASE:
        warnings.append(f"no {TASK_GRAPH} in phase {phase}: task states cannot be derived")
    if last is not None and last.instant is not None and now - last.instant > stale_after:
        warnings.append(
            f"the run has been idle for {format_duration(now - last.instant)} (last event {format_utc(last.instant)}): "
            "review the plan and the code it touches before resuming"
        )
    return RunStatus(
        run=run,
        phase=phase,
        complete=is_complete(run.events),
        tasks=statuses,
        runnable=runnable,
        last_activity=last,
        last_completed=last_completed,
        next_action=next_action(run, phase, statuses, runnable),
        warnings=warnings,
    )


RULE = "═" * 59


def render_report(status: RunStatus) -> str:
    """The resume report (docs/formats.md, "The resume report"), with each task's state and the warnings."""
    last = status.last_activity
    completed = status.last_completed
    lines = [
        RULE,
        f"RESUMING RUN: {status.run.run_id}",
        "",
        "Current State:",
        f"- Phase: {status.phase}",
        f"- Tasks: {status.done}/{len(status.tasks)} complete",
        f"- Last activity: {last.timestamp if last else 'none (no event yet)'}",
        f"- Last completed: {_label(completed.task) if completed else 'none'}",
        f"- Runnable: {', '.join(task.id for task in status.runnable) or 'none'}",
    ]
    if status.complete:
        lines.append("- The run is finished (a run_completed, run-complete or run_cancelled event)")
    if status.tasks:
        lines += ["", "Tasks:"]
        width = max(len(s.task.id) for s in status.tasks)
        for task_status in status.tasks:
            title = f"  {task_status.task.title}" if task_status.task.title else ""
            lines.append(f"- {task_status.task.id:<{width}}  {task_status.state:<11}{title}".rstrip())
    if status.warnings:
        lines += ["", "Warnings:", *(f"- {warning}" for warning in status.warnings)]
    lines += ["", "Next Action:", f"- {status.next_action}", "", "Continuing...", RULE]
    return "\n".join(lines) + "\n"


def status_json(status: RunStatus) -> dict[str, Any]:
    last, completed = status.last_activity, status.last_completed
    return {
        "run_id": status.run.run_id,
        "directory": status.run.directory,
        "phase": status.phase,
        "complete": status.complete,
        "done": status.done,
        "total": len(status.tasks),
        "last_activity": last.timestamp if last else None,
        "last_completed": {"id": completed.task.id, "title": completed.task.title} if completed else None,
        "tasks": [
            {
                "id": s.task.id,
                "title": s.task.title,
                "state": s.state,
                "dependencies": list(s.task.dependencies),
                "event": s.event.where if s.event else None,
            }
            for s in status.tasks
        ],
        "runnable": [task.id for task in status.runnable],
        "next_action": status.next_action,
        "warnings": status.warnings,
    }


# --------------------------------------------------------------------------- reading a run from disk


def build_run(run_id: str, directory: str, graph: Document | None, logs: Sequence[Document]) -> Run:
    """A run from its already-parsed task graph and event logs (``artifacts`` filled by the caller)."""
    run = Run(run_id=run_id, directory=directory, documents=[*([graph] if graph else []), *logs])
    if graph is not None:
        run.graph_path = graph.path
        run.tasks = tasks_of(graph.data)
        if run.tasks is None:
            run.graph_problem = f"{graph.path} has no `tasks` list"
    for log in sorted(logs, key=lambda doc: doc.path):
        run.events += events_of(log)
    return run


def _display(path: str, cwd: str) -> str:
    try:
        return os.path.relpath(path, cwd).replace(os.sep, "/")
    except ValueError:  # another drive (Windows)
        return path


def read_run(directory: str, *, cwd: str | None = None) -> Run:
    """Read a run folder: its task graph, every ``events/<actor>/*.jsonl`` and which core artifacts exist.

    Unreadable lines are recorded in ``corrupted`` and skipped; nothing raises on bad content.
    """
    cwd = cwd or os.getcwd()
    artifacts = frozenset(name for name in CORE_ARTIFACTS if os.path.isfile(os.path.join(directory, name)))
    graph: Document | None = None
    corrupted: list[Corruption] = []
    problem = ""
    if TASK_GRAPH in artifacts:
        path = os.path.join(directory, TASK_GRAPH)
        result = load_file(path, "task-graph", Format.JSON, display_path=_display(path, cwd))
        graph = result.document
        if graph is None:
            first = result.issues[0].message if result.issues else "unreadable"
            problem = f"{_display(path, cwd)} cannot be read ({first})"
    logs = []
    for path in event_logs(directory):
        shown = _display(path, cwd)
        result = load_file(path, "event-log", Format.JSONL, display_path=shown)
        for issue in result.issues:
            if issue.kind in (IssueKind.SYNTAX, IssueKind.ENCODING, IssueKind.BINARY, IssueKind.UNREADABLE):
                corrupted.append(Corruption(shown, issue.position.line, issue.message))
        if result.document is not None:
            logs.append(result.document)
    run = build_run(os.path.basename(os.path.normpath(directory)), _display(directory, cwd), graph, logs)
    run.artifacts = artifacts
    run.corrupted = corrupted
    if problem:
        run.graph_problem = problem
    return run


def event_logs(directory: str) -> list[str]:
    events = os.path.join(directory, EVENTS_FOLDER)
    try:
        actors = sorted(entry for entry in os.listdir(events) if os.path.isdir(os.path.join(events, entry)))
    except OSError:
        return []
    found = []
    for actor in actors:
        folder = os.path.join(events, actor)
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            continue
        found += [os.path.join(folder, name) for name in names if name.endswith(".jsonl")]
    return found


def find_runs(root: str) -> list[str]:
    """The run folders of ``<root>/.agent-memory/runs/``, by name."""
    runs = os.path.join(root, RUNS_FOLDER)
    try:
        names = sorted(os.listdir(runs))
    except OSError:
        return []
    return [os.path.join(runs, name) for name in names if os.path.isdir(os.path.join(runs, name))]


# --------------------------------------------------------------------------- append-only (pure)


class LineChange(FrozenRecord):
    """A committed line of an event log that a new version does not keep in place.

    ``kind``: ``"changed"`` (``new`` replaces ``old``), ``"deleted"``, or ``"inserted"`` (new lines were
    put before this committed line instead of after the last one).
    """

    __slots__ = ("kind", "line", "new", "old")

    line: int
    kind: str
    old: str
    new: str

    def __init__(self, line: int, kind: str, old: str = "", new: str = "") -> None:
        init_field(self, "line", line)
        init_field(self, "kind", kind)
        init_field(self, "old", old)
        init_field(self, "new", new)


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", "replace")


def _lines(data: bytes) -> list[bytes]:
    lines = data.split(b"\n")
    return lines[:-1] if lines and lines[-1] == b"" else lines


def append_only_violations(old: bytes, new: bytes) -> list[LineChange]:
    """How ``new`` fails to keep ``old`` as its beginning (empty: only lines were appended).

    A missing newline at the end of ``old`` may be added; anything else that touches a committed
    line is reported with that line's number in ``old``.
    """
    if new.startswith(old) and (not old or old.endswith(b"\n") or new[len(old) : len(old) + 1] in (b"", b"\n")):
        return []
    before, after = _lines(old), _lines(new)
    matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
    changes: list[LineChange] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "replace":
            for offset in range(i2 - i1):
                replacement = after[j1 + offset] if j1 + offset < j2 else b""
                kind = "changed" if j1 + offset < j2 else "deleted"
                changes.append(LineChange(i1 + offset + 1, kind, _text(before[i1 + offset]), _text(replacement)))
        elif tag == "delete":
            changes += [LineChange(i + 1, "deleted", _text(before[i])) for i in range(i1, i2)]
        elif tag == "insert" and i1 < len(before):
            changes.append(LineChange(i1 + 1, "inserted", _text(before[i1]), _text(after[j1])))
    return changes
