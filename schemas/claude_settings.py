"""The Claude Code settings that wire the hooks: ``.claude/settings.json``, ``.claude/settings.local.json`` and a
plugin's ``hooks/hooks.json`` (only the parts the client's hooks, statusline and environment read).

The event names and hook types come from ``ctxres/hook_events.py`` (the client's, 2.1.328). The H rules check
these files by what the client does with each defect (docs/claude-settings.md); this schema is for editors.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field, create_model

from ctxres.hook_events import CLIENT_EVENTS, HOOK_TYPES
from ctxres.schemas.base import OpenModel, StrictModel


class Hook(OpenModel):
    """One hook of an entry: what the client runs."""

    type: str = Field(
        description="How the client runs it; ctxres's hooks are `command` hooks.",
        json_schema_extra={"enum": list(HOOK_TYPES)},
    )
    command: str | None = Field(default=None, description="The shell command of a `command` hook.")
    timeout: float | None = Field(default=None, gt=0, description="Seconds before the client stops the hook.")


class HookEntry(OpenModel):
    """An entry of one event: a matcher and the hooks it runs."""

    matcher: str | None = Field(
        default=None,
        description="Which occurrences of the event run the hooks (a tool name, a source); ignored on the events "
        "that take none, such as UserPromptSubmit.",
    )
    hooks: list[Hook] = Field(description="The hooks this entry runs.")


_EVENT_FIELDS: dict[str, Any] = {
    event: (list[HookEntry] | None, Field(default=None, description=f"The entries of {event}."))
    for event in CLIENT_EVENTS
}
HookEvents = create_model(
    "HookEvents",
    __base__=StrictModel,
    __doc__="The hooks by event: only the client's event names (an entry under another name is skipped).",
    **_EVENT_FIELDS,
)


class StatusLine(OpenModel):
    """The command whose first line the client shows above its footer."""

    type: str = Field(description="Always `command`.", json_schema_extra={"enum": ["command"]})
    command: str = Field(description="The shell command that prints the line.")
    padding: int | None = Field(default=None, description="Columns of padding around the line.")


class ClaudeSettings(OpenModel):
    """A Claude Code settings file (or a plugin's hooks/hooks.json): its hooks, statusline and environment."""

    hooks: HookEvents | None = Field(default=None, description="The hooks, by event name.")
    statusLine: StatusLine | None = Field(  # the client's spelling
        default=None, description="The statusline; without `command` the client does not load the file."
    )
    env: dict[str, str] | None = Field(default=None, description="Variables set for the session and its hooks.")


CLAUDE_SETTINGS_SCHEMAS = {"claude-settings": ClaudeSettings}
