"""Checkpoint file names: the one definition of their pattern, their numbers, and their listing.

``<state_dir>/checkpoints/cx-NNN.json`` is what the PreCompact hook writes; another tool may write
``cx-NNN.json`` or ``cx-NNN.<hash>.json`` into the same folder, and the previous release of the hook
wrote ``cx-NNN-checkpoint.json`` (the seed's name, still read). All are checkpoints; the number is at
least three ASCII digits. The resumption section records the same compaction as ``CX-NNN``.

Every name the hook creates parses with ``int(name[3:-5])``: a writer that numbers its files so over
every ``cx-*.json`` keeps working whichever writer came first, and both share one numbering (the
content tells whose a file is, see ``ctxres.state.checkpoints.layout_of``).

Everything here works on ``str`` paths and imports only ``os`` and ``re``: the hooks list the
checkpoints on every prompt (``ctxres.state.checkpoints`` adds the ``pathlib`` view for the linters).
"""

from __future__ import annotations

import os

# A hook loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Iterable

CHECKPOINTS_FOLDER = "checkpoints"
"""The folder of the state directory that holds the checkpoint files."""
FILE_GLOB = "cx-[0-9][0-9][0-9]*.json"
"""The file pattern of a checkpoint (the configured default of ``[tool.ctxres.patterns] checkpoint``)."""

# cx-001-checkpoint.json (seed), cx-001.json and cx-001.d933ffb7.json (peer). Parsed with string
# operations, not a regular expression: every hook lists checkpoints, and compiling costs start-up.
_PREFIX, _SUFFIX, _SEED_TAIL = "cx-", ".json", "-checkpoint"


def _number(digits: str) -> int | None:
    return int(digits) if len(digits) >= 3 and digits.isascii() and digits.isdigit() else None


def number_of_name(name: str) -> int | None:
    """The compaction number in a checkpoint file name (``cx-007-checkpoint.json``, ``cx-007.json``,
    ``cx-007.d933ffb7.json`` -> 7); None for any other name."""
    if not (name.startswith(_PREFIX) and name.endswith(_SUFFIX)):
        return None
    stem = name[len(_PREFIX) : -len(_SUFFIX)]
    if stem.endswith(_SEED_TAIL):
        return _number(stem[: -len(_SEED_TAIL)])
    digits, dot, tag = stem.partition(".")
    if dot and not (tag.isascii() and tag.isalnum()):
        return None
    return _number(digits)


def number_of_id(event_id: object) -> int | None:
    """The number in a compaction id, either case (``cx-007`` or ``CX-007`` -> 7); None otherwise."""
    if not isinstance(event_id, str):
        return None
    text = event_id.strip()
    return _number(text[len(_PREFIX) :]) if text[: len(_PREFIX)].lower() == _PREFIX else None


def file_id(number: int) -> str:
    """The id a checkpoint file carries: ``cx-007``."""
    return f"cx-{number:03d}"


def section_id(number: int) -> str:
    """The id of the compaction event in the resumption section: ``CX-007``."""
    return file_id(number).upper()


def file_name(number: int) -> str:
    """The name of the checkpoint file to write: ``cx-007.json``."""
    return f"{file_id(number)}.json"


def renumbered(name: str, number: int) -> str:
    """The checkpoint file name ``name`` with ``number`` in place of its own, in the same layout
    (``cx-002.json`` -> ``cx-005.json``); :func:`file_name` when ``name`` is no checkpoint's."""
    if number_of_name(name) is None:
        return file_name(number)
    stem = name[len(_PREFIX) :]
    digits = len(stem) - len(stem.lstrip("0123456789"))
    return file_id(number) + stem[digits:]


def is_seed_name(name: str) -> bool:
    """Whether ``name`` is a checkpoint name in the previous release's layout (``cx-007-checkpoint.json``),
    which another writer's ``int()`` numbering cannot read."""
    return number_of_name(name) is not None and name.endswith(_SEED_TAIL + _SUFFIX)


def next_number(names: Iterable[str]) -> int:
    """The first number after every checkpoint named in ``names`` (1 when there is none)."""
    numbers = [n for n in (number_of_name(name) for name in names) if n is not None]
    return max(numbers, default=0) + 1


def list_checkpoints(folder: str) -> list[str]:
    """The checkpoint files of ``folder`` (the ``checkpoints`` folder itself), by number then name;
    empty when there is none or the folder cannot be read."""
    try:
        with os.scandir(folder) as entries:
            numbered = []
            for entry in entries:
                number = number_of_name(entry.name)
                if number is not None and entry.is_file():
                    numbered.append((number, entry.name))
    except OSError:
        return []
    return [os.path.join(folder, name) for _, name in sorted(numbered)]
