"""Nexus resume state (seed 004): project detection and the ``resume-context.md`` loading manifest.

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

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover - typing is not imported at run time (start-up cost)
    from typing import Any

PROJECTS_FOLDER = "02-projects"
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


def project_in_path(path: str) -> str | None:
    """The project id of a path inside ``02-projects/NN-name/`` (``\\`` separators too), else None."""
    text = path.replace("\\", "/")
    start = 0
    marker = PROJECTS_FOLDER + "/"
    while True:
        found = text.find(marker, start)
        if found < 0:
            return None
        if found == 0 or text[found - 1] == "/":
            candidate = text[found + len(marker) :].split("/", 1)[0]
            if is_project_id(candidate):
                return candidate
        start = found + 1


def projects_in_text(text: str) -> list[str]:
    """Every project id named by a ``02-projects/NN-name`` path in a shell command, in order."""
    found: list[str] = []
    normalised = text.replace("\\", "/")
    start = 0
    marker = PROJECTS_FOLDER + "/"
    while True:
        at = normalised.find(marker, start)
        if at < 0:
            return found
        if at == 0 or not (normalised[at - 1].isalnum() or normalised[at - 1] in "-_."):
            rest = normalised[at + len(marker) :]
            end = 0
            while end < len(rest) and (rest[end] in _LOWER_DIGITS or rest[end] == "-"):
                end += 1
            if is_project_id(rest[:end]):
                found.append(rest[:end])
        start = at + 1


def tool_calls(entry: dict[str, Any]) -> list[tuple[str, str]]:
    """(tool name, project id) for each tool call of a transcript line that touches a project.

    Read/Write/Edit/MultiEdit/NotebookEdit count their file path; Bash every project path in its
    command.
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
            project = project_in_path(value) if isinstance(value, str) else None
            if project:
                calls.append((name, project))
        elif name in COMMAND_TOOLS:
            command = args.get(COMMAND_TOOLS[name])
            if isinstance(command, str):
                calls += [(name, project) for project in reversed(projects_in_text(command))]
    return calls


class Detection:
    """The project a session was working on: id, confidence, and the evidence counted."""

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


def state_record(detection: Detection, timestamp: str) -> dict[str, Any]:
    """The FLAT ``precompact_state.json`` content (four top-level keys, nothing nested)."""
    return {
        "active_project_id": detection.project if is_project_id(detection.project) else None,
        "confidence": detection.confidence if detection.confidence in CONFIDENCES else "low",
        "detection_method": detection.method if detection.method in METHODS else "fallback",
        "timestamp": timestamp,
    }


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


# The top-level folders of a Nexus workspace (seed 004's system map; real workspaces add `02-builds`).
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


def resume_instructions(
    *,
    project: str,
    confidence: str,
    source: str,
    manifest: str,
    front: dict[str, Any] | None,
    body: str,
    exists: Any,
) -> str:
    """The text SessionStart injects: read the manifest's files in order, answer the validation
    questions, then continue with ``next_action``. ``manifest`` is the manifest's path relative to the
    workspace ("" when the project has none); ``exists(path)`` tells whether a workspace-relative file
    exists; ``front`` is the manifest's front matter (None when it could not be read)."""
    folder = f"{PROJECTS_FOLDER}/{project}"
    event = "was compacted" if source == "compact" else "was resumed"
    lines = [
        OPEN_TAG,
        f"STOP: the conversation {event}. Before anything else, resume project {project} ({folder}/).",
        f"It was detected from the previous session's tool calls (confidence: {confidence}).",
    ]
    if confidence == "low":
        lines.append("Low confidence: confirm with the user that this is the project to continue.")
    if not manifest:
        lines += [f"The project has no {PLANNING_FOLDER}/{MANIFEST_NAME}: read its {PLANNING_FOLDER}/ files first."]
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
        lines.append(f"1. {manifest} lists no file to load: read it and the project's {PLANNING_FOLDER}/ files.")
    if skipped:
        lines.append("   Not loaded (unsafe entries of files_to_load): " + "; ".join(skipped))
    questions = validation_questions(body)
    if questions:
        lines.append("2. Then answer these validation questions explicitly in your first reply:")
        lines += [f"   - {question}" for question in questions]
        lines.append("3. If you cannot answer them, STOP and re-read the files above.")
    state = [
        f"{name}: {_plain(front[key])}"
        for key, name in (("next_action", "next action"), ("current_phase", "phase"), ("progress", "progress"))
        if front.get(key) not in (None, "")
    ]
    if state:
        lines += ["", "Then continue: " + "; ".join(state) + "."]
    return "\n".join([*lines, CLOSE_TAG])
