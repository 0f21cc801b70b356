"""A rules: the compaction records of a v2.0 resumption section agree with the checkpoint files.

Before a compaction the PreCompact hook writes a checkpoint file; afterwards `ctxres ack` merges
it into `resumption.compaction_events` (an event appended, `count` incremented, the file marked
acknowledged, `recovery_state.updated_at` advanced). These rules find every way the two sides
drift apart. Checks inside one file run per document; checks that read checkpoint files from
disk (relative to the project root) run once per workspace.
"""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

from ctxres.config import Config
from ctxres.findings import ORIGIN, Finding, Position
from ctxres.formats.document import Document, JsonPath, format_json_path
from ctxres.globs import is_ignored, parse_ignore
from ctxres.linters.checking.registry import Rule, register
from ctxres.linters.checking.roots import root_of
from ctxres.linters.checking.severity_policy import Case
from ctxres.project import inside
from ctxres.records import Record
from ctxres.state import checkpoints as cp
from ctxres.state.orchestration import LIVE_STATUSES, workflow_status_of
from ctxres.state.resumption import detect_version

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Set as AbstractSet
    from typing import Any

    from ctxres.linters.checking.engine import Workspace

COUNT = register(
    "A001",
    "compaction-count-mismatch",
    "`compaction_events.count` differs from the number of entries in `events`.",
    case=Case.CONTRADICTION,
    why="The count and the list of compaction events disagree.",
    explanation="""
    ## Why
    `count` is what the compaction alert shows ("COMPACTION EVENT: 3 of 3") and what a resuming
    session reads to know how much context was lost. Each compaction appends one entry to
    `events` and adds one to `count`, so the two always move together; when they differ, one of
    them was edited by hand or an update was lost.

    ## Example
    ```yaml
    compaction_events:
      count: 6              # six compactions claimed...
      events:
        - id: "CX-001"      # ...but only one is recorded
          ...
    ```

    ## What is normal
    When some entries of `events` have another shape than a compaction event (no `id`: for
    example one entry per session with `compactions: 6`), the conformance rules already report
    them (C007 or C001), and what they count is unknown: they may well account for the
    difference. A001 then stays silent, so that one odd entry is one error, not two. It still
    reports a `count` below the number of well-formed events, which nothing can explain.

    ## Fix
    Set `count` to the number of entries in `events`, or add the missing events (each checkpoint
    file that is not merged yet is merged with `ctxres ack`).
    """,
)
DUPLICATE = register(
    "A002",
    "duplicate-compaction-id",
    "Two compaction events have the same id.",
    case=Case.TOOL_JOB,
    why="`ctxres ack` finds an event by its id; two events with one id make it merge into the wrong one.",
    explanation="""
    ## Why
    A compaction id (`CX-001`) names one compaction and one checkpoint file. Two events with the
    same id mean a checkpoint was merged twice, or an event was copied and not renumbered; the
    compaction alert and the resuming session then count the same compaction twice.

    ## Example
    ```yaml
    events:
      - id: "CX-001"
        ...
      - id: "CX-001"   # the second compaction must be CX-002
    ```

    ## Fix
    Remove the duplicated entry, or give it the id of the checkpoint file it points to.
    """,
)
SEQUENCE = register(
    "A003",
    "compaction-id-out-of-sequence",
    "Compaction ids are not sequential (CX-001, CX-002, ...).",
    case=Case.CONTRADICTION,
    why="The numbering says an event is missing or the events were reordered.",
    explanation="""
    ## Why
    Compaction events are appended in order, numbered from `CX-001`, one per compaction and one
    per checkpoint file `cx-NNN-checkpoint.json`. A gap or a step backwards means an event is
    missing (a checkpoint was never merged) or the entries were reordered.

    ## Example
    ```yaml
    events:
      - id: "CX-001"
      - id: "CX-003"   # CX-002 is missing
    ```

    ## Fix
    Add the missing event (merge its checkpoint with `ctxres ack`), or renumber the entries so
    that they follow each other, oldest first.
    """,
)
MISSING_FILE = register(
    "A004",
    "checkpoint-file-missing",
    "A compaction event points to a checkpoint file that does not exist.",
    case=Case.TOOL_JOB,
    why="`ctxres ack` merges the checkpoint file an event names; it cannot merge a missing one.",
    explanation="""
    ## Why
    `checkpoint_file` is where a resuming session finds the state saved just before the
    compaction (position in the workflow, decisions, recovery instructions). A path to nothing
    sends it looking for a file that was moved, renamed or deleted.

    Paths are relative to the repository root. When the checkpoint folder is listed in
    `.gitignore` and absent (a fresh clone, CI), the file cannot be checked and is not reported.

    ## Example
    ```yaml
    - id: "CX-002"
      checkpoint_file: ".jerry/checkpoints/cx-002-checkpoint.json"   # no such file
    ```

    ## Fix
    Correct the path (relative to the repository root), or restore the file.
    """,
)
OUTSIDE = register(
    "A005",
    "checkpoint-path-outside-repository",
    "A `checkpoint_file` path is absolute or leaves the repository.",
    case=Case.TOOL_JOB,
    why="`ctxres ack` reads checkpoint files only inside the repository.",
    explanation="""
    ## Why
    The resumption section is committed and read from other clones and machines: an absolute
    path (`/home/me/...`) points nowhere there, and a path that climbs out of the repository
    (`../..`) reads files the workflow does not own. Hooks never read outside the project.

    ## Example
    ```yaml
    checkpoint_file: "/home/me/repo/.jerry/checkpoints/cx-001-checkpoint.json"
    ```

    ## Fix
    Write the path relative to the repository root, for example
    `.jerry/checkpoints/cx-001-checkpoint.json`.
    """,
)
ID_MISMATCH = register(
    "A006",
    "checkpoint-id-mismatch",
    "A compaction event and its checkpoint file carry different ids.",
    case=Case.CONTRADICTION,
    why="The event and its checkpoint file name different compactions.",
    explanation="""
    ## Why
    The event `CX-002` must point to the checkpoint of the same compaction: the file
    `cx-002-checkpoint.json` whose `event_id` is `cx-002`. When the numbers differ, the resuming
    session reads the state saved at another compaction. A checkpoint file whose name and
    `event_id` (or `checkpoint_id`) differ is reported too.

    ## Example
    ```yaml
    - id: "CX-002"
      checkpoint_file: ".jerry/checkpoints/cx-001-checkpoint.json"   # the file of CX-001
    ```

    ## Fix
    Point the event to the file with its own number, or correct the id that is wrong.
    """,
)
ACK_MISMATCH = register(
    "A007",
    "acknowledged-mismatch",
    "A compaction event and its checkpoint file disagree on `acknowledged`.",
    case=Case.CONTRADICTION,
    why="The event and its checkpoint file disagree on whether it was acknowledged.",
    explanation="""
    ## Why
    A checkpoint is acknowledged once its data has been merged into the resumption section;
    both the event (`acknowledged`) and the file (`metadata.acknowledged`) record it. When they
    disagree, the hooks see an unacknowledged checkpoint and re-send the compaction alert, or
    treat a checkpoint as handled when the section says it is not.

    ## Example
    ```yaml
    - id: "CX-001"
      acknowledged: false    # but cx-001-checkpoint.json says "acknowledged": true
    ```

    ## Fix
    If the section is up to date, set both to true with the same `acknowledged_at`. When only
    the event is missing the acknowledgement, `ctxres ack CX-001` records it in both files.
    """,
)
ACK_AT = register(
    "A008",
    "acknowledged-at-inconsistent",
    "`acknowledged_at` is not set exactly when `acknowledged` is true.",
    case=Case.CONTRADICTION,
    why="`acknowledged` and `acknowledged_at` disagree.",
    explanation="""
    ## Why
    `acknowledged_at` records when the checkpoint was merged. An acknowledged event without it
    cannot be ordered against later updates; a time on an unacknowledged event claims a merge
    that did not happen. Applies to events and to the `metadata` of checkpoint files.

    ## Example
    ```yaml
    - id: "CX-001"
      acknowledged: true
      acknowledged_at: null    # when?
    ```

    ## Fix
    When acknowledged, set `acknowledged_at` to the ISO-8601 time of the merge; when not, set
    `acknowledged_at: null`. `ctxres ack` writes both.
    """,
)
ACK_BEFORE = register(
    "A009",
    "acknowledged-before-compaction",
    "A checkpoint is acknowledged before the compaction happened.",
    case=Case.CONTRADICTION,
    why="An acknowledgement before its compaction is impossible.",
    explanation="""
    ## Why
    A checkpoint can only be merged after it was written: `acknowledged_at` earlier than the
    compaction `timestamp` is a typo or a clock in another time zone written without its offset.

    ## Example
    ```yaml
    timestamp: "2026-02-17T11:45:00Z"
    acknowledged_at: "2026-02-17T10:50:00Z"
    ```

    ## Fix
    Correct the time (write times in UTC with a `Z`, or with their offset).
    """,
)
UNMERGED = register(
    "A010",
    "checkpoint-not-merged",
    "A checkpoint file is not recorded in the resumption section.",
    case=Case.WRONG_RESUMPTION,
    why="The section misses a compaction: the resuming session never learns what was lost.",
    explanation="""
    ## Why
    Each checkpoint file in the state folder (`.jerry/checkpoints/`) records a compaction. Until
    it is merged, the resumption section does not know the compaction happened: the count is
    wrong, and a session resuming from the section alone misses what the checkpoint saved.

    ## Example
    `.jerry/checkpoints/cx-002-checkpoint.json` exists, and no event of `compaction_events`
    has `checkpoint_file` pointing to it.

    ## Fix
    Run `ctxres ack` (the oldest checkpoint) or `ctxres ack --all`: it appends the event,
    updates `count` and `recovery_state.updated_at`, and marks the checkpoint acknowledged. A
    checkpoint already marked acknowledged but never recorded must first be reset
    (`"acknowledged": false`, `"acknowledged_at": null`) or its event added by hand.
    """,
)
NOT_REACHED = register(
    "A011",
    "acknowledged-checkpoint-not-in-section",
    "An acknowledged checkpoint's state never reached the resumption section.",
    case=Case.WRONG_RESUMPTION,
    why="The checkpoint was acknowledged but its state never reached the section the next session reads.",
    explanation="""
    ## Why
    Acknowledging a checkpoint means its data was merged into the resumption section, so
    `recovery_state.updated_at` is at least as recent as the checkpoint. When it is older *and*
    the section shows another position than the one the checkpoint saved (phase, activity,
    gate, workflow status), the checkpoint was marked acknowledged but the section was never
    updated: a session resuming from it starts from the state before the compaction. (When the
    section already shows the checkpoint's state, nothing was lost and nothing is reported.)

    ## Example
    ```yaml
    recovery_state:
      current_activity: "phase-2-agent-execution"   # the checkpoint saved "qg-1-iteration-1"
      updated_at: "2026-03-02T10:00:00Z"            # CX-001 (10:30) is acknowledged
    ```

    ## Fix
    Update the section from the checkpoint (`orchestration_state` and `recovery_instructions`
    of the checkpoint file) and set `recovery_state.updated_at` to the time of that update.
    """,
)

NO_RECOVERY_DATA = register(
    "A012",
    "checkpoint-without-recovery-state",
    "A checkpoint records no position of the workflow: the compaction alert built from it cannot re-orient.",
    case=Case.TOOL_JOB,
    why=(
        "After the compaction, SessionStart builds the compaction alert from this checkpoint: without the "
        "workflow's phase or activity, the alert cannot tell the session what it was doing."
    ),
    explanation="""
    ## Why
    The compaction alert that the next session receives says "YOU WERE DOING: phase N, activity"
    from the checkpoint written just before the compaction (`orchestration_state` in
    `cx-NNN-checkpoint.json`; `resumption_state.recovery_state` in the `cx-NNN.json` layout). A
    `cx-NNN.json` checkpoint that holds no phase and no activity (`"resumption_state": null`, or a
    `recovery_state` without `current_phase` and `current_activity`) gives an alert that cannot
    re-orient anyone. (In `cx-NNN-checkpoint.json` the schema requires
    `orchestration_state.current_phase`: C001 reports it missing.)

    ## Example
    ```json
    {"checkpoint_id": "cx-003", "context_state": {"fill_percentage": 0.82},
     "resumption_state": null, "created_at": "2026-02-22T02:15:21Z"}
    ```

    ## Fix
    Make the PreCompact hook copy the workflow's position into the checkpoint (`ctxres-hook
    precompact` does); for this checkpoint, fill the position from the resumption section as it
    was at that time, or acknowledge it (`ctxres ack`) once the section holds its state.
    """,
)

EVENTS_OWNER: JsonPath = ("resumption", "compaction_events")
EVENTS: JsonPath = ("resumption", "compaction_events", "events")
UPDATED_AT: JsonPath = ("resumption", "recovery_state", "updated_at")


def _finding(
    doc: Document,
    rule: Rule,
    message: str,
    path: JsonPath,
    fix: str = "",
    *,
    key: bool = False,
    about: tuple[Path, ...] = (),
) -> Finding:
    """A finding of ``rule`` in ``doc``; ``about``: the checkpoint files it concerns (its ``related`` files)."""
    location = doc.locate(path, key=key)
    return Finding(
        doc.path, rule.code, message, rule.severity, location, format_json_path(path), fix, related=_related(about)
    )


def _related(paths: tuple[Path, ...] | list[Path]) -> tuple[str, ...]:
    """The real paths of the checkpoint files a finding is about (:attr:`Finding.related`)."""
    return tuple(sorted({os.path.realpath(path) for path in paths}))


def compaction_events(doc: Document) -> dict[str, Any] | None:
    """The `compaction_events` mapping of a v2.0 resumption section, else None."""
    if doc.kind != "orchestration" or not isinstance(doc.data, dict):
        return None
    section = doc.data.get("resumption")
    if not isinstance(section, dict) or detect_version(section) != "2.0":
        return None
    events = section.get("compaction_events")
    return events if isinstance(events, dict) else None


def shaped_events(doc: Document) -> list[tuple[int, dict[str, Any]]]:
    """(index, event) for the events of the expected shape: mappings with an `id`.

    Other items are another layout, reported once by the conformance rules (C007/C001): they
    are left out here so that one odd entry does not produce a pile of follow-up findings.
    """
    owner = compaction_events(doc)
    events = owner.get("events") if owner else None
    if not isinstance(events, list):
        return []
    return [(i, e) for i, e in enumerate(events) if isinstance(e, dict) and "id" in e]


def _label(event: dict[str, Any], index: int) -> str:
    ident = event.get("id")
    return f"compaction event {ident}" if isinstance(ident, str) else f"compaction event #{index + 1}"


# --- inside one file ----------------------------------------------------------------------------


def check_document(doc: Document, _config: Config | None = None) -> list[Finding]:
    if doc.kind == "checkpoint":
        return _check_checkpoint(doc)
    owner = compaction_events(doc)
    if owner is None:
        return []
    return [*_check_count(doc, owner), *_check_ids(doc), *_check_event_times(doc)]


def _check_count(doc: Document, owner: dict[str, Any]) -> list[Finding]:
    count, events = owner.get("count"), owner.get("events")
    if not isinstance(count, int) or isinstance(count, bool) or not isinstance(events, list):
        return []
    if count == len(events):
        return []
    shaped = len(shaped_events(doc))
    if shaped < len(events) and count >= shaped:
        # Some entries have another shape (a C007/C001 finding already): what they stand for is
        # unknown (one entry per session with `compactions: 6`), so they may hold the difference.
        # One root cause, one error. A count below the well-formed events is still wrong.
        return []
    entries = f"{len(events)} entr{'y' if len(events) == 1 else 'ies'}"
    return [
        _finding(
            doc,
            COUNT,
            f"`compaction_events.count` is {count} but `events` has {entries}: the two must be equal",
            (*EVENTS_OWNER, "count"),
            f"set `count: {len(events)}`, or add the missing events (`ctxres ack` merges unmerged checkpoints)",
        )
    ]


def _check_ids(doc: Document) -> list[Finding]:
    findings = []
    seen: dict[int, int] = {}
    previous = 0
    for index, event in shaped_events(doc):
        number = cp.number_of_id(event["id"])
        if number is None:
            continue  # a malformed id is a conformance finding (C004)
        where = (*EVENTS, index, "id")
        if number in seen:
            findings.append(
                _finding(
                    doc,
                    DUPLICATE,
                    f"{cp.section_id(number)} is used by events #{seen[number] + 1} and #{index + 1}: "
                    "each compaction has its own id",
                    where,
                    "remove the duplicated entry, or give it the id of the checkpoint file it points to",
                )
            )
            continue
        seen[number] = index
        if number != previous + 1:
            expected = cp.section_id(previous + 1)
            after = f"after {cp.section_id(previous)}" if previous else "as the first event"
            findings.append(
                _finding(
                    doc,
                    SEQUENCE,
                    f"{cp.section_id(number)} comes {after}; ids follow each other from CX-001 (expected {expected})",
                    where,
                    f"add the missing event {expected} (`ctxres ack` merges its checkpoint) or renumber the events",
                )
            )
        previous = number
    return findings


def _check_acknowledgement(doc: Document, base: JsonPath, record: dict[str, Any], what: str) -> list[Finding]:
    """A008/A009 for a mapping holding `acknowledged` and `acknowledged_at` (an event or a file's metadata)."""
    acknowledged, at = record.get("acknowledged"), record.get("acknowledged_at")
    if not isinstance(acknowledged, bool) or not (at is None or isinstance(at, str)):
        return []
    if acknowledged and at is None:
        where = (*base, "acknowledged_at") if "acknowledged_at" in record else (*base, "acknowledged")
        return [
            _finding(
                doc,
                ACK_AT,
                f"{what} is acknowledged but has no `acknowledged_at`",
                where,
                'set `acknowledged_at` to the ISO-8601 time of the merge, for example "2026-02-17T11:50:00Z"',
            )
        ]
    if not acknowledged and at is not None:
        return [
            _finding(
                doc,
                ACK_AT,
                f"{what} has `acknowledged_at` {at} but `acknowledged` is false",
                (*base, "acknowledged_at"),
                "set `acknowledged: true` if the checkpoint was merged, else `acknowledged_at: null`",
            )
        ]
    return []


def _check_before(doc: Document, base: JsonPath, at: Any, timestamp: Any, what: str) -> list[Finding]:
    acknowledged_at, happened = cp.parse_time(at), cp.parse_time(timestamp)
    if acknowledged_at is None or happened is None or acknowledged_at >= happened:
        return []
    return [
        _finding(
            doc,
            ACK_BEFORE,
            f"{what} is acknowledged at {at}, before the compaction itself ({timestamp})",
            (*base, "acknowledged_at"),
            "correct the time: write it in UTC with `Z`, or with its offset",
        )
    ]


def _check_event_times(doc: Document) -> list[Finding]:
    findings = []
    for index, event in shaped_events(doc):
        base = (*EVENTS, index)
        what = _label(event, index)
        findings += _check_acknowledgement(doc, base, event, what)
        if event.get("acknowledged") is True:
            findings += _check_before(doc, base, event.get("acknowledged_at"), event.get("timestamp"), what)
    return findings


def _check_checkpoint(doc: Document) -> list[Finding]:
    data = doc.data
    if not isinstance(data, dict):
        return []
    findings = []
    name = Path(doc.path).name
    by_name = cp.number_of_name(name)
    id_key = "checkpoint_id" if cp.layout_of(data) == cp.PEER else "event_id"
    by_id = cp.number_of_id(data.get(id_key))
    if by_name is not None and by_id is not None and by_name != by_id:
        findings.append(
            _finding(
                doc,
                ID_MISMATCH,
                f"the file is named {name} but its `{id_key}` is {data[id_key]}: "
                "the name and the id must have the same number",
                (id_key,),
                f"rename the file to {cp.file_name(by_id)}, or set `{id_key}` to {cp.file_id(by_name)} "
                "(whichever is wrong), and keep the event that points to it in step",
            )
        )
    findings += _check_recovery_data(doc, data)
    metadata = data.get("metadata")
    if cp.layout_of(data) == cp.SEED and isinstance(metadata, dict):
        findings += _check_acknowledgement(doc, ("metadata",), metadata, "the checkpoint")
        if metadata.get("acknowledged") is True:
            findings += _check_before(
                doc, ("metadata",), metadata.get("acknowledged_at"), data.get("timestamp"), "the checkpoint"
            )
    return findings


def _check_recovery_data(doc: Document, data: dict[str, Any]) -> list[Finding]:
    """A012: a checkpoint of the `cx-NNN.json` layout without the workflow's phase or activity (in the
    `cx-NNN-checkpoint.json` layout the schema requires `orchestration_state.current_phase`: C001 says so)."""
    view = cp.view(data)
    if view.layout != cp.PEER or view.phase is not None or view.activity is not None or "resumption_state" not in data:
        return []
    where: JsonPath = ("resumption_state",)
    saved = data["resumption_state"]
    if saved is None:
        holds = "`resumption_state` is null"
    elif isinstance(saved, dict) and isinstance(saved.get("recovery_state"), dict):
        holds = "`resumption_state.recovery_state` has no `current_phase` and no `current_activity`"
    else:
        holds = "`resumption_state` has no `recovery_state`"
    return [
        _finding(
            doc,
            NO_RECOVERY_DATA,
            f"{holds}: the compaction alert built from this checkpoint cannot say what the session was doing",
            where,
            "copy the workflow's position (phase, activity, status) into the checkpoint when it is written, or "
            "acknowledge it with `ctxres ack` once the resumption section holds its state",
            key=True,
        )
    ]


# --- across files -------------------------------------------------------------------------------


class _Section(Record):
    """One v2.0 section and what its events point to on disk: what the check across files keeps of an
    orchestration file (not its document).

    ``comparable`` is false when the section records compactions in another layout (no `events`
    list, or entries of another shape): which checkpoints it covers cannot be told, so none is
    reported as unmerged there (the conformance rules already report the layout). ``where`` is what an
    unmerged checkpoint is reported on (the events, else their mapping), ``position`` where it is in the file.
    """

    __slots__ = (
        "comparable",
        "mtime",
        "path",
        "position",
        "referenced",
        "root",
        "state_dir",
        "status",
        "where",
        "workflow_id",
    )

    path: str
    root: Path
    state_dir: str  # (strings, not paths: a check keeps a section of every workflow file)
    referenced: AbstractSet[str]  # the checkpoints its events name, resolved (an empty one shared)
    workflow_id: str | None
    status: str | None
    mtime: float
    comparable: bool
    where: JsonPath
    position: Position

    def __init__(
        self,
        path: str,
        root: Path,
        state_dir: str,
        referenced: AbstractSet[str] = frozenset(),
        workflow_id: str | None = None,
        status: str | None = None,
        mtime: float = 0.0,
        comparable: bool = True,
        where: JsonPath = EVENTS,
        position: Position = ORIGIN,
    ) -> None:
        self.path = path
        self.root = root
        self.state_dir = state_dir
        self.referenced = referenced
        self.workflow_id = workflow_id
        self.status = status
        self.mtime = mtime
        self.comparable = comparable
        self.where = where
        self.position = position


def _section(doc: Document, config: Config) -> _Section | None:
    if not doc.fs_path or compaction_events(doc) is None:
        return None
    path = Path(doc.fs_path)
    root = root_of(path)
    workflow = doc.get(("workflow", "id"))
    status = workflow_status_of(doc.data)
    try:
        mtime = path.stat().st_mtime
    except OSError:
        mtime = 0.0
    events = doc.get(EVENTS)
    where = EVENTS if events is not None else EVENTS_OWNER
    return _Section(
        comparable=isinstance(events, list) and len(shaped_events(doc)) == len(events),
        path=doc.path,
        root=root,
        state_dir=str(cp.find_state_dir(path, root, config.state_dir)),
        workflow_id=workflow if isinstance(workflow, str) else None,
        status=status if isinstance(status, str) else None,
        mtime=mtime,
        where=where,
        position=doc.locate(where, key=True),
    )


def collect(doc: Document, config: Config) -> tuple[_Section | None, list[Finding]]:
    """The per-file part, run while the file is loaded: its section's references are checked now, and only
    what the check across files needs is kept (not the whole document)."""
    section = _section(doc, config)
    if section is None:
        return None, []
    return section, _check_references(section, doc, config)


def check_workspace(ws: Workspace) -> list[Finding]:
    findings: list[Finding] = []
    by_state_dir: dict[Path, list[_Section]] = {}
    for section in ws.facts_of(__name__):
        by_state_dir.setdefault(Path(section.state_dir), []).append(section)
    for state_dir, sections in sorted(by_state_dir.items()):
        findings += _check_unmerged(state_dir, sections)
    return findings


def _git_ignored(path: Path, root: Path) -> bool:
    """Whether a `.gitignore` between ``root`` and ``path`` excludes it (or one of its folders)."""
    try:
        parts = path.relative_to(root).parts
    except ValueError:
        return False
    for depth in range(len(parts)):
        try:
            lines = root.joinpath(*parts[:depth], ".gitignore").read_text("utf-8", "replace").splitlines()
        except OSError:
            continue
        rules = parse_ignore(lines)
        below = parts[depth:]
        for end in range(1, len(below) + 1):
            if is_ignored("/".join(below[:end]), end < len(below), rules):
                return True
    return False


def _absent_by_design(reference: str, section: _Section, config: Config) -> bool:
    """A missing file under a git-ignored folder that is absent too: a fresh clone, nothing to check."""
    target = Path(os.path.normpath(section.root / reference))
    return config.respect_gitignore and not target.parent.is_dir() and _git_ignored(target, section.root)


def _check_references(section: _Section, doc: Document, config: Config) -> list[Finding]:
    findings: list[Finding] = []
    newest: tuple[datetime, str, cp.CheckpointView, Path] | None = None
    for index, event in shaped_events(doc):
        reference = event.get("checkpoint_file")
        if not isinstance(reference, str) or not reference.strip():
            continue
        where = (*EVENTS, index, "checkpoint_file")
        what = _label(event, index)
        problem = cp.reference_problem(reference)
        if problem is not None:
            findings.append(_outside(doc, where, what, reference, problem, section.root))
            named = Path(reference).expanduser() if problem == "absolute" else section.root / reference
            if named.is_file():
                _refer(section, named)  # reported once here, not again as unmerged
            continue
        resolved = cp.resolve_reference(reference, Path(doc.fs_path), section.root)
        if resolved is None:
            if not _absent_by_design(reference, section, config):
                findings.append(
                    _finding(
                        doc,
                        MISSING_FILE,
                        f"{what} points to {reference}, which does not exist "
                        "(paths are relative to the repository root)",
                        where,
                        "correct the path (relative to the repository root) or restore the checkpoint file",
                    )
                )
            continue
        _refer(section, resolved)
        if not inside(resolved, section.root):
            findings.append(_outside(doc, where, what, reference, "escapes", section.root))
            continue
        try:
            checkpoint = cp.read(resolved)
        except cp.CheckpointError:
            continue  # the file's own parsing finding says what is wrong with it
        findings += _check_pair(doc, index, event, reference, resolved, checkpoint)
        if checkpoint.acknowledged or event.get("acknowledged") is True:
            moment = cp.parse_time(checkpoint.timestamp)
            if moment is not None and (newest is None or moment > newest[0]):
                newest = (moment, what, checkpoint, resolved)
    return findings + _check_updated_at(doc, newest)


def _refer(section: _Section, checkpoint: Path) -> None:
    if not isinstance(section.referenced, set):
        section.referenced = set()
    section.referenced.add(str(checkpoint.resolve()))


def _outside(doc: Document, where: JsonPath, what: str, reference: str, problem: str, root: Path) -> Finding:
    if problem == "absolute":
        target = Path(reference).expanduser()
        hint = (
            f"write it relative to the repository root: {cp.relative_reference(target, root)}"
            if target.is_absolute() and inside(target, root)
            else "write it relative to the repository root, for example .jerry/checkpoints/cx-001-checkpoint.json"
        )
        message = f"{what} points to the absolute path {reference}: other clones and machines cannot follow it"
    else:
        hint = "point to a checkpoint inside the repository, relative to its root"
        message = f"{what} points to {reference}, outside the repository: hooks and sessions never read there"
    return _finding(doc, OUTSIDE, message, where, hint)


def _check_pair(
    doc: Document, index: int, event: dict[str, Any], reference: str, path: Path, checkpoint: cp.CheckpointView
) -> list[Finding]:
    findings = []
    what = _label(event, index)
    number = cp.number_of_id(event.get("id"))
    # The file name decides; the id inside only when the name has no number (a file whose name and
    # id disagree is reported on the file itself).
    other = cp.number_of_name(path.name) or checkpoint.number
    if number is not None and other is not None and other != number:
        findings.append(
            _finding(
                doc,
                ID_MISMATCH,
                f"{what} points to {reference}, the checkpoint of {cp.section_id(other)}",
                (*EVENTS, index, "checkpoint_file"),
                f"point it to the checkpoint of {cp.section_id(number)} "
                f"({cp.file_name(number)}), or correct the event id",
                about=(path,),
            )
        )
    acknowledged = event.get("acknowledged")
    if (
        isinstance(acknowledged, bool)
        and checkpoint.acknowledged is not None
        and acknowledged != checkpoint.acknowledged
    ):
        if acknowledged:
            message = f"{what} is acknowledged, but {reference} still says `acknowledged: false`"
            command = f"ctxres ack {reference}"
            fix = f"run `{command}` to mark the file acknowledged too, or set it by hand"
        else:
            message = f"{what} says `acknowledged: false`, but {reference} is acknowledged"
            at = checkpoint.acknowledged_at
            fix = f"set `acknowledged: true` and `acknowledged_at: {at}` on the event" if at else "set both to true"
        findings.append(_finding(doc, ACK_MISMATCH, message, (*EVENTS, index, "acknowledged"), fix, about=(path,)))
    return findings


# (checkpoint field, where the section holds the same fact)
_STATE_FIELDS: tuple[tuple[str, JsonPath], ...] = (
    ("workflow_status", ("resumption", "recovery_state", "workflow_status")),
    ("phase", ("resumption", "recovery_state", "current_phase")),
    ("activity", ("resumption", "recovery_state", "current_activity")),
    ("gate", ("resumption", "quality_trajectory", "current_gate")),
    ("gate_iteration", ("resumption", "quality_trajectory", "current_gate_iteration")),
)
_MISSING = object()


def state_differences(doc: Document, checkpoint: cp.CheckpointView) -> list[str]:
    """The facts the checkpoint recorded that the section shows otherwise (``field: checkpoint, here section``)."""
    differences = []
    for attribute, path in _STATE_FIELDS:
        recorded, shown = getattr(checkpoint, attribute), doc.get(path, _MISSING)
        if recorded is None or shown is _MISSING or recorded == shown:
            continue
        differences.append(f"{path[-1]}: {recorded}, here {shown if shown is not None else 'null'}")
    return differences


def _check_updated_at(doc: Document, newest: tuple[datetime, str, cp.CheckpointView, Path] | None) -> list[Finding]:
    """A011: the section was last updated before an acknowledged checkpoint whose state it does not show.

    When the section already shows everything the checkpoint recorded (nothing happened between
    the last update and the compaction), the data did reach it and nothing is reported.
    """
    updated_at = doc.get(UPDATED_AT)
    moment = cp.parse_time(updated_at)
    if newest is None or moment is None or moment >= newest[0]:
        return []
    happened, what, checkpoint, checkpoint_path = newest
    differences = state_differences(doc, checkpoint)
    if not differences:
        return []
    return [
        _finding(
            doc,
            NOT_REACHED,
            f"`recovery_state.updated_at` ({updated_at}) is older than the acknowledged {what} "
            f"({cp.format_time(happened)}), and the section does not show the state the checkpoint recorded "
            f"({'; '.join(differences)}): its data never reached this section",
            UPDATED_AT,
            "update the section from the checkpoint (phase, activity, gate) and set `recovery_state.updated_at` "
            "to the time of that update",
            about=(checkpoint_path,),
        )
    ]


def _owner(checkpoint: cp.CheckpointView, sections: list[_Section]) -> _Section:
    """The section a checkpoint belongs to: same workflow id, else the active workflow, else the newest."""

    def newest(group: list[_Section]) -> _Section:
        return max(group, key=lambda s: (s.mtime, s.path))

    same = [s for s in sections if checkpoint.workflow_id and s.workflow_id == checkpoint.workflow_id]
    active = [s for s in sections if s.status in LIVE_STATUSES]
    return newest(same or active or sections)


def _check_unmerged(state_dir: Path, sections: list[_Section]) -> list[Finding]:
    referenced = set().union(*(s.referenced for s in sections))
    pending: dict[tuple[int, bool], list[Path]] = {}
    for path in cp.list_checkpoints(state_dir):
        if str(path.resolve()) in referenced:
            continue
        try:
            checkpoint = cp.read(path)
        except cp.CheckpointError:
            continue  # its own parsing finding says what is wrong
        if checkpoint.layout != cp.SEED or checkpoint.acknowledged is None:
            continue  # another tool's layout (no acknowledgement to track) or broken metadata (C001/C002)
        owner = _owner(checkpoint, sections)
        if not owner.comparable:
            continue
        key = (sections.index(owner), checkpoint.acknowledged)
        pending.setdefault(key, []).append(path)
    findings = []
    for (position, acknowledged), paths in sorted(pending.items()):
        section = sections[position]
        findings.append(_unmerged(section, paths, acknowledged, several=len(sections) > 1))
    return findings


def _unmerged(section: _Section, paths: list[Path], acknowledged: bool, *, several: bool) -> Finding:
    names = [cp.relative_reference(path, section.root) for path in paths]
    plural = len(names) > 1
    listed = ", ".join(names)
    target = f" --file {section.path}" if several else ""
    if acknowledged:
        message = (
            f"{'checkpoints' if plural else 'checkpoint'} {listed} {'are' if plural else 'is'} marked acknowledged "
            "but no compaction event of this section points to "
            f"{'them' if plural else 'it'}: the compaction{'s were' if plural else ' was'} never recorded"
        )
        fix = (
            'reset `"acknowledged": false` and `"acknowledged_at": null` in the file, then run '
            f"`ctxres ack{' --all' if plural else ''}{target}`, or add the event by hand"
        )
    else:
        message = (
            f"{'checkpoints' if plural else 'checkpoint'} {listed} {'are' if plural else 'is'} not merged into this "
            "resumption section yet: the section does not record "
            f"{'these compactions' if plural else 'this compaction'}"
        )
        fix = f"run `ctxres ack{' --all' if plural else ''}{target}`"
    return Finding(
        section.path,
        UNMERGED.code,
        message,
        UNMERGED.severity,
        section.position,
        format_json_path(section.where),
        fix,
        related=_related(paths),
    )
