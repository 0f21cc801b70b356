"""M rules: agent-memory runs (docs/formats.md, "Agent-memory runs"), their task graph and their append-only event logs.

Checks inside one file (the graph's ids, dependencies and cycles; an event's actor and spelling)
run per document. Checks that need the whole run (unknown task ids, the order of a task's events
across actors, the core artifacts of the run's phase) run once per workspace; a run's files that
were not given on the command line are read from disk for context, but findings are only
reported in the files being checked.
"""

from __future__ import annotations

import os

from ctxres import agent_memory as am
from ctxres.config import Config, Option
from ctxres.findings import Finding, Position, Severity
from ctxres.formats.document import Document, JsonPath, format_json_path
from ctxres.formats.loading import Format, load_file
from ctxres.linters.checking.registry import Rule, document_check, register, workspace_check
from ctxres.linters.checking.severity_policy import Case

# The options of this module's rules, read with `config.value(...)`: the loader checks a configuration against
# their copy, OPTIONS of ctxres/config.py, which `python dev/generate.py --write` makes from them.
SPELLINGS = ("any", "underscore", "hyphen")
EVENT_TYPE_SPELLING = Option("event-type-spelling", "any", "the spelling every event type must use", choices=SPELLINGS)
RUN_STALE_AFTER_DAYS = Option("run-stale-after-days", 7, "`ctxres runs` warns about a run idle for longer than this", 1)

# `ctxres check` loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:
    from ctxres.linters.checking.engine import Workspace


def spelling_setting(config: Config) -> str:
    """``event-type-spelling`` from the configuration (checked there: any, underscore or hyphen)."""
    return config.value(EVENT_TYPE_SPELLING)


def _finding(doc: Document, rule: Rule, message: str, path: JsonPath, fix: str = "", *, key: bool = False) -> Finding:
    return Finding(doc.path, rule.code, message, rule.severity, doc.locate(path, key=key), format_json_path(path), fix)


# --------------------------------------------------------------------------- the task graph


DUPLICATE_TASK = register(
    "M004",
    "duplicate-task-id",
    "Two tasks of `task-graph.json` have the same id.",
    case=Case.CONTRADICTION,
    why="Two tasks with one id.",
    explanation="""
    ## Why
    Events name tasks by id, and dependencies too. With two tasks sharing an id, every event and
    every dependency on that id applies to both, so neither's state can be trusted.

    ## Example
    ```json
    {"tasks": [
      {"id": "T001", "title": "Add the null check", "dependencies": []},
      {"id": "T001", "title": "Test the null check", "dependencies": []}
    ]}
    ```

    ## Fix
    Give each task its own id, and update the dependencies that meant the renamed one.
    """,
)


DANGLING = register(
    "M005",
    "dangling-dependency",
    "A task depends on an id that is not a task of the graph.",
    case=Case.CONTRADICTION,
    why="A dependency on a task that does not exist.",
    explanation="""
    ## Why
    A task is runnable only when all its dependencies are done. A dependency on an id that is not
    in the graph can never be done, so the task is never runnable and the run stalls silently.

    ## Example
    ```json
    {"id": "T003", "title": "Add the handler", "dependencies": ["T002", "T007"]}
    ```
    where no task has the id `T007`.

    ## Fix
    Correct the id, add the missing task, or remove the dependency.
    """,
)


CYCLE = register(
    "M006",
    "dependency-cycle",
    "Tasks depend on each other in a cycle.",
    case=Case.CONTRADICTION,
    why="A dependency cycle can never be scheduled.",
    explanation="""
    ## Why
    A task waits for its dependencies. When `T001` depends on `T002` and `T002` depends on `T001`
    (directly or through other tasks), none of them can ever start: the run stalls with tasks left
    and nothing runnable.

    ## Example
    ```json
    {"id": "T001", "title": "...", "dependencies": ["T002"]},
    {"id": "T002", "title": "...", "dependencies": ["T001"]}
    ```

    ## Fix
    Remove the dependency that is not real (the message lists the cycle), or split a task so the
    order becomes a chain.
    """,
)


def _check_graph(doc: Document) -> list[Finding]:
    tasks = am.tasks_of(doc.data)
    if tasks is None:
        return []  # the schema rules report a graph without a `tasks` list
    findings = [
        _finding(
            doc,
            DUPLICATE_TASK,
            f"task id {task.id!r} is used twice (first by the task at index {first.index})",
            ("tasks", task.index, "id"),
            "give each task its own id",
        )
        for task, first in am.duplicate_ids(tasks)
    ]
    known = sorted({task.id for task in tasks})
    for task, position, dep in am.dangling_dependencies(tasks):
        sample = ", ".join(known[:8]) + (", ..." if len(known) > 8 else "")
        findings.append(
            _finding(
                doc,
                DANGLING,
                f"task {task.id} depends on {dep!r}, which is not a task of this graph (tasks: {sample})",
                ("tasks", task.index, "dependencies", position),
                "correct the id, add the task, or remove the dependency",
            )
        )
    first_index: dict[str, am.Task] = {}
    for task in tasks:
        first_index.setdefault(task.id, task)
    for cycle in am.cycles(tasks):
        head = first_index[cycle[0]]
        chain = " -> ".join(cycle)
        where: JsonPath = ("tasks", head.index, "dependencies")
        if cycle[1] in head.dependencies:
            where = (*where, head.dependencies.index(cycle[1]))
        message = (
            f"task {cycle[0]} depends on itself"
            if len(cycle) == 2
            else f"dependency cycle {chain}: none of these tasks can ever become runnable"
        )
        findings.append(_finding(doc, CYCLE, message, where, "remove the dependency that is not real"))
    return findings


# --------------------------------------------------------------------------- one event log


ACTOR_FOLDER = register(
    "M001",
    "actor-folder-mismatch",
    "An event's `actor` differs from the actor folder its log is in.",
    case=Case.CONTRADICTION,
    why="The event's actor and its log's folder disagree.",
    explanation="""
    ## Why
    Each actor appends to its own log, `events/<actor>/<YYYYMMDD-HHMM>.jsonl`, so that two agents
    never write the same file. An event whose `actor` names someone else was written into the
    wrong log (or with the wrong name): whoever reads the folder as "what this actor did" is
    misled, and two writers may now share one file.

    ## Example
    ```json
    // events/executor/20260115-1030.jsonl
    {"event_type": "task_completed", "task_id": "T001", "timestamp": "...", "actor": "verifier"}
    ```

    ## Fix
    Events are append-only: do not edit the line. Write future events of that actor to its own
    folder (`events/verifier/`), and fix the writer that chose the folder or the name.
    """,
)


NO_TASK_ID = register(
    "M003",
    "task-event-without-task-id",
    "A task lifecycle event has no `task_id`.",
    case=Case.TOOL_JOB,
    why="A task event without a task id cannot be applied to any task when the run is replayed.",
    explanation="""
    ## Why
    `task_started`, `task_completed`, `task_failed`, `task_blocked` and the other task events move
    one task's state. Without `task_id` the event moves nothing, and the task it was meant for stays
    pending (or in progress) in the resume report.

    ## Example
    ```json
    {"event_type": "task_completed", "timestamp": "2026-01-15T11:00:00Z", "actor": "executor"}
    ```

    ## Fix
    Append the event again with its `task_id` (do not edit the old line: the log is append-only).
    """,
)


SPELLING = register(
    "M010",
    "event-type-spelling",
    "An event type mixes `_` and `-`, or does not use the configured spelling.",
    Severity.WARNING,
    case=Case.CONVENTION,
    why="The spelling of event types is a convention of the project.",
    explanation="""
    ## Why
    Event types are read in both spellings (`task_started` and `task-started`), but one project
    should write one: tools that search the logs (`grep task_completed`) miss the other. A type
    that mixes both separators (`task_verification-failed`) matches neither. With
    `event-type-spelling = "underscore"` (or `"hyphen"`) in `[tool.ctxres]`, every event type must
    use that spelling; the default (`"any"`) accepts both.

    ## Example
    A line of an event log (`actor` and `details` left out here):

    ```json
    {"event_type": "task_verification-failed", "task_id": "T002", "timestamp": "2026-01-15T11:10:00Z", ...}
    ```

    ## Fix
    Write new events with the configured spelling. The logs are append-only: do not rewrite old
    lines; exclude old runs from this rule with `per-file-ignores` if needed.
    """,
    options=(EVENT_TYPE_SPELLING,),
)


UNMAPPED = register(
    "M011",
    "unknown-event-type",
    "An event type is in neither the agent-memory format's vocabulary nor the agent pack's: it changes no state.",
    Severity.WARNING,
    case=Case.CONVENTION,
    why="An event type of the project's own changes no state; a near miss of a known type is worth a look.",
    explanation="""
    ## Why
    A task's state is derived from its newest lifecycle event, and the run's phase from run-level
    events. Two vocabularies are understood, in both spellings (`task_started`, `task-started`):

    - the agent-memory format: `task_started`, `task_completed`, `task_failed`, `task_blocked`;
    - the agent pack (`event-format.md`, `agentic-event-schema.yaml`): `task-claimed`,
      `task-implemented`, `task-verified`, `task-failed`, `task-blocked`, `phase-complete`,
      `run-complete`, and the catalog's `task-created`, `task-ready`, `task-started`,
      `task-verification-failed`, `task-completed`, `run-started`, `phase-started`,
      `phase-completed`, `phase-gate-passed`, `run-completed`, `run-failed`, `run-cancelled`,
      cleanup, PR, consolidation, escalation, artifact, error, checkpoint and resume events.

    What is normal: every one of these types, and run-level events without a `task_id`. In the
    pack's vocabulary `task-verified` (verification passed) is the last step of a task, so it
    counts as done; a later `task-completed` keeps it done.

    Any other type is read but changes nothing: if it was meant to move a task (`task-done`,
    `task-finished`), the resume report shows that task in an older state, and `ctxres runs`
    lists the event in its warnings. It is a warning, not an error, because a project may
    record events of its own that are not meant to change state; ignore the rule for those
    files (`per-file-ignores`). An event without `event_type` at all is reported by the schema
    rule (C001) and listed by `ctxres runs` too.

    ## Example
    ```json
    {"event_type": "task-done", "task_id": "T002", "timestamp": "...", "actor": "executor"}
    ```

    ## Fix
    Write future events with a type of one of the vocabularies (`task-verified` or
    `task_completed` for a finished task). The log is append-only: append a corrected event
    rather than editing the line.
    """,
)


def _check_log(doc: Document, config: Config) -> list[Finding]:
    findings: list[Finding] = []
    wanted = spelling_setting(config)
    spelled: dict[str, list[am.RunEvent]] = {}
    for event in am.events_of(doc):
        if event.folder and event.actor is not None and event.actor != event.folder:
            findings.append(
                _finding(
                    doc,
                    ACTOR_FOLDER,
                    f"event by actor {event.actor!r} is in the log folder of {event.folder!r} (events/{event.folder}/)",
                    (event.item, "actor"),
                    f"write {event.actor}'s events to events/{event.actor}/ (do not edit this line: "
                    "the log is append-only)",
                )
            )
        if event.kind in am.STATE_OF_EVENT and event.task_id is None:
            findings.append(
                _finding(
                    doc,
                    NO_TASK_ID,
                    f"`{event.event_type}` event without a `task_id`: it changes no task's state",
                    (event.item,),
                    "append the event again with its task_id",
                )
            )
        if event.event_type and event.kind not in am.KNOWN_EVENTS:
            effect = (
                f"task {event.task_id} keeps the state of its previous event"
                if event.task_id
                else "it sets no phase and no task state"
            )
            findings.append(
                _finding(
                    doc,
                    UNMAPPED,
                    f"event type {event.event_type!r} is in neither the agent-memory format's nor the agent "
                    f"pack's vocabulary: {effect}",
                    (event.item, "event_type"),
                    "write future events with a known type (`task-verified` or `task_completed` for a finished "
                    "task); append a corrected event rather than editing this line",
                )
            )
        form = am.spelling_of(event.event_type)
        if form == "mixed" or (wanted != "any" and form not in (wanted, "plain")):
            spelled.setdefault(event.event_type, []).append(event)
    for event_type, events in spelled.items():
        first = events[0]
        target = wanted if wanted != "any" else "underscore"
        if am.spelling_of(event_type) == "mixed":
            message = f"event type {event_type!r} mixes `_` and `-`"
        else:
            message = f"event type {event_type!r} does not use the configured spelling ({wanted})"
        if len(events) > 1:
            message += f" ({len(events)} lines of this file)"
        findings.append(
            _finding(
                doc,
                SPELLING,
                message,
                (first.item, "event_type"),
                f"write new events as {am.respell(event_type, target)!r}",
            )
        )
    return findings


@document_check(DUPLICATE_TASK, DANGLING, CYCLE, kinds=("task-graph",))
def check_graph(doc: Document, _config: Config) -> list[Finding]:
    return _check_graph(doc)


@document_check(ACTOR_FOLDER, NO_TASK_ID, SPELLING, UNMAPPED, kinds=("event-log",))
def check_log(doc: Document, config: Config) -> list[Finding]:
    return _check_log(doc, config)


# --------------------------------------------------------------------------- whole runs


def _real(path: str) -> str:
    return os.path.normcase(os.path.realpath(path))


def _load(path: str, kind: str, fmt: Format) -> Document | None:
    # Context only (never reported): shown by its absolute path so it cannot collide with a checked file.
    return load_file(path, kind, fmt, display_path=os.path.abspath(path)).document


def _complete_run(directory: str, graph: Document | None, logs: list[Document]) -> am.Run:
    """The run with the checked documents, plus the files of the run that were not checked, from disk."""
    checked = {_real(doc.fs_path) for doc in logs if doc.fs_path}
    if graph is None and os.path.isfile(os.path.join(directory, am.TASK_GRAPH)):
        graph = _load(os.path.join(directory, am.TASK_GRAPH), "task-graph", Format.JSON)
    extra = [
        loaded
        for path in am.event_logs(directory)
        if _real(path) not in checked
        for loaded in [_load(path, "event-log", Format.JSONL)]
        if loaded is not None
    ]
    run = am.build_run(os.path.basename(directory), directory, graph, [*logs, *extra])
    run.artifacts = frozenset(name for name in am.CORE_ARTIFACTS if os.path.isfile(os.path.join(directory, name)))
    return run


def _ref(event: am.RunEvent) -> str:
    """An event as ``events/<actor>/<file>:<line>`` (the same whatever folder the check runs from)."""
    return f"events/{event.folder}/{os.path.basename(event.path)}:{event.line}"


def _event_finding(doc: Document, rule: Rule, message: str, event: am.RunEvent, field: str, fix: str) -> Finding:
    return _finding(doc, rule, message, (event.item, field), fix)


UNKNOWN_TASK = register(
    "M002",
    "unknown-task-id",
    "An event names a task that is not in the run's `task-graph.json`.",
    case=Case.CONTRADICTION,
    why="The event names a task the run's graph does not have.",
    explanation="""
    ## Why
    A task's state is derived from the events that name it. An event for an id the task graph
    does not have changes no task: the work it records is invisible to the resume report, and
    usually a typo (`T01` for `T001`) or a task renamed in the graph after the events were written.

    ## Example
    ```json
    {"event_type": "task_started", "task_id": "T099", "timestamp": "...", "actor": "executor"}
    ```
    while `task-graph.json` has the tasks `T001` to `T004`.

    ## Fix
    Add the task to `task-graph.json`, or, when the id is a typo, append a new event with the right
    id (the log is append-only: do not edit the old line).
    """,
)


NOT_STARTED = register(
    "M007",
    "completed-before-started",
    "A task is completed without having been started first.",
    case=Case.CONTRADICTION,
    why="A completion without a start.",
    explanation="""
    ## Why
    A task goes pending → in progress → done: `task_completed` follows a `task_started` (or
    `task_claimed`, `task_implemented`, `task_verified`). A completion with no earlier start means
    an event was lost (often on an unreadable line), written with a wrong timestamp or for the wrong
    task, and the history can no longer be used to audit the run.

    ## Example
    ```json
    {"event_type": "task_completed", "task_id": "T002", "timestamp": "2026-01-15T10:00:00Z", ...}
    {"event_type": "task_started",   "task_id": "T002", "timestamp": "2026-01-15T11:00:00Z", ...}
    ```

    ## Fix
    Find the missing or mis-stamped start (the message says what was found). The logs are
    append-only: record the correction as a new event rather than editing old lines.
    """,
)


AFTER_COMPLETION = register(
    "M008",
    "event-after-completion",
    "A task has lifecycle events after it was completed.",
    case=Case.CONTRADICTION,
    why="Events after a completion contradict it.",
    explanation="""
    ## Why
    `task_completed` is final: the task is verified and accepted. A later `task_started`,
    `task_failed` or `task_blocked` for the same task means work happened on a finished task, or
    an event carries the wrong task id or timestamp; the derived state (from the newest event)
    then contradicts the completion.

    ## Example
    Two lines of an event log (`actor` and `details` left out here):

    ```json
    {"event_type": "task_completed", "task_id": "T001", "timestamp": "2026-01-15T11:00:00Z", ...}
    {"event_type": "task_blocked", "task_id": "T001", "timestamp": "2026-01-15T11:30:00Z", ...}
    ```

    ## Fix
    If the task really needs more work, create a new task in `task-graph.json` for it; otherwise
    find the event with the wrong task id or timestamp (the logs are append-only: record the
    correction as a new event).
    """,
)


def _check_run(run: am.Run, checked: dict[str, Document]) -> list[Finding]:
    findings: list[Finding] = []
    known = {task.id for task in run.tasks} if run.tasks is not None else None
    for event in run.events:
        doc = checked.get(event.path)
        if doc is None:
            continue
        if known is not None and event.task_id is not None and event.task_id not in known:
            findings.append(
                _event_finding(
                    doc,
                    UNKNOWN_TASK,
                    f"task {event.task_id!r} is not in {am.TASK_GRAPH} of run {run.run_id}",
                    event,
                    "task_id",
                    "add the task to the task graph, or append a corrected event with the right id",
                ).replace(related=(os.path.realpath(os.path.join(run.directory, am.TASK_GRAPH)),))
            )
    for transition in am.impossible_transitions(run.events):
        doc = checked.get(transition.event.path)
        if doc is None:
            continue
        event, other = transition.event, transition.other
        if transition.kind == "after-completion":
            assert other is not None
            findings.append(
                _event_finding(
                    doc,
                    AFTER_COMPLETION,
                    f"`{event.event_type}` for task {event.task_id} at {event.timestamp} comes after its "
                    f"`{other.event_type}` at {other.timestamp} ({_ref(other)})",
                    event,
                    "event_type",
                    "create a new task for further work, or correct the task id or timestamp with a new event",
                )
            )
            continue
        later = f"; its start is stamped later, {other.timestamp} ({_ref(other)})" if other else ""
        findings.append(
            _event_finding(
                doc,
                NOT_STARTED,
                f"task {event.task_id} is completed at {event.timestamp} with no earlier start event{later}",
                event,
                "event_type",
                "find the missing or mis-stamped task_started event",
            )
        )
    findings += _check_artifacts(run, checked)
    return findings


MISSING_ARTIFACT = register(
    "M009",
    "missing-core-artifact",
    "A run in the execution phase or later lacks a core artifact.",
    Severity.WARNING,
    case=Case.ADVICE,
    why="A run in execution usually has its core artifacts; without them it still replays.",
    explanation="""
    ## Why
    A run produces, in order, `constitution.md`, `prd.md`, `plan.md` and `task-graph.json`
    (phases 0 and 1); from phase 2 on tasks are executed from them, and a resuming session loads
    all four. A run whose events show it is executing (or later) without one of them cannot be
    resumed as planned.

    ## Example
    A run whose folder holds `task-graph.json` and an event log with a `task_started` (it is
    executing), but no `constitution.md`, `prd.md` or `plan.md`.

    ## Fix
    Re-run the step that should have produced the missing file (the PRD, the plan or the task
    breakdown), or restore it from version control.
    """,
)


def _check_artifacts(run: am.Run, checked: dict[str, Document]) -> list[Finding]:
    phase = am.run_phase(run)
    missing = am.missing_artifacts(run, phase)
    if not missing:
        return []
    shown = [doc for doc in run.documents if doc.path in checked]
    if not shown:
        return []
    anchor = next((doc for doc in shown if doc.kind == "task-graph"), shown[0])
    noun = "artifact" if len(missing) == 1 else "artifacts"
    return [
        Finding(
            anchor.path,
            MISSING_ARTIFACT.code,
            f"run {run.run_id} is in phase {phase} but its core {noun} {', '.join(missing)} "
            f"{'is' if len(missing) == 1 else 'are'} missing from {am.run_directory(anchor.path)}/",
            MISSING_ARTIFACT.severity,
            Position(1, 1),
            fix="re-run the step that produces it (PRD, plan or task breakdown) or restore it",
        )
    ]


@workspace_check(UNKNOWN_TASK, NOT_STARTED, AFTER_COMPLETION, MISSING_ARTIFACT, kinds=("task-graph", "event-log"))
def check_workspace(ws: Workspace) -> list[Finding]:
    runs: dict[str, tuple[list[Document], list[Document]]] = {}
    for doc in ws.documents:
        if doc.kind not in ("task-graph", "event-log") or not doc.fs_path:
            continue
        directory = _real(am.run_directory(doc.fs_path))
        graphs, logs = runs.setdefault(directory, ([], []))
        (graphs if doc.kind == "task-graph" else logs).append(doc)
    findings: list[Finding] = []
    for directory, (graphs, logs) in sorted(runs.items()):
        run = _complete_run(directory, graphs[0] if graphs else None, logs)
        checked = {doc.path: doc for doc in (*graphs, *logs)}
        findings += _check_run(run, checked)
    return findings


# Reported by commands, not by `ctxres check` on files (they need the git index or the clock).
REWRITTEN = register(
    "M012",
    "event-log-rewritten",
    "A staged change rewrites, deletes or moves committed lines of an append-only event log (`ctxres append-only`).",
    Severity.ERROR,
    case=Case.TOOL_JOB,
    why="Readers rebuild a run by replaying its logs; rewritten history changes every state replayed from it.",
    explanation="""
    ## Why
    The task states of an agent-memory run are derived from its event logs
    (`events/<actor>/*.jsonl`), which are append-only by the format's definition: a session that resumes reads
    every committed event again. Changing, deleting or inserting a committed line, or deleting or
    moving a committed log, changes the history that other sessions already acted on.

    It is reported by `ctxres append-only` (the pre-commit hook `ctxres-append-only`), which
    compares each staged event log with HEAD; `ctxres check` does not report it (it needs the
    git index, not the files on disk). The line is that of the committed file.

    ## Example
    A staged log whose second committed line was edited:

    ```text
    {"event_type": "task_started", "task_id": "T1", ...}
    {"event_type": "task_completed", "task_id": "T2", ...}   # was T1
    ```

    ## Fix
    Put the committed lines back unchanged (`git show HEAD:./<path>` prints them) and record the
    correction as a new event at the end of the file; restore a deleted or moved log
    (`git restore --staged --worktree -- <path>`).
    """,
)

RUN_IDLE = register(
    "M013",
    "run-idle",
    "An incomplete agent-memory run has been idle longer than `run-stale-after-days` (`ctxres runs`).",
    Severity.WARNING,
    case=Case.ADVICE,
    why="An idle run is a normal state to look at, not a wrong one.",
    explanation="""
    ## Why
    A run whose newest event is old was left behind: the plan, the code it touches and the
    branch may have moved since. Resuming it blindly executes tasks against an outdated picture.
    The limit is `--stale-after-days`, else the configuration's `run-stale-after-days`, else 7.

    It is reported by `ctxres runs` (a warning of its resume report); `ctxres check` does not
    report it (it depends on the current time). The location is the newest event.

    ## Example
    The newest event of the run is `{"event_type": "task_started", "timestamp":
    "2026-01-02T10:00:00Z", ...}` and it is now February.

    ## Fix
    Review the plan and the code it touches before resuming the run, or record that the run was
    cancelled (a `run_cancelled` event) when it will not be resumed.
    """,
    options=(RUN_STALE_AFTER_DAYS,),
)
