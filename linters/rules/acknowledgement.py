"""A rules across files: the compaction records of a v2.0 resumption section agree with the checkpoint files.

Before a compaction the PreCompact hook writes a checkpoint file; afterwards `ctxres ack` merges
it into `resumption.compaction_events` (an event appended, `count` incremented, the file marked
acknowledged, `recovery_state.updated_at` advanced). These rules find every way the two sides
drift apart; they read checkpoint files from disk (relative to the project root): the references
of each section while its file is loaded (``collect``), the unmerged checkpoints once per workspace.
The records inside one file are :mod:`~ctxres.linters.rules.compaction_records`' (the same family).
"""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

from ctxres.config import Config
from ctxres.findings import ORIGIN, Finding, Position
from ctxres.formats.document import Document, JsonPath, format_json_path
from ctxres.globs import is_ignored, parse_ignore
from ctxres.linters.checking.registry import Rule, register, workspace_check
from ctxres.linters.checking.roots import root_of
from ctxres.linters.checking.severity_policy import Case
from ctxres.project import inside
from ctxres.records import Record
from ctxres.state import checkpoints as cp
from ctxres.state.orchestration import LIVE_STATUSES, workflow_status_of
from ctxres.state.resumption import detect_version

# `ctxres check` loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Set as AbstractSet
    from typing import Any

    from ctxres.linters.checking.engine import Workspace


EVENTS_OWNER: JsonPath = ("resumption", "compaction_events")
EVENTS: JsonPath = ("resumption", "compaction_events", "events")
UPDATED_AT: JsonPath = ("resumption", "recovery_state", "updated_at")


def rule_finding(
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


def event_label(event: dict[str, Any], index: int) -> str:
    ident = event.get("id")
    return f"compaction event {ident}" if isinstance(ident, str) else f"compaction event #{index + 1}"


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
    """A missing file that git ignores: it stays in the clone that compacted (a fresh clone, CI, or a team
    that keeps its checkpoints folder out of git), nothing to check."""
    target = Path(os.path.normpath(section.root / reference))
    return config.respect_gitignore and _git_ignored(target, section.root)


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

    Paths are relative to the repository root. When git ignores the checkpoint file (its folder
    is listed in `.gitignore`), the file stays in the clone that compacted: in another clone or in
    CI it cannot be checked and is not reported.

    ## Example
    ```yaml
    - id: "CX-002"
      checkpoint_file: ".jerry/checkpoints/cx-002.json"   # no such file
    ```

    ## Fix
    Correct the path (relative to the repository root), or restore the file.
    """,
)


def _check_references(section: _Section, doc: Document, config: Config) -> list[Finding]:
    findings: list[Finding] = []
    newest: tuple[datetime, str, cp.CheckpointView, Path] | None = None
    for index, event in shaped_events(doc):
        reference = event.get("checkpoint_file")
        if not isinstance(reference, str) or not reference.strip():
            continue
        where = (*EVENTS, index, "checkpoint_file")
        what = event_label(event, index)
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
                    rule_finding(
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
    checkpoint_file: "/home/me/repo/.jerry/checkpoints/cx-001.json"
    ```

    ## Fix
    Write the path relative to the repository root, for example
    `.jerry/checkpoints/cx-001.json`.
    """,
)


def _outside(doc: Document, where: JsonPath, what: str, reference: str, problem: str, root: Path) -> Finding:
    if problem == "absolute":
        target = Path(reference).expanduser()
        hint = (
            f"write it relative to the repository root: {cp.relative_reference(target, root)}"
            if target.is_absolute() and inside(target, root)
            else "write it relative to the repository root, for example .jerry/checkpoints/cx-001.json"
        )
        message = f"{what} points to the absolute path {reference}: other clones and machines cannot follow it"
    else:
        hint = "point to a checkpoint inside the repository, relative to its root"
        message = f"{what} points to {reference}, outside the repository: hooks and sessions never read there"
    return rule_finding(doc, OUTSIDE, message, where, hint)


ID_MISMATCH = register(
    "A006",
    "checkpoint-id-mismatch",
    "A compaction event and its checkpoint file carry different ids.",
    case=Case.CONTRADICTION,
    why="The event and its checkpoint file name different compactions.",
    explanation="""
    ## Why
    The event `CX-002` must point to the checkpoint of the same compaction: the file
    `cx-002.json` whose `event_id` is `cx-002`. When the numbers differ, the resuming
    session reads the state saved at another compaction. A checkpoint file whose name and
    `event_id` (or `checkpoint_id`) differ is reported too.

    ## Example
    ```yaml
    - id: "CX-002"
      checkpoint_file: ".jerry/checkpoints/cx-001.json"   # the file of CX-001
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
      acknowledged: false    # but cx-001.json says "acknowledged": true
    ```

    ## Fix
    If the section is up to date, set both to true with the same `acknowledged_at`. When only
    the event is missing the acknowledgement, `ctxres ack CX-001` records it in both files.
    """,
)


def _check_pair(
    doc: Document, index: int, event: dict[str, Any], reference: str, path: Path, checkpoint: cp.CheckpointView
) -> list[Finding]:
    findings = []
    what = event_label(event, index)
    number = cp.number_of_id(event.get("id"))
    # The file name decides; the id inside only when the name has no number (a file whose name and
    # id disagree is reported on the file itself).
    other = cp.number_of_name(path.name) or checkpoint.number
    if number is not None and other is not None and other != number:
        findings.append(
            rule_finding(
                doc,
                ID_MISMATCH,
                f"{what} points to {reference}, the checkpoint of {cp.section_id(other)}",
                (*EVENTS, index, "checkpoint_file"),
                f"point it to the checkpoint of {cp.section_id(number)} "
                f"({cp.renumbered(path.name, number)}), or correct the event id",
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
        findings.append(rule_finding(doc, ACK_MISMATCH, message, (*EVENTS, index, "acknowledged"), fix, about=(path,)))
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
        rule_finding(
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
    `.jerry/checkpoints/cx-002.json` exists, and no event of `compaction_events`
    has `checkpoint_file` pointing to it.

    ## Fix
    Run `ctxres ack` (the oldest checkpoint) or `ctxres ack --all`: it appends the event,
    updates `count` and `recovery_state.updated_at`, and marks the checkpoint acknowledged. A
    checkpoint already marked acknowledged but never recorded must first be reset
    (`"acknowledged": false`, `"acknowledged_at": null`) or its event added by hand.
    """,
)


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


@workspace_check(MISSING_FILE, OUTSIDE, ID_MISMATCH, ACK_MISMATCH, NOT_REACHED, UNMERGED, collect=collect)
def check_workspace(ws: Workspace) -> list[Finding]:
    findings: list[Finding] = []
    by_state_dir: dict[Path, list[_Section]] = {}
    for section in ws.facts_of(__name__):
        by_state_dir.setdefault(Path(section.state_dir), []).append(section)
    for state_dir, sections in sorted(by_state_dir.items()):
        findings += _check_unmerged(state_dir, sections)
    return findings
