"""Our hook entries in Claude Code settings files: what they are, merging them in, taking them out.

Claude Code reads hooks from ``.claude/settings.json`` (committed), ``.claude/settings.local.json``
and a plugin's ``hooks/hooks.json``, as event -> list of matcher groups -> list of handlers.
Timeouts are in seconds. These functions are pure: they take and return the parsed JSON (or its text).
"""

from __future__ import annotations

import json

from ctxres.hook_events import HOOK_EVENTS, STATUSLINE, STATUSLINE_SEGMENT, HookEvent
from ctxres.records import FrozenRecord, init_field

# A hook loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MARKERS = ("ctxres-hook", "ctxres.hooks.main", "plugin_entry.py")
# The variable that may say where this machine's ctxres-hook is: set in the ``env`` of a settings file that
# git does not track (``.claude/settings.local.json``, or the user's own ``~/.claude/settings.json``), which
# Claude Code passes to every hook and to the statusline.
HOOK_ENV = "CTXRES_HOOK"
PROJECT_VENV_BIN = ".venv/bin"  # where uv and poetry put a project's own virtual environment
# Older versions committed ``"${CTXRES_HOOK:-ctxres-hook}" EVENT`` or a path: MARKERS recognises them all.
NOT_FOUND = (
    f"ctxres-hook not found ({HOOK_ENV}, {PROJECT_VENV_BIN}, PATH): the ctxres hooks did not run; install ctxres "
    "in the project .venv, or with pipx or uv tool, or run: ctxres init --local"
)
# The committed command finds ctxres-hook itself, the same text on every machine (Claude Code runs it with
# ``sh -c``): $CTXRES_HOOK when it is executable, else the project's own .venv, else the PATH; with none,
# one line on stderr and what ``otherwise`` says (exit 0: an empty, valid answer).
_FIND = (
    "h=$" + HOOK_ENV + '; [ -x "$h" ] || h="${CLAUDE_PROJECT_DIR:-.}/' + PROJECT_VENV_BIN + '/ctxres-hook"; '
    '[ -x "$h" ] || h=ctxres-hook; command -v "$h" >/dev/null || { echo "' + NOT_FOUND + '" >&2; '
)


def portable_command(args: str, otherwise: str = "exit 0", fallback: str | None = None) -> str:
    """The committed command that runs ``ctxres-hook ARGS`` wherever this machine has it; ``otherwise``: the
    shell command run when it has none (after one line on stderr); ``fallback``: for a command whose answer is
    a line of text (the statusline), the shell command run instead when ctxres-hook fails, prints nothing or
    prints JSON (stdin, read once, is in ``$i``)."""
    if fallback is None:
        return f'{_FIND}{otherwise}; }}; exec "$h" {args}'
    return (
        f'{_FIND}{otherwise}; }}; i=$(cat); o=$(printf %s "$i" | "$h" {args} ) && '
        f"case $o in ''|'{{'*) false;; esac && printf '%s\\n' \"$o\" || {{ {fallback}; }}"
    )


SETTINGS_FILE = "settings.json"  # committed, beside the local file in .claude/
LOCAL_SETTINGS_FILE = "settings.local.json"  # per clone: Claude Code's own place for a machine's settings


def is_ours(handler: Any) -> bool:
    """Whether a handler entry runs ctxres (by its command or arguments)."""
    if not isinstance(handler, dict):
        return False
    text = " ".join([str(handler.get("command", "")), *map(str, handler.get("args", []) or [])])
    return any(marker in text for marker in MARKERS)


def shown_command(command: str) -> str:
    """A command as a person reads it: a portable command as ``ctxres-hook ARGS`` (the search left out)."""
    head, found, args = command.partition('; exec "$h" ')
    if not found:
        head, found, args = command.partition(' | "$h" ')
        args = args.partition(" ) && ")[0]
    return f"ctxres-hook {args}" if found and head.startswith(_FIND) else command


def handler_for(spec: HookEvent, command: str | None = None) -> dict[str, Any]:
    """Our handler of one event: the portable command, or ``command EVENT`` for a command of the user's."""
    text = portable_command(spec.name) if command is None else f"{command} {spec.name}"
    return {"type": "command", "command": text, "timeout": spec.timeout}


PLUGIN_ENTRY = "${CLAUDE_PLUGIN_ROOT}/hooks/plugin_entry.py"
"""The script the plugin's ``hooks/hooks.json`` runs with ``python3`` (a plain clone, nothing installed)."""


def plugin_hooks_file() -> str:
    """The text of the plugin's ``hooks/hooks.json``: one group per event of the table, each on one line
    (``python dev/generate.py --write`` writes it, ``--check`` compares)."""
    roles = ", ".join(f"{spec.role} ({spec.name})" for spec in HOOK_EVENTS)
    description = f"ctxres: {roles}. Needs python3 with PyYAML."
    events = []
    for spec in HOOK_EVENTS:
        handler = {"type": "command", "command": "python3", "args": [PLUGIN_ENTRY, spec.name], "timeout": spec.timeout}
        events.append(f"    {json.dumps(spec.name)}: [\n      {json.dumps(_group(spec, handler))}\n    ]")
    body = ",\n".join(events)
    return f'{{\n  "description": {json.dumps(description)},\n  "hooks": {{\n{body}\n  }}\n}}\n'


def _groups(settings: dict[str, Any], event: str) -> list[Any]:
    hooks = settings.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise ValueError("`hooks` in the settings file is not an object")
    groups = hooks.setdefault(event, [])
    if not isinstance(groups, list):
        raise ValueError(f"`hooks.{event}` in the settings file is not a list")
    return groups


def uninstall(settings: dict[str, Any]) -> tuple[dict[str, Any], int]:
    """The settings without any ctxres handler (groups left empty are removed); and how many went."""
    result = _copy(settings)
    hooks = result.get("hooks")
    if not isinstance(hooks, dict):
        return result, 0
    removed = 0
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        kept_groups = []
        for group in groups:
            if isinstance(group, dict) and isinstance(group.get("hooks"), list):
                mine = [h for h in group["hooks"] if is_ours(h)]
                removed += len(mine)
                if mine:
                    group = {**group, "hooks": [h for h in group["hooks"] if not is_ours(h)]}
                    if not group["hooks"]:
                        continue
            kept_groups.append(group)
        if kept_groups:
            hooks[event] = kept_groups
        else:
            del hooks[event]
    if not hooks:
        del result["hooks"]
    return result, removed


def set_env(settings: dict[str, Any], name: str, value: str) -> dict[str, Any]:
    """The settings with ``env.<name>`` set to ``value`` (other variables and keys untouched)."""
    result = _copy(settings)
    env = result.setdefault("env", {})
    if not isinstance(env, dict):
        raise ValueError("`env` in the settings file is not an object")
    env[name] = value
    return result


def unset_env(settings: dict[str, Any], name: str) -> tuple[dict[str, Any], bool]:
    """The settings without ``env.<name>`` (an ``env`` left empty is removed); and whether it was there."""
    result = _copy(settings)
    env = result.get("env")
    if not isinstance(env, dict) or name not in env:
        return result, False
    del env[name]
    if not env:
        del result["env"]
    return result, True


def settings_env(settings: Any) -> dict[str, str]:
    """The ``env`` variables a parsed settings file gives the hooks (non-string values as Claude Code
    would pass them: their text)."""
    env = settings.get("env") if isinstance(settings, dict) else None
    if not isinstance(env, dict):
        return {}
    return {str(k): v if isinstance(v, str) else json.dumps(v) for k, v in env.items() if v is not None}


def install(settings: dict[str, Any], command: str | None = None) -> dict[str, Any]:
    """The settings with exactly one ctxres handler per event (others' entries untouched).

    Idempotent, and in place: the first group that holds only ctxres handlers is replaced where it
    stands (so the file's order of events and groups stays), any other ctxres handler is taken out,
    and an event without one gets a group appended. Installing twice, or re-installing with another
    command (a bare ``ctxres-hook``, an older path), leaves one copy of each.
    """
    result = _copy(settings)
    wanted = {spec.name: spec for spec in HOOK_EVENTS}
    for item in HOOK_EVENTS:
        _groups(result, item.name)  # validates the shape (ValueError) before anything changes
    hooks = result["hooks"]
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        spec = wanted.get(event)
        placed = False
        kept: list[Any] = []
        for group in groups:
            handlers = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(handlers, list) or not any(is_ours(h) for h in handlers):
                kept.append(group)
                continue
            if spec is not None and not placed and all(is_ours(h) for h in handlers):
                kept.append(_group_for(spec, command))
                placed = True
                continue
            others = [h for h in handlers if not is_ours(h)]
            if others:
                kept.append({**group, "hooks": others})
        if spec is not None and not placed:
            kept.append(_group_for(spec, command))
        if kept:
            hooks[event] = kept
        else:
            del hooks[event]
    return result


def _group_for(spec: HookEvent, command: str | None) -> dict[str, Any]:
    return _group(spec, handler_for(spec, command))


def _group(spec: HookEvent, handler: dict[str, Any]) -> dict[str, Any]:
    """A matcher group of one handler: the event's matcher first, when it has one."""
    group: dict[str, Any] = {"hooks": [handler]}
    if spec.matcher is not None:
        group = {"matcher": spec.matcher, **group}
    return group


def indentation(text: str) -> str | int | None:
    """The indentation a JSON text uses, for :func:`json.dumps`: a tab, a number of spaces, or None for a
    file written on one line; 2 (Claude Code's own) for an empty or new file."""
    if not text.strip():
        return 2
    for line in text.splitlines()[1:]:
        stripped = line.lstrip(" \t")
        if not stripped:
            continue
        lead = line[: len(line) - len(stripped)]
        if lead.startswith("\t"):
            return "\t"
        if lead:
            return len(lead)
    return None if "\n" not in text.strip() else 2


def render(data: dict[str, Any], original: str = "") -> str:
    """``data`` as the text of a settings file that was ``original`` (its indentation and its trailing
    newline kept; keys keep their order, which :func:`install` preserves)."""
    text = json.dumps(data, indent=indentation(original), ensure_ascii=False)
    return text + "\n" if not original or original.endswith("\n") else text


class Registration(FrozenRecord):
    """How one event is registered: found, and with which matcher(s)."""

    __slots__ = ("event", "found", "matchers")

    event: str
    found: bool
    matchers: tuple[str, ...]

    def __init__(self, event: str, found: bool, matchers: tuple[str, ...]) -> None:
        init_field(self, "event", event)
        init_field(self, "found", found)
        init_field(self, "matchers", matchers)


def registrations(settings: Any) -> dict[str, Registration]:
    """What ctxres handlers a parsed settings (or hooks.json) file registers, per event."""
    hooks = settings.get("hooks") if isinstance(settings, dict) else None
    found: dict[str, Registration] = {}
    for spec in HOOK_EVENTS:
        groups = hooks.get(spec.name) if isinstance(hooks, dict) else None
        matchers = []
        for group in groups if isinstance(groups, list) else []:
            if isinstance(group, dict) and any(is_ours(h) for h in group.get("hooks") or []):
                matchers.append(str(group.get("matcher", "")))
        found[spec.name] = Registration(spec.name, bool(matchers), tuple(matchers))
    return found


def _copy(settings: dict[str, Any]) -> dict[str, Any]:
    """A deep copy of the settings (``copy`` is imported here: a check reads registrations, never copies)."""
    import copy

    return copy.deepcopy(settings)


# --------------------------------------------------------------------------- the statusline

STATUSLINE_KEY = "statusLine"
STATUSLINE_ARG = STATUSLINE
BESIDE_OPTION = "--beside"


def statusline_command(command: str | None = None, beside: str | None = None) -> str:
    """Our statusline command (the portable one, or ``command statusline``); ``beside``: the statusline it
    replaces, which it runs and shows first.

    The portable command shows ``beside`` alone, unchanged, whenever ctxres-hook cannot give the line: none on
    this machine, or one that fails, prints nothing, or answers JSON (``{}``: an older ctxres-hook that does not
    know the statusline); without ``beside`` it then prints nothing. The client's JSON on stdin is read once
    and given to whichever runs."""
    import shlex

    args = STATUSLINE_ARG if beside is None else f"{STATUSLINE_ARG} {BESIDE_OPTION} {shlex.quote(beside)}"
    if command is not None:
        return f"{command} {args}"
    fallback = ":" if beside is None else f'printf %s "$i" | sh -c {shlex.quote(beside)}'
    alone = "exit 0" if beside is None else f"exec sh -c {shlex.quote(beside)}"
    return portable_command(args, alone, fallback)


def wrapped_statusline(command: str) -> str | None:
    """The statusline one of our commands runs beside ours (its ``--beside`` argument), else None."""
    import shlex

    try:
        words = shlex.split(command)
    except ValueError:
        return None
    for index, word in enumerate(words[:-1]):
        if word == BESIDE_OPTION:
            return words[index + 1]
    return None


def statusline_entry(settings: Any) -> dict[str, Any] | None:
    """The settings' ``statusLine`` object, if it is one."""
    entry = settings.get(STATUSLINE_KEY) if isinstance(settings, dict) else None
    return entry if isinstance(entry, dict) else None


def statusline_is_ours(settings: Any) -> bool:
    entry = statusline_entry(settings)
    return entry is not None and is_ours(entry) and STATUSLINE_ARG in str(entry.get("command", ""))


def install_statusline(settings: dict[str, Any], command: str | None = None) -> dict[str, Any]:
    """The settings with our ``statusLine``: added when there is none; when there is one of the user's,
    theirs is kept, run by ours and shown first (``--beside``; its other keys stay as they were);
    ours again (another command) is rewritten, keeping the statusline it wraps. A ccstatusline is left as
    it is (ours, wrapping one, gives it back): our part goes into it as a widget (:func:`segment_command`)."""
    result = _copy(settings)
    entry = statusline_entry(result)
    if STATUSLINE_KEY in result and entry is None:
        raise ValueError("`statusLine` in the settings file is not an object")
    if entry is None:
        result[STATUSLINE_KEY] = {"type": "command", "command": statusline_command(command), "padding": 0}
        return result
    current = str(entry.get("command", ""))
    beside = wrapped_statusline(current) if statusline_is_ours(result) else current or None
    if beside is not None and is_ccstatusline(beside):  # ours goes into it, as a widget: it is not wrapped
        entry["command"] = beside
        return result
    entry["command"] = statusline_command(command, beside)
    entry.setdefault("type", "command")
    return result


def is_ccstatusline(command: str) -> bool:
    """Whether a statusline command runs ccstatusline (``npx -y ccstatusline@latest``, ``bunx ccstatusline``,
    an installed ``ccstatusline``): a statusline of widgets, one of which runs a command of ours
    (:func:`segment_command`), so that :func:`install_statusline` leaves it as it is instead of wrapping it."""
    import re

    return re.search(r"(?:^|[\s/\"'])ccstatusline(?:@[\w.\-]+)?(?:\.[jt]s)?(?=$|[\s\"';&|)])", command) is not None


def segment_command(script: str = "ctxres-hook") -> str:
    """The command of the Custom Command widget that shows our part inside ccstatusline."""
    return f"{script} {STATUSLINE_ARG} {STATUSLINE_SEGMENT}"


def uninstall_statusline(settings: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """The settings without our ``statusLine``: the user's, which ours wrapped, put back as it was
    (only its command had changed); and whether ours was there."""
    result = _copy(settings)
    if not statusline_is_ours(result):
        return result, False
    entry = result[STATUSLINE_KEY]
    theirs = wrapped_statusline(str(entry.get("command", "")))
    if theirs is None:
        del result[STATUSLINE_KEY]
    else:
        entry["command"] = theirs
    return result, True
