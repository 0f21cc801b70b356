"""Merging checkpoint files into a v2.0 resumption section (``ctxres ack``).

After a compaction the session merges the checkpoint the PreCompact hook wrote: one entry is
appended to ``resumption.compaction_events.events``, ``count`` follows, the checkpoint file's
``metadata.acknowledged`` becomes true with ``acknowledged_at``, and
``recovery_state.updated_at`` advances. Every edit is surgical (``yamledit``): comments and every
other byte of both files stay as they were. The whole merge is computed in memory first; when
anything is wrong nothing is written.

Pure functions build the new texts; :func:`plan` reads the files and :func:`write` writes them.
"""

from __future__ import annotations

import json
import os
from bisect import bisect_right
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path

import yaml

from ctxres.atomic import ChangedSinceRead, Stamp, stamp_before_read, write_all_atomic
from ctxres.config import Config
from ctxres.defaults import WORKFLOW_ENV
from ctxres.filereading import FileTooLarge, NotRegularFile, read_regular
from ctxres.formats.document import JsonPath
from ctxres.formats.jsonpos import JsonPosError, parse_json
from ctxres.formats.loading import DEFAULT_MAX_BYTES, Format, Limits, load_file
from ctxres.formats.yamledit import EditError, append_item, set_key
from ctxres.formats.yamlguard import YamlGuardError
from ctxres.formats.yamlguard import load as guarded_load
from ctxres.project import inside
from ctxres.records import FrozenRecord, Record, init_field
from ctxres.state import checkpoints as cp
from ctxres.state import live
from ctxres.state.resumption import detect_version

# `ctxres check` loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

SECTION: JsonPath = ("resumption",)
OWNER: JsonPath = ("resumption", "compaction_events")
EVENTS: JsonPath = ("resumption", "compaction_events", "events")
RECOVERY: JsonPath = ("resumption", "recovery_state")


class AckError(Exception):
    """The merge is refused; nothing was changed. The message is one line for the user."""


class AckUsageError(AckError):
    """The request itself is wrong (no such file or checkpoint, a bad time)."""


class SectionError(AckError):
    """The orchestration file cannot take the merge; the message is about that file (without its name)."""


class Step(FrozenRecord):
    """One checkpoint merged: what happened to it and its new text."""

    __slots__ = ("appended", "checkpoint", "event_id", "json_text", "reference")

    checkpoint: Path
    reference: str
    event_id: str
    appended: bool
    json_text: str

    def __init__(self, checkpoint: Path, reference: str, event_id: str, appended: bool, json_text: str) -> None:
        init_field(self, "checkpoint", checkpoint)
        init_field(self, "reference", reference)
        init_field(self, "event_id", event_id)
        init_field(self, "appended", appended)
        init_field(self, "json_text", json_text)


class Plan(Record):
    """Everything one ``ctxres ack`` run will write."""

    __slots__ = ("count_after", "count_before", "new_text", "old_text", "orchestration", "stamps", "steps")

    orchestration: Path
    old_text: str
    new_text: str
    steps: list[Step]
    count_before: int | None
    count_after: int | None
    stamps: list[Stamp]  # every file as it was read: none is replaced if one changed since

    def __init__(
        self,
        orchestration: Path,
        old_text: str,
        new_text: str,
        steps: list[Step] | None = None,
        count_before: int | None = None,
        count_after: int | None = None,
        stamps: list[Stamp] | None = None,
    ) -> None:
        self.orchestration = orchestration
        self.old_text = old_text
        self.new_text = new_text
        self.steps = [] if steps is None else steps
        self.count_before = count_before
        self.count_after = count_after
        self.stamps = [] if stamps is None else stamps


# --- pure: the texts ----------------------------------------------------------------------------


def event_for(checkpoint: cp.CheckpointView, reference: str, now: str) -> dict[str, Any]:
    """The compaction event recording ``checkpoint`` (field order as in the protocol)."""
    assert checkpoint.number is not None
    return {
        "id": cp.section_id(checkpoint.number),
        "timestamp": checkpoint.timestamp,
        "trigger": checkpoint.trigger,
        "estimated_fill_before": checkpoint.fill,
        "active_phase": checkpoint.phase,
        "active_gate": checkpoint.gate,
        "active_gate_iteration": checkpoint.gate_iteration,
        "checkpoint_file": reference,
        "acknowledged": True,
        "acknowledged_at": now,
    }


def _load(text: str) -> Any:
    try:
        return guarded_load(text)  # never crashes on deep nesting; refuses alias bombs
    except YamlGuardError as exc:
        raise SectionError(f"cannot be read: {exc.message}") from None
    except RecursionError:
        raise SectionError("cannot be read: the document is nested too deeply") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        problem = str(getattr(exc, "problem", None) or exc).splitlines()[0]  # one line, always
        raise SectionError(f"does not parse as YAML{where}: {problem}") from None
    except (ValueError, TypeError) as exc:  # a tagged value that cannot be built, such as `!!int x`
        raise SectionError(f"cannot be read: a tagged value is invalid ({exc})") from None


def section_of(text: str) -> dict[str, Any]:
    """The v2.0 resumption section of an orchestration file's text; :class:`AckError` otherwise."""
    data = _load(text)
    section = data.get("resumption") if isinstance(data, dict) else None
    if not isinstance(section, dict):
        raise SectionError("has no `resumption:` section to merge into")
    if detect_version(section) != "2.0":
        raise SectionError("has a v1.0 resumption section, which cannot record compactions")
    return section


def shaped_events(section: dict[str, Any]) -> list[tuple[int, dict[str, Any]]]:
    """(index, event) for the entries of ``compaction_events.events`` that are mappings with an ``id``."""
    owner = section.get("compaction_events")
    events = owner.get("events") if isinstance(owner, dict) else None
    if not isinstance(events, list):
        return []
    return [(i, e) for i, e in enumerate(events) if isinstance(e, dict) and "id" in e]


def next_event_number(section: dict[str, Any]) -> int:
    """The number the next compaction event takes: one after the highest ``CX-NNN`` (1 when none)."""
    numbers = [n for _, e in shaped_events(section) if (n := cp.number_of_id(e.get("id"))) is not None]
    return max(numbers, default=0) + 1


def _updated_at(text: str, section: dict[str, Any], now: str) -> str:
    recovery = section.get("recovery_state")
    if not isinstance(recovery, dict):
        raise SectionError("has no `recovery_state` mapping whose `updated_at` the merge must advance")
    current, moment = cp.parse_time(_as_text(recovery.get("updated_at"))), cp.parse_time(now)
    if current is not None and moment is not None and current >= moment:
        return text  # never move the time backwards
    return set_key(text, RECOVERY, "updated_at", now)


def _as_text(value: Any) -> Any:
    return cp.format_time(value) if isinstance(value, datetime) else value


def append_event(text: str, event: dict[str, Any], now: str) -> tuple[str, int]:
    """``text`` with ``event`` appended, ``count`` set to the number of events and ``updated_at``
    advanced to ``now``; also the new count. Pure."""
    section = section_of(text)
    owner = section.get("compaction_events")
    if owner is None:
        text = set_key(text, SECTION, "compaction_events", {"count": 1, "events": [event]})
        return _updated_at(text, section, now), 1
    if not isinstance(owner, dict):
        raise SectionError("has a `compaction_events` that is not a mapping; make it `{count: 0, events: []}`")
    events = owner.get("events")
    if "events" not in owner:
        text = set_key(text, OWNER, "events", [event])
    elif isinstance(events, list):
        text = append_item(text, EVENTS, event)
    else:
        raise SectionError("has a `compaction_events.events` that is not a list; make it a list (`events: []`)")
    count = len(events or []) + 1
    text = set_key(text, OWNER, "count", count)
    return _updated_at(text, section, now), count


def acknowledge_event(text: str, index: int, now: str) -> str:
    """``text`` with the event at ``index`` marked acknowledged at ``now`` (and ``updated_at`` advanced)."""
    section = section_of(text)
    text = set_key(text, (*EVENTS, index), "acknowledged", True)
    text = set_key(text, (*EVENTS, index), "acknowledged_at", now)
    return _updated_at(text, section, now)


def acknowledge_json(text: str, at: str) -> str:
    """Checkpoint JSON ``text`` with ``metadata.acknowledged`` true and ``metadata.acknowledged_at``
    set to ``at``, every other byte unchanged (re-serialized only if the layout defeats that)."""
    try:
        parsed = parse_json(text)
    except JsonPosError as exc:
        raise AckError(f"is not valid JSON: {exc.message}") from None
    metadata = parsed.data.get("metadata") if isinstance(parsed.data, dict) else None
    if not isinstance(metadata, dict) or ("metadata", "acknowledged") not in parsed.value_pos:
        raise AckError("has no `metadata.acknowledged` to set")
    starts = [0] + [i + 1 for i, ch in enumerate(text) if ch == "\n"]

    def offset(path: JsonPath, *, key: bool = False) -> int:
        pos = (parsed.key_pos if key else parsed.value_pos)[path]
        return starts[pos.line - 1] + pos.col - 1

    def span(path: JsonPath) -> tuple[int, int]:
        start = offset(path)
        return start, json.JSONDecoder().raw_decode(text, start)[1]

    edits: list[tuple[int, int, str]] = [(*span(("metadata", "acknowledged")), "true")]
    stamp = json.dumps(at)
    if ("metadata", "acknowledged_at") in parsed.value_pos:
        edits.append((*span(("metadata", "acknowledged_at")), stamp))
    else:
        key_at = offset(("metadata", "acknowledged"), key=True)
        line_start = starts[bisect_right(starts, key_at) - 1]
        indent = text[line_start:key_at]
        line_end = text.find("\n", key_at)
        newline = "\r\n" if line_end > 0 and text[line_end - 1] == "\r" else "\n"  # a CRLF file stays CRLF
        glue = f",{newline}{indent}" if not indent.strip() else ", "
        end = edits[0][1]
        edits.append((end, end, f'{glue}"acknowledged_at": {stamp}'))
    new = text
    for start, end, replacement in sorted(edits, reverse=True):
        new = new[:start] + replacement + new[end:]
    check = json.loads(new)
    if check.get("metadata", {}).get("acknowledged") is not True or check["metadata"].get("acknowledged_at") != at:
        data = json.loads(text)
        data["metadata"].update(acknowledged=True, acknowledged_at=at)
        new = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
        if "\r\n" in text:
            new = new.replace("\n", "\r\n")
    return new


# --- reading: which checkpoints, which file -----------------------------------------------------


class Candidate(FrozenRecord):
    """A checkpoint file and what it says (``problem`` when it cannot be read)."""

    __slots__ = ("path", "problem", "view")

    path: Path
    view: cp.CheckpointView | None
    problem: str | None

    def __init__(self, path: Path, view: cp.CheckpointView | None, problem: str | None = None) -> None:
        init_field(self, "path", path)
        init_field(self, "view", view)
        init_field(self, "problem", problem)


def read_candidate(path: Path) -> Candidate:
    try:
        return Candidate(path, cp.read(path))
    except cp.CheckpointError as exc:
        return Candidate(path, None, str(exc))


def pending(state_dir: Path) -> tuple[list[Candidate], int]:
    """Checkpoints of ``state_dir`` waiting to be merged, by number; and how many were skipped
    because they are in another tool's layout (which has no acknowledgement to record)."""
    waiting, skipped = [], 0
    for path in cp.list_checkpoints(state_dir):
        candidate = read_candidate(path)
        if candidate.view is not None and candidate.view.layout == cp.PEER:
            skipped += 1
        elif candidate.view is None or candidate.view.acknowledged is not True:
            waiting.append(candidate)
    return waiting, skipped


def _is_ours(path: Path) -> bool:
    view = read_candidate(path).view
    return view is not None and view.layout == cp.SEED


def find_checkpoint(spec: str, state_dir: Path, root: Path, cwd: Path) -> Path:
    """The checkpoint named by ``spec``: a path (from ``cwd`` or the project root), or an id
    (``cx-002``, ``CX-002``, ``2``) of a checkpoint in ``state_dir``."""
    for base in (cwd, root):
        candidate = base / spec
        if candidate.is_file():
            return candidate.resolve()
    number = cp.number_of_id(spec) if not spec.isdigit() else int(spec)
    if number is not None:
        matches = [p for p in cp.list_checkpoints(state_dir) if cp.number_of_name(p.name) == number]
        ours = [p for p in matches if _is_ours(p)]
        if len(matches) == 1 or len(ours) == 1:
            return (ours or matches)[0]
    where = cp.relative_reference(cp.checkpoints_dir(state_dir), root)
    raise AckUsageError(f"no checkpoint {spec!r}: give a path or an id such as cx-002 (looked in {where}/)")


def read_workflow(path: str, max_bytes: int = DEFAULT_MAX_BYTES) -> Any:
    """The parsed data of a workflow file (the reader :func:`ctxres.state.live.find_live_workflow`
    takes); :class:`~ctxres.state.live.WorkflowReadError` when it cannot be read or parsed, with the
    reason at its line and column."""
    result = load_file(path, "orchestration", Format.YAML, Limits(max_bytes=max_bytes))
    if result.document is not None:
        return result.document.data
    issue = result.issues[0] if result.issues else None
    if issue is None:
        raise live.WorkflowReadError("it cannot be parsed")
    from ctxres.formats.conflicts import RESOLVE, is_conflict

    if is_conflict(issue.message):  # it names its line; the command says what to run next
        raise live.WorkflowReadError(f"{issue.message}: {RESOLVE}")
    raise live.WorkflowReadError(f"{issue.message.rstrip('.')} at line {issue.position.line}:{issue.position.col}")


def live_workflow(root: Path, config: Config) -> live.WorkflowChoice | None:
    """The live workflow of the project at ``root``, chosen as the hooks choose it
    (:func:`ctxres.state.live.find_live_workflow` over the configured ``orchestration`` patterns;
    a file that a symlink takes out of the project is skipped, as the hooks skip it). None when
    there is none; :class:`~ctxres.state.live.UnreadableWorkflow` when the live one cannot be read
    (the command says so rather than act on an older workflow). ``choice.note()`` says which file and why,
    in the words every command uses."""

    def stays_inside(path: str) -> bool:
        return inside(Path(path), root)

    return live.find_live_workflow(
        str(root),
        lambda path: read_workflow(path, config.max_file_size),
        patterns=config.patterns["orchestration"],
        accept=stays_inside,
        pinned=config.pinned_workflow,
        pinned_by=config.pinned_by,
    )


def workflows_outside(root: Path, config: Config) -> list[Path]:
    """Workflow files under ``root`` that a symlink takes out of the project: :func:`live_workflow`
    skips them (as the hooks do), so a command can say why such a file was not used."""
    files = live.workflow_files(str(root), config.patterns["orchestration"])
    return [Path(path) for path in files if not inside(Path(path), root)]


def no_live_workflow(root: Path, config: Config | None = None) -> str:
    """Why :func:`live_workflow` found nothing: the core's sentence, or what is wrong with the file
    ``$CTXRES_ORCHESTRATION`` names or the ``live-workflow`` setting pins (there is no search then)."""
    named = os.environ.get(WORKFLOW_ENV)
    if named:
        return f"${WORKFLOW_ENV} names {named}, which is not a readable workflow file inside the project {root}"
    pinned = config.pinned_workflow if config is not None else None
    if config is not None and pinned is not None:
        shown = os.path.relpath(pinned, root).replace(os.sep, "/")
        return f"{config.pinned_by} names {shown}, which is not a readable workflow file inside the project {root}"
    return live.no_live_workflow(str(root))


# --- the plan -----------------------------------------------------------------------------------


def _refuse_unusable(candidate: Candidate, shown: str) -> cp.CheckpointView:
    if candidate.view is None:
        raise AckError(f"{shown} {candidate.problem}: fix or remove it, then run ctxres ack again")
    checkpoint = candidate.view
    if checkpoint.acknowledged is True:
        raise AckError(f"{shown} is already acknowledged (at {checkpoint.acknowledged_at}): nothing to merge")
    missing = cp.missing_for_event(checkpoint)
    if missing:
        layout = " is in another tool's layout (checkpoint_id, created_at) and" if checkpoint.layout == cp.PEER else ""
        raise AckError(f"{shown}{layout} cannot be merged: it lacks {', '.join(missing)}")
    return checkpoint


def _referencing(
    section: dict[str, Any], path: Path, orchestration: Path, root: Path
) -> tuple[int, dict[str, Any]] | None:
    for index, event in shaped_events(section):
        reference = event.get("checkpoint_file")
        if not isinstance(reference, str) or cp.reference_problem(reference):
            continue
        resolved = cp.resolve_reference(reference, orchestration, root)
        if resolved is not None and resolved.resolve() == path.resolve():
            return index, event
    return None


def _step(
    text: str,
    candidate: Candidate,
    orchestration: Path,
    root: Path,
    now: str,
    waiting: Sequence[Path],
    stamps: list[Stamp],
) -> tuple[str, Step]:
    shown = cp.relative_reference(candidate.path, root)
    checkpoint = _refuse_unusable(candidate, shown)
    assert checkpoint.number is not None
    happened, moment = cp.parse_time(checkpoint.timestamp), cp.parse_time(now)
    if happened is not None and moment is not None and moment < happened:
        raise AckError(f"the acknowledgement time {now} is before the compaction of {shown} ({checkpoint.timestamp})")
    if not inside(candidate.path, root):
        raise AckError(f"{shown} is outside the repository {root}: the section can only point inside it")
    number = checkpoint.number
    by_name = cp.number_of_name(candidate.path.name)
    if by_name is not None and by_name != number:
        raise AckError(f"{shown} is named for {cp.file_id(by_name)} but its id is {checkpoint.id}: correct one of them")
    section = section_of(text)
    existing = _referencing(section, candidate.path, orchestration, root)
    json_text = read_text_stamped(candidate.path, stamps)

    def acknowledged(at: str) -> str:
        try:
            return acknowledge_json(json_text, at)
        except AckError as exc:
            raise AckError(f"{shown} {exc}") from None

    if existing is not None:
        index, event = existing
        if cp.number_of_id(event.get("id")) != number:
            raise AckError(f"event {event.get('id')} points to {shown}, whose id is {checkpoint.id}: correct the id")
        at = event.get("acknowledged_at")
        if event.get("acknowledged") is True:
            stamp = _as_text(at) if isinstance(_as_text(at), str) else now
            return text, Step(candidate.path, shown, cp.section_id(number), False, acknowledged(stamp))
        text = acknowledge_event(text, index, now)
        return text, Step(candidate.path, shown, cp.section_id(number), False, acknowledged(now))
    for _, event in shaped_events(section):
        if cp.number_of_id(event.get("id")) == number:
            raise AckError(
                f"event {cp.section_id(number)} already exists, but its checkpoint_file "
                f"({event.get('checkpoint_file')}) does not point to {shown}: correct that path "
                "(`ctxres check` says what is wrong with it), then run ctxres ack again"
            )
    expected = cp.next_own_number(next_event_number(section) - 1, cp.other_writers_numbers(candidate.path.parent))
    if number != expected:
        raise AckError(_order_message(shown, number, expected, waiting))
    text, _ = append_event(text, event_for(checkpoint, shown, now), now)
    return text, Step(candidate.path, shown, cp.section_id(number), True, acknowledged(now))


def _order_message(shown: str, number: int, expected: int, waiting: Sequence[Path]) -> str:
    if number > expected:
        first = next((p for p in waiting if cp.number_of_name(p.name) == expected), None)
        hint = (
            f"merge {first.name} first (`ctxres ack --all` merges them in order)"
            if first
            else f"no checkpoint file of {cp.section_id(expected)} is waiting; add that event by hand"
        )
        return (
            f"{shown} would become {cp.section_id(number)}, but the next compaction event is "
            f"{cp.section_id(expected)}: {hint}"
        )
    return (
        f"{shown} is older than the section's last compaction event {cp.section_id(expected - 1)} and no event "
        "points to it: add its event by hand where it belongs"
    )


def read_text_stamped(path: Path, stamps: list[Stamp]) -> str:
    """The text of ``path`` with its line breaks as they are (CRLF stays CRLF); its stamp joins ``stamps``."""
    stamp = stamp_before_read(path)
    raw = path.read_bytes()
    stamps.append(stamp.seen(raw))
    return raw.decode("utf-8")


def read_orchestration(orchestration: Path, stamps: list[Stamp] | None = None) -> str:
    """The text of the file to merge into: :class:`SectionError` over the size limit (a hostile file is
    never read whole), :class:`AckUsageError` when it cannot be read. Its stamp (taken before the read)
    joins ``stamps``."""
    try:
        stamp = stamp_before_read(orchestration)
        raw = read_regular(orchestration, DEFAULT_MAX_BYTES)
        if stamps is not None:
            stamps.append(stamp.seen(raw))
        return raw.decode("utf-8")
    except NotRegularFile:  # a FIFO would block the read forever
        raise SectionError("is not a regular file (a named pipe or a device); not read") from None
    except FileTooLarge as exc:
        raise SectionError(f"is {exc.size:,} bytes, more than the limit of {DEFAULT_MAX_BYTES:,}; not read") from None
    except (OSError, ValueError) as exc:
        raise AckUsageError(f"cannot read {orchestration}: {getattr(exc, 'strerror', None) or exc}") from None


def plan(orchestration: Path, candidates: list[Candidate], root: Path, now: str, waiting: Sequence[Path] = ()) -> Plan:
    """The merge of ``candidates`` (in order) into ``orchestration``; :class:`AckError` if any step is
    refused. ``waiting`` lists every checkpoint not merged yet, to say which one must go first."""
    stamps: list[Stamp] = []
    old = read_orchestration(orchestration, stamps)
    text = old
    before = _count(section_of(old))
    result = Plan(orchestration, old, old, count_before=before)
    result.stamps = stamps
    waiting = [*waiting, *(c.path for c in candidates)]
    for candidate in candidates:
        try:
            text, step = _step(text, candidate, orchestration, root, now, waiting, stamps)
        except EditError as exc:
            raise SectionError(f"cannot be edited in place: {exc}") from None
        result.steps.append(step)
    result.new_text = text
    result.count_after = _count(section_of(text))
    return result


def _count(section: dict[str, Any]) -> int | None:
    owner = section.get("compaction_events")
    count = owner.get("count") if isinstance(owner, dict) else None
    return count if isinstance(count, int) and not isinstance(count, bool) else None


def write(result: Plan) -> None:
    """Write the orchestration file, then each checkpoint (each atomically).

    Every new content is on disk (in temporary files) before the first file is replaced, so a full
    disk or a read-only folder changes nothing. Just before the first rename every file is compared with
    what the plan read: when one changed (the session edited the section meanwhile),
    :class:`~ctxres.atomic.ChangedSinceRead` is raised and none is replaced. The section goes first: if
    the run stops in between, the event exists and the file is not yet marked, and the next
    ``ctxres ack`` completes exactly that.
    """
    files: list[tuple[Path | str, str | bytes]] = []
    if result.new_text != result.old_text:
        files.append((result.orchestration, result.new_text))
    files += [(step.checkpoint, step.json_text) for step in result.steps]
    write_all_atomic(files, expected=result.stamps)


ATTEMPTS = 5  # merges computed afresh when a file changed meanwhile, before ack gives up


def merge(make_plan: Callable[[], Plan], attempts: int = ATTEMPTS) -> Plan:
    """Plan and write; when a file changed between the read and the write, read everything again and
    merge on top of the change (the merge is deterministic). :class:`AckError` after ``attempts`` tries:
    the file keeps changing, and nothing was written."""
    for _ in range(attempts):
        result = make_plan()
        try:
            write(result)
        except ChangedSinceRead as exc:
            changed = exc.path
            continue
        return result
    raise AckError(
        f"{os.path.basename(changed)} changed while ack merged into it, {attempts} times in a row; nothing was "
        "written: run ctxres ack again once it is saved"
    )
