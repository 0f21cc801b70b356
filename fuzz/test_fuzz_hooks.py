"""Fuzz target 1: the hook stdin payload of every event.

Each case feeds ``ctxres.hooks.main.run([EVENT], raw)`` (what ``ctxres-hook EVENT`` prints) with a
payload of the event's documented shape whose fields are kept, deleted, given another type, made
huge or hostile, with unknown keys, or with stdin that is not a JSON object at all (random bytes,
invalid UTF-8, truncated JSON, arrays). The project is a realistic one (the PROJ-001 QG-2 workflow,
an unacknowledged checkpoint, transcripts outside the project), sometimes with its workflow file
or checkpoint mutated; it is restored after every case, so cases do not depend on each other.

Property: ``run`` returns, its text is a JSON object valid against
``schemas/hook-<event>-output.schema.json``; ``hookSpecificOutput.hookEventName`` is the event and
``additionalContext`` at most 10,000 characters; PreCompact answers ``{}``; no handler died of an
unexpected exception (the dispatcher's fail-open line ``<EVENT> failed: <Exception>`` is a bug: a
handler reports its problems as one ``HookError`` line); nothing outside the state folder changed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from fuzzkit import (
    FIXTURES,
    HOSTILE_STRINGS,
    HUGE_STRINGS,
    JSON_VALUES,
    NOW,
    SCHEMAS,
    STATE_FILES,
    captured,
    changed,
    fuzz_target,
    hang_guard,
    mutated_json,
    mutated_text,
    restore,
    snapshot,
)
from hypothesis import event as label
from hypothesis import given
from hypothesis import strategies as st

from ctxres.hook_events import EVENTS
from ctxres.hooks.main import run

SESSION = "00893aaf-19fa-41d2-8238-13269b9b3ca0"
WORKFLOW = "projects/PROJ-001-oss-release/ORCHESTRATION.yaml"
CHECKPOINT = ".jerry/checkpoints/cx-001-checkpoint.json"
STATE_DIR = ".jerry"
TEMPLATE_ORCHESTRATION = (FIXTURES / "templates" / "proj001-qg2-ORCHESTRATION.yaml").read_bytes()
TEMPLATE_CHECKPOINT = json.loads((FIXTURES / "templates" / "proj001-qg2-checkpoint.json").read_text("utf-8"))
MAX_CONTEXT = 10_000


# --------------------------------------------------------------------------- the project


def _usage_line(msg_id: str, tokens: int, ts: str) -> dict[str, Any]:
    return {
        "type": "assistant",
        "isSidechain": False,
        "timestamp": ts,
        "sessionId": SESSION,
        "message": {
            "model": "claude-opus-4-7",
            "id": msg_id,
            "role": "assistant",
            "usage": {
                "input_tokens": 6,
                "cache_creation_input_tokens": 1000,
                "cache_read_input_tokens": tokens - 1006,
                "output_tokens": 10,
            },
        },
    }


def _transcripts(folder: Path) -> dict[str, str]:
    """Transcripts as Claude Code keeps them (outside the project)."""
    folder.mkdir(parents=True)
    user = {"type": "user", "isSidechain": False, "timestamp": "2026-02-17T10:00:00Z", "message": {"content": "go"}}
    boundary = {
        "type": "system",
        "subtype": "compact_boundary",
        "isSidechain": False,
        "timestamp": "2026-02-17T11:46:00Z",
        "compactMetadata": {"trigger": "auto", "preTokens": 177_200, "postTokens": 21_000},
    }
    attachment = {
        "type": "attachment",
        "isSidechain": False,
        "timestamp": "2026-02-17T11:47:00Z",
        "attachment": {"type": "hook_additional_context", "content": ["<compaction-alert> cx-001"]},
    }
    shapes: dict[str, list[Any]] = {
        "high": [user, _usage_line("msg_01", 50_000, "2026-02-17T10:30:00Z"), _usage_line("msg_02", 185_000, NOW)],
        "warning": [user, _usage_line("msg_01", 146_400, "2026-02-17T11:58:00Z")],
        "compacted": [user, _usage_line("msg_01", 177_200, "2026-02-17T11:40:00Z"), boundary, attachment],
    }
    paths = {}
    for name, lines in shapes.items():
        path = folder / f"{name}.jsonl"
        path.write_bytes(b"".join(json.dumps(line).encode() + b"\n" for line in lines))
        paths[name] = str(path)
    junk = folder / "junk.jsonl"
    junk.write_bytes(b'{"type": "assistant", "message": {"usage": {"input_tokens": "x"}}}\n\xff\xfe\x00junk\n{"trunc')
    paths["junk"] = str(junk)
    return paths


class Project:
    def __init__(self, root: Path, transcripts: dict[str, str]) -> None:
        self.root = root
        self.transcripts = transcripts
        self.files = snapshot(root)


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Project]:
    base = tmp_path_factory.mktemp("hooks")
    root = base / "proj"
    (root / WORKFLOW).parent.mkdir(parents=True)
    (root / WORKFLOW).write_bytes(TEMPLATE_ORCHESTRATION)
    (root / CHECKPOINT).parent.mkdir(parents=True)
    (root / CHECKPOINT).write_text(json.dumps(TEMPLATE_CHECKPOINT, indent=2), encoding="utf-8")
    (root / "src").mkdir()
    (root / "src" / "notes.yaml").write_text("resumption:\n  recovery_state: {}\n", encoding="utf-8")
    transcripts = _transcripts(base / "claude" / "projects" / "-work-proj")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CLAUDE_PROJECT_DIR", str(root))
        patch.setenv("CTXRES_NOW", NOW)
        patch.delenv("CTXRES_ORCHESTRATION", raising=False)
        patch.chdir(root)
        yield Project(root, transcripts)


VALIDATORS = {
    event: jsonschema.Draft202012Validator(
        json.loads((SCHEMAS / f"hook-{event.lower()}-output.schema.json").read_text("utf-8")),
        format_checker=jsonschema.FormatChecker(),
    )
    for event in EVENTS
}


# --------------------------------------------------------------------------- payloads


def _field(valid: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Mostly a valid value; sometimes another type, a huge or a hostile string."""
    return st.one_of(valid, valid, valid, JSON_VALUES, HUGE_STRINGS, HOSTILE_STRINGS)


MISSING = object()


@st.composite
def payloads(draw: st.DrawFn, event: str, project: Project) -> dict[str, Any]:
    root = str(project.root)
    paths = st.sampled_from(
        [
            *project.transcripts.values(),
            os.path.join(root, WORKFLOW),
            os.path.join(root, CHECKPOINT),
            os.path.join(root, "src", "notes.yaml"),
            os.path.join(root, "missing.yaml"),
            os.path.join(root, "projects"),
            root,
        ]
    )
    fields: dict[str, st.SearchStrategy[Any]] = {
        "session_id": st.sampled_from([SESSION, "abc123", "other-session"]),
        "transcript_path": paths,
        "cwd": st.sampled_from([root, os.path.join(root, "projects"), "/"]),
        "hook_event_name": st.sampled_from([event, event, event, *EVENTS]),
        "permission_mode": st.sampled_from(["default", "plan", "acceptEdits", "bypassPermissions", None]),
        "prompt_id": st.uuids().map(str),
        "effort": st.fixed_dictionaries({"level": st.sampled_from(["low", "high", "max"])}),
    }
    if event == "PreCompact":
        fields["trigger"] = st.sampled_from(["auto", "manual"])
        fields["custom_instructions"] = st.sampled_from(["", None, "keep the QG-2 scores"])
    elif event == "SessionStart":
        fields["source"] = st.sampled_from(["startup", "resume", "fork", "compact", "clear"])
        fields["model"] = st.sampled_from(["claude-opus-4-7", "opus[1m]", "<synthetic>", ""])
        fields["session_title"] = st.text(max_size=30)
    elif event == "UserPromptSubmit":
        fields["prompt"] = st.text(max_size=200)
    else:
        tool_input = st.fixed_dictionaries(
            {"file_path": paths, "content": st.text(max_size=50)},
            optional={"old_string": st.text(max_size=20), "edits": st.lists(JSON_VALUES, max_size=3)},
        )
        fields["tool_name"] = st.sampled_from(["Write", "Edit", "MultiEdit", "Bash", "Read", "write"])
        fields["tool_input"] = tool_input
        fields["tool_response"] = st.fixed_dictionaries({"filePath": paths, "success": st.booleans()})
        fields["tool_use_id"] = st.just("toolu_01ABC123")
        fields["duration_ms"] = st.integers(0, 10_000)
    payload: dict[str, Any] = {}
    for name, valid in fields.items():
        value = draw(st.one_of(st.just(MISSING), _field(valid)))
        if value is not MISSING:
            payload[name] = value
    for _ in range(draw(st.integers(0, 2))):
        payload[draw(st.text(max_size=15))] = draw(JSON_VALUES)
    return payload


@st.composite
def stdin_bytes(draw: st.DrawFn, event: str, project: Project) -> bytes:
    """The bytes on stdin: mostly a JSON payload, sometimes broken or not an object."""
    kind = draw(st.integers(0, 9))
    if kind == 0:
        return draw(st.binary(max_size=300))
    if kind == 1:  # JSON that is not an object, or nested deeper than any parser's stack
        deep = st.integers(1, 200_000).map(lambda n: b"[" * n) | st.integers(1, 5_000).map(lambda n: b'{"a":' * n)
        return draw(st.one_of(st.builds(lambda v: json.dumps(v).encode(), JSON_VALUES), deep))
    payload = draw(payloads(event, project))
    text = json.dumps(payload, ensure_ascii=draw(st.booleans()))
    raw = text.encode("utf-8", "surrogatepass")
    if kind == 2:  # truncated
        return raw[: draw(st.integers(0, len(raw)))]
    if kind == 3:  # invalid UTF-8 / control bytes inside the document
        at = draw(st.integers(0, len(raw)))
        junk = draw(st.sampled_from([b"\xff", b"\xc3\x28", b"\xed\xa0\x80", b"\x00", b"\xef\xbb\xbf"]))
        return raw[:at] + junk + raw[at:]
    if kind == 4:  # a BOM, surrounding whitespace, or a second document
        head = draw(st.sampled_from([b"\xef\xbb\xbf", b"  \n", b""]))
        return head + raw + draw(st.sampled_from([b"\n", b"\n{}", b" x"]))
    return raw


@st.composite
def project_state(draw: st.DrawFn) -> dict[str, bytes]:
    """Files to put into the project for one case (none: the pristine project)."""
    files: dict[str, bytes] = {}
    if draw(st.integers(0, 3)) == 0:
        files[WORKFLOW] = draw(mutated_text([TEMPLATE_ORCHESTRATION]))
    if draw(st.integers(0, 5)) == 0:
        files[CHECKPOINT] = json.dumps(draw(mutated_json(TEMPLATE_CHECKPOINT))).encode("utf-8", "surrogatepass")
    if draw(st.integers(0, 3)) == 0:
        state = json.loads(STATE_FILES["context-monitor-state.json"].read_text("utf-8"))
        if draw(st.booleans()):
            state = draw(mutated_json(state))
        files[f"{STATE_DIR}/context-monitor-state.json"] = json.dumps(state).encode("utf-8", "surrogatepass")
    return files


# --------------------------------------------------------------------------- the property


def check_run(event: str, project: Project, raw: bytes, extra: dict[str, bytes]) -> None:
    restore(project.root, {**project.files, **extra})
    before = snapshot(project.root)
    try:
        with hang_guard(), captured() as (_out, err):
            text = run([event], raw)
        after = snapshot(project.root)
    finally:
        restore(project.root, project.files)
    if event == "PreCompact":
        assert text == ""  # PreCompact prints nothing: the client would show it to the user
    output = json.loads(text or "{}")
    assert isinstance(output, dict)
    VALIDATORS[event].validate(output)
    specific = output.get("hookSpecificOutput")
    label("context injected" if specific else "no context")
    label("a problem reported on stderr" if err.getvalue() else "silent")
    if specific is not None:
        assert specific["hookEventName"] == event
        assert len(specific["additionalContext"]) <= MAX_CONTEXT
    if event == "PreCompact":
        assert output == {}
    crashed = [line for line in err.getvalue().splitlines() if line.startswith(f"ctxres-hook: {event} failed:")]
    assert not crashed, crashed
    outside = [name for name in changed(before, after) if not name.startswith(STATE_DIR + "/")]
    assert not outside, f"the hook changed files outside {STATE_DIR}/: {outside}"


def _target(event: str) -> Any:
    @fuzz_target()
    @given(data=st.data())
    def target(project: Project, data: st.DataObject) -> None:
        raw = data.draw(stdin_bytes(event, project), label="stdin")
        extra = data.draw(project_state(), label="project files")
        check_run(event, project, raw, extra)

    target.__name__ = f"test_hook_{event.lower()}"
    return target


test_hook_precompact = _target("PreCompact")
test_hook_sessionstart = _target("SessionStart")
test_hook_userpromptsubmit = _target("UserPromptSubmit")
test_hook_posttooluse = _target("PostToolUse")


# --------------------------------------------------------------------------- the real process

SUBPROCESS_CASES = 50  # a fixed sample: each case starts an interpreter


@fuzz_target(examples=SUBPROCESS_CASES)
@given(event=st.sampled_from(EVENTS), raw=st.binary(max_size=2000) | st.sampled_from([b"\xff\xfe", b"", b"\x00" * 64]))
def test_hook_process_exits_0_with_valid_output_on_garbage(project: Project, event: str, raw: bytes) -> None:
    """The real ``ctxres-hook`` process on garbage / invalid UTF-8 stdin: exit 0, valid JSON stdout."""
    env = {**os.environ, "CLAUDE_PROJECT_DIR": str(project.root), "CTXRES_NOW": NOW}
    try:
        result = subprocess.run(
            [sys.executable, "-m", "ctxres.hooks.main", event],
            input=raw,
            env=env,
            capture_output=True,
            timeout=120,
            cwd=project.root,
        )
    finally:
        restore(project.root, project.files)
    assert result.returncode == 0, result.stderr
    assert (result.stdout == b"") == (event == "PreCompact")  # PreCompact prints nothing at all
    output = json.loads(result.stdout or b"{}")
    VALIDATORS[event].validate(output)
    assert b"Traceback" not in result.stderr
