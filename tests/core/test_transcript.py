"""Context fill from the end of a Claude Code transcript (ctxres.transcript).

The transcripts are synthetic but use the line shapes the real client writes (assistant usage lines,
compaction boundaries, hook attachments), as the recorded sessions of fixtures/replay/ hold them.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tracemalloc
from pathlib import Path
from typing import Any, BinaryIO

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxres import transcript
from ctxres.transcript import (
    BLOCK_BYTES,
    DEFAULT_WINDOW,
    EXTENDED_WINDOW,
    MAX_LINE_BYTES,
    MAX_SCAN_BYTES,
    FillReading,
    compaction_alert_delivered,
    context_window,
    payload_fill,
    read_fill,
)

MIB = 1024 * 1024
MARKER = "<compaction-alert>"

# One real assistant line of the client's transcript, verbatim.
REAL_ASSISTANT_LINE = (
    '{"parentUuid":"9a27c40f","isSidechain":false,"message":{"model":"claude-opus-4-7","id":"msg_01UwNt",'
    '"type":"message","role":"assistant","content":[],"stop_reason":"tool_use","usage":{"input_tokens":6,'
    '"cache_creation_input_tokens":8837,"cache_read_input_tokens":16410,"output_tokens":136,"cache_creation":'
    '{"ephemeral_5m_input_tokens":0,"ephemeral_1h_input_tokens":8837},"service_tier":"standard"}},'
    '"requestId":"req_011CaFyK","type":"assistant","uuid":"db6baab1","timestamp":"2026-04-21T00:29:54.704Z",'
    '"sessionId":"455218e7","cwd":"/Users/r/Dev/QTrial","version":"2.1.114","userType":"external",'
    '"entrypoint":"claude-vscode","gitBranch":"main"}'
)
REAL_BOUNDARY_LINE = (
    '{"type":"system","subtype":"compact_boundary","content":"Conversation compacted","isMeta":false,'
    '"compactMetadata":{"trigger":"manual","preTokens":23670,"durationMs":10550,"postTokens":1682},'
    '"timestamp":"2026-07-27T02:37:08.042Z"}'
)


# --------------------------------------------------------------------------- line builders


def assistant(
    msg_id: str,
    *,
    inp: int | None = 0,
    create: int | None = 0,
    read: int | None = 0,
    out: int = 0,
    model: str = "claude-opus-4-7",
    sidechain: bool | None = False,
    error: bool = False,
    text: str = "ok",
) -> dict[str, Any]:
    usage: dict[str, Any] = {"output_tokens": out, "service_tier": "standard"}
    for key, value in (
        ("input_tokens", inp),
        ("cache_creation_input_tokens", create),
        ("cache_read_input_tokens", read),
    ):
        if value is not None:
            usage[key] = value
    line: dict[str, Any] = {
        "parentUuid": "p",
        "message": {
            "model": model,
            "id": msg_id,
            "type": "message",
            "role": "assistant",
            "content": [{"type": "text", "text": text}],
            "usage": usage,
        },
        "requestId": f"req_{msg_id}",
        "type": "assistant",
        "uuid": f"u_{msg_id}_{out}",
        "timestamp": "2026-04-21T00:29:54.704Z",
    }
    if sidechain is not None:
        line["isSidechain"] = sidechain
    if error:
        line["isApiErrorMessage"] = True
    return line


def boundary(
    *, post: int | None = None, pre: int = 150_000, sidechain: bool = False, subtype: str = "compact_boundary"
) -> dict[str, Any]:
    meta: dict[str, Any] = {"trigger": "auto", "preTokens": pre}
    if post is not None:
        meta["postTokens"] = post
    key = "microcompactMetadata" if subtype == "microcompact_boundary" else "compactMetadata"
    return {
        "type": "system",
        "subtype": subtype,
        "parentUuid": None,
        "logicalParentUuid": "b2a2",
        "isSidechain": sidechain,
        "content": "Conversation compacted",
        "level": "info",
        key: meta,
    }


def user(text: str) -> dict[str, Any]:
    return {"type": "user", "isSidechain": False, "message": {"role": "user", "content": text}, "uuid": "uu"}


def summary_line() -> dict[str, Any]:
    return {
        "type": "user",
        "isCompactSummary": True,
        "isVisibleInTranscriptOnly": True,
        "message": {"role": "user", "content": "This session is being continued from a previous conversation."},
    }


def additional_context(content: Any, *, sidechain: bool = False) -> dict[str, Any]:
    line: dict[str, Any] = {
        "parentUuid": "u1",
        "attachment": {
            "type": "hook_additional_context",
            "content": content,
            "hookName": "SessionStart",
            "hookEvent": "SessionStart",
        },
        "type": "attachment",
        "uuid": "att1",
    }
    if sidechain:
        line["isSidechain"] = True
    return line


def hook_success(stdout: str) -> dict[str, Any]:
    return {
        "attachment": {
            "type": "hook_success",
            "hookName": "SessionStart:compact",
            "hookEvent": "SessionStart",
            "command": "ctxres-hook SessionStart",
            "exitCode": 0,
            "stdout": stdout,
            "stderr": "",
        },
        "type": "attachment",
        "uuid": "att2",
    }


Line = dict[str, Any] | str | bytes


def encode(lines: list[Line], *, final_newline: bool = True) -> bytes:
    parts = []
    for line in lines:
        if isinstance(line, dict):
            parts.append(json.dumps(line, separators=(",", ":")).encode())
        elif isinstance(line, str):
            parts.append(line.encode())
        else:
            parts.append(line)
    return b"\n".join(parts) + (b"\n" if final_newline else b"")


def write(path: Path, lines: list[Line], *, final_newline: bool = True) -> Path:
    path.write_bytes(encode(lines, final_newline=final_newline))
    return path


@pytest.fixture
def jsonl(tmp_path: Path) -> Path:
    return tmp_path / "session.jsonl"


# --------------------------------------------------------------------------- the figure


def test_real_assistant_line_gives_input_plus_cache_plus_output_as_the_client_counts(jsonl: Path) -> None:
    write(jsonl, [user("hello"), REAL_ASSISTANT_LINE])
    reading = read_fill(jsonl)
    assert reading.tokens == 6 + 8837 + 16410 + 136 == 25389
    assert reading.window == DEFAULT_WINDOW == 200_000
    assert reading.window_source == "default"
    assert reading.fill == 0.14  # 25,389 of the 180,000 usable tokens: the client's "14% context used"
    assert reading.source == "transcript"
    assert reading.model == "claude-opus-4-7"
    assert reading.message_id == "msg_01UwNt"
    assert reading.transcript_size == jsonl.stat().st_size
    assert reading.bytes_scanned == jsonl.stat().st_size
    assert "msg_01UwNt" in reading.reason


def test_newest_reply_wins_and_split_lines_of_one_reply_agree(jsonl: Path) -> None:
    old = assistant("msg_old", inp=10, create=1_000, read=50_000)
    # One API response written as three lines (one per content block) sharing message.id,
    # with partial output_tokens; the input figures are the same on each, the newest line's output counts.
    split = [assistant("msg_new", inp=3, create=2_000, read=118_000, out=n) for n in (1, 4, 6)]
    write(jsonl, [old, user("next"), *split, user("a prompt that mentions usage")])
    reading = read_fill(jsonl)
    assert reading.tokens == 120_009
    assert reading.message_id == "msg_new"
    assert reading.fill == 0.67


def test_missing_usage_fields_count_as_zero(jsonl: Path) -> None:
    write(jsonl, [assistant("msg_a", inp=7, create=None, read=None)])
    assert read_fill(jsonl).tokens == 7
    write(jsonl, [assistant("msg_b", inp=None, create=None, read=90_000)])
    assert read_fill(jsonl).tokens == 90_000


def test_sidechain_replies_are_ignored(jsonl: Path) -> None:
    main = assistant("msg_main", inp=5, create=0, read=60_000, sidechain=None)  # no isSidechain key: main chain
    agent = assistant("msg_agent", inp=5, create=0, read=5_000, sidechain=True)
    write(jsonl, [main, agent, agent])
    reading = read_fill(jsonl)
    assert reading.tokens == 60_005
    assert reading.message_id == "msg_main"


def test_api_error_and_synthetic_replies_are_skipped(jsonl: Path) -> None:
    real = assistant("msg_real", inp=1, create=500, read=70_000)
    failed = assistant("msg_err", model="<synthetic>", error=True, text="API Error: 529 overloaded")
    placeholder = assistant("msg_syn", model="<synthetic>", text="No response requested.")
    write(jsonl, [real, failed, placeholder])
    reading = read_fill(jsonl)
    assert reading.tokens == 70_501
    assert reading.message_id == "msg_real"
    assert reading.model == "claude-opus-4-7"


def test_only_all_zero_usage_is_skipped_on_error_lines(jsonl: Path) -> None:
    real = assistant("msg_real", inp=1, create=0, read=40_000)
    write(jsonl, [real, assistant("msg_err", inp=9, create=9, read=9, error=True)])
    assert read_fill(jsonl).tokens == 27  # an error reply that reports a real figure still counts


def test_compact_boundary_with_post_tokens_replaces_the_old_figure(jsonl: Path) -> None:
    write(jsonl, [assistant("msg_pre", inp=2, create=0, read=167_000), REAL_BOUNDARY_LINE, summary_line()])
    reading = read_fill(jsonl)
    assert reading.tokens == 1682
    assert reading.source == "compact_boundary"
    assert reading.fill == 0.01
    assert reading.message_id is None
    assert reading.model is None  # nothing newer than the boundary says which model


def test_compact_boundary_without_post_tokens_makes_the_fill_unknown(jsonl: Path) -> None:
    write(jsonl, [assistant("msg_pre", inp=2, create=0, read=167_000), boundary(), summary_line(), user("go on")])
    reading = read_fill(jsonl)
    assert reading.tokens is None
    assert reading.fill is None
    assert reading.source == "unknown"
    assert "compaction" in reading.reason
    assert reading.window == 200_000


def test_a_reply_after_the_boundary_is_the_figure_again(jsonl: Path) -> None:
    pre = assistant("msg_pre", inp=2, create=0, read=167_000)
    post = assistant("msg_post", inp=4, create=3_000, read=20_000)
    write(jsonl, [pre, boundary(post=9_000), summary_line(), user("go on"), post])
    reading = read_fill(jsonl)
    assert (reading.tokens, reading.source, reading.message_id) == (23_004, "transcript", "msg_post")


def test_microcompact_and_sidechain_boundaries_are_ignored(jsonl: Path) -> None:
    real = assistant("msg_real", inp=3, create=0, read=130_000)
    write(jsonl, [real, boundary(subtype="microcompact_boundary"), boundary(post=5, sidechain=True)])
    reading = read_fill(jsonl)
    assert (reading.tokens, reading.source) == (130_003, "transcript")


def test_snake_case_compact_metadata_is_understood(jsonl: Path) -> None:
    line = {"type": "system", "subtype": "compact_boundary", "compact_metadata": {"preTokens": 9, "postTokens": 4321}}
    write(jsonl, [assistant("msg", inp=1, create=0, read=100_000), line])
    assert (read_fill(jsonl).tokens, read_fill(jsonl).source) == (4321, "compact_boundary")


# --------------------------------------------------------------------------- damaged transcripts


def test_truncated_last_line_is_skipped(jsonl: Path) -> None:
    whole = assistant("msg_whole", inp=1, create=0, read=80_000)
    half = json.dumps(assistant("msg_half", inp=1, create=0, read=99_999))[:150]
    write(jsonl, [whole, half], final_newline=False)
    reading = read_fill(jsonl)
    assert (reading.tokens, reading.message_id) == (80_001, "msg_whole")


def test_complete_last_line_without_newline_counts(jsonl: Path) -> None:
    write(
        jsonl,
        [assistant("msg_a", inp=1, create=0, read=1), assistant("msg_b", inp=1, create=0, read=2)],
        final_newline=False,
    )
    assert read_fill(jsonl).message_id == "msg_b"


def test_binary_junk_and_malformed_lines_are_tolerated(jsonl: Path) -> None:
    real = assistant("msg_real", inp=1, create=10, read=100_000)
    junk: list[Line] = [
        bytes(range(256)),
        b"\x00" * 5_000,
        b'{"usage": {"input_tokens": "lots"}, "type": "assistant"',  # cut JSON that passes the cheap filter
        b'{"type":"assistant","message":{"usage":{"input_tokens":5}}',  # ditto
        b'["usage"]',
        b'{"type":"assistant","isSidechain":false,"message":"usage"}',
        b'{"type":"assistant","message":{"id":"m","usage":"none"}}',
        b'{"type":"assistant","message":{"id":"m","model":"x","usage":{"input_tokens":true}}}',
        b"[" * 100_000 + b'"usage"',  # deep nesting must not crash the parser
        b"",
        b"\r",
    ]
    write(jsonl, [real, *junk])
    reading = read_fill(jsonl)
    assert (reading.tokens, reading.message_id) == (100_011, "msg_real")


def test_invalid_utf8_in_the_usage_line_is_replaced_not_fatal(jsonl: Path) -> None:
    line = encode([assistant("msg_bad", inp=1, create=2, read=3, text="caf\u00e9 PLACEHOLDER")], final_newline=False)
    line = line.replace(b"PLACEHOLDER", b"\xff\xfe\xc3")
    write(jsonl, [line, b"\xc3\x28 stray invalid bytes \xa0\xa1"])
    reading = read_fill(jsonl)
    assert (reading.tokens, reading.message_id) == (6, "msg_bad")


def test_line_longer_than_the_cap_is_skipped_without_parsing_or_keeping_it(
    jsonl: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = encode([assistant("msg_real", inp=1, create=0, read=90_000)])
    with jsonl.open("wb") as handle:
        handle.write(real)
        # A 50 MB line (sparse: the middle is a hole of NUL bytes) that passes the cheap filter.
        handle.write(b'{"type":"assistant","message":{"usage":{"input_tokens":1},"content":"')
        handle.truncate(handle.tell() + 50 * MIB)
        handle.seek(0, os.SEEK_END)
        handle.write(b'"}}\n')
        handle.write(encode([user("after the big line")]))
    parsed: list[int] = []
    real_parse = transcript._parse
    monkeypatch.setattr(transcript, "_parse", lambda line: parsed.append(len(line)) or real_parse(line))
    tracemalloc.start()
    try:
        reading = read_fill(jsonl, max_scan_bytes=64 * MIB)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert (reading.tokens, reading.message_id) == (90_001, "msg_real")
    assert "1 line(s) over 2 MiB skipped unread" in reading.reason
    assert max(parsed) < MAX_LINE_BYTES
    assert peak < 2 * MAX_LINE_BYTES  # the 50 MB line was never held in memory


def test_fifty_megabytes_after_the_last_usage_stops_at_the_scan_limit(jsonl: Path) -> None:
    with jsonl.open("wb") as handle:
        handle.write(encode([assistant("msg_old", inp=1, create=0, read=90_000)]))
        handle.truncate(handle.tell() + 50 * MIB)  # one 50 MB line of NUL bytes
        handle.seek(0, os.SEEK_END)
        handle.write(b"\n" + encode([user("hello")] * 3))
    reading = read_fill(jsonl)
    assert reading.tokens is None
    assert reading.fill is None
    assert reading.source == "unknown"
    assert "last 8 MiB" in reading.reason
    assert reading.bytes_scanned == MAX_SCAN_BYTES
    assert reading.transcript_size == jsonl.stat().st_size


def test_many_non_usage_lines_after_the_last_usage_stop_at_the_scan_limit(jsonl: Path) -> None:
    filler = encode([user("x" * 1000)] * 12_000)  # about 12 MB of prompts, no usage
    jsonl.write_bytes(encode([assistant("msg_old", inp=1, create=0, read=1)]) + filler)
    reading = read_fill(jsonl)
    assert (reading.tokens, reading.source) == (None, "unknown")
    assert reading.bytes_scanned == MAX_SCAN_BYTES
    found = read_fill(jsonl, max_scan_bytes=16 * MIB)
    assert (found.tokens, found.message_id) == (2, "msg_old")


# --------------------------------------------------------------------------- files that cannot be read


def test_missing_file_is_unknown_with_a_reason(tmp_path: Path) -> None:
    reading = read_fill(tmp_path / "nope.jsonl")
    assert (reading.tokens, reading.fill, reading.source) == (None, None, "unknown")
    assert "does not exist" in reading.reason
    assert (reading.transcript_size, reading.bytes_scanned) == (0, 0)


@pytest.mark.parametrize("path", [None, ""])
def test_no_path_is_unknown(path: str | None) -> None:
    reading = read_fill(path)
    assert (reading.source, reading.reason) == ("unknown", "no transcript path was given")


def test_directory_empty_file_and_nul_in_path_are_unknown(tmp_path: Path) -> None:
    assert "not a regular file" in read_fill(tmp_path).reason
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    assert read_fill(empty).reason == "the transcript is empty"
    assert read_fill(str(tmp_path / "a\0b")).source == "unknown"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX only")
def test_named_pipe_does_not_block(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    assert "not a regular file" in read_fill(fifo).reason
    assert compaction_alert_delivered(fifo, MARKER) is None


def test_unreadable_file_is_unknown(jsonl: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(jsonl, [assistant("m", inp=1)])

    def denied(path: str) -> tuple[BinaryIO, int]:
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(transcript, "_open_regular", denied)
    reading = read_fill(jsonl)
    assert reading.source == "unknown"
    assert reading.reason == f"cannot read transcript {jsonl}: Permission denied"
    assert compaction_alert_delivered(jsonl, MARKER) is None


def test_file_shrinking_while_read_is_unknown(jsonl: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(jsonl, [assistant("m", inp=1, create=0, read=5)])
    real_open = transcript._open_regular

    def stale_size(path: str) -> tuple[BinaryIO, int]:
        handle, size = real_open(path)
        return handle, size + 100  # as if the file had been cut after fstat

    monkeypatch.setattr(transcript, "_open_regular", stale_size)
    reading = read_fill(jsonl)
    assert reading.source == "unknown"
    assert "changed while it was being read" in reading.reason


# --------------------------------------------------------------------------- the window


def test_window_from_config_wins(jsonl: Path) -> None:
    write(jsonl, [assistant("m", inp=0, create=0, read=100_000, model="claude-opus-4-7[1m]")])
    reading = read_fill(jsonl, window=400_000, model="opus[1m]")
    assert (reading.window, reading.window_source, reading.fill) == (400_000, "config", 0.26)  # of 380,000


def test_one_million_window_from_the_model_hint_or_the_transcript(jsonl: Path) -> None:
    write(jsonl, [assistant("m", inp=0, create=0, read=150_000)])
    hinted = read_fill(jsonl, model="claude-opus-4-7[1m]")
    assert (hinted.window, hinted.window_source, hinted.fill) == (EXTENDED_WINDOW, "model", 0.15)
    assert read_fill(jsonl, model="claude-opus-4-7").window == DEFAULT_WINDOW
    write(jsonl, [assistant("m", inp=0, create=0, read=150_000, model="claude-sonnet-5[1M]")])
    assert read_fill(jsonl).window == EXTENDED_WINDOW


def test_more_tokens_than_the_default_window_means_the_one_million_window(jsonl: Path) -> None:
    write(jsonl, [assistant("m", inp=1, create=0, read=250_000)])
    reading = read_fill(jsonl)
    assert (reading.window, reading.window_source, reading.fill) == (EXTENDED_WINDOW, "usage", 0.26)  # of 980,000


def test_pre_compaction_tokens_hint_at_the_window(jsonl: Path) -> None:
    write(jsonl, [boundary(pre=600_000)])
    assert read_fill(jsonl).window == EXTENDED_WINDOW
    write(jsonl, [boundary(pre=600_000, post=30_000)])
    reading = read_fill(jsonl)
    assert (reading.tokens, reading.window, reading.fill) == (30_000, EXTENDED_WINDOW, 0.03)


def test_fill_above_a_configured_window_is_capped_and_explained(jsonl: Path) -> None:
    write(jsonl, [assistant("m", inp=1, create=0, read=250_000)])
    reading = read_fill(jsonl, window=200_000)
    assert (reading.tokens, reading.fill) == (250_001, 1.0)
    assert "exceed the 200,000-token window" in reading.reason


@pytest.mark.parametrize("bad", [0, -5, True])
def test_a_non_positive_window_is_a_programming_error(jsonl: Path, bad: int) -> None:
    with pytest.raises(ValueError, match="positive number of tokens"):
        read_fill(jsonl, window=bad)


def test_context_window_rules() -> None:
    assert context_window() == (200_000, "default")
    assert context_window(model="opus[1m]") == (1_000_000, "model")
    assert context_window(tokens=200_000) == (200_000, "default")
    assert context_window(tokens=200_001) == (1_000_000, "usage")
    assert context_window(window=123, model="opus[1m]", tokens=10**7) == (123, "config")


# --------------------------------------------------------------------------- bounded cost


class CountingHandle:
    """A file handle that counts the bytes its reads return."""

    def __init__(self, inner: BinaryIO) -> None:
        self.inner = inner
        self.bytes_read = 0
        self.largest_read = 0

    def seek(self, offset: int, whence: int = 0) -> int:
        return self.inner.seek(offset, whence)

    def read(self, size: int = -1) -> bytes:
        data = self.inner.read(size)
        self.bytes_read += len(data)
        self.largest_read = max(self.largest_read, len(data))
        return data

    def __enter__(self) -> CountingHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.inner.close()


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[CountingHandle]:
    handles: list[CountingHandle] = []
    real_open = transcript._open_regular

    def counting_open(path: str) -> tuple[CountingHandle, int]:
        handle, size = real_open(path)
        handles.append(CountingHandle(handle))
        return handles[-1], size

    monkeypatch.setattr(transcript, "_open_regular", counting_open)
    return handles


def sparse(path: Path, size: int, tail: bytes) -> Path:
    """A file of ``size`` bytes: a hole (NUL bytes, no disk used) and then ``tail``."""
    with path.open("wb") as handle:
        handle.truncate(size - len(tail))
        handle.seek(0, os.SEEK_END)
        handle.write(tail)
    return path


TAIL = b"\n" + encode(
    [user("x" * 500), assistant("msg_tail", inp=3, create=1_000, read=129_000), user("next prompt")] * 20
)


def test_a_200_mb_transcript_is_read_from_its_end_only(tmp_path: Path, counted: list[CountingHandle]) -> None:
    path = sparse(tmp_path / "big.jsonl", 200 * MIB, TAIL)
    reading = read_fill(path)
    assert (reading.tokens, reading.message_id) == (130_003, "msg_tail")
    assert reading.transcript_size == 200 * MIB
    assert counted[0].bytes_read == reading.bytes_scanned <= BLOCK_BYTES
    assert counted[0].largest_read <= BLOCK_BYTES


def test_bytes_read_are_the_same_for_1_mb_and_1_gb(tmp_path: Path, counted: list[CountingHandle]) -> None:
    small = read_fill(sparse(tmp_path / "small.jsonl", MIB, TAIL))
    large = read_fill(sparse(tmp_path / "large.jsonl", 1024 * MIB, TAIL))
    assert small.tokens == large.tokens == 130_003
    assert small.bytes_scanned == large.bytes_scanned == counted[0].bytes_read == counted[1].bytes_read


def test_a_200_mb_transcript_without_usage_reads_exactly_the_scan_limit(
    tmp_path: Path, counted: list[CountingHandle]
) -> None:
    path = sparse(tmp_path / "big.jsonl", 200 * MIB, b"\n" + encode([user("no reply yet")] * 100))
    reading = read_fill(path)
    assert reading.source == "unknown"
    assert counted[0].bytes_read == reading.bytes_scanned == MAX_SCAN_BYTES
    assert compaction_alert_delivered(path, MARKER) is None
    assert counted[1].bytes_read == MAX_SCAN_BYTES
    assert read_fill(path, max_scan_bytes=100_000).bytes_scanned == counted[2].bytes_read == 100_000


# --------------------------------------------------------------------------- compaction alert delivery


def test_alert_delivery_is_none_without_a_compaction(jsonl: Path) -> None:
    write(jsonl, [assistant("m", inp=1), additional_context([MARKER])])
    assert compaction_alert_delivered(jsonl, MARKER) is None


def test_alert_delivered_in_additional_context_after_the_boundary(jsonl: Path) -> None:
    context = additional_context(["<project-memory-context>x</project-memory-context>", f"{MARKER} COMPACTION EVENT"])
    write(jsonl, [assistant("m", inp=1), boundary(), summary_line(), context, user("go on")])
    assert compaction_alert_delivered(jsonl, MARKER) is True


def test_alert_delivered_as_plain_string_content_or_hook_stdout(jsonl: Path) -> None:
    write(jsonl, [boundary(), additional_context(f"text {MARKER} text")])
    assert compaction_alert_delivered(jsonl, MARKER) is True
    write(jsonl, [boundary(), hook_success(f"{MARKER}\nCOMPACTION EVENT: 1 of 1")])
    assert compaction_alert_delivered(jsonl, MARKER) is True


def test_alert_missing_after_the_boundary(jsonl: Path) -> None:
    write(jsonl, [boundary(), summary_line(), additional_context(["other context"]), user(MARKER)])
    assert compaction_alert_delivered(jsonl, MARKER) is False


def test_alert_before_the_newest_boundary_does_not_count(jsonl: Path) -> None:
    write(jsonl, [boundary(), additional_context([MARKER]), user("work"), REAL_BOUNDARY_LINE, summary_line()])
    assert compaction_alert_delivered(jsonl, MARKER) is False


def test_alert_delivery_ignores_sidechains_and_microcompaction(jsonl: Path) -> None:
    write(jsonl, [boundary(), additional_context([MARKER], sidechain=True)])
    assert compaction_alert_delivered(jsonl, MARKER) is False
    write(jsonl, [boundary(), additional_context([MARKER]), boundary(subtype="microcompact_boundary")])
    assert compaction_alert_delivered(jsonl, MARKER) is True
    write(jsonl, [boundary(), additional_context([MARKER]), boundary(sidechain=True)])
    assert compaction_alert_delivered(jsonl, MARKER) is True


def test_alert_delivery_with_a_marker_that_json_escapes(jsonl: Path) -> None:
    marker = 'alert "é"\n'
    write(jsonl, [boundary(), additional_context([f"x{marker}y"])])
    assert compaction_alert_delivered(jsonl, marker) is True


def test_alert_delivery_when_the_writer_escapes_punctuation(jsonl: Path) -> None:
    escaped = json.dumps(additional_context([MARKER])).replace("<", "\\u003c").replace(">", "\\u003e")
    assert MARKER not in escaped
    write(jsonl, [boundary(), escaped])
    assert compaction_alert_delivered(jsonl, MARKER) is True


def test_alert_delivery_with_a_short_marker(jsonl: Path) -> None:
    write(jsonl, [boundary(), hook_success("<ok>")])
    assert compaction_alert_delivered(jsonl, "<ok>") is True
    assert compaction_alert_delivered(jsonl, "<no>") is False


def test_alert_delivery_parses_only_lines_that_may_carry_the_marker(
    jsonl: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    parsed: list[bytes] = []
    real_parse = transcript._parse
    monkeypatch.setattr(transcript, "_parse", lambda line: parsed.append(line) or real_parse(line))
    others = [additional_context([f"<context-monitor>fill {n}%</context-monitor>"]) for n in range(200)]
    write(jsonl, [boundary(), additional_context([MARKER]), *others, user("go on")])
    assert compaction_alert_delivered(jsonl, MARKER) is True
    assert len(parsed) == 2  # the marker line and the boundary


def test_alert_delivery_unreadable_or_beyond_the_scan_limit(jsonl: Path) -> None:
    assert compaction_alert_delivered(jsonl, MARKER) is None  # missing
    assert compaction_alert_delivered(None, MARKER) is None
    write(jsonl, [boundary(), additional_context([MARKER]), *[user("y" * 1000)] * 200])
    assert compaction_alert_delivered(jsonl, MARKER) is True
    assert compaction_alert_delivered(jsonl, MARKER, max_scan_bytes=50_000) is None


# --------------------------------------------------------------------------- the backwards line reader


def lines_backwards(
    data: bytes, *, block: int, max_line: int, budget: int = 10**9, tags: tuple[bytes, ...] = ()
) -> tuple[list[bytes], int]:
    tail = transcript._Tail(io.BytesIO(data), len(data), budget=budget, max_line=max_line, tags=tags, block=block)
    return list(tail.lines()), tail.skipped


LINE = st.one_of(
    st.binary(max_size=40).map(lambda b: b.replace(b"\n", b"")),
    st.text(alphabet="abx", max_size=40).map(str.encode),
)
READER = {
    "lines": st.lists(LINE, max_size=30),
    "trailing": st.booleans(),
    "block": st.integers(min_value=1, max_value=64),
    "max_line": st.integers(min_value=1, max_value=50),
}


def _join(lines: list[bytes], trailing: bool) -> bytes:
    return b"\n".join(lines) + (b"\n" if trailing and lines else b"")


@settings(max_examples=400, deadline=None)
@given(**READER)
def test_backwards_reader_matches_split(lines: list[bytes], trailing: bool, block: int, max_line: int) -> None:
    data = _join(lines, trailing)
    got, skipped = lines_backwards(data, block=block, max_line=max_line)
    every = [line for line in reversed(data.split(b"\n")) if line]
    assert got == [line for line in every if len(line) <= max_line]
    assert skipped == sum(1 for line in every if len(line) > max_line)


@settings(max_examples=400, deadline=None)
@given(**READER, tags=st.lists(st.sampled_from([b"ab", b"ba", b"xa", b"b"]), min_size=1, max_size=2, unique=True))
def test_backwards_reader_with_tags_yields_exactly_the_tagged_lines(
    lines: list[bytes], trailing: bool, block: int, max_line: int, tags: list[bytes]
) -> None:
    data = _join(lines, trailing)
    got, _ = lines_backwards(data, block=block, max_line=max_line, tags=tuple(tags))
    every = [line for line in reversed(data.split(b"\n")) if line]
    assert got == [line for line in every if len(line) <= max_line and any(tag in line for tag in tags)]


def test_backwards_reader_stops_at_the_budget_without_a_partial_line() -> None:
    data = b"aaaa\nbbbb\ncccc\n"
    got, _ = lines_backwards(data, block=3, max_line=100, budget=8)
    assert got == [b"cccc"]  # b"bbb" was read but is not a whole line


# --------------------------------------------------------------------------- the module itself


def test_reading_is_a_value() -> None:
    one = FillReading(tokens=1, window=2, fill=0.5, source="transcript", reason="r")
    assert one == FillReading(tokens=1, window=2, fill=0.5, source="transcript", reason="r")
    assert one != FillReading(tokens=1, window=2, fill=0.5, source="transcript", reason="other")
    assert "tokens=1" in repr(one)
    assert len({one, FillReading(tokens=1, window=2, fill=0.5, source="transcript", reason="r")}) == 1


def test_import_pulls_in_only_json() -> None:
    # json (and enum, which json's decoder pulls in through re) is what the hooks load anyway; the
    # modules themselves must add nothing else (what an interpreter preloads varies with the install);
    # ctxres.filereading is the one "open a regular file" helper (os and stat only).
    code = (
        "import sys, json, enum, ctxres; before = set(sys.modules); import ctxres.transcript, ctxres.tiers; "
        "new = sorted(set(sys.modules) - before); print(' '.join(new))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    new = set(out.split())
    assert new - {"ctxres.transcript", "ctxres.tiers", "ctxres.filereading"} <= {"__future__"}


# ----------------------------------------------------------- what the real client was seen to do


def test_right_after_a_compaction_an_older_reply_says_nothing(jsonl: Path) -> None:
    """SessionStart ``compact`` may run before the client writes the boundary: the reply it finds is
    from before the compaction, so the fill is unknown (and that is normal, not trouble)."""
    write(jsonl, [assistant("msg_pre", inp=2, create=0, read=164_000)])
    early = read_fill(jsonl, compacted=True)
    assert (early.tokens, early.fill, early.source, early.trouble) == (None, None, "unknown", False)
    assert "not in the transcript yet" in early.reason
    write(jsonl, [assistant("msg_pre", inp=2, create=0, read=164_000), REAL_BOUNDARY_LINE, summary_line()])
    assert read_fill(jsonl, compacted=True).tokens == 1682


def test_only_real_problems_are_trouble(jsonl: Path, tmp_path: Path) -> None:
    assert read_fill(tmp_path / "not-yet.jsonl").trouble is False  # a new session's first prompt
    write(jsonl, [user("hello")])
    assert read_fill(jsonl).trouble is False  # no reply yet
    assert read_fill(tmp_path).trouble is True  # a folder: cannot be read
    write(jsonl, [assistant("m", inp=1, read=5)] + [user("x" * 1000)] * 200)
    assert read_fill(jsonl, max_scan_bytes=64 * 1024).trouble is True  # the scan budget ran out


def test_figures_the_client_sends_win(jsonl: Path) -> None:
    assert payload_fill({"source": "startup"}) is None
    resumed = payload_fill({"context_tokens": 150_000, "seconds_since_last_response": 12})
    assert resumed is not None
    assert (resumed.tokens, resumed.fill, resumed.window, resumed.source) == (150_000, 0.83, 200_000, "client")
    extended = payload_fill({"context_tokens": 150_000, "model": "claude-opus-4-7[1m]"})
    assert extended is not None and (extended.window, extended.fill) == (EXTENDED_WINDOW, 0.15)
