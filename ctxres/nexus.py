"""Nexus resume state: project detection and the ``resume-context.md`` loading manifest.

The files are described in docs/formats.md, "Nexus state".

A Nexus workspace keeps one folder per project, ``02-projects/NN-name/``; its
``01-planning/resume-context.md`` is a *loading manifest*: YAML front matter that lists the
files to load on resume (``files_to_load``, relative to the project folder) and a body that is
only a validation gate (questions the model must answer before continuing). Before a compaction
the PreCompact hook works out which project the session was working on from the transcript's
tool calls and saves it, FLAT, in ``00-system/.cache/precompact_state.json``; after it,
SessionStart loads that project's manifest.

This module is pure (no I/O) and light: the PreCompact hook (budget 50 ms) imports it, so it uses
neither ``re``, ``dataclasses``, ``pathlib`` nor ``typing`` at run time.
"""

from __future__ import annotations

import json
import posixpath

# A hook loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Iterator
    from typing import Any

PROJECTS_FOLDER = "02-projects"
BUILDS_FOLDER = "02-builds"
ARCHIVE_FOLDER = "05-archived"  # where Nexus's archive-project skill moves finished projects
BUILD_STAGES = ("active", "complete")
"""The folders of ``02-builds/`` that hold builds by stage (a build may also sit in ``02-builds/`` itself)."""
PLANNING_FOLDER = "01-planning"
MANIFEST_NAME = "resume-context.md"
LEGACY_NAME = "_resume.md"
STATE_PATH = ("00-system", ".cache", "precompact_state.json")
MAX_STATE_BYTES = 1024
PHASES = ("research", "planning", "execution", "ready-for-implementation", "testing", "review")
CONFIDENCES = ("high", "medium", "low")
METHODS = ("transcript", "cache", "fallback")

PATH_TOOLS = {"Read": "file_path", "Write": "file_path", "Edit": "file_path", "MultiEdit": "file_path"}
PATH_TOOLS["NotebookEdit"] = "notebook_path"
MODIFYING_TOOLS = frozenset({"Write", "Edit", "MultiEdit", "NotebookEdit"})
COMMAND_TOOLS = {"Bash": "command"}

MAX_CALLS = 50  # project-touching tool calls considered, newest first
HIGH_SHARE = 0.8
MEDIUM_SHARE = 0.5

_LOWER_DIGITS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")


def is_project_id(value: object) -> bool:
    """``NN-kebab-case``: two digits, then lower-case words of letters and digits joined by ``-``."""
    if not isinstance(value, str) or len(value) < 4 or not value[:2].isdigit() or value[2] != "-":
        return False
    words = value[3:].split("-")
    return all(word and set(word) <= _LOWER_DIGITS for word in words) and value[:2].isascii()


def _ids(text: str, folder: str, stages: tuple[str, ...], in_path: bool) -> Iterator[str]:
    """Every ``NN-name`` id that follows ``<folder>/`` (and one of ``stages``, when given), in order
    (``\\`` separators too). In a path (``in_path``) the folder is a whole component and so is the id; in
    a shell command the folder must not end a longer word and the id ends where its characters do."""
    normalised = text.replace("\\", "/")
    marker = folder + "/"
    at = normalised.find(marker)
    while at >= 0:
        before = normalised[at - 1] if at else "/"
        if before == "/" or not (in_path or before.isalnum() or before in "-_."):
            rest = normalised[at + len(marker) :]
            stage, slash, after = rest.partition("/")
            if slash and stage in stages:
                rest = after
            if in_path:
                candidate = rest.partition("/")[0]
            else:
                end = 0
                while end < len(rest) and (rest[end] in _LOWER_DIGITS or rest[end] == "-"):
                    end += 1
                candidate = rest[:end]
            if is_project_id(candidate):
                yield candidate
        at = normalised.find(marker, at + 1)


def _id_in_path(path: str, folder: str, stages: tuple[str, ...] = ()) -> str | None:
    """The ``NN-name`` id of a path inside ``<folder>/[<stage>/]NN-name/``, else None."""
    return next(_ids(path, folder, stages, in_path=True), None)


def project_in_path(path: str) -> str | None:
    """The project id of a path inside ``02-projects/NN-name/`` (``\\`` separators too), else None."""
    return _id_in_path(path, PROJECTS_FOLDER)


def build_target(build: str) -> str:
    """The target of a build: ``02-builds/<id>``."""
    return f"{BUILDS_FOLDER}/{build}"


def is_build_target(target: str) -> bool:
    return target.startswith(BUILDS_FOLDER + "/")


def target_id(target: str) -> str:
    """The project or build id of a target."""
    return target[len(BUILDS_FOLDER) + 1 :] if is_build_target(target) else target


def build_folders(build: str) -> tuple[str, str, str]:
    """Where a build may be, workspace-relative, in the order it is looked for: active, flat, complete."""
    return (
        f"{BUILDS_FOLDER}/{BUILD_STAGES[0]}/{build}",
        f"{BUILDS_FOLDER}/{build}",
        f"{BUILDS_FOLDER}/{BUILD_STAGES[1]}/{build}",
    )


def build_in_path(path: str) -> str | None:
    """The build id of a path inside ``02-builds/active/NN-name/``, ``02-builds/complete/NN-name/`` or
    ``02-builds/NN-name/`` (``\\`` separators too), else None."""
    return _id_in_path(path, BUILDS_FOLDER, BUILD_STAGES)


def target_in_path(path: str) -> str | None:
    """The target (project id, or ``02-builds/<id>``) of a path inside a project or a build folder."""
    project = project_in_path(path)
    if project is not None:
        return project
    build = build_in_path(path)
    return build_target(build) if build is not None else None


def manifest_workspace(path: str) -> str | None:
    """The workspace folder of a manifest in its place (``/`` separators), else None:
    ``<workspace>/02-projects/NN-name/01-planning/resume-context.md`` or
    ``<workspace>/02-builds/[active/|complete/]NN-name/01-planning/resume-context.md`` (``""`` for a path that
    starts at the workspace)."""
    parts = path.split("/")
    if len(parts) < 4 or parts[-1] != MANIFEST_NAME or parts[-2] != PLANNING_FOLDER or not is_project_id(parts[-3]):
        return None
    above = parts[:-3]
    if above and above[-1] in BUILD_STAGES and len(above) >= 2 and above[-2] == BUILDS_FOLDER:
        above = above[:-1]
    if not above or above[-1] not in (PROJECTS_FOLDER, BUILDS_FOLDER):
        return None
    return "/".join(above[:-1])


def _ids_in_text(text: str, folder: str, stages: tuple[str, ...] = ()) -> list[str]:
    """Every ``NN-name`` id that follows ``<folder>/`` (and one of ``stages``) in a shell command, in order."""
    return list(_ids(text, folder, stages, in_path=False))


def builds_in_text(text: str) -> list[str]:
    """Every build id named by a ``02-builds/[active/|complete/]NN-name`` path in a shell command, in order."""
    return _ids_in_text(text, BUILDS_FOLDER, BUILD_STAGES)


def projects_in_text(text: str) -> list[str]:
    """Every project id named by a ``02-projects/NN-name`` path in a shell command, in order."""
    return _ids_in_text(text, PROJECTS_FOLDER)


def targets_in_text(text: str) -> list[str]:
    """Every target a shell command names (projects, then builds, each in order)."""
    return [*projects_in_text(text), *(build_target(build) for build in builds_in_text(text))]


def tool_calls(entry: dict[str, Any]) -> list[tuple[str, str]]:
    """(tool name, target) for each tool call of a transcript line that touches a project or a build.

    Read/Write/Edit/MultiEdit/NotebookEdit count their file path; Bash every project and build path in
    its command.
    """
    message = entry.get("message") if entry.get("type") == "assistant" else None
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, list):
        return []
    calls = []
    for block in reversed(content):  # newest first, like the lines
        if not isinstance(block, dict) or block.get("type") != "tool_use":
            continue
        name, args = block.get("name"), block.get("input")
        if not isinstance(name, str) or not isinstance(args, dict):
            continue
        if name in PATH_TOOLS:
            value = args.get(PATH_TOOLS[name])
            target = target_in_path(value) if isinstance(value, str) else None
            if target:
                calls.append((name, target))
        elif name in COMMAND_TOOLS:
            command = args.get(COMMAND_TOOLS[name])
            if isinstance(command, str):
                calls += [(name, target) for target in reversed(targets_in_text(command))]
    return calls


class Detection:
    """The target (project, or build: :func:`build_target`) a session was working on: confidence, and
    the evidence counted."""

    __slots__ = ("confidence", "mentions", "method", "project", "total", "writes")

    def __init__(self, project: str | None, confidence: str, method: str, mentions: int, writes: int, total: int):
        self.project = project
        self.confidence = confidence
        self.method = method
        self.mentions = mentions
        self.writes = writes
        self.total = total

    def __repr__(self) -> str:
        return f"Detection({self.project!r}, {self.confidence!r}, {self.method!r}, {self.mentions}/{self.total})"


def detect(calls: list[tuple[str, str]]) -> Detection:
    """Which project the tool calls (newest first) worked on, and how sure that is.

    The winner has the most calls, writes counting three times (a read may be a look elsewhere;
    an edit is work on the project); ties go to the most recent. Confidence:

    - ``high``: at least 80 % of the calls touch the winner, and it was edited (or touched 3 times);
    - ``medium``: at least half of the calls touch it;
    - ``low``: anything less.
    """
    calls = calls[:MAX_CALLS]
    if not calls:
        return Detection(None, "low", "fallback", 0, 0, 0)
    counts: dict[str, int] = {}
    writes: dict[str, int] = {}
    newest: dict[str, int] = {}
    for position, (tool, project) in enumerate(calls):
        counts[project] = counts.get(project, 0) + 1
        writes[project] = writes.get(project, 0) + (tool in MODIFYING_TOOLS)
        newest.setdefault(project, position)
    winner = max(counts, key=lambda p: (counts[p] + 2 * writes[p], -newest[p]))
    share = counts[winner] / len(calls)
    if share >= HIGH_SHARE and (writes[winner] >= 1 or counts[winner] >= 3):
        confidence = "high"
    elif share >= MEDIUM_SHARE:
        confidence = "medium"
    else:
        confidence = "low"
    return Detection(winner, confidence, "transcript", counts[winner], writes[winner], len(calls))


BUILD_METADATA = {"kind": "build"}
"""The ``metadata`` of a state whose ``active_project_id`` is a build's (docs/formats.md, "precompact_state.json")."""


def state_record(detection: Detection, timestamp: str) -> dict[str, Any]:
    """The FLAT ``precompact_state.json`` content (four top-level keys, nothing nested; a build adds the
    optional ``metadata`` ``{"kind": "build"}``)."""
    target = detection.project
    ident = target_id(target) if isinstance(target, str) else None
    record: dict[str, Any] = {
        "active_project_id": ident if is_project_id(ident) else None,
        "confidence": detection.confidence if detection.confidence in CONFIDENCES else "low",
        "detection_method": detection.method if detection.method in METHODS else "fallback",
        "timestamp": timestamp,
    }
    if record["active_project_id"] and isinstance(target, str) and is_build_target(target):
        record["metadata"] = dict(BUILD_METADATA)
    return record


def encode_state(record: dict[str, Any]) -> str:
    """The state file's text; ``ValueError`` when it would reach 1 KB (it cannot, with valid values)."""
    text = json.dumps(record, indent=2, ensure_ascii=False) + "\n"
    if len(text.encode("utf-8")) >= MAX_STATE_BYTES:
        raise ValueError(f"the precompact state would be {len(text.encode('utf-8'))} bytes, over 1 KB")
    return text


def state_project(data: object) -> str | None:
    """The project of a parsed state file: ``active_project_id`` (FLAT); the nested
    ``project_detection.project_id`` of the pre-correction shape is read too."""
    if not isinstance(data, dict):
        return None
    project = data.get("active_project_id")
    if project is None and isinstance(data.get("project_detection"), dict):
        project = data["project_detection"].get("project_id")
    return project if is_project_id(project) else None


def state_target(data: object) -> str | None:
    """The target of a parsed state file: :func:`state_project`, a build when ``metadata.kind`` is ``build``."""
    project = state_project(data)
    if project is None or not isinstance(data, dict):
        return project
    metadata = data.get("metadata")
    if isinstance(metadata, dict) and metadata.get("kind") == BUILD_METADATA["kind"]:
        return build_target(project)
    return project


# --------------------------------------------------------------------------- the manifest (Markdown)


def split_manifest(text: str) -> tuple[str, str, int] | None:
    """(front matter, body, line number of the body's first line), or None without front matter."""
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        return None
    for index in range(1, len(lines)):
        if lines[index].strip() in ("---", "..."):
            return "".join(lines[1:index]), "".join(lines[index + 1 :]), index + 2
    return None


def _heading(line: str) -> tuple[int, str] | None:
    stripped = line.strip()
    level = len(stripped) - len(stripped.lstrip("#"))
    if 1 <= level <= 6 and stripped[level : level + 1] == " ":
        return level, stripped[level:].strip()
    return None


def gate_span(body: str) -> tuple[int, int] | None:
    """Line range ``[start, end)`` of the body's "Validation Gate" section (heading included)."""
    lines = body.splitlines()
    in_code = False
    for index, line in enumerate(lines):
        if line.lstrip().startswith("```"):
            in_code = not in_code
            continue
        heading = None if in_code else _heading(line)
        if heading and "validation gate" in heading[1].lower():
            level = heading[0]
            for end in range(index + 1, len(lines)):
                following = _heading(lines[end])
                if (following and following[0] <= level) or _thematic_break(lines[end]):
                    return index, end
            return index, len(lines)
    return None


def _thematic_break(line: str) -> bool:
    """``---``, ``***`` or ``___`` (three or more, spaces allowed): the end of a section."""
    text = line.replace(" ", "")
    return len(text) >= 3 and len(set(text)) == 1 and text[0] in "-*_"


def is_decoration(line: str) -> bool:
    """Blank lines, rules and one-line italic footers (``*Auto-updated by ...*``) carry no content."""
    text = line.strip()
    if not text or set(text) <= set("-*_= "):
        return True
    return len(text) > 2 and text[0] == text[-1] and text[0] in "*_" and text.count(text[0]) <= 2


def body_content(body: str) -> tuple[int, int, int]:
    """(characters of the validation gate, characters of everything else, 0-based line of the first
    other content line or -1). Blank lines, rules and italic footer lines are not counted."""
    lines = body.splitlines()
    span = gate_span(body)
    gate = other = 0
    first = -1
    for index, line in enumerate(lines):
        if is_decoration(line):
            continue
        if span and span[0] <= index < span[1]:
            gate += len(line.strip())
        else:
            other += len(line.strip())
            first = index if first < 0 else first
    return gate, other, first


MIN_SUMMARY_CHARS = 200  # a short status line or two beside the gate is tolerated


_GENERATED_SIGNATURE = "auto-updated by "


def generated_body(body: str) -> bool:
    """Whether a manifest's body is the one Nexus's generator writes and rewrites on every update: it signs
    it ``*Auto-updated by execute-project skill on task/section completion*`` (or ``execute-build``)."""
    for line in body.splitlines():
        text = line.strip().strip("*_").strip().lower()
        if text.startswith(_GENERATED_SIGNATURE) and " skill" in text:
            return True
    return False


def finished_body(body: str) -> bool:
    """Whether a manifest's body is the one its generator wrote when the project was done: it signs it
    ``*Auto-updated by close-project on project completion*`` (the running signature says "on task/section
    completion")."""
    for line in body.splitlines():
        text = " ".join(line.strip().strip("*_").strip().lower().split())
        if text.startswith("auto-updated") and text.rstrip(".").endswith("on project completion"):
            return True
    return False


def is_archived(path: str) -> bool:
    """Whether a file or folder lies in a Nexus archive (``05-archived/``, at a workspace's root or inside
    ``02-projects/``): archived projects are finished."""
    return ARCHIVE_FOLDER in path.replace("\\", "/").split("/")


def duplicates_content(body: str) -> bool:
    """Whether the body carries more than a validation gate: other content longer than the gate
    (and than a couple of lines)."""
    gate, other, _first = body_content(body)
    return other > max(gate, MIN_SUMMARY_CHARS)


def validation_questions(body: str) -> list[str]:
    """The questions of the validation gate: its list items that end with ``?`` (checkboxes removed)."""
    span = gate_span(body)
    if span is None:
        return []
    questions = []
    for line in body.splitlines()[span[0] : span[1]]:
        text = line.strip()
        if not text.endswith("?"):
            continue
        for prefix in ("- [ ] ", "- [x] ", "* [ ] ", "- ", "* "):
            if text.startswith(prefix):
                text = text[len(prefix) :]
                break
        else:
            head = text.split(" ", 1)
            if len(head) == 2 and head[0].rstrip(".)").isdigit():
                text = head[1]
        questions.append(text.replace("**", "").strip())
    return questions


# The top-level folders of a Nexus workspace (docs/formats.md, "Workspace folders").
# A project's own folders are `01-planning`, `02-resources`, `03-working`, `04-outputs`: no name is shared.
WORKSPACE_FOLDERS = frozenset(
    {"00-system", "01-memory", "02-projects", "02-builds", "03-skills", "04-workspace", "05-archived"}
)


def clean_entry(entry: str) -> str:
    """A ``files_to_load`` entry with ``/`` separators and no leading ``./``."""
    path = entry.strip().replace("\\", "/")
    while path.startswith("./"):
        path = path[2:]
    return path


def from_workspace_root(entry: str) -> bool:
    """Whether an entry starts at the workspace root (``00-system/...``, ``02-projects/...``)."""
    return clean_entry(entry).split("/", 1)[0] in WORKSPACE_FOLDERS


def path_problem(entry: object) -> str | None:
    """Why an entry is no relative path at all: not a string, absolute or home-relative (None when it is)."""
    if not isinstance(entry, str) or not entry.strip():
        return "it is not a file path"
    path = entry.strip().replace("\\", "/")
    if path.startswith(("/", "~")) or (len(path) > 1 and path[1] == ":"):
        return "it is an absolute path; entries are relative to the project folder"
    return None


def load_problem(entry: object) -> str | None:
    """Why a ``files_to_load`` entry cannot be loaded safely when only its project folder is known (None
    when it is a relative path that stays inside the project): :func:`path_problem`, or climbing out
    with ``..``. Where the workspace is known, :func:`workspace_path` allows a sibling project's file."""
    problem = path_problem(entry)
    if problem is not None or not isinstance(entry, str):
        return problem
    depth = 0
    for part in entry.strip().replace("\\", "/").split("/"):
        if part == "..":
            depth -= 1
            if depth < 0:
                return "it leaves the project folder (`..`)"
        elif part not in ("", "."):
            depth += 1
    return None


def workspace_path(entry: str, folder: str) -> str | None:
    """The workspace-relative path of an entry of the project at ``folder`` (workspace-relative):
    entries that start with a workspace folder (``00-system/...``) are relative to the workspace root,
    the others to the project folder. None when the entry leaves the workspace."""
    path = clean_entry(entry)
    joined = path if from_workspace_root(path) else f"{folder}/{path}"
    normal = posixpath.normpath(joined)
    return None if normal == ".." or normal.startswith("../") else normal


# legacy key -> manifest key (the legacy ``_resume.md`` front matter)
LEGACY_KEYS = {"resume_version": "resume_schema_version", "updated": "last_updated", "phase": "current_phase"}


def version_text(value: object) -> str | None:
    """A version as a string: ``1.0`` (a YAML number) becomes ``"1.0"``."""
    if isinstance(value, bool) or value is None:
        return None
    return str(value).strip() or None


# --------------------------------------------------------------------------- SessionStart's text (pure)

OPEN_TAG = "<nexus-resume>"
CLOSE_TAG = "</nexus-resume>"


def _plain(value: object) -> str:
    return " ".join(str(value).split()) if value is not None else ""


FOUND_BY = {
    "session": "This session is listed in its manifest's session_ids.",
    "transcript": "It was detected from this session's tool calls (confidence: {confidence}).",
    "state": "It was detected from the previous session's tool calls (confidence: {confidence}).",
    "recent": "It is the most recently updated active build; nothing else pointed to one.",
}
"""How SessionStart found the target, in words (``{confidence}`` is filled in)."""


def is_finished(folder: str, front: dict[str, Any] | None) -> bool:
    """Whether a build is finished: it sits in ``02-builds/complete/``, or its manifest says ``complete``."""
    phase = front.get("current_phase") if isinstance(front, dict) else None
    if isinstance(phase, str) and phase.strip().lower() in ("complete", "completed"):
        return True
    return folder.startswith(f"{BUILDS_FOLDER}/{BUILD_STAGES[1]}/")


def _state_line(front: dict[str, Any]) -> list[str]:
    """The closing line: the manifest's next action, phase, where to continue, progress and blockers."""
    state = [
        f"{name}: {_plain(front[key])}"
        for key, name in (
            ("next_action", "next action"),
            ("current_phase", "phase"),
            ("continue_at", "continue at"),
            ("progress", "progress"),
        )
        if front.get(key) not in (None, "")
    ]
    done, total = front.get("tasks_completed"), front.get("total_tasks")
    if isinstance(done, int) and isinstance(total, int) and total > 0 and "progress" not in front:
        state.append(f"tasks: {done} of {total} done")
    blockers = front.get("blockers")
    if isinstance(blockers, list) and blockers:
        state.append("blockers: " + ", ".join(_plain(item) for item in blockers))
    elif isinstance(blockers, str) and blockers.strip():
        state.append(f"blockers: {_plain(blockers)}")
    return ["", "Then continue: " + "; ".join(state) + "."] if state else []


def resume_instructions(
    *,
    project: str,
    confidence: str,
    source: str,
    manifest: str,
    front: dict[str, Any] | None,
    body: str,
    exists: Any,
    folder: str = "",
    found: str = "state",
) -> str:
    """The text SessionStart injects: read the manifest's files in order, answer the validation
    questions, then continue with ``next_action``. ``project`` is the target (a project id, or a build:
    :func:`build_target`) and ``folder`` its folder relative to the workspace (default: the project's);
    ``found`` how it was found (a key of :data:`FOUND_BY`). ``manifest`` is the manifest's path relative
    to the workspace ("" when there is none); ``exists(path)`` tells whether a workspace-relative file
    exists; ``front`` is the manifest's front matter (None when it could not be read). A finished build
    is named as such, with nothing to load."""
    build = is_build_target(project)
    noun = "build" if build else "project"
    ident = target_id(project)
    folder = folder or f"{PROJECTS_FOLDER}/{ident}"
    event = "was compacted" if source == "compact" else "was resumed"
    lines = [
        OPEN_TAG,
        f"STOP: the conversation {event}. Before anything else, resume {noun} {ident} ({folder}/).",
        FOUND_BY.get(found, FOUND_BY["state"]).format(confidence=confidence),
    ]
    if confidence == "low":
        lines.append(f"Low confidence: confirm with the user that this is the {noun} to continue.")
    if build and is_finished(folder, front):
        lines[1] = f"STOP: the conversation {event}. The session was working on build {ident} ({folder}/)."
        lines.append("That build is complete: there is nothing to resume in it. Ask the user what to work on next.")
        return "\n".join([*lines, CLOSE_TAG])
    if not manifest:
        lines += [f"The {noun} has no {PLANNING_FOLDER}/{MANIFEST_NAME}: read its {PLANNING_FOLDER}/ files first."]
        return "\n".join([*lines, CLOSE_TAG])
    if front is None:
        lines += [f"Read {manifest} first (its front matter could not be read) and the files it lists."]
        return "\n".join([*lines, CLOSE_TAG])
    entries = front.get("files_to_load")
    files = entries if isinstance(entries, list) else []
    listed, skipped = [], []
    for entry in files:
        problem = path_problem(entry)
        path = workspace_path(entry, folder) if problem is None and isinstance(entry, str) else None
        if path is None:
            skipped.append(f"{_plain(entry)} ({problem or 'it leaves the workspace'})")
            continue
        listed.append(path if exists(path) else f"{path} (missing: tell the user)")
    lines.append("")
    if listed:
        lines.append("1. Read these files now, in this order, before you reply to the user:")
        lines += [f"   - {path}" for path in listed]
    else:
        lines.append(f"1. {manifest} lists no file to load: read it and the {noun}'s {PLANNING_FOLDER}/ files.")
    if skipped:
        lines.append("   Not loaded (unsafe entries of files_to_load): " + "; ".join(skipped))
    questions = validation_questions(body)
    if questions:
        lines.append("2. Then answer these validation questions explicitly in your first reply:")
        lines += [f"   - {question}" for question in questions]
        lines.append("3. If you cannot answer them, STOP and re-read the files above.")
    lines += _state_line(front)
    return "\n".join([*lines, CLOSE_TAG])
