#!/usr/bin/env python3
"""How the cost of reading the context fill grows with the transcript: it should not.

Builds transcripts of 1 MB, 100 MB and 1 GB in a temporary folder (the bigger ones are sparse:
a hole of NUL bytes followed by 1 MB of realistic lines, so they take almost no disk), plus two
1 GB variants where the newest model reply is followed by 50 MB without any usage (many ordinary
lines; one single 50 MB line). Prints the median time of ``read_fill`` and of
``compaction_alert_delivered`` on each, with the ratio to the 1 MB case (flat is the goal),
then deletes the files.

The files are in the page cache after the warm-up run, so this measures the work done per call
(bytes read, lines split, JSON parsed), not the disk. Nothing here asserts a time.

``measure_fill`` is the part ``bench/run.py`` puts in the published table (1 MB / 100 MB / 1 GB,
each against a plain 64 KiB tail read of the same file and against the 1 MB case).

Standard library only: ``python bench/transcript_bench.py`` with ctxres importable.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from ctxres import transcript
from ctxres.transcript import MAX_SCAN_BYTES, compaction_alert_delivered, read_fill

MB = 1_000_000
MARKER = "<compaction-alert>"


def _line(entry: dict[str, Any]) -> bytes:
    return json.dumps(entry, separators=(",", ":")).encode() + b"\n"


def _reply_lines(n: int, tokens: int) -> list[bytes]:
    """One model reply split over three lines sharing message.id, as Claude Code writes it."""
    usage = {"input_tokens": 4, "cache_creation_input_tokens": 1_200, "cache_read_input_tokens": tokens - 1_204}
    return [
        _line(
            {
                "parentUuid": f"p{n}",
                "isSidechain": False,
                "type": "assistant",
                "requestId": f"req_{n}",
                "uuid": f"a{n}-{block}",
                "timestamp": "2026-04-21T00:29:54.704Z",
                "message": {
                    "model": "claude-opus-4-7",
                    "id": f"msg_{n}",
                    "type": "message",
                    "role": "assistant",
                    "content": [{"type": "text", "text": "Working on it. " * 20}],
                    "usage": {**usage, "output_tokens": block},
                },
            }
        )
        for block in (1, 4, 6)
    ]


def _ordinary_lines(n: int) -> list[bytes]:
    """A prompt, a tool result of a few KB and a hook attachment: lines without usage."""
    return [
        _line({"type": "user", "isSidechain": False, "uuid": f"u{n}", "message": {"role": "user", "content": "go on"}}),
        _line(
            {
                "type": "user",
                "isSidechain": False,
                "uuid": f"t{n}",
                "message": {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": f"toolu_{n}", "content": "x = 1\n" * 500}],
                },
            }
        ),
        _line(
            {
                "type": "attachment",
                "uuid": f"att{n}",
                "attachment": {
                    "type": "hook_additional_context",
                    "content": ["<context-monitor>fill 41%</context-monitor>"],
                    "hookName": "UserPromptSubmit",
                    "hookEvent": "UserPromptSubmit",
                },
            }
        ),
    ]


def _realistic(size: int) -> bytes:
    """About ``size`` bytes of conversation ending with a reply and then a prompt."""
    chunks: list[bytes] = []
    total, n = 0, 0
    while total < size:
        for chunk in (*_ordinary_lines(n), *_reply_lines(n, 80_000 + n)):
            chunks.append(chunk)
            total += len(chunk)
        n += 1
    chunks.append(_ordinary_lines(n)[0])
    return b"".join(chunks)


def _non_usage(size: int) -> bytes:
    lines, total, n = [], 0, 0
    while total < size:
        for chunk in _ordinary_lines(n):
            lines.append(chunk)
            total += len(chunk)
        n += 1
    return b"".join(lines)


def _compaction_tail() -> bytes:
    """A compaction boundary, the summary, SessionStart's alert and one more prompt."""
    entries: list[dict[str, Any]] = [
        {
            "type": "system",
            "subtype": "compact_boundary",
            "isSidechain": False,
            "content": "Conversation compacted",
            "compactMetadata": {"trigger": "auto", "preTokens": 181_000, "postTokens": 9_500},
        },
        {
            "type": "user",
            "isCompactSummary": True,
            "message": {"role": "user", "content": "This session is being continued. " * 200},
        },
        {
            "type": "attachment",
            "attachment": {
                "type": "hook_additional_context",
                "content": [f"{MARKER}COMPACTION EVENT: 1 of 1 ...</compaction-alert>"],
                "hookName": "SessionStart",
                "hookEvent": "SessionStart",
            },
        },
    ]
    return b"".join(_line(entry) for entry in entries) + _ordinary_lines(0)[0]


def _sparse(path: Path, size: int, tail: bytes) -> None:
    """``size`` bytes: a hole (no disk used where the file system supports it), then ``tail``."""
    with path.open("wb") as handle:
        handle.truncate(max(size - len(tail), 0))
        handle.seek(0, os.SEEK_END)
        handle.write(tail)


def _giant_line_after(path: Path, size: int, tail: bytes, line_size: int) -> None:
    """A sparse file ending with ``tail``, one ``line_size``-byte line (a hole) and a prompt."""
    after = b"\n" + _ordinary_lines(0)[0]
    with path.open("wb") as handle:
        handle.truncate(size - len(tail) - line_size - len(after))
        handle.seek(0, os.SEEK_END)
        handle.write(tail)
        handle.truncate(handle.tell() + line_size)
        handle.seek(0, os.SEEK_END)
        handle.write(after)


def build(folder: Path) -> list[tuple[str, Path]]:
    tail = _realistic(MB)
    cases: list[tuple[str, Path]] = []

    one_mb = folder / "1mb.jsonl"
    one_mb.write_bytes(tail)
    cases.append(("1 MB", one_mb))
    for label, size in (("100 MB", 100 * MB), ("1 GB", 1000 * MB)):
        path = folder / f"{label.replace(' ', '').lower()}.jsonl"
        _sparse(path, size, tail)
        cases.append((label, path))

    lines_after = folder / "1gb-50mb-lines-after.jsonl"
    _sparse(lines_after, 1000 * MB, tail + _non_usage(50 * MB))
    cases.append(("1 GB + 50 MB of lines without usage after the last", lines_after))

    compacted = folder / "1gb-compacted.jsonl"
    _sparse(compacted, 1000 * MB, tail + _compaction_tail())
    cases.append(("1 GB, compacted near the end, alert delivered", compacted))

    line_after = folder / "1gb-50mb-line-after.jsonl"
    _giant_line_after(line_after, 1000 * MB, tail, 50 * MB)
    cases.append(("1 GB + one 50 MB line after the last usage", line_after))
    return cases


def alert_bytes_read(path: Path) -> int:
    """Bytes ``compaction_alert_delivered`` reads on ``path`` (counted, for the table)."""
    counted = [0]
    real_open = transcript._open_regular

    class Counting:
        def __init__(self, inner: Any) -> None:
            self.inner = inner

        def seek(self, offset: int, whence: int = 0) -> int:
            return int(self.inner.seek(offset, whence))

        def read(self, size: int) -> bytes:
            data: bytes = self.inner.read(size)
            counted[0] += len(data)
            return data

        def __enter__(self) -> Any:
            return self

        def __exit__(self, *exc: object) -> None:
            self.inner.close()

    def counting_open(name: Any) -> tuple[Any, int]:
        handle, size = real_open(name)
        return Counting(handle), size

    transcript._open_regular = counting_open  # type: ignore[assignment]
    try:
        compaction_alert_delivered(path, MARKER)
    finally:
        transcript._open_regular = real_open
    return counted[0]


def median_ms(call: Callable[[], object], repeat: int) -> float:
    call()  # warm-up: page cache, first-call costs
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def tail_read(path: Path, size: int = 64 * 1024) -> int:
    """The floor for a read from the end: open, seek to the last ``size`` bytes, read them."""
    with path.open("rb") as handle:
        handle.seek(0, os.SEEK_END)
        end = handle.tell()
        handle.seek(max(0, end - size))
        return len(handle.read(size))


@dataclass
class FillCase:
    """``read_fill`` on one transcript, and the plain 64 KiB tail read of the same file."""

    label: str
    size: int
    fill_seconds: float
    tail_seconds: float
    tokens: int | None
    source: str
    bytes_scanned: int


def _size_label(size: int) -> str:
    if size >= 1000 * MB:
        return f"{size / (1000 * MB):g} GB"
    if size >= MB:
        return f"{size / MB:g} MB"
    return f"{size / 1000:g} kB"


def measure_fill(sizes: tuple[int, ...], repeat: int, folder: Path | None = None) -> list[FillCase]:
    """``read_fill`` on transcripts of each size: the first is real content, the others a sparse hole
    followed by the same content. Medians of ``repeat`` calls after one warm-up; files deleted after."""
    work = Path(tempfile.mkdtemp(prefix="ctxres-fill-bench-", dir=folder))
    try:
        tail = _realistic(sizes[0])
        cases = []
        for size in sizes:
            path = work / f"transcript-{size}.jsonl"
            if size <= len(tail):
                path.write_bytes(tail)
            else:
                _sparse(path, size, tail)
            reading = read_fill(path)
            cases.append(
                FillCase(
                    label=_size_label(size),
                    size=path.stat().st_size,
                    fill_seconds=median_ms(partial(read_fill, path), repeat) / 1000,
                    tail_seconds=median_ms(partial(tail_read, path), repeat) / 1000,
                    tokens=reading.tokens,
                    source=reading.source,
                    bytes_scanned=reading.bytes_scanned,
                )
            )
            path.unlink()
        return cases
    finally:
        shutil.rmtree(work, ignore_errors=True)


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    return (
        f"{platform.system()} {platform.release()} {platform.machine()}, {cpu}, {os.cpu_count()} CPUs, "
        f"Python {platform.python_version()} ({sys.executable})"
    )


def _allocated_mb(path: Path) -> float:
    blocks = getattr(path.stat(), "st_blocks", None)
    return (blocks * 512 if blocks is not None else path.stat().st_size) / MB


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--repeat", type=int, default=15, help="timed runs per case after one warm-up (default 15)")
    parser.add_argument("--dir", type=Path, default=None, help="where to create the files (default: a temp folder)")
    args = parser.parse_args(argv)

    print(f"machine: {machine()}")
    folder = Path(tempfile.mkdtemp(prefix="ctxres-transcript-bench-", dir=args.dir))
    try:
        print(f"files in {folder} (sparse where the file system allows)")
        cases = build(folder)
        rows = []
        for label, path in cases:
            reading = read_fill(path)
            fill_ms = median_ms(partial(read_fill, path), args.repeat)
            alert_ms = median_ms(partial(compaction_alert_delivered, path, MARKER), args.repeat)
            tokens = f"{reading.tokens:,} tokens" if reading.tokens is not None else "unknown"
            delivered = compaction_alert_delivered(path, MARKER)
            result = f"{tokens} ({reading.source}); alert delivered: {delivered}"
            scanned = (reading.bytes_scanned, alert_bytes_read(path))
            rows.append((label, path, scanned, result, fill_ms, alert_ms))
        base_fill, base_alert = rows[0][4], rows[0][5]
        header = (
            f"{'transcript':<50} {'size':>7} {'on disk':>7} | {'read_fill':>9} {'ratio':>6} {'read':>9} | "
            f"{'alert check':>11} {'ratio':>6} {'read':>9} | result"
        )
        print(f"\nmedian of {args.repeat} runs; the scan limit is {MAX_SCAN_BYTES // (1024 * 1024)} MiB\n")
        print(header)
        print("-" * len(header))
        for label, path, (fill_read, alert_read), result, fill_ms, alert_ms in rows:
            print(
                f"{label:<50} {path.stat().st_size / MB:>4.0f} MB {_allocated_mb(path):>4.0f} MB | "
                f"{fill_ms:>6.2f} ms {fill_ms / base_fill:>5.1f}x {fill_read / 1024:>5.0f} KiB | "
                f"{alert_ms:>8.2f} ms {alert_ms / base_alert:>5.1f}x {alert_read / 1024:>5.0f} KiB | {result}"
            )
        print(
            "\n`read` is the bytes actually read. read_fill stops at the newest reply with usage or compaction"
            " boundary; with 50 MB without usage after it, it stops at the scan limit and reports unknown. The"
            " alert check stops at the newest compaction boundary, else reads up to the scan limit (or the"
            " whole file when it is smaller): ratios differ between 1 MB and 100 MB only because 1 MB is below"
            " that limit. Between 100 MB and 1 GB the work is identical."
        )
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
