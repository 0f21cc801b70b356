"""``ctxres migrate-nexus PROJECT-DIR...``: move Nexus projects to the ``resume-context.md`` manifest.

For each project folder (``02-projects/NN-name/``):

* a legacy ``_resume.md`` (at the top of the project or in ``01-planning/``) and no
  ``01-planning/resume-context.md``: the manifest is written from the legacy front matter
  (``resume_version`` -> ``resume_schema_version: "1.0"``, ``updated`` -> ``last_updated``, ``phase``
  -> ``current_phase``, ``step`` -> ``progress``; ``project_name``, ``next_action`` and
  ``files_to_load`` filled in when missing, every string quoted) and a body that is only the
  validation gate (the legacy one, else the standard one); the legacy file is then moved to
  ``_resume.md.backup`` (its whole text, the summary included, stays there);
* ``resume-context.md`` exists: its front matter is normalised in place, byte for byte elsewhere
  (legacy ``resume_version`` renamed, a version written as a number quoted, unquoted timestamps
  quoted; the previous version kept as ``resume-context.md.backup``), and a leftover ``_resume.md``
  is moved to its backup.

Backups never overwrite an earlier backup with other content (``.backup.1``, ``.backup.2``, ...).
Running it again changes nothing (idempotent). ``--dry-run`` prints the plan and writes nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ctxres import nexus
from ctxres.atomic import ChangedSinceRead, Stamp, cannot_write, stamp_before_read, write_all_atomic
from ctxres.formats import yamledit, yamlemit, yamlguard

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
MANIFEST_VERSION = "1.0"
DEFAULT_NEXT_ACTION = "execute-project"
DEFAULT_FILES = ("01-planning/overview.md", "01-planning/plan.md", "01-planning/steps.md")


# --------------------------------------------------------------------------- the new manifest (pure)

FIELD_ORDER = (
    "resume_schema_version",
    "last_updated",
    "project_id",
    "project_name",
    "build_id",
    "build_name",
    "build_type",
    "current_phase",
    "next_action",
    "files_to_load",
    "current_section",
    "current_task",
    "total_tasks",
    "tasks_completed",
    "progress",
)
GROUP_OF = {
    "project_id": "# PROJECT",
    "project_name": "# PROJECT",
    "build_id": "# BUILD",
    "build_name": "# BUILD",
    "build_type": "# BUILD",
    "current_phase": "# PROJECT",
    "next_action": "# LOADING",
    "files_to_load": "# LOADING",
}

STANDARD_GATE = """# Validation Gate

Before continuing, you MUST verify you understand:

1. **Project Purpose** (from overview.md):
   - [ ] What problem are we solving?
   - [ ] What is the success criterion?

2. **Current Location** (from steps.md):
   - [ ] What phase are we in?
   - [ ] What is the next task?

3. **Approach** (from plan.md):
   - [ ] What is the implementation strategy?

**If you cannot answer these questions, STOP and re-read files_to_load.**
"""
FOOTER = "*This file is auto-updated on every task completion by the execute-project skill.*\n"


def timestamp_text(value: object) -> str | None:
    """An ISO-8601 string for a timestamp YAML read as a date or datetime (or already a string)."""
    if isinstance(value, str):
        return value.strip() or None
    isoformat = getattr(value, "isoformat", None)
    if isoformat is None:
        return None
    text = str(isoformat())
    return text[:-6] + "Z" if text.endswith("+00:00") else text


def project_name_of(folder: str) -> str:
    """``10-dynamic-subagent-research`` -> ``Dynamic Subagent Research``."""
    words = folder.split("-")
    if words and words[0].isdigit():
        words = words[1:]
    return " ".join(word.capitalize() for word in words if word) or folder


def normalise_manifest(front: dict[str, Any], folder: str, exists: Any) -> tuple[dict[str, Any], list[str]]:
    """The front matter of a legacy ``_resume.md`` as a ``resume-context.md`` manifest, and notes for
    the user. ``folder`` is the project folder's name; ``exists(relative path)`` tells whether a
    file exists in the project (for the default ``files_to_load``). Keys it does not know are kept."""
    notes: list[str] = []
    data: dict[str, Any] = {}
    for key, value in front.items():
        target = nexus.LEGACY_KEYS.get(key, key) if isinstance(key, str) else str(key)
        if target in data or (target != key and target in front):
            notes.append(f"`{key}` dropped: `{target}` is set too")
            continue
        data[target] = value
    if "step" in data and "progress" not in data:
        data["progress"] = data.pop("step")
    legacy_version = nexus.version_text(front.get("resume_version"))
    data["resume_schema_version"] = MANIFEST_VERSION
    if legacy_version:
        notes.append(f'legacy `resume_version: {legacy_version}` replaced by `resume_schema_version: "1.0"`')
    stamp = timestamp_text(data.get("last_updated"))
    if stamp:
        data["last_updated"] = stamp
    else:
        data.pop("last_updated", None)
        notes.append("no `last_updated`: set it to the time of the last real update")
    if nexus.is_project_id(data.get("project_id")) and data["project_id"] != folder:
        notes.append(f"`project_id` {data['project_id']!r} differs from the folder name {folder!r}: check it")
    if "build_id" not in data and not nexus.is_project_id(data.get("project_id")):
        if data.get("project_id") not in (None, folder):
            notes.append(f"`project_id` {data.get('project_id')!r} replaced by the folder name {folder!r}")
        data["project_id"] = folder
    if "build_id" not in data and not data.get("project_name"):
        data["project_name"] = project_name_of(folder)
        notes.append(f"`project_name` set to {data['project_name']!r} (from the folder name): check it")
    phase = data.get("current_phase")
    if isinstance(phase, str):
        data["current_phase"] = phase.strip().lower()
        if data["current_phase"] not in nexus.PHASES:
            notes.append(f"`current_phase` {phase!r} is not one of {', '.join(nexus.PHASES)}: set the right phase")
    else:
        notes.append("no `current_phase`: set it to one of " + ", ".join(nexus.PHASES))
    if not data.get("next_action"):
        data["next_action"] = DEFAULT_NEXT_ACTION
        notes.append(f"`next_action` set to {DEFAULT_NEXT_ACTION!r} (the default skill)")
    files = data.get("files_to_load")
    if not isinstance(files, list) or not files:
        present = [name for name in DEFAULT_FILES if exists(name)]
        data["files_to_load"] = present or list(DEFAULT_FILES)
        notes.append(f"`files_to_load` set to {', '.join(data['files_to_load'])}: list the files a resume needs")
    ordered = {key: data[key] for key in FIELD_ORDER if key in data}
    ordered.update((key, value) for key, value in data.items() if key not in ordered)
    return ordered, notes


def _yaml_value(value: Any) -> str:
    if value is None or isinstance(value, (str, bool, int, float)):
        return yamlemit.scalar(value)
    return yamlemit.scalar(timestamp_text(value) or str(value))


def render_front_matter(data: dict[str, Any]) -> str:
    """The manifest's front matter (``---`` lines included): every string quoted, lists in block style."""
    lines = ["---"]
    current = ""
    for key, value in data.items():
        group = GROUP_OF.get(key, "# STATE" if key in FIELD_ORDER[10:] else "# OTHER")
        if key in FIELD_ORDER[:2]:
            group = ""
        if group != current and group:
            lines += ["", group]
        current = group
        name = yamlemit.key_text(str(key))
        if isinstance(value, list):
            lines.append(f"{name}:" if value else f"{name}: []")
            lines += [f"  - {_yaml_value(item)}" for item in value if not isinstance(item, (dict, list))]
            lines += [f"  - {yamlemit.flow(item, quote_keys=True)}" for item in value if isinstance(item, (dict, list))]
        elif isinstance(value, dict):
            lines.append(f"{name}: {yamlemit.flow(value, quote_keys=True)}")
        else:
            lines.append(f"{name}: {_yaml_value(value)}")
    lines.append("---")
    return "\n".join(lines) + "\n"


def migrated_text(front: dict[str, Any], body: str) -> str:
    """The new ``resume-context.md``: the manifest and the validation gate only (the legacy file's gate
    when it has one, else the standard one); the rest of the old body stays in the backup."""
    span = nexus.gate_span(body)
    gate = STANDARD_GATE
    if span is not None:
        lines = body.splitlines()[span[0] : span[1]]
        while lines and nexus.is_decoration(lines[-1]) and not lines[-1].strip().startswith(("*", "_")):
            lines.pop()  # trailing blank lines and rules: the footer adds its own
        gate = "\n".join(lines).strip() + "\n"
    return f"{render_front_matter(front)}\n{gate}\n---\n\n{FOOTER}"


VERSION_KEYS = ("resume_schema_version", "resume_version")
_TIMESTAMP_TAG = "tag:yaml.org,2002:timestamp"
_NUMBER_TAGS = ("tag:yaml.org,2002:float", "tag:yaml.org,2002:int")


def normalise_front_text(front: str) -> tuple[str, list[str]]:
    """Byte-preserving fixes of a manifest's front matter text (pure): the legacy ``resume_version`` key
    renamed (or removed when ``resume_schema_version`` is there too), a version written as a number
    quoted as written (``1.10`` stays ``"1.10"``), unquoted top-level timestamps quoted. Returns the
    new text and what changed, in words; ``ValueError`` when the text is not a YAML mapping."""
    changes: list[str] = []
    for _round in range(len(VERSION_KEYS) + 16):  # each pass makes one edit and re-reads the text
        root = yaml.compose(front, Loader=yamlguard.loader_for(front))  # libyaml crashes on very deep nesting
        if not isinstance(root, yaml.MappingNode):
            raise ValueError("the front matter is not a YAML mapping")
        edit = _next_edit(front, root, changes)
        if edit is None:
            return front, changes
        front = edit
    return front, changes  # pragma: no cover - more edits than keys cannot happen


def _next_edit(front: str, root: Any, changes: list[str]) -> str | None:
    keys = {key.value: (key, value) for key, value in root.value if isinstance(key, yaml.ScalarNode)}
    if "resume_version" in keys:
        key, value = keys["resume_version"]
        if VERSION_KEYS[0] in keys:
            start = front.rfind("\n", 0, key.start_mark.index) + 1
            end = front.find("\n", value.end_mark.index)
            changes.append("removed the legacy `resume_version` (`resume_schema_version` is set)")
            return front[:start] + (front[end + 1 :] if end >= 0 else "")
        changes.append(f"renamed `resume_version` to `resume_schema_version` (value {json.dumps(value.value)})")
        renamed = front[: key.start_mark.index] + VERSION_KEYS[0] + front[key.end_mark.index :]
        return yamledit.replace_value(renamed, (VERSION_KEYS[0],), json.dumps(value.value))
    if VERSION_KEYS[0] in keys:
        key, value = keys[VERSION_KEYS[0]]
        if isinstance(value, yaml.ScalarNode) and not value.style and value.tag in _NUMBER_TAGS:
            changes.append(f"quoted `resume_schema_version: {value.value}`")
            return yamledit.replace_value(front, (VERSION_KEYS[0],), json.dumps(value.value))
    for name, (_key, value) in keys.items():
        if isinstance(value, yaml.ScalarNode) and not value.style and value.tag == _TIMESTAMP_TAG:
            changes.append(f"quoted `{name}: {value.value}`")
            return yamledit.replace_value(front, (name,), json.dumps(value.value))
    return None


# --------------------------------------------------------------------------- the command


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "migrate-nexus",
        help="migrate Nexus projects from _resume.md to 01-planning/resume-context.md",
        description="For each project folder: write 01-planning/resume-context.md from a legacy _resume.md "
        "(normalised front matter, the validation gate only) and keep the legacy file as _resume.md.backup; "
        "or, when the manifest exists, normalise its front matter in place (legacy resume_version renamed, "
        "numeric version and unquoted timestamps quoted) and move a leftover _resume.md to its backup. "
        "Idempotent.",
        epilog="Exit status: 0 done (or nothing to do), 1 a project could not be migrated, 2 usage error.",
    )
    parser.add_argument("projects", nargs="+", type=Path, metavar="PROJECT-DIR", help="project folders")
    parser.add_argument("--dry-run", action="store_true", help="print what would change; write nothing")
    parser.set_defaults(handler=run)


@dataclass(slots=True)
class Plan:
    """What migrating one project does: files to write, files to move, notes for the user."""

    project: Path
    writes: list[tuple[Path, str, str]] = field(default_factory=list)  # (path, text, what)
    moves: list[tuple[Path, Path | None]] = field(default_factory=list)  # (legacy, backup; None: delete)
    notes: list[str] = field(default_factory=list)
    error: str = ""
    stamps: list[Stamp] = field(default_factory=list)  # every file read: nothing is written if one changed since

    @property
    def empty(self) -> bool:
        return not (self.writes or self.moves or self.error)


def backup_name(path: Path, text: bytes) -> Path | None:
    """Where to keep ``path``'s content: ``<name>.backup`` (then ``.backup.1``, ...); None when a backup
    with exactly this content already exists (the file can go)."""
    candidate = path.with_name(path.name + ".backup")
    number = 0
    while candidate.exists():
        try:
            if candidate.read_bytes() == text:
                return None
        except OSError:
            pass
        number += 1
        candidate = path.with_name(f"{path.name}.backup.{number}")
    return candidate


def _read(path: Path, plan: Plan) -> str:
    stamp = stamp_before_read(path)
    raw = path.read_bytes()
    plan.stamps.append(stamp.seen(raw))
    return raw.decode("utf-8-sig")


def _legacy_front(text: str) -> dict[str, Any]:
    split = nexus.split_manifest(text)
    if split is None:
        raise ValueError("it has no YAML front matter (a '---' line at the top and another after the fields)")
    try:
        data = yamlguard.load(split[0])  # no crash on deep nesting, no alias bomb
    except (yaml.YAMLError, yamlguard.YamlGuardError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ValueError(f"its front matter is not valid YAML ({first})") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ValueError("its front matter is not a mapping of fields")
    return data


def _retire(plan: Plan, legacy: Path) -> None:
    stamp = stamp_before_read(legacy)
    raw = legacy.read_bytes()
    plan.stamps.append(stamp.seen(raw))
    plan.moves.append((legacy, backup_name(legacy, raw)))


def plan_project(project: Path, exists: Callable[[str], bool] | None = None) -> Plan:
    """What migrating ``project`` would do (reads files, writes nothing)."""
    plan = Plan(project)
    manifest = project / nexus.PLANNING_FOLDER / nexus.MANIFEST_NAME
    legacies = [
        path
        for path in (project / nexus.PLANNING_FOLDER / nexus.LEGACY_NAME, project / nexus.LEGACY_NAME)
        if path.is_file()
    ]
    try:
        if manifest.is_file():
            _normalise_existing(plan, manifest)
        elif legacies:
            _from_legacy(plan, project, manifest, legacies[0], exists or (lambda rel: (project / rel).is_file()))
        for legacy in legacies:
            _retire(plan, legacy)
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        plan.error = str(exc.strerror if isinstance(exc, OSError) and exc.strerror else exc)
        plan.writes.clear()
        plan.moves.clear()
    return plan


def _normalise_existing(plan: Plan, manifest: Path) -> None:
    text = _read(manifest, plan)
    split = nexus.split_manifest(text)
    if split is None:
        raise ValueError(f"{manifest.name} has no YAML front matter; fix it by hand (`ctxres check` says why)")
    front, _body, _line = split
    new_front, changes = normalise_front_text(front)
    if not changes:
        return
    start = text.index("\n") + 1  # after the opening '---'
    new_text = text[:start] + new_front + text[start + len(front) :]
    backup = backup_name(manifest, text.encode("utf-8"))
    if backup is not None:
        plan.writes.append((backup, text, f"backup of {manifest.name}"))
    plan.writes.append((manifest, new_text, "normalised: " + "; ".join(changes)))


def _from_legacy(plan: Plan, project: Path, manifest: Path, legacy: Path, exists: Callable[[str], bool]) -> None:
    text = _read(legacy, plan)
    plan.stamps.append(stamp_before_read(manifest))  # absent: it must still be absent when written
    try:
        front = _legacy_front(text)
    except ValueError as exc:
        raise ValueError(f"{legacy.name} cannot be migrated: {exc}") from None
    data, notes = normalise_manifest(front, project.name, exists)
    split = nexus.split_manifest(text)
    body = split[1] if split else ""
    plan.writes.append((manifest, migrated_text(data, body), f"written from {_shown(legacy)}"))
    plan.notes += notes
    if nexus.duplicates_content(body):
        plan.notes.append(f"the summary in {legacy.name}'s body was not copied (a manifest only lists files)")


def _shown(path: Path) -> str:
    return Path(os.path.relpath(path)).as_posix()


def apply(plan: Plan) -> None:
    """Write the new files, then move the legacy files to their backups; nothing when a file read changed
    since (:class:`~ctxres.atomic.ChangedSinceRead`)."""
    for path, _text, _what in plan.writes:
        path.parent.mkdir(parents=True, exist_ok=True)
    write_all_atomic([(path, text) for path, text, _what in plan.writes], expected=plan.stamps)
    for legacy, backup in plan.moves:
        if backup is None:
            legacy.unlink()
        else:
            os.replace(legacy, backup)


def _report(plan: Plan, dry_run: bool) -> None:
    prefix = "would " if dry_run else ""
    name = _shown(plan.project)
    if plan.error:
        print(f"{name}: not migrated: {plan.error}", file=sys.stderr)
        return
    if plan.empty:
        print(f"{name}: up to date")
        return
    for path, _text, what in plan.writes:
        print(f"{name}: {prefix}write {_shown(path)} ({what})")
    for legacy, backup in plan.moves:
        if backup is None:
            print(f"{name}: {prefix}remove {_shown(legacy)} (an identical backup exists)")
        else:
            print(f"{name}: {prefix}move {_shown(legacy)} to {_shown(backup)}")
    for note in plan.notes:
        print(f"  note: {note}")


def run(args: argparse.Namespace) -> int:
    missing = [str(p) for p in args.projects if not p.is_dir()]
    if missing:
        print(f"ctxres migrate-nexus: error: not a folder: {', '.join(missing)}", file=sys.stderr)
        return EXIT_USAGE
    failed = 0
    for project in args.projects:
        plan = plan_project(project)
        if not plan.error and not args.dry_run:
            try:
                apply(plan)
            except ChangedSinceRead as exc:
                plan.error = f"{_shown(Path(exc.path))} changed while it was migrated; nothing was written: run again"
            except OSError as exc:
                where = _shown(Path(exc.filename)) if exc.filename else _shown(project)
                plan.error = cannot_write(where, exc)
        failed += bool(plan.error)
        _report(plan, args.dry_run)
    return EXIT_FAILED if failed else EXIT_OK
