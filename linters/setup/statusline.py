"""What ``ctxres doctor`` says about the statusline: registered or not, in which file, beside whose.

Informative only (a repository without our statusline loses nothing the hooks enforce): the doctor
prints it after the layers, and the statusline's command is run with the hook commands
(:mod:`ctxres.linters.setup.hook_runs`), where one that does not answer is a failure.
"""

from __future__ import annotations

import json
from pathlib import Path

from ctxres.claude_settings import statusline_entry, statusline_is_ours, wrapped_statusline

SETTINGS = (".claude/settings.local.json", ".claude/settings.json")
"""In the order Claude Code gives them precedence (the first one with a ``statusLine`` is shown)."""
FIX = "ctxres install-hooks"


def statusline_note(root: Path) -> tuple[str, str]:
    """(``present`` / ``other`` / ``none``, one sentence) for the repository at ``root``."""
    for name in SETTINGS:
        try:
            data = json.loads((root / name).read_text("utf-8"))
        except (OSError, UnicodeDecodeError, ValueError):
            continue
        entry = statusline_entry(data)
        if entry is None:
            continue
        if statusline_is_ours(data):
            theirs = wrapped_statusline(str(entry.get("command", "")))
            beside = f", shown after `{theirs}`, which it keeps" if theirs else ""
            return "present", f"the ctxres statusline in {name}{beside}"
        return "other", f"{name} has a statusline of its own; `{FIX}` shows ours beside it and keeps it"
    return "none", f"no statusline in {', '.join(SETTINGS)}: `{FIX}` adds the ctxres one"
