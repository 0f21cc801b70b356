"""What ``ctxres doctor`` says about the statusline: registered or not, in which file, beside whose; and,
when the project's statusline is ccstatusline, whether our segment is one of its widgets.

Informative only (a repository without our statusline loses nothing the hooks enforce): the doctor
prints it after the layers, and the statusline's command is run with the hook commands
(:mod:`ctxres.linters.setup.hook_runs`), where one that does not answer is a failure.
"""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path

from ctxres.claude_settings import (
    is_ccstatusline,
    segment_command,
    statusline_entry,
    statusline_is_ours,
    wrapped_statusline,
)
from ctxres.hook_events import STATUSLINE, STATUSLINE_SEGMENT

SETTINGS = (".claude/settings.local.json", ".claude/settings.json")
"""In the order Claude Code gives them precedence (the first one with a ``statusLine`` is shown)."""
FIX = "ctxres install-hooks"
CCSTATUSLINE_SETTINGS = (".config", "ccstatusline", "settings.json")
"""ccstatusline's own settings, under the home folder (its ``--config PATH`` names another file)."""


def statusline_note(root: Path, home: str | None = None) -> tuple[str, str]:
    """(``present`` / ``other`` / ``none``, one sentence) for the repository at ``root``; ``home``: where
    ccstatusline's settings are looked for (``$HOME`` when None)."""
    for name in SETTINGS:
        try:
            data = json.loads((root / name).read_text("utf-8"))
        except (OSError, UnicodeDecodeError, ValueError):
            continue
        entry = statusline_entry(data)
        if entry is None:
            continue
        command = str(entry.get("command", ""))
        if statusline_is_ours(data):
            theirs = wrapped_statusline(command)
            beside = f", shown after `{theirs}`, which it keeps" if theirs else ""
            return "present", f"the ctxres statusline in {name}{beside}"
        if is_ccstatusline(command):
            if has_segment(command, home):
                return "present", f"ccstatusline in {name}, with the ctxres segment as one of its widgets"
            return "other", f"{name} runs ccstatusline; {ccstatusline_advice()}"
        return "other", f"{name} has a statusline of its own; `{FIX}` shows ours beside it and keeps it"
    return "none", f"no statusline in {', '.join(SETTINGS)}: `{FIX}` adds the ctxres one"


def ccstatusline_advice(script: str = "ctxres-hook") -> str:
    """How to show our part inside ccstatusline (``script``: this machine's ``ctxres-hook``, when known)."""
    return (
        "add the ctxres segment (the workflow, its phase and gate, how fresh its resumption section is, the "
        "unacknowledged compactions) to it as a widget: run `npx ccstatusline@latest`, edit a line, add a "
        f"Custom Command widget with the command `{segment_command(script)}`"
    )


def has_segment(command: str, home: str | None = None) -> bool:
    """Whether ccstatusline's settings (its ``--config`` file, else ``~/.config/ccstatusline/settings.json``)
    hold a widget that runs our segment."""
    path = _config_option(command)
    if path is None:
        base = home if home is not None else os.environ.get("HOME", "")
        if not base:
            return False
        path = os.path.join(base, *CCSTATUSLINE_SETTINGS)
    try:
        text = Path(os.path.expanduser(path)).read_text("utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    return f"{STATUSLINE} {STATUSLINE_SEGMENT}" in text


def _config_option(command: str) -> str | None:
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    for index, word in enumerate(words):
        if word == "--config" and index + 1 < len(words):
            return words[index + 1]
        if word.startswith("--config="):
            return word.split("=", 1)[1]
    return None
