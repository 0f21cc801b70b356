"""``ctxres-hook <event>``: the entry point Claude Code runs.

Contract (every event): read one JSON object from stdin, never raise, always exit 0 and print
output that is valid for the event; any problem is one line on stderr (fail-open). Only the
standard library and ``ctxres`` core are imported here, so start-up stays close to a bare
interpreter.

Each event is handled by a module ``ctxres.hooks.<name>`` with ``handle(ctx: HookContext) -> dict``
(imported only for its own event). ``{}`` is the answer when there is nothing to say: Claude
Code accepts it for every event. PreCompact is the exception: it prints nothing at all, because
the client shows a PreCompact hook's stdout to the user ("completed successfully: {}"), keeps
that line in the conversation for every later request, and hands it to the summarizer as
instructions.
"""

from __future__ import annotations

import json
import os
import sys

from ctxres import defaults
from ctxres.hook_events import CONTEXT_EVENTS, HOOK_EVENTS, NEXUS_EVENTS
from ctxres.hook_events import EVENTS as EVENTS
from ctxres.hook_events import STATUSLINE as STATUSLINE
from ctxres.hooks.context import HookError, make_context, warn

# A hook loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

SILENT_WHEN_EMPTY = frozenset(event.name for event in HOOK_EVENTS if event.silent_when_empty)
"""Events whose empty answer is no output at all (see the module docstring)."""
MAX_STDIN_BYTES = 8 * 1024 * 1024

# event -> the module of ctxres.hooks that handles it
MODULES = {event.name: event.module for event in HOOK_EVENTS}


USAGE = """\
usage: ctxres-hook EVENT < payload.json

The command Claude Code runs for its hook events (registered by `ctxres install-hooks` or the
ctxres plugin). It reads the event's JSON payload on stdin, prints the event's JSON answer on
stdout, always exits 0 and reports any problem as one line on stderr.

events:
{events}
  statusline        the line Claude Code shows above its footer: the context figure, the live
                    workflow's phase and gate, the resumption section's freshness (plain text,
                    not JSON; `--beside CMD` also runs a statusline of yours and shows it first)

Without EVENT the payload's hook_event_name is used. `ctxres --help` lists the linter commands.
"""
USAGE = USAGE.replace("{events}", "\n".join(f"  {event.name:<18}{event.summary}" for event in HOOK_EVENTS))
HELP_FLAGS = ("-h", "--help")


def read_payload(raw: bytes) -> dict[str, Any]:
    """The stdin JSON object, or ``{}`` (with a warning) when it is missing or malformed."""
    if len(raw) > MAX_STDIN_BYTES:
        warn(f"stdin is larger than {MAX_STDIN_BYTES:,} bytes; not read, answering with no output")
        return {}
    if not raw.strip():
        warn("empty stdin; answering with no output")
        return {}
    text = raw.decode("utf-8", "replace")
    try:
        payload = json.loads(text)
    except (ValueError, RecursionError) as exc:  # RecursionError: nesting deeper than the parser's stack
        warn(f"stdin is not JSON ({type(exc).__name__}: {exc}); answering with no output")
        return {}
    if not isinstance(payload, dict):
        warn("stdin JSON is not an object; answering with no output")
        return {}
    if "\\ud" in text or "\\uD" in text:
        # A lone surrogate escape ("\ud800") decodes to a str that cannot be written as UTF-8: replace it.
        cleaned: dict[str, Any] = json.loads(json.dumps(payload, ensure_ascii=False).encode("utf-8", "replace"))
        return cleaned
    return payload


def resolve_event(argv: list[str], payload: dict[str, Any]) -> str | None:
    """The event from the command line, else from the payload's ``hook_event_name``."""
    named = argv[0] if argv else payload.get("hook_event_name")
    if isinstance(named, str) and named in EVENTS:
        return named
    warn(f"unknown or missing event {named!r}; expected one of {', '.join(EVENTS)}")
    return None


def run(argv: list[str], raw: bytes) -> str:
    """The text to print for one invocation (pure apart from the handlers' own I/O)."""
    payload = read_payload(raw)
    event = resolve_event(argv, payload)
    output: dict[str, Any] = {}
    if event is not None:
        try:
            output = dispatch(event, payload)
        except HookError as exc:
            warn(str(exc), event)
            output = {}
        except ModuleNotFoundError as exc:  # the plugin's `python3` may lack PyYAML
            warn(missing_module(exc), event)
            output = {}
        except Exception as exc:  # fail-open is the contract
            warn(f"{event} failed: {type(exc).__name__}: {exc}")
            output = {}
    if not output and event in SILENT_WHEN_EMPTY:
        return ""
    return json.dumps(output, ensure_ascii=False)


def missing_module(exc: ModuleNotFoundError) -> str:
    """What to say when the interpreter running the hook lacks a module: for PyYAML (a Claude Code plugin runs
    the hooks with the ``python3`` on the client's PATH, not an environment where ctxres was installed), which
    interpreter and what to install."""
    if exc.name != "yaml":
        return f"failed: ModuleNotFoundError: {exc}"
    return (
        f"PyYAML is not installed for {sys.executable}, the python3 that runs the ctxres plugin's hooks, so they "
        f"did nothing; install it for that interpreter (`{sys.executable} -m pip install pyyaml`, or the system's "
        "python3-yaml package)"
    )


def dispatch(event: str, payload: dict[str, Any]) -> dict[str, Any]:
    """Run the event's module; its answer must be a JSON object."""
    ctx = make_context(event, payload)
    name = MODULES[event]
    if ctx.settings.profile == "nexus" and event in NEXUS_EVENTS:
        name = "nexus"  # the Nexus system: precompact_state.json and resume-context.md
    # __import__ and sys.modules, not importlib.import_module: importing importlib (and the warnings
    # module it loads) costs every hook about 0.2 ms.
    __import__(f"ctxres.hooks.{name}")
    module = sys.modules[f"ctxres.hooks.{name}"]
    if os.environ.get(defaults.PROBE_ENV) == "1":
        return {}  # `ctxres doctor` runs the command: the handler is loaded, not run (nothing read or written)
    pinned = version_note(ctx) if ctx.settings.required_version else None
    answer = module.handle(ctx)
    if not isinstance(answer, dict):
        raise HookError(f"the handler answered {type(answer).__name__}, not an object")
    return answer if pinned is None else with_note(event, answer, pinned)


def version_note(ctx: Any) -> str | None:
    """The repository's ``required-version`` that this ctxres does not satisfy, said once a session: on stderr,
    and returned for the model's context; None when this session was told already (recorded with what
    SessionStart delivered: :mod:`ctxres.hooks.deliveries`). The hook goes on working (fail-open)."""
    from ctxres.hooks import deliveries

    record = deliveries.load(ctx)
    if record.get("version_said") == ctx.settings.required_version:
        return None
    if deliveries.record_path(ctx) is not None:
        deliveries.save(ctx, {**record, "version_said": ctx.settings.required_version})
    warn(ctx.settings.required_version, ctx.event)
    return f"ctxres: {ctx.settings.required_version}; the hooks still run."


def with_note(event: str, answer: dict[str, Any], note: str) -> dict[str, Any]:
    """The answer with ``note`` added to the context it injects, for the events that inject; else as it was
    (PreCompact's output is not shown to the model: stderr said it)."""
    if event not in CONTEXT_EVENTS:
        return answer
    from ctxres.hooks.context import additional_context

    said = answer.get("hookSpecificOutput", {}).get("additionalContext") if isinstance(answer, dict) else None
    merged = additional_context(event, f"{said}\n\n{note}" if said else note)
    return {**answer, "hookSpecificOutput": {**answer.get("hookSpecificOutput", {}), **merged["hookSpecificOutput"]}}


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] in HELP_FLAGS:  # before stdin is read: `ctxres-hook --help` in a terminal must not wait
        sys.stdout.write(USAGE)
        return 0
    if args[:1] == [STATUSLINE]:  # not a hook: one line of text, never a word on stderr
        from ctxres.hooks.statusline import run as statusline

        return statusline(args[1:])
    try:
        raw = sys.stdin.buffer.read(MAX_STDIN_BYTES + 1)  # one byte more tells an oversized payload
    except Exception as exc:
        warn(f"cannot read stdin: {exc}")
        raw = b""
    try:
        text = run(args, raw)
    except Exception as exc:
        warn(f"internal error: {type(exc).__name__}: {exc}")
        text = "" if args[:1] and args[0] in SILENT_WHEN_EMPTY else "{}"
    try:
        if text:
            sys.stdout.write(text + "\n")
            sys.stdout.flush()
    except Exception:
        pass
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
