"""The checkpoints of a state folder as timeline events: when each was written, and when it was merged.

Every checkpoint file of ``<state dir>/checkpoints/`` (:mod:`ctxres.state.checkpoint_names`: ours
``cx-NNN.json``, an earlier release's ``cx-NNN-checkpoint.json``, another writer's ``cx-NNN.json`` or
``cx-NNN.<hash>.json`` in its *peer* layout) is read with :mod:`ctxres.state.checkpoints`. A file of that
name that carries none of a checkpoint's keys is another tool's: it is left alone, as the catalog leaves it.
A checkpoint that cannot be read is listed as skipped, with why.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ctxres.artifacts import CHECKPOINT_KEYS
from ctxres.linters.timeline.model import CheckpointMerged, CheckpointWritten, Event, Skipped, Trigger
from ctxres.state import checkpoints as cp
from ctxres.state.checkpoint_names import file_id
from ctxres.timestamps import as_utc

MARGIN = dt.timedelta(minutes=5)
"""How far before ``since`` and after ``until`` a checkpoint still belongs to the range: PreCompact writes
its checkpoint a moment before the compaction the transcript records, and clocks differ."""


_TIME_KEY = {cp.SEED: "timestamp", cp.PEER: "created_at"}


def _within(moment: dt.datetime | None, since: dt.datetime | None, until: dt.datetime | None) -> bool:
    if moment is None:
        return since is None and until is None  # a checkpoint without a time belongs to no range but "all"
    return (since is None or moment >= as_utc(since) - MARGIN) and (until is None or moment <= as_utc(until) + MARGIN)


def _is_checkpoint(data: Any) -> bool:
    """Whether parsed content is a checkpoint of either layout (it has one of a checkpoint's own keys)."""
    return isinstance(data, dict) and any(key in data for key in CHECKPOINT_KEYS)


def _trigger(view: cp.CheckpointView) -> Trigger:
    return "auto" if view.trigger == "auto" else "manual" if view.trigger == "manual" else "unknown"


def _read(path: Path) -> tuple[cp.CheckpointView | None, str]:
    """The view of a checkpoint file; None and why when it cannot be read, None and "" when it is not a
    checkpoint at all (another tool's file of the same name)."""
    try:
        if path.stat().st_size > cp.MAX_READ_BYTES:
            return None, f"is larger than {cp.MAX_READ_BYTES:,} bytes; not read"
        text = path.read_text("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return None, f"cannot be read ({getattr(exc, 'strerror', None) or exc})"
    try:
        data = cp.load(text)
    except cp.CheckpointError as exc:
        return None, str(exc)
    if not _is_checkpoint(data):
        return None, ""
    return cp.view(data), ""


def _events(path: Path, view: cp.CheckpointView, turn_at: Callable[[dt.datetime | None], int]) -> list[Event]:
    written = cp.parse_time(view.timestamp)
    merged = cp.parse_time(view.acknowledged_at) if view.acknowledged is True else None
    number = view.number if view.number is not None else cp.number_of_name(path.name)  # the id, else the name's
    ident = file_id(number) if number is not None else path.stem
    events: list[Event] = [CheckpointWritten(turn_at(written), written, ident, str(path), _trigger(view), merged)]
    if merged is not None:
        events.append(CheckpointMerged(turn_at(merged), merged, ident))
    return events


def checkpoint_events(
    state_dir: Path,
    *,
    since: dt.datetime | None,
    until: dt.datetime | None,
    turn_at: Callable[[dt.datetime | None], int],
) -> tuple[list[Event], list[Skipped]]:
    """Every checkpoint of ``state_dir``'s ``checkpoints/`` folder written within [``since`` - :data:`MARGIN`,
    ``until`` + :data:`MARGIN`] (either bound None: open), in time order: a :class:`CheckpointWritten` (its
    ``merged_at`` is ``metadata.acknowledged_at`` when ``ctxres ack`` merged it) and, for a merged one, a
    :class:`CheckpointMerged` at that time. Another writer's (peer) checkpoint records no merge: it stays
    unmerged. A checkpoint that cannot be read (not JSON, a merge conflict, too large) is a :class:`Skipped`
    with the file and why; a file of a checkpoint's name that is no checkpoint is left out."""
    events: list[Event] = []
    skipped: list[Skipped] = []
    for path in cp.list_checkpoints(state_dir):
        view, reason = _read(path)
        if view is None:
            if reason:
                skipped.append(Skipped(str(path), reason, 1))
            continue
        written = cp.parse_time(view.timestamp)
        if written is None and (since is not None or until is not None):
            skipped.append(Skipped(str(path), f"has no ISO-8601 `{_TIME_KEY[view.layout]}`: not placed in time", 1))
            continue
        if _within(written, since, until):
            events += _events(path, view, turn_at)
    floor = dt.datetime.min.replace(tzinfo=dt.timezone.utc)
    return sorted(events, key=lambda event: event.time or floor), skipped
