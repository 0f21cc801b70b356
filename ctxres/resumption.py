"""The v1/v2 view of a resumption section (pure functions shared by linters and hooks)."""

from __future__ import annotations

from typing import Any

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
V1_KEYS = frozenset(
    {
        "last_checkpoint",
        "current_state",
        "next_step",
        "files_to_read",
        "cross_session_portable",
        "ephemeral_references",
    }
)


def detect_version(section: Any) -> str:
    """``"2.0"`` when the section has any v2.0 sub-section, else ``"1.0"``."""
    if isinstance(section, dict) and V2_ONLY_KEYS.intersection(section):
        return "2.0"
    return "1.0"
