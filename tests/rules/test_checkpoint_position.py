"""The rules of linters/rules/checkpoint_position.py: S004 (`last_checkpoint` behind the latest
checkpoint) and S016 (later checkpoints in the workflow's own folder)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from ctxres.findings import Finding, Severity
from ctxres.state import staleness as core

from .rule_folders import RULES, check_folder
from .s_families import NOW, check, codes, line_of, v2


def test_s004_last_checkpoint_older_than_the_latest() -> None:
    text = v2(last_checkpoint='"CP-001"') + textwrap.dedent(
        """\
        checkpoints:
          latest_id: "CP-002"
          entries:
            - {id: "CP-001", timestamp: "2026-02-17T08:00:00Z"}
            - {id: "CP-002", timestamp: "2026-02-17T09:00:00Z"}
        """
    )
    found = check(text)
    entry, latest = line_of(text, '{id: "CP-001"'), line_of(text, "latest_id")
    assert [(f.code, f.position.line, f.position.col) for f in found] == [("S004", 3, 22)]
    assert found[0].message == (
        f'`recovery_state.last_checkpoint` names "CP-001" (`checkpoints.entries[0].id` on line {entry}), '
        f'but the latest checkpoint is "CP-002" (`checkpoints.latest_id` on line {latest})'
    )
    assert found[0].fix == 'Set last_checkpoint to "CP-002".'
    assert codes(text.replace('last_checkpoint: "CP-001"', 'last_checkpoint: "cp-002"')) == []


def test_s004_null_unknown_and_time_instead_of_id() -> None:
    section = (
        'checkpoints:\n  latest_id: "CP-002"\n  entries:\n    - {id: "CP-002", timestamp: "2026-02-17T09:00:00Z"}\n'
    )
    null = check(v2() + section)
    assert [f.code for f in null] == ["S004"] and null[0].message.startswith("`recovery_state.last_checkpoint` is null")
    unknown = check(v2(last_checkpoint='"CP-005"') + section)
    assert "does not record" in unknown[0].message and "record CP-005" in unknown[0].fix
    timed = check(v2(last_checkpoint='"2026-02-17T09:00:00Z"') + section)
    assert "is the time of the latest checkpoint" in timed[0].message and 'not its id: use "CP-002"' in timed[0].message
    assert timed[0].severity is Severity.WARNING  # the same fact as the id
    assert timed[0].fix == 'Set last_checkpoint to "CP-002" (its id, not its time).'


def test_s004_nothing_recorded_and_ambiguous_sections() -> None:
    empty = "checkpoints:\n  latest_id: null\n  entries: []\n"
    # Unused section beside a free-form label: the normal state of a workflow that never compacted (S015 warning).
    found = check(v2(last_checkpoint='"workflow-complete"') + empty)
    assert [(f.code, f.severity) for f in found] == [("S015", Severity.WARNING)]
    assert "the `checkpoints` section is unused" in found[0].message and "null" in found[0].fix
    assert [f.code for f in check(v2(last_checkpoint='"CP-workflow-complete"') + empty)] == ["S015"]
    # ... but a checkpoint id that the section does not record is still S004's error.
    unrecorded = check(v2(last_checkpoint='"CP-003"') + empty)
    assert [(f.code, f.severity) for f in unrecorded] == [("S004", Severity.ERROR)]
    assert "records no checkpoint" in unrecorded[0].message
    assert codes(v2() + empty) == []
    # No checkpoints section, an unknown shape, or a section that contradicts itself: nothing to compare with.
    assert codes(v2(last_checkpoint='"barrier-4-complete"')) == []
    assert codes(v2(last_checkpoint='"CP-001"') + "checkpoints: {strategy: PHASE}\n") == []
    assert codes(v2(last_checkpoint='"CP-001"') + 'checkpoints: {latest_id: null, entries: [{id: "CP-002"}]}\n') == []
    # A plain list of entries: the last one is the latest.
    assert codes(v2(last_checkpoint='"CP-002"') + 'checkpoints: [{id: "CP-001"}, {id: "CP-002"}]\n') == []


def test_s004_applies_to_v1_sections() -> None:
    text = textwrap.dedent(
        """\
        checkpoints: {latest_id: "CP-002", entries: [{id: "CP-001"}, {id: "CP-002"}]}
        resumption:
          last_checkpoint: "CP-005"
          current_state: "WORKFLOW COMPLETE"
          next_step: "None"
          files_to_read: []
        """
    )
    assert codes(text) == [("S004", 3)]
    assert check(text)[0].message.startswith("`resumption.last_checkpoint` names")


def test_v1_sections_get_only_the_checkpoint_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(core, "utc_now", lambda: NOW)
    text = textwrap.dedent(
        """\
        workflow: {status: "COMPLETE"}
        checkpoints: {latest_id: null, entries: []}
        resumption:
          last_checkpoint: null
          current_state: "ACTIVE"
          next_step: "Close the feature"
          files_to_read: []
          updated_at: "2999-01-01T00:00:00Z"
          agent_summaries: {}
        """
    )
    assert codes(text) == []


def _s016(folder: Path) -> list[Finding]:
    return [f for f in check_folder(folder) if f.code == "S016"]


def test_s016_lists_the_later_checkpoints_of_the_folder(tmp_path: Path) -> None:
    (tmp_path / "ORCHESTRATION.yaml").write_text((RULES / "S016" / "good" / "ORCHESTRATION.yaml").read_text())
    assert _s016(tmp_path) == []  # a folder with nothing else: the normal state
    for rel in ["CP-003.md", "a/CP-004.json", "a/b/cp-5-notes.md", "a/b/c/CP-006.md", "a/b/c/d/CP-009.md"]:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x\n")
    (found,) = _s016(tmp_path)
    assert found.severity is Severity.ERROR and found.position.line == 3
    # three levels of sub-folders are read (CP-009 is deeper); the first three names and how many more
    assert found.message.endswith(
        "records later checkpoints that the section does not: CP-003.md, a/CP-004.json, a/b/cp-5-notes.md and 1 more"
    )
    # Only a name deeper than three levels left: nothing is reported.
    for rel in ["CP-003.md", "a/CP-004.json", "a/b/cp-5-notes.md", "a/b/c/CP-006.md"]:
        (tmp_path / rel).unlink()
    assert _s016(tmp_path) == []
