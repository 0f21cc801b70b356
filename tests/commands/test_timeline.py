"""``ctxres timeline`` on sessions recorded from the real client, replayed through the real hooks.

Each recorded session (``fixtures/replay``) is replayed once into a kept folder: the project as the hooks
left it (its workflow file edited step by step, its checkpoints written by PreCompact and merged by
``ctxres ack``) and the session's transcript, which is then filed where the client keeps it
(``$CLAUDE_CONFIG_DIR/projects/<the project's path, encoded>/``), so that the command finds it as a user's
would. The figures are compared with the transcript's own records.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import jsonschema
import pytest

from ctxres.linters.cli import main
from ctxres.linters.replay.player import load_fixture, run_fixture_in
from ctxres.linters.timeline.sessions import folder_name
from ctxres.tiers import percent_used

from ..dev_scripts import dev_script

ROOT = Path(__file__).resolve().parents[2]
REPLAY = ROOT / "fixtures" / "replay"
SCHEMA = json.loads((ROOT / "schemas" / "timeline.schema.json").read_text("utf-8"))
ANSI = re.compile(r"\x1b\[[0-9;]*m")


class Replayed:
    """A recorded session replayed: its project, its transcript, and a config folder that files it."""

    def __init__(self, base: Path, fixture: str) -> None:
        run_fixture_in(load_fixture(REPLAY / fixture), base)
        self.project = base / "project"
        (self.transcript,) = sorted((base / "transcripts").glob("*.jsonl"))
        self.config = base / "claude-config"
        self.folder = self.config / "projects" / folder_name(str(self.project.resolve()))
        self.folder.mkdir(parents=True)
        shutil.copy(self.transcript, self.folder / self.transcript.name)

    def entries(self) -> list[dict[str, object]]:
        return [json.loads(line) for line in self.transcript.read_text("utf-8").splitlines() if line.strip()]


@pytest.fixture(scope="module")
def two_compactions(tmp_path_factory: pytest.TempPathFactory) -> Replayed:
    return Replayed(tmp_path_factory.mktemp("d"), "d-two-compactions-before-ack")


@pytest.fixture(scope="module")
def forgotten_update(tmp_path_factory: pytest.TempPathFactory) -> Replayed:
    return Replayed(tmp_path_factory.mktemp("c"), "c-forgotten-update-rg6")


def timeline(
    replayed: Replayed, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str
) -> tuple[int, str, str]:
    monkeypatch.chdir(replayed.project)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(replayed.config))
    monkeypatch.delenv("NO_COLOR", raising=False)
    status = main(["timeline", *args])
    out, err = capsys.readouterr()
    return status, out, err


def data(replayed: Replayed, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> dict:  # type: ignore[type-arg]
    status, out, err = timeline(replayed, monkeypatch, capsys, "--output-format", "json")
    assert (status, err) == (0, "")
    document = json.loads(out)
    jsonschema.validate(document, SCHEMA)
    return document  # type: ignore[no-any-return]


def of_kind(document: dict, kind: str) -> list[dict]:  # type: ignore[type-arg]
    return [event for event in document["events"] if event["kind"] == kind]


def test_the_latest_session_of_the_project_is_found_where_the_client_keeps_it(
    two_compactions: Replayed, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    document = data(two_compactions, monkeypatch, capsys)
    assert document["sessions"] == [two_compactions.transcript.stem]
    (started,) = of_kind(document, "session")
    assert (started["how"], started["turn"]) == ("startup", 0)


def test_compactions_carry_the_clients_own_figures(
    two_compactions: Replayed, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    boundaries = [e for e in two_compactions.entries() if e.get("subtype") == "compact_boundary"]
    recorded = [
        (m["trigger"], m["preTokens"], m["postTokens"])
        for m in (b["compactMetadata"] for b in boundaries)  # type: ignore[index]
    ]
    document = data(two_compactions, monkeypatch, capsys)
    drawn = [(c["trigger"], c["pre_tokens"], c["post_tokens"]) for c in of_kind(document, "compaction")]
    assert drawn == recorded and len(drawn) == 2


def test_every_reply_is_one_turn_with_the_fill_the_client_shows(
    two_compactions: Replayed, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    last: dict[str, int] = {}
    for entry in two_compactions.entries():
        message = entry.get("message")
        if entry.get("type") == "assistant" and isinstance(message, dict) and message.get("usage"):
            usage = message["usage"]
            sent = usage["input_tokens"] + usage["cache_creation_input_tokens"] + usage["cache_read_input_tokens"]
            if sent:
                last[message["id"]] = sent + usage["output_tokens"]
    document = data(two_compactions, monkeypatch, capsys)
    turns = document["turns"]
    assert [t["tokens"] for t in turns] == list(last.values())
    assert [t["number"] for t in turns] == list(range(1, len(last) + 1))
    assert [round(t["fill"] * 100) for t in turns] == [percent_used(tokens, 200_000) for tokens in last.values()]


def test_checkpoints_and_their_merges_are_the_ones_the_hooks_wrote(
    two_compactions: Replayed, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    document = data(two_compactions, monkeypatch, capsys)
    written = [(c["checkpoint"], c["trigger"], c["merged_at"]) for c in of_kind(document, "checkpoint")]
    assert written == [("cx-001", "auto", "2026-02-17T12:35:00Z"), ("cx-002", "auto", "2026-02-17T12:35:00Z")]
    compactions = [c["turn"] for c in of_kind(document, "compaction")]
    assert [c["turn"] for c in of_kind(document, "checkpoint")] == compactions
    assert [m["checkpoint"] for m in of_kind(document, "merge")] == ["cx-001", "cx-002"]


def test_what_sessionstart_told_is_compared_with_what_the_file_said(
    two_compactions: Replayed, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    document = data(two_compactions, monkeypatch, capsys)
    after = [r for r in of_kind(document, "resumption") if r["source"] == "compact"]
    assert [(r["checkpoint"], r["told_phase"], r["matches"]) for r in after] == [
        ("cx-001", "Phase 2 (Core License Changes)", True),
        ("cx-002", "Phase 2 (Core License Changes)", True),
    ]
    assert [(p["before"], p["after"]) for p in of_kind(document, "phase-change")] == [
        ("Phase 1 (Dependency Audit)", "Phase 2 (Core License Changes)")
    ]


def test_a_forgotten_update_is_a_stale_stretch_with_its_length(
    forgotten_update: Replayed, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    document = data(forgotten_update, monkeypatch, capsys)
    (stale,) = of_kind(document, "stale")
    assert stale["end_turn"] is None and stale["minutes"] > 0
    assert any("qg-1" in move for move in stale["moves"])
    updates = of_kind(document, "section-update")
    assert all(u["turn"] <= stale["turn"] for u in updates)


def test_the_terminal_picture_fits_and_is_coloured_only_when_asked(
    two_compactions: Replayed, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    status, plain, _ = timeline(two_compactions, monkeypatch, capsys, "--width", "72")
    assert status == 0 and not ANSI.search(plain)
    assert max(len(line) for line in plain.splitlines()) <= 72
    assert "2 compactions (160k→5.5k, 160k→5.2k), 2 checkpoints, all merged, never stale" in " ".join(plain.split())
    _, coloured, _ = timeline(two_compactions, monkeypatch, capsys, "--width", "72", "--color", "always")
    assert ANSI.search(coloured) and ANSI.sub("", coloured) == plain
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.chdir(two_compactions.project)
    assert main(["timeline", "--width", "72"]) == 0
    assert not ANSI.search(capsys.readouterr().out)


def test_the_page_has_a_marker_per_compaction_and_checkpoint(
    two_compactions: Replayed,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    page = tmp_path / "timeline.html"
    status, out, _ = timeline(two_compactions, monkeypatch, capsys, "--html", str(page))
    assert status == 0 and "2 compactions" in out
    html = page.read_text("utf-8")
    assert len(re.findall(r'class="marker compaction\b', html)) == 2
    assert len(re.findall(r'class="marker checkpoint\b', html)) == 2
    assert "http" not in html.replace("http-equiv", "")


def test_several_sessions_are_stitched_on_one_axis(
    two_compactions: Replayed,
    forgotten_update: Replayed,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    shutil.copy(forgotten_update.transcript, two_compactions.folder / forgotten_update.transcript.name)
    try:
        status, out, _ = timeline(two_compactions, monkeypatch, capsys, "--all", "--output-format", "json")
    finally:
        (two_compactions.folder / forgotten_update.transcript.name).unlink()
    document = json.loads(out)
    assert status == 0 and len(document["sessions"]) == 2
    numbers = [t["number"] for t in document["turns"]]
    assert numbers == list(range(1, len(numbers) + 1))
    starts = of_kind(document, "session")
    assert starts[0]["turn"] == 0 and starts[1]["turn"] > 0


def test_a_truncated_last_line_gives_a_partial_picture_that_says_so(
    two_compactions: Replayed,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    cut = tmp_path / "cut.jsonl"
    text = two_compactions.transcript.read_bytes()
    cut.write_bytes(text[: len(text) - 40])
    status, out, err = timeline(two_compactions, monkeypatch, capsys, str(cut), "--width", "100")
    assert (status, err) == (0, "")
    assert "truncated" in out and "Traceback" not in out


@pytest.mark.parametrize(
    ("args", "said"),
    [(("missing.jsonl",), "no such transcript"), (("--session", "no-such-session"), "no-such-session")],
)
def test_nothing_to_draw_is_one_line_and_exit_2(
    two_compactions: Replayed,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    args: tuple[str, ...],
    said: str,
) -> None:
    status, out, err = timeline(two_compactions, monkeypatch, capsys, *args)
    assert status == 2 and out == ""
    assert err.startswith("ctxres timeline: ") and said in err and len(err.strip().splitlines()) == 1


def test_a_project_the_client_never_ran_in_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / ".git").mkdir()
    monkeypatch.chdir(project)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "config"))
    assert main(["timeline"]) == 2
    err = capsys.readouterr().err
    expected = os.path.join(str(tmp_path / "config"), "projects", folder_name(str(project.resolve())))
    assert expected in err and len(err.strip().splitlines()) == 1


def test_the_readmes_example_session_is_a_fresh_replay() -> None:
    """``fixtures/timeline/`` (the README's sample draws it) is what ``dev/timeline_example.py`` makes."""
    assert dev_script("timeline_example").differences() == []


def test_section_updates_are_the_sessions_own_edits_of_the_workflow(
    two_compactions: Replayed, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each Edit of ORCHESTRATION.yaml in the recorded session that moved ``recovery_state.updated_at`` is one
    update, at its turn, with the phase the section then named; the section's time is the one the edit wrote."""
    document = data(two_compactions, monkeypatch, capsys)
    edits = [u for u in of_kind(document, "section-update") if u["source"] == "edit"]
    assert [(u["turn"], u["phase"]) for u in edits] == [
        (3, "Phase 1 (Dependency Audit)"),
        (8, "Phase 2 (Core License Changes)"),
        (12, "Phase 2 (Core License Changes)"),
        (15, "Phase 2 (Core License Changes)"),
    ]
    written = [
        line.split('"')[1]
        for entry in two_compactions.entries()
        if isinstance(entry.get("toolUseResult"), dict) and "newString" in entry["toolUseResult"]  # type: ignore[operator]
        for line in str(entry["toolUseResult"]["newString"]).splitlines()  # type: ignore[index]
        if line.strip().startswith("updated_at:")
    ]
    assert [u["updated_at"] for u in edits] == written
