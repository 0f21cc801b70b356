"""The versions of one workflow file over a time range, and what they imply on the timeline.

:func:`git_versions` reads the file's committed versions (and the file as it is now); the caller adds the
versions a session's transcripts show (``edit``, ``read``). :func:`history_events` puts them in time order,
parses each as a workflow and says what moved between them: the resumption section's updates
(:class:`SectionUpdated`), the phase the workflow's *state* says is current (:class:`PhaseChanged`), and the
stretches where the state moved and the section did not (:class:`StaleStretch`), with the same comparison
as ``ctxres stale`` (:mod:`ctxres.state.statediff`). :class:`PhaseLookup` answers "which phase did the file
say at that moment", in the words SessionStart's prompt uses (:func:`phase_label`, :func:`same_phase`).
"""

from __future__ import annotations

import datetime as dt
import os
import re
import subprocess
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ctxres.formats.loading import Format, parse_text
from ctxres.linters.timeline.model import (
    Event,
    FileVersion,
    PhaseChanged,
    SectionUpdated,
    Skipped,
    StaleStretch,
)
from ctxres.prompts import phase_text
from ctxres.state.orchestration import (
    RUNNING_WORDS,
    normalize_status,
    phase_number,
    pipelines,
    workflow_meaning,
    workflow_status_of,
)
from ctxres.state.resumption import detect_version
from ctxres.state.statediff import moved_state, parse_timestamp, resumption_moved, resumption_section
from ctxres.timestamps import as_utc

GIT_TIMEOUT = 10.0
"""Seconds one git command may take: a timeline is drawn without the history rather than hang on it."""
MAX_MOVES = 4
"""How many moves a stale stretch names; the rest are counted (``and 3 more``)."""
MAX_VERSION_BYTES = 10 * 1024 * 1024
"""A committed version larger than this is not read (a workflow file is a few KB)."""

# Statuses that end a workflow: nobody resumes it, so its section cannot be stale.
_FINISHED = frozenset({"COMPLETE", "FAILED"})
_ARCHIVED_WORDS = frozenset({"ARCHIVED", "SUPERSEDED", "ABANDONED"})
_UNKNOWN_PHASE = "phase not recorded"  # what ctxres.prompts.phase_text says when it knows nothing


# --------------------------------------------------------------------------------------- phases


def phase_label(number: Any, name: Any) -> str | None:
    """The phase as SessionStart's prompt names it (``Phase 2 (Core License Changes)``, ``Phase 2``, a name
    alone); None when neither is known. Both sides of a comparison use it (:func:`same_phase`)."""
    text = phase_text(number, name)
    return None if text == _UNKNOWN_PHASE else text


_NAME_IN_LABEL = re.compile(r"\Aphase[\s_-]*\d+\s*(?:\((?P<name>.*)\))?\s*\Z", re.IGNORECASE | re.DOTALL)


def _label_name(label: str) -> str:
    """The name in a label (``Phase 2 (Core)`` -> ``core``; a bare name as it is), folded for comparison."""
    match = _NAME_IN_LABEL.match(label.strip())
    name = (match.group("name") or "") if match else label
    return " ".join(name.split()).casefold()


def same_phase(told: str | None, said: str | None) -> bool:
    """Whether two phase labels name the same phase: by number when both have one (``Phase 2`` and
    ``phase-2 (Core License Changes)`` are the same), else by name, ignoring case and white space. An
    unknown phase (None, empty, ``phase not recorded``) is the same as no other."""
    if not told or not said or _UNKNOWN_PHASE in (told.strip(), said.strip()):
        return False
    told_number, said_number = phase_number(told), phase_number(said)
    if told_number is not None and said_number is not None:
        return told_number == said_number
    told_name, said_name = _label_name(told), _label_name(said)
    return bool(told_name) and told_name == said_name


_TOLD_LINE = re.compile(r"^(?:- Current phase|YOU WERE DOING|THAT SESSION WAS DOING): (?P<rest>.*)$", re.MULTILINE)
# The position line of a compaction alert is "<phase>, <activity>": a numbered phase ends at its last "), ".
_TOLD_NUMBERED = re.compile(r"(?P<phase>Phase \S+? \(.*\)), ")


def told_phase(prompt: str) -> str | None:
    """The phase SessionStart's prompt named, as :func:`phase_label` writes it: the resumption prompt's
    ``- Current phase: Phase 1 (Dependency Audit)``, the compaction alert's ``YOU WERE DOING: Phase 2 (Core
    License Changes), qg-2-iteration-2`` (or ``THAT SESSION WAS DOING``); None when it names none."""
    match = _TOLD_LINE.search(prompt)
    if match is None:
        return None
    rest, alert = match.group("rest").strip(), not match.group(0).startswith("-")
    if alert:
        numbered = _TOLD_NUMBERED.match(rest)
        rest = numbered.group("phase") if numbered else rest.rsplit(", ", 1)[0]
    return None if rest in ("", _UNKNOWN_PHASE) else rest


def _preferred(data: dict[str, Any]) -> str | None:
    workflow = data.get("workflow")
    current = workflow.get("current_pipeline") if isinstance(workflow, dict) else None
    return str(current) if isinstance(current, (str, int)) and not isinstance(current, bool) else None


def state_phase(data: Any) -> str | None:
    """The label of the phase the workflow's state says is current (docs/formats.md, "From a previous
    phase"): in the pipeline the workflow names as current (else each pipeline in file order), its
    ``current_phase``, else its first running phase. Only when the state says nothing is the resumption
    section's ``recovery_state.current_phase`` (with its name) used; None when nothing names a phase."""
    if not isinstance(data, dict):
        return None
    found = pipelines(data)
    preferred = _preferred(data)
    found.sort(key=lambda pipeline: pipeline.name != preferred)
    for pipeline in found:
        if pipeline.current_phase is not None:
            phase = pipeline.phase(pipeline.current_phase)
            return phase_label(pipeline.current_phase, phase.name if phase else None)
        running = [phase for phase in pipeline.phases if phase.status in RUNNING_WORDS]
        if running:
            return phase_label(running[0].number, running[0].name)
    return _section_phase(data)


def _section_phase(data: dict[str, Any]) -> str | None:
    section = resumption_section(data)
    if section is None:
        return None
    state = section.get("recovery_state") if detect_version(section) == "2.0" else section
    if not isinstance(state, dict):
        return None
    return phase_label(state.get("current_phase"), state.get("current_phase_name"))


@dataclass(slots=True)
class PhaseLookup:
    """The phase each version of the file said, by time: ``phase_at(time)`` (or calling the lookup) is the
    label of the latest version at or before ``time`` (None before the first version, or when ``time`` is
    None). ``skipped`` says which versions could not be read, and why."""

    times: list[dt.datetime] = field(default_factory=list)
    labels: list[str | None] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)

    def phase_at(self, time: dt.datetime | None) -> str | None:
        if time is None:
            return None
        index = bisect_right(self.times, as_utc(time))
        return self.labels[index - 1] if index else None

    def __call__(self, time: dt.datetime | None) -> str | None:
        return self.phase_at(time)


# ------------------------------------------------------------------------------------- git history


def _git(args: list[str], cwd: Path, stdin: bytes | None = None) -> bytes | None:
    """``git ARGS`` in ``cwd``: its output, or None when git is missing, fails or takes too long."""
    try:
        proc = subprocess.run(
            ["git", "--no-pager", *args], cwd=cwd, input=stdin, capture_output=True, timeout=GIT_TIMEOUT, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return proc.stdout if proc.returncode == 0 else None


def _commits(path: Path) -> list[tuple[str, str, dt.datetime]]:
    """(full hash, short hash, commit time) of the commits that changed ``path``, oldest first."""
    out = _git(["log", "--no-merges", "--format=%H%x1f%h%x1f%ct", "--", path.name], path.parent)
    commits = []
    for line in (out or b"").decode("ascii", "replace").splitlines():
        full, short, stamp = [*line.split("\x1f"), "", ""][:3]
        if full and stamp.isdigit():
            commits.append((full, short, dt.datetime.fromtimestamp(int(stamp), dt.timezone.utc)))
    return commits[::-1]


def _blobs(specs: list[str], cwd: Path) -> list[bytes | None]:
    """The contents of ``REV:./name`` for each spec, from one ``git cat-file --batch``; None when absent."""
    out = _git(["cat-file", "--batch"], cwd, "".join(f"{spec}\n" for spec in specs).encode())
    found: list[bytes | None] = []
    position = 0
    for _ in specs:
        if out is None:
            found.append(None)
            continue
        end = out.find(b"\n", position)
        header = out[position:end].split() if end >= 0 else []
        if len(header) != 3 or not header[2].isdigit():  # "<spec> missing"
            found.append(None)
            position = end + 1 if end >= 0 else len(out)
            continue
        size = int(header[2])
        blob = out[end + 1 : end + 1 + size]
        found.append(blob if header[1] == b"blob" and size <= MAX_VERSION_BYTES else None)
        position = end + 1 + size + 1
    return found


def _in_range(
    commits: list[tuple[str, str, dt.datetime]], since: dt.datetime | None, until: dt.datetime | None
) -> list[tuple[str, str, dt.datetime]]:
    """The commits in (``since``, ``until``], and the last one at or before ``since``: the state the range
    starts from."""
    before = [c for c in commits if since is not None and c[2] <= since]
    inside = [c for c in commits if (since is None or c[2] > since) and (until is None or c[2] <= until)]
    return before[-1:] + inside


def git_versions(path: Path, *, since: dt.datetime | None, until: dt.datetime | None) -> list[FileVersion]:
    """The versions of the workflow file at ``path`` from its git history, oldest first: the commits in
    (``since``, ``until``] and the last commit before them (the state the range starts from), at their
    commit times; then the file as it is now (``source="file"``, at its modification time) unless it was
    written after ``until``. No git, no repository or a file git does not track: only the file. Each git
    command has a short timeout (:data:`GIT_TIMEOUT`); one that fails leaves the history out."""
    path = Path(os.path.abspath(path))
    since = as_utc(since) if since is not None else None
    until = as_utc(until) if until is not None else None
    versions = []
    if path.parent.is_dir():
        commits = _in_range(_commits(path), since, until)
        texts = _blobs([f"{full}:./{path.name}" for full, _, _ in commits], path.parent) if commits else []
        for (_, short, when), blob in zip(commits, texts, strict=True):
            if blob is not None:
                text = blob.decode("utf-8", "replace")
                versions.append(FileVersion(str(path), when, None, text, "commit", short))
    current = _current(path, until)
    return [*versions, current] if current is not None else versions


def _current(path: Path, until: dt.datetime | None) -> FileVersion | None:
    try:
        info = path.stat()
        if info.st_size > MAX_VERSION_BYTES:
            return None
        text = path.read_text("utf-8", "replace")
    except OSError:
        return None
    when = dt.datetime.fromtimestamp(info.st_mtime, dt.timezone.utc)
    if until is not None and when > until:
        return None
    return FileVersion(str(path), when, None, text, "file")


# --------------------------------------------------------------------------------- the events


@dataclass(frozen=True, slots=True)
class _Reading:
    """One readable version: its data and what the timeline needs of it."""

    version: FileVersion
    data: dict[str, Any]
    turn: int
    phase: str | None
    finished: bool


_SNAPSHOTS = frozenset({"commit", "file"})


def _ordered(versions: Sequence[FileVersion]) -> list[FileVersion]:
    """The versions by time (one without a time keeps its place after the one before it), consecutive
    identical texts once (the earliest sighting); a commit or the file whose text an earlier version already
    had is left out too: it recorded that moment later (a commit of an intermediate text would otherwise
    read as the state going back)."""
    keyed, last = [], dt.datetime.min.replace(tzinfo=dt.timezone.utc)
    for index, version in enumerate(versions):
        last = as_utc(version.time) if version.time is not None else last
        keyed.append((last, index, version))
    ordered = [version for _, _, version in sorted(keyed, key=lambda item: (item[0], item[1]))]
    kept: list[FileVersion] = []
    seen: set[str] = set()
    for version in ordered:
        if kept and kept[-1].text == version.text:
            continue
        if version.source in _SNAPSHOTS and version.text in seen:
            continue  # a commit (or the file) of a text the session already showed: no new moment
        kept.append(version)
        seen.add(version.text)
    return kept


def _parse(version: FileVersion) -> tuple[dict[str, Any] | None, str]:
    """The parsed data of a version, or None and why it cannot be read."""
    result = parse_text(version.path, "orchestration", Format.YAML, version.text)
    if result.document is None:
        issue = result.issues[0] if result.issues else None
        if issue is None:
            return None, "cannot be parsed"
        return None, f"{issue.message.rstrip('.')} (line {issue.position.line})"
    data = result.document.data
    if not isinstance(data, dict):
        return None, "is not a YAML mapping"
    return data, ""


def is_finished(data: Any) -> bool:
    """Whether the workflow has ended (COMPLETE, FAILED, archived), by its section or its own ``status``:
    nobody resumes it, so a state move after it is no stale section."""
    if not isinstance(data, dict):
        return False
    statuses = [workflow_status_of(data)]
    workflow = data.get("workflow")
    if isinstance(workflow, dict):
        statuses.append(workflow.get("status"))
    statuses.append(data.get("status"))
    for status in statuses:
        if workflow_meaning(status) in _FINISHED or normalize_status(status) in _ARCHIVED_WORDS | _FINISHED:
            return True
    return False


def _source(version: FileVersion) -> str:
    where = f"{version.path} at {version.revision}" if version.revision else version.path
    return f"{where} ({version.source})"


def _read_all(
    versions: Sequence[FileVersion], turn_at: Callable[[dt.datetime | None], int]
) -> tuple[list[_Reading], list[Skipped]]:
    readings: list[_Reading] = []
    reasons: dict[tuple[str, str], int] = {}
    for version in _ordered(versions):
        data, reason = _parse(version)
        if data is None:
            key = (_source(version), reason)
            reasons[key] = reasons.get(key, 0) + 1
            continue
        turn = version.turn if version.turn is not None else turn_at(version.time)
        readings.append(_Reading(version, data, turn, state_phase(data), is_finished(data)))
    return readings, [Skipped(source, reason, count) for (source, reason), count in reasons.items()]


def _updated_at(data: dict[str, Any]) -> dt.datetime | None:
    section = resumption_section(data)
    recovery = section.get("recovery_state") if section else None
    return parse_timestamp(recovery.get("updated_at")) if isinstance(recovery, dict) else None


def _section_update(reading: _Reading, workflow: str) -> SectionUpdated:
    version = reading.version
    return SectionUpdated(
        turn=reading.turn,
        time=version.time,
        workflow=workflow,
        updated_at=_updated_at(reading.data),
        phase=_section_phase(reading.data),
        source=_UPDATE_SOURCES[version.source],
        revision=version.revision,
    )


# Where an update was seen: a Read tool call saw the file as it then was.
_UPDATE_SOURCES: dict[str, Literal["edit", "read", "commit", "file"]] = {
    "edit": "edit",
    "read": "read",
    "commit": "commit",
    "file": "file",
}


@dataclass(slots=True)
class _Open:
    """A stale stretch not closed yet."""

    start: _Reading
    moves: list[str]


def _minutes(start: dt.datetime | None, end: dt.datetime | None) -> float | None:
    if start is None or end is None:
        return None
    return round((as_utc(end) - as_utc(start)).total_seconds() / 60, 1)


def _named(moves: list[str]) -> tuple[str, ...]:
    if len(moves) <= MAX_MOVES:
        return tuple(moves)
    return (*moves[: MAX_MOVES - 1], f"and {len(moves) - MAX_MOVES + 1} more")


def _close(stretch: _Open, workflow: str, end: _Reading | None, open_end: dt.datetime | None) -> StaleStretch:
    start = stretch.start.version.time
    end_time = end.version.time if end is not None else None
    return StaleStretch(
        turn=stretch.start.turn,
        time=start,
        workflow=workflow,
        moves=_named(stretch.moves),
        end_turn=end.turn if end is not None else None,
        end_time=end_time,
        minutes=_minutes(start, end_time if end is not None else open_end),
    )


def history_events(
    versions: list[FileVersion],
    *,
    workflow: str,
    turn_at: Callable[[dt.datetime | None], int],
    end: dt.datetime | None,
) -> tuple[list[Event], PhaseLookup]:
    """What the versions of one workflow file imply, in time order: :class:`SectionUpdated` when the
    resumption section was updated (``updated_at`` advanced; for a section without one, its content
    changed), :class:`PhaseChanged` when the phase the state says is current moved (:func:`state_phase`),
    and :class:`StaleStretch` from the first version where the state moved while the section did not, to
    the section's next update (or open, its length measured to ``end``). The first readable version is
    where the range starts: it implies nothing by itself. A finished workflow (:func:`is_finished`) has no
    stale section: a stretch open when it finishes ends there, and none opens after. ``turn_at`` gives the
    turn of a version that carries none (a commit, the file). Unreadable versions (YAML errors, merge
    conflicts) are left out and listed in the lookup's ``skipped``."""
    readings, skipped = _read_all(versions, turn_at)
    lookup = PhaseLookup(skipped=skipped)
    events: list[Event] = []
    stretch: _Open | None = None
    previous: _Reading | None = None
    known: str | None = None  # the last phase a version named
    for reading in readings:
        if reading.version.time is not None:
            lookup.times.append(as_utc(reading.version.time))
            lookup.labels.append(reading.phase)
        if previous is None:
            previous, known = reading, reading.phase
            continue
        updated = resumption_moved(previous.data, reading.data)
        if stretch is not None and (updated or reading.finished):
            events.append(_close(stretch, workflow, reading, end))
            stretch = None
        if updated:
            events.append(_section_update(reading, workflow))
        elif not reading.finished and resumption_section(reading.data) is not None:
            moves = [move.describe() for move in moved_state(previous.data, reading.data)]
            if moves and stretch is None:
                stretch = _Open(reading, moves)
            elif moves and stretch is not None:
                stretch.moves += [move for move in moves if move not in stretch.moves]
        events += _phase_change(known, previous, reading, workflow)
        known = reading.phase or known
        previous = reading
    if stretch is not None:
        events.append(_close(stretch, workflow, None, end))
    return _in_time_order(events), lookup


def _phase_change(known: str | None, previous: _Reading, reading: _Reading, workflow: str) -> list[Event]:
    """A move from ``known`` (the last phase a version named) to the phase ``reading`` names; a version
    that names none (between two phases) changes nothing, and neither does a finished workflow."""
    after = reading.phase
    if after is None or previous.finished or (known is not None and same_phase(known, after)):
        return []
    return [PhaseChanged(reading.turn, reading.version.time, workflow, known, after)]


def _in_time_order(events: list[Event]) -> list[Event]:
    """Stable by (time, turn): a stretch closed when the section was updated stays where it started."""
    floor = dt.datetime.min.replace(tzinfo=dt.timezone.utc)
    return sorted(events, key=lambda event: (as_utc(event.time) if event.time is not None else floor, event.turn))
