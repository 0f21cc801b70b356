"""Concurrency: 64 PreCompact and 64 UserPromptSubmit hooks released at the same instant on one project.

Each process is ``tests/_kill_child.py barrier EVENT``: it imports the hook code, says ``ready`` and
then runs ``ctxres-hook EVENT`` exactly as the console script does, blocked on reading its stdin. Once
all 128 are ready their stdin is written (interleaved: PreCompact, UserPromptSubmit, ...), so they
run together rather than one after the other as their start-up would otherwise spread them.

Expected: checkpoints cx-001 .. cx-064, no gap, no duplicate, each complete and schema-valid with the
id of its name; the monitor state valid against ``schemas/monitor-state.schema.json``; the monitor
cache a valid JSON object; no temporary file left; every process exits 0 with valid output and says
nothing on stderr. (Supersedes ``test_32_concurrent_hooks_write_32_distinct_valid_checkpoints`` in
``tests/hooks/test_hook_precompact.py``, which runs 32 PreCompact hooks without a start barrier.)
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.hooks.hook_project import (
    EVENT_FIELDS,
    HELPER,
    TEMPLATE_ORCHESTRATION,
    hook_env,
    payload,
    transcript,
    validate,
)

PER_EVENT = 64


def project(root: Path) -> Path:
    """The PROJ-001 workflow with no compaction merged yet (the first checkpoint is cx-001), a transcript
    at 70% (WARNING: UserPromptSubmit injects the monitor and reads the workflow file)."""
    root.mkdir()
    (root / ".git").mkdir()
    text = TEMPLATE_ORCHESTRATION.read_text()
    assert text.count('id: "CX-001"') == 1
    (root / "ORCHESTRATION.yaml").write_text(text.replace('id: "CX-001"', 'id: "CX-000"'))
    transcript(root, 140_000)
    return root


def start(event: str, root: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, str(HELPER), "barrier", event],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=hook_env(root),
        cwd=root,
    )


def run_together(root: Path) -> list[tuple[str, int, bytes, bytes]]:
    """Start the 128 processes, wait until every one is ready, release them; (event, code, stdout, stderr)."""
    events = [event for _ in range(PER_EVENT) for event in ("PreCompact", "UserPromptSubmit")]
    processes = [(event, start(event, root)) for event in events]
    for _, process in processes:
        assert process.stdout is not None
        assert process.stdout.readline() == b"ready\n"
    stdins = {event: json.dumps(payload(root, event, **EVENT_FIELDS[event])).encode() for event in set(events)}
    for event, process in processes:
        assert process.stdin is not None
        process.stdin.write(stdins[event])
        process.stdin.close()
    results = []
    for event, process in processes:
        assert process.stdout is not None and process.stderr is not None
        out, err = process.stdout.read(), process.stderr.read()
        results.append((event, process.wait(timeout=300), out, err))
    return results


def test_64_precompact_and_64_userpromptsubmit_at_once(tmp_path: Path) -> None:
    root = project(tmp_path / "project")
    results = run_together(root)
    for event, code, out, err in results:
        assert (code, err) == (0, b""), (event, code, err.decode())
        if event == "PreCompact":
            assert out == b""  # nothing on stdout: the client would show it to the user
        else:
            output: dict[str, Any] = json.loads(out)
            validate(f"hook-{event.lower()}-output", output)
            assert "<context-monitor>" in output["hookSpecificOutput"]["additionalContext"]
    folder = root / ".jerry" / "checkpoints"
    names = sorted(path.name for path in folder.iterdir())
    assert names == [f"cx-{n:03d}.json" for n in range(1, PER_EVENT + 1)]  # no gap, no duplicate
    for name in names:
        data = json.loads((folder / name).read_text())
        validate("checkpoint", data)
        assert data["event_id"] == name[: len("cx-000")]
        assert data["context_state"]["source"] in ("context_monitor", "transcript_heuristic")
    state = json.loads((root / ".jerry" / "context-monitor-state.json").read_text())
    validate("monitor-state", state)
    assert state["tier"] == "WARNING" and state["tokens"] == 140_000
    cache = json.loads((root / ".jerry" / "context-monitor-cache.json").read_text())
    assert isinstance(cache, dict) and cache.get("version") == 1
    temps = [path for path in root.rglob("*") if path.name.endswith(".tmp")]
    assert temps == []
    shutil.rmtree(root)
