"""``ctxres-hook <event>``: the entry point Claude Code runs.

Contract (every event): read one JSON object from stdin, never raise, always exit 0 and print
output that is valid for the event; any problem is one line on stderr (fail-open). Only the
standard library and ``ctxres`` core are imported here, so start-up stays close to a bare
interpreter.

Event behaviours are registered in :data:`HANDLERS`; an event without a handler answers ``{}``,
which Claude Code accepts for every event.
"""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Callable
from typing import Any

EVENTS = ("PreCompact", "SessionStart", "UserPromptSubmit", "PostToolUse")
MAX_STDIN_BYTES = 8 * 1024 * 1024

Handler = Callable[[dict[str, Any]], dict[str, Any]]
HANDLERS: dict[str, Handler] = {}


def _warn(message: str) -> None:
    with contextlib.suppress(Exception):  # stderr itself may be closed; nothing else to do
        sys.stderr.write(f"ctxres-hook: {message}\n")


def read_payload(raw: bytes) -> dict[str, Any]:
    """The stdin JSON object, or ``{}`` (with a warning) when it is missing or malformed."""
    if not raw.strip():
        _warn("empty stdin; answering with no output")
        return {}
    try:
        payload = json.loads(raw.decode("utf-8", "replace"))
    except ValueError as exc:
        _warn(f"stdin is not JSON ({exc}); answering with no output")
        return {}
    if not isinstance(payload, dict):
        _warn("stdin JSON is not an object; answering with no output")
        return {}
    return payload


def resolve_event(argv: list[str], payload: dict[str, Any]) -> str | None:
    """The event from the command line, else from the payload's ``hook_event_name``."""
    named = argv[0] if argv else payload.get("hook_event_name")
    if isinstance(named, str) and named in EVENTS:
        return named
    _warn(f"unknown or missing event {named!r}; expected one of {', '.join(EVENTS)}")
    return None


def run(argv: list[str], raw: bytes) -> str:
    """The text to print for one invocation (pure apart from the handlers' own I/O)."""
    payload = read_payload(raw)
    event = resolve_event(argv, payload)
    output: dict[str, Any] = {}
    handler = HANDLERS.get(event or "")
    if handler is not None:
        try:
            output = handler(payload)
        except Exception as exc:
            _warn(f"{event} failed: {type(exc).__name__}: {exc}")
            output = {}
    return json.dumps(output, ensure_ascii=False)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    try:
        raw = sys.stdin.buffer.read(MAX_STDIN_BYTES)
    except Exception as exc:
        _warn(f"cannot read stdin: {exc}")
        raw = b""
    try:
        text = run(args, raw)
    except Exception as exc:
        _warn(f"internal error: {type(exc).__name__}: {exc}")
        text = "{}"
    try:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()
    except Exception:
        pass
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
