"""What Claude Code writes to a hook's stdin, and what ctxres's hooks write back on stdout.

ctxres runs the hook events of ``HOOK_EVENTS`` (``ctxres/hook_events.py``); each has an input model
``<Event>Input`` and an output model ``<Event>Output`` here, and the registries at the end are made from
the table and those names (a missing model fails at import). Claude Code starts the hook command once
per event, writes one JSON object (the *input*) to its stdin, and reads the JSON object the hook prints
on stdout (the *output*).

Inputs are open models: Claude Code adds fields from version to version, and an unknown field must
never make a payload invalid. Outputs are strict: they describe exactly what ctxres prints, and
Claude Code itself rejects some keys (for example ``hookSpecificOutput`` on PreCompact).

Facts and sources: Claude Code's hooks documentation (what each event is given, and what it may answer).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic.json_schema import SkipJsonSchema

from ctxres.hook_events import HOOK_EVENTS
from ctxres.schemas.base import OpenModel, StrictModel

# Claude Code caps every hook output string (additionalContext, systemMessage, plain stdout) at this
# many characters; a longer value is saved to a file and replaced with a preview and the file path.
MAX_HOOK_OUTPUT_CHARS = 10_000


# --------------------------------------------------------------------------------------------------
# Inputs (stdin)
# --------------------------------------------------------------------------------------------------


class Effort(OpenModel):
    """The reasoning effort of the model, sent only to tool-context events when the model supports it."""

    level: str = Field(
        description="Effort level of the model: `low`, `medium`, `high`, `xhigh` or `max` in current "
        "Claude Code versions.",
        examples=["high"],
    )


class HookInput(OpenModel):
    """Fields Claude Code sends on stdin to every hook event; unknown fields are allowed."""

    session_id: str = Field(description="Id of the Claude Code session the event belongs to.")
    transcript_path: str = Field(
        description="Path of the session's transcript (a JSONL file). It is written asynchronously, so "
        "it may not yet hold the latest messages of the current turn when the hook runs."
    )
    cwd: str = Field(
        description="Working directory of Claude Code when the hook was invoked (it follows `cd` and "
        "worktrees, unlike `$CLAUDE_PROJECT_DIR`)."
    )
    hook_event_name: str = Field(description="Name of the event that fired the hook, for example `PreCompact`.")
    permission_mode: str | None = Field(
        None,
        description="Permission mode of the session: `default`, `plan`, `acceptEdits`, `auto`, `dontAsk` or "
        "`bypassPermissions`. Not every event receives it (SessionStart and PreCompact usually do not).",
    )
    prompt_id: str | None = Field(
        None,
        description="UUID of the user prompt being processed; absent until the first user input "
        "(Claude Code 2.1.196 and later).",
    )
    agent_id: str | None = Field(
        None, description="Id of the subagent that fired the event; present only inside subagents."
    )
    agent_type: str | None = Field(
        None,
        description="Type (name) of the agent; present only inside subagents and in sessions started with `--agent`.",
    )
    effort: Effort | None = Field(
        None,
        description="Reasoning effort of the model; sent only to tool-context events (PreToolUse, "
        "PostToolUse, Stop, SubagentStop) when the model supports effort.",
    )


class PreCompactInput(HookInput):
    """stdin of the PreCompact hook, which runs just before Claude Code compacts the conversation."""

    hook_event_name: Literal["PreCompact"] = Field(description="Always `PreCompact` for this event.")
    trigger: Literal["manual", "auto"] = Field(
        description="`manual` when the user typed `/compact`, `auto` when Claude Code compacts on its own "
        "because the context window is (nearly) full."
    )
    custom_instructions: str | None = Field(
        None,
        description="For a manual compaction, the text the user typed after `/compact`; empty for an "
        "automatic one. Observed as null in print (`-p`) mode.",
    )


class SessionStartInput(HookInput):
    """stdin of the SessionStart hook: it runs when a session starts or resumes, also after a compaction."""

    hook_event_name: Literal["SessionStart"] = Field(description="Always `SessionStart` for this event.")
    source: Literal["startup", "resume", "clear", "compact", "fork"] = Field(
        description="Why the session started: `startup` (a new session), `resume` (`--resume`/`--continue`), "
        "`clear` (after `/clear`), `compact` (right after a compaction) or `fork` (a forked session; "
        "Claude Code 2.1.214 and later, earlier versions report `resume`)."
    )
    model: str | None = Field(
        None, description="Id of the model of the session, when Claude Code provides it (not guaranteed)."
    )
    session_title: str | None = Field(None, description="Title of the session, when it has one.")
    # Seen on `resume` in Claude Code 2.1.328 (run against a stand-in API); ctxres uses `context_tokens`.
    context_tokens: int | None = Field(
        None,
        ge=0,
        description="On `resume`: the tokens of the conversation as the client counts them (the last reply's "
        "input, cache-creation, cache-read and output tokens), the figure behind its `% context used`.",
    )
    seconds_since_last_response: float | None = Field(
        None, ge=0, description="On `resume`: seconds since the session's last model reply."
    )
    prompt_cache_likely_expired: bool | None = Field(
        None, description="On `resume`: whether the client expects the prompt cache to have expired."
    )
    estimated_cache_write_usd: float | None = Field(
        None, ge=0, description="On `resume`: the client's estimate of the cost of re-writing the prompt cache."
    )


class UserPromptSubmitInput(HookInput):
    """stdin of the UserPromptSubmit hook: it runs when the user submits a prompt, before Claude sees it."""

    hook_event_name: Literal["UserPromptSubmit"] = Field(description="Always `UserPromptSubmit` for this event.")
    prompt: str = Field(description="The text the user submitted.")


class PostToolUseInput(HookInput):
    """stdin of the PostToolUse hook, which runs after a tool call has completed successfully."""

    hook_event_name: Literal["PostToolUse"] = Field(description="Always `PostToolUse` for this event.")
    tool_name: str = Field(description="Name of the tool that ran, for example `Write`, `Edit` or `Bash`.")
    tool_input: dict[str, Any] = Field(
        description="Arguments the tool was called with; their shape depends on the tool (for `Write`: "
        "`file_path`, always absolute, and `content`)."
    )
    tool_response: Any = Field(
        description="What the tool returned: usually an object whose shape depends on the tool (for `Write`: "
        "`filePath` and `success`), but any JSON value is possible."
    )
    tool_use_id: str = Field(description="Id of the tool call, for example `toolu_01ABC123`.")
    duration_ms: int | None = Field(None, ge=0, description="How long the tool ran, in milliseconds.")


# --------------------------------------------------------------------------------------------------
# Outputs (stdout)
# --------------------------------------------------------------------------------------------------

# An optional output key is left out, never written as null: null is not a documented value of any
# output key, and Claude Code reports output that fails its validation as a hook error. In Python an
# omitted key reads as None.
Omitted = SkipJsonSchema[None]


def _drop_null_defaults(schema: dict[str, Any]) -> None:
    """Remove the `"default": null` of omittable properties from the JSON Schema (null is not valid there)."""
    for prop in schema.get("properties", {}).values():
        if isinstance(prop, dict) and "default" in prop and prop["default"] is None:
            del prop["default"]


class _OutputModel(StrictModel):
    """A hook output object: known keys only, and an optional key is omitted rather than null."""

    model_config = ConfigDict(json_schema_extra=_drop_null_defaults)

    @model_validator(mode="before")
    @classmethod
    def _reject_null(cls, data: Any) -> Any:
        if isinstance(data, dict):
            nulls = [str(key) for key, value in data.items() if value is None]
            if nulls:
                raise ValueError(f"omit {', '.join(nulls)} instead of writing null")
        return data


class PreCompactOutput(_OutputModel):
    """stdout of ctxres's PreCompact hook. `{}` lets compaction proceed; it may be blocked with a reason.

    PreCompact cannot add context for Claude: Claude Code rejects `hookSpecificOutput` for this event and
    discards `continue` and `systemMessage`, so ctxres prints neither.
    """

    decision: Literal["block"] | Omitted = Field(
        None,
        description="`block` stops the compaction (Claude Code 2.1.105 and later). Omit it to let the "
        "compaction proceed. Blocking a compaction that recovers from a context-limit error makes the "
        "current request fail.",
    )
    reason: str | Omitted = Field(None, description="Why the compaction was blocked; shown to the user.")


class HookOutput(_OutputModel):
    """Fields every hook event accepts on stdout; all are optional."""

    continue_: bool | Omitted = Field(
        None,
        alias="continue",
        description="`false` stops Claude entirely after the hook; omitted or `true` lets it go on.",
    )
    stop_reason: str | Omitted = Field(
        None,
        alias="stopReason",
        title="Stop Reason",
        description="Message shown to the user (not to Claude) when `continue` is `false`.",
    )
    suppress_output: bool | Omitted = Field(
        None,
        alias="suppressOutput",
        title="Suppress Output",
        description="Older Claude Code versions hid the hook's stdout from the transcript view when `true`; "
        "current documentation says it has no effect.",
    )
    system_message: str | Omitted = Field(
        None,
        alias="systemMessage",
        title="System Message",
        max_length=MAX_HOOK_OUTPUT_CHARS,
        description="Warning shown to the user (not to Claude); at most 10,000 characters.",
    )


class SessionStartSpecificOutput(StrictModel):
    """The SessionStart part of the output: text added to Claude's context at the start of a conversation."""

    hook_event_name: Literal["SessionStart"] = Field(
        alias="hookEventName",
        title="Hook Event Name",
        description="Must be `SessionStart`: Claude Code rejects the output when this names another event.",
    )
    additional_context: str = Field(
        alias="additionalContext",
        title="Additional Context",
        max_length=MAX_HOOK_OUTPUT_CHARS,
        description="Text added to Claude's context before the first prompt, as a system reminder. Claude "
        "Code caps it at 10,000 characters (a longer text is replaced by a file path and a preview).",
    )


class SessionStartOutput(HookOutput):
    """stdout of ctxres's SessionStart hook: optionally, context for Claude (resumption prompt or alert)."""

    hook_specific_output: SessionStartSpecificOutput | Omitted = Field(
        None,
        alias="hookSpecificOutput",
        title="Hook Specific Output",
        description="The text to add to Claude's context; omitted when the hook has nothing to say.",
    )


class UserPromptSubmitSpecificOutput(StrictModel):
    """The UserPromptSubmit part of the output: text added to Claude's context next to the prompt."""

    hook_event_name: Literal["UserPromptSubmit"] = Field(
        alias="hookEventName",
        title="Hook Event Name",
        description="Must be `UserPromptSubmit`: Claude Code rejects the output when this names another event.",
    )
    additional_context: str = Field(
        alias="additionalContext",
        title="Additional Context",
        max_length=MAX_HOOK_OUTPUT_CHARS,
        description="Text added to Claude's context alongside the submitted prompt, as a system reminder. "
        "Claude Code caps it at 10,000 characters (a longer text is replaced by a file path and a preview).",
    )


class UserPromptSubmitOutput(HookOutput):
    """stdout of ctxres's UserPromptSubmit hook: optionally, the context-monitor text for Claude."""

    decision: Literal["block"] | Omitted = Field(
        None,
        description="`block` stops the prompt from being processed and erases it; omit it to let the prompt through.",
    )
    reason: str | Omitted = Field(None, description="Why the prompt was blocked; shown to the user, not to Claude.")
    hook_specific_output: UserPromptSubmitSpecificOutput | Omitted = Field(
        None,
        alias="hookSpecificOutput",
        title="Hook Specific Output",
        description="The text to add to Claude's context; omitted when the hook has nothing to say.",
    )


class PostToolUseSpecificOutput(StrictModel):
    """The PostToolUse part of the output: text added to Claude's context next to the tool result."""

    hook_event_name: Literal["PostToolUse"] = Field(
        alias="hookEventName",
        title="Hook Event Name",
        description="Must be `PostToolUse`: Claude Code rejects the output when this names another event.",
    )
    additional_context: str = Field(
        alias="additionalContext",
        title="Additional Context",
        max_length=MAX_HOOK_OUTPUT_CHARS,
        description="Text added to Claude's context next to the tool result, as a system reminder. Claude "
        "Code caps it at 10,000 characters (a longer text is replaced by a file path and a preview).",
    )


class PostToolUseOutput(HookOutput):
    """stdout of ctxres's PostToolUse hook: optionally, a staleness warning for Claude."""

    decision: Literal["block"] | Omitted = Field(
        None,
        description="`block` puts `reason` next to the tool result for Claude (the tool has already run and "
        "Claude still sees its output); omit it otherwise.",
    )
    reason: str | Omitted = Field(
        None, description="Feedback for Claude, shown next to the tool result when `decision` is `block`."
    )
    hook_specific_output: PostToolUseSpecificOutput | Omitted = Field(
        None,
        alias="hookSpecificOutput",
        title="Hook Specific Output",
        description="The text to add to Claude's context; omitted when the hook has nothing to say.",
    )


# --------------------------------------------------------------------------------------------------
# Registries
# --------------------------------------------------------------------------------------------------


def _models(side: str) -> dict[str, Any]:
    """Each event's model of one side (``Input`` or ``Output``), named ``<Event><side>`` in this module."""
    found = globals()
    return {event.name: found[f"{event.name}{side}"] for event in HOOK_EVENTS}


HOOK_INPUT_MODELS: dict[str, type[HookInput]] = _models("Input")
"""Input model of each event of ``HOOK_EVENTS``, keyed by the event name (the value of `hook_event_name`)."""

HOOK_OUTPUT_MODELS: dict[str, type[BaseModel]] = _models("Output")
"""Output model of each event of ``HOOK_EVENTS``, keyed by the event name."""

HOOK_SCHEMAS: dict[str, type[BaseModel]] = {
    f"hook-{name.lower()}-{side.lower()}": models[name]
    for name in HOOK_INPUT_MODELS
    for side, models in (("Input", HOOK_INPUT_MODELS), ("Output", HOOK_OUTPUT_MODELS))
}
"""Schema file stem (`<stem>.schema.json`) -> model: `hook-<event>-input` and `hook-<event>-output`."""
