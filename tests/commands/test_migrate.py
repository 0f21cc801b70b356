"""`ctxres migrate`: v1.0 -> v2.0, lossless, byte-identical outside the section, idempotent."""

from __future__ import annotations

import re
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

from ctxres.config import Config
from ctxres.formats.document import Document, format_json_path
from ctxres.formats.loading import Format, parse_text
from ctxres.formats.yamledit import top_level_span
from ctxres.linters.cli import main
from ctxres.linters.rules import compatibility, conformance
from ctxres.migration.migrate import (
    PLACEHOLDER,
    Outcome,
    infer_agent_summaries,
    infer_phase,
    infer_quality_trajectory,
    infer_workflow_status,
    migrate_text,
    phases_in_prose,
    placeholders,
    status_from_prose,
)
from ctxres.state.resumption import detect_version, v1_view

from ..conftest import CORPUS


def _doc(text: str, path: str = "ORCHESTRATION.yaml") -> Document:
    document = parse_text(path, "orchestration", Format.YAML, text).document
    assert document is not None
    return document


def _section(text: str) -> Any:
    return _doc(text).data["resumption"]


def _v1_corpus() -> list[Path]:
    files = sorted((CORPUS / "history").rglob("*.yaml"))
    for path in sorted((CORPUS / "orchestration").glob("*.yaml")):
        try:
            data = yaml.safe_load(path.read_text("utf-8"))
        except yaml.YAMLError:
            continue
        section = data.get("resumption") if isinstance(data, dict) else None
        if isinstance(section, dict) and detect_version(section) == "1.0":
            files.append(path)
    return files


V1_CORPUS = _v1_corpus()


def test_the_corpus_has_the_expected_v1_files() -> None:
    # 12 committed versions of two files, and 8 orchestration files (one of them has only odd keys)
    assert len(V1_CORPUS) == 20


def _kept_lines(text: str, *, renamed: bool = True) -> Counter[str]:
    """The non-blank lines of the section, without their indentation (v1 `current_state` renamed)."""
    span = top_level_span(text, "resumption")
    assert span is not None
    lines = [line.strip() for line in text[span[0] : span[1]].splitlines()[1:] if line.strip()]
    return Counter(re.sub(r"^current_state:", "current_activity:", line) if renamed else line for line in lines)


def _listed(message: str, word: str) -> set[str]:
    part = re.search(rf"{word} ((?:`[^`]+`(?:, )?)+)", message)
    return set(re.findall(r"`([^`]+)`", part.group(1))) if part else set()


@pytest.mark.parametrize("source", V1_CORPUS, ids=lambda p: p.name)
def test_migrating_every_v1_corpus_file(source: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    copy = tmp_path / "ORCHESTRATION.yaml"
    shutil.copyfile(source, copy)
    before = source.read_text("utf-8")
    assert main(["migrate", "--check", str(copy)]) == 1

    assert main(["migrate", "--write", str(copy)]) == 0
    after = copy.read_text("utf-8")
    expected = migrate_text(before)
    assert expected.outcome is Outcome.MIGRATED and after == expected.text
    gaps = {format_json_path(gap.path) for gap in expected.gaps}

    # byte-identical outside the section
    old_span, new_span = top_level_span(before, "resumption"), top_level_span(after, "resumption")
    assert old_span and new_span and old_span[0] == new_span[0]
    assert before[: old_span[0]] == after[: new_span[0]]
    assert before[old_span[1] :] == after[new_span[1] :]

    # a v1.0 reader sees the same thing; extra keys are kept with their values
    old, new = _section(before), _section(after)
    assert detect_version(new) == "2.0"
    assert v1_view(new) == v1_view(old)
    extras = set(old) - {"last_checkpoint", "current_state", "next_step", "cross_session_portable"}
    extras -= {"ephemeral_references", "files_to_read"}
    assert all(new[key] == old[key] for key in extras)
    assert new["recovery_state"]["current_activity"] == old.get("current_state", PLACEHOLDER)

    # every line of the old section is still there (re-indented), comments included
    assert _kept_lines(before) <= _kept_lines(after, renamed=False)

    # every placeholder is listed, and every listed placeholder is in the file
    written = {format_json_path(p) for p in placeholders(new, ("resumption",))}
    assert written == {format_json_path(g.path) for g in expected.gaps if g.placeholder}

    # the v2 conformance rules pass, except for the fields reported as not inferred
    doc = _doc(after)
    for finding in conformance.check_document(doc, Config()):
        if finding.json_path in gaps:
            continue
        if finding.code == "C006":
            assert finding.json_path in {format_json_path(("resumption", key)) for key in extras}, finding
        elif (
            finding.code == "C001" and finding.message.startswith("missing ") and "required keys in" in finding.message
        ):
            # several keys missing in one mapping: one finding that lists them (each one a reported gap)
            listed = {
                f"{finding.json_path}.{key}" for key in re.findall(r"`([^`.]+)`", finding.message.split(": ", 1)[1])
            }
            assert listed <= gaps, finding
        elif finding.code == "C007" and finding.json_path == "$.resumption":
            assert {f"$.resumption.{key}" for key in _listed(finding.message, "missing")} <= gaps, finding
            assert _listed(finding.message, "unexpected") <= extras, finding
        else:
            pytest.fail(f"unexpected conformance finding: {finding}")
    # the only compatibility findings left are the placeholders
    assert {(f.code, f.json_path) for f in compatibility.check_document(doc, Config())} == {
        ("V007", p) for p in written
    }

    # a second run changes nothing
    capsys.readouterr()
    assert main(["migrate", "--write", str(copy)]) == 0
    assert copy.read_text("utf-8") == after
    assert main(["migrate", "--check", str(copy)]) == 0
    assert "already v2.0" in capsys.readouterr().err


V1 = """\
# header
workflow:
  status: "ACTIVE"   # keep me
pipelines:
  lic:
    current_phase: 2
    phases:
      - {id: 1, name: "Audit", status: "COMPLETE", agents: [{id: "auditor", status: "COMPLETE", artifact: "a.md"}]}
      - {id: 2, name: "Core changes", status: "IN_PROGRESS"}
quality_gates:
  qg-1: {status: "PASS", max_iterations: 3, iteration_history: [{score: 0.8}, {score: 0.95}]}
  qg-2: {status: "PENDING", max_iterations: 3}
resumption:
  last_checkpoint: "CP-001"   # latest
  current_state: "Phase 2 IN_PROGRESS: 3 parallel agents."
  # the one thing to do next
  next_step: "Run QG-2."

  # what to read first
  files_to_read:
    - "ORCHESTRATION_PLAN.md"   # strategic context
    # - "OLD.md"   (commented out)
    - path: "WORKTRACKER.md"
      purpose: "Tactical documentation"

  cross_session_portable: true
  # kept for our dashboard
  overall_progress: "50%"

# trailing comment
next_actions: []
"""


def test_migrate_moves_fields_and_keeps_lines_verbatim() -> None:
    result = migrate_text(V1)
    assert result.outcome is Outcome.MIGRATED
    assert result.text.startswith(V1[: V1.index("resumption:")])
    assert result.text.endswith("\n# trailing comment\nnext_actions: []\n")
    assert '    last_checkpoint: "CP-001"   # latest\n' in result.text
    assert '    # the one thing to do next\n    next_step: "Run QG-2."\n' in result.text
    block = (
        '  # what to read first\n  files_to_read:\n    - "ORCHESTRATION_PLAN.md"   # strategic context\n'
        '    # - "OLD.md"   (commented out)\n    - path: "WORKTRACKER.md"\n'
    )
    assert block in result.text
    assert '  # kept for our dashboard\n  overall_progress: "50%"\n' in result.text
    assert _kept_lines(V1) <= _kept_lines(result.text, renamed=False)
    state = _section(result.text)["recovery_state"]
    assert state == {
        "last_checkpoint": "CP-001",
        "current_phase": 2,
        "current_phase_name": "Core changes",
        "workflow_status": "ACTIVE",
        "current_activity": "Phase 2 IN_PROGRESS: 3 parallel agents.",
        "next_step": "Run QG-2.",
        "context_fill_at_update": None,
        "updated_at": PLACEHOLDER,
        "cross_session_portable": True,
    }
    assert [(gap.path, gap.placeholder) for gap in result.gaps] == [
        (("resumption", "recovery_state", "updated_at"), True)
    ]


def test_migrate_adds_the_other_sub_sections() -> None:
    section = _section(migrate_text(V1).text)
    assert list(section) == [
        "recovery_state",
        "files_to_read",
        "quality_trajectory",
        "defect_summary",
        "decision_log",
        "agent_summaries",
        "compaction_events",
        "overall_progress",
    ]
    assert section["quality_trajectory"]["gates_completed"] == ["qg-1"]
    assert section["quality_trajectory"]["score_history"] == {"qg-1": [0.8, 0.95]}
    assert section["agent_summaries"] == {"auditor": "COMPLETE. Artifact: a.md."}
    assert section["decision_log"] == []
    assert section["compaction_events"] == {"count": 0, "events": []}
    assert section["defect_summary"]["total_defects_found"] == 0


def test_migrate_is_idempotent_and_leaves_v2_alone() -> None:
    once = migrate_text(V1)
    twice = migrate_text(once.text)
    assert twice.outcome is Outcome.UNCHANGED and twice.text == once.text


@pytest.mark.parametrize(
    ("text", "outcome", "words"),
    [
        ("workflow: {}\n", Outcome.SKIPPED, "no top-level `resumption:`"),
        ("resumption:\n", Outcome.SKIPPED, "empty"),
        ("resumption: [1, 2]\n", Outcome.REFUSED, "not a mapping"),
        ("resumption: {last_checkpoint: null, current_state: x, next_step: y}\n", Outcome.REFUSED, "flow style"),
        ("resumption:\n  next_step: a\n   bad: [\n", Outcome.REFUSED, "invalid YAML"),
        ("resumption:\n  next_step: a\n  next_step: b\n", Outcome.REFUSED, "duplicate key"),
        ("resumption:\n  current_state: |+\n    kept blank line\n\n  next_step: a\n", Outcome.REFUSED, "faithfully"),
    ],
)
def test_what_cannot_be_migrated_is_left_byte_identical(text: str, outcome: Outcome, words: str) -> None:
    result = migrate_text(text)
    assert result.outcome is outcome and words in result.message
    assert result.text == text


def test_duplicate_keys_outside_the_section_do_not_block_it() -> None:
    text = "a: 1\na: 2\nresumption:\n  last_checkpoint: null\n  current_state: x\n  next_step: y\n  files_to_read: []\n"
    assert migrate_text(text).outcome is Outcome.MIGRATED


def test_block_scalars_comments_and_wide_indentation() -> None:
    text = (
        "resumption:\n"
        "    # about this section\n"
        "    current_state: |\n"
        "      Phase 2 running.\n"
        "      # this line is text, not a comment\n"
        "    next_step: >-\n"
        "      Do the\n"
        "      next thing\n"
        "    last_checkpoint: null\n"
        "    files_to_read:\n"
        "    - a.md\n"
        "    # trailing comment of the section\n"
        "other: 1\n"
    )
    result = migrate_text(text)
    assert result.outcome is Outcome.MIGRATED
    assert result.text.startswith("resumption:\n    # about this section\n    recovery_state:\n")
    assert "        current_activity: |\n          Phase 2 running.\n" in result.text
    assert result.text.endswith("    # trailing comment of the section\nother: 1\n")
    state = _section(result.text)["recovery_state"]
    assert state["current_activity"] == "Phase 2 running.\n# this line is text, not a comment\n"
    assert state["next_step"] == "Do the next thing"
    assert state["current_phase"] == 2  # the prose names one phase


def test_crlf_files_stay_crlf_and_a_missing_final_newline_stays_missing() -> None:
    text = 'x: 1\r\nresumption:\r\n  last_checkpoint: null\r\n  current_state: "s"\r\n  next_step: "n"\r\n'
    text += '  files_to_read: ["a"]\r\ny: 2'
    result = migrate_text(text)
    assert result.outcome is Outcome.MIGRATED
    assert "\n" not in result.text.replace("\r\n", "")
    assert result.text.startswith("x: 1\r\nresumption:\r\n  recovery_state:\r\n")
    assert result.text.endswith("\r\ny: 2")


def test_missing_v1_fields_are_reported_not_invented() -> None:
    text = "resumption:\n  next_action: 'Do X'\n  files_to_read: []\n"
    result = migrate_text(text)
    state = _section(result.text)["recovery_state"]
    assert "next_step" not in state and "last_checkpoint" not in state
    assert state["current_activity"] == PLACEHOLDER
    assert {(gap.path[-1], gap.placeholder) for gap in result.gaps} >= {
        ("last_checkpoint", False),
        ("next_step", False),
        ("current_activity", True),
        ("updated_at", True),
    }
    assert _section(result.text)["next_action"] == "Do X"


# --- inference ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("prose", "status"),
    [
        ("WORKFLOW COMPLETE. All 4 phases done.", "COMPLETE"),
        ("Workflow COMPLETE. All 7 features delivered", "COMPLETE"),
        ("WORKFLOW_COMPLETE", "COMPLETE"),
        ("FAILED - Phase 2 agent-2 failed", "FAILED"),
        ("Workflow not started. Phase 1 is next.", "ACTIVE"),
        ("PAUSED by the user", "PAUSED"),
        ("Phase 2 COMPLETE. All 3 agents PASS. QG-2 IN_PROGRESS.", None),
        ("QG-1 FAILED twice, now passing", None),
        ("WORKFLOW COMPLETE but the workflow failed", None),
        (None, None),
    ],
)
def test_status_from_prose(prose: str | None, status: str | None) -> None:
    assert status_from_prose(prose) == status


def test_phases_in_prose() -> None:
    assert phases_in_prose("QG-3 PASS. Phases 1-3 complete. Phase 4 unblocked.") == {1, 2, 3, 4}
    assert phases_in_prose("PHASE_2_READY") == {2}
    assert phases_in_prose("All 4 phases done.") == frozenset()


def _data(**kwargs: Any) -> dict[str, Any]:
    return kwargs


def test_workflow_status_from_the_file_and_the_prose() -> None:
    active = _data(workflow={"status": "in progress"})
    assert infer_workflow_status(active, "Phase 2 running").value == "ACTIVE"
    assert infer_workflow_status(_data(workflow={"status": "COMPLETED"}), None).value == "COMPLETE"
    assert infer_workflow_status(_data(), "WORKFLOW COMPLETE.").value == "COMPLETE"
    conflict = infer_workflow_status(active, "WORKFLOW COMPLETE.")
    assert not conflict.ok and "decide which" in conflict.source
    unknown = infer_workflow_status(_data(workflow={"status": "ARCHIVED"}), None)
    assert not unknown.ok and "ARCHIVED" in unknown.source
    # The core's vocabulary: a cancelled workflow failed, one on hold is paused.
    assert infer_workflow_status(_data(workflow={"status": "CANCELLED"}), None).value == "FAILED"
    assert infer_workflow_status(_data(workflow={"status": "on hold"}), None).value == "PAUSED"
    assert not infer_workflow_status(_data(), "Phase 2 running").ok


def _pipeline(current: Any, *phases: tuple[Any, str, str]) -> dict[str, Any]:
    return {"current_phase": current, "phases": [{"id": i, "name": n, "status": s} for i, n, s in phases]}


def test_phase_from_one_pipeline() -> None:
    data = _data(pipelines={"p": _pipeline(2, (1, "Audit", "COMPLETE"), (2, "Core", "IN_PROGRESS"))})
    status = infer_workflow_status(data, None)
    phase, name = infer_phase(data, "Phase 1 done, phase 2 running", status)
    assert (phase.value, name.value) == (2, "Core")


def test_phase_names_of_pipelines_that_agree_are_joined() -> None:
    data = _data(
        pipelines={
            "a": _pipeline(5, (5, "Documentation", "COMPLETE")),
            "b": _pipeline(5, (5, "Compliance Documentation", "COMPLETE")),
        },
        workflow={"status": "COMPLETE"},
    )
    phase, name = infer_phase(data, None, infer_workflow_status(data, None))
    assert (phase.value, name.value) == (5, "Documentation / Compliance Documentation")


def test_phase_is_not_guessed_when_sources_disagree() -> None:
    apart = _data(pipelines={"a": _pipeline(2, (2, "X", "ACTIVE")), "b": _pipeline(3, (3, "Y", "ACTIVE"))})
    phase, name = infer_phase(apart, None, infer_workflow_status(apart, None))
    assert not phase.ok and not name.ok and "different phases" in phase.source
    stale = _data(pipelines={"a": _pipeline(0, (0, "X", "IN_PROGRESS"), (2, "Y", "READY"))})
    phase, _ = infer_phase(stale, "PHASE_2_READY", infer_workflow_status(stale, None))
    assert (
        not phase.ok
        and phase.source == "phase 0 (from the pipelines' current_phase) but current_state mentions phase 2"
    )
    done = _data(
        pipelines={"a": _pipeline(2, (2, "X", "IN_PROGRESS"), (3, "Y", "BLOCKED"))}, workflow={"status": "COMPLETE"}
    )
    phase, _ = infer_phase(done, None, infer_workflow_status(done, None))
    assert not phase.ok and "COMPLETE but some phases are not" in phase.source


def test_phase_from_statuses_when_no_pipeline_declares_it() -> None:
    finished = _data(
        pipeline=_pipeline("complete", (0, "DNS", "COMPLETE"), ("2a", "Content", "COMPLETE"), (4, "Go-live", "DONE"))
    )
    phase, name = infer_phase(finished, None, infer_workflow_status(finished, None))
    assert (phase.value, name.value) == (4, "Go-live")
    waiting = _data(pipelines={"p": _pipeline(None, (1, "First", "PENDING"), (2, "Second", "BLOCKED"))})
    assert infer_phase(waiting, "Workflow not started", infer_workflow_status(waiting, None))[0].value == 1
    nothing = _data()
    assert not infer_phase(nothing, "no numbers here", infer_workflow_status(nothing, None))[0].ok


def test_quality_trajectory_from_gates() -> None:
    data = _data(
        quality_gates={
            "threshold": 0.92,
            "qg-1": {"status": "PASS", "max_iterations": 3, "iteration_history": [{"score": 0.825}, {"score": 0.941}]},
            "qg-2": {
                "status": "IN_PROGRESS",
                "max_iterations": 3,
                "current_iteration": 1,
                "iteration_history": [{"score": 0.9}],
            },
            "qg-3": {"status": "PENDING", "max_iterations": 2},
        }
    )
    assert infer_quality_trajectory(data) == {
        "gates_completed": ["qg-1"],
        "gates_remaining": ["qg-2", "qg-3"],
        "current_gate": "qg-2",
        "current_gate_iteration": 1,
        "score_history": {"qg-1": [0.825, 0.941], "qg-2": [0.9]},
        "lowest_dimension": None,
        "total_iterations_used": 3,
        "total_iterations_budget": 8,
    }
    listed = _data(quality_gates={"gates": [{"id": "QG-0", "status": "COMPLETE"}, {"id": "QG-1", "status": "BLOCKED"}]})
    trajectory = infer_quality_trajectory(listed)
    assert (
        trajectory is not None
        and trajectory["gates_completed"] == ["QG-0"]
        and trajectory["total_iterations_used"] is None
    )
    assert infer_quality_trajectory(_data(quality_gates={"qg-1": {"status": "SOMETHING_ELSE"}})) is None
    assert infer_quality_trajectory(_data(quality={"qg-1": {"status": "PASS"}})) is None


def test_agent_summaries_from_completed_agents() -> None:
    agents = [
        {"id": "a", "status": "COMPLETE", "summary": "Found 3 gaps.\n  All fixed."},
        {"id": "b", "status": "done", "artifact": "out/b.md"},
        {"id": "c", "status": "BLOCKED"},
        {"id": "d", "status": "COMPLETED"},
    ]
    data = _data(pipelines={"p": {"phases": [{"id": 1, "agents": agents}]}})
    assert infer_agent_summaries(data) == {
        "a": "COMPLETE. Found 3 gaps. All fixed.",
        "b": "DONE. Artifact: out/b.md.",
        "d": "COMPLETED.",
    }


# --- the command --------------------------------------------------------------------------------


def test_default_prints_a_diff_and_changes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "ORCHESTRATION.yaml"
    target.write_text(V1, "utf-8")
    assert main(["migrate", str(target)]) == 0
    out, err = capsys.readouterr()
    assert out.startswith(f"--- a/{target}\n+++ b/{target}\n")
    assert "+  recovery_state:\n" in out and '-  last_checkpoint: "CP-001"   # latest\n' in out
    line = migrate_text(V1).text.splitlines().index(f'    updated_at: "{PLACEHOLDER}"') + 1
    assert f"{target}:{line}:17: set `resumption.recovery_state.updated_at` by hand" in err
    assert target.read_text("utf-8") == V1


def test_check_and_write(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "ORCHESTRATION.yaml"
    target.write_bytes(b"\xef\xbb\xbf" + V1.encode())
    assert main(["migrate", "--check", str(target)]) == 1
    assert "run `ctxres migrate --write" in capsys.readouterr().out
    assert main(["migrate", "--write", "-v", str(target)]) == 0
    out = capsys.readouterr().out
    assert "migrated to v2.0" in out and "current_phase = 2 (from the pipelines' current_phase)" in out
    assert target.read_bytes() == b"\xef\xbb\xbf" + migrate_text(V1).text.encode()
    assert main(["migrate", "--check", str(target)]) == 0


def test_files_that_cannot_be_migrated_exit_2_and_stay_identical(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "broken.yaml"
    broken.write_text("resumption:\n  next_step: a\n   bad: [\n", "utf-8")
    plain = tmp_path / "plain.yaml"
    plain.write_text("workflow: {}\n", "utf-8")
    assert main(["migrate", "--write", str(broken), str(plain), str(tmp_path / "missing.yaml"), str(tmp_path)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 4
    assert err[0].startswith(f"{broken}: error: line 3: invalid YAML")
    assert err[1] == f"{plain}: no top-level `resumption:` section, nothing to do"
    assert err[2].startswith(f"{tmp_path / 'missing.yaml'}: error: cannot read it")
    assert err[3].startswith(f"{tmp_path}: error: is a folder")
    assert broken.read_text("utf-8") == "resumption:\n  next_step: a\n   bad: [\n"
    assert plain.read_text("utf-8") == "workflow: {}\n"


def test_a_file_without_a_section_alone_exits_0(tmp_path: Path) -> None:
    plain = tmp_path / "plain.yaml"
    plain.write_text("workflow: {}\n", "utf-8")
    assert main(["migrate", "--check", str(plain)]) == 0


# --- an already-stale file, and the v1.0 spelling last_checkpoint_id ---------------------------------------

STALE = """\
workflow:
  id: "demo-20260217-001"
  status: "COMPLETE"
pipelines:
  main:
    current_phase: 2
    phases:
      - {id: 1, name: "Research", status: "COMPLETE"}
      - {id: 2, name: "Design", status: "COMPLETE"}
quality_gates:
  qg-1: {status: "PASS", iteration_history: [{score: 0.95}]}
  qg-2: {status: "PENDING"}
resumption:
  last_checkpoint: null
  current_state: "Phase 2 ready: waiting for QG-2"
  next_step: "Run QG-2."
  files_to_read: ["ORCHESTRATION.yaml"]
"""


def test_a_stale_file_gets_no_self_contradicting_status_but_a_placeholder_that_says_why() -> None:
    result = migrate_text(STALE)
    assert result.outcome is Outcome.MIGRATED
    recovery = _section(result.text)["recovery_state"]
    assert recovery["workflow_status"] == PLACEHOLDER  # not COMPLETE next to "ready" and qg-2 remaining
    assert recovery["current_phase"] == 2 and recovery["current_phase_name"] == "Design"  # these agree
    assert recovery["current_activity"] == "Phase 2 ready: waiting for QG-2"
    (gap,) = [g for g in result.gaps if g.path[-1] == "workflow_status"]
    assert gap.reason.startswith("the file is already stale: workflow.status says COMPLETE, but current_state says")
    assert "quality gates are not passed (qg-2)" in gap.reason
    assert any("already stale" in note for note in result.notes)
    # The migrated section no longer contradicts itself (no S005/S010), only the placeholders to set; what the
    # prose says still contradicts workflow.status, and stays reported (S017, as S014 reported it in v1.0).

    from ..rules.s_families import s_findings

    doc = _doc(result.text)
    found = s_findings(doc, Config(root=Path(".")))
    assert [f.code for f in found] == ["S017"]
    assert found[0].message.endswith('`recovery_state.current_activity` says "Phase 2 ready: waiting for QG-2"')
    assert {f.code for f in compatibility.check_document(doc, Config())} == {"V007"}


def test_near_miss_a_complete_file_that_agrees_is_still_migrated_as_complete() -> None:
    done = STALE.replace('qg-2: {status: "PENDING"}', 'qg-2: {status: "PASS", iteration_history: [{score: 0.93}]}')
    done = done.replace("Phase 2 ready: waiting for QG-2", "WORKFLOW COMPLETE. All gates passed.")
    result = migrate_text(done)
    assert _section(result.text)["recovery_state"]["workflow_status"] == "COMPLETE"
    assert result.notes == ()
    # One source alone is enough to doubt COMPLETE: the stale activity, or a gate not passed.
    only_prose = done.replace("WORKFLOW COMPLETE. All gates passed.", "Ready to execute Phase 2")
    assert _section(migrate_text(only_prose).text)["recovery_state"]["workflow_status"] == PLACEHOLDER
    only_gate = done.replace('qg-2: {status: "PASS", iteration_history: [{score: 0.93}]}', 'qg-2: {status: "PENDING"}')
    assert _section(migrate_text(only_gate).text)["recovery_state"]["workflow_status"] == PLACEHOLDER


def test_last_checkpoint_id_is_mapped_to_recovery_state_last_checkpoint(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = STALE.replace("  last_checkpoint: null\n", '  last_checkpoint_id: "CP-004"   # after QG-1\n')
    result = migrate_text(text)
    assert result.outcome is Outcome.MIGRATED
    section = _section(result.text)
    assert section["recovery_state"]["last_checkpoint"] == "CP-004" and "last_checkpoint_id" not in section
    assert '    last_checkpoint: "CP-004"   # after QG-1\n' in result.text  # the line moved, its comment kept
    assert not [g for g in result.gaps if g.path[-1] == "last_checkpoint"]
    assert "`last_checkpoint_id` (a v1.0 spelling) moved to `recovery_state.last_checkpoint`" in result.notes
    path = tmp_path / "ORCHESTRATION.yaml"
    path.write_text(text)
    assert main(["migrate", "--write", str(path)]) == 0
    assert "moved to `recovery_state.last_checkpoint`" in capsys.readouterr().out
    # Near miss: both spellings present: last_checkpoint wins, last_checkpoint_id is kept as it is.
    both = text.replace("  last_checkpoint_id:", '  last_checkpoint: "CP-003"\n  last_checkpoint_id:')
    section = _section(migrate_text(both).text)
    assert section["recovery_state"]["last_checkpoint"] == "CP-003" and section["last_checkpoint_id"] == "CP-004"
