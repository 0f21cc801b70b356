#!/usr/bin/env python3
"""The timeline's transcript reader against the floor of reading the same transcript line by line with
``json.loads``, and its peak memory on a 10 MB and a 100 MB transcript (it must not grow with the length).

The transcripts are generated in a temporary folder and deleted after: realistic lines of the client
(2.1.328) in its proportions: prompts, model replies written as several lines sharing one ``message.id``,
big tool results (Reads of 20-200 KB files), hook attachments, request records, an Edit of the workflow file
every few turns, and a compaction (``compact_boundary`` and the SessionStart alert) every ~40% of the file.

``measure_timeline`` is the part ``bench/run.py`` puts in the published table. Peak memory is the
``ru_maxrss`` of a child process that reads the file (the reader, or the ``json.loads`` loop), so the
interpreter's own size is in both figures.

Standard library only: ``python bench/timeline_bench.py`` with ctxres importable.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

MB = 1_000_000
SESSION = "5d3c1f7e-0a4b-4c2d-9e8f-1a2b3c4d5e6f"
WORKFLOW = "/home/ana/proj/projects/PROJ-001/ORCHESTRATION.yaml"
_READER = """
import sys, resource
from pathlib import Path
from ctxres.linters.timeline.transcripts import read_session
record = read_session(Path(sys.argv[1]), lambda p: p.endswith("ORCHESTRATION.yaml"), hints=["ORCHESTRATION"])
print(len(record.turns), len(record.compactions), len(record.versions),
      resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""
_FLOOR = """
import sys, json, resource
with open(sys.argv[1], "rb") as f:
    for line in f:
        json.loads(line)
print(0, 0, 0, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def _dump(entry: dict[str, Any]) -> bytes:
    return json.dumps(entry, separators=(",", ":")).encode() + b"\n"


def _time(rng: random.Random, step: int) -> str:
    return f"2026-02-17T{9 + step // 3600 % 12:02d}:{step // 60 % 60:02d}:{step % 60:02d}.{rng.randrange(1000):03d}Z"


def _workflow_text(version: int) -> str:
    body = "".join(f"  item_{i}: value {i} of version {version}\n" for i in range(60))
    return f"resumption:\n  recovery_state:\n    updated_at: '2026-02-17T{version % 24:02d}:00:00Z'\n{body}"


def _turn(rng: random.Random, number: int, tokens: int) -> list[bytes]:
    """The lines of one turn: a prompt, a reply in three lines, a tool result, hook and request records."""
    step = number * 30
    ident = f"msg_{number:08d}"
    usage = {"input_tokens": 3, "cache_creation_input_tokens": 500, "cache_read_input_tokens": tokens}
    usage["output_tokens"] = 200
    lines = [
        _dump({"type": "queue-operation", "operation": "enqueue", "timestamp": _time(rng, step), "sessionId": SESSION}),
        _dump(
            {
                "parentUuid": None,
                "isSidechain": False,
                "type": "user",
                "message": {"role": "user", "content": f"Continue with step {number} of the plan."},
                "uuid": f"u-{number}",
                "timestamp": _time(rng, step),
                "sessionId": SESSION,
            }
        ),
        _dump(
            {
                "type": "api-request",
                "sessionId": SESSION,
                "timestamp": _time(rng, step),
                "params": {"model": "claude-opus-5-5", "max_tokens": 32000},
            }
        ),
    ]
    for block in ("thinking", "text", "tool_use"):
        lines.append(
            _dump(
                {
                    "parentUuid": f"u-{number}",
                    "isSidechain": False,
                    "message": {
                        "id": ident,
                        "type": "message",
                        "role": "assistant",
                        "model": "claude-opus-5-5",
                        "content": [{"type": block, "text": "Reading the next file. " * rng.randrange(2, 20)}],
                        "usage": usage,
                    },
                    "type": "assistant",
                    "uuid": f"a-{number}-{block}",
                    "timestamp": _time(rng, step + 5),
                    "sessionId": SESSION,
                }
            )
        )
    size = rng.randrange(20_000, 200_000)
    content = "".join(f"{i:6d}\tdef function_{i}(value):  # some source text\n" for i in range(size // 50))
    path = f"/home/ana/proj/src/module_{number % 97}.py"
    lines.append(
        _dump(
            {
                "parentUuid": f"a-{number}-tool_use",
                "isSidechain": False,
                "type": "user",
                "message": {"role": "user", "content": [{"type": "tool_result", "content": content}]},
                "toolUseResult": {"type": "text", "file": {"filePath": path, "content": content, "startLine": 1}},
                "timestamp": _time(rng, step + 9),
                "sessionId": SESSION,
            }
        )
    )
    lines.append(_dump({"type": "cost-state", "sessionId": SESSION, "totalCostUSD": 0.01 * number}))
    return lines


def _edit(rng: random.Random, number: int) -> bytes:
    before, after = _workflow_text(number - 1), _workflow_text(number)
    return _dump(
        {
            "parentUuid": None,
            "isSidechain": False,
            "type": "user",
            "message": {"role": "user", "content": [{"type": "tool_result", "content": "updated"}]},
            "toolUseResult": {
                "filePath": WORKFLOW,
                "oldString": before,
                "newString": after,
                "originalFile": before,
                "replaceAll": False,
            },
            "timestamp": _time(rng, number * 30 + 20),
            "sessionId": SESSION,
        }
    )


def _compaction(rng: random.Random, number: int, number_of: int) -> list[bytes]:
    alert = (
        f"<compaction-alert>\nCHECKPOINT: .jerry/checkpoints/cx-{number_of:03d}.json\n"
        "YOU WERE DOING: Phase 2 (Core), phase-2-core"
    )
    return [
        _dump(
            {
                "parentUuid": None,
                "isSidechain": False,
                "type": "system",
                "subtype": "compact_boundary",
                "compactMetadata": {"trigger": "auto", "preTokens": 160_000, "postTokens": 5_000, "durationMs": 900},
                "timestamp": _time(rng, number * 30 + 25),
                "sessionId": SESSION,
            }
        ),
        _dump(
            {
                "parentUuid": None,
                "isSidechain": False,
                "attachment": {
                    "type": "hook_additional_context",
                    "content": [alert],
                    "hookName": "SessionStart",
                    "hookEvent": "SessionStart",
                },
                "type": "attachment",
                "timestamp": _time(rng, number * 30 + 26),
                "sessionId": SESSION,
            }
        ),
    ]


def write_transcript(path: Path, size: int, seed: int = 7) -> None:
    """A realistic transcript of about ``size`` bytes at ``path``."""
    rng = random.Random(seed)
    written = number = compactions = 0
    next_compaction = size * 0.4
    with path.open("wb") as handle:
        while written < size:
            number += 1
            lines = _turn(rng, number, 5_000 + (number * 997) % 150_000)
            if number % 7 == 0:
                lines.append(_edit(rng, number))
            if written >= next_compaction:
                compactions += 1
                lines += _compaction(rng, number, compactions)
                next_compaction += size * 0.4
            for line in lines:
                handle.write(line)
                written += len(line)


@dataclass
class Case:
    label: str
    size: int
    reader_seconds: float
    floor_seconds: float
    reader_peak_kib: int
    floor_peak_kib: int
    turns: int
    compactions: int
    versions: int


def _median(action: Callable[[], object], repeat: int) -> float:
    action()  # warm-up: the file in the page cache, the modules loaded
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _floor(path: Path) -> None:
    with path.open("rb") as handle:
        for line in handle:
            json.loads(line)


def _is_workflow(path: str) -> bool:
    return path.endswith("ORCHESTRATION.yaml")


def _child(script: str, path: Path) -> list[int]:
    out = subprocess.run([sys.executable, "-c", script, str(path)], check=True, capture_output=True, text=True)
    return [int(part) for part in out.stdout.split()]


def measure_timeline(sizes: tuple[int, ...], repeat: int) -> list[Case]:
    """Reader and floor timed alternately in-process on each size; peak memory from child processes."""
    from ctxres.linters.timeline.transcripts import read_session  # imports ctxres only here

    folder = Path(tempfile.mkdtemp(prefix="ctxres-timeline-bench-"))
    cases = []
    try:
        for size in sizes:
            path = folder / f"{size}.jsonl"
            write_transcript(path, size)
            read = partial(read_session, path, _is_workflow, hints=["ORCHESTRATION"])
            record = read()
            reader = _median(read, repeat)
            floor = _median(partial(_floor, path), repeat)
            reader_peak = _child(_READER, path)[3]
            floor_peak = _child(_FLOOR, path)[3]
            cases.append(
                Case(
                    f"{path.stat().st_size / MB:.0f} MB",
                    size,
                    reader,
                    floor,
                    reader_peak,
                    floor_peak,
                    len(record.turns),
                    len(record.compactions),
                    len(record.versions),
                )
            )
            path.unlink()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return cases


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="1 MB and 10 MB")
    args = parser.parse_args(argv)
    sizes = (1 * MB, 10 * MB) if args.quick else (10 * MB, 100 * MB)
    for case in measure_timeline(sizes, args.repeat):
        print(
            f"{case.label}: reader {case.reader_seconds:.3f} s, json.loads loop {case.floor_seconds:.3f} s "
            f"({case.reader_seconds / case.floor_seconds:.2f}x); "
            f"peak RSS reader {case.reader_peak_kib / 1024:.1f} MiB, "
            f"loop {case.floor_peak_kib / 1024:.1f} MiB; {case.turns} turns, {case.compactions} compactions, "
            f"{case.versions} versions"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
