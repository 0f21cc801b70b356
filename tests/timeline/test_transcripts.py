"""The transcript reader on the real client's transcripts (fixtures/replay), and on bad input."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from ctxres.linters.timeline import transcripts
from ctxres.linters.timeline.transcripts import (
    EMPTY,
    INVALID,
    NO_USAGE,
    TOO_LONG,
    TRUNCATED,
    UNKNOWN_TYPES,
    TranscriptError,
    read_session,
)
from ctxres.tiers import fill_of
from ctxres.transcript import context_tokens

REPLAY = Path(__file__).resolve().parents[2] / "fixtures" / "replay"
CASES = ("a-feat015-single-session", "d-two-compactions-before-ack", "e-corrupted-checkpoint")


def transcript_of(case: str) -> Path:
    (path,) = (REPLAY / case / "transcripts").glob("*.jsonl")
    return path


def entries(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_bytes().splitlines()]


def is_orchestration(path: str) -> bool:
    return path.endswith("/ORCHESTRATION.yaml")


@pytest.mark.parametrize("case", CASES)
def test_turns_are_the_distinct_main_chain_replies_with_their_last_figures(case: str) -> None:
    path = transcript_of(case)
    last: dict[str, int] = {}
    for entry in entries(path):
        message = entry.get("message") or {}
        if entry.get("type") == "assistant" and not entry.get("isSidechain") and context_tokens(message):
            last[message["id"]] = context_tokens(message) or 0
    record = read_session(path)
    assert [turn.number for turn in record.turns] == list(range(1, len(last) + 1))
    assert [turn.tokens for turn in record.turns] == list(last.values())
    assert all(turn.fill == fill_of(turn.tokens, turn.window) for turn in record.turns)
    assert record.skipped == []


@pytest.mark.parametrize("case", CASES)
def test_compactions_are_the_compact_boundary_records(case: str) -> None:
    path = transcript_of(case)
    boundaries = [e["compactMetadata"] for e in entries(path) if e.get("subtype") == "compact_boundary"]
    record = read_session(path)
    assert [(c.trigger, c.pre_tokens, c.post_tokens, c.duration_ms) for c in record.compactions] == [
        (m["trigger"], m["preTokens"], m["postTokens"], m["durationMs"]) for m in boundaries
    ]
    assert boundaries


def test_a_two_compactions_after_turns_16_and_31_and_what_session_start_said() -> None:
    record = read_session(transcript_of("a-feat015-single-session"))
    assert record.session_id == "68981b26-35a0-40c8-9961-9e2d38a48024"
    assert record.how == "startup"
    assert [(c.turn, c.trigger) for c in record.compactions] == [(16, "auto"), (31, "manual")]
    assert [(r.turn, r.source, r.told_phase, r.checkpoint) for r in record.resumptions] == [
        (0, "startup", "Phase 1 (Dependency Audit)", None),
        (16, "compact", "Phase 2 (Core License Changes)", "cx-001"),
        (17, "resume", "Phase 2 (Core License Changes)", None),
        (31, "compact", "Phase 4 (CI Validation)", "cx-002"),
        (31, "resume", "Phase 4 (CI Validation)", None),
    ]
    assert all(r.file_phase is None and r.matches is None for r in record.resumptions)
    assert record.first_time is not None and record.last_time is not None
    assert record.first_time.isoformat() == "2026-02-17T09:00:02.608000+00:00"
    assert record.last_time > record.compactions[-1].time  # type: ignore[operator]


@pytest.mark.parametrize("case", CASES)
def test_versions_of_the_workflow_file_are_the_texts_after_each_edit(case: str) -> None:
    path = transcript_of(case)
    edits = [e["toolUseResult"] for e in entries(path) if isinstance(e.get("toolUseResult"), dict)]
    edits = [r for r in edits if "originalFile" in r and is_orchestration(r["filePath"])]
    record = read_session(path, is_orchestration, hints=["ORCHESTRATION"])
    edited = [v for v in record.versions if v.source == "edit"]
    assert len(edited) == len(edits) > 0
    for version, edit in zip(edited, edits, strict=True):
        assert version.text == edit["originalFile"].replace(edit["oldString"], edit["newString"], 1)
        assert version.text != edit["originalFile"]
    # before the first compaction (then `ctxres ack` changes the file), a Read shows the file as the edit left it
    seen = [v for v in record.versions if v.turn is not None and v.turn <= record.compactions[0].turn]
    assert len(seen) >= 4
    for before, after in itertools.pairwise(seen):
        if before.source == "edit" and after.source == "read":
            assert after.text == before.text
    assert {v.path for v in record.versions} == {edits[0]["filePath"]}
    assert all(v.turn is not None and v.turn >= 1 for v in record.versions)


def test_without_hints_the_same_versions_and_a_rejecting_predicate_none() -> None:
    path = transcript_of("a-feat015-single-session")
    hinted = read_session(path, is_orchestration, hints=["ORCHESTRATION"]).versions
    assert read_session(path, is_orchestration).versions == hinted
    assert read_session(path).versions == []


def write(tmp_path: Path, *lines: bytes) -> Path:
    path = tmp_path / "0001.jsonl"
    path.write_bytes(b"".join(lines))
    return path


def reply(ident: str, tokens: int, *, model: str = "claude-opus-5-5") -> bytes:
    entry = {
        "type": "assistant",
        "sessionId": "s-1",
        "timestamp": "2026-02-17T09:00:00Z",
        "message": {"id": ident, "model": model, "usage": {"input_tokens": tokens, "output_tokens": 0}},
    }
    return json.dumps(entry, separators=(",", ":")).encode() + b"\n"


def reasons(path: Path) -> dict[str, int]:
    return {s.reason: s.count for s in read_session(path).skipped}


def test_a_truncated_last_line_is_skipped_and_said(tmp_path: Path) -> None:
    path = write(tmp_path, reply("m1", 1000), reply("m2", 2000)[:-30])
    record = read_session(path)
    assert [t.tokens for t in record.turns] == [1000]
    assert reasons(path) == {TRUNCATED: 1}


def test_unknown_entry_types_are_counted_never_an_error(tmp_path: Path) -> None:
    path = write(tmp_path, b'{"type":"hologram","x":1}\n', reply("m1", 10), b'{"type":"hologram"}\n{"type":"z"}\n')
    assert [t.tokens for t in read_session(path).turns] == [10]
    assert reasons(path) == {f"{UNKNOWN_TYPES}: hologram, z": 3}


def test_binary_junk_lines_are_counted_as_invalid(tmp_path: Path) -> None:
    path = write(tmp_path, b"\x00\xff\xfe junk\n", reply("m1", 10), b'{"type":"assistant", broken\n', b"[1]\n")
    assert [t.tokens for t in read_session(path).turns] == [10]
    assert reasons(path) == {INVALID: 3}


def test_replies_without_usage_are_said_and_synthetic_ones_left_out(tmp_path: Path) -> None:
    no_usage = b'{"type":"assistant","message":{"id":"m9","model":"claude-opus-5-5"}}\n'
    path = write(tmp_path, no_usage, reply("m2", 0, model="<synthetic>"), reply("m3", 50, model="<synthetic>"))
    record = read_session(path)
    assert record.turns == []
    assert reasons(path) == {NO_USAGE: 1}


def test_several_lines_of_one_reply_are_one_turn_with_the_last_figures(tmp_path: Path) -> None:
    path = write(tmp_path, reply("m1", 100), reply("m1", 150), reply("m2", 300))
    record = read_session(path)
    assert [(t.number, t.tokens, t.session_id) for t in record.turns] == [(1, 150, "s-1"), (2, 300, "s-1")]


def test_an_empty_file_says_so(tmp_path: Path) -> None:
    path = write(tmp_path)
    record = read_session(path)
    assert (record.turns, record.first_time, record.last_time) == ([], None, None)
    assert reasons(path) == {EMPTY: 1}


def test_a_missing_file_is_a_one_line_error(tmp_path: Path) -> None:
    with pytest.raises(TranscriptError, match=r"^cannot read the transcript .*nope\.jsonl: No such file") as info:
        read_session(tmp_path / "nope.jsonl")
    assert "\n" not in str(info.value)


def test_a_line_over_the_cap_is_skipped_unparsed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(transcripts, "MAX_LINE_BYTES", 64)
    long_line = b'{"type":"assistant","pad":"' + b"x" * 200 + b'"}\n'
    path = write(tmp_path, long_line, b'{"type":"mode"}\n')
    assert reasons(path) == {TOO_LONG: 1}
