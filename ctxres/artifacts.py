"""The kinds of artifact ctxres knows, how each is stored, and the file names that identify it."""

from __future__ import annotations

import re

from ctxres.checkpoint_names import FILE_GLOB as CHECKPOINT_FILE_GLOB
from ctxres.formats import Format
from ctxres.orchestration import ORCHESTRATION_PATTERNS

# kind -> (format, default file patterns). A pattern without "/" matches the file name.
KINDS: dict[str, Format] = {
    "orchestration": Format.YAML,
    "checkpoint": Format.JSON,
    "monitor-state": Format.JSON,
    "precompact-state": Format.JSON,
    "resume-context": Format.FRONT_MATTER,
    "task-graph": Format.JSON,
    "event-log": Format.JSONL,
    "rule-file": Format.TEXT,
}

DEFAULT_PATTERNS: dict[str, tuple[str, ...]] = {
    "orchestration": ORCHESTRATION_PATTERNS,
    "checkpoint": (CHECKPOINT_FILE_GLOB,),
    "monitor-state": ("context-monitor-state.json",),
    "precompact-state": ("*precompact_state.json",),
    "resume-context": ("resume-context.md",),
    "task-graph": ("task-graph.json",),
    "event-log": ("**/events/*/*.jsonl",),
    # Markdown rule files that carry L2-REINJECT markers.
    "rule-file": ("CLAUDE.md", "CLAUDE.local.md", "**/.claude/rules/**/*.md", "**/.context/rules/**/*.md"),
}

# A YAML file whose top level has a `resumption:` key is an orchestration file whatever its name.
RESUMPTION_KEY = re.compile(rb"^resumption[ \t]*:", re.MULTILINE)
YAML_SUFFIXES = (".yaml", ".yml")
# A Markdown file that holds an L2-REINJECT marker (the comment, not the word in prose) is a rule file
# wherever it is (the marker's opening as `ctxres.reinject` finds it).
REINJECT_MARKER = re.compile(rb"<!--[ \t\r\n]*L2[-_ ]?RE-?INJECT\b", re.IGNORECASE)
MARKDOWN_SUFFIXES = (".md", ".markdown")
