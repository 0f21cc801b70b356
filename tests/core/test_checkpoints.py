"""Checkpoint naming, discovery and the normalized view of both layouts (ctxres.state.checkpoints)."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import pytest

from ctxres.state import checkpoints as cp

from ..conftest import CORPUS, FIXTURES

SEED_FILE = FIXTURES / "valid/projects/PROJ-001/.jerry/checkpoints/cx-001-checkpoint.json"


@pytest.mark.parametrize(
    ("name", "number"),
    [
        ("cx-001-checkpoint.json", 1),  # the name our PreCompact hook writes (docs/formats.md, "Checkpoint files")
        ("cx-012.json", 12),  # the other tool's plain name
        ("cx-001.d933ffb7.json", 1),  # ... and with its hash suffix (the corpus)
        ("cx-1234-checkpoint.json", 1234),
        ("cx-01-checkpoint.json", None),
        ("CX-001-checkpoint.json", None),
        ("cx-001-checkpoint.json.tmp", None),
        ("cx-001-notes.json", None),
        ("context-monitor-state.json", None),
    ],
)
def test_number_of_name_accepts_both_layouts(name: str, number: int | None) -> None:
    assert cp.number_of_name(name) == number


def test_ids_and_names_round_trip() -> None:
    assert cp.number_of_id("cx-007") == cp.number_of_id("CX-007") == 7
    assert cp.number_of_id("CX-7") is None and cp.number_of_id(7) is None
    assert (cp.file_id(7), cp.section_id(7), cp.file_name(7)) == ("cx-007", "CX-007", "cx-007.json")
    assert cp.number_of_name(cp.file_name(42)) == 42


def test_next_number_counts_every_layout_and_ignores_other_files() -> None:
    assert cp.next_number([]) == 1
    assert cp.next_number(["cx-001-checkpoint.json", "cx-004.d933ffb7.json", "cx-002.json", "notes.txt"]) == 5
    assert cp.next_number(["cx-009-checkpoint.json.tmp"]) == 1


def test_list_checkpoints_sorts_by_number_across_names(tmp_path: Path) -> None:
    folder = tmp_path / ".jerry" / "checkpoints"
    folder.mkdir(parents=True)
    for name in ("cx-010-checkpoint.json", "cx-002.d933ffb7.json", "cx-001-checkpoint.json", "README.md"):
        (folder / name).write_text("{}")
    (folder / "cx-003-checkpoint.json").mkdir()  # a folder is not a checkpoint
    assert [p.name for p in cp.list_checkpoints(tmp_path / ".jerry")] == [
        "cx-001-checkpoint.json",
        "cx-002.d933ffb7.json",
        "cx-010-checkpoint.json",
    ]
    assert cp.list_checkpoints(tmp_path / "missing") == []


def test_state_dir_is_the_nearest_one_up_to_the_root(tmp_path: Path) -> None:
    nested = tmp_path / "projects" / "P1"
    nested.mkdir(parents=True)
    orchestration = nested / "ORCHESTRATION.yaml"
    orchestration.write_text("resumption: {}\n")
    assert cp.find_state_dir(orchestration, tmp_path, ".jerry") == tmp_path / ".jerry"  # none yet: the root's
    (tmp_path / ".jerry").mkdir()
    assert cp.find_state_dir(orchestration, tmp_path, ".jerry") == tmp_path / ".jerry"
    (nested / ".jerry").mkdir()
    assert cp.find_state_dir(orchestration, tmp_path, ".jerry") == nested / ".jerry"


@pytest.mark.parametrize(
    ("reference", "problem"),
    [
        (".jerry/checkpoints/cx-001-checkpoint.json", None),
        ("projects/P/.jerry/../.jerry/checkpoints/cx-001-checkpoint.json", None),
        ("/home/me/repo/.jerry/checkpoints/cx-001-checkpoint.json", "absolute"),
        ("C:\\repo\\.jerry\\cx-001-checkpoint.json", "absolute"),
        ("~/cx-001-checkpoint.json", "absolute"),
        ("../other/cx-001-checkpoint.json", "escapes"),
        ("a/../../cx-001-checkpoint.json", "escapes"),
    ],
)
def test_reference_problem(reference: str, problem: str | None) -> None:
    assert cp.reference_problem(reference) == problem


def test_resolve_reference_from_the_root_then_nested_workspaces(tmp_path: Path) -> None:
    workspace = tmp_path / "fixtures" / "ws"
    (workspace / ".jerry" / "checkpoints").mkdir(parents=True)
    target = workspace / ".jerry" / "checkpoints" / "cx-001-checkpoint.json"
    target.write_text("{}")
    orchestration = workspace / "ORCHESTRATION.yaml"
    reference = ".jerry/checkpoints/cx-001-checkpoint.json"
    assert cp.resolve_reference(reference, orchestration, tmp_path) == target
    assert cp.resolve_reference("fixtures/ws/" + reference, orchestration, tmp_path) == target
    assert cp.resolve_reference(".jerry/checkpoints/cx-002-checkpoint.json", orchestration, tmp_path) is None
    assert cp.relative_reference(target, tmp_path) == "fixtures/ws/" + reference


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-02-17T11:45:00Z", datetime(2026, 2, 17, 11, 45, tzinfo=timezone.utc)),
        ("2026-02-17T12:45:00+01:00", datetime(2026, 2, 17, 11, 45, tzinfo=timezone.utc)),
        ("2026-02-17T06:45:00-0500", datetime(2026, 2, 17, 11, 45, tzinfo=timezone.utc)),
        ("2026-02-17 11:45", datetime(2026, 2, 17, 11, 45, tzinfo=timezone.utc)),
        ("2026-02-22T02:15:21.331617+00:00", datetime(2026, 2, 22, 2, 15, 21, 331617, tzinfo=timezone.utc)),
        ("2026-02-22T02:15:21.3316178Z", datetime(2026, 2, 22, 2, 15, 21, 331617, tzinfo=timezone.utc)),
        ("2026-02-17", datetime(2026, 2, 17, tzinfo=timezone.utc)),
        ("2026-02-30T10:00:00Z", None),
        ("yesterday", None),
        (None, None),
    ],
)
def test_parse_time(text: str | None, expected: datetime | None) -> None:
    assert cp.parse_time(text) == expected


def test_format_time_is_utc_with_z() -> None:
    moment = cp.parse_time("2026-02-17T12:45:30.9+01:00")
    assert moment is not None
    assert cp.format_time(moment) == "2026-02-17T11:45:30Z"
    assert cp.format_time(datetime(2026, 2, 17, 11, 45)) == "2026-02-17T11:45:00Z"


def test_view_of_the_seed_layout() -> None:
    view = cp.read(SEED_FILE)
    assert view == cp.CheckpointView(
        layout="seed",
        id="cx-001",
        number=1,
        timestamp="2026-02-17T11:45:00Z",
        acknowledged=True,
        acknowledged_at="2026-02-17T11:50:00Z",
        fill=0.886,
        tokens=177200,
        trigger="auto",
        phase=2,
        gate="qg-2",
        gate_iteration=1,
        workflow_id="feat015-licmig-20260217-001",
        activity="qg-2-iteration-1",
        workflow_status="ACTIVE",
    )
    assert cp.missing_for_event(view) == []


def test_view_of_the_peer_layout_from_the_corpus() -> None:
    view = cp.read(CORPUS / "checkpoints/cx-002.d933ffb7.json")
    assert (view.layout, view.id, view.number, view.fill, view.tokens) == ("peer", "cx-002", 2, 0.9, 180000)
    assert view.timestamp is not None and cp.parse_time(view.timestamp) is not None
    assert view.acknowledged is None and view.trigger is None and view.phase is None
    missing = cp.missing_for_event(view)
    assert any("trigger" in m for m in missing) and any("acknowledged" in m for m in missing)


def test_view_reads_the_peer_copy_of_the_resumption_section() -> None:
    data = {
        "checkpoint_id": "cx-003",
        "created_at": "2026-02-22T02:15:21Z",
        "context_state": {"fill_percentage": 0.875, "tier": "critical", "token_count": 175000},
        "resumption_state": {
            "recovery_state": {"current_phase": 4, "current_activity": "qg-2-iteration-1"},
            "quality_trajectory": {"current_gate": "qg-2", "current_gate_iteration": 1},
        },
    }
    view = cp.view(data)
    assert (view.phase, view.activity, view.gate, view.gate_iteration) == (4, "qg-2-iteration-1", "qg-2", 1)


def test_view_never_raises_on_mistyped_fields() -> None:
    view = cp.view({"event_id": 3, "timestamp": ["x"], "trigger": {"type": "sometimes"}, "metadata": "no"})
    assert (view.layout, view.id, view.number, view.trigger, view.acknowledged) == ("seed", None, None, None, None)
    assert len(cp.missing_for_event(view)) == 4
    assert cp.view([1, 2]).layout == "seed"


def test_read_reports_corrupt_files_in_one_line(tmp_path: Path) -> None:
    broken = tmp_path / "cx-001-checkpoint.json"
    broken.write_text('{"event_id": "cx-001",')
    with pytest.raises(cp.CheckpointError, match="not valid JSON"):
        cp.read(broken)
    broken.write_text("[1, 2]")
    with pytest.raises(cp.CheckpointError, match="not a JSON object"):
        cp.read(broken)
    with pytest.raises(cp.CheckpointError, match="cannot be read"):
        cp.read(tmp_path / "missing.json")


def test_the_module_imports_only_the_standard_library() -> None:
    code = (
        "import sys; import ctxres.state.checkpoints; "
        "print(','.join(m for m in ('yaml', 'pydantic', 'jsonschema') if m in sys.modules))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == ""


def test_seed_fixture_is_what_the_schema_describes() -> None:
    data = json.loads(SEED_FILE.read_text())
    assert cp.layout_of(data) == "seed" and cp.layout_of({"checkpoint_id": "cx-001"}) == "peer"
