"""What ``ctxres migrate`` leaves in a file, and what it reads in a v1.0 section's prose.

The V rules (``ctxres check``) report the placeholders a migration wrote and compare the prose with
the fields; they import this module, not :mod:`ctxres.migration.migrate`, whose classes and patterns every
check would otherwise load at start-up.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ctxres.formats.document import JsonPath

# `ctxres check` loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

PLACEHOLDER = "<ctxres migrate: not inferred; set this>"
PLACEHOLDER_PREFIX = "<ctxres migrate:"


def is_placeholder(value: Any) -> bool:
    """True for a value that ``ctxres migrate`` wrote because it could not infer the real one."""
    return isinstance(value, str) and value.strip().startswith(PLACEHOLDER_PREFIX)


def placeholders(value: Any, path: JsonPath = ()) -> Iterator[JsonPath]:
    """Paths (below ``path``) of every placeholder value inside ``value``, in document order (found at once,
    without a generator per value: the linter asks it of every orchestration file's section, twice)."""
    found: list[JsonPath] = []
    _placeholders(value, path, found)
    return iter(found)


def _placeholders(value: Any, path: JsonPath, found: list[JsonPath]) -> None:
    if isinstance(value, str):
        if PLACEHOLDER_PREFIX in value and is_placeholder(value):
            found.append(path)
    elif isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, (str, dict, list)):
                _placeholders(item, (*path, key), found)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            if isinstance(item, (str, dict, list)):
                _placeholders(item, (*path, index), found)


_PROSE_STATUS = (
    (
        "COMPLETE",
        re.compile(r"\bworkflow[\s_]+(?:is[\s_]+)?(?:complete|completed|finished|done)\b|^\s*complete\b", re.I),
    ),
    ("FAILED", re.compile(r"^\s*failed\b|\bworkflow[\s_]+(?:has[\s_]+)?failed\b", re.I)),
    ("PAUSED", re.compile(r"^\s*paused\b|\bworkflow[\s_]+(?:is[\s_]+)?paused\b", re.I)),
    ("ACTIVE", re.compile(r"\bnot[\s_]+(?:yet[\s_]+)?started\b", re.I)),
)
_PROSE_PHASE = re.compile(r"\bphases?[\s_-]*(\d+)(?:\s*(?:-|–|to|through)\s*(\d+))?", re.I)


def status_from_prose(text: Any) -> str | None:
    """The lifecycle state a ``current_state`` text states explicitly, if exactly one.

    "WORKFLOW COMPLETE. ..." is COMPLETE, "FAILED - Phase 2 ..." is FAILED, "Workflow not
    started" is ACTIVE (set up, waiting for its first phase); "Phase 2 COMPLETE" says nothing
    about the workflow.
    """
    if not isinstance(text, str):
        return None
    found = {status for status, pattern in _PROSE_STATUS if pattern.search(text)}
    return found.pop() if len(found) == 1 else None


def phases_in_prose(text: Any) -> frozenset[int]:
    """Phase numbers a text mentions ("Phase 3", "PHASE_2_READY", "Phases 1-3")."""
    if not isinstance(text, str):
        return frozenset()
    numbers: set[int] = set()
    for match in _PROSE_PHASE.finditer(text):
        first = int(match.group(1))
        last = int(match.group(2)) if match.group(2) else first
        numbers.update(range(first, last + 1) if first <= last <= first + 20 else (first, last))
    return frozenset(numbers)
