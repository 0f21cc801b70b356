"""A project as the hook tests build it: the PROJ-001 workflow at its QG-2 point as ORCHESTRATION.yaml at
the top, checkpoints, a transcript, the documented hook payloads, a run of the real ``ctxres-hook``
process and its answer checked against the output schemas, and secrets to plant.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema

from tests.conftest import FIXTURES, ROOT, assistant_line

SCHEMAS = ROOT / "schemas"
TEMPLATE_ORCHESTRATION = FIXTURES / "templates" / "proj001-qg2-ORCHESTRATION.yaml"
TEMPLATE_CHECKPOINT = FIXTURES / "templates" / "proj001-qg2-checkpoint.json"
NOW = "2026-02-17T12:00:00Z"
SESSION = "abc123"
# The child process that injects faults into the real code (the fault and concurrency tests).
HELPER = Path(__file__).parent.parent / "_kill_child.py"


def schema(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((SCHEMAS / f"{name}.schema.json").read_text())
    return loaded


def validate(name: str, instance: Any) -> None:
    jsonschema.Draft202012Validator(schema(name), format_checker=jsonschema.FormatChecker()).validate(instance)


def payload(root: Path, event: str = "PreCompact", **fields: Any) -> dict[str, Any]:
    base = {
        "session_id": SESSION,
        "transcript_path": str(root / "transcript.jsonl"),
        "cwd": str(root),
        "hook_event_name": event,
    }
    return {**base, **fields}


def hook_env(root: Path, **extra: str) -> dict[str, str]:
    env = {**os.environ, "CLAUDE_PROJECT_DIR": str(root), "CTXRES_NOW": NOW, **extra}
    env.pop("CTXRES_ORCHESTRATION", None)
    return env


def run_hook(event: str, root: Path, stdin: bytes | dict[str, Any]) -> subprocess.CompletedProcess[str]:
    raw = stdin if isinstance(stdin, bytes) else json.dumps(stdin).encode()
    result = subprocess.run(
        [sys.executable, "-m", "ctxres.hooks.main", event],
        input=raw,
        env=hook_env(root),
        cwd=root,
        capture_output=True,
        timeout=60,
    )
    return subprocess.CompletedProcess(result.args, result.returncode, result.stdout.decode(), result.stderr.decode())


# The fields of each event's payload, beside those of `payload`.
EVENT_FIELDS: dict[str, dict[str, Any]] = {
    "PreCompact": {"trigger": "auto", "custom_instructions": ""},
    "SessionStart": {"source": "compact"},
    "UserPromptSubmit": {"prompt": "continue with QG-2"},
}


def answer(result: subprocess.CompletedProcess[str], event: str) -> dict[str, Any]:
    """The hook's stdout, checked: exit 0, one JSON object valid against the event's output schema.
    PreCompact prints nothing at all (the client shows its stdout to the user), which stands for ``{}``."""
    assert result.returncode == 0
    assert "Traceback" not in result.stderr
    if event == "PreCompact":
        assert result.stdout == ""
        return {}
    output: dict[str, Any] = json.loads(result.stdout)
    validate(f"hook-{event.lower()}-output", output)
    return output


def workspace(tmp_path: Path, text: str | None = None) -> Path:
    """A project with the PROJ-001 workflow at the QG-2 compaction point (or ``text``) as ORCHESTRATION.yaml."""
    root = tmp_path / "project"
    root.mkdir()
    (root / ".git").mkdir()
    if text is None:
        shutil.copy(TEMPLATE_ORCHESTRATION, root / "ORCHESTRATION.yaml")
    else:
        (root / "ORCHESTRATION.yaml").write_text(text)
    return root


def checkpoints(root: Path) -> list[Path]:
    folder = root / ".jerry" / "checkpoints"
    return sorted(folder.iterdir()) if folder.is_dir() else []


def load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def monitor_state(root: Path, **fields: Any) -> Path:
    state = {
        "schema_version": "1.0",
        "session_id": SESSION,
        "timestamp": "2026-02-17T11:44:00Z",
        "fill": 0.886,
        "tokens": 177_200,
        "window": 200_000,
        "tier": "CRITICAL",
        "transcript_path": None,
        "transcript_offset": 0,
        "source": "transcript",
        **fields,
    }
    validate("monitor-state", state)
    path = root / ".jerry" / "context-monitor-state.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(state))
    return path


def transcript(root: Path, tokens: int) -> Path:
    path = root / "transcript.jsonl"
    path.write_text(assistant_line(tokens))
    return path


SECRETS = {
    "anthropic": "sk-ant-api03-Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0LzXcVbNm",
    "openai": "sk-proj-4fGh7Jk9Lm2Np5Qr8St1Uv3Wx6Yz0Ab",
    "aws": "AKIAQ7ZK2M4N6P8R3T5V",
    "aws_secret": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYz8Q4mK2pLw",
    "github": "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
    "slack": "xoxb-2048-4096-Zq8Wv7Xu6Ys5",
    "bearer": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl",
    "password": "hunter2-Correct-Horse",
}


ALERT_HEAD = "<compaction-alert>\nCONTEXT COMPACTION OCCURRED."
TEMPLATE1_HEAD = "You are resuming a workflow that was interrupted."


def put_checkpoint(root: Path, number: int, *, acknowledged: bool = False, text: str | None = None) -> Path:
    folder = root / ".jerry" / "checkpoints"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"cx-{number:03d}-checkpoint.json"
    if text is None:
        data = json.loads(TEMPLATE_CHECKPOINT.read_text())
        data["event_id"] = f"cx-{number:03d}"
        data["recovery_instructions"]["files_to_read"][0]["path"] = "ORCHESTRATION.yaml"
        data["metadata"]["acknowledged"] = acknowledged
        data["metadata"]["acknowledged_at"] = "2026-02-17T11:50:00Z" if acknowledged else None
        text = json.dumps(data, indent=2)
    path.write_text(text)
    return path
