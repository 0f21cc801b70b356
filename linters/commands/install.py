"""``ctxres install-hooks``: register (or remove) the ctxres hooks in a Claude Code settings file.

The committed ``.claude/settings.json`` gets the same command on every machine,
``"${CTXRES_HOOK:-ctxres-hook}" EVENT``; the per-clone ``.claude/settings.local.json`` (never
committed) gets ``env.CTXRES_HOOK``, the absolute path of this installation's ``ctxres-hook``. Claude
Code passes a settings file's ``env`` to every hook it runs through ``sh -c``, so the hooks run from a
virtual environment that is not on the client's PATH (where a bare ``ctxres-hook`` exits 127, which
the client only logs in its debug log), and a teammate's clone needs only ``--local`` (or
``ctxres init --local``), which writes no tracked file.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import sysconfig
from pathlib import Path

from ctxres.atomic import write_atomic
from ctxres.claude_settings import (
    HOOK_ENV,
    HOOKS,
    LOCAL_SETTINGS_FILE,
    PORTABLE_COMMAND,
    SETTINGS_FILE,
    install,
    install_statusline,
    render,
    set_env,
    uninstall,
    uninstall_statusline,
    unset_env,
)
from ctxres.records import FrozenRecord, init_field

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is not imported at run time: about 2 ms of every start
    from typing import Any

BARE_COMMAND = "ctxres-hook"


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "install-hooks",
        help="register the ctxres hooks in .claude/settings.json",
        description="Merge the four ctxres hook entries (PreCompact; SessionStart on startup, resume and "
        'compact; UserPromptSubmit; PostToolUse on writes) into a Claude Code settings file as `"${CTXRES_HOOK:-'
        "ctxres-hook}\" EVENT` (the same on every machine), and record the absolute path of this installation's "
        "ctxres-hook as CTXRES_HOOK in the env of .claude/settings.local.json, which is not committed and which "
        "Claude Code passes to every hook. Other entries, the files' indentation and key order are kept; running "
        "it again changes nothing. --command writes a command of your own instead.",
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
        help='how Claude Code runs the hook (default: "${CTXRES_HOOK:-ctxres-hook}", with CTXRES_HOOK set to '
        "this installation's ctxres-hook in .claude/settings.local.json)",
    )
    parser.add_argument(
        "--local",
        action="store_true",
        help=f"only record this machine's {BARE_COMMAND} in .claude/{LOCAL_SETTINGS_FILE} (what a teammate runs "
        "after cloning; the committed settings file is not written)",
    )
    parser.add_argument(
        "--uninstall",
        action="store_true",
        help=f"remove the ctxres entries, and only those (and {HOOK_ENV} from .claude/{LOCAL_SETTINGS_FILE})",
    )
    parser.add_argument("--dry-run", action="store_true", help="print the resulting file instead of writing it")
    parser.set_defaults(handler=run)


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
        f"the hooks run the `{BARE_COMMAND}` on the PATH Claude Code runs with, and fail with status 127 "
        f"(which Claude Code only writes to its debug log) where there is none. Install ctxres with pipx or "
        f"`uv tool`, or re-run this command with the ctxres of a virtual environment "
        f"(/path/to/.venv/bin/ctxres), then `ctxres doctor` to check that every hook answers"
    )


class Change(FrozenRecord):
    """One file a command would write: its path, new text, and what it does."""

    __slots__ = ("action", "path", "text")

    path: Path
    text: str
    action: str

    def __init__(self, path: Path, text: str, action: str) -> None:
        init_field(self, "path", path)
        init_field(self, "text", text)
        init_field(self, "action", action)


def local_settings(settings: Path) -> Path:
    """The per-clone settings file beside ``settings`` (``.claude/settings.local.json``)."""
    return settings.parent / LOCAL_SETTINGS_FILE


def plan_shared(settings: Path, command: str = PORTABLE_COMMAND) -> list[Change]:
    """Register the hooks in ``settings`` (the committed file: the same command on every machine)."""
    before, original = _read(settings)
    after = install_statusline(install(before, command), command)
    if after == before and settings.exists():
        return []
    events = ", ".join(spec.name for spec in HOOKS)
    action = f"register {events} (command: {command} EVENT) and the statusline"
    if (before.get("statusLine") or {}).get("command") not in (None, after["statusLine"]["command"]):
        action += " (shown beside the statusline already there, which it keeps)"
    return [Change(settings, render(after, original), action)]


def plan_local(settings: Path, script: Path | None) -> list[Change]:
    """Record this machine's ``ctxres-hook`` in the per-clone file beside ``settings`` (nothing when
    there is no script to record, or it is recorded already)."""
    if script is None:
        return []
    target = local_settings(settings)
    before, original = _read(target)
    after = set_env(before, HOOK_ENV, str(script))
    if after == before:
        return []
    return [Change(target, render(after, original), f"set {HOOK_ENV} to this machine's {BARE_COMMAND} (not committed)")]


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
    if target != settings and target.exists():
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
    from ctxres.config import project_folder

    return Path(shown_path(project_folder(cwd) / ".claude" / SETTINGS_FILE, cwd))


def shown_path(path: Path, cwd: Path | None = None) -> str:
    """``path`` as the user reads it from the working folder (``../../CLAUDE.md`` from a subfolder), ``/``
    separators; as ruff prints paths."""
    return os.path.relpath(os.path.abspath(path), os.path.abspath(cwd or Path.cwd())).replace(os.sep, "/")


def write_changes(changes: list[Change]) -> None:
    """Write each change atomically and say what it did (paths relative to the working folder)."""
    for change in changes:
        change.path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(change.path, change.text)
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
    if not path.exists():
        return {}, ""
    try:
        text = path.read_text("utf-8")
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
            changes = ([] if args.local else plan_shared(path)) + plan_local(path, script)
    except SystemExit as exc:
        print(exc, file=sys.stderr)
        return 2
    except ValueError as exc:
        print(f"ctxres: error: {path}: {exc}", file=sys.stderr)
        return 2
    if warning:
        print(warning, file=sys.stderr)
    if args.dry_run:
        for change in changes:
            if len(changes) > 1:
                print(f"--- {change.path} ({change.action})")
            sys.stdout.write(change.text)
        return 0
    if not changes:
        print(f"{path} is already up to date" if not args.uninstall else f"no ctxres hook in {path}")
        return 0
    write_changes(changes)
    return 0
