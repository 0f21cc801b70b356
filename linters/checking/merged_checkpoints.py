"""Compactions a merge dropped, and their restoration under the next free number (``ctxres renumber``).

Checkpoint names are numbers (``cx-NNN.json``, one numbering shared with any other writer of the folder),
so two clones that compact on two branches both write ``cx-002.json``: the merge is an add/add conflict,
and keeping one side (``git checkout --ours``) drops the other compaction without a trace in the files.
While a merge is in progress (``MERGE_HEAD``) or when ``HEAD`` is a merge commit, a checkpoint that both
sides have under the same name with different content, whose other-side content is in the result under
no name, is such a dropped compaction. :func:`dropped` finds them; :func:`plan` restores each under the
next free number with its compaction event (from the other side's resumption section, else built from
the checkpoint as ``ctxres ack`` builds it), through ``ctxres.ack``'s comment-preserving edits.

Contents are compared without their ids and acknowledgement (``event_id`` / ``checkpoint_id``,
``metadata``): a restored, renumbered and acknowledged checkpoint is still the compaction it was.
"""

from __future__ import annotations

import json
from pathlib import Path

from ctxres import ack, git
from ctxres.formats.conflicts import first_marker
from ctxres.records import Record
from ctxres.state import checkpoints as cp

# `ctxres check` loads this module (rule A013): its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_ID_KEYS = ("event_id", "checkpoint_id", "metadata")


class Dropped(Record):
    """A compaction of the other side that the merge result holds under no name."""

    __slots__ = ("name", "other_label", "other_rev", "ours", "theirs")

    name: str  # the file name both sides used (cx-002.json)
    ours: dict[str, Any]  # this side's checkpoint under that name
    theirs: dict[str, Any]  # the other side's, which no file holds now
    other_rev: str  # MERGE_HEAD or HEAD^2
    other_label: str  # how the message names the other side

    def __init__(
        self, name: str, ours: dict[str, Any], theirs: dict[str, Any], other_rev: str, other_label: str
    ) -> None:
        self.name = name
        self.ours = ours
        self.theirs = theirs
        self.other_rev = other_rev
        self.other_label = other_label

    def times(self) -> tuple[str, str]:
        """When each side compacted (the checkpoints' times), this side's first."""
        return str(cp.view(self.ours).timestamp), str(cp.view(self.theirs).timestamp)


def has_conflict_markers(text: str) -> bool:
    """Whether ``text`` still holds git's conflict markers (an unresolved merge)."""
    return first_marker(text) is not None


def merge_sides(root: Path) -> tuple[str, str, str] | None:
    """(this side, the other side, how to name it) of the merge in progress or of the merge commit HEAD;
    None when there is neither (or no git). One ``git cat-file`` process asks for both."""
    try:
        out = git.run(["cat-file", "--batch-check"], root, stdin=b"MERGE_HEAD\nHEAD^2\n").decode("utf-8", "replace")
    except git.GitError:
        return None
    kinds = [line.split()[1] if len(line.split()) == 3 else "missing" for line in out.splitlines()]
    merging, merged = [*kinds, "missing", "missing"][:2]
    if merging == "commit":
        return "HEAD", "MERGE_HEAD", "the branch being merged"
    if merged == "commit":
        return "HEAD^1", "HEAD^2", "HEAD^2"
    return None


def _tree(rev: str, folder: str, root: Path) -> dict[str, str]:
    """The checkpoint files of ``folder`` (relative to ``root``) at ``rev``: name -> blob id."""
    try:
        out = git.run(["ls-tree", "-z", rev, "--", f"{folder}/"], root)
    except git.GitError:
        return {}
    found = {}
    for entry in out.decode("utf-8", "replace").split("\0"):
        meta, _, path = entry.partition("\t")
        parts = meta.split()
        name = path.rsplit("/", 1)[-1]
        if len(parts) == 3 and parts[1] == "blob" and cp.number_of_name(name) is not None:
            found[name] = parts[2]
    return found


def _json(data: bytes | None) -> dict[str, Any] | None:
    try:
        loaded = json.loads(data or b"")
    except ValueError:
        return None
    return loaded if isinstance(loaded, dict) else None


def identity(data: dict[str, Any]) -> dict[str, Any]:
    """A checkpoint without its id and acknowledgement: what stays the same when it is renumbered."""
    return {key: value for key, value in data.items() if key not in _ID_KEYS}


def _present(folder: Path) -> list[dict[str, Any]]:
    found = []
    for path in cp.list_checkpoints(folder.parent):
        try:
            data = _json(path.read_bytes())
        except OSError:
            continue
        if data is not None:
            found.append(identity(data))
    return found


def dropped(root: Path, folder: Path, sides: tuple[str, str, str] | None = None) -> list[Dropped]:
    """The compactions of the other side of the merge that no checkpoint file of ``folder`` (a
    ``checkpoints`` folder under ``root``, the repository) holds now; empty when there is no merge.
    ``sides``: :func:`merge_sides` of ``root`` when the caller asked already (one git process a repository)."""
    sides = sides or merge_sides(root)
    if sides is None:
        return []
    ours_rev, theirs_rev, label = sides
    try:
        root = git.repo_root(root)  # the paths in `REV:path` are the work tree's
    except git.GitError:
        return []
    rel = git.repo_path(folder, root)
    ours, theirs = _tree(ours_rev, rel, root), _tree(theirs_rev, rel, root)
    shared = sorted(name for name in set(ours) & set(theirs) if ours[name] != theirs[name])
    if not shared:
        return []
    blobs = git.read_blobs([f"{rev}:{rel}/{name}" for name in shared for rev in (ours_rev, theirs_rev)], root)
    present = _present(folder)
    found = []
    for index, name in enumerate(shared):
        mine, other = _json(blobs[2 * index]), _json(blobs[2 * index + 1])
        if mine is None or other is None or cp.layout_of(other) != cp.SEED:
            continue  # another tool's file: its own numbering is its writer's affair
        if identity(other) not in present:
            found.append(Dropped(name, mine, other, theirs_rev, label))
    return found


def fix_command() -> str:
    return "ctxres renumber"


# --- restoring ----------------------------------------------------------------------------------


class Restored(Record):
    """One dropped compaction restored: its new file and content, and the event id it gets."""

    __slots__ = ("event_id", "json_text", "name", "path", "source")

    name: str  # the name both sides used
    path: Path  # where it is restored
    json_text: str
    event_id: str
    source: str  # where its event came from

    def __init__(self, name: str, path: Path, json_text: str, event_id: str, source: str) -> None:
        self.name = name
        self.path = path
        self.json_text = json_text
        self.event_id = event_id
        self.source = source


def _other_event(item: Dropped, orchestration: Path, root: Path) -> dict[str, Any] | None:
    """The other side's compaction event of ``item`` (by the file it points to), from its workflow file."""
    rel = git.repo_path(orchestration, root)
    [blob] = git.read_blobs([f"{item.other_rev}:{rel}"], root)
    try:
        section = ack.section_of((blob or b"").decode("utf-8", "replace"))
    except ack.AckError:
        return None
    for _, event in ack.shaped_events(section):
        reference = event.get("checkpoint_file")
        if isinstance(reference, str) and reference.rsplit("/", 1)[-1] == item.name:
            return dict(event)
    return None


def plan(
    orchestration: Path, root: Path, folder: Path, items: list[Dropped], now: str
) -> tuple[ack.Plan, list[Restored]]:
    """The section with an event for each dropped compaction and the files that restore them, under the
    next free numbers; :class:`~ctxres.ack.AckError` when the workflow file cannot take them."""
    old = ack.read_orchestration(orchestration)
    if has_conflict_markers(old):
        raise ack.AckError(
            f"{git.repo_path(orchestration, root)} still has conflict markers: resolve its merge conflict first "
            "(keep this side's compaction events), then run `ctxres renumber` again"
        )
    text = old
    taken = {n for n in (cp.number_of_name(p.name) for p in cp.list_checkpoints(folder.parent)) if n is not None}
    result = ack.Plan(orchestration, old, old, count_before=ack._count(ack.section_of(old)))
    restored = []
    for item in items:
        number = max([*taken, ack.next_event_number(ack.section_of(text)) - 1]) + 1
        taken.add(number)
        path = folder / cp.file_name(number)
        reference = cp.relative_reference(path, root)
        data = dict(item.theirs)
        data["event_id"] = cp.file_id(number)
        event = _other_event(item, orchestration, root)
        source = f"{item.other_label}'s resumption section"
        if event is None:
            source = "the checkpoint"
            view = cp.view(data)
            if cp.missing_for_event(view):
                raise ack.AckError(f"{item.name} of {item.other_label} lacks {', '.join(cp.missing_for_event(view))}")
            at = view.acknowledged_at if view.acknowledged else now
            event = ack.event_for(view, reference, str(at))
            data.setdefault("metadata", {}).update(acknowledged=True, acknowledged_at=at)
        event.update(id=cp.section_id(number), checkpoint_file=reference)
        text, _ = ack.append_event(text, event, now)
        restored.append(
            Restored(item.name, path, json.dumps(data, indent=2, ensure_ascii=False) + "\n", event["id"], source)
        )
    result.new_text = text
    result.count_after = ack._count(ack.section_of(text))
    result.steps = [
        ack.Step(r.path, cp.relative_reference(r.path, root), r.event_id, True, r.json_text) for r in restored
    ]
    return result, restored
