"""The artifact catalog: every kind of file ctxres checks, in one table.

Discovery (``ctxres.linters.checking.discovery``), the configuration's default patterns, conformance (which schemas
validate a kind), the ``ctxres check`` help, the README's "What it checks" table and the ``files:``
patterns of ``.pre-commit-hooks.yaml`` are all read or generated from :data:`CATALOG`
(``python dev/generate.py --write`` regenerates the files, ``--check`` catches drift). Adding a kind:
docs/architecture.md, "Where to add…" (and its branch in conformance if one file holds several schemas).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable

from ctxres.defaults import STATE_DIR
from ctxres.formats.loading import Format
from ctxres.nexus import BUILDS_FOLDER, PROJECTS_FOLDER, manifest_workspace
from ctxres.state.checkpoint_names import CHECKPOINTS_FOLDER
from ctxres.state.checkpoint_names import FILE_GLOB as CHECKPOINT_FILE_GLOB
from ctxres.state.live import ORCHESTRATION_PATTERNS

# A YAML file whose top level has a `resumption:` key is an orchestration file whatever its name.
RESUMPTION_KEY = re.compile(rb"^resumption[ \t]*:", re.MULTILINE)
YAML_SUFFIXES = (".yaml", ".yml")

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


def _front_matter(raw: bytes) -> bytes | None:
    """The front matter of a Markdown file (between its opening ``---`` line and the next), else None."""
    if not (raw.startswith(b"---\n") or raw.startswith(b"---\r\n")):
        return None
    end = raw.find(b"\n---", 3)
    return raw[3:end] if end >= 0 else None


# ------------------------------------------------------------------------ ours by place and content
# Every kind's names are common ones (`cx-001.json`, `task-graph.json`, `events/<x>/<day>.jsonl`, ...): other
# tools write files called so. A file that matches a kind's default patterns is ours when its place or its
# content says so (the kind's `Recognition`: the place is tested first, the content read only when it fails);
# one that only shares the name is another tool's, and gets no finding.

Place = Callable[[str, str], bool]
"""A test of a file's place: (its absolute path with ``/`` separators, the configured ``state-dir``)."""


class Recognition:
    """Where a kind lives (``place``, a :data:`Place`) and what it looks like (``content``: a test of its bytes,
    of its first ``head`` bytes when set: an event log's first lines), each with the words that say it
    (Markdown)."""

    __slots__ = ("content", "content_text", "head", "place", "place_text")

    def __init__(
        self,
        place: Place,
        place_text: str,
        content: Callable[[bytes], bool],
        content_text: str,
        *,
        head: int | None = None,
    ) -> None:
        self.place = place
        self.place_text = place_text
        self.content = content
        self.content_text = content_text
        self.head = head

    def skipped(self, description: str) -> str:
        """Why a file that only has the name is skipped (``ctxres check --list-files``)."""
        return (
            f"named like an artifact ({description}), but neither in its place ({self.place_text}) nor of its "
            f"content ({self.content_text}): another tool's file, not checked"
        ).replace("`", "")


def read_where_named(path: str, state_dir: str) -> bool:
    """The place of a kind whose every file of the name is read by a program where it is: the rule files
    Claude Code loads, the workflow files the hooks choose the live workflow among. The only kinds that may
    use it (``tests/core/test_catalog.py`` holds the list); any other kind names a folder or a content."""
    return True


def _has_keys(keys: tuple[str, ...], at_least: int) -> Callable[[bytes], bool]:
    """A content test: a JSON object with at least ``at_least`` of ``keys`` at its top level. A file that does
    not parse is ours when its text names that many of them (a broken file of ours is reported, not
    skipped). A search of the bytes first: a file without the keys is never parsed."""
    pattern = re.compile(rb'"(' + b"|".join(re.escape(key.encode()) for key in keys) + rb')"\s*:')

    def test(raw: bytes) -> bool:
        named: set[bytes] = set()
        for match in pattern.finditer(raw):
            named.add(match.group(1))
            if len(named) >= at_least:
                break
        else:
            return False
        try:
            data = json.loads(raw)
        except (ValueError, RecursionError):
            return True
        return isinstance(data, dict) and sum(key in data for key in keys) >= at_least

    return test


def _is_state_dir(folder: str, state_dir: str) -> bool:
    """Whether ``folder`` (absolute, ``/`` separators) is a state folder: the configured ``state-dir`` (at the
    top of the project or of a workflow nested in it) or the default ``.jerry``."""
    for name in _state_dir_names(state_dir):
        if folder == name if name.startswith("/") else folder.endswith("/" + name):
            return True
    return False


_STATE_DIR_NAMES: dict[str, tuple[str, ...]] = {}


def _state_dir_names(state_dir: str) -> tuple[str, ...]:
    names = _STATE_DIR_NAMES.get(state_dir)
    if names is None:
        normal = os.path.normpath(state_dir).replace(os.sep, "/").rstrip("/")
        while normal.startswith("../"):  # a state folder beside the project: its own name is its place
            normal = normal[3:]
        names = _STATE_DIR_NAMES[state_dir] = tuple(dict.fromkeys((normal, STATE_DIR)))
    return names


def in_checkpoints_folder(path: str, state_dir: str) -> bool:
    """Whether a file sits in the checkpoints folder of a state folder: ``<state-dir>/checkpoints/<name>``."""
    folder = path.rpartition("/")[0]
    parent, _, name = folder.rpartition("/")
    return name == CHECKPOINTS_FOLDER and _is_state_dir(parent, state_dir)


# A checkpoint's own keys, of either layout: ours (`event_id`, `orchestration_state`, ...) and the peer
# writer's (`checkpoint_id`, `context_state`, `resumption_state`). An evaluation item has none of them.
CHECKPOINT_KEYS = ("event_id", "orchestration_state", "checkpoint_id", "context_state", "resumption_state")
has_checkpoint_keys = _has_keys(CHECKPOINT_KEYS, 1)


def in_state_folder(path: str, state_dir: str) -> bool:
    """Whether a file sits in a state folder itself: ``<state-dir>/<name>``."""
    return _is_state_dir(path.rpartition("/")[0], state_dir)


# The monitor state's own keys (two of them: `tokens` or `window` alone says little).
MONITOR_KEYS = ("fill", "tokens", "window", "tier", "transcript_path", "transcript_offset")
has_monitor_keys = _has_keys(MONITOR_KEYS, 2)


def in_nexus_cache(path: str, state_dir: str) -> bool:
    """Whether a file sits where the Nexus PreCompact hook writes its state: ``00-system/.cache/<name>``."""
    parts = path.rsplit("/", 3)
    return len(parts) == 4 and parts[1] == WORKSPACE_MARKER and parts[2] == ".cache"


PRECOMPACT_KEYS = ("active_project_id", "detection_method")
has_precompact_keys = _has_keys(PRECOMPACT_KEYS, 1)


def in_run_events(path: str, state_dir: str) -> bool:
    """Whether a file sits in an actor's folder of a run: ``.agent-memory/runs/<run>/events/<actor>/<name>``."""
    parts = path.rsplit("/", 6)
    return len(parts) == 7 and parts[4] == "events" and parts[2] == "runs" and parts[1] == ".agent-memory"


EVENT_KEYS = ("event_type", "task_id", "actor")
EVENT_HEAD = 64 * 1024
"""The bytes of an event log its content test reads: the first lines, not a data set's whole file."""


def has_event_lines(raw: bytes) -> bool:
    """Whether the first line of a JSON Lines file that parses (blank and corrupted lines skipped, as the run's
    reader skips them) is an object carrying two of an event's own keys."""
    for line in raw.splitlines():
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except (ValueError, RecursionError):
            continue
        return isinstance(item, dict) and sum(key in item for key in EVENT_KEYS) >= 2
    return False


def in_run_folder(path: str, state_dir: str = "") -> bool:
    """Whether a file sits in an agent-memory run folder: ``.agent-memory/runs/<run>/<name>``."""
    parts = path.split("/")
    return len(parts) >= 4 and parts[-3] == "runs" and parts[-4] == ".agent-memory"


def has_run_shape(raw: bytes) -> bool:
    """Whether a JSON file is shaped like a run's task graph: an object whose ``tasks`` list holds a task
    with the ``dependencies`` key, or whose ``metadata`` names a ``run_id`` (not a map keyed by task name,
    nor a list whose tasks say ``depends_on`` or ``dependsOn``)."""
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        return False
    if not isinstance(data, dict):
        return False
    metadata = data.get("metadata")
    if isinstance(metadata, dict) and "run_id" in metadata:
        return True
    tasks = data.get("tasks")
    return isinstance(tasks, list) and any(isinstance(task, dict) and "dependencies" in task for task in tasks)


WORKSPACE_MARKER = "00-system"
"""The folder beside ``02-projects/`` and ``02-builds/`` that makes a folder a Nexus workspace."""


def in_nexus_workspace(path: str, state_dir: str = "") -> bool:
    """Whether a manifest sits in its place in a Nexus workspace: ``01-planning/`` of a project or a build,
    in a folder that also holds ``00-system/``."""
    workspace = manifest_workspace(path)
    return workspace is not None and os.path.isdir(os.path.join(workspace or "/", WORKSPACE_MARKER))


# The manifest's own keys: what a handoff note or a CV's front matter does not carry.
MANIFEST_KEYS = re.compile(rb"^(?:resume_schema_version|resume_version|files_to_load|build_id)[ \t]*:", re.MULTILINE)


def has_manifest_keys(raw: bytes) -> bool:
    """Whether a Markdown file opens with front matter carrying a key of the Nexus manifest's own."""
    front = _front_matter(raw)
    return front is not None and MANIFEST_KEYS.search(front) is not None


RUN_RECOGNITION = Recognition(
    in_run_folder,
    "a run folder, `.agent-memory/runs/<run>/`",
    has_run_shape,
    "a `tasks` list whose tasks have `dependencies`, or `metadata.run_id`",
)
MANIFEST_RECOGNITION = Recognition(
    in_nexus_workspace,
    f"`{PROJECTS_FOLDER}/NN-name/01-planning/` or `{BUILDS_FOLDER}/.../NN-name/01-planning/` beside `00-system/`",
    has_manifest_keys,
    "front matter with `resume_schema_version`, `resume_version`, `files_to_load` or `build_id`",
)
CHECKPOINT_RECOGNITION = Recognition(
    in_checkpoints_folder,
    f"`checkpoints/` of the state folder, `{STATE_DIR}/checkpoints/` or the configured `state-dir`'s",
    has_checkpoint_keys,
    "a JSON object with `event_id`, `orchestration_state`, `checkpoint_id`, `context_state` or `resumption_state`",
)
MONITOR_RECOGNITION = Recognition(
    in_state_folder,
    f"the state folder, `{STATE_DIR}/` or the configured `state-dir`",
    has_monitor_keys,
    "a JSON object with two of `fill`, `tokens`, `window`, `tier`, `transcript_path`, `transcript_offset`",
)
PRECOMPACT_RECOGNITION = Recognition(
    in_nexus_cache,
    f"`{WORKSPACE_MARKER}/.cache/` of a Nexus workspace",
    has_precompact_keys,
    "a JSON object with `active_project_id` or `detection_method`",
)
EVENT_RECOGNITION = Recognition(
    in_run_events,
    "an actor's folder of a run, `.agent-memory/runs/<run>/events/<actor>/`",
    has_event_lines,
    "lines carrying two of `event_type`, `task_id`, `actor`",
    head=EVENT_HEAD,
)
ORCHESTRATION_RECOGNITION = Recognition(
    read_where_named,
    "any file of the name: the hooks choose the live workflow among them",
    has_resumption_key,
    "a top-level `resumption:` key",
)
RULE_FILE_RECOGNITION = Recognition(
    read_where_named,
    "the files Claude Code and the L2 engine read",
    lambda raw: True,  # the place always holds: the content is never read
    "Markdown",
)


# Claude Code's settings files: `.claude/settings.json` and `.claude/settings.local.json` by their place, and a
# plugin's `hooks/hooks.json` when `.claude-plugin/plugin.json` is beside its folder; a `settings.json` or
# `hooks.json` anywhere else is another tool's.
PLUGIN_MANIFEST = ".claude-plugin/plugin.json"


def in_claude_settings_place(path: str, state_dir: str = "") -> bool:
    """Whether a file is one the client reads hooks from: ``.claude/settings(.local).json``, or the
    ``hooks/hooks.json`` of a plugin (its folder holds ``.claude-plugin/plugin.json``)."""
    parts = path.split("/")
    if len(parts) >= 2 and parts[-2] == ".claude":
        return parts[-1] in ("settings.json", "settings.local.json")
    if len(parts) >= 2 and parts[-2:] == ["hooks", "hooks.json"]:
        return os.path.isfile(os.path.join("/".join(parts[:-2]) or "/", PLUGIN_MANIFEST))
    return False


def _no_content_claims(_raw: bytes) -> bool:
    return False


CLAUDE_SETTINGS_RECOGNITION = Recognition(
    in_claude_settings_place,
    "`.claude/settings.json`, `.claude/settings.local.json`, or a plugin's `hooks/hooks.json` (beside "
    f"`{PLUGIN_MANIFEST}`)",
    _no_content_claims,
    "none: only the place makes it one",
)


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
        "recognition",
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
        recognition: Recognition,
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
        # Where the kind lives and what it looks like: a file that matches the default ``patterns`` is of
        # this kind only when one of them says so. Every kind has one (a test over the catalog).
        self.recognition = recognition
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
        recognition=ORCHESTRATION_RECOGNITION,
    ),
    ArtifactKind(
        "checkpoint",
        Format.JSON,
        (CHECKPOINT_FILE_GLOB,),
        schemas=("checkpoint", "checkpoint-peer"),
        description="checkpoint",
        found_as="`cx-NNN.json` (also `cx-NNN-checkpoint.json`, an earlier release's name, and `cx-NNN.<hash>.json`) "
        "in the state folder's `checkpoints/` (`.jerry/checkpoints/` or the configured `state-dir`'s), or carrying a "
        "checkpoint's own keys (`event_id`, `orchestration_state`, `checkpoint_id`, `context_state`, "
        "`resumption_state`)",
        recognition=CHECKPOINT_RECOGNITION,
    ),
    ArtifactKind(
        "monitor-state",
        Format.JSON,
        ("context-monitor-state.json",),
        schemas=("monitor-state",),
        description="context monitor state",
        found_as="`context-monitor-state.json` in the state folder (`.jerry/` or the configured `state-dir`), or "
        "carrying two of the state's own keys (`fill`, `tokens`, `window`, `tier`, `transcript_path`, "
        "`transcript_offset`)",
        recognition=MONITOR_RECOGNITION,
    ),
    ArtifactKind(
        "precompact-state",
        Format.JSON,
        ("*precompact_state.json",),
        schemas=("precompact-state",),
        description="Nexus pre-compact state",
        found_as="`precompact_state.json` in `00-system/.cache/` of a Nexus workspace, or carrying "
        "`active_project_id` or `detection_method`",
        recognition=PRECOMPACT_RECOGNITION,
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
        recognition=MANIFEST_RECOGNITION,
    ),
    ArtifactKind(
        "resume-context",
        Format.FRONT_MATTER,
        ("resume-context.md",),
        schemas=("resume-context",),
        description="Nexus resume manifest (project)",
        found_as="any other `resume-context.md` in a Nexus workspace (`02-projects/NN-name/01-planning/` beside "
        "`00-system/`), or whose front matter carries the manifest's own keys (`resume_schema_version`, "
        "`resume_version`, `files_to_load`)",
        recognition=MANIFEST_RECOGNITION,
    ),
    ArtifactKind(
        "task-graph",
        Format.JSON,
        ("task-graph.json",),
        schemas=("task-graph",),
        description="agent-memory task graph",
        found_as="`task-graph.json` in a run folder (`.agent-memory/runs/<run>/`), or shaped like a run's "
        "(a `tasks` list whose tasks have `dependencies`, or `metadata.run_id`)",
        recognition=RUN_RECOGNITION,
    ),
    ArtifactKind(
        "event-log",
        Format.JSONL,
        ("**/events/*/*.jsonl",),
        schemas=("event",),
        description="agent-memory event log",
        found_as="`events/<actor>/*.jsonl` (one event per line) of a run (`.agent-memory/runs/<run>/`), or whose "
        "lines carry two of an event's own keys (`event_type`, `task_id`, `actor`)",
        hooks=("ctxres-check", "ctxres-append-only"),
        recognition=EVENT_RECOGNITION,
    ),
    ArtifactKind(
        "claude-settings",
        Format.JSON,
        ("**/.claude/settings.json", "**/.claude/settings.local.json", "**/hooks/hooks.json"),
        # The H rules check what the client 2.1.328 does with each defect (docs/claude-settings.md); the
        # exported schema `claude-settings` is for editors, not validated by conformance.
        schemas=(),
        description="Claude Code settings that wire the hooks",
        found_as="`.claude/settings.json`, `.claude/settings.local.json`, and a plugin's `hooks/hooks.json` "
        f"(beside `{PLUGIN_MANIFEST}`); a `settings.json` anywhere else is another tool's",
        recognition=CLAUDE_SETTINGS_RECOGNITION,
        precommit=r"(^|/)\.claude/settings(\.local)?\.json$|(^|/)hooks/hooks\.json$",
    ),
    ArtifactKind(
        "rule-file",
        Format.TEXT,
        ("CLAUDE.md", "CLAUDE.local.md", "**/.claude/rules/**/*.md", "**/.context/rules/**/*.md"),
        schemas=(),  # Markdown: the R rules read the L2-REINJECT markers
        description="Claude Code rule file (L2-REINJECT markers)",
        found_as="the files the client reads (`CLAUDE.md`, `CLAUDE.local.md`, `.claude/rules/**/*.md`) and the "
        "L2 engine reads (`.context/rules/**/*.md`), and the `rule-file` patterns a project adds; a marker "
        "quoted in any other Markdown file is text",
        # Ranks and the budget span all rule files: `ctxres reinject` checks them, not `ctxres check`.
        hooks=("ctxres-reinject",),
        recognition=RULE_FILE_RECOGNITION,
    ),
)
"""Every artifact kind, in the order discovery tries their patterns (the first match wins)."""

# Schemas that no artifact file holds (the README lists them after the catalog's kinds).
OTHER_SCHEMAS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("hook input/output", "stdin/stdout of each hook", ("hook-<event>-input", "hook-<event>-output")),
    # The claude-settings kind is checked by the H rules, by what the client does; its schema is for editors.
    ("Claude Code settings (for editors)", "the `claude-settings` files", ("claude-settings",)),
    ("a session as a timeline", "`ctxres timeline --output-format json`", ("timeline",)),
)

BY_KIND: dict[str, ArtifactKind] = {entry.kind: entry for entry in CATALOG}
KINDS: dict[str, Format] = {entry.kind: entry.format for entry in CATALOG}
DEFAULT_PATTERNS: dict[str, tuple[str, ...]] = {entry.kind: entry.patterns for entry in CATALOG}
SNIFFED: tuple[ArtifactKind, ...] = tuple(entry for entry in CATALOG if entry.sniff is not None)
