"""The v1/v2 view of a resumption section (pure functions shared by linters and hooks)."""

from __future__ import annotations

# A hook loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

# The seven sub-sections of a v2.0 section, in the order docs/formats.md lists them
# (docs/formats.md, "Version 2.0 sub-sections").
V2_SUBSECTIONS: tuple[str, ...] = (
    "recovery_state",
    "files_to_read",
    "quality_trajectory",
    "defect_summary",
    "decision_log",
    "agent_summaries",
    "compaction_events",
)
# The keys that only a v2.0 section has (`files_to_read` is in both versions).
V2_ONLY_KEYS = frozenset(
    {
        "recovery_state",
        "quality_trajectory",
        "defect_summary",
        "decision_log",
        "decisions",
        "agent_summaries",
        "compaction_events",
    }
)


def detect_version(section: Any) -> str:
    """``"2.0"`` when the section has any v2.0 sub-section, else ``"1.0"``."""
    if isinstance(section, dict) and V2_ONLY_KEYS.intersection(section):
        return "2.0"
    return "1.0"


# v1.0 top-level fields and where v2.0 keeps them (docs/formats.md, "From v1.0 to v2.0").
# `current_state` has no single home: it is decomposed into current_phase, current_phase_name,
# workflow_status and current_activity; `files_to_read` stays at the top level.
MOVED_TO_RECOVERY_STATE = ("last_checkpoint", "next_step", "cross_session_portable", "ephemeral_references")
V1_ONLY_KEYS = frozenset({*MOVED_TO_RECOVERY_STATE, "current_state"})

# What a v1.0 reader relies on, and where it finds it in each version.
_V1_VIEW_PATHS: dict[str, dict[str, tuple[str, ...]]] = {
    "1.0": {"last_checkpoint": ("last_checkpoint",), "next_step": ("next_step",), "files_to_read": ("files_to_read",)},
    "2.0": {
        "last_checkpoint": ("recovery_state", "last_checkpoint"),
        "next_step": ("recovery_state", "next_step"),
        "files_to_read": ("files_to_read",),
    },
}


def v1_view_paths(version: str) -> dict[str, tuple[str, ...]]:
    """Where each v1.0 field is inside a section of ``version`` (paths relative to the section)."""
    return dict(_V1_VIEW_PATHS["2.0" if version == "2.0" else "1.0"])


def v1_view(section: Any) -> dict[str, Any]:
    """What a v1.0 reader sees: ``last_checkpoint``, ``next_step``, ``files_to_read``.

    In a v1.0 section they are top-level keys; in a v2.0 section the first two are inside
    ``recovery_state``. A field the section does not have is left out of the result (so "absent"
    and "null" stay different).
    """
    view: dict[str, Any] = {}
    if not isinstance(section, dict):
        return view
    for name, path in v1_view_paths(detect_version(section)).items():
        node: Any = section
        for part in path:
            if not isinstance(node, dict) or part not in node:
                break
            node = node[part]
        else:
            view[name] = node
    return view


def v1_leftovers(section: Any) -> list[str]:
    """v1.0-only top-level keys still present in a v2.0 section, in file order."""
    if not isinstance(section, dict) or detect_version(section) != "2.0":
        return []
    return [key for key in section if key in V1_ONLY_KEYS]
