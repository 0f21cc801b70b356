"""The context-monitor state file ``.jerry/context-monitor-state.json``.

The UserPromptSubmit hook rewrites it on every prompt with its latest estimate of how full the context
window is; the PreCompact hook reads it to record the fill in the checkpoint it writes.
"""

from __future__ import annotations

from enum import Enum
from typing import Literal

from pydantic import BaseModel, Field

from ctxres.schemas.base import IsoDateTime, StrictModel
from ctxres.schemas.resumption import Fill


class FillTier(str, Enum):
    """How full the context window is, in the bands of the context monitor."""

    LOW = "LOW"
    WARNING = "WARNING"
    CRITICAL = "CRITICAL"
    COMPACTION = "COMPACTION"
    UNKNOWN = "UNKNOWN"


class FillSource(str, Enum):
    """Where the fill figure came from."""

    TRANSCRIPT = "transcript"
    COMPACT_BOUNDARY = "compact_boundary"
    CLIENT = "client"
    UNKNOWN = "unknown"


class MonitorState(StrictModel):
    """The latest context-fill reading, rewritten by the UserPromptSubmit hook on every prompt."""

    schema_version: Literal["1.0"] = Field(description="Version of this file's format; always `1.0`.")
    session_id: str = Field(description="Id of the Claude Code session the reading belongs to.")
    timestamp: IsoDateTime = Field(description="When the reading was taken (ISO-8601).")
    fill: Fill | None = Field(
        description="Fraction of the usable context window in use, between 0 and 1, as Claude Code shows it "
        "(`N% context used`: the window less 20,000 tokens kept for the answer; 0.64 means 64%); null when "
        "unknown, for example right after a compaction, before the next model reply reports its usage."
    )
    tokens: int | None = Field(
        ge=0,
        description="Tokens in the context (input + cache creation + cache read + output tokens of the newest "
        "model reply, as Claude Code counts them); null when unknown.",
    )
    window: int = Field(gt=0, description="Size of the context window, in tokens.")
    tier: FillTier = Field(
        description="Band of the fill: `LOW` below 60%, `WARNING` from 60% to below 80%, `CRITICAL` from 80% "
        "to below 90%, `COMPACTION` at 90% and above, `UNKNOWN` when the fill is unknown."
    )
    transcript_path: str | None = Field(
        description="Path of the transcript the reading was taken from; null when there was none."
    )
    transcript_offset: int = Field(
        ge=0,
        description="Size in bytes of the part of the transcript already read, so the next prompt reads only "
        "what was appended after it.",
    )
    source: FillSource = Field(
        description="Where the figure came from: `transcript` (the usage of the newest model reply in the "
        "transcript), `compact_boundary` (a compaction marker newer than any usage, so the old figure no "
        "longer holds), `client` (the figure Claude Code sent in the hook's payload, `context_tokens`) or "
        "`unknown`."
    )


MONITOR_SCHEMAS: dict[str, type[BaseModel]] = {"monitor-state": MonitorState}
"""Schema file stem (`<stem>.schema.json`) -> model."""
