"""The Claude Code hook events ctxres handles: the one table every list of them is made from.

The dispatcher (``ctxres-hook``), the settings entries ``ctxres install-hooks`` writes, the replay fixtures
and the tests read :data:`HOOK_EVENTS`. The plugin's ``hooks/hooks.json`` is generated from it
(``python dev/generate.py --write``), and ``schemas/hook_io.py`` names each event's models from it. Plain
stdlib, no imports: the hooks load it at every start.
"""

from __future__ import annotations


class HookEvent:
    """One event: its name, the ``ctxres.hooks`` module that answers it, the matcher and timeout (seconds)
    of our settings entry, the line ``ctxres-hook --help`` shows for it, the payload fields ``ctxres doctor``
    sends it (on which the hook writes nothing), what the plugin's description calls it (``role``), whether
    its empty answer is no output at all, whether the Nexus profile answers it with ``ctxres.hooks.nexus``, and
    whether its ``additionalContext`` reaches the model (``context``)."""

    __slots__ = (
        "context",
        "harmless",
        "matcher",
        "module",
        "name",
        "nexus",
        "role",
        "silent_when_empty",
        "summary",
        "timeout",
    )

    def __init__(
        self,
        name: str,
        module: str,
        matcher: str | None,
        timeout: int,
        summary: str,
        harmless: dict[str, object],
        *,
        role: str,
        silent_when_empty: bool = False,
        nexus: bool = False,
        context: bool = False,
    ) -> None:
        self.name = name
        self.module = module
        self.matcher = matcher
        self.timeout = timeout
        self.summary = summary
        self.harmless = harmless
        self.role = role
        self.silent_when_empty = silent_when_empty
        self.nexus = nexus
        self.context = context


HOOK_EVENTS: tuple[HookEvent, ...] = (
    # Writes the checkpoint before a compaction (auto or manual).
    HookEvent(
        "PreCompact",
        "precompact",
        None,
        10,
        "write a checkpoint of the workflow state before the context is compacted",
        {"trigger": "ctxres-doctor", "custom_instructions": ""},  # neither auto nor manual: no checkpoint
        silent_when_empty=True,
        nexus=True,
        role="checkpoint before compaction",
    ),
    # Re-orients after a compaction, or on a new/resumed session; `clear` starts fresh on purpose.
    HookEvent(
        "SessionStart",
        "sessionstart",
        "startup|resume|compact",
        10,
        "point a new or resumed session at the workflow state to reload",
        {"source": "clear"},
        nexus=True,
        role="re-orientation after it and on new sessions",
        context=True,
    ),
    # Context monitor on every prompt (UserPromptSubmit takes no matcher).
    HookEvent(
        "UserPromptSubmit",
        "userpromptsubmit",
        None,
        5,
        "measure how full the context is and warn as it nears a compaction",
        {"prompt": ""},  # and no transcript
        role="context monitor",
        context=True,
    ),
    # Staleness check after the model writes an ORCHESTRATION file.
    HookEvent(
        "PostToolUse",
        "posttooluse",
        "Write|Edit",
        5,
        "warn when an edit moves a workflow's state but not its resumption section",
        {"tool_name": "Read", "tool_input": {}, "tool_response": {}},  # a tool call that wrote no file
        role="staleness check after writes to ORCHESTRATION files",
        context=True,
    ),
)

EVENTS: tuple[str, ...] = tuple(event.name for event in HOOK_EVENTS)
"""The event names, in the table's order."""

CONTEXT_EVENTS: frozenset[str] = frozenset(event.name for event in HOOK_EVENTS if event.context)
"""The events whose answer's ``additionalContext`` reaches the model."""

NEXUS_EVENTS: tuple[str, ...] = tuple(event.name for event in HOOK_EVENTS if event.nexus)
"""The events the Nexus profile answers (``precompact_state.json`` and ``resume-context.md``)."""

STATUSLINE = "statusline"
"""Not an event: the argument of Claude Code's statusline command (``ctxres-hook statusline``)."""
STATUSLINE_SEGMENT = "--segment"
"""``ctxres-hook statusline --segment``: our part alone, a widget of another statusline (ccstatusline)."""

# The events the client knows (Claude Code 2.1.328, the order of its "Valid events" notice): a settings entry
# under any other name is skipped. docs/claude-settings.md says what the client does with each defect.
CLIENT_EVENTS: tuple[str, ...] = (
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "PostToolBatch",
    "Notification",
    "UserPromptSubmit",
    "UserPromptExpansion",
    "SessionStart",
    "SessionEnd",
    "Stop",
    "StopFailure",
    "SubagentStart",
    "SubagentStop",
    "PreCompact",
    "PostCompact",
    "PreModelSwitch",
    "PostModelSwitch",
    "PermissionRequest",
    "PermissionDenied",
    "Setup",
    "TeammateIdle",
    "TaskCreated",
    "TaskCompleted",
    "Elicitation",
    "ElicitationResult",
    "ConfigChange",
    "WorktreeCreate",
    "WorktreeRemove",
    "InstructionsLoaded",
    "CwdChanged",
    "FileChanged",
    "DirectoryAdded",
    "MessageDisplay",
)
"""Every hook event of the client (ours, :data:`EVENTS`, among them)."""

MATCHERLESS_EVENTS: frozenset[str] = frozenset(
    {
        "PostToolBatch",
        "UserPromptSubmit",
        "Stop",
        "TeammateIdle",
        "TaskCreated",
        "TaskCompleted",
        "WorktreeCreate",
        "WorktreeRemove",
        "CwdChanged",
    }
)
"""The client's events that take no matcher: a ``matcher`` on their entries is ignored and the hooks run on
every occurrence (the client's event catalog gives them no matcher values)."""

HOOK_TYPES: tuple[str, ...] = ("command", "prompt", "agent", "http", "mcp_tool")
"""The hook types the client runs; an entry of any other ``type`` is skipped."""
