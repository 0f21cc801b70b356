"""The artifact catalog: every kind of file ctxres checks, in one table.

Discovery (``ctxres.linters.checking.discovery``), the configuration's default patterns, conformance (which schemas
validate a kind), the ``ctxres check`` help, the README's "What it checks" table and the ``files:``
patterns of ``.pre-commit-hooks.yaml`` are all read or generated from :data:`CATALOG`
(``ctxres catalog --write`` regenerates the files, ``ctxres catalog --check`` and a test catch drift).
Adding a kind: one entry here, its schema in ``schemas/``, its branch in conformance if one file
holds several schemas, then ``ctxres catalog --write``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from enum import Enum

from ctxres.state.checkpoint_names import FILE_GLOB as CHECKPOINT_FILE_GLOB
from ctxres.state.orchestration import ORCHESTRATION_PATTERNS


class Format(str, Enum):
    """How an artifact is stored."""

    YAML = "yaml"
    JSON = "json"
    JSONL = "jsonl"
    FRONT_MATTER = "front-matter"
    TEXT = "text"  # read as text only (Markdown rule files); rules parse what they need


# A YAML file whose top level has a `resumption:` key is an orchestration file whatever its name.
RESUMPTION_KEY = re.compile(rb"^resumption[ \t]*:", re.MULTILINE)
YAML_SUFFIXES = (".yaml", ".yml")
# A Markdown file that holds an L2-REINJECT marker (the comment, not the word in prose) is a rule file
# wherever it is (the marker's opening as `ctxres.reinject` finds it).
REINJECT_MARKER = re.compile(rb"<!--[ \t\r\n]*L2[-_ ]?RE-?INJECT\b", re.IGNORECASE)
MARKDOWN_SUFFIXES = (".md", ".markdown")

# RESUMPTION_KEY past the first line: the engine skips from newline to newline instead of trying every
# offset, as a `^` pattern makes it do (20 times faster on a 30 KB file).
_RESUMPTION_LINE = re.compile(b"\n" + RESUMPTION_KEY.pattern.removeprefix(b"^"))
# The resumption section usually ends the file: its last bytes are searched first.
_TAIL_BYTES = 4096


def has_resumption_key(raw: bytes | memoryview) -> bool:
    """``RESUMPTION_KEY.search(raw)``: a top-level ``resumption:`` line."""
    tail = len(raw) - _TAIL_BYTES
    if tail > 0 and _RESUMPTION_LINE.search(raw, tail) is not None:
        return True
    return RESUMPTION_KEY.match(raw) is not None or _RESUMPTION_LINE.search(raw) is not None


# A `resume-context.md` whose front matter names a `build_id` is a Nexus build's manifest.
BUILD_ID_KEY = re.compile(rb"^build_id[ \t]*:", re.MULTILINE)


def names_a_build(raw: bytes) -> bool:
    """Whether a ``resume-context.md`` is a build's: a top-level ``build_id:`` line in its front matter."""
    if not raw.startswith(b"---"):
        return False
    end = raw.find(b"\n---", 3)
    return BUILD_ID_KEY.search(raw, 0, end if end >= 0 else len(raw)) is not None


def has_reinject_marker(raw: bytes) -> bool:
    """``REINJECT_MARKER.search(raw)``: an L2-REINJECT comment."""
    return REINJECT_MARKER.search(raw) is not None


class ArtifactKind:
    """One row of the catalog (a plain record: the catalog is read on every ``ctxres`` start)."""

    __slots__ = (
        "claims",
        "description",
        "format",
        "found_as",
        "hooks",
        "kind",
        "patterns",
        "precommit",
        "schemas",
        "sniff",
    )

    def __init__(
        self,
        kind: str,
        format: Format,
        patterns: tuple[str, ...],
        *,
        schemas: tuple[str, ...],
        description: str,
        found_as: str,
        hooks: tuple[str, ...] = ("ctxres-check",),
        sniff: tuple[tuple[str, ...], Callable[[bytes], bool]] | None = None,
        precommit: str | None = None,
        claims: Callable[[bytes], bool] | None = None,
    ) -> None:
        self.kind = kind
        self.format = format
        # Default file patterns (`[tool.ctxres.patterns]` replaces them). Without "/": the file name.
        self.patterns = patterns
        # The JSON Schemas (``schemas/<name>.schema.json``) conformance validates this kind against.
        self.schemas = schemas
        # (suffixes, content test): a file with one of the suffixes whose bytes pass the test is of
        # this kind whatever its name.
        self.sniff = sniff
        # A content test: a file that matches ``patterns`` is of this kind only when its bytes pass it;
        # otherwise the next kinds are tried (two kinds share a file name).
        self.claims = claims
        # The pre-commit `files:` regex; None: translated from ``patterns``.
        self.precommit = precommit
        # The ids of the `.pre-commit-hooks.yaml` hooks whose `files:` include this kind.
        self.hooks = hooks
        self.description = description  # what it is (Markdown)
        self.found_as = found_as  # how discovery recognises it (Markdown)

    def __repr__(self) -> str:
        return f"ArtifactKind({self.kind!r})"


CATALOG: tuple[ArtifactKind, ...] = (
    ArtifactKind(
        "orchestration",
        Format.YAML,
        ORCHESTRATION_PATTERNS,
        schemas=("resumption-v1", "resumption-v2", "orchestration"),
        description="resumption section v1.0 / v2.0",
        found_as="`resumption:` in `*ORCHESTRATION*.yaml`, or in any YAML file with a top-level `resumption:` key",
        hooks=("ctxres-check", "ctxres-stale"),
        sniff=(YAML_SUFFIXES, has_resumption_key),
        # Any YAML file is passed: ctxres treats one with a top-level `resumption:` key as an
        # orchestration file and skips the rest.
        precommit=r"\.ya?ml$",
    ),
    ArtifactKind(
        "checkpoint",
        Format.JSON,
        (CHECKPOINT_FILE_GLOB,),
        schemas=("checkpoint", "checkpoint-peer"),
        description="checkpoint",
        found_as="`cx-NNN-checkpoint.json` (also the `cx-NNN.json` layout other checkpoint writers use)",
    ),
    ArtifactKind(
        "monitor-state",
        Format.JSON,
        ("context-monitor-state.json",),
        schemas=("monitor-state",),
        description="context monitor state",
        found_as="`context-monitor-state.json`",
    ),
    ArtifactKind(
        "precompact-state",
        Format.JSON,
        ("*precompact_state.json",),
        schemas=("precompact-state",),
        description="Nexus pre-compact state",
        found_as="`precompact_state.json`",
    ),
    ArtifactKind(
        "build-manifest",
        Format.FRONT_MATTER,
        ("resume-context.md",),
        schemas=("build-manifest",),
        description="Nexus build manifest",
        found_as="front matter of a `resume-context.md` that names a `build_id` "
        "(`02-builds/active/NN-name/01-planning/`, `02-builds/complete/NN-name/...`)",
        claims=names_a_build,
    ),
    ArtifactKind(
        "resume-context",
        Format.FRONT_MATTER,
        ("resume-context.md",),
        schemas=("resume-context",),
        description="Nexus resume manifest (project)",
        found_as="front matter of any other `resume-context.md` (`02-projects/NN-name/01-planning/`)",
    ),
    ArtifactKind(
        "task-graph",
        Format.JSON,
        ("task-graph.json",),
        schemas=("task-graph",),
        description="agent-memory task graph",
        found_as="`task-graph.json`",
    ),
    ArtifactKind(
        "event-log",
        Format.JSONL,
        ("**/events/*/*.jsonl",),
        schemas=("event",),
        description="agent-memory event log",
        found_as="`events/<actor>/*.jsonl` (one event per line)",
        hooks=("ctxres-check", "ctxres-append-only"),
    ),
    ArtifactKind(
        "rule-file",
        Format.TEXT,
        ("CLAUDE.md", "CLAUDE.local.md", "**/.claude/rules/**/*.md", "**/.context/rules/**/*.md"),
        schemas=(),  # Markdown: the R rules read the L2-REINJECT markers
        description="Claude Code rule file (L2-REINJECT markers)",
        found_as="`CLAUDE.md`, `CLAUDE.local.md`, `.claude/rules/**/*.md`, `.context/rules/**/*.md`, "
        "or any Markdown file with an L2-REINJECT marker",
        # Ranks and the budget span all rule files: `ctxres reinject` checks them, not `ctxres check`.
        hooks=("ctxres-reinject",),
        sniff=(MARKDOWN_SUFFIXES, has_reinject_marker),
    ),
)
"""Every artifact kind, in the order discovery tries their patterns (the first match wins)."""

# Schemas that no artifact file holds (the README lists them after the catalog's kinds).
OTHER_SCHEMAS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("hook input/output", "stdin/stdout of each hook", ("hook-<event>-input", "hook-<event>-output")),
)

BY_KIND: dict[str, ArtifactKind] = {entry.kind: entry for entry in CATALOG}
KINDS: dict[str, Format] = {entry.kind: entry.format for entry in CATALOG}
DEFAULT_PATTERNS: dict[str, tuple[str, ...]] = {entry.kind: entry.patterns for entry in CATALOG}
SNIFFED: tuple[ArtifactKind, ...] = tuple(entry for entry in CATALOG if entry.sniff is not None)
