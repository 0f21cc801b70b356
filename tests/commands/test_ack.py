"""`ctxres ack`: merging checkpoints into the resumption section, deterministically and surgically."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
import yaml

from ctxres import ack
from ctxres.config import load_config
from ctxres.linters.checking import engine
from ctxres.linters.cli import main
from ctxres.state import checkpoints as cp

from ..conftest import CORPUS, FIXTURES

WORKSPACE = FIXTURES / "ack" / "two-unacknowledged"
ORCH = Path("projects/PROJ-002/ORCHESTRATION.yaml")
CX1 = Path(".jerry/checkpoints/cx-001-checkpoint.json")
CX2 = Path(".jerry/checkpoints/cx-002-checkpoint.json")
NOW = "2026-03-02T11:30:00Z"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A temporary copy of the fixture workspace, as the current folder."""
    target = tmp_path / "repo"
    shutil.copytree(WORKSPACE, target)
    monkeypatch.chdir(target)
    return target


def run(*args: str) -> int:
    return main(["ack", *args])


def snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def events(root: Path) -> list[dict[str, object]]:
    section = yaml.safe_load((root / ORCH).read_text())["resumption"]
    result: list[dict[str, object]] = section["compaction_events"]["events"]
    return result


def metadata(path: Path) -> dict[str, object]:
    result: dict[str, object] = json.loads(path.read_text())["metadata"]
    return result


def test_fixture_workspace_starts_with_two_unmerged_checkpoints() -> None:
    report = engine.run([WORKSPACE], load_config(WORKSPACE), cwd=WORKSPACE)
    assert [f.code for f in report.findings] == ["A010"]
    assert "cx-001-checkpoint.json, .jerry/checkpoints/cx-002-checkpoint.json" in report.findings[0].message


def test_ack_all_merges_both_in_order_and_check_is_clean_afterwards(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run("--all", "--now", NOW) == 0
    out = capsys.readouterr().out
    assert out.splitlines() == [
        "using projects/PROJ-002/ORCHESTRATION.yaml: the only live workflow (status ACTIVE)",
        f"merged {CX1.as_posix()} as CX-001 into {ORCH.as_posix()}",
        f"merged {CX2.as_posix()} as CX-002 into {ORCH.as_posix()}",
        f"compaction_events.count: 0 -> 2; updated_at: {NOW}",
    ]
    merged = events(repo)
    assert [e["id"] for e in merged] == ["CX-001", "CX-002"]
    assert merged[0] == {
        "id": "CX-001",
        "timestamp": "2026-03-02T10:30:00Z",
        "trigger": "auto",
        "estimated_fill_before": 0.912,
        "active_phase": 2,
        "active_gate": "qg-1",
        "active_gate_iteration": 1,
        "checkpoint_file": ".jerry/checkpoints/cx-001-checkpoint.json",
        "acknowledged": True,
        "acknowledged_at": NOW,
    }
    assert merged[1]["trigger"] == "manual" and merged[1]["estimated_fill_before"] is None
    section = yaml.safe_load((repo / ORCH).read_text())["resumption"]
    assert section["compaction_events"]["count"] == 2
    assert section["recovery_state"]["updated_at"] == NOW
    for checkpoint in (CX1, CX2):
        assert metadata(repo / checkpoint) == {
            "written_by": "ctxres-hook PreCompact",
            "acknowledged": True,
            "acknowledged_at": NOW,
        }
    report = engine.run([repo], load_config(repo), cwd=repo)
    assert report.findings == []


def test_only_the_edited_lines_change(repo: Path) -> None:
    before = (repo / ORCH).read_text().splitlines(keepends=True)
    json_before = {p: (repo / p).read_text() for p in (CX1, CX2)}
    assert run("--all", "--now", NOW) == 0
    after = (repo / ORCH).read_text().splitlines(keepends=True)
    updated = before.index('    updated_at: "2026-03-02T10:00:00Z"   # last orchestrator update\n')
    count = before.index("    count: 0\n")
    assert before[count + 1] == "    events: []\n"
    expected_head = [*before[:count], "    count: 2\n", "    events:\n"]
    expected_head[updated] = f'    updated_at: "{NOW}"   # last orchestrator update\n'  # the comment is kept
    tail = before[count + 2 :]  # the comments and `next_actions` after the section
    assert after[: len(expected_head)] == expected_head
    assert after[len(after) - len(tail) :] == tail
    inserted = after[len(expected_head) : len(after) - len(tail)]
    assert len(inserted) == 20 and all(line.startswith("      ") for line in inserted)  # two events, ten lines each
    # The checkpoint files change only in the acknowledgement values.
    assert (repo / CX1).read_text() == json_before[CX1].replace(
        '"acknowledged": false,\n    "acknowledged_at": null', f'"acknowledged": true,\n    "acknowledged_at": "{NOW}"'
    )
    assert (repo / CX2).read_text() == json_before[CX2].replace(
        '"acknowledged": false}', f'"acknowledged": true, "acknowledged_at": "{NOW}"}}'
    )


def test_default_merges_the_oldest_then_the_next(repo: Path) -> None:
    assert run("--now", NOW) == 0
    assert [e["id"] for e in events(repo)] == ["CX-001"]
    assert metadata(repo / CX2)["acknowledged"] is False
    assert run("--now", "2026-03-02T11:40:00Z") == 0
    assert [(e["id"], e["acknowledged_at"]) for e in events(repo)] == [
        ("CX-001", NOW),
        ("CX-002", "2026-03-02T11:40:00Z"),
    ]


def test_running_again_with_nothing_to_merge_exits_zero_and_changes_nothing(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run("--all", "--now", NOW) == 0
    state = snapshot(repo)
    capsys.readouterr()
    assert run("--now", "2026-03-02T12:00:00Z") == 0
    assert run("--all") == 0
    out = capsys.readouterr().out
    assert out.count("nothing to merge: every checkpoint in .jerry/checkpoints/ is acknowledged") == 2
    assert snapshot(repo) == state


def test_naming_an_acknowledged_checkpoint_is_refused(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run("cx-001", "--now", NOW) == 0
    state = snapshot(repo)
    assert run("CX-001", "--now", NOW) == 1
    err = capsys.readouterr().err
    assert err.strip() == (
        "ctxres ack: refused, nothing changed: .jerry/checkpoints/cx-001-checkpoint.json is already "
        f"acknowledged (at {NOW}): nothing to merge"
    )
    assert snapshot(repo) == state


def test_checkpoint_by_path_and_out_of_order_refusal(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state = snapshot(repo)
    assert run(str(CX2), "--now", NOW) == 1
    err = capsys.readouterr().err
    assert "would become CX-002, but the next compaction event is CX-001" in err
    assert "merge cx-001-checkpoint.json first (`ctxres ack --all` merges them in order)" in err
    assert snapshot(repo) == state
    assert run(str(repo / CX1), "--now", NOW) == 0  # an absolute path works too


def test_v1_section_is_refused_with_the_migrate_hint(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    v1 = repo / "ORCHESTRATION.yaml"
    shutil.copy(CORPUS / "orchestration" / "002-PROJ-001-oss-release.yaml", v1)
    state = snapshot(repo)
    assert run("--file", "ORCHESTRATION.yaml", "--now", NOW) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "has a v1.0 resumption section" in err
    assert "`ctxres migrate ORCHESTRATION.yaml --write`" in err
    assert snapshot(repo) == state


def test_unparsable_orchestration_is_refused(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = repo / ORCH
    path.write_text(path.read_text().replace("  compaction_events:\n", "  compaction_events: [\n"))
    state = snapshot(repo)
    assert run("--file", str(ORCH), "--now", NOW) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"ctxres ack: refused, nothing changed: {ORCH.as_posix()} does not parse as YAML (line ")
    assert snapshot(repo) == state


def test_corrupt_checkpoint_is_refused(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / CX1).write_text('{"schema_version": "1.0.0", "event_id": ')
    state = snapshot(repo)
    assert run("--all", "--now", NOW) == 1
    err = capsys.readouterr().err
    assert err.startswith("ctxres ack: refused, nothing changed: .jerry/checkpoints/cx-001-checkpoint.json is not ")
    assert "valid JSON" in err
    assert snapshot(repo) == state  # cx-002 was not merged either


def test_checkpoint_lacking_seed_fields_is_refused_saying_what_is_missing(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = json.loads((repo / CX1).read_text())
    del data["trigger"]
    (repo / CX1).write_text(json.dumps(data))
    assert run("--now", NOW) == 1
    assert 'cannot be merged: it lacks `trigger.type` ("auto" or "manual")' in capsys.readouterr().err


def test_peer_checkpoint_is_refused_when_named(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for path in (repo / CX1, repo / CX2):
        path.unlink()
    shutil.copy(CORPUS / "checkpoints" / "cx-001.d933ffb7.json", repo / ".jerry/checkpoints")
    state = snapshot(repo)
    assert run("cx-001", "--now", NOW) == 1
    err = capsys.readouterr().err
    assert "cx-001.d933ffb7.json is in another tool's layout (checkpoint_id, created_at) and cannot be merged" in err
    assert "a trigger (auto/manual)" in err and "`metadata.acknowledged` flag" in err
    assert snapshot(repo) == state


def test_peer_skip_is_mentioned(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for path in (repo / CX1, repo / CX2):
        path.unlink()
    shutil.copy(CORPUS / "checkpoints" / "cx-001.d933ffb7.json", repo / ".jerry/checkpoints")
    assert run("--now", NOW) == 0
    assert capsys.readouterr().out.splitlines()[-1] == (
        "nothing to merge: every checkpoint in .jerry/checkpoints/ is acknowledged (1 in another tool's layout skipped)"
    )


def test_acknowledgement_time_before_the_compaction_is_refused(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state = snapshot(repo)
    assert run("--now", "2026-03-02T10:00:00Z") == 1
    assert "is before the compaction of .jerry/checkpoints/cx-001-checkpoint.json" in capsys.readouterr().err
    assert snapshot(repo) == state


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--now", "half past ten"], "is not an ISO-8601 time"),
        (["--all", "cx-001"], "give either CHECKPOINT or --all"),
        (["cx-009", "--now", NOW], "no checkpoint 'cx-009'"),
        (["--file", "missing.yaml"], "no such file: missing.yaml"),
    ],
)
def test_usage_errors_exit_two(repo: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str) -> None:
    assert run(*args) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_no_active_workflow_is_a_usage_error(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = repo / ORCH
    path.write_text(path.read_text().replace('workflow_status: "ACTIVE"', 'workflow_status: "COMPLETE"'))
    assert run("--now", NOW) == 2
    assert capsys.readouterr().err == (
        f"ctxres ack: no live workflow under {repo.resolve()}: no ORCHESTRATION file (examples and templates "
        "aside) has workflow status ACTIVE or PAUSED; name one with --file\n"
    )
    assert run("--file", str(ORCH), "--now", NOW) == 0  # named explicitly, any status is fine


def test_the_most_recently_updated_active_workflow_is_chosen_and_named(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = repo / "projects" / "PROJ-003" / "ORCHESTRATION.yaml"
    other.parent.mkdir(parents=True)
    text = (repo / ORCH).read_text().replace('workflow_status: "ACTIVE"', 'workflow_status: "PAUSED"')
    other.write_text(text.replace('updated_at: "2026-03-02T10:00:00Z"', 'updated_at: "2026-03-02T10:15:00+00:00"'))
    os.utime(other, (1_700_000_000, 1_700_000_000))  # the older mtime: it does not count
    assert run("--now", NOW) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first == (
        "using projects/PROJ-003/ORCHESTRATION.yaml: the most recently updated of 2 live workflows (status "
        "PAUSED, updated 2026-03-02T10:15:00Z); also live: projects/PROJ-002/ORCHESTRATION.yaml"
    )


def test_an_event_recorded_by_hand_is_acknowledged_in_place(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The protocol's own flow: the event is appended with acknowledged: false, acknowledged later."""
    path = repo / ORCH
    text = path.read_text().replace(
        "    count: 0\n    events: []\n",
        "    count: 1\n    events:\n"
        '      - id: "CX-001"\n'
        '        timestamp: "2026-03-02T10:30:00Z"\n'
        '        trigger: "auto"\n'
        "        estimated_fill_before: 0.912\n"
        "        active_phase: 2\n"
        '        checkpoint_file: ".jerry/checkpoints/cx-001-checkpoint.json"\n'
        "        acknowledged: false   # set by ctxres ack\n",
    )
    path.write_text(text)
    assert run("cx-001", "--now", NOW) == 0
    assert capsys.readouterr().out.splitlines()[1] == f"acknowledged {CX1.as_posix()} as CX-001 into {ORCH.as_posix()}"
    after = path.read_text()
    assert "        acknowledged: true   # set by ctxres ack\n" in after
    assert f'        acknowledged_at: "{NOW}"\n' in after
    assert [e["id"] for e in events(repo)] == ["CX-001"]
    assert metadata(repo / CX1)["acknowledged"] is True


def test_an_interrupted_merge_is_completed(repo: Path) -> None:
    """The section was written, the checkpoint not (the run stopped in between): ack finishes the job."""
    assert run("cx-001", "--now", NOW) == 0
    (repo / CX1).write_text((WORKSPACE / CX1).read_text())  # as if the second write never happened
    section_text = (repo / ORCH).read_text()
    assert run("--now", "2026-03-02T12:00:00Z") == 0
    assert (repo / ORCH).read_text() == section_text
    assert metadata(repo / CX1) == {
        "written_by": "ctxres-hook PreCompact",
        "acknowledged": True,
        "acknowledged_at": NOW,
    }


def test_an_event_with_the_same_id_but_another_path_is_not_duplicated(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = repo / ORCH
    absolute = json.dumps(str(repo / CX1))
    path.write_text(
        path.read_text().replace(
            "    count: 0\n    events: []\n",
            f'    count: 1\n    events:\n      - {{id: "CX-001", checkpoint_file: {absolute}, acknowledged: false}}\n',
        )
    )
    state = snapshot(repo)
    assert run("--now", NOW) == 1
    assert "event CX-001 already exists, but its checkpoint_file (/" in capsys.readouterr().err
    assert snapshot(repo) == state


def test_section_without_compaction_events_gets_one(repo: Path) -> None:
    path = repo / ORCH
    text = path.read_text()
    path.write_text(text.replace("  compaction_events:\n    count: 0\n    events: []\n", ""))
    assert run("--now", NOW) == 0
    section = yaml.safe_load(path.read_text())["resumption"]
    assert section["compaction_events"]["count"] == 1
    assert [e["id"] for e in section["compaction_events"]["events"]] == ["CX-001"]
    assert path.read_text().endswith('  - "Fix D-002 and D-003, then re-score qg-1."\n')


def test_a_later_updated_at_is_never_moved_back(repo: Path) -> None:
    path = repo / ORCH
    path.write_text(path.read_text().replace("2026-03-02T10:00:00Z", "2026-03-02T11:45:00Z"))
    assert run("--now", NOW) == 0
    assert yaml.safe_load(path.read_text())["resumption"]["recovery_state"]["updated_at"] == "2026-03-02T11:45:00Z"


def test_acknowledge_json_keeps_every_other_byte() -> None:
    text = '{\n  "a": 1,\n  "metadata": {\n    "acknowledged": false\n  }\n}\n'
    assert ack.acknowledge_json(text, NOW) == (
        f'{{\n  "a": 1,\n  "metadata": {{\n    "acknowledged": true,\n    "acknowledged_at": "{NOW}"\n  }}\n}}\n'
    )
    inline = '{"metadata": {"acknowledged": false, "acknowledged_at": null, "x": "\\u00e9"}}'
    assert ack.acknowledge_json(inline, NOW) == inline.replace("false", "true").replace("null", f'"{NOW}"')
    with pytest.raises(ack.AckError, match=r"no `metadata\.acknowledged`"):
        ack.acknowledge_json('{"metadata": {}}', NOW)


def test_append_event_is_pure_and_deterministic() -> None:
    text = (WORKSPACE / ORCH).read_text()
    event = ack.event_for(cp.read(WORKSPACE / CX1), CX1.as_posix(), NOW)
    first, count = ack.append_event(text, event, NOW)
    second, _ = ack.append_event(text, event, NOW)
    assert first == second and count == 1
    assert (WORKSPACE / ORCH).read_text() == text
