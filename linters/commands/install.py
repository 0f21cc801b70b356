"""``ctxres install-hooks``: register (or remove) the ctxres hooks in a Claude Code settings file.

The command written is the absolute path of the ``ctxres-hook`` of the running installation: Claude
Code runs hooks through ``sh -c`` with its own PATH, where a bare ``ctxres-hook`` from a virtual
environment that is not activated is not found (status 127, which the client only logs in its
debug log). When no such script exists, the bare name is written and a warning says why.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import sys
import sysconfig
from pathlib import Path

from ctxres.atomic import write_atomic
from ctxres.claude_settings import HOOKS, install, render, uninstall

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is not imported at run time: about 2 ms of every start
    from typing import Any

BARE_COMMAND = "ctxres-hook"


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "install-hooks",
        help="register the ctxres hooks in .claude/settings.json",
        description="Merge the four ctxres hook entries (PreCompact; SessionStart on startup, resume and "
        "compact; UserPromptSubmit; PostToolUse on writes) into a Claude Code settings file, with the "
        "absolute path of this installation's ctxres-hook. Other entries, the file's indentation and its "
        "key order are kept; running it again changes nothing.",
    )
    parser.add_argument(
        "--settings",
        type=Path,
        default=Path(".claude/settings.json"),
        help="the settings file (default: .claude/settings.json; "
        ".claude/settings.local.json keeps it out of version control); its folder must exist, except "
        "a .claude folder, which is created",
    )
    parser.add_argument(
        "--command",
        default=None,
        help="how Claude Code runs the hook (default: the absolute path of this installation's ctxres-hook)",
    )
    parser.add_argument("--uninstall", action="store_true", help="remove the ctxres entries, and only those")
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


def hook_command() -> tuple[str, str | None]:
    """The command to register (the absolute ``ctxres-hook`` path, quoted for ``sh`` if needed), and
    a warning when only the bare name can be written."""
    found = installed_script(BARE_COMMAND)
    if found is not None:
        return shlex.quote(str(found)), None
    return BARE_COMMAND, (
        f"ctxres: warning: no {BARE_COMMAND} script was found for this installation ({sys.executable}); "
        f"the hooks are registered as a bare `{BARE_COMMAND}`, and every one of them will fail with status "
        f"127 (which Claude Code only writes to its debug log) unless `{BARE_COMMAND}` is on the PATH "
        f"Claude Code runs with. Re-run with --command /absolute/path/to/{BARE_COMMAND} (or a command that "
        "runs `python -m ctxres.hooks.main`), then `ctxres doctor` to check that every hook answers"
    )


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
    path: Path = args.settings
    absent = missing_folder(path)
    if absent is not None:
        print(
            f"ctxres: error: the folder {absent} does not exist, so {path} is not written (a mistyped "
            "path?); check --settings, or create the folder first",
            file=sys.stderr,
        )
        return 2
    warning = None
    command = args.command
    if command is None and not args.uninstall:
        command, warning = hook_command()
    elif command == BARE_COMMAND and not args.uninstall and shutil.which(BARE_COMMAND) is None:
        warning = (
            f"ctxres: warning: `{BARE_COMMAND}` is not on PATH here; every hook fails with status 127 unless "
            f"Claude Code finds it on its own PATH; pass --command with the full path"
        )
    try:
        before, original = _read(path)
        if args.uninstall:
            after, removed = uninstall(before)
            summary = f"removed {removed} ctxres hook entr{'y' if removed == 1 else 'ies'} from {path}"
        else:
            after = install(before, command)
            summary = f"registered {', '.join(spec.event for spec in HOOKS)} in {path} (command: {command})"
    except SystemExit as exc:
        print(exc, file=sys.stderr)
        return 2
    except ValueError as exc:
        print(f"ctxres: error: {path}: {exc}", file=sys.stderr)
        return 2
    text = render(after, original)
    if warning:
        print(warning, file=sys.stderr)
    if args.dry_run:
        sys.stdout.write(text)
        return 0
    if after == before and path.exists():
        print(f"{path} is already up to date")
        return 0
    path.parent.mkdir(exist_ok=True)
    write_atomic(path, text)
    print(summary)
    return 0
