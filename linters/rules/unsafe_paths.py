"""Path rules (X family, X002 on): paths in state files that leave the project.

X002 checks the ``files_to_read`` list that tells a resuming session which files to read first: in
the resumption section of an ORCHESTRATION file (v1.0 and v2.0 keep it at the same place) and in
the ``recovery_instructions`` of a checkpoint file. ``checkpoint_file`` (A005) and ``files_to_load``
(N006) have their own rules.
"""

from __future__ import annotations

import os
from pathlib import Path

from ctxres.config import Config
from ctxres.findings import Finding
from ctxres.formats.document import Document, JsonPath, format_json_path
from ctxres.linters.checking.registry import document_check, register
from ctxres.linters.checking.roots import root_of
from ctxres.linters.checking.severity_policy import Case
from ctxres.project import inside
from ctxres.state.checkpoints import reference_problem

# `ctxres check` loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


# (document kind, where its files_to_read list is)
LISTS: dict[str, JsonPath] = {
    "orchestration": ("resumption", "files_to_read"),
    "checkpoint": ("recovery_instructions", "files_to_read"),
}


def entry_path(entry: Any) -> tuple[str, JsonPath] | None:
    """The path an entry names (a string, or the ``path`` of a mapping) and where it is in the entry."""
    if isinstance(entry, str):
        return entry, ()
    if isinstance(entry, dict) and isinstance(entry.get("path"), str):
        return entry["path"], ("path",)
    return None


def lexical_problem(path: str) -> str | None:
    """What is wrong with ``path`` as a repository-relative path, from its text alone (pure)."""
    text = path.strip()
    if "\x00" in text:
        return "it contains a NUL character"
    problem = reference_problem(text)
    if text.startswith("~"):
        return "it starts at a home folder (`~`); entries are relative to the repository root"
    if problem == "absolute":
        return "it is an absolute path; entries are relative to the repository root"
    if problem == "escapes":
        return "it leaves the repository (`..`)"
    return None


def resolved_problem(path: str, root: Path) -> str | None:
    """``"it resolves outside ..."`` when ``root/path`` exists and a symbolic link takes it out of ``root``."""
    candidate = root / path.strip()
    if not os.path.lexists(candidate):  # (exists() or is_symlink(): one lstat; False on an error, as before)
        return None
    if inside(candidate, root):
        return None
    return f"it resolves through a symbolic link to {os.path.realpath(candidate)}, outside the repository"


READ_OUTSIDE = register(
    "X002",
    "file-to-read-outside-project",
    "A `files_to_read` entry is absolute or leaves the project.",
    case=Case.TOOL_JOB,
    why="A resuming session reads only files inside the project.",
    explanation="""
    ## Why
    `files_to_read` is the reading list a new session follows first when it resumes an interrupted
    workflow: the session opens each file it names, and the hooks repeat the list in the text they
    give the model. The list is committed with the workflow and read on other clones and machines,
    so every entry must name a file of this repository, relative to its root.

    - An absolute path (`/home/ada/repo/plan.md`, `~/notes.md`, `C:\\work\\plan.md`) exists on one
      machine only; everywhere else the session cannot follow it.
    - A path that climbs out of the repository with `..` (`../../etc/passwd`), or one that goes
      through a symbolic link pointing outside it, makes the session read a file the workflow
      does not own, perhaps a private one, as if it were part of the project. Anyone who can edit
      the state file could use that to make an agent read, and repeat, files it should not.

    The hooks of ctxres never read a file outside the project because a state file names it.

    ## Example
    ```yaml
    resumption:
      files_to_read:
        - "projects/PROJ-001/ORCHESTRATION_PLAN.md"         # fine: relative to the repository root
        - "/home/ada/repo/projects/PROJ-001/WORKTRACKER.md"  # X002: absolute
        - path: "../../shared/notes.md"                      # X002: leaves the repository
          purpose: "Team notes"
    ```

    ## Fix
    Write each entry relative to the repository root (`projects/PROJ-001/WORKTRACKER.md`). If the
    file really lives outside the repository, copy what the session needs into a file of the
    project and list that one instead.
    """,
)


def _finding(doc: Document, where: JsonPath, shown: str, problem: str) -> Finding:
    return Finding(
        doc.path,
        READ_OUTSIDE.code,
        f"`files_to_read` entry {shown!r}: {problem}",
        READ_OUTSIDE.severity,
        doc.locate(where),
        format_json_path(where),
        "write the path relative to the repository root, naming a file inside the repository",
    )


@document_check(READ_OUTSIDE, kinds=tuple(LISTS))
def check_document(doc: Document, _config: Config) -> list[Finding]:
    where = LISTS.get(doc.kind)
    entries = doc.get(where) if where is not None and isinstance(doc.data, dict) else None
    if where is None or not isinstance(entries, list):
        return []
    root = root_of(doc.fs_path) if doc.fs_path else None
    findings = []
    for index, entry in enumerate(entries):
        named = entry_path(entry)
        if named is None:
            continue  # not a path: the schema rules say so
        path, inner = named
        problem = lexical_problem(path)
        if problem is None and root is not None:
            problem = resolved_problem(path, root)
        if problem is not None:
            findings.append(_finding(doc, (*where, index, *inner), path[:200], problem))
    return findings
