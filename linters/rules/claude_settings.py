"""H: the Claude Code settings that wire the hooks (``.claude/settings.json``, ``.claude/settings.local.json``, a
plugin's ``hooks/hooks.json``).

Each rule is one defect, and its severity follows what the client (2.1.328) does with it, as
``docs/claude-settings.md`` records and ``e2e/test_settings_defects.py`` asserts in the real client: a defect
that makes the client drop the whole file stops every hook in it (an error); one that makes it skip only the
bad entry is a warning, and an error when that entry is one of ours (a hook of ours that never runs). Invalid
JSON, which drops the whole file, is P001.
"""

from __future__ import annotations

import json

from ctxres.claude_settings import HOOK_ENV, STATUSLINE_KEY, is_ours
from ctxres.config import Config
from ctxres.findings import Finding, Severity
from ctxres.formats.document import Document, JsonPath, format_json_path
from ctxres.hook_events import CLIENT_EVENTS, HOOK_TYPES, MATCHERLESS_EVENTS
from ctxres.linters.checking.registry import Rule, document_check, register
from ctxres.linters.checking.severity_policy import Case
from ctxres.linters.validation.close_match import close_match

# `ctxres check` loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

KINDS = ("claude-settings",)
OUR_ENV_PREFIX = HOOK_ENV.split("_", 1)[0] + "_"  # CTXRES_: the variables our hooks and statusline read


def _finding(
    doc: Document, rule: Rule, path: JsonPath, message: str, fix: str, *, ours: bool = True, key: bool = False
) -> Finding:
    """A finding of ``rule`` at ``path``; a warning instead of the rule's error when the entry is not ours."""
    severity = rule.severity if ours else Severity.WARNING
    return Finding(doc.path, rule.code, message, severity, doc.locate(path, key=key), format_json_path(path), fix)


def _events(doc: Document) -> Iterator[tuple[str, Any]]:
    """Each event name under ``hooks`` and its list of entries."""
    hooks = doc.data.get("hooks") if isinstance(doc.data, dict) else None
    if isinstance(hooks, dict):
        yield from hooks.items()


def _groups(doc: Document) -> Iterator[tuple[str, JsonPath, dict[str, Any]]]:
    """Each entry (``{"matcher": ..., "hooks": [...]}``) of each known event, with its path."""
    for event, groups in _events(doc):
        if event in CLIENT_EVENTS and isinstance(groups, list):
            for index, group in enumerate(groups):
                if isinstance(group, dict):
                    yield event, ("hooks", event, index), group


def _handlers(doc: Document) -> Iterator[tuple[JsonPath, dict[str, Any]]]:
    """Each hook (``{"type": ..., "command": ...}``) of each entry, with its path."""
    for _event, path, group in _groups(doc):
        handlers = group.get("hooks")
        if isinstance(handlers, list):
            for index, handler in enumerate(handlers):
                if isinstance(handler, dict):
                    yield (*path, "hooks", index), handler


def _any_ours(groups: Any) -> bool:
    """Whether an event's entries hold a hook of ours (in a ``hooks`` list, or written flat in the entry)."""
    if not isinstance(groups, list):
        return False
    for group in groups:
        if not isinstance(group, dict):
            continue
        handlers = group.get("hooks")
        if is_ours(group) or (isinstance(handlers, list) and any(is_ours(handler) for handler in handlers)):
            return True
    return False


# --- H001: unknown-hook-event ---------------------------------------------------------------------

UNKNOWN_HOOK_EVENT = register(
    "H001",
    "unknown-hook-event",
    "A `hooks` key is not an event the client knows: it skips every entry under it.",
    Severity.ERROR,
    case=Case.TOOL_JOB,
    why="The client skips the entries of an unknown event: a hook of ours there never runs (a warning when "
    "none of them is ours: the rest of the file is in effect).",
    explanation="""
    ## Why
    Claude Code 2.1.328 skips every entry under an event name it does not know ("Unknown hook event ... was
    ignored"), prints a notice, and keeps the rest of the file. A misspelt event silently disables its hooks:
    an error when one of them runs ctxres (that layer stops), a warning otherwise.

    ## Example
    ```json
    {"hooks": {"UserPromptSubmitt": [{"hooks": [{"type": "command", "command": "ctxres-hook UserPromptSubmit"}]}]}}
    ```

    ## Fix
    Spell the event as the client names it (`UserPromptSubmit`); `ctxres install-hooks` writes our entries.
    """,
)


@document_check(UNKNOWN_HOOK_EVENT, kinds=KINDS)
def check_unknown_hook_event(doc: Document, _config: Config) -> list[Finding]:
    """H001: an event name under ``hooks`` the client does not know."""
    findings: list[Finding] = []
    for event, groups in _events(doc):
        if event in CLIENT_EVENTS:
            continue
        guess = close_match(event, CLIENT_EVENTS)
        fix = f'rename it "{guess}"' if guess else "use one of the client's events (PreCompact, SessionStart, ...)"
        message = f'unknown hook event "{event}": Claude Code skips its entries; {fix}'
        ours = _any_ours(groups)
        findings.append(_finding(doc, UNKNOWN_HOOK_EVENT, ("hooks", event), message, fix, ours=ours, key=True))
    return findings


# --- H002: hook-group-without-hooks ---------------------------------------------------------------

HOOK_GROUP_WITHOUT_HOOKS = register(
    "H002",
    "hook-group-without-hooks",
    'An entry of a hook event has no `"hooks": [...]` list: the client skips it.',
    Severity.ERROR,
    case=Case.TOOL_JOB,
    why="The client skips an entry without its `hooks` list: a hook of ours written so never runs (a warning "
    "when it is not ours).",
    explanation="""
    ## Why
    Each entry of an event is `{"matcher": ..., "hooks": [{"type": "command", "command": ...}]}`. An entry
    without the `hooks` list (a command written directly in it is the usual slip) is skipped by Claude Code
    2.1.328 with a notice ("Hook matcher "hooks" must be an array of hook entries"); the rest of the file is
    in effect.

    ## Example
    ```json
    {"hooks": {"UserPromptSubmit": [{"type": "command", "command": "ctxres-hook UserPromptSubmit"}]}}
    ```

    ## Fix
    Put the command inside a list: `{"hooks": [{"type": "command", "command": "..."}]}`.
    """,
)


@document_check(HOOK_GROUP_WITHOUT_HOOKS, kinds=KINDS)
def check_hook_group_without_hooks(doc: Document, _config: Config) -> list[Finding]:
    """H002: an entry of a known event whose ``hooks`` is missing or not a list."""
    findings: list[Finding] = []
    for event, path, group in _groups(doc):
        if isinstance(group.get("hooks"), list):
            continue
        fix = 'put its hooks in a list: {"hooks": [{"type": "command", "command": "..."}]}'
        message = f'an entry of {event} has no "hooks" list: Claude Code skips it; {fix}'
        findings.append(_finding(doc, HOOK_GROUP_WITHOUT_HOOKS, path, message, fix, ours=is_ours(group)))
    return findings


# --- H003: unknown-hook-type ----------------------------------------------------------------------

UNKNOWN_HOOK_TYPE = register(
    "H003",
    "unknown-hook-type",
    "A hook's `type` is not one the client runs: it skips that hook.",
    Severity.ERROR,
    case=Case.TOOL_JOB,
    why="The client skips a hook of an unknown type: one of ours never runs (a warning when it is not ours).",
    explanation="""
    ## Why
    Claude Code 2.1.328 runs the hook types `command`, `prompt`, `agent`, `http` and `mcp_tool`; it skips a
    hook of any other type, or of none ("Unknown hook type ...; entry ignored"), and keeps the rest.

    ## Example
    ```json
    {"hooks": {"PreCompact": [{"hooks": [{"type": "commandx", "command": "ctxres-hook PreCompact"}]}]}}
    ```

    ## Fix
    Write `"type": "command"` (ours are command hooks).
    """,
)


@document_check(UNKNOWN_HOOK_TYPE, kinds=KINDS)
def check_unknown_hook_type(doc: Document, _config: Config) -> list[Finding]:
    """H003: a hook whose ``type`` is missing or not one of the client's."""
    findings: list[Finding] = []
    for path, handler in _handlers(doc):
        kind = handler.get("type")
        if isinstance(kind, str) and kind in HOOK_TYPES:
            continue
        fix = 'write "type": "command"' if "command" in handler else f"use a type of: {', '.join(HOOK_TYPES)}"
        shown = f'type "{kind}"' if isinstance(kind, str) else "no type" if kind is None else f"type {kind!r}"
        message = f"a hook of {shown}: Claude Code skips it; {fix}"
        where = (*path, "type") if "type" in handler else path
        findings.append(_finding(doc, UNKNOWN_HOOK_TYPE, where, message, fix, ours=is_ours(handler)))
    return findings


# --- H004: hook-timeout-not-a-number --------------------------------------------------------------

HOOK_TIMEOUT_NOT_A_NUMBER = register(
    "H004",
    "hook-timeout-not-a-number",
    "A hook's `timeout` is not a number (seconds): the client skips that hook.",
    Severity.ERROR,
    case=Case.TOOL_JOB,
    why="The client skips a hook whose timeout is not a number: one of ours never runs (a warning when it is "
    "not ours).",
    explanation="""
    ## Why
    `timeout` is a number of seconds. Claude Code 2.1.328 skips a hook whose timeout is a string (`"30"`) or
    anything else but a number ("Invalid command hook (timeout: ...); entry ignored"); the rest of the file
    is in effect.

    ## Example
    ```json
    {"hooks": {"PreCompact": [{"hooks": [{"type": "command", "command": "ctxres-hook PreCompact", "timeout": "5"}]}]}}
    ```

    ## Fix
    Write the number without quotes: `"timeout": 5`.
    """,
)


@document_check(HOOK_TIMEOUT_NOT_A_NUMBER, kinds=KINDS)
def check_hook_timeout_not_a_number(doc: Document, _config: Config) -> list[Finding]:
    """H004: a hook's ``timeout`` that is present and not a number."""
    findings: list[Finding] = []
    for path, handler in _handlers(doc):
        if "timeout" not in handler:
            continue
        timeout = handler["timeout"]
        if isinstance(timeout, (int, float)) and not isinstance(timeout, bool):
            continue
        fix = f"write it as a number of seconds: {timeout}" if _numeric(timeout) else "write a number of seconds"
        message = f"timeout {_json(timeout)} is not a number: Claude Code skips this hook; {fix}"
        where = (*path, "timeout")
        findings.append(_finding(doc, HOOK_TIMEOUT_NOT_A_NUMBER, where, message, fix, ours=is_ours(handler)))
    return findings


def _numeric(value: Any) -> bool:
    return isinstance(value, str) and value.strip().replace(".", "", 1).isdigit()


def _json(value: Any) -> str:
    return json.dumps(value)


# --- H005: matcher-ignored ------------------------------------------------------------------------

MATCHER_IGNORED = register(
    "H005",
    "matcher-ignored",
    "A `matcher` on an event that takes none: the client ignores it and runs the hooks every time.",
    Severity.WARNING,
    case=Case.CONVENTION,
    why="The client ignores the matcher and runs the entry's hooks on every occurrence: they still run, but not "
    "only when the matcher says.",
    explanation="""
    ## Why
    Some events take no matcher (UserPromptSubmit, Stop, PostToolBatch, TeammateIdle, TaskCreated,
    TaskCompleted, WorktreeCreate, WorktreeRemove, CwdChanged). Claude Code 2.1.328 ignores a `matcher` on
    their entries without a word and runs the hooks on every occurrence: a hook meant for some prompts runs on
    all of them.

    ## Example
    ```json
    {"hooks": {"UserPromptSubmit": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "..."}]}]}}
    ```

    ## Fix
    Remove the matcher, and let the hook decide from its input when to act.
    """,
)


@document_check(MATCHER_IGNORED, kinds=KINDS)
def check_matcher_ignored(doc: Document, _config: Config) -> list[Finding]:
    """H005: a non-empty ``matcher`` on an entry of an event that takes none."""
    findings: list[Finding] = []
    for event, path, group in _groups(doc):
        matcher = group.get("matcher")
        if event not in MATCHERLESS_EVENTS or matcher in (None, "", "*"):
            continue
        fix = "remove the matcher"
        message = f"{event} takes no matcher: Claude Code ignores {_json(matcher)} and runs these hooks every time"
        findings.append(_finding(doc, MATCHER_IGNORED, (*path, "matcher"), f"{message}; {fix}", fix))
    return findings


# --- H006: statusline-without-command -------------------------------------------------------------

STATUSLINE_WITHOUT_COMMAND = register(
    "H006",
    "statusline-without-command",
    "`statusLine` is not an object with a `command`: the client drops the whole settings file, hooks included.",
    Severity.ERROR,
    case=Case.TOOL_JOB,
    why="The client does not load a settings file whose statusLine has no command: none of its hooks runs.",
    explanation="""
    ## Why
    Claude Code 2.1.328 does not load a settings file whose `statusLine` is not an object with a string
    `command` ("These settings files did not load, so nothing in them is in effect, including hooks and
    permission rules"). Every hook of that file stops, ours included, for a defect in the statusline.

    ## Example
    ```json
    {"statusLine": {"type": "command"}, "hooks": {"PreCompact": [...]}}
    ```

    ## Fix
    Give it its command (`ctxres install-hooks --statusline` writes ours), or remove `statusLine`.
    """,
)


@document_check(STATUSLINE_WITHOUT_COMMAND, kinds=KINDS)
def check_statusline_without_command(doc: Document, _config: Config) -> list[Finding]:
    """H006: a ``statusLine`` that is not an object with a string ``command``."""
    if not isinstance(doc.data, dict) or STATUSLINE_KEY not in doc.data:
        return []
    entry = doc.data[STATUSLINE_KEY]
    if isinstance(entry, dict) and isinstance(entry.get("command"), str):
        return []
    fix = 'give it {"type": "command", "command": "..."} or remove it'
    what = "has no command" if isinstance(entry, dict) else "is not an object"
    message = f"statusLine {what}: Claude Code does not load this file, so none of its hooks runs; {fix}"
    return [_finding(doc, STATUSLINE_WITHOUT_COMMAND, (STATUSLINE_KEY,), message, fix, key=True)]


# --- H007: env-value-not-a-string -----------------------------------------------------------------

ENV_VALUE_NOT_A_STRING = register(
    "H007",
    "env-value-not-a-string",
    "An `env` value is not a string: the client turns it into text (`null`, `[object Object]`).",
    Severity.ERROR,
    case=Case.TOOL_JOB,
    why="The client turns the value into text: a null, list or object becomes a value the hook cannot use (a "
    "number or a boolean becomes its own text: a warning).",
    explanation="""
    ## Why
    Claude Code 2.1.328 loads a non-string `env` value without a word and sets the variable to its text:
    `4` becomes `"4"` and `true` `"true"` (the same fact: a warning), but `null` becomes `"null"` and an
    object `"[object Object]"`, which is not what the hooks read (an error).

    ## Example
    ```json
    {"env": {"BUILD_JOBS": 4, "CTXRES_HOOK": null}}
    ```

    ## Fix
    Quote the value: `"BUILD_JOBS": "4"`; remove a variable that has no value.
    """,
)


@document_check(ENV_VALUE_NOT_A_STRING, kinds=KINDS)
def check_env_value_not_a_string(doc: Document, _config: Config) -> list[Finding]:
    """H007: a value of ``env`` that is not a string."""
    env = doc.data.get("env") if isinstance(doc.data, dict) else None
    if not isinstance(env, dict):
        return []
    findings: list[Finding] = []
    for name, value in env.items():
        if isinstance(value, str):
            continue
        scalar = isinstance(value, (bool, int, float))
        text = _json(value) if scalar else _as_client_text(value)
        fix = f'write it as text: "{text}"' if scalar else "write the value as text, or remove the variable"
        message = f'env {name} is {_json(value)}, not text: the hooks see "{text}"; {fix}'
        ours = not scalar or name.startswith(OUR_ENV_PREFIX)
        findings.append(_finding(doc, ENV_VALUE_NOT_A_STRING, ("env", name), message, fix, ours=ours))
    return findings


def _as_client_text(value: Any) -> str:
    """The text the client makes of a null, a list or an object (JavaScript's ``String(value)``)."""
    if value is None:
        return "null"
    if isinstance(value, list):
        return ",".join(
            "" if item is None else _as_client_text(item) if isinstance(item, (list, dict)) else _json(item).strip('"')
            for item in value
        )
    return "[object Object]"
