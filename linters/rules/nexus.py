"""N rules: Nexus resume state, the ``resume-context.md`` manifests (of projects and of builds) and
``precompact_state.json`` (docs/formats.md, "Nexus state").

Per document: the manifest's version and timestamps as YAML reads them, its ``files_to_load``
entries, a body that is more than a validation gate; the precompact state's FLAT shape and size.
Per workspace: legacy ``_resume.md`` manifests beside the projects (they are not a discovered
artifact kind, so they are looked for in the project folders of the Nexus workspaces seen).
"""

from __future__ import annotations

import os
from pathlib import Path

from ctxres import nexus
from ctxres.config import Config
from ctxres.findings import Finding, Position, Severity
from ctxres.formats.document import Document, JsonPath, format_json_path
from ctxres.formats.loading import Format, load_file
from ctxres.globs import is_ignored, parse_ignore
from ctxres.linters.checking.discovery import find_named
from ctxres.linters.checking.finished_work import is_finished
from ctxres.linters.checking.registry import Rule, document_check, register, workspace_check
from ctxres.linters.checking.severity_policy import Case
from ctxres.project import inside

# `ctxres check` loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ctxres.linters.checking.engine import Workspace


VERSION_KEY = "resume_schema_version"


def _finding(doc: Document, rule: Rule, message: str, path: JsonPath, fix: str = "", *, key: bool = False) -> Finding:
    position = doc.locate(path, key=key)
    return Finding(doc.path, rule.code, message, rule.severity, position, format_json_path(path), fix)


def _raw(doc: Document, path: JsonPath) -> str:
    """The value at ``path`` as written in the file (to the end of its line, comment removed)."""
    position = doc.value_pos.get(path)
    if position is None:
        return ""
    lines = doc.text.splitlines()
    if position.line > len(lines):
        return ""
    text = lines[position.line - 1][position.col - 1 :]
    cut = text.find(" #")
    return (text[:cut] if cut >= 0 else text).strip()


# --------------------------------------------------------------------------- resume-context.md


LEGACY_VERSION = register(
    "N001",
    "legacy-version-key",
    "A resume manifest names its version `resume_version` (the legacy key).",
    Severity.WARNING,
    case=Case.OLD_VERSION,
    why="`resume_version` is the legacy name of the version key, still read.",
    explanation="""
    ## Why
    The manifest format was renamed: the version is `resume_schema_version`. The legacy
    `resume_version` is still read, but tools written for the current format do not look for it.

    ## Example
    ```yaml
    ---
    resume_version: 1.2
    ```

    ## Fix
    Rename the key and quote the value: `resume_schema_version: "1.2"`.
    `ctxres migrate-nexus PROJECT-DIR` does it without touching the rest of the file.
    """,
)


VERSION_NUMBER = register(
    "N002",
    "version-not-a-string",
    "The manifest version is written as a number.",
    Severity.WARNING,
    case=Case.SAME_FACTS,
    why='`version: 1.0` and `version: "1.0"` carry the same fact.',
    explanation="""
    ## Why
    Unquoted, `1.0` is a number in YAML, not the text "1.0": `1.10` reads as `1.1` and `2.0` as
    `2`, and a reader comparing versions as text (`== "1.0"`) finds no match. The format defines the
    version as a string.

    ## Example
    ```yaml
    resume_schema_version: 1.0
    ```

    ## Fix
    Quote it: `resume_schema_version: "1.0"` (`ctxres migrate-nexus PROJECT-DIR` does it).
    """,
)


def _check_versions(doc: Document, data: dict[str, Any]) -> list[Finding]:
    findings = []
    if "resume_version" in data:
        value = data["resume_version"]
        shown = _raw(doc, ("resume_version",)) or str(value)
        if VERSION_KEY in data:
            message = f"legacy `resume_version: {shown}` beside `{VERSION_KEY}`: the legacy key is ignored"
            fix = "remove the `resume_version` line"
        else:
            quoted = f'"{nexus.version_text(value) or shown}"'
            message = f"legacy key `resume_version`: the version key is `{VERSION_KEY}`"
            if not isinstance(value, str):
                message += f", and its value {shown} is a number in YAML (quote it)"
            fix = f"write `{VERSION_KEY}: {quoted}` instead (`ctxres migrate-nexus` does it)"
        findings.append(_finding(doc, LEGACY_VERSION, message, ("resume_version",), fix, key=True))
    value = data.get(VERSION_KEY)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        shown = _raw(doc, (VERSION_KEY,)) or str(value)
        findings.append(
            _finding(
                doc,
                VERSION_NUMBER,
                f'`{VERSION_KEY}` is the number {shown}, not the text "{shown}": YAML reads 1.10 as 1.1',
                (VERSION_KEY,),
                f'quote it: `{VERSION_KEY}: "{shown}"` (`ctxres migrate-nexus` does it)',
            )
        )
    return findings


UNQUOTED_TIME = register(
    "N003",
    "unquoted-timestamp",
    "A manifest timestamp is unquoted, so YAML reads it as a date, not as text.",
    Severity.WARNING,
    case=Case.SAME_FACTS,
    why="An unquoted timestamp is the same time, read as a date instead of text.",
    explanation="""
    ## Why
    YAML turns an unquoted `2026-01-03T17:00:00` into a date-time object. Readers then get a date
    instead of the ISO-8601 text the format defines: `json.dumps` fails on it, a time without a zone
    is silently read in the local zone, and writing the file back changes the value's spelling.

    ## Example
    ```yaml
    last_updated: 2026-01-03T17:00:00
    ```

    ## Fix
    Quote it: `last_updated: "2026-01-03T17:00:00"` (`ctxres migrate-nexus PROJECT-DIR` does it).
    """,
)


def _check_timestamps(doc: Document) -> list[Finding]:
    findings = []
    for path in doc.yaml_timestamps:
        shown = _raw(doc, path) or str(doc.get(path))
        name = format_json_path(path).removeprefix("$.")
        findings.append(
            _finding(
                doc,
                UNQUOTED_TIME,
                f"`{name}: {shown}` is unquoted, so YAML reads it as a date-time object, not as ISO-8601 text",
                path,
                f'quote it: `{name}: "{shown}"`',
            )
        )
    return findings


def project_folder(fs_path: str) -> str | None:
    """The project folder of a live manifest ``<project>/01-planning/resume-context.md``, else None."""
    folder = os.path.dirname(os.path.abspath(fs_path))
    if os.path.basename(fs_path) != nexus.MANIFEST_NAME or os.path.basename(folder) != nexus.PLANNING_FOLDER:
        return None
    return os.path.dirname(folder)


def workspace_of(project: str) -> str | None:
    """The workspace root of ``<workspace>/02-projects/<project>`` (or ``02-builds``, ``05-archived``), else None."""
    located = _project_of(os.path.join(project, nexus.MANIFEST_NAME))
    if located is None or os.path.normpath(located[1]) != os.path.normpath(os.path.abspath(project)):
        return None
    return located[0]


def resolve_entry(entry: str, project: str, workspace: str | None) -> str:
    """Where an entry points: the workspace root for ``00-system/...``-style entries (when the workspace is
    known), the project folder for every other entry."""
    base = workspace if workspace is not None and nexus.from_workspace_root(entry) else project
    return os.path.normpath(os.path.join(base, nexus.clean_entry(entry)))


def _lexically_inside(path: str, root: str) -> bool:
    return os.path.normpath(path) == os.path.normpath(root) or os.path.normpath(path).startswith(
        os.path.join(os.path.normpath(root), "")
    )


def _climbs(entry: object) -> bool:
    """A relative path (not absolute, not home-relative) that may climb with ``..``."""
    if not isinstance(entry, str) or not entry.strip():
        return False
    path = entry.strip().replace("\\", "/")
    return not path.startswith(("/", "~")) and not (len(path) > 1 and path[1] == ":")


OUTSIDE = register(
    "N006",
    "file-outside-project",
    "A `files_to_load` entry is absolute or leaves the workspace.",
    case=Case.TOOL_JOB,
    why="SessionStart loads files only inside the workspace.",
    explanation="""
    ## Why
    Entries are relative paths: to the project folder (`01-planning/plan.md`), or to the workspace
    root when they start with one of its top-level folders (`00-system/...`, `01-memory/...`,
    `02-projects/...`, `02-builds/...`, `03-skills/...`, `04-workspace/...`). An absolute or
    home-relative path works on one machine only, and a path that climbs out of the workspace with
    `..` makes a resuming session read files that are not part of it.

    What is normal: project-relative entries, workspace-root entries, and a `..` entry that stays
    inside the workspace (`../25-other/01-planning/plan.md` reads a sibling project's file: it is in
    the workspace, so it is not reported). A build's entries are relative to the build folder
    (`02-builds/active/<build>/`). When the manifest is not in a workspace
    (`<workspace>/02-projects/<project>/01-planning/`, `<workspace>/02-builds/...`), the project or
    build folder is the limit.

    ## Example
    ```yaml
    files_to_load:
      - "/home/ada/nexus/02-projects/24-x/01-planning/plan.md"
      - "../../../notes/plan.md"     # leaves the workspace
    ```

    ## Fix
    Write the path relative to the project folder (`01-planning/plan.md`) or to the workspace root
    (`00-system/core/orchestrator.md`); move documents from outside the workspace into it.
    """,
)


MISSING_FILE = register(
    "N007",
    "file-to-load-missing",
    "A `files_to_load` entry names a file that does not exist.",
    Severity.WARNING,
    case=Case.ADVICE,
    why="SessionStart skips a missing file and loads the others; a finished project may have moved it.",
    explanation="""
    ## Why
    After a compaction the SessionStart hook tells the model to read these files before anything
    else. A missing file (renamed, moved, never written) leaves a gap exactly where the session
    re-orients. Checked for the live manifest of a project, `<project>/01-planning/resume-context.md`,
    and of a build, `02-builds/active/<build>/01-planning/resume-context.md` (or `02-builds/complete/`,
    `02-builds/<build>/`).

    What is normal: an entry is looked for where it points. One that starts with a top-level folder
    of the workspace (`00-system/...`, `02-projects/...`; see N006) is resolved against the
    workspace root (the folder that holds `02-projects/` or `02-builds/`), every other entry against
    the project or build folder (`02-builds/active/<build>/`, not `02-builds/active/`). A finished
    project or build (`current_phase: complete`) may list no file at all.

    ## Example
    `02-projects/24-demo-project/01-planning/resume-context.md`, in a project without
    `01-planning/steps.md`:

    ```yaml
    files_to_load:
      - "01-planning/overview.md"
      - "01-planning/steps.md"
    ```

    ## Fix
    Correct the path (relative to the project folder, or to the workspace root), create the file,
    or remove the entry.
    """,
)


def _check_files(doc: Document, data: dict[str, Any]) -> list[Finding]:
    entries = data.get("files_to_load")
    if not isinstance(entries, list):
        return []
    project = project_folder(doc.fs_path) if doc.fs_path else None
    workspace = workspace_of(project) if project is not None else None
    findings = []
    safe: list[tuple[int, str]] = []
    for index, entry in enumerate(entries):
        problem = nexus.load_problem(entry)
        if problem is not None and project and workspace and _climbs(entry):
            # `..` that stays inside the workspace (a sibling project's file) is not outside anything
            if _lexically_inside(resolve_entry(entry, project, workspace), workspace):
                problem = None
            else:
                problem = f"it leaves the workspace {os.path.basename(workspace) or workspace}/ (`..`)"
        if problem is None:
            safe.append((index, entry))
        elif isinstance(entry, str):
            findings.append(
                _finding(
                    doc,
                    OUTSIDE,
                    f"`files_to_load` entry {entry!r}: {problem}",
                    ("files_to_load", index),
                    "write the path relative to the project folder (or to the workspace root), inside the workspace",
                )
            )
    if project is None:
        return findings
    bound = workspace if workspace is not None else project
    for index, entry in safe:
        target = resolve_entry(entry, project, workspace)
        if os.path.lexists(target) and not inside(Path(target), Path(bound)):
            findings.append(
                _finding(
                    doc,
                    OUTSIDE,
                    f"`files_to_load` entry {entry!r} resolves through a symbolic link to "
                    f"{os.path.realpath(target)}, outside the {'workspace' if workspace else 'project folder'}",
                    ("files_to_load", index),
                    "point the entry at the file inside the project, or replace the symbolic link with the file",
                )
            )
    missing = [(index, entry) for index, entry in safe if not os.path.exists(resolve_entry(entry, project, workspace))]
    if missing:
        where = f"the {'build' if doc.kind == 'build-manifest' else 'project'} folder {os.path.basename(project)}/"

        def base(entry: str) -> str:
            return "the workspace root" if workspace is not None and nexus.from_workspace_root(entry) else where

        bases = {base(entry) for _index, entry in missing}
        if len(missing) == 1:
            message = f"`files_to_load` entry {missing[0][1]!r} does not exist in {base(missing[0][1])}"
        elif len(bases) == 1:
            names = ", ".join(entry for _index, entry in missing)
            message = f"{len(missing)} of {len(entries)} `files_to_load` entries do not exist in {bases.pop()}: {names}"
        else:
            names = ", ".join(f"{entry} (in {base(entry)})" for _index, entry in missing)
            message = f"{len(missing)} of {len(entries)} `files_to_load` entries do not exist: {names}"
        findings.append(
            _finding(
                doc,
                MISSING_FILE,
                message,
                ("files_to_load", missing[0][0]),
                "correct the paths (relative to the project or build folder, or to the workspace root for "
                "00-system/..., 02-projects/...), create the files, or remove the entries",
            )
        )
    return findings


DUPLICATION = register(
    "N008",
    "manifest-duplicates-content",
    "The manifest's body holds more than the validation gate.",
    Severity.WARNING,
    case=Case.CONVENTION,
    why="The manifest's body is the validation gate by convention; the rest belongs in the files it loads.",
    explanation="""
    ## Why
    `resume-context.md` is a loading manifest and a validation gate, not a summary: the content
    lives in the files it lists, and a copy in the manifest goes stale and contradicts them while
    costing context on every resume. Here the body outside the "Validation Gate" section is longer
    than the gate itself.

    ## Example
    ```markdown
    ---
    files_to_load: ["01-planning/steps.md", "03-working/key-insights.md"]
    ---
    ## What Was Built
    1. **validate-feature skill** ...      <- a summary of the files listed above
    ```

    ## Fix
    Move the text into the project's documents (and list them in `files_to_load`); keep only the
    "# Validation Gate" section with the questions to answer on resume.

    ## Not checked
    A build's manifest (one that names a `build_id`, in `02-builds/`), and a project's manifest whose
    body Nexus's generator wrote (it signs it "*Auto-updated by execute-project skill on
    task/section completion*"): the generator writes that body (a progress summary) and rewrites it on
    every update, so there is nothing to move by hand. Finished work is not checked either, since
    nobody resumes it again: a complete project, an archived one (in `05-archived/`), and one whose
    manifest its generator finished ("*Auto-updated ... on project completion*").
    """,
)


def _check_body(doc: Document) -> list[Finding]:
    split = nexus.split_manifest(doc.text)
    if split is None:
        return []
    _front, body, first_line = split
    if nexus.generated_body(body):
        return []  # Nexus's generator writes it, and rewrites it on every update: nothing to move by hand
    gate, other, first = nexus.body_content(body)
    if not other > max(gate, nexus.MIN_SUMMARY_CHARS):  # nexus.duplicates_content, its counts kept
        return []
    beside = f"besides a validation gate of {gate:,}" if gate else "and no validation gate"
    message = (
        f"the body carries {other:,} characters of content {beside}: a loading manifest lists the files "
        "to read, it does not summarise them"
    )
    return [
        Finding(
            doc.path,
            DUPLICATION.code,
            message,
            DUPLICATION.severity,
            Position(first_line + max(first, 0), 1),
            fix="move the content into the project's files (listed in files_to_load); keep only a "
            "'# Validation Gate' section",
        )
    ]


def _check_manifest(doc: Document) -> list[Finding]:
    """The checks of a manifest; a build's body is Nexus's generator's, not a summary written by hand (no N008)."""
    data = doc.data if isinstance(doc.data, dict) else {}
    return [
        *_check_versions(doc, data),
        *_check_timestamps(doc),
        *_check_files(doc, data),
        *(_check_body(doc) if doc.kind == "resume-context" else []),
    ]


# --------------------------------------------------------------------------- precompact_state.json


def nested_keys(data: Any) -> list[str]:
    """Top-level keys of a precompact state that hold a nested mapping or list (``metadata`` excepted)."""
    if not isinstance(data, dict):
        return []
    return [key for key, value in data.items() if key != "metadata" and isinstance(value, (dict, list))]


def owned_paths(doc: Document) -> frozenset[JsonPath]:
    """Schema problems the N rules report instead of the conformance rules: in a nested precompact
    state, the nested keys and the missing FLAT ``active_project_id`` (one finding, with the fix)."""
    if doc.kind != "precompact-state":
        return frozenset()
    nested = nested_keys(doc.data)
    if not nested:
        return frozenset()
    owned: set[JsonPath] = {(key,) for key in nested}
    data = doc.data if isinstance(doc.data, dict) else {}
    moved = any(isinstance(data[key], dict) and "project_id" in data[key] for key in nested)
    if moved and "active_project_id" not in data:
        owned.add(("active_project_id",))  # N004's fix says where it is
    return frozenset(owned)


NESTED_STATE = register(
    "N004",
    "nested-precompact-state",
    "`precompact_state.json` nests its data instead of being FLAT.",
    case=Case.TOOL_JOB,
    why="SessionStart reads `active_project_id` at the top level: nested, it finds nothing.",
    explanation="""
    ## Why
    The state the PreCompact hook saves is FLAT by design: SessionStart reads `active_project_id`
    at the top level. The first draft nested it (`project_detection: {project_id: ...}`); a reader of
    the corrected format finds no project in such a file, and the session resumes without loading
    its project. (The optional `metadata` object is the only nested value allowed.)

    ## Example
    ```json
    {"project_detection": {"project_id": "24-project-x", "confidence": "high"}, "confidence": "high", ...}
    ```

    ## Fix
    Move the values to the top level: `"active_project_id": "24-project-x"`, and remove the nested
    object.
    """,
)


STATE_SIZE = register(
    "N005",
    "precompact-state-too-large",
    "`precompact_state.json` is 1 KB or larger.",
    case=Case.TOOL_JOB,
    why="The precompact state must stay under 1 KB to be read at every session start.",
    explanation="""
    ## Why
    The PreCompact hook has 50 ms and SessionStart 200 ms; the state holds four short values and
    stays under 1 KB. A larger file carries data that belongs elsewhere (a transcript excerpt, a
    summary), slows both hooks and risks carrying secrets into the cache.

    ## Example
    A `00-system/.cache/precompact_state.json` of 1,219 bytes, whose `metadata` carries the last
    prompt repeated many times:

    ```json
    {"active_project_id": "24-demo-project", "confidence": "high", "detection_method": "transcript",
     "timestamp": "2026-01-04T12:00:00Z",
     "metadata": {"last_prompt": "Please continue with the resume hook work. Please continue ..."}}
    ```

    ## Fix
    Keep only `active_project_id`, `confidence`, `detection_method`, `timestamp` (and a small
    `metadata`).
    """,
)


def _check_state(doc: Document) -> list[Finding]:
    findings = []
    data = doc.data if isinstance(doc.data, dict) else {}
    for key in nested_keys(data):
        value = data[key]
        inner = sorted(value) if isinstance(value, dict) else []
        if "project_id" in inner and "active_project_id" not in data:
            fix = f'move `{key}.project_id` to the top level as `"active_project_id"` and remove `{key}`'
        else:
            fix = f"put the values of `{key}` at the top level under the documented keys, and remove `{key}`"
        what = f"`{key}` holds a nested object ({', '.join(inner)})" if inner else f"`{key}` holds a nested list"
        findings.append(
            _finding(
                doc,
                NESTED_STATE,
                f"{what}: the precompact state is FLAT, and SessionStart reads `active_project_id` at the top level",
                (key,),
                fix,
                key=True,
            )
        )
    size = _size(doc)
    if size >= nexus.MAX_STATE_BYTES:
        findings.append(
            Finding(
                doc.path,
                STATE_SIZE.code,
                f"the precompact state is {size:,} bytes; it must stay under 1 KB ({nexus.MAX_STATE_BYTES:,} bytes)",
                STATE_SIZE.severity,
                Position(1, 1),
                fix="keep only active_project_id, confidence, detection_method, timestamp (and a small metadata)",
            )
        )
    return findings


def _size(doc: Document) -> int:
    if doc.fs_path:
        try:
            return os.path.getsize(doc.fs_path)
        except OSError:
            pass
    return len(doc.text.encode("utf-8"))


@document_check(
    LEGACY_VERSION,
    VERSION_NUMBER,
    UNQUOTED_TIME,
    OUTSIDE,
    MISSING_FILE,
    DUPLICATION,
    kinds=("resume-context", "build-manifest"),
)
def check_manifest(doc: Document, _config: Config) -> list[Finding]:
    return _check_manifest(doc)


@document_check(NESTED_STATE, STATE_SIZE, kinds=("precompact-state",))
def check_state(doc: Document, _config: Config) -> list[Finding]:
    return _check_state(doc)


# --------------------------------------------------------------------------- legacy _resume.md


# Folders that hold project folders: the projects, the builds, and the archive (`05-archived/`, where
# Nexus's archive-project skill moves finished projects, at the workspace root or inside `02-projects/`).
ARCHIVE_FOLDER = nexus.ARCHIVE_FOLDER
CONTAINERS = (nexus.PROJECTS_FOLDER, "02-builds", ARCHIVE_FOLDER)


def _project_of(fs_path: str) -> tuple[str, str] | None:
    """(Nexus workspace folder, project folder) of a file inside ``02-projects/NN-name/``, ``02-builds/NN-name/``
    (``02-builds/active/NN-name/``, ``02-builds/complete/NN-name/``) or ``05-archived/NN-name/`` (the nearest
    such folder), else None."""
    parts = os.path.abspath(fs_path).split(os.sep)
    for index in range(len(parts) - 3, 0, -1):
        if parts[index] in CONTAINERS:
            workspace = parts[:index]
            if parts[index] == ARCHIVE_FOLDER and workspace and workspace[-1] in CONTAINERS:
                workspace = workspace[:-1]  # 02-projects/05-archived/NN-name/
            depth = 2
            if parts[index] == nexus.BUILDS_FOLDER and parts[index + 1] in nexus.BUILD_STAGES:
                if index + 2 >= len(parts) - 1:
                    return None  # a file of 02-builds/active/ itself belongs to no build
                depth = 3  # 02-builds/active/NN-name/, 02-builds/complete/NN-name/
            return os.sep.join(workspace) or os.sep, os.sep.join(parts[: index + depth])
    return None


def _display_base(ws: Workspace) -> str:
    """The folder the checked files' paths are shown relative to (the engine's working folder)."""
    if ws.cwd is not None:
        return os.path.abspath(ws.cwd)
    for doc in ws.documents:
        if doc.fs_path and not os.path.isabs(doc.path):
            absolute = os.path.abspath(doc.fs_path)
            tail = os.sep + doc.path.replace("/", os.sep)
            if absolute.endswith(tail):
                return absolute[: -len(tail)] or os.sep
    return os.getcwd()


def _projects(ws: Workspace) -> dict[str, tuple[str, str]]:
    """The project folders to look into, by real path: those holding a checked file, and those holding a
    legacy file anywhere under the checked paths (archived projects too), so that the same projects are
    found whether the check runs from the workspace root, a parent folder or a sub-folder. Without the
    checked paths (an API caller): every project of the configuration root when it is a workspace."""
    found: dict[str, tuple[str, str]] = {}
    for doc in ws.documents:
        located = _project_of(doc.fs_path) if doc.fs_path else None
        if located:
            found.setdefault(os.path.realpath(located[1]), located)
    if ws.roots:
        for legacy in find_named(ws.roots, ws.config, (nexus.LEGACY_NAME,)):
            folder = os.path.dirname(os.path.abspath(legacy))
            if os.path.basename(folder) == nexus.PLANNING_FOLDER:
                folder = os.path.dirname(folder)
            located = _project_of(os.path.join(folder, nexus.LEGACY_NAME))
            if located and os.path.realpath(located[1]) == os.path.realpath(folder):
                found.setdefault(os.path.realpath(folder), located)
        return found
    base = os.path.abspath(ws.config.root)
    for container in CONTAINERS:
        try:
            names = sorted(os.listdir(os.path.join(base, container)))
        except OSError:
            continue
        for name in names:
            project = os.path.join(base, container, name)
            if os.path.isdir(project):
                found.setdefault(os.path.realpath(project), (base, project))
    return found


def legacy_files(project: str) -> list[str]:
    """The legacy ``_resume.md`` files of a project folder (at its top or in ``01-planning/``)."""
    candidates = (
        os.path.join(project, nexus.LEGACY_NAME),
        os.path.join(project, nexus.PLANNING_FOLDER, nexus.LEGACY_NAME),
    )
    return [candidate for candidate in candidates if os.path.isfile(candidate)]


def legacy_traits(data: Any, timestamps: list[JsonPath]) -> list[str]:
    """What a legacy front matter does differently from a manifest, in words."""
    data = data if isinstance(data, dict) else {}
    traits = []
    if "resume_version" in data:
        traits.append(f"`resume_version: {data['resume_version']}` for `{VERSION_KEY}`")
    elif VERSION_KEY not in data:
        traits.append("no version field")
    renamed = [(old, new) for old, new in nexus.LEGACY_KEYS.items() if old in data and old != "resume_version"]
    traits += [f"`{old}` for `{new}`" for old, new in renamed]
    traits += [f"unquoted `{'.'.join(map(str, path))}`" for path in timestamps]
    if "files_to_load" not in data:
        traits.append("no `files_to_load`")
    return traits


def _excluded(rel: str, config: Config) -> bool:
    rules = parse_ignore([*config.exclude, *config.extend_exclude])
    parts = rel.split("/")
    return any(is_ignored("/".join(parts[: i + 1]), i < len(parts) - 1, rules) for i in range(len(parts)))


LEGACY_FILE = register(
    "N009",
    "legacy-resume-file",
    "A project still has a legacy `_resume.md` manifest.",
    Severity.WARNING,
    case=Case.OLD_VERSION,
    why="`_resume.md` is the legacy manifest, still read.",
    explanation="""
    ## Why
    The manifest was renamed from `_resume.md` to `01-planning/resume-context.md`, with a new front
    matter (`resume_schema_version`, `project_name`, `files_to_load`, a validation gate). The hooks
    load `resume-context.md` only: a project with just `_resume.md` is resumed without its files,
    and a `_resume.md` left beside a migrated manifest is a second, stale copy.

    Where it is looked for: `_resume.md` at the top of a project folder or in its `01-planning/`,
    for every project folder under the checked paths (`02-projects/NN-name/`, `02-builds/NN-name/`),
    with the excludes and `.gitignore` rules of the check. The same files are found whether the
    check runs from the workspace root, a parent folder or a sub-folder (there: those below it). A
    `_resume.md` outside any project folder is not a Nexus manifest and is not reported; nor is a
    `_resume.md.backup` (what `migrate-nexus` leaves). Finished work is not reported either, since
    nobody resumes it again: an archived project (in `05-archived/`), and the leftover copy of a
    project whose manifest says it is complete, or whose manifest's body its generator wrote on
    project completion ("*Auto-updated ... on project completion*").

    ## Example
    `02-projects/24-demo-project/_resume.md`, the project's only manifest:

    ```markdown
    ---
    updated: "2025-12-29T10:45:00"
    phase: "execution"
    project_id: "24-demo-project"
    ---
    ```

    ## Fix
    Run `ctxres migrate-nexus PROJECT-DIR`: it writes `01-planning/resume-context.md` from the
    legacy file (normalised front matter, the validation gate) and keeps the old file as
    `_resume.md.backup`; when the new manifest already exists it only moves the leftover to the
    backup.
    """,
)


def _legacy_finding(root: str, base: str, project: str, legacy: str) -> Finding | None:
    def shown(path: str) -> str:
        return os.path.relpath(path, base).replace(os.sep, "/")

    if nexus.is_archived(project):
        return None  # an archived project: nobody resumes it again, migrating its manifest gains nothing
    result = load_file(legacy, "resume-context", Format.FRONT_MATTER)
    doc = result.document
    traits = legacy_traits(doc.data, doc.yaml_timestamps) if doc is not None else ["no YAML front matter"]
    manifest = os.path.join(project, nexus.PLANNING_FOLDER, nexus.MANIFEST_NAME)
    what = f"legacy resume manifest ({'; '.join(traits)})" if traits else "legacy resume manifest"
    if os.path.isfile(manifest):
        if _finished_manifest(manifest):
            return None  # a finished project: nobody resumes it again, the copy is harmless
        message = f"{what}: {nexus.PLANNING_FOLDER}/{nexus.MANIFEST_NAME} already replaces it; this copy is left over"
        fix = f"`ctxres migrate-nexus {shown(project)}` moves it to {nexus.LEGACY_NAME}.backup"
    else:
        message = f"{what}: the hooks read {nexus.PLANNING_FOLDER}/{nexus.MANIFEST_NAME}, which this project lacks"
        fix = f"`ctxres migrate-nexus {shown(project)}` writes it from this file and keeps a backup"
    return Finding(shown(legacy), LEGACY_FILE.code, message, LEGACY_FILE.severity, Position(1, 1), fix=fix)


def _finished_manifest(path: str) -> bool:
    """Whether a project's ``resume-context.md`` says the project is complete (or its generator finished it)."""
    document = load_file(path, "resume-context", Format.FRONT_MATTER).document
    return document is not None and isinstance(document.data, dict) and is_finished(document)


@workspace_check(LEGACY_FILE)
def check_workspace(ws: Workspace) -> list[Finding]:
    findings = []
    base = _display_base(ws)
    for _real, (root, project) in sorted(_projects(ws).items()):
        for legacy in legacy_files(project):
            if not _excluded(os.path.relpath(legacy, root).replace(os.sep, "/"), ws.config):
                finding = _legacy_finding(root, base, project, legacy)
                if finding is not None:
                    findings.append(finding)
    return findings
