"""Fuzz target 2: transcripts, as read by the hooks (``ctxres.transcript``).

Generated transcripts mix valid JSONL lines (model replies with and without usage, usage fields of
the wrong type, compaction boundaries with and without ``postTokens``, hook attachments, side-chain
lines) with binary junk, invalid UTF-8, overlong lines and a truncated last line.

Properties:

* ``read_fill`` never raises; ``tokens`` is None or an int >= 0, ``fill`` None or in [0, 1], both
  None together, and ``tokens`` equals what a forward re-statement of the rule gives: the newest
  parseable main-chain line that is a compaction boundary (its ``postTokens``) or a model reply with
  a positive usage total (that total).
* ``compaction_alert_delivered`` never raises and agrees with the same re-statement of its rule.
* The backwards reader (``_Tail``) with tiny blocks, budgets and line limits yields exactly the lines
  a forward split gives: the wanted lines, newest first, within the budget, overlong ones skipped.

Plus one deterministic case: a 50 MB line before and after the newest usage line.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from fuzzkit import fuzz_target, hang_guard
from hypothesis import given
from hypothesis import strategies as st

from ctxres import transcript
from ctxres.transcript import MAX_SCAN_BYTES, compaction_alert_delivered, read_fill

MARKER = "<compaction-alert>"
USAGE_FIELDS = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
COUNTS = st.one_of(
    st.integers(0, 300_000),
    st.integers(0, 300_000),
    st.just(0),
    st.integers(-5, -1),
    st.booleans(),
    st.none(),
    st.floats(0, 1e6),
    st.text(max_size=5),
    st.integers(10**18, 10**30),
)


# --------------------------------------------------------------------------- generated lines


@st.composite
def usage(draw: st.DrawFn) -> Any:
    if draw(st.integers(0, 9)) == 0:
        return draw(st.sampled_from([None, [], "many", 5]))
    value = {name: draw(COUNTS) for name in USAGE_FIELDS if draw(st.integers(0, 5))}
    value["output_tokens"] = draw(st.integers(0, 1000))
    return value


@st.composite
def entry(draw: st.DrawFn) -> dict[str, Any]:
    """One JSON line of a transcript."""
    kind = draw(st.integers(0, 6))
    side = draw(st.sampled_from([False, False, False, True, None, "yes"]))
    if kind <= 2:
        message: dict[str, Any] = {
            "id": draw(st.sampled_from(["msg_01", "msg_02", None, 7])),
            "model": draw(st.sampled_from(["claude-opus-4-7", "opus[1m]", "<synthetic>", None, 3])),
        }
        if kind > 0:
            message["usage"] = draw(usage())
        line: dict[str, Any] = {"type": draw(st.sampled_from(["assistant", "assistant", "user"])), "message": message}
        if draw(st.integers(0, 9)) == 0:
            line["message"] = draw(st.sampled_from([None, "text", []]))
    elif kind == 3:
        meta: Any = {"trigger": "auto", "preTokens": draw(COUNTS)}
        if draw(st.booleans()):
            meta["postTokens"] = draw(COUNTS)
        if draw(st.integers(0, 9)) == 0:
            meta = draw(st.sampled_from([None, "x", []]))
        line = {"type": "system", "subtype": draw(st.sampled_from(["compact_boundary", "other"]))}
        if draw(st.integers(0, 5)):
            line[draw(st.sampled_from(["compactMetadata", "compact_metadata"]))] = meta
    elif kind == 4:
        texts = draw(st.lists(st.sampled_from([f"{MARKER} cx-001", "other text", 5, None]), max_size=3))
        attachment: dict[str, Any] = {"type": draw(st.sampled_from(["hook_additional_context", "hook_success"]))}
        attachment["content" if attachment["type"] == "hook_additional_context" else "stdout"] = draw(
            st.sampled_from([texts, texts[0] if texts else None, f"{MARKER} x"])
        )
        line = {"type": "attachment", "attachment": attachment}
    elif kind == 5:
        line = {"type": "user", "message": {"content": draw(st.text(max_size=40)) + ' "usage" compact_boundary'}}
    else:
        line = {"type": "summary", "usage": {"input_tokens": 5}, "attachment": MARKER}
    if side is not None:
        line["isSidechain"] = side
    return line


@st.composite
def raw_line(draw: st.DrawFn) -> tuple[bytes, dict[str, Any] | None]:
    """(the bytes of one line without its newline, the object it parses to or None)."""
    kind = draw(st.integers(0, 9))
    if kind == 0:
        junk = draw(st.binary(max_size=80).filter(lambda b: b"\n" not in b))
        return junk, _parsed(junk)
    if kind == 1:
        value = draw(entry())
        text = json.dumps(value).encode()
        cut = text[: draw(st.integers(0, len(text)))]
        return cut, _parsed(cut)
    if kind == 2:
        size = draw(st.integers(100, 3000))
        text = json.dumps({"type": "user", "message": {"content": "x" * size}, "usage": 1}).encode()
        return text, _parsed(text)
    value = draw(entry())
    text = json.dumps(value, ensure_ascii=draw(st.booleans())).encode()
    if kind == 3:
        text = text.replace(b"o", b"\xff", 1)  # invalid UTF-8 inside a string or a key
    return text, _parsed(text)


def _parsed(line: bytes) -> dict[str, Any] | None:
    try:
        value = json.loads(line.decode("utf-8", "replace"))
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


# --------------------------------------------------------------------------- the rule, restated


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _main(entry: dict[str, Any]) -> bool:
    return entry.get("isSidechain") is not True


def _boundary(entry: dict[str, Any]) -> dict[str, Any] | None:
    if entry.get("type") != "system" or entry.get("subtype") != "compact_boundary" or not _main(entry):
        return None
    meta = entry.get("compactMetadata", entry.get("compact_metadata"))
    return meta if isinstance(meta, dict) else {}


def expected_tokens(lines: list[tuple[bytes, dict[str, Any] | None]], max_line: int) -> int | None:
    for text, value in reversed(lines):
        if value is None or len(text) > max_line:
            continue
        meta = _boundary(value) if b"compact_boundary" in text else None
        if meta is not None:
            return _count(meta.get("postTokens"))
        message = value.get("message")
        if b'"usage"' not in text or value.get("type") != "assistant" or not _main(value):
            continue
        if not isinstance(message, dict) or not isinstance(message.get("usage"), dict):
            continue
        total = sum(_count(message["usage"].get(name)) or 0 for name in USAGE_FIELDS)
        if total:  # a real request: the client counts the output tokens too
            return total + (_count(message["usage"].get("output_tokens")) or 0)
    return None


def _hook_texts(value: dict[str, Any]) -> list[str]:
    attachment = value.get("attachment")
    if value.get("type") != "attachment" or not isinstance(attachment, dict) or not _main(value):
        return []
    if attachment.get("type") == "hook_additional_context":
        content = attachment.get("content")
        return [t for t in (content if isinstance(content, list) else [content]) if isinstance(t, str)]
    if attachment.get("type") == "hook_success":
        return [attachment["stdout"]] if isinstance(attachment.get("stdout"), str) else []
    return []


def expected_delivery(lines: list[tuple[bytes, dict[str, Any] | None]]) -> bool | None:
    delivered = False
    for text, value in reversed(lines):
        if value is None:
            continue
        if b"compact_boundary" in text and _boundary(value) is not None:
            return delivered
        if any(MARKER in t for t in _hook_texts(value)):
            delivered = True
    return None


# --------------------------------------------------------------------------- targets


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("transcripts")


@fuzz_target()
@given(
    lines=st.lists(raw_line(), max_size=25),
    newline_at_end=st.booleans(),
    max_line=st.sampled_from([transcript.MAX_LINE_BYTES, 2_000, 300]),
)
def test_read_fill_and_alert_delivery(
    folder: Path, lines: list[tuple[bytes, dict[str, Any] | None]], newline_at_end: bool, max_line: int
) -> None:
    path = folder / "session.jsonl"
    data = b"\n".join(text for text, _ in lines) + (b"\n" if newline_at_end and lines else b"")
    path.write_bytes(data)
    with hang_guard():
        reading = read_fill(path, max_line_bytes=max_line)
        delivered = compaction_alert_delivered(path, MARKER, max_line_bytes=max_line)
    assert (reading.tokens is None) == (reading.fill is None)
    if reading.tokens is not None:
        assert isinstance(reading.tokens, int) and not isinstance(reading.tokens, bool)
        assert reading.tokens >= 0
        assert reading.fill is not None and 0.0 <= reading.fill <= 1.0
    assert reading.window > 0
    assert reading.transcript_size == len(data)
    assert 0 <= reading.bytes_scanned <= len(data)
    assert reading.tokens == expected_tokens(lines, max_line)
    long_lines = any(len(text) > max_line for text, _ in lines)
    if not long_lines:  # the delivery scan may stop early; without skipped lines it must agree exactly
        assert delivered == expected_delivery(lines)
    assert delivered in (True, False, None)


@fuzz_target()
@given(
    data=st.binary(max_size=400)
    | st.lists(st.sampled_from([b"a", b"\n", b"usage", b"boundary", b"xx", b"\n\n"]), max_size=80).map(b"".join),
    block=st.integers(1, 64),
    budget=st.integers(1, 500),
    max_line=st.integers(1, 100),
    tags=st.sampled_from([(), (b"usage",), (b"usage", b"boundary"), (b"a",)]),
)
def test_backwards_reader_matches_a_forward_split(
    data: bytes, block: int, budget: int, max_line: int, tags: tuple[bytes, ...]
) -> None:
    reader = transcript._Tail(io.BytesIO(data), len(data), budget=budget, max_line=max_line, tags=tags, block=block)
    with hang_guard():
        got = list(reader.lines())
    # forward: line i starts after the newline that ends line i - 1; it is seen when that newline is
    # within the budget (or it is the first line and the whole file is), complete on both ends
    size, expected, start = len(data), [], 0
    window_start = max(0, size - budget)
    for piece in data.split(b"\n"):
        seen = start - 1 >= window_start if start > 0 else budget >= size
        if seen and piece and len(piece) <= max_line and (not tags or any(tag in piece for tag in tags)):
            expected.append(piece)
        start += len(piece) + 1
    assert got == list(reversed(expected))
    assert reader.scanned <= max(budget, 0)


def test_50_mb_lines_around_the_newest_usage_line(tmp_path: Path) -> None:
    """Before the newest usage line a 50 MB line, after it another: the reader scans 8 MiB from the end,
    all inside the trailing 50 MB line (longer than the 2 MiB line limit, so skipped unread), never
    reaches the usage line, and says so: tokens unknown, bounded work. With the trailing line gone, the
    usage line is the newest and is found across the 50 MB line before it."""
    usage_line = json.dumps(
        {
            "type": "assistant",
            "message": {"id": "msg_9", "model": "claude-opus-4-7", "usage": {"input_tokens": 120_000}},
        }
    ).encode()
    big = b'{"type": "user", "message": {"content": "' + b"x" * (50 * 1024 * 1024) + b'"}}'
    path = tmp_path / "big.jsonl"
    with path.open("wb") as handle:
        handle.write(b'{"type": "user"}\n' + big + b"\n" + usage_line + b"\n" + big + b"\n")
    reading = read_fill(path)
    assert reading.tokens is None and reading.fill is None
    assert reading.source == transcript.SOURCE_UNKNOWN
    assert reading.bytes_scanned == MAX_SCAN_BYTES
    assert "no model reply with token usage in the last 8 MiB" in reading.reason
    assert reading.transcript_size == path.stat().st_size

    with path.open("wb") as handle:
        handle.write(b'{"type": "user"}\n' + big + b"\n" + usage_line + b"\n")
    reading = read_fill(path)
    assert reading.tokens == 120_000
    assert reading.fill == 0.67  # of the 180,000 usable tokens, as the client shows it
    assert reading.bytes_scanned <= transcript.BLOCK_BYTES
    path.unlink()
