"""Each ctxres hook command of a project's Claude Code settings, run the way the client runs it.

Claude Code runs a hook's ``command`` through ``sh -c`` in the project folder with
``$CLAUDE_PROJECT_DIR`` set and the event's JSON on stdin. A command that is not found exits 127
and the client only writes that to its debug log: the session goes on as if no hook were
configured; the portable command (:func:`ctxres.claude_settings.portable_command`) that finds no
``ctxres-hook`` exits 0 with one line on stderr, and does nothing either. The doctor therefore runs every
registered command with a harmless payload and ``CTXRES_HOOK_PROBE=1`` (the hook loads its handler and
answers without reading or writing the project's state), with the ``env`` of the settings files as the
client passes it (the user's own ``~/.claude/settings.json``, then the project's files), and reports each
one that does not answer or does not find ctxres-hook.
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ctxres.claude_settings import (
    HOOK_ENV,
    NOT_FOUND,
    STATUSLINE_ARG,
    is_ours,
    settings_env,
    shown_command,
    statusline_entry,
    statusline_is_ours,
    wrapped_statusline,
)
from ctxres.defaults import PROBE_ENV
from ctxres.hook_events import HOOK_EVENTS
from ctxres.linters.rules.layers import MISCONFIGURED, PRESENT, Layer
from ctxres.linters.setup.machine import committed_lookup

SETTINGS = (".claude/settings.json", ".claude/settings.local.json")
HOOK_SCRIPT = "ctxres-hook"
LAYER = "hook runs"
MAX_SECONDS = 30.0
DEFAULT_SECONDS = 60.0  # Claude Code's default hook timeout
STATUSLINE_SECONDS = 5.0


@dataclass(slots=True, frozen=True)
class HookCommand:
    """One ctxres handler of a settings file."""

    settings: str  # relative to the project
    event: str
    command: str
    timeout: float


def harmless_payload(event: str, root: Path) -> dict[str, Any]:
    """A payload for ``event`` on which the hooks write nothing even without the probe variable: a
    SessionStart after ``/clear``, a prompt without a transcript, a tool call that wrote no file, a
    PreCompact whose trigger is neither ``auto`` nor ``manual`` (no checkpoint is written)."""
    common: dict[str, Any] = {"hook_event_name": event, "session_id": "ctxres-doctor", "cwd": str(root)}
    extra: dict[str, dict[str, Any]] = {
        **{event.name: event.harmless for event in HOOK_EVENTS},
        STATUSLINE_ARG: {"workspace": {"project_dir": str(root)}, "context_window": {"current_usage": None}},
    }
    return {**common, **copy.deepcopy(extra.get(event, {}))}  # a copy: the table is shared


def settings_files(root: Path) -> list[tuple[str, Any]]:
    """(name, parsed JSON) of each of the project's settings files that exists and parses, in the order the
    client merges them (a file that does not parse is reported by the hook layers)."""
    found = []
    for name in SETTINGS:
        try:
            found.append((name, json.loads((root / name).read_text("utf-8"))))
        except (OSError, UnicodeDecodeError, ValueError):
            continue
    return found


def configured(root: Path) -> list[HookCommand]:
    """The ctxres handlers of the project's settings files (a command registered twice is run once)."""
    found: list[HookCommand] = []
    seen: set[tuple[str, str]] = set()
    for name, data in settings_files(root):
        if statusline_is_ours(data):
            command = str((statusline_entry(data) or {}).get("command"))
            if (STATUSLINE_ARG, command) not in seen:
                seen.add((STATUSLINE_ARG, command))
                found.append(HookCommand(name, STATUSLINE_ARG, command, STATUSLINE_SECONDS))
        hooks = data.get("hooks") if isinstance(data, dict) else None
        for event, groups in hooks.items() if isinstance(hooks, dict) else ():
            for group in groups if isinstance(groups, list) else ():
                handlers = group.get("hooks") if isinstance(group, dict) else None
                for handler in handlers if isinstance(handlers, list) else ():
                    if not is_ours(handler) or not isinstance(handler.get("command"), str):
                        continue
                    if (event, handler["command"]) in seen:
                        continue
                    seen.add((event, handler["command"]))
                    timeout = handler.get("timeout")
                    seconds = float(timeout) if isinstance(timeout, (int, float)) and timeout > 0 else DEFAULT_SECONDS
                    found.append(HookCommand(name, str(event), handler["command"], seconds))
    return found


def settings_environment(root: Path, home: Path | None = None) -> dict[str, str]:
    """The ``env`` of the project's settings files, merged as the client merges them (the local file last);
    with ``home``, the user's own ``HOME/.claude/settings.json`` first."""
    merged: dict[str, str] = {}
    if home is not None:
        with contextlib.suppress(OSError, UnicodeDecodeError, ValueError):
            merged.update(settings_env(json.loads((home / ".claude" / "settings.json").read_text("utf-8"))))
    for _name, data in settings_files(root):
        merged.update(settings_env(data))
    return merged


def not_found_fix(command: str) -> str:
    """What makes a command that is not found run: this machine's ``ctxres-hook`` where the portable command
    looks; a command that names a path (another machine's, an old venv) replaced by the portable one."""
    local = (
        "install ctxres in the project's .venv, or with pipx or `uv tool`; or ctxres init --local (records this "
        f"machine's ctxres-hook as {HOOK_ENV} in .claude/settings.local.json when git ignores it; --user-env: in "
        "~/.claude/settings.json)"
    )
    if f"${HOOK_ENV}" in command or f"${{{HOOK_ENV}" in command:
        return local
    return (
        "ctxres install-hooks (registers the command every machine runs, which finds ctxres-hook in "
        f"${HOOK_ENV}, the project's .venv or the PATH, in place of this one), then {local}"
    )


def run_hook(root: Path, hook: HookCommand, settings_vars: dict[str, str] | None = None) -> Layer:
    """Run one command as the client does (the settings files' ``env`` passed to it); the row says
    whether it answered."""
    layer = LAYER
    shown = f"`{shown_command(hook.command)}` ({hook.settings})"
    env = {**os.environ, **(settings_vars or {}), "CLAUDE_PROJECT_DIR": str(root), PROBE_ENV: "1"}
    payload = json.dumps(harmless_payload(hook.event, root)).encode()
    seconds = min(hook.timeout, MAX_SECONDS)
    try:
        done = subprocess.run(
            ["sh", "-c", hook.command], input=payload, capture_output=True, cwd=root, env=env, timeout=seconds
        )
    except subprocess.TimeoutExpired:
        return Layer(
            layer,
            MISCONFIGURED,
            f"{shown} did not answer within {seconds:g} s",
            f"run it by hand in {root} (`echo '{{}}' | {hook.command}`) to see where it hangs",
            hook.settings,
        )
    except OSError as exc:
        return Layer(
            layer, MISCONFIGURED, f"{shown} could not be started: {exc}", "check that `sh` works", hook.settings
        )
    stderr = done.stderr.decode("utf-8", "replace").strip().splitlines()
    said = f"; it said: {stderr[-1][:200]}" if stderr else ""
    if done.returncode in (126, 127):
        why = "command not found" if done.returncode == 127 else "found but not executable"
        return Layer(
            layer,
            MISCONFIGURED,
            f"{shown} exits with status {done.returncode} ({why}): Claude Code skips this hook silently{said}",
            not_found_fix(hook.command),
            hook.settings,
        )
    if done.returncode == 0 and NOT_FOUND in stderr:
        what = "does nothing"
        if hook.event == STATUSLINE_ARG:
            what = "shows only the statusline it wraps" if wrapped_statusline(hook.command) else "shows nothing"
        return Layer(
            layer,
            MISCONFIGURED,
            f"{shown} finds no ctxres-hook here (${HOOK_ENV}, the project's .venv, the PATH), so it {what}",
            not_found_fix(hook.command),
            hook.settings,
        )
    if done.returncode != 0:
        return Layer(
            layer,
            MISCONFIGURED,
            f"{shown} exits with status {done.returncode}{said}",
            f"run it by hand in {root} to see why, or re-register it with ctxres install-hooks",
            hook.settings,
        )
    out = done.stdout.decode("utf-8", "replace").strip()
    if hook.event == STATUSLINE_ARG:
        if not out:
            return Layer(
                layer,
                MISCONFIGURED,
                f"{shown} prints nothing, so Claude Code shows an empty statusline{said}",
                "re-register it with ctxres install-hooks",
                hook.settings,
            )
        return Layer(layer, PRESENT, f"{shown} answers {out.splitlines()[0][:60]!r} (exit 0)", "", hook.settings)
    if out:
        try:
            answer = json.loads(out)
        except ValueError:
            answer = None
        if not isinstance(answer, dict):
            return Layer(
                layer,
                MISCONFIGURED,
                f"{shown} answers {out[:80]!r}, which is not a JSON object",
                "the command must print one JSON object (or nothing): register ctxres-hook itself with "
                "ctxres install-hooks",
                hook.settings,
            )
    return Layer(layer, PRESENT, f"{shown} answers (exit 0)", "", hook.settings)


def check_hook_runs(root: Path) -> list[Layer]:
    """A row per ctxres hook command that does not answer; one row when they all do; none when no
    settings file registers one (the hook layers say so)."""
    hooks = configured(root)
    settings_vars = settings_environment(root, Path.home())
    rows = [run_hook(root, hook, settings_vars) for hook in hooks]
    failed = [row for row in rows if not row.ok]
    if failed or not rows:
        return failed
    files = ", ".join(dict.fromkeys(hook.settings for hook in hooks))
    events = ", ".join(hook.event for hook in hooks)
    detail = f"{len(rows)} ctxres hook commands answer (exit 0): {events} in {files}"
    found = committed_lookup(root, HOOK_SCRIPT, {**os.environ, **settings_vars})
    if found is not None:  # where, as `ctxres init` says it (one definition: machine.found_without_env)
        detail += f"; they run {found[0]} ({found[1].shown()})"
    return [Layer(LAYER, PRESENT, detail, "", hooks[0].settings)]
