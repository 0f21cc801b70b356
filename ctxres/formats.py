"""How an artifact is stored (kept apart from the loaders so that importing it costs nothing)."""

from __future__ import annotations

from enum import Enum


class Format(str, Enum):
    YAML = "yaml"
    JSON = "json"
    JSONL = "jsonl"
    FRONT_MATTER = "front-matter"
    TEXT = "text"  # read as text only (Markdown rule files); rules parse what they need
