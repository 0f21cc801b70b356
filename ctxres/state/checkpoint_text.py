"""A checkpoint file's text as JSON: the one reader and parser of it, for the hooks and
:mod:`ctxres.state.checkpoints` (the linters, ``ack``).

Standard library only, no pathlib/typing at run time: the hooks read checkpoints on their alert path.
"""

from __future__ import annotations

import json
import os

# A hook loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

MAX_CHECKPOINT_BYTES = 1024 * 1024  # a checkpoint is a few KB; a bigger file is reported, not read


class CheckpointUnreadable(Exception):
    """Why a checkpoint file cannot be read, one line after its path (``is empty``, ...)."""


def load_checkpoint(path: str) -> dict[str, Any]:
    """A checkpoint file's JSON object; :class:`CheckpointUnreadable` (the reason, one line) when it
    cannot be read. A symbolic link is refused (the hook never writes one; it may lead out of the project)."""
    if os.path.islink(path):
        raise CheckpointUnreadable("is a symbolic link, not read: a checkpoint is only read from a regular file")
    try:
        with open(os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)), "rb") as handle:
            raw = handle.read(MAX_CHECKPOINT_BYTES + 1)
    except OSError as exc:
        raise CheckpointUnreadable(f"cannot be read ({exc.strerror or exc})") from None
    if len(raw) > MAX_CHECKPOINT_BYTES:
        raise CheckpointUnreadable(f"is larger than {MAX_CHECKPOINT_BYTES:,} bytes")
    if not raw.strip():
        raise CheckpointUnreadable("is empty")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise CheckpointUnreadable("is not UTF-8 text") from None
    return json_object(text)


def json_object(text: str) -> dict[str, Any]:
    """The JSON object of a checkpoint's text; :class:`CheckpointUnreadable` (one line) otherwise. The one
    parser of checkpoint text: the hooks and ``ctxres.state.checkpoints`` (the linters, ``ack``) use it."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        from ctxres.formats.conflicts import conflict_problem

        conflict = conflict_problem(text, again=False)
        if conflict is not None:
            raise CheckpointUnreadable(f"has an {conflict}") from None
        raise CheckpointUnreadable(f"is not valid JSON ({exc})") from None
    except RecursionError:  # hostile input: thousands of nested arrays or objects
        raise CheckpointUnreadable("is nested too deeply to read") from None
    if not isinstance(data, dict):
        raise CheckpointUnreadable("is not a JSON object")
    return data
