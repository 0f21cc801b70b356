"""When a workflow file says it was last updated: the *content time* that ranks live workflows.

git keeps no modification times, so two clones of one commit must rank a project's live workflows
from what the files say. A workflow file records two update times:

* the workflow's own: ``workflow.updated_at`` (what real files write), ``workflow.last_updated``,
  or the same keys at the top level of the file;
* its resumption section's: ``resumption.recovery_state.updated_at`` (the v2.0 section), or
  ``resumption.updated_at`` / ``resumption.last_updated`` (a v1.0 section that records one).

The content time is the newest of those that are real times (``ctxres.timestamps``: any ISO-8601
spelling, a zone offset, a date alone; compared as instants). A file that records none has no
content time.

The time is kept as a fixed-width UTC string (``2026-11-20T10:00:00.000000Z``) that sorts as the
instants do, so the hooks can rank cached candidates without importing ``datetime``. Pure: no I/O.
"""

from __future__ import annotations

# A hook loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

# (section, key) pairs read for the content time; section "" is the top level of the file.
WORKFLOW_TIME_KEYS = (
    ("workflow", "updated_at"),
    ("workflow", "last_updated"),
    ("", "updated_at"),
    ("", "last_updated"),
)
SECTION_TIME_KEYS = (("resumption", "updated_at"), ("resumption", "last_updated"))


def _values(data: dict[str, Any]) -> list[object]:
    found: list[object] = []
    for section, key in (*WORKFLOW_TIME_KEYS, *SECTION_TIME_KEYS):
        holder = data if not section else data.get(section)
        if isinstance(holder, dict) and key in holder:
            found.append(holder[key])
    resumption = data.get("resumption")
    recovery = resumption.get("recovery_state") if isinstance(resumption, dict) else None
    if isinstance(recovery, dict) and "updated_at" in recovery:
        found.append(recovery["updated_at"])
    return found


def sortable(value: object) -> str | None:
    """A time as a fixed-width UTC string that sorts as the instants do; None when it is not a real time."""
    from ctxres.timestamps import parse_datetime

    instant = parse_datetime(value)
    if instant is None:
        return None
    return (
        f"{instant.year:04d}-{instant.month:02d}-{instant.day:02d}T{instant.hour:02d}:{instant.minute:02d}:"
        f"{instant.second:02d}.{instant.microsecond:06d}Z"
    )


def content_time(data: object) -> str | None:
    """The newest update time a parsed workflow document records (see the module docstring), as
    :func:`sortable` writes it; None when it records none that is a real time."""
    if not isinstance(data, dict):
        return None
    times = [stamp for stamp in (sortable(value) for value in _values(data)) if stamp is not None]
    return max(times) if times else None


def shown(stamp: str) -> str:
    """``2026-11-20T10:00:00Z`` for a :func:`sortable` string (seconds; the fraction when there is one)."""
    seconds, _, fraction = stamp.rstrip("Z").partition(".")
    return f"{seconds}.{fraction.rstrip('0')}Z" if fraction.strip("0") else f"{seconds}Z"


_TIME_KEYS = frozenset({"updated_at", "last_updated"})
TEXT_SCAN_BYTES = 2 * 1024 * 1024  # a workflow file that cannot be parsed is scanned up to this size


def text_facts(text: str) -> tuple[str | None, str | None]:
    """What the text of a workflow file that cannot be parsed still says, line by line: its status word
    (``workflow_status:`` of the resumption section, else ``status:`` directly under the top-level
    ``workflow:``) and its newest update time (any ``updated_at``/``last_updated`` value, as
    :func:`sortable` writes it). Deterministic (the same text in every clone); None when not found."""
    section_status: str | None = None
    workflow_status: str | None = None
    in_workflow = False
    child_indent = -1
    times: list[str] = []
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        indent = len(line) - len(line.lstrip())
        key, colon, value = stripped.partition(":")
        key = key.strip().strip("\"'").lstrip("- ")
        if indent == 0:
            in_workflow, child_indent = key == "workflow" and not value.strip(), -1
            continue
        if not colon:
            continue
        value = value.split(" #", 1)[0].strip().strip("\"'")
        if key == "workflow_status" and section_status is None:
            section_status = value
        elif key == "status" and in_workflow and workflow_status is None:
            child_indent = indent if child_indent < 0 else child_indent
            if indent == child_indent:
                workflow_status = value
        elif key in _TIME_KEYS:
            stamp = sortable(value)
            if stamp is not None:
                times.append(stamp)
        if in_workflow and child_indent < 0:
            child_indent = indent
    return section_status or workflow_status, (max(times) if times else None)
