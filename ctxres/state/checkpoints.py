"""Checkpoint files: their names, where they are, and a read-only view of their content.

The PreCompact hook writes ``<state_dir>/checkpoints/cx-NNN.json`` before each compaction (seed
layout, ``schema_version`` 1.0.0; an earlier release named it ``cx-NNN-checkpoint.json``). Another
tool writes ``cx-NNN.json`` or ``cx-NNN.<hash>.json`` with other fields (peer layout: ``checkpoint_id``, ``created_at``,
``context_state.fill_percentage``, a copy of the resumption section). Both are accepted here;
:class:`CheckpointView` gives the few facts the rules, ``ctxres ack`` and the hooks need, whatever
the layout.

Standard library only (and ``ctxres.atomic``): the runtime hooks import this module.
"""

from __future__ import annotations

import os
import re
from datetime import datetime, timezone
from pathlib import Path

from ctxres.records import FrozenRecord, init_field
from ctxres.state.checkpoint_names import CHECKPOINTS_FOLDER as CHECKPOINTS_FOLDER  # the one definition, re-exported
from ctxres.state.checkpoint_names import file_id as file_id
from ctxres.state.checkpoint_names import file_name as file_name
from ctxres.state.checkpoint_names import list_checkpoints as _list_in
from ctxres.state.checkpoint_names import next_number as next_number
from ctxres.state.checkpoint_names import number_of_id as number_of_id
from ctxres.state.checkpoint_names import number_of_name as number_of_name
from ctxres.state.checkpoint_names import renumbered as renumbered
from ctxres.state.checkpoint_names import section_id as section_id
from ctxres.timestamps import parse_timestamp

# `ctxres check` loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

SEED, PEER = "seed", "peer"
MAX_READ_BYTES = 10 * 1024 * 1024  # as ctxres.formats.loading.DEFAULT_MAX_BYTES: a checkpoint is a few KB


class CheckpointError(ValueError):
    """A checkpoint file cannot be read; the message says why (one line)."""


# --- where they are -----------------------------------------------------------------------------


def checkpoints_dir(state_dir: Path) -> Path:
    return state_dir / CHECKPOINTS_FOLDER


def list_checkpoints(state_dir: Path) -> list[Path]:
    """The checkpoint files of a state folder, by number (then name); empty when there is none."""
    return [Path(path) for path in _list_in(str(checkpoints_dir(state_dir)))]


def other_writers_numbers(folder: Path) -> frozenset[int]:
    """The numbers the checkpoint files of ``folder`` (a ``checkpoints`` folder) in another tool's
    layout hold: the two writers share one numbering, so the section's events skip these numbers."""
    numbers = set()
    for path in _list_in(str(folder)):
        try:
            checkpoint = read(Path(path))
        except CheckpointError:
            continue
        number = number_of_name(os.path.basename(path))
        if checkpoint.layout == PEER and number is not None:
            numbers.add(number)
    return frozenset(numbers)


def next_own_number(after: int, others: frozenset[int]) -> int:
    """The number of the compaction event that follows ``after``, past the numbers in ``others`` (pure)."""
    number = after + 1
    while number in others:
        number += 1
    return number


def _ancestors(start: Path, root: Path) -> list[Path]:
    """``start``'s folder and its parents up to ``root`` (inclusive), nearest first."""
    here = start if start.is_dir() else start.parent
    chain = [here, *here.parents]
    if root in chain:
        return chain[: chain.index(root) + 1]
    return [here, root]


def find_state_dir(start: Path, root: Path, name: str) -> Path:
    """The state folder for a file: the nearest ``name`` folder at or above it, up to the project
    root; ``root / name`` when there is none yet."""
    start, root = start.resolve(), root.resolve()
    for folder in _ancestors(start, root):
        if (folder / name).is_dir():
            return folder / name
    return root / name


def reference_problem(reference: str) -> str | None:
    """Why a repository-relative path is not one: ``"absolute"``, ``"escapes"`` or None (pure)."""
    if reference.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:[\\/]", reference) or reference.startswith("~"):
        return "absolute"
    normal = os.path.normpath(reference.replace("\\", "/"))
    if normal == ".." or normal.startswith("../"):
        return "escapes"
    return None


def resolve_reference(reference: str, start: Path, root: Path) -> Path | None:
    """The existing file a repository-relative ``reference`` names: relative to the project root
    first, else to a folder between the referring file and the root (a workspace nested in a
    bigger repository); None when it names no file."""
    start, root = start.resolve(), root.resolve()
    for base in [root, *_ancestors(start, root)]:
        candidate = base / reference
        if candidate.is_file():
            return candidate
    return None


def relative_reference(path: Path, root: Path) -> str:
    """``path`` relative to the project root, with ``/`` separators."""
    return Path(os.path.relpath(path.resolve(), root.resolve())).as_posix()


# --- time ---------------------------------------------------------------------------------------


def parse_time(value: Any) -> datetime | None:
    """An ISO-8601 date-time (``Z``, offsets, any fraction, naive read as UTC); None when it is not one."""
    stamp = parse_timestamp(value) if isinstance(value, str) else None
    return stamp.instant if stamp is not None else None


def format_time(moment: datetime) -> str:
    """UTC, seconds precision, ``Z``: ``2026-02-17T11:45:00Z``."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


# --- content ------------------------------------------------------------------------------------


class CheckpointView(FrozenRecord):
    """What a checkpoint says, normalized across layouts; a field is None when absent or mistyped.

    ``acknowledged`` is None for the peer layout, which has no such field.
    """

    __slots__ = (
        "acknowledged",
        "acknowledged_at",
        "activity",
        "fill",
        "gate",
        "gate_iteration",
        "id",
        "layout",
        "number",
        "phase",
        "timestamp",
        "tokens",
        "trigger",
        "workflow_id",
        "workflow_status",
    )

    layout: str
    id: str | None
    number: int | None
    timestamp: str | None
    acknowledged: bool | None
    acknowledged_at: str | None
    fill: float | None
    tokens: int | None
    trigger: str | None
    phase: int | None
    gate: str | None
    gate_iteration: int | None
    workflow_id: str | None
    activity: str | None
    workflow_status: str | None

    def __init__(
        self,
        layout: str,
        id: str | None,
        number: int | None,
        timestamp: str | None,
        acknowledged: bool | None,
        acknowledged_at: str | None,
        fill: float | None,
        tokens: int | None,
        trigger: str | None,
        phase: int | None,
        gate: str | None,
        gate_iteration: int | None,
        workflow_id: str | None,
        activity: str | None = None,
        workflow_status: str | None = None,
    ) -> None:
        init_field(self, "layout", layout)
        init_field(self, "id", id)
        init_field(self, "number", number)
        init_field(self, "timestamp", timestamp)
        init_field(self, "acknowledged", acknowledged)
        init_field(self, "acknowledged_at", acknowledged_at)
        init_field(self, "fill", fill)
        init_field(self, "tokens", tokens)
        init_field(self, "trigger", trigger)
        init_field(self, "phase", phase)
        init_field(self, "gate", gate)
        init_field(self, "gate_iteration", gate_iteration)
        init_field(self, "workflow_id", workflow_id)
        init_field(self, "activity", activity)
        init_field(self, "workflow_status", workflow_status)


def _get(data: Any, *path: str) -> Any:
    for part in path:
        if not isinstance(data, dict):
            return None
        data = data.get(part)
    return data


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _num(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _bool(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None


def layout_of(data: Any) -> str:
    """``"peer"`` for the ``checkpoint_id`` layout, else ``"seed"``."""
    return PEER if isinstance(data, dict) and "checkpoint_id" in data and "event_id" not in data else SEED


def view(data: Any) -> CheckpointView:
    """The normalized view of parsed checkpoint data (pure; never raises)."""
    if layout_of(data) == PEER:
        resumption = _get(data, "resumption_state")
        ident = _str(_get(data, "checkpoint_id"))
        return CheckpointView(
            layout=PEER,
            id=ident,
            number=number_of_id(ident),
            timestamp=_str(_get(data, "created_at")),
            acknowledged=None,
            acknowledged_at=None,
            fill=_num(_get(data, "context_state", "fill_percentage")),
            tokens=_int(_get(data, "context_state", "token_count")),
            trigger=None,
            phase=_int(_get(resumption, "recovery_state", "current_phase")),
            gate=_str(_get(resumption, "quality_trajectory", "current_gate")),
            gate_iteration=_int(_get(resumption, "quality_trajectory", "current_gate_iteration")),
            workflow_id=None,
            activity=_str(_get(resumption, "recovery_state", "current_activity")),
            workflow_status=_str(_get(resumption, "recovery_state", "workflow_status")),
        )
    ident = _str(_get(data, "event_id"))
    trigger = _str(_get(data, "trigger", "type"))
    return CheckpointView(
        layout=SEED,
        id=ident,
        number=number_of_id(ident),
        timestamp=_str(_get(data, "timestamp")),
        acknowledged=_bool(_get(data, "metadata", "acknowledged")),
        acknowledged_at=_str(_get(data, "metadata", "acknowledged_at")),
        fill=_num(_get(data, "context_state", "estimated_fill_before_compaction")),
        tokens=_int(_get(data, "context_state", "estimated_tokens_used")),
        trigger=trigger if trigger in ("auto", "manual") else None,
        phase=_int(_get(data, "orchestration_state", "current_phase")),
        gate=_str(_get(data, "orchestration_state", "current_gate")),
        gate_iteration=_int(_get(data, "orchestration_state", "current_gate_iteration")),
        workflow_id=_str(_get(data, "orchestration_state", "workflow_id")),
        activity=_str(_get(data, "orchestration_state", "current_activity")),
        workflow_status=_str(_get(data, "orchestration_state", "workflow_status")),
    )


def load(text: str) -> Any:
    """Parse checkpoint text; a JSON object, else :class:`CheckpointError`."""
    from ctxres.state.checkpoint_text import CheckpointUnreadable, json_object

    try:
        return json_object(text)
    except CheckpointUnreadable as exc:
        raise CheckpointError(str(exc)) from None


def read(path: Path) -> CheckpointView:
    """The view of the checkpoint file at ``path``; :class:`CheckpointError` when it cannot be read."""
    try:
        if path.stat().st_size > MAX_READ_BYTES:  # never read a hostile 100 MB file whole
            raise CheckpointError(f"is larger than {MAX_READ_BYTES:,} bytes; not read")
        text = path.read_text("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CheckpointError(f"cannot be read ({getattr(exc, 'strerror', None) or exc})") from None
    return view(load(text))


def missing_for_event(checkpoint: CheckpointView) -> list[str]:
    """What a checkpoint lacks to become a compaction event of the resumption section (empty: nothing)."""
    missing = []
    if checkpoint.number is None:
        missing.append("an id `cx-NNN` (event_id)" if checkpoint.layout == SEED else "an id `cx-NNN` (checkpoint_id)")
    if parse_time(checkpoint.timestamp) is None:
        missing.append("an ISO-8601 `timestamp`" if checkpoint.layout == SEED else "an ISO-8601 `created_at`")
    if checkpoint.trigger is None:
        missing.append(
            '`trigger.type` ("auto" or "manual")' if checkpoint.layout == SEED else "a trigger (auto/manual)"
        )
    if checkpoint.acknowledged is None:
        missing.append(
            "`metadata.acknowledged` (true/false)"
            if checkpoint.layout == SEED
            else "a `metadata.acknowledged` flag to record the merge"
        )
    return missing
