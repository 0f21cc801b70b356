"""``ctxres install-hooks``: register (or remove) the ctxres hooks in a Claude Code settings file."""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path
from typing import Any

from ctxres.atomic import write_atomic
from ctxres.claude_settings import HOOKS, install, uninstall


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "install-hooks",
        help="register the ctxres hooks in .claude/settings.json",
        description="Merge the four ctxres hook entries (PreCompact; SessionStart on startup, resume and "
        "compact; UserPromptSubmit; PostToolUse on Write, Edit and MultiEdit) into a Claude Code "
        "settings file. Other entries are left as they are; running it again changes nothing.",
    )
    parser.add_argument(
        "--settings",
        type=Path,
        default=Path(".claude/settings.json"),
        help="the settings file (default: .claude/settings.json; "
        ".claude/settings.local.json keeps it out of version control)",
    )
    parser.add_argument(
        "--command", default="ctxres-hook", help="how Claude Code runs the hook (default: ctxres-hook, found on PATH)"
    )
    parser.add_argument("--uninstall", action="store_true", help="remove the ctxres entries, and only those")
    parser.add_argument("--dry-run", action="store_true", help="print the resulting file instead of writing it")
    parser.set_defaults(handler=run)


def _read(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise SystemExit(f"ctxres: error: cannot read {path}: {exc}") from None
    if not isinstance(data, dict):
        raise SystemExit(f"ctxres: error: {path} does not hold a JSON object")
    return data


def run(args: argparse.Namespace) -> int:
    path: Path = args.settings
    try:
        before = _read(path)
        if args.uninstall:
            after, removed = uninstall(before)
            summary = f"removed {removed} ctxres hook entr{'y' if removed == 1 else 'ies'} from {path}"
        else:
            after = install(before, args.command)
            summary = f"registered {', '.join(spec.event for spec in HOOKS)} in {path}"
    except SystemExit as exc:
        print(exc, file=sys.stderr)
        return 2
    except ValueError as exc:
        print(f"ctxres: error: {path}: {exc}", file=sys.stderr)
        return 2
    text = json.dumps(after, indent=2, ensure_ascii=False) + "\n"
    if args.dry_run:
        sys.stdout.write(text)
        return 0
    if after == before and path.exists():
        print(f"{path} is already up to date")
        return 0
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, text)
    print(summary)
    if not args.uninstall and args.command == "ctxres-hook" and shutil.which("ctxres-hook") is None:
        print(
            "ctxres: warning: `ctxres-hook` is not on PATH here; Claude Code must find it, or pass "
            "--command with the full path",
            file=sys.stderr,
        )
    return 0
