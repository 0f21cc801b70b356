"""A project of the `nexus` profile (the Nexus corpus project, a fixture), transcripts of its edits, the
payloads of its hooks, and a run of the real ``ctxres-hook`` with the dispatcher pointed at the
profile's module.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ..conftest import CORPUS, ROOT

NOW = "2026-01-04T12:00:00Z"
P24 = "24-project-skills-research-resume-expansion"
STATE = Path("00-system/.cache/precompact_state.json")
RUNNER = (
    "import sys; from ctxres.hooks import main; "
    "main.MODULES.update(PreCompact='nexus', SessionStart='nexus'); sys.exit(main.main())"
)
HEAVY = ("pydantic", "jsonschema", "ctxres.linters", "ctxres.schemas")


def schema(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((ROOT / "schemas" / f"{name}.schema.json").read_text())
    return data


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """The real Nexus corpus, writable, with the files project 24's manifest lists (two of five)."""
    root = tmp_path / "nexus"
    shutil.copytree(CORPUS / "nexus", root)
    for path in root.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    (root / "00-system" / ".cache").mkdir(exist_ok=True)
    for name in ("overview.md", "plan.md"):
        (root / "02-projects" / P24 / "01-planning" / name).write_text(f"# {name}\n")
    return root


def tool_line(name: str, **args: str) -> dict[str, Any]:
    return {
        "type": "assistant",
        "isSidechain": False,
        "message": {
            "id": "msg_1",
            "role": "assistant",
            "content": [
                {"type": "text", "text": "ok"},
                {"type": "tool_use", "id": "toolu_1", "name": name, "input": args},
            ],
        },
    }


def transcript(path: Path, lines: list[dict[str, Any]], tail: bytes = b"") -> Path:
    path.write_bytes(b"".join(json.dumps(line).encode() + b"\n" for line in lines) + tail)
    return path


def run_hook(event: str, payload: dict[str, Any] | bytes, project: Path) -> subprocess.CompletedProcess[str]:
    stdin = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    env = {**os.environ, "CLAUDE_PROJECT_DIR": str(project), "CTXRES_NOW": NOW}
    result = subprocess.run(
        [sys.executable, "-c", RUNNER, event], input=stdin, capture_output=True, env=env, timeout=60
    )
    return subprocess.CompletedProcess(result.args, result.returncode, result.stdout.decode(), result.stderr.decode())


def precompact_payload(path: Path | str) -> dict[str, Any]:
    return {
        "session_id": "abc123",
        "transcript_path": str(path),
        "cwd": "/somewhere",
        "hook_event_name": "PreCompact",
        "trigger": "manual",
        "custom_instructions": "",
    }


def sessionstart_payload(source: str) -> dict[str, Any]:
    return {
        "session_id": "abc123",
        "transcript_path": "/nowhere.jsonl",
        "cwd": "/somewhere",
        "hook_event_name": "SessionStart",
        "source": source,
        "model": "claude-sonnet-5",
    }


def edits_of_one_project(root: Path) -> list[dict[str, Any]]:
    project = root / "02-projects" / P24
    return [
        {"type": "user", "message": {"role": "user", "content": "continue the resume work"}},
        tool_line(
            "Read", file_path=str(root / "02-projects/10-dynamic-subagent-research/01-planning/resume-context.md")
        ),
        tool_line("Read", file_path=str(project / "01-planning/plan.md")),
        tool_line("Edit", file_path=str(project / "01-planning/steps.md"), old_string="a", new_string="b"),
        tool_line("Write", file_path=str(project / "03-working/notes.md"), content="x" * 5000),
        tool_line("Edit", file_path=str(project / "01-planning/plan.md"), old_string="c", new_string="d"),
        tool_line("Bash", command=f"ls 02-projects/{P24}/03-working"),
    ]


def read_state(root: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((root / STATE).read_text())
    return data
