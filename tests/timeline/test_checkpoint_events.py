"""The checkpoint folder as timeline events: the checkpoints the real hooks wrote (replay goldens), one that
``ctxres ack`` merged, an earlier release's name, another writer's, another tool's file and broken ones."""

from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path

from ctxres.ack import acknowledge_json
from ctxres.linters.timeline.checkpoint_events import checkpoint_events
from ctxres.linters.timeline.model import CheckpointMerged, CheckpointWritten, Skipped

from ..conftest import FIXTURES
from ..other_writer import written

REPLAY = FIXTURES / "replay"
# What PreCompact wrote in replay d (two automatic compactions before any ack) and replay a (the manual one).
FIRST = REPLAY / "d-two-compactions-before-ack/expected/17-precompact-auto/files/.jerry/checkpoints/cx-001.json"
SECOND = REPLAY / "d-two-compactions-before-ack/expected/23-precompact-auto/files/.jerry/checkpoints/cx-002.json"
MANUAL = REPLAY / "a-feat015-single-session/expected/33-precompact-manual/files/.jerry/checkpoints/cx-002.json"
OLD_NAME = REPLAY / "b-cross-session-resumption/workspace/.jerry/checkpoints/cx-001-checkpoint.json"


def at(stamp: str) -> dt.datetime:
    return dt.datetime.fromisoformat(f"2026-02-17T{stamp}+00:00")


def turn_at(moment: dt.datetime | None) -> int:
    """A turn per minute since 11:00: the tests see which moment a turn was taken from."""
    return -1 if moment is None else int((moment - at("11:00:00")).total_seconds() // 60)


def state_dir(tmp_path: Path) -> Path:
    folder = tmp_path / ".jerry"
    (folder / "checkpoints").mkdir(parents=True)
    return folder


def test_the_hooks_checkpoints_are_written_and_one_merged_by_ack(tmp_path: Path) -> None:
    folder = state_dir(tmp_path)
    checkpoints = folder / "checkpoints"
    merged_text = acknowledge_json(FIRST.read_text("utf-8"), "2026-02-17T12:40:00Z")  # as `ctxres ack` writes it
    (checkpoints / "cx-001.json").write_text(merged_text, "utf-8")
    shutil.copy(SECOND, checkpoints / "cx-002.json")
    # A merge taken back by hand: the time is left, the flag says it is not merged.
    undone = acknowledge_json(SECOND.read_text("utf-8"), "2026-02-17T12:50:00Z").replace(
        '"acknowledged": true', '"acknowledged": false'
    )
    (checkpoints / "cx-003.json").write_text(undone.replace('"cx-002"', '"cx-003"'), "utf-8")

    events, skipped = checkpoint_events(folder, since=None, until=None, turn_at=turn_at)

    first_time = at("11:40:00")  # the `timestamp` PreCompact wrote into cx-001
    assert events == [  # in time order: cx-001 was merged after cx-002 was written
        CheckpointWritten(40, first_time, "cx-001", str(checkpoints / "cx-001.json"), "auto", at("12:40:00")),
        CheckpointWritten(87, at("12:27:00"), "cx-002", str(checkpoints / "cx-002.json"), "auto", None),
        CheckpointWritten(87, at("12:27:00"), "cx-003", str(checkpoints / "cx-003.json"), "auto", None),
        CheckpointMerged(100, at("12:40:00"), "cx-001"),
    ]
    assert skipped == []


def test_an_earlier_name_a_manual_trigger_and_another_writers_checkpoint_are_read(tmp_path: Path) -> None:
    folder = state_dir(tmp_path)
    checkpoints = folder / "checkpoints"
    peer = written(checkpoints, created_at="2026-02-17T12:10:00Z")  # the other writer's cx-001.json
    shutil.copy(OLD_NAME, checkpoints / "cx-001-checkpoint.json")  # beside it, as A014 finds them
    shutil.copy(MANUAL, checkpoints / "cx-002.json")

    events, skipped = checkpoint_events(folder, since=None, until=None, turn_at=turn_at)

    written_ = [e for e in events if isinstance(e, CheckpointWritten)]
    assert [(e.checkpoint, e.trigger, e.merged_at, Path(e.path).name) for e in written_] == [
        ("cx-001", "auto", at("11:50:00"), "cx-001-checkpoint.json"),  # acknowledged in the fixture
        ("cx-001", "unknown", None, peer.name),  # the peer layout records no merge
        ("cx-002", "manual", None, "cx-002.json"),
    ]
    assert [(e.kind, e.time) for e in events] == [
        ("checkpoint", at("11:45:00")),
        ("merge", at("11:50:00")),
        ("checkpoint", at("12:10:00")),
        ("checkpoint", at("14:45:00")),
    ]
    assert skipped == []


def test_a_broken_checkpoint_is_skipped_with_why_and_another_tools_file_is_left_alone(tmp_path: Path) -> None:
    folder = state_dir(tmp_path)
    checkpoints = folder / "checkpoints"
    shutil.copy(SECOND, checkpoints / "cx-002.json")
    (checkpoints / "cx-003.json").write_text('{"event_id": "cx-003", "timestamp": ', "utf-8")  # cut short
    conflicted = "<<<<<<< HEAD\n" + SECOND.read_text("utf-8") + "=======\n{}\n>>>>>>> theirs\n"
    (checkpoints / "cx-004.json").write_text(conflicted, "utf-8")
    (checkpoints / "cx-005.json").write_text('{"build": 5, "artifacts": []}\n', "utf-8")  # a build tool's file
    (checkpoints / "cx-006.json").write_bytes(b'{"event_id": "cx-006", "note": "\xff"}')

    events, skipped = checkpoint_events(folder, since=None, until=None, turn_at=turn_at)

    assert [e.checkpoint for e in events if isinstance(e, CheckpointWritten)] == ["cx-002"]
    assert [(Path(s.source).name, s.count) for s in skipped] == [
        ("cx-003.json", 1),
        ("cx-004.json", 1),
        ("cx-006.json", 1),
    ]
    assert all(s.reason for s in skipped)
    assert "conflict" in skipped[1].reason
    assert "cannot be read" in skipped[2].reason


def test_only_the_checkpoints_of_the_range_and_its_margin_are_taken(tmp_path: Path) -> None:
    folder = state_dir(tmp_path)
    checkpoints = folder / "checkpoints"
    shutil.copy(FIRST, checkpoints / "cx-001.json")  # 11:40
    shutil.copy(SECOND, checkpoints / "cx-002.json")  # 12:27
    written(checkpoints, created_at="2026-02-17T12:31:00Z")  # cx-003, 4 minutes after the range: within the margin
    written(checkpoints, created_at="2026-02-17T12:40:00Z")  # cx-004, 13 minutes after: outside
    (checkpoints / "cx-005.json").write_text('{"event_id": "cx-005", "timestamp": "soon"}', "utf-8")

    events, skipped = checkpoint_events(folder, since=at("11:43:00"), until=at("12:27:00"), turn_at=turn_at)

    assert [e.checkpoint for e in events if isinstance(e, CheckpointWritten)] == ["cx-001", "cx-002", "cx-003"]
    assert [(Path(s.source).name, s.reason) for s in skipped] == [
        ("cx-005.json", "has no ISO-8601 `timestamp`: not placed in time")
    ]
    later, _ = checkpoint_events(folder, since=at("11:50:00"), until=None, turn_at=turn_at)
    assert [e.checkpoint for e in later if isinstance(e, CheckpointWritten)] == ["cx-002", "cx-003", "cx-004"]


def test_no_checkpoint_folder_is_no_event(tmp_path: Path) -> None:
    assert checkpoint_events(tmp_path / ".jerry", since=None, until=None, turn_at=turn_at) == ([], [])


def test_skipped_is_the_models_record(tmp_path: Path) -> None:
    folder = state_dir(tmp_path)
    (folder / "checkpoints" / "cx-001.json").write_text("[1, 2]", "utf-8")

    _, skipped = checkpoint_events(folder, since=None, until=None, turn_at=turn_at)

    assert skipped == [Skipped(str(folder / "checkpoints" / "cx-001.json"), skipped[0].reason, 1)]
    assert "JSON object" in skipped[0].reason or "object" in skipped[0].reason
