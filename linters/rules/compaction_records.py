"""A rules inside one file: a v2.0 section's compaction events, and a checkpoint file, each consistent in itself.

The count and the ids of the events, their acknowledgement fields and times; a checkpoint file's
name against its id, its acknowledgement, the position of the workflow it records. What these
records say against the checkpoint files on disk is :mod:`~ctxres.linters.rules.acknowledgement`'s.
"""

from __future__ import annotations

from pathlib import Path

from ctxres.config import Config
from ctxres.findings import Finding, Severity
from ctxres.formats.document import Document, JsonPath
from ctxres.linters.checking.registry import document_check, register
from ctxres.linters.checking.roots import root_of
from ctxres.linters.checking.severity_policy import Case
from ctxres.linters.rules.acknowledgement import (
    EVENTS,
    EVENTS_OWNER,
    ID_MISMATCH,
    compaction_events,
    event_label,
    rule_finding,
    shaped_events,
)
from ctxres.state import checkpoints as cp
from ctxres.state.checkpoint_names import is_seed_name

# `ctxres check` loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _others_numbers(doc: Document, config: Config) -> frozenset[int]:
    """The numbers another writer's checkpoints hold in the state folder of ``doc`` (none without one)."""
    if not doc.fs_path:
        return frozenset()
    path = Path(doc.fs_path)
    return cp.other_writers_numbers(cp.checkpoints_dir(cp.find_state_dir(path, root_of(path), config.state_dir)))


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
        rule_finding(
            doc,
            COUNT,
            f"`compaction_events.count` is {count} but `events` has {entries}: the two must be equal",
            (*EVENTS_OWNER, "count"),
            f"set `count: {len(events)}`, or add the missing events (`ctxres ack` merges unmerged checkpoints)",
        )
    ]


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
    per checkpoint file `cx-NNN.json`. A gap or a step backwards means an event is
    missing (a checkpoint was never merged) or the entries were reordered. The numbers held by
    another tool's checkpoints in the same folder (told from ours by their content) are skipped: the
    two writers share one numbering.

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


def _check_ids(doc: Document, config: Config) -> list[Finding]:
    findings = []
    seen: dict[int, int] = {}
    previous = 0
    others: frozenset[int] | None = None  # read only when a gap is found
    for index, event in shaped_events(doc):
        number = cp.number_of_id(event["id"])
        if number is None:
            continue  # a malformed id is a conformance finding (C004)
        where = (*EVENTS, index, "id")
        if number in seen:
            findings.append(
                rule_finding(
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
        if number > previous + 1 and others is None:
            others = _others_numbers(doc, config)
        following = cp.next_own_number(previous, others or frozenset())
        if number != following:
            expected = cp.section_id(following)
            after = f"after {cp.section_id(previous)}" if previous else "as the first event"
            findings.append(
                rule_finding(
                    doc,
                    SEQUENCE,
                    f"{cp.section_id(number)} comes {after}; ids follow each other from CX-001 (expected {expected})",
                    where,
                    f"add the missing event {expected} (`ctxres ack` merges its checkpoint) or renumber the events",
                )
            )
        previous = number
    return findings


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


def _check_acknowledgement(doc: Document, base: JsonPath, record: dict[str, Any], what: str) -> list[Finding]:
    """A008/A009 for a mapping holding `acknowledged` and `acknowledged_at` (an event or a file's metadata)."""
    acknowledged, at = record.get("acknowledged"), record.get("acknowledged_at")
    if not isinstance(acknowledged, bool) or not (at is None or isinstance(at, str)):
        return []
    if acknowledged and at is None:
        where = (*base, "acknowledged_at") if "acknowledged_at" in record else (*base, "acknowledged")
        return [
            rule_finding(
                doc,
                ACK_AT,
                f"{what} is acknowledged but has no `acknowledged_at`",
                where,
                'set `acknowledged_at` to the ISO-8601 time of the merge, for example "2026-02-17T11:50:00Z"',
            )
        ]
    if not acknowledged and at is not None:
        return [
            rule_finding(
                doc,
                ACK_AT,
                f"{what} has `acknowledged_at` {at} but `acknowledged` is false",
                (*base, "acknowledged_at"),
                "set `acknowledged: true` if the checkpoint was merged, else `acknowledged_at: null`",
            )
        ]
    return []


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


def _check_before(doc: Document, base: JsonPath, at: Any, timestamp: Any, what: str) -> list[Finding]:
    acknowledged_at, happened = cp.parse_time(at), cp.parse_time(timestamp)
    if acknowledged_at is None or happened is None or acknowledged_at >= happened:
        return []
    return [
        rule_finding(
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
        what = event_label(event, index)
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
            rule_finding(
                doc,
                ID_MISMATCH,
                f"the file is named {name} but its `{id_key}` is {data[id_key]}: "
                "the name and the id must have the same number",
                (id_key,),
                f"rename the file to {cp.renumbered(name, by_id)}, or set `{id_key}` to {cp.file_id(by_name)} "
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
    from the checkpoint written just before the compaction (`orchestration_state` in the PreCompact
    hook's layout; `resumption_state.recovery_state` in another tool's layout, the one with
    `checkpoint_id` and `created_at`). A checkpoint of that other layout that holds no phase and no
    activity (`"resumption_state": null`, or a `recovery_state` without `current_phase` and
    `current_activity`) gives an alert that cannot re-orient anyone. (In the hook's layout the
    schema requires `orchestration_state.current_phase`: C001 reports it missing.)

    ## Example
    ```json
    {"checkpoint_id": "cx-003", "context_state": {"fill_percentage": 0.82},
     "resumption_state": null, "created_at": "2026-02-22T02:15:21Z"}
    ```

    ## Fix
    Make the PreCompact hook copy the workflow's position into the checkpoint (`ctxres-hook
    precompact` does); for this checkpoint, fill the position from the resumption section as it
    was at that time. A checkpoint that `ctxres ack` can merge (it has an id, a time, a trigger and
    an acknowledgement flag) can be acknowledged with `ctxres ack FILE` once the section holds its
    state. One that lacks those is another tool's own record, which `ctxres ack` refuses: its
    writer must record the position, or, when that tool's checkpoints are not meant for ctxres,
    keep them out of the check (git-ignore the folder, or list it in `extend-exclude`).
    """,
)


def _check_recovery_data(doc: Document, data: dict[str, Any]) -> list[Finding]:
    """A012: a checkpoint of another tool's layout without the workflow's phase or activity (in the hook's
    layout the schema requires `orchestration_state.current_phase`: C001 says so)."""
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
        rule_finding(
            doc,
            NO_RECOVERY_DATA,
            f"{holds}: the compaction alert built from this checkpoint cannot say what the session was doing",
            where,
            _recovery_fix(view),
            key=True,
        )
    ]


def _recovery_fix(view: cp.CheckpointView) -> str:
    """A012's fix: ``ctxres ack`` only where ack would merge the checkpoint (never one it refuses)."""
    missing = cp.missing_for_event(view)
    if not missing:
        return (
            "copy the workflow's position (phase, activity, status) into the checkpoint when it is written, or "
            "acknowledge it with `ctxres ack FILE` once the resumption section holds its state"
        )
    return (
        f"this is another tool's checkpoint (it lacks {', '.join(missing)}, so it cannot be merged): make its "
        "writer record the workflow's position, or, if that tool's checkpoints are not meant for ctxres, keep "
        "them out of the check (git-ignore the folder, or list it in `extend-exclude`)"
    )


@document_check(COUNT, DUPLICATE, SEQUENCE, ACK_AT, ACK_BEFORE, kinds=("orchestration",))
def check_document(doc: Document, config: Config) -> list[Finding]:
    owner = compaction_events(doc)
    if owner is None:
        return []
    return [*_check_count(doc, owner), *_check_ids(doc, config), *_check_event_times(doc)]


@document_check(ID_MISMATCH, NO_RECOVERY_DATA, ACK_AT, ACK_BEFORE, kinds=("checkpoint",))
def check_checkpoint(doc: Document, _config: Config) -> list[Finding]:
    return _check_checkpoint(doc)


def _other_writers_plain_file(folder: Path) -> str | None:
    """The name of a ``cx-NNN.json`` checkpoint of another tool's layout in ``folder``; None when none."""
    for path in cp.list_checkpoints(folder.parent):
        stem = path.name[3:-5]
        if not stem.isdigit():
            continue
        try:
            if cp.read(path).layout == cp.PEER:
                return path.name
        except cp.CheckpointError:
            continue
    return None


# --- A014: checkpoint-name-breaks-other-numbering -------------------------------------------------

CHECKPOINT_NAME_BREAKS_OTHER_NUMBERING = register(
    "A014",
    "checkpoint-name-breaks-other-numbering",
    "A checkpoint keeps an earlier release's name (`cx-NNN-checkpoint.json`) beside another tool's `cx-NNN.json`.",
    Severity.WARNING,
    case=Case.OLD_VERSION,
    why="The name is the one an earlier release of the PreCompact hook gave; the current one writes `cx-NNN.json`.",
    explanation="""
    ## Why
    A checkpoint writer of the team's own that names its files `cx-NNN.json` often numbers the
    next one with `int(name[3:-5])` over every `cx-*.json` of the folder. On
    `cx-001-checkpoint.json` that raises `ValueError`, and such a writer usually fails open: its
    checkpoints silently stop for the whole team. The PreCompact hook now names its checkpoints
    `cx-NNN.json` (one numbering shared with the other writer; ctxres tells its own by content),
    but files an earlier release wrote keep the old name until they are renamed.

    ## Example
    ```
    .jerry/checkpoints/cx-001-checkpoint.json   # ours, from an earlier release
    .jerry/checkpoints/cx-002.json              # the team's own writer (checkpoint_id, created_at)
    ```

    ## Fix
    Run `ctxres renumber`: it renames `cx-001-checkpoint.json` to `cx-001.json` and updates the
    compaction event that points to it (`--dry-run` shows what it would do). Commit the rename.
    """,
)


@document_check(CHECKPOINT_NAME_BREAKS_OTHER_NUMBERING, kinds=("checkpoint",))
def check_checkpoint_name_breaks_other_numbering(doc: Document, _config: Config) -> list[Finding]:
    """A014: one of our checkpoints under the earlier release's name, in a folder where another tool keeps
    ``cx-NNN.json`` checkpoints (whose writer may number them by ``int()`` of every name)."""
    if not doc.fs_path or not is_seed_name(Path(doc.fs_path).name) or cp.layout_of(doc.data) != cp.SEED:
        return []
    theirs = _other_writers_plain_file(Path(doc.fs_path).parent)
    if theirs is None:
        return []
    name = Path(doc.fs_path).name
    number = cp.number_of_name(name)
    assert number is not None
    return [
        rule_finding(
            doc,
            CHECKPOINT_NAME_BREAKS_OTHER_NUMBERING,
            f"{name} has an earlier release's name, beside another tool's checkpoints ({theirs}): a writer that "
            "numbers its files by int() of every cx-*.json name fails on it",
            ("event_id",),
            f"run `ctxres renumber` (renames it to {cp.file_name(number)} and updates the event that points to it)",
            key=True,
        )
    ]
