"""PostToolUse (L3): is the resumption section still fresh after a write to a workflow file?

Runs after Write and Edit (the hook matcher is ``Write|Edit``: the tools the client has; a
``MultiEdit`` payload, from an older client or an older matcher, is still treated as a write). A
file is a workflow file when it matches the configured ``orchestration`` patterns
(``*ORCHESTRATION*.yaml`` by default), or when it is any other YAML file whose top level has a
``resumption:`` key (the rule ``ctxres check`` uses; see ``ctxres/artifacts.py``); examples and
templates (``ctxres.state.live.is_example_path``) are never a live workflow and are not checked.
Other tools and files, and files outside the project, get ``{}`` before anything but ``os`` is used.

docs/formats.md, "Staleness": STALE is "``updated_at`` is from a previous phase *or* more than 30
minutes old". For a running workflow (ACTIVE or PAUSED, or no status recorded) two checks run:

1. **The write moved the state, not the section.** Only what the write itself changed is judged, never a
   state git moved (a stash, a checkout, a merge): the written file's state is compared with the file
   just before the tool ran (the client's ``originalFile``, or the Edit undone from its input:
   ``ctxres.hooks.beforewrite``); while that is the state the hooks last saw
   (``<state_dir>/orchestration-snapshot.json``), with the baseline they kept. When the file before
   cannot be known, with that baseline only while git has not moved the work tree since (else no
   comparison), or, for a file the hooks have not seen yet, with the file at git ``HEAD`` (``git show``;
   no git, or a file git does not track: this check is skipped). The comparison goes through the
   workflow model (``ctxres.state.statediff.moved_state`` and ``resumption_moved``). When a
   state-bearing value moved (a gate PENDING -> COMPLETE, a phase started, a score recorded) and the
   resumption section did not (``recovery_state.updated_at`` did not advance; a v1.0 section did not
   change), the answer is a warning at once, whatever the age, naming the moves and what to update; the
   snapshot keeps the state the moves started from, so later writes keep warning until the section is
   brought up to date. Otherwise the written state becomes the baseline.
2. **The age.** For a v2.0 section, ``recovery_state.updated_at`` is classified with the
   configured window (30 minutes by default), the current phase's ``started_at`` (the phase the
   state says is current) and the session's start (the first timestamp of its transcript). FRESH
   answers ``{}``; STALE and CRITICAL answer a warning saying what is stale and what to update.

A finished workflow (COMPLETE, ...) is history: its writes are not checked here (``ctxres check``
still lints them).

A v1.0 section records no update time, so it cannot be classified: the hint to migrate it is given
once per session and file (remembered in the monitor cache), and later writes answer ``{}``.

This module only filters (standard library, no I/O); the checks are in ``ctxres.hooks.writecheck``
and ``ctxres.hooks.statemoves``, compiled only after a write to a YAML file.
"""

from __future__ import annotations

import os

# A hook loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

    from ctxres.hooks.context import HookContext

WRITE_TOOLS = frozenset({"Write", "Edit", "MultiEdit"})  # MultiEdit: older clients only, kept harmless
YAML_SUFFIXES = (".yaml", ".yml")


def written_yaml(payload: dict[str, Any]) -> str | None:
    """The YAML file a Write/Edit/MultiEdit call wrote (``tool_input.file_path``), else None."""
    tool_name = payload.get("tool_name")
    if not isinstance(tool_name, str) or tool_name not in WRITE_TOOLS:  # a list would raise TypeError
        return None
    tool_input = payload.get("tool_input")
    path = tool_input.get("file_path") if isinstance(tool_input, dict) else None
    if not isinstance(path, str) or not path.lower().endswith(YAML_SUFFIXES):
        return None
    return path


def has_resumption_key(raw: bytes) -> bool:
    """Whether a YAML text has a top-level ``resumption:`` key (``resumption :`` too)."""
    start = 0
    while True:
        at = raw.find(b"resumption", start)
        if at < 0:
            return False
        start = at + 1
        if at > 0 and raw[at - 1 : at] != b"\n":
            continue
        if raw[at + len(b"resumption") :].lstrip(b" \t")[:1] == b":":
            return True


def handle(ctx: HookContext) -> dict[str, Any]:
    path = written_yaml(ctx.payload)
    if path is None or not os.path.isabs(path) or not ctx.inside(path):
        return {}
    from ctxres.hooks import writecheck  # only for a written YAML file: other calls never compile it

    return writecheck.check_write(ctx, path)
