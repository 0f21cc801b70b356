"""What a session in the real client must show, as small named assertions.

Each function raises ``AssertionError`` with a message that says what was expected and what was
found. They read three records of a session:

- the stand-in API's request log (:class:`e2e.stand_in_api.Request`): what the model received;
- the client's debug log (``--debug-file``): which hooks ran, their exit status, their stderr,
  and the client's complaints about settings or hook output;
- the project's files (the checkpoints the PreCompact hook writes).

Where the client puts hook context (2.1.328): SessionStart's in the first request (a
``system``-role message ``SessionStart hook additional context: ...``), UserPromptSubmit's in the
prompt's turn (``UserPromptSubmit hook additional context: ...``), PostToolUse's in the tool-result
turn (``PostToolUse:Edit hook additional context: ...``). A request's *new turn* is everything
after its last assistant message: the prompt turn, or the tool-result turn.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ctxres.state.checkpoint_names import CHECKPOINTS_FOLDER, FILE_GLOB, file_id, file_name
from e2e.stand_in_api import Request, texts_in

RESUMPTION_MARKER = "SessionStart hook additional context: You are resuming a workflow"
MONITOR_MARKER = "UserPromptSubmit hook additional context: <context-monitor>"
POSTTOOLUSE_MARKER = "PostToolUse:{tool} hook additional context: Resumption staleness after this write"
ALERT_TAG = "<compaction-alert>"
CHECKPOINTS = Path(".jerry") / CHECKPOINTS_FOLDER  # the default state folder of the workspace

# "Hooks: SessionStart:startup [cmd] finished with status 0 (129ms)", "PreCompact:manual [cmd] completed with status 0",
# "Hooks: UserPromptSubmit [cmd] (plugin ctxres@inline) finished with status 0 (365ms)"
_HOOK_RUN = re.compile(
    r"(?:Hooks: )?(?P<event>[A-Z][A-Za-z]+)(?::(?P<matched>[A-Za-z|]+))? \[(?P<command>.*?)\] "
    r"(?:\(plugin (?P<plugin>[^)]*)\) )?(?:finished|completed) with status (?P<status>-?\d+)"
)
# The client logs a hook's stderr (exit 0) as: "Hook UserPromptSubmit (...) success:\nstdout:\n{}\nstderr:\n<text>"
_HOOK_STDERR = re.compile(r'"Hook (?P<label>\S+) \([A-Za-z]+\) success:.*?\\nstderr:\\n(?P<stderr>.*?)"?$')
CLIENT_COMPLAINTS = (
    "Invalid setting skipped",
    "settings entries were skipped",
    "hook error",
    "JSON validation failed",
    "Hook returned incorrect event name",
)


# --------------------------------------------------------------------------- reading the records


def new_turn(request: Request) -> list[dict[str, Any]]:
    """The messages after the request's last assistant message (all of them when there is none)."""
    messages = [m for m in request.body.get("messages") or [] if isinstance(m, dict)]
    last = max((i for i, m in enumerate(messages) if m.get("role") == "assistant"), default=-1)
    return messages[last + 1 :]


def turn_text(request: Request) -> str:
    """The texts of the request's new turn, joined."""
    return "\n".join(text for message in new_turn(request) for text in texts_in(message.get("content")))


def request_text(request: Request) -> str:
    """Every text the model receives in the request (system prompt and messages), joined."""
    return "\n".join([*texts_in(request.body.get("system")), request.text()])


def conversation(requests: Sequence[Request]) -> list[Request]:
    return [r for r in requests if r.kind == "conversation"]


def first_requests_after_compactions(requests: Sequence[Request]) -> list[Request]:
    """For each compaction (a summary request), the first conversation request after it."""
    found: list[Request] = []
    for summary in (r for r in requests if r.kind == "summary"):
        after = [r for r in requests if r.index > summary.index and r.kind == "conversation"]
        if after and (not found or found[-1].index != after[0].index):
            found.append(after[0])
    return found


@dataclass(frozen=True)
class HookRun:
    """One hook run as the client's debug log reports it."""

    event: str
    matched: str | None
    command: str
    status: int
    plugin: str | None = None


def hook_runs(debug_log: str) -> list[HookRun]:
    """Every hook run the debug log reports, in order."""
    return [
        HookRun(m["event"], m["matched"], m["command"], int(m["status"]), m["plugin"])
        for m in (_HOOK_RUN.search(line) for line in debug_log.splitlines())
        if m is not None
    ]


def hook_stderr(debug_log: str) -> list[str]:
    """What hooks that exited 0 wrote on stderr, one entry per hook run that wrote something."""
    found = []
    for line in debug_log.splitlines():
        match = _HOOK_STDERR.search(line)
        if match is not None and match["stderr"].strip():
            found.append(f"{match['label']}: {match['stderr'][:300]}")
    return found


def _excerpt(text: str, limit: int = 400) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


# --------------------------------------------------------------------------- what the model received


def assert_resumption_prompt_in_first_request(requests: Sequence[Request], workflow_id: str) -> None:
    """The first conversation request carries SessionStart's resumption prompt for ``workflow_id``."""
    talks = conversation(requests)
    assert talks, "the client sent no conversation request"
    text = talks[0].text()
    assert RESUMPTION_MARKER in text, (
        f"the first request does not carry the resumption prompt ({RESUMPTION_MARKER!r}); "
        f"its new turn: {_excerpt(turn_text(talks[0]))}"
    )
    after = text.split(RESUMPTION_MARKER, 1)[1]
    assert f"WORKFLOW: {workflow_id}" in after[:2000], f"the resumption prompt does not name {workflow_id}"


def monitor_text(request: Request) -> str | None:
    """The ``<context-monitor>`` text in the request's new turn, or None."""
    text = turn_text(request)
    if MONITOR_MARKER not in text:
        return None
    body = text.split(MONITOR_MARKER, 1)[1]
    return "<context-monitor>" + body.split("</context-monitor>", 1)[0] + "</context-monitor>"


def assert_monitor_at(request: Request, tier: str) -> None:
    """The prompt turn of ``request`` carries a ``<context-monitor>`` at ``tier`` (WARNING, CRITICAL...)."""
    monitor = monitor_text(request)
    assert monitor is not None, (
        f"the prompt turn carries no <context-monitor> (expected {tier}); it reads: {_excerpt(turn_text(request))}"
    )
    status = re.search(r"CONTEXT STATUS: (\w+)", monitor)
    assert status is not None and status[1] == tier, f"expected CONTEXT STATUS: {tier}, got: {_excerpt(monitor)}"
    assert monitor.count("<context-monitor>") == 1, "the monitor text is in the prompt turn more than once"
    assert turn_text(request).count(MONITOR_MARKER) == 1, "the prompt turn carries the monitor more than once"


def assert_no_monitor(request: Request) -> None:
    """The prompt turn of ``request`` carries no ``<context-monitor>`` (LOW fill)."""
    monitor = monitor_text(request)
    assert monitor is None, f"expected no <context-monitor>, got: {_excerpt(monitor or '')}"


def monitor_percent(request: Request) -> float | None:
    """The percentage the monitor shows (``CONTEXT STATUS: WARNING (72% ...)``), or None."""
    monitor = monitor_text(request)
    found = re.search(r"CONTEXT STATUS: \w+ \((\d+(?:\.\d+)?)%", monitor or "")
    return float(found[1]) if found else None


def assert_posttooluse_warning(request: Request, tool: str = "Edit", level: str | None = None) -> None:
    """The tool-result turn of ``request`` carries PostToolUse's staleness warning (at ``level``)."""
    marker = POSTTOOLUSE_MARKER.format(tool=tool)
    messages = new_turn(request)
    assert any(_has_tool_result(m) for m in messages), "the request's new turn is not a tool-result turn"
    text = turn_text(request)
    assert marker in text, f"the tool-result turn carries no PostToolUse warning ({marker!r}); it reads: " + _excerpt(
        text
    )
    assert text.count(marker) == 1, "the tool-result turn carries the PostToolUse warning more than once"
    if level is not None:
        line = text.split(marker, 1)[1].split("\n", 1)[0]
        assert f": {level}." in line, f"expected the staleness level {level}, got: {line}"


def _has_tool_result(message: dict[str, Any]) -> bool:
    content = message.get("content")
    return isinstance(content, list) and any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content)


def assert_alert_once_after_each_compaction(requests: Sequence[Request], compactions: int) -> None:
    """``compactions`` compactions happened, and the first request after each carries exactly one
    ``<compaction-alert>`` (whatever SessionStart sources ran: ``compact``, then ``resume``)."""
    firsts = first_requests_after_compactions(requests)
    assert len(firsts) == compactions, f"expected {compactions} compaction(s), the request log shows {len(firsts)}"
    for number, request in enumerate(firsts, 1):
        count = request_text(request).count(ALERT_TAG)
        assert count == 1, (
            f"compaction {number}: the first request after it (request {request.index}) carries {count} "
            f"{ALERT_TAG} (expected exactly 1)"
        )


def assert_no_hook_output_echoed(requests: Sequence[Request]) -> None:
    """No hook's raw output is shown to the model as command output (PreCompact printing ``{}``
    becomes ``... completed successfully: {}``, kept in every later request)."""
    for request in conversation(requests):
        for line in request.text().splitlines():
            if "completed successfully:" in line and "[" in line:
                raise AssertionError(f"request {request.index} carries hook output as command output: {line[:300]}")


# --------------------------------------------------------------------------- checkpoints


def checkpoint_files(project: Path) -> list[Path]:
    return sorted((project / CHECKPOINTS).glob(FILE_GLOB))


def assert_checkpoint(project: Path, number: int, trigger: str) -> None:
    """Checkpoint ``number`` exists and records a compaction with ``trigger`` (``manual`` or ``auto``)."""
    files = checkpoint_files(project)
    names = [path.name for path in files]
    wanted = project / CHECKPOINTS / file_name(number)
    assert wanted.exists(), f"no checkpoint {wanted.name} in {CHECKPOINTS} (found: {names or 'none'})"
    data = json.loads(wanted.read_text("utf-8"))
    found = (data.get("trigger") or {}).get("type")
    assert found == trigger, f"{wanted.name} records the trigger {found!r}, expected {trigger!r}"
    assert data.get("event_id") == file_id(number), f"{wanted.name} has the event id {data.get('event_id')!r}"


# --------------------------------------------------------------------------- the client's debug log


def assert_hooks_ran(debug_log: str, expected: Iterable[str]) -> None:
    """Each of ``expected`` (``SessionStart:startup``, ``UserPromptSubmit``, ``PreCompact:manual``...) ran."""
    labels = [run.event + (f":{run.matched}" if run.matched else "") for run in hook_runs(debug_log)]
    missing = [label for label in expected if label not in labels]
    assert not missing, f"hooks that did not run: {missing} (ran: {labels or 'none'})"


def assert_hooks_exit_zero(debug_log: str) -> None:
    """Every hook run exited 0."""
    runs = hook_runs(debug_log)
    assert runs, "the debug log shows no hook run"
    failed = [f"{r.event} [{r.command}] exit {r.status}" for r in runs if r.status != 0]
    assert not failed, f"hooks that did not exit 0: {failed}"


def assert_hooks_quiet_on_stderr(debug_log: str) -> None:
    """No hook wrote anything on stderr."""
    found = hook_stderr(debug_log)
    assert not found, f"hooks wrote on stderr: {found}"


def assert_no_client_complaint(debug_log: str, stderr: str = "") -> None:
    """The client logged no hook error, no skipped setting, no rejected hook output."""
    lines = [*debug_log.splitlines(), *stderr.splitlines()]
    found = [line[:300] for line in lines if any(word in line for word in CLIENT_COMPLAINTS)]
    found += [line[:300] for line in debug_log.splitlines() if "[ERROR]" in line and "Hook" in line]
    assert not found, "the client complained:\n" + "\n".join(dict.fromkeys(found))


def assert_clean_hooks(debug_log: str, stderr: str = "") -> None:
    """A normal session: every hook exits 0, writes nothing on stderr, and the client complains of nothing."""
    assert_hooks_exit_zero(debug_log)
    assert_hooks_quiet_on_stderr(debug_log)
    assert_no_client_complaint(debug_log, stderr)
