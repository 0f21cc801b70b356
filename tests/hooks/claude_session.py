"""A Claude Code session for the hook tests: transcript lines in the shapes the client writes (assistant
lines with ``message.usage``, ``compact_boundary`` system lines, ``hook_additional_context``
attachments), the PROJ-001 project at its QG-2 point, and a run of the real ``ctxres-hook`` process.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema

from ..conftest import FIXTURES, ROOT

NOW = "2026-02-17T12:00:00Z"
SESSION = "00893aaf-19fa-41d2-8238-13269b9b3ca0"
WORKFLOW = "projects/PROJ-001-oss-release/ORCHESTRATION.yaml"
FIXTURE_UPDATED_AT = 'updated_at: "2026-02-17T11:45:00Z"'


def schema(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((ROOT / "schemas" / f"{name}.schema.json").read_text(encoding="utf-8"))
    return loaded


def validate(instance: Any, name: str) -> None:
    """Raise when ``instance`` does not match ``schemas/<name>.schema.json`` (formats checked)."""
    validator = jsonschema.Draft202012Validator(schema(name), format_checker=jsonschema.FormatChecker())
    validator.validate(instance)


def user_line(ts: str, text: str = "continue") -> dict[str, Any]:
    return {
        "parentUuid": None,
        "isSidechain": False,
        "userType": "external",
        "cwd": "/work/proj",
        "sessionId": SESSION,
        "version": "2.1.114",
        "type": "user",
        "message": {"role": "user", "content": text},
        "uuid": f"u-{ts}",
        "timestamp": ts,
    }


def assistant_line(msg_id: str, tokens: int, ts: str, *, model: str = "claude-opus-4-7") -> dict[str, Any]:
    """A main-chain assistant line whose usage adds up to ``tokens`` as the client counts it (input, cache
    creation, cache read and output tokens)."""
    return {
        "parentUuid": "p",
        "isSidechain": False,
        "message": {
            "model": model,
            "id": msg_id,
            "type": "message",
            "role": "assistant",
            "content": [],
            "stop_reason": "tool_use",
            "usage": {
                "input_tokens": 6,
                "cache_creation_input_tokens": 1000,
                "cache_read_input_tokens": tokens - 1006 - 136,
                "output_tokens": 136,
                "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 1000},
                "service_tier": "standard",
            },
        },
        "requestId": f"req-{msg_id}",
        "type": "assistant",
        "uuid": f"a-{msg_id}",
        "timestamp": ts,
        "sessionId": SESSION,
        "version": "2.1.114",
        "userType": "external",
    }


def boundary_line(ts: str, *, pre: int = 177_200, post: int | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"trigger": "auto", "preTokens": pre}
    if post is not None:
        meta["postTokens"] = post
    return {
        "type": "system",
        "subtype": "compact_boundary",
        "parentUuid": None,
        "logicalParentUuid": "b2a2",
        "isSidechain": False,
        "content": "Conversation compacted",
        "isMeta": False,
        "level": "info",
        "compactMetadata": meta,
        "timestamp": ts,
        "sessionId": SESSION,
        "uuid": f"cb-{ts}",
    }


def attachment_line(texts: list[str], ts: str, *, hook: str = "SessionStart") -> dict[str, Any]:
    return {
        "parentUuid": "u1",
        "attachment": {"type": "hook_additional_context", "content": texts, "hookName": hook, "hookEvent": hook},
        "type": "attachment",
        "uuid": f"att-{ts}",
        "timestamp": ts,
    }


def write_transcript(tmp_path: Path, lines: list[dict[str, Any]], *, tail: bytes = b"") -> str:
    """A transcript outside the project (as under ~/.claude/projects), optionally with a partial last line."""
    folder = tmp_path / "claude" / "projects" / "-work-proj"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{SESSION}.jsonl"
    path.write_bytes(b"".join(json.dumps(line).encode() + b"\n" for line in lines) + tail)
    return str(path)


def fill_transcript(tmp_path: Path, tokens: int, *, start: str = "2026-02-17T10:00:00Z") -> str:
    return write_transcript(
        tmp_path,
        [
            user_line(start),
            assistant_line("msg_01", 50_000, "2026-02-17T10:30:00Z"),
            assistant_line("msg_02", tokens, "2026-02-17T11:58:00Z"),
        ],
    )


def workspace(tmp_path: Path, *, updated_at: str | None = None, text: str | None = None) -> Path:
    """A project with the PROJ-001 QG-2 workflow file (its ``updated_at`` optionally replaced)."""
    project = tmp_path / "proj"
    target = project / WORKFLOW
    target.parent.mkdir(parents=True)
    body = text if text is not None else (FIXTURES / "templates" / "proj001-qg2-ORCHESTRATION.yaml").read_text()
    if updated_at is not None:
        assert FIXTURE_UPDATED_AT in body
        body = body.replace(FIXTURE_UPDATED_AT, f'updated_at: "{updated_at}"')
    target.write_text(body, encoding="utf-8")
    return project


def add_checkpoint(project: Path, number: int, *, acknowledged: bool = False) -> Path:
    data = json.loads((FIXTURES / "templates" / "proj001-qg2-checkpoint.json").read_text())
    data["event_id"] = f"cx-{number:03d}"
    data["metadata"]["acknowledged"] = acknowledged
    folder = project / ".jerry" / "checkpoints"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"cx-{number:03d}-checkpoint.json"
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return path


class HookRun:
    """One run of the real ``ctxres-hook`` process."""

    def __init__(self, result: subprocess.CompletedProcess[bytes], event: str = "") -> None:
        self.returncode = result.returncode
        if event == "PreCompact":  # it prints nothing: Claude Code would show any output to the user
            assert result.stdout == b"", result.stdout
            self.output: dict[str, Any] = {}
        else:
            self.output = json.loads(result.stdout)
        self.stderr_lines = result.stderr.decode("utf-8", "replace").splitlines()

    @property
    def context(self) -> str | None:
        specific = self.output.get("hookSpecificOutput")
        return specific["additionalContext"] if specific else None


def run_hook(
    event: str,
    payload: dict[str, Any] | bytes,
    project: Path,
    *,
    now: str = NOW,
    env: dict[str, str] | None = None,
) -> HookRun:
    raw = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    environment = {k: v for k, v in os.environ.items() if k not in ("CTXRES_ORCHESTRATION", "CTXRES_NOW")}
    environment.update({"CLAUDE_PROJECT_DIR": str(project), "CTXRES_NOW": now, **(env or {})})
    result = subprocess.run(
        [sys.executable, "-m", "ctxres.hooks.main", event],
        input=raw,
        env=environment,
        capture_output=True,
        timeout=60,
        cwd=project,
    )
    run = HookRun(result, event)
    assert run.returncode == 0
    assert b"Traceback" not in result.stderr
    validate(run.output, f"hook-{event.lower()}-output")
    return run


def prompt_payload(project: Path, transcript: str | None, *, session: str = SESSION) -> dict[str, Any]:
    """Reference A.1's UserPromptSubmit example, pointed at the test's project and transcript."""
    payload: dict[str, Any] = {
        "session_id": session,
        "transcript_path": transcript,
        "cwd": str(project),
        "permission_mode": "default",
        "hook_event_name": "UserPromptSubmit",
        "prompt": "Write a function ...",
    }
    return {key: value for key, value in payload.items() if value is not None}
