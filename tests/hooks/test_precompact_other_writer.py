"""A checkpoint folder another writer fills with ``cx-NNN.json``: ours are named so too (always), one
numbering for both, whichever writer came first, and ``ctxres ack`` / ``ctxres check`` tell ours from
theirs by content."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from ctxres.config import load_config
from ctxres.linters.checking import engine
from ctxres.linters.cli import main as cli_main
from ctxres.state.checkpoint_names import file_name, is_seed_name, renumbered
from tests.conftest import ROOT
from tests.other_writer import write_checkpoint, written

from .hook_project import answer, checkpoints, load, payload, run_hook, validate, workspace

PEER = ROOT / "fixtures" / "corpus" / "checkpoints" / "cx-001.d933ffb7.json"


def other_writer_number(folder: Path) -> int:
    """How the other writer numbers its next checkpoint: ``int()`` of every ``cx-*.json`` name."""
    return max(int(p.stem[3:]) for p in folder.glob("cx-*.json")) + 1


def peer_checkpoint(root: Path, number: int) -> Path:
    folder = root / ".jerry" / "checkpoints"
    folder.mkdir(parents=True, exist_ok=True)
    data = json.loads(PEER.read_text())
    data["checkpoint_id"] = f"cx-{number:03d}"
    data["resumption_state"] = {"recovery_state": {"current_phase": 2, "current_activity": "QG-2 review"}}
    target = folder / f"cx-{number:03d}.json"
    target.write_text(json.dumps(data, indent=2) + "\n")
    return target


def findings(root: Path) -> list[tuple[str, str, str]]:
    return [(f.code, f.path, f.message) for f in engine.run([root], load_config(root), cwd=root).findings]


def test_file_name_is_the_plain_one_and_the_seed_name_is_still_known() -> None:
    assert file_name(7) == "cx-007.json"
    assert is_seed_name("cx-007-checkpoint.json") and not is_seed_name(file_name(7))
    assert int(file_name(7)[3:-5]) == 7  # what another writer's int() numbering reads


@pytest.mark.parametrize(
    ("name", "renamed"),
    [
        ("cx-002.json", "cx-005.json"),
        ("cx-002-checkpoint.json", "cx-005-checkpoint.json"),
        ("cx-0002.d933ffb7.json", "cx-005.d933ffb7.json"),
        ("notes.json", "cx-005.json"),
    ],
)
def test_a_fix_names_the_file_in_its_own_layout(name: str, renamed: str) -> None:
    assert renumbered(name, 5) == renamed


def test_precompact_takes_the_other_writers_layout_and_numbering(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    peer_checkpoint(root, 2)
    result = run_hook("PreCompact", root, payload(root, trigger="auto"))
    assert answer(result, "PreCompact") == {} and result.stderr == ""
    folder = root / ".jerry" / "checkpoints"
    assert [p.name for p in checkpoints(root)] == ["cx-002.json", "cx-003.json"]
    ours = load(folder / "cx-003.json")
    validate("checkpoint", ours)
    assert ours["event_id"] == "cx-003"
    assert other_writer_number(folder) == 4  # the other writer's int() keeps working
    peer_checkpoint(root, 4)
    answer(run_hook("PreCompact", root, payload(root, trigger="manual")), "PreCompact")
    assert [p.name for p in checkpoints(root)] == ["cx-002.json", "cx-003.json", "cx-004.json", "cx-005.json"]
    assert load(folder / "cx-005.json")["event_id"] == "cx-005"


def test_precompact_names_its_checkpoint_plainly_beside_seed_named_ones(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    peer_checkpoint(root, 2)
    shutil.copy(root / ".jerry" / "checkpoints" / "cx-002.json", root / ".jerry" / "checkpoints" / "cx-003.json")
    (root / ".jerry" / "checkpoints" / "cx-003.json").rename(root / ".jerry" / "checkpoints" / "cx-003-checkpoint.json")
    answer(run_hook("PreCompact", root, payload(root, trigger="auto")), "PreCompact")
    assert checkpoints(root)[-1].name == "cx-004.json"


def test_the_other_writer_keeps_working_when_our_checkpoint_came_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = workspace(tmp_path)
    before = findings(root)
    folder = root / ".jerry" / "checkpoints"
    answer(run_hook("PreCompact", root, payload(root, trigger="auto")), "PreCompact")  # ours first
    theirs = write_checkpoint(folder)
    assert theirs.returncode == 0, theirs.stderr  # its int() numbering reads our name
    assert Path(theirs.stdout.strip()).name == "cx-003.json"
    answer(run_hook("PreCompact", root, payload(root, trigger="manual")), "PreCompact")
    assert written(folder).name == "cx-005.json"
    assert [p.name for p in checkpoints(root)] == ["cx-002.json", "cx-003.json", "cx-004.json", "cx-005.json"]
    assert [load(folder / n)["event_id"] for n in ("cx-002.json", "cx-004.json")] == ["cx-002", "cx-004"]
    monkeypatch.chdir(root)
    assert cli_main(["ack", "--all", "--now", "2026-02-17T12:11:00Z"]) == 0
    out = capsys.readouterr().out
    assert "merged .jerry/checkpoints/cx-002.json as CX-002" in out
    assert "merged .jerry/checkpoints/cx-004.json as CX-004" in out
    assert load(folder / "cx-003.json")["resumption_state"] is None  # theirs is left as it was
    ours = [f for f in findings(root) if not f[1].endswith(("cx-003.json", "cx-005.json"))]
    assert ours == before  # theirs get what a file with no position gets (A012), ours nothing


def test_ack_merges_ours_under_the_plain_name_and_check_finds_nothing_in_the_mixed_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = workspace(tmp_path)
    before = findings(root)  # the workflow's own (its CX-001 points to a file the workspace lacks)
    peer_checkpoint(root, 2)
    answer(run_hook("PreCompact", root, payload(root, trigger="manual")), "PreCompact")
    peer_checkpoint(root, 4)
    answer(run_hook("PreCompact", root, payload(root, trigger="auto")), "PreCompact")
    folder = root / ".jerry" / "checkpoints"
    assert [p.name for p in checkpoints(root)] == ["cx-002.json", "cx-003.json", "cx-004.json", "cx-005.json"]
    monkeypatch.chdir(root)
    assert cli_main(["ack", "cx-003", "--now", "2026-02-17T12:10:00Z"]) == 0
    assert cli_main(["ack", "--all", "--now", "2026-02-17T12:11:00Z"]) == 0
    out = capsys.readouterr().out
    assert "merged .jerry/checkpoints/cx-003.json as CX-003" in out
    assert "merged .jerry/checkpoints/cx-005.json as CX-005" in out
    for name in ("cx-003.json", "cx-005.json"):
        assert load(folder / name)["metadata"]["acknowledged"] is True
    text = (root / "ORCHESTRATION.yaml").read_text()
    assert ".jerry/checkpoints/cx-003.json" in text and ".jerry/checkpoints/cx-005.json" in text
    assert "acknowledged" not in load(folder / "cx-002.json")  # theirs is left as it was
    assert findings(root) == before  # no A003 gap, no finding against either layout


def test_sessionstart_alerts_on_ours_under_the_plain_name_not_on_theirs(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    peer_checkpoint(root, 2)
    answer(run_hook("PreCompact", root, payload(root, trigger="auto")), "PreCompact")
    peer_checkpoint(root, 4)
    output = answer(run_hook("SessionStart", root, payload(root, "SessionStart", source="compact")), "SessionStart")
    text = output["hookSpecificOutput"]["additionalContext"]
    assert "CHECKPOINT: .jerry/checkpoints/cx-003.json" in text, text
    assert "cx-002.json" not in text and "cx-004.json" not in text, text


def test_check_reads_ours_under_the_plain_name_against_our_schema(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    peer_checkpoint(root, 2)
    answer(run_hook("PreCompact", root, payload(root, trigger="auto")), "PreCompact")
    ours = root / ".jerry" / "checkpoints" / "cx-003.json"
    data = load(ours)
    del data["trigger"]
    ours.write_text(json.dumps(data, indent=2) + "\n")
    found = [f for f in findings(root) if f[1].startswith(".jerry/")]
    assert [(code, path) for code, path, _ in found] == [("C001", ".jerry/checkpoints/cx-003.json")], found
    assert "missing required key `trigger`" in found[0][2]  # our checkpoint's schema, not the other layout's
