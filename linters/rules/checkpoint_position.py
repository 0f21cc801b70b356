"""S004, S015, S016: the checkpoint the workflow resumes from: `last_checkpoint` against the `checkpoints`
section, and `checkpoints.latest_id` against the checkpoints the workflow's own folder holds.
"""

from __future__ import annotations

import os
import re
from datetime import datetime

from ctxres.findings import Finding, Severity
from ctxres.formats.document import JsonPath
from ctxres.linters.checking.registry import register, section_check
from ctxres.linters.checking.resumption_context import (
    RS,
    Context,
    id_key,
    place,
    short_path,
    shown,
    some,
)
from ctxres.linters.checking.severity_policy import Case
from ctxres.state import orchestration as state
from ctxres.state.orchestration import (
    CheckpointEntries,
)
from ctxres.timestamps import parse_timestamp

# `ctxres check` loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# --- S004/S015: last_checkpoint vs the checkpoints section -----------------------------------

# A checkpoint id as the `checkpoints` section writes them (``CP-003``, ``cp_12``): beside an unused section
# anything else (``phase-1-started``, ``QG-2``) is a free-form label (S015), not a missing checkpoint (S004).
_SECTION_CHECKPOINT_ID = re.compile(r"\A\s*cp[\s_-]*\d+\s*\Z", re.IGNORECASE)
# Any id of letters, an optional `-` or `_`, and digits: S016 reads its prefix and number.
_CHECKPOINT_ID = re.compile(r"\A([A-Za-z]+)[-_]?(\d+)\Z")


def _same_time(value: str, other: Any) -> bool:
    mine, theirs = parse_timestamp(value), parse_timestamp(other)
    return bool(mine and theirs and not mine.date_only and mine.instant == theirs.instant)


LAST_CHECKPOINT = register(
    "S004",
    "last-checkpoint-mismatch",
    "`last_checkpoint` is not the latest checkpoint of the `checkpoints` section.",
    case=Case.CONTRADICTION,
    why=(
        "`last_checkpoint` and the `checkpoints` section name different checkpoints. The time of the "
        "latest checkpoint instead of its id is a warning."
    ),
    explanation="""
    ## Why
    `last_checkpoint` (in `recovery_state` for v2.0, at the top of the section for v1.0) is set
    from `checkpoints.latest_id`: it tells a resuming session which recovery point to start
    from. When it names an older checkpoint, one that the `checkpoints` section does not record,
    or a time instead of an id, the session restarts from the wrong place.

    ## Example
    ```yaml
    checkpoints:
      latest_id: "CP-006"
      entries: [{id: "CP-005"}, {id: "CP-006"}]
    resumption:
      recovery_state:
        last_checkpoint: "CP-005"
    ```

    ## Fix
    Set `last_checkpoint` to the latest checkpoint id (the message names it), or to `null` when
    the `checkpoints` section records none. If the checkpoint really was taken, record it in
    `checkpoints.entries` and `checkpoints.latest_id` instead.

    ## What is normal
    A `checkpoints` section that was never used (`latest_id: null`, `entries: []`) next to a
    free-form label such as `last_checkpoint: "workflow-complete"` is how a workflow that never
    compacted looks: there is no recovery point to be behind. That is not S004 but the warning
    S015 (checkpoints-section-unused). S004 stays an error for a `last_checkpoint` that is behind
    the recorded entries, that names a checkpoint id (`CP-005`) the section does not record, or
    that holds the time of an *older* checkpoint.

    ## The time of the latest checkpoint: a warning
    Some projects write the time of the latest recorded checkpoint in `last_checkpoint`
    (`"2026-01-31T22:45:00Z"` where `CP-002` was taken at that time). That names the same
    checkpoint as its id, a different shape carrying the same fact, so it is reported as a
    **warning** ("use CP-002"). A time that matches no checkpoint, or an older one, is still an
    error.
    """,
)


def _last_checkpoint_problem(
    ctx: Context, named: str | None, view: CheckpointEntries
) -> tuple[str, str, Severity] | None:
    """(what is wrong, what to change, how serious), or None when ``named`` is the latest checkpoint.

    The time of the latest checkpoint names the same checkpoint as its id: a warning.
    """
    error = LAST_CHECKPOINT.severity
    doc = ctx.doc
    if view.latest is None:
        if named is None or not _SECTION_CHECKPOINT_ID.match(named):
            return None  # an unused section beside a free-form label: S015's warning
        return (
            f"names the checkpoint {shown(named)}, but the `checkpoints` section records no checkpoint "
            f"({place(doc, view.latest_path)} is null)",
            "Set last_checkpoint to null, or record the checkpoint in `checkpoints.entries` and "
            "`checkpoints.latest_id`.",
            error,
        )
    latest = f"{shown(view.latest)} ({place(doc, view.latest_path)})"
    fix = f'Set last_checkpoint to "{view.latest}".'
    if named is None:
        return f"is null, but the latest checkpoint is {latest}", fix, error
    if id_key(named) == id_key(view.latest):
        return None
    for entry_id, entry_path, stamp in view.entries:
        entry = f"{shown(entry_id)} ({place(doc, entry_path)})"
        if id_key(entry_id) == id_key(named):
            return f"names {entry}, but the latest checkpoint is {latest}", fix, error
        if _same_time(named, stamp):
            id_fix = fix[:-1] + " (its id, not its time)."
            if id_key(entry_id) == id_key(view.latest):
                same = f"is the time of the latest checkpoint, {shown(named)}, not its id: use {entry}"
                return same, id_fix, Severity.WARNING
            return (
                f"is {shown(named)}, the time of the older checkpoint {entry}; the latest is {latest}",
                id_fix,
                error,
            )
    return (
        f"names {shown(named)}, which the `checkpoints` section does not record; its latest checkpoint is {latest}",
        fix[:-1] + f", or record {named} in `checkpoints.entries` and `checkpoints.latest_id` if it was taken.",
        error,
    )


# A time in a spelling the timestamp parser does not read (``2026-02-17 11:45 UTC``) is still a time.
_DATED = re.compile(
    r"\A\s*\d{4}-\d{2}-\d{2}(?:[T ]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?(?:\s*(?:Z|UTC|GMT|[+-]\d{2}:?\d{2}))?\s*\Z"
)
_ZONE_WORD = re.compile(r"\s*\b(?:UTC|GMT)\s*\Z")
# Where a section states its own update time (v2.0 in `recovery_state`; v1.0 sections add one of their own).
_UPDATE_TIME_KEYS = ("updated_at", "last_updated")


def _what_it_is(named: str) -> str:
    """How a message calls a `last_checkpoint` that is no checkpoint id: a time (``2026-02-17T11:45:00Z``) is a
    timestamp, anything else (``phase-1-started``) a label."""
    return "timestamp" if _DATED.match(named) or parse_timestamp(named) is not None else "label"


def _time_of(value: object) -> datetime | None:
    """The time ``value`` states (a ``datetime`` as YAML read it, or a text, ``UTC`` spelt out accepted)."""
    if isinstance(value, datetime):
        return value
    if not isinstance(value, str):
        return None
    parsed = parse_timestamp(value) or parse_timestamp(_ZONE_WORD.sub("Z", value.strip()))
    return parsed.instant if parsed is not None else None


def _is_update_time(named: str, value: object) -> bool:
    """Whether ``named`` is the time ``value`` (a section's update time) states, spelt the same or not."""
    if isinstance(value, str) and value.strip() == named.strip():
        return True
    mine, theirs = _time_of(named), _time_of(value)
    return mine is not None and theirs is not None and mine == theirs


def _own_update_time(ctx: Context, holder: JsonPath, named: str) -> bool:
    """Whether `last_checkpoint` is the section's own update time: the section names itself as the recovery
    point (it was written then), which is what an unused `checkpoints` section leaves to resume from."""
    owners = {holder, ("resumption",)}
    return any(_is_update_time(named, ctx.doc.get((*owner, key))) for owner in owners for key in _UPDATE_TIME_KEYS)


CHECKPOINTS_UNUSED = register(
    "S015",
    "checkpoints-section-unused",
    "The `checkpoints` section records no checkpoint, and `last_checkpoint` holds a label instead of null.",
    Severity.WARNING,
    case=Case.SAME_FACTS,
    why="An empty `checkpoints` section with a label in `last_checkpoint` says the same as null: no checkpoint yet.",
    explanation="""
    ## Why
    A workflow that never compacted and never passed a checkpointed gate keeps its `checkpoints`
    section empty (`latest_id: null`, `entries: []`) and often writes a free-form label into
    `last_checkpoint` (`"workflow-complete"`, `"phase-3-done"`). That is the normal state of such a
    workflow, not a wrong recovery point, so it is only worth knowing: a resuming session finds no
    checkpoint to start from besides the resumption section itself, and the label looks like a
    checkpoint id to a reader. This is a warning with its own code so that a project that
    never uses checkpoints can ignore it (`ignore = ["S015"]`) without losing S004.

    A `last_checkpoint` that names a checkpoint id (`CP-003`) while the section records none is
    not this warning but S004: a checkpoint was taken and never recorded. A `last_checkpoint` that
    is the section's own update time (the same time as its `updated_at`) is not reported: the
    section names itself as the recovery point, which is exactly what a workflow without
    checkpoints resumes from. Another time is reported, as a timestamp.

    ## Example
    ```yaml
    checkpoints:
      latest_id: null
      entries: []
    resumption:
      last_checkpoint: "workflow-complete"
    ```

    ## Fix
    Set `last_checkpoint` to `null` (no checkpoint was taken), or record the checkpoints the
    workflow takes in `checkpoints.entries` and `checkpoints.latest_id`.
    """,
)


@section_check(LAST_CHECKPOINT, CHECKPOINTS_UNUSED)
def check_last_checkpoint(ctx: Context) -> list[Finding]:
    holder: JsonPath = RS if ctx.version == "2.0" else ("resumption",)
    owner = ctx.doc.get(holder)
    if not isinstance(owner, dict) or "last_checkpoint" not in owner:
        return []
    named = owner["last_checkpoint"]
    view = state.checkpoint_entries(ctx.doc.data)
    if view is None or not (named is None or isinstance(named, str)):
        return []
    path = (*holder, "last_checkpoint")
    if view.latest is None and not view.entries and isinstance(named, str) and not _SECTION_CHECKPOINT_ID.match(named):
        if _own_update_time(ctx, holder, named):
            return []  # the section itself is the recovery point, and says so: nothing to change
        return [
            ctx.finding(
                CHECKPOINTS_UNUSED,
                path,
                f"`{short_path(path)}` is the {_what_it_is(named)} {shown(named)}, and the `checkpoints` section is "
                "unused "
                f"({place(ctx.doc, view.latest_path)} is null, no entries): "
                "the workflow has no checkpoint to resume from",
                "Set last_checkpoint to null if no checkpoint was taken (nothing else to fix), or record "
                "checkpoints in `checkpoints.entries` and `checkpoints.latest_id`.",
            )
        ]
    problem = _last_checkpoint_problem(ctx, named, view)
    if problem is None:
        return []
    finding = ctx.finding(LAST_CHECKPOINT, path, f"`{short_path(path)}` {problem[0]}", problem[1])
    return [finding.replace(severity=problem[2])]


# --- S016: checkpoints.latest_id against the workflow's own folder ----------------------------------

_FOLDER_DEPTH = 3  # sub-folders of the workflow's folder that are read
_FOLDER_NAMES = 5000  # names read at most: a workflow's folder, not a whole repository
_NOT_READ = frozenset({"node_modules", "venv", "__pycache__", "site-packages", "vendor"})


def _is_workflow_file(name: str) -> bool:
    return "orchestration" in name.casefold() and name.casefold().endswith((".yaml", ".yml"))


def _folder_names(folder: str, own: str) -> list[str]:
    """The file and folder names under ``folder`` (relative, ``/`` separators), depth-limited; only the
    workflow's own: none when another workflow file shares the folder, none of a sub-folder that has one."""
    found: list[str] = []
    for here, dirs, files in os.walk(folder):
        rel = os.path.relpath(here, folder)
        if any(_is_workflow_file(name) for name in files if os.path.join(here, name) != own):
            if rel == ".":
                return []  # a folder of several workflows: which checkpoint is whose cannot be told
            dirs[:] = []
            continue
        depth = 0 if rel == "." else rel.count(os.sep) + 1
        dirs[:] = (
            sorted(d for d in dirs if not d.startswith(".") and d not in _NOT_READ) if depth < _FOLDER_DEPTH else []
        )
        for name in sorted(files) + dirs:
            found.append(name if rel == "." else f"{rel.replace(os.sep, '/')}/{name}")
            if len(found) >= _FOLDER_NAMES:
                return found
    return found


def _numbers(ids: list[str], prefix: str) -> set[int]:
    """The numbers of the ids with ``prefix`` (``CP-003`` -> 3)."""
    matches = (_CHECKPOINT_ID.match(i.strip()) for i in ids)
    return {int(m.group(2)) for m in matches if m and m.group(1).casefold() == prefix.casefold()}


def _later_in_folder(ctx: Context, latest: str, ids: list[str]) -> list[str]:
    """Names in the workflow's folder that start with a checkpoint id later than ``latest`` and not recorded."""
    match = _CHECKPOINT_ID.match(latest.strip())
    if match is None or not ctx.doc.fs_path:
        return []
    prefix, number = match.group(1), int(match.group(2))
    recorded = _numbers(ids, prefix)
    named = re.compile(rf"\A{re.escape(prefix)}[-_]?(\d+)(?![0-9])", re.IGNORECASE)
    later: list[str] = []
    own = os.path.abspath(ctx.doc.fs_path)
    for rel in _folder_names(os.path.dirname(own), own):
        found = named.match(rel.rsplit("/", 1)[-1])
        if found and int(found.group(1)) > number and int(found.group(1)) not in recorded:
            later.append(rel)
    return later


LATEST_BEHIND_FOLDER = register(
    "S016",
    "latest-checkpoint-behind-folder",
    "`checkpoints.latest_id` is older than checkpoints that the workflow's own folder records.",
    case=Case.WRONG_RESUMPTION,
    why=(
        "The workflow took a later checkpoint than the section says: a session resuming from "
        "`latest_id` starts from an older recovery point."
    ),
    explanation="""
    ## Why
    `checkpoints.latest_id` is the recovery point a resuming session starts from. Workflows keep
    their checkpoints beside their ORCHESTRATION file, as checkpoint files or documents named by
    id (`checkpoints/CP-004.json`, `cp-004-phase-3-summary.md`). When that folder holds a file
    named with a later id of the same prefix than `latest_id`, and the section records no entry
    for it, the checkpoint was taken and the section never updated.

    Only names that start with the id count (`CP-004...`, `cp_004...`), in the folder of the
    ORCHESTRATION file and its sub-folders (hidden folders and dependencies are not read). A
    folder shared with another workflow file is not the workflow's own: it is not read (nor a
    sub-folder that holds another workflow file).

    ## Example
    ```yaml
    checkpoints:
      latest_id: "CP-003"          # the folder holds checkpoints/CP-004-gate-2.md
      entries:
        - {id: "CP-003", timestamp: "2026-03-01T09:00:00Z"}
    ```

    ## Fix
    Record the later checkpoint in `checkpoints.entries` and set `latest_id` (and
    `last_checkpoint`) to it; if the file is not a checkpoint, rename it.
    """,
)


@section_check(LATEST_BEHIND_FOLDER)
def check_latest_behind_folder(ctx: Context) -> list[Finding]:
    entries = state.checkpoint_entries(ctx.doc.data)
    if entries is None or not isinstance(entries.latest, str):
        return []
    ids = [entry_id for entry_id, _path, _time in entries.entries if isinstance(entry_id, str)]
    later = _later_in_folder(ctx, entries.latest, ids)
    if not later:
        return []
    return [
        ctx.finding(
            LATEST_BEHIND_FOLDER,
            entries.latest_path,
            f"`{short_path(entries.latest_path)}` is {shown(entries.latest)}, but the workflow's folder records later "
            f"checkpoints that the section does not: {some(later)}",
            "Record the later checkpoint in checkpoints.entries and set latest_id (and last_checkpoint) to it.",
        )
    ]
