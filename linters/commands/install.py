"""``ctxres install-hooks``: register (or remove) the ctxres hooks in a Claude Code settings file.

The committed ``.claude/settings.json`` gets the same command on every machine, one that finds
``ctxres-hook`` itself (``$CTXRES_HOOK``, the project's ``.venv``, the PATH; without one, one line on
stderr and an empty answer: :func:`ctxres.claude_settings.portable_command`). Only a machine whose
``ctxres-hook`` is none of those needs ``CTXRES_HOOK``, its absolute path, in the ``env`` of a settings
file git does not track: ``.claude/settings.local.json`` when git ignores it (never when git tracks it),
or, with ``--user-env``, the user's own ``~/.claude/settings.json``. Claude Code passes a settings
file's ``env`` to every hook and to the statusline.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ctxres.atomic import ChangedSinceRead, Stamp, cannot_write, read_stamped, write_atomic
from ctxres.claude_settings import (
    HOOK_ENV,
    LOCAL_SETTINGS_FILE,
    SETTINGS_FILE,
    install,
    install_statusline,
    is_ccstatusline,
    render,
    set_env,
    settings_env,
    statusline_is_ours,
    uninstall,
    uninstall_statusline,
    unset_env,
    wrapped_statusline,
)
from ctxres.config import project_folder
from ctxres.hook_events import EVENTS
from ctxres.linters.setup.machine import (
    Location,
    exclude_entry,
    found_without_env,
    is_ignored,
    is_tracked,
    user_settings,
)
from ctxres.linters.setup.statusline import ccstatusline_advice, has_segment

BARE_COMMAND = "ctxres-hook"


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "install-hooks",
        help="register the ctxres hooks in .claude/settings.json",
        description="Merge the four ctxres hook entries (PreCompact; SessionStart on startup, resume and "
        "compact; UserPromptSubmit; PostToolUse on writes) and the statusline into a Claude Code settings file, "
        "as a command that is the same on every machine and finds ctxres-hook itself: $CTXRES_HOOK, else the "
        "project's .venv/bin, else the PATH (without one: a line on stderr, an empty answer, and your own "
        "statusline unchanged). When this installation is none of those, its path is recorded as CTXRES_HOOK in "
        "the env of .claude/settings.local.json, only when git ignores that file (--user-env: in your own "
        "~/.claude/settings.json). Other entries, the files' indentation and key order are kept; running it "
        "again changes nothing. --command writes a command of your own instead.",
    )
    parser.add_argument(
        "--settings",
        type=Path,
        default=None,
        help="the settings file, relative to the working folder (default: .claude/settings.json of the project: "
        "the folder of its configuration file, else the top of its git work tree; "
        ".claude/settings.local.json keeps it out of version control); its folder must exist, except "
        "a .claude folder, which is created",
    )
    parser.add_argument(
        "--command",
        default=None,
        help="how Claude Code runs the hook (default: a command that finds ctxres-hook in $CTXRES_HOOK, the "
        "project's .venv/bin or the PATH)",
    )
    parser.add_argument(
        "--local",
        action="store_true",
        help=f"only this machine's part: record its {BARE_COMMAND} in .claude/{LOCAL_SETTINGS_FILE} when the "
        "committed command cannot find it and git ignores that file (what a teammate runs after cloning; the "
        "committed settings file is not written)",
    )
    add_user_env_option(parser)
    parser.add_argument(
        "--uninstall",
        action="store_true",
        help=f"remove the ctxres entries, and only those (and {HOOK_ENV} from .claude/{LOCAL_SETTINGS_FILE})",
    )
    parser.add_argument("--dry-run", action="store_true", help="print the resulting file instead of writing it")
    parser.set_defaults(handler=run)


def add_user_env_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--user-env",
        action="store_true",
        help=f"record this machine's {BARE_COMMAND} as {HOOK_ENV} in the env of your own ~/.claude/settings.json "
        "(outside every repository: it applies to every project) instead of the project's files",
    )


def installed_script(name: str) -> Path | None:
    """The executable ``name`` of the running installation (beside the interpreter, in its scripts
    folder, or beside the running ``ctxres``), else the one on PATH; None when there is none."""
    candidates = [Path(sys.executable).parent / name, Path(sysconfig.get_path("scripts")) / name]
    if Path(sys.argv[0]).name == "ctxres":
        candidates.append(Path(sys.argv[0]).parent / name)
    on_path = shutil.which(name)
    if on_path:
        candidates.append(Path(on_path))
    for candidate in candidates:
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return Path(os.path.abspath(candidate))
    return None


def no_script_warning() -> str:
    return (
        f"ctxres: warning: no {BARE_COMMAND} script was found for this installation ({sys.executable}); "
        f"the hooks look for it in ${HOOK_ENV}, the project's .venv/bin and the PATH Claude Code runs with, "
        f"and do nothing (one line on stderr) where there is none. Install ctxres in the project's .venv, with "
        f"pipx or `uv tool`, or re-run this command with the ctxres of a virtual environment "
        f"(/path/to/venv/bin/ctxres), then `ctxres doctor` to check that every hook answers"
    )


@dataclass(slots=True, frozen=True)
class Change:
    """One file a command would write: its path, new text, and what it does."""

    path: Path
    text: str
    action: str


def local_settings(settings: Path) -> Path:
    """The per-clone settings file beside ``settings`` (``.claude/settings.local.json``)."""
    return settings.parent / LOCAL_SETTINGS_FILE


def project_of(settings: Path) -> Path:
    """The project a settings file belongs to (the folder of its ``.claude`` folder)."""
    folder = settings.absolute().parent
    return folder.parent if folder.name == ".claude" else folder


def plan_shared(settings: Path, command: str | None = None) -> list[Change]:
    """Register the hooks in ``settings`` (the committed file: the same command on every machine)."""
    before, original = _read(settings)
    after = install_statusline(install(before, command), command)
    if after == before and settings.exists():
        return []
    events = ", ".join(EVENTS)
    how = (
        f"a command that finds {BARE_COMMAND} in ${HOOK_ENV}, the project's .venv or the PATH"
        if command is None
        else f"command: {command} EVENT"
    )
    action = f"register {events} and the statusline ({how})"
    if is_ccstatusline(str(after["statusLine"].get("command", ""))):
        action = f"register {events} ({how}); the statusline, ccstatusline, is left as it is"
    elif statusline_is_ours(before):
        kept = (
            ", with the statusline it shows beside" if wrapped_statusline(str(before["statusLine"]["command"])) else ""
        )
        action += f" (the statusline command an older ctxres wrote updated{kept})"
    elif (before.get("statusLine") or {}).get("command") not in (None, after["statusLine"]["command"]):
        action += " (shown beside the statusline already there, which it keeps, and which runs alone without ctxres)"
    return [Change(settings, render(after, original), action)]


def ccstatusline_note(settings: Path, script: Path | None) -> str | None:
    """When the statusline of ``settings`` is ccstatusline (or ours around it, which install gives back)
    and our segment is not one of its widgets yet: how to add it (``script``: this machine's
    ``ctxres-hook``, the command the widget runs; ccstatusline's settings are this user's own)."""
    data, _ = _read(settings)
    entry = data.get("statusLine") if isinstance(data, dict) else None
    command = str(entry.get("command", "")) if isinstance(entry, dict) else ""
    theirs = wrapped_statusline(command) or command
    if not is_ccstatusline(theirs) or has_segment(theirs):
        return None
    return f"the statusline is ccstatusline: {ccstatusline_advice(str(script) if script else BARE_COMMAND)}"


def plan_local(
    settings: Path, script: Path | None, user_env: bool = False, will_ignore: bool = False
) -> tuple[list[Change], list[str]]:
    """This machine's part: ``CTXRES_HOOK`` recorded where no repository keeps it, and only when the committed
    command would not find ``script`` by itself; the changes, and what was decided and why (one line each).

    ``.claude/settings.local.json`` is written only when git does not track it and ignores it (or
    ``will_ignore``: this run adds the ``.gitignore`` line); ``user_env`` writes the user's own
    ``~/.claude/settings.json`` instead."""
    if script is None:
        return [], []
    target = local_settings(settings)
    name = f".claude/{LOCAL_SETTINGS_FILE}"
    if user_env:
        user = user_settings()
        before, original = _read(user)
        after = set_env(before, HOOK_ENV, str(script))
        if after == before:
            return [], [f"{HOOK_ENV} is already this machine's {BARE_COMMAND} in {user}"]
        what = f"set {HOOK_ENV} to this machine's {BARE_COMMAND} in your own settings (outside every repository)"
        return [Change(user, render(after, original), what)], []
    tracked = is_tracked(target)
    location = found_without_env(script, project_of(settings), BARE_COMMAND)
    in_user_env = settings_env(_read(user_settings())[0]).get(HOOK_ENV) == str(script)
    if (location is None or location.activated) and in_user_env:
        location = Location(f"${HOOK_ENV} of your own ~/.claude/settings.json")
    found = location.place if location is not None and location.activated is None else None
    if tracked:
        return [], [_tracked_note(name, script, location, settings_env(_read(target)[0]).get(HOOK_ENV))]
    recorded = HOOK_ENV in settings_env(_read(target)[0])
    if found is not None and not recorded:
        return [], [f"the hooks find this machine's {BARE_COMMAND} in {found}: nothing per-machine to record"]
    changes = [] if will_ignore or is_ignored(target) else exclude_locally(target)
    before, original = _read(target)
    after = set_env(before, HOOK_ENV, str(script))
    if after == before:
        return changes, []
    what = f"set {HOOK_ENV} to this machine's {BARE_COMMAND} (git ignores this file)"
    return [*changes, Change(target, render(after, original), what)], []


def _tracked_note(name: str, script: Path, location: Location | None, stale: object) -> str:
    """What ``init --local`` says when git tracks the per-clone settings file (it never writes it): where the
    hooks find this machine's ``ctxres-hook`` (:func:`found_without_env`, as the doctor finds it), or that
    they do not."""
    note = (
        f"{name} is tracked by git: not written; the hooks look for {BARE_COMMAND} in ${HOOK_ENV}, the "
        "project's .venv and the PATH"
    )
    fix = (
        f"run `ctxres init --local --user-env` (sets {HOOK_ENV} in your own ~/.claude/settings.json), or install "
        "ctxres in the project's .venv"
    )
    if location is not None and location.activated is None:
        note += f", and find this machine's in {location.place}"
    elif location is not None:
        note += f", and find this machine's ({script}) in {location.shown()}, not in another shell: {fix}"
    else:
        note += f", and none of them has this machine's ({script}): {fix}"
    if isinstance(stale, str):
        note += f"; the committed file sets {HOOK_ENV} to one machine's path ({stale}): take it out and commit"
    return note


def exclude_locally(target: Path) -> list[Change]:
    """The line that makes git ignore ``target`` in this clone only (``.git/info/exclude``, never committed)."""
    entry = exclude_entry(target)
    if entry is None:
        return []
    exclude, line = entry
    text = (read_for_change(exclude) if exclude.is_file() else None) or ""
    if line in text.splitlines():
        return []
    text = text + ("" if not text or text.endswith("\n") else "\n") + line + "\n"
    return [Change(exclude, text, f"ignore {line} in this clone only (its own exclude list, never committed)")]


def plan_uninstall(settings: Path) -> tuple[list[Change], int]:
    """Take the ctxres hooks out of ``settings`` and ``CTXRES_HOOK`` out of the per-clone file."""
    changes = []
    before, original = _read(settings)
    after, removed = uninstall(before)
    after, statusline = uninstall_statusline(after)
    if removed or statusline:
        what = f"remove {removed} ctxres hook entries" + (" and the statusline" if statusline else "")
        changes.append(Change(settings, render(after, original), what))
    target = local_settings(settings)
    if target != settings and target.exists() and not is_tracked(target):
        local_before, local_original = _read(target)
        local_after, had = unset_env(local_before, HOOK_ENV)
        if had:
            changes.append(Change(target, render(local_after, local_original), f"remove {HOOK_ENV}"))
    elif target == settings and changes:
        cleared, _ = unset_env(after, HOOK_ENV)
        changes[0] = Change(settings, render(cleared, original), changes[0].action)
    return changes, removed


def default_settings(cwd: Path) -> Path:
    """``.claude/settings.json`` of the project holding ``cwd`` (as the working folder shows it): the folder of
    its configuration file, else the top of its git work tree, else ``cwd``."""
    return Path(shown_path(project_folder(cwd) / ".claude" / SETTINGS_FILE, cwd))


def shown_path(path: Path, cwd: Path | None = None) -> str:
    """``path`` as the user reads it from the working folder (``../../CLAUDE.md`` from a subfolder), ``/``
    separators; as ruff prints paths."""
    return os.path.relpath(os.path.abspath(path), os.path.abspath(cwd or Path.cwd())).replace(os.sep, "/")


def with_line_ends_of(path: Path, text: str) -> str:
    """``text`` (read with ``\\n`` line ends) with the ``\\r\\n`` line ends of the file at ``path``, when it has
    them: a file of the team's keeps its line ends, so that only the lines changed show in ``git diff``."""
    try:
        with path.open("rb") as handle:
            crlf = b"\r\n" in handle.read()
    except OSError:
        return text
    return text.replace("\r\n", "\n").replace("\n", "\r\n") if crlf else text


# What each file a change is computed from looked like when it was read (read_for_change): its stamp, and
# whether its lines end CRLF. write_changes replaces nothing that changed since, and keeps CRLF files CRLF.
_SEEN: dict[str, tuple[Stamp, bool]] = {}


def read_for_change(path: Path) -> str | None:
    """The text of a file a change will be computed from (None when it does not exist), line breaks read
    as ``\\n`` (as ``Path.read_text`` reads them). :func:`write_changes` writes the file back only if it did not
    change since, with the file's own line breaks."""
    content, stamp = read_stamped(path)
    text = None if content is None else content.decode("utf-8")
    first = -1 if text is None else text.find("\n")
    _SEEN[os.path.abspath(path)] = (stamp, first > 0 and text is not None and text[first - 1] == "\r")
    return None if text is None else text.replace("\r\n", "\n")


class WriteRefused(Exception):
    """A change was not written (the file changed since it was read, or the write failed); one line."""


def write_changes(changes: list[Change]) -> None:
    """Write each change atomically and say what it did (paths relative to the working folder). A file that
    changed since :func:`read_for_change` read it is not replaced: :class:`WriteRefused` (the changes
    before it are written and were listed)."""
    for change in changes:
        seen = _SEEN.get(os.path.abspath(change.path))
        if seen is None:  # a file read another way (init --undo): its line ends as they are on disk
            text = with_line_ends_of(change.path, change.text)
        else:
            text = re.sub(r"\r?\n", "\r\n", change.text) if seen[1] else change.text
        try:
            change.path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(change.path, text, expected=None if seen is None else seen[0])
        except ChangedSinceRead:
            raise WriteRefused(
                f"{shown_path(change.path)} changed while ctxres worked on it; it was not written: run the command "
                "again"
            ) from None
        except OSError as exc:
            raise WriteRefused(cannot_write(shown_path(change.path), exc, "its folder")) from None
        print(f"{change.action}: {shown_path(change.path)}")


def missing_folder(path: Path) -> Path | None:
    """The folder that would have to be created to write ``path``, when that is not just a ``.claude``
    folder inside an existing one (a mistyped path is refused, not created)."""
    parent = path.parent if str(path.parent) else Path(".")
    if parent.is_dir():
        return None
    if parent.name == ".claude" and parent.parent.is_dir() and not parent.exists():
        return None
    return parent


def _read(path: Path) -> tuple[dict[str, Any], str]:
    try:
        text = read_for_change(path)
        if text is None:
            return {}, ""
        data = json.loads(text)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise SystemExit(f"ctxres: error: cannot read {path}: {exc}") from None
    if not isinstance(data, dict):
        raise SystemExit(f"ctxres: error: {path} does not hold a JSON object")
    return data, text


def run(args: argparse.Namespace) -> int:
    path: Path = args.settings if args.settings is not None else default_settings(Path.cwd())
    absent = missing_folder(path)
    if absent is not None:
        print(
            f"ctxres: error: the folder {absent} does not exist, so {path} is not written (a mistyped "
            "path?); check --settings, or create the folder first",
            file=sys.stderr,
        )
        return 2
    warning = None
    notes: list[str] = []
    try:
        if args.uninstall:
            changes, _ = plan_uninstall(path)
        elif args.command is not None:
            changes = [] if args.local else plan_shared(path, args.command)
            if args.command == BARE_COMMAND and shutil.which(BARE_COMMAND) is None:
                warning = (
                    f"ctxres: warning: `{BARE_COMMAND}` is not on PATH here; every hook fails with status 127 "
                    f"unless Claude Code finds it on its own PATH; pass --command with the full path"
                )
        else:
            script = installed_script(BARE_COMMAND)
            if script is None:
                warning = no_script_warning()
            local, notes = plan_local(path, script, user_env=args.user_env)
            changes = ([] if args.local else plan_shared(path)) + local
    except SystemExit as exc:
        print(exc, file=sys.stderr)
        return 2
    except ValueError as exc:
        print(f"ctxres: error: {path}: {exc}", file=sys.stderr)
        return 2
    if warning:
        print(warning, file=sys.stderr)
    if not args.uninstall and not args.local:
        advice = ccstatusline_note(path, installed_script(BARE_COMMAND))
        notes += [advice] if advice else []
    for note in notes:
        print(note)
    if args.dry_run:
        for change in changes:
            if len(changes) > 1:
                print(f"--- {change.path} ({change.action})")
            sys.stdout.write(change.text)
        return 0
    if not changes:
        print(f"{path} is already up to date" if not args.uninstall else f"no ctxres hook in {path}")
        return 0
    try:
        write_changes(changes)
    except WriteRefused as exc:
        print(f"ctxres: error: {exc}", file=sys.stderr)
        return 2
    return 0
