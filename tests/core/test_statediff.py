"""The state comparison behind `ctxres stale` (pure functions over two parsed documents)."""

from __future__ import annotations

import copy
import itertools
from pathlib import Path
from typing import Any

import pytest
import yaml

from ctxres.formats.loading import Format, parse_text
from ctxres.state.statediff import assess, extract, moved_state, parse_timestamp, resumption_moved

from ..conftest import CORPUS

HISTORY = CORPUS / "history"


def load(path: Path) -> Any:
    result = parse_text(path.name, "orchestration", Format.YAML, path.read_text("utf-8"))
    assert result.document is not None
    return result.document.data


def versions(project: str) -> list[Path]:
    return sorted((HISTORY / project).glob("*.yaml"))


def moves_of(old: Any, new: Any) -> list[tuple[str, str, Any, Any]]:
    return [(str(m.unit), m.field, m.before, m.after) for m in moved_state(old, new)]


V2 = """
workflow:
  id: wf-1
  status: ACTIVE
  description: "A demo workflow"  # prose
pipelines:
  main:
    status: PHASE_1_IN_PROGRESS
    current_phase: 1
    progress_percent: 10
    phases:
      - id: 1
        name: "Build"
        status: IN_PROGRESS
        started_at: "2026-02-20T09:00:00Z"
        agents:
          - id: builder
            status: IN_PROGRESS
            role: "Builds the thing"
      - id: 2
        name: "Ship"
        status: BLOCKED
        agents:
          - id: shipper
            status: BLOCKED
quality_gates:
  qg-1:
    status: PENDING
    threshold: 0.92
    current_iteration: 0
    score: null
    iteration_history: []
quality:
  strategies:
    required:
      - id: S-014
        composite_score: 4.4
checkpoints:
  latest_id: CP-001
  entries:
    - id: CP-001
      description: "Phase 0 done"
metrics:
  phases_complete: 0
next_actions:
  immediate:
    - action: "Build it"
blockers:
  active: []
resumption:
  recovery_state:
    last_checkpoint: CP-001
    current_phase: 1
    workflow_status: ACTIVE
    current_activity: phase-1-agent-execution
    next_step: "Run the builder"
    updated_at: "2026-02-20T09:00:00Z"
  agent_summaries: {}
"""


@pytest.fixture
def base() -> dict[str, Any]:
    data = yaml.safe_load(V2)
    assert isinstance(data, dict)
    return data


# --- the real histories --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("project", "stale_versions"),
    [
        # Every transition of PROJ-001 rewrote current_state/next_step with the state.
        ("PROJ-001-oss-release", []),
        # PROJ-003: version 1 started phase 1 and completed its 4 agents, version 2 moved to the
        # supplemental pass and re-scored 0.925 -> 0.953: both left the v1 section untouched.
        # Version 3 completed the workflow and rewrote the section.
        ("PROJ-003-je-ne-sais-quoi", ["20260219T153958Z-97b10396.yaml", "20260219T172440Z-66652b24.yaml"]),
    ],
)
def test_the_stale_transitions_of_the_real_histories(project: str, stale_versions: list[str]) -> None:
    files = versions(project)
    stale = [new.name for old, new in itertools.pairwise(files) if assess(load(old), load(new)) is not None]
    assert stale == stale_versions


@pytest.mark.parametrize("project", ["PROJ-001-oss-release", "PROJ-003-je-ne-sais-quoi"])
def test_every_real_transition_moves_the_state(project: str) -> None:
    files = versions(project)
    assert all(moved_state(load(old), load(new)) for old, new in itertools.pairwise(files))


def test_what_moved_in_proj003_version_1_is_listed_exactly() -> None:
    old, new = versions("PROJ-003-je-ne-sais-quoi")[:2]
    assert moves_of(load(old), load(new)) == [
        ("pipeline jnsq", "status", "PHASE_1_PENDING", "PHASE_1_IN_PROGRESS"),
        ('phase 1 "Persona Distillation"', "status", "PENDING", "IN_PROGRESS"),
        ("agent ps-researcher-001", "status", "PENDING", "COMPLETE"),
        ("agent ps-creator-001", "status", "PENDING", "COMPLETE"),
        ("agent ps-critic-001", "status", "PENDING", "COMPLETE"),
        ("agent adv-scorer-001", "status", "PENDING", "COMPLETE"),
        ('phase 1 "Persona Distillation"', "quality_score", None, 0.925),
        ("barrier barrier-1", "score_recorded", None, 0.925),
    ]


def test_what_moved_in_proj003_version_2_ignores_the_threshold_change() -> None:
    _, old, new, _ = versions("PROJ-003-je-ne-sais-quoi")
    assert moves_of(load(old), load(new)) == [
        ("pipeline jnsq", "status", "PHASE_1_IN_PROGRESS", "PHASE_1_SUPPLEMENTAL"),
        ("agent ps-researcher-001", "supplemental_pass.status", None, "COMPLETE"),
        ("agent ps-creator-001", "status", "COMPLETE", "COMPLETE_SUPPLEMENTAL"),
        ("agent ps-critic-001", "status", "COMPLETE", "COMPLETE_SUPPLEMENTAL"),
        ("agent ps-critic-001", "iterations_complete", 0, 6),
        ("agent adv-scorer-001", "status", "COMPLETE", "COMPLETE_SUPPLEMENTAL"),
        ('phase 1 "Persona Distillation"', "quality_score", 0.925, 0.953),
    ]


def test_a_gate_pass_moves_gate_checkpoint_and_queue_but_not_metrics_or_next_actions() -> None:
    files = versions("PROJ-001-oss-release")
    moved = {(unit, field) for unit, field, _, _ in moves_of(load(files[0]), load(files[1]))}
    assert {
        ("gate qg-1", "status"),
        ("gate qg-1", "current_iteration"),
        ("gate qg-1", "iteration_history"),
        ("gate qg-1", "score"),
        ("checkpoints", "latest_id"),
        ("checkpoints", "entries"),
        ("execution queue", "current_group"),
        ('phase 1 "Dependency License Compatibility Audit"', "artifacts[0].status"),
    } <= moved
    assert not any(unit.startswith(("metrics", "next_actions")) for unit, _ in moved)
    assert not any(field.endswith(("_at", "score_dimensions")) for _, field in moved)


def test_every_parseable_corpus_file_yields_state_and_is_unchanged_against_itself() -> None:
    for path in sorted((CORPUS / "orchestration").glob("*.yaml")):
        result = parse_text(path.name, "orchestration", Format.YAML, path.read_text("utf-8"))
        if result.document is None:
            continue
        data = result.document.data
        assert extract(data).facts, path.name
        assert moved_state(data, copy.deepcopy(data)) == [], path.name


# --- what is state-bearing -----------------------------------------------------------------------


def test_identical_documents_move_nothing(base: dict[str, Any]) -> None:
    assert moved_state(base, copy.deepcopy(base)) == []
    assert assess(base, copy.deepcopy(base)) is None


def test_comments_whitespace_and_quoting_move_nothing() -> None:
    text = V2
    edited = (
        "# a new header comment\n"
        + text.replace("status: ACTIVE\n", 'status: "ACTIVE"   # still running\n', 1).replace("\n\n", "\n")
        + "\n\n"
    )
    old = parse_text("a", "orchestration", Format.YAML, text).document
    new = parse_text("a", "orchestration", Format.YAML, edited).document
    assert old is not None and new is not None
    assert new.text != old.text
    assert moved_state(old.data, new.data) == []


@pytest.mark.parametrize(
    "edit",
    [
        lambda d: d["workflow"].update(description="Another description"),
        lambda d: d["pipelines"]["main"]["phases"][0]["agents"][0].update(role="Builds it better"),
        lambda d: d["pipelines"]["main"]["phases"][0].update(name="Build (renamed)"),
        lambda d: d["pipelines"]["main"].update(progress_percent=50),
        lambda d: d["pipelines"]["main"]["phases"][0].update(started_at="2026-02-20T10:00:00Z"),
        lambda d: d["quality_gates"]["qg-1"].update(threshold=0.95),
        lambda d: d["quality"]["strategies"]["required"][0].update(composite_score=4.9),
        lambda d: d["checkpoints"]["entries"][0].update(description="Phase 0 complete"),
        lambda d: d["metrics"].update(phases_complete=1),
        lambda d: d["next_actions"]["immediate"].append({"action": "Ship it"}),
        lambda d: d["blockers"]["active"].append({"id": "B-1", "status": "OPEN"}),
        lambda d: d["pipelines"]["main"]["phases"].reverse(),
        lambda d: d["quality_gates"]["qg-1"].pop("iteration_history"),
        lambda d: d["quality_gates"]["qg-1"].pop("score"),
    ],
    ids=[
        "workflow description",
        "agent role",
        "phase name",
        "progress percent",
        "timestamp",
        "gate threshold",
        "strategy ranking",
        "checkpoint description",
        "metrics",
        "next_actions",
        "blockers",
        "phases reordered",
        "empty log removed",
        "null score removed",
    ],
)
def test_cosmetic_configuration_and_derived_edits_move_nothing(base: dict[str, Any], edit: Any) -> None:
    new = copy.deepcopy(base)
    edit(new)
    assert new != base
    assert moved_state(base, new) == []
    assert assess(base, new) is None


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (lambda d: d["workflow"].update(status="PAUSED"), ("workflow", "status", "ACTIVE", "PAUSED")),
        (
            lambda d: d["pipelines"]["main"].update(current_phase=2),
            ("pipeline main", "current_phase", 1, 2),
        ),
        (
            lambda d: d["pipelines"]["main"]["phases"][1].update(status="READY"),
            ('phase 2 "Ship"', "status", "BLOCKED", "READY"),
        ),
        (
            lambda d: d["pipelines"]["main"]["phases"][0]["agents"][0].update(status="COMPLETE"),
            ("agent builder", "status", "IN_PROGRESS", "COMPLETE"),
        ),
        (
            lambda d: d["quality_gates"]["qg-1"].update(current_iteration=1),
            ("gate qg-1", "current_iteration", 0, 1),
        ),
        (lambda d: d["quality_gates"]["qg-1"].update(score=0.9), ("gate qg-1", "score", None, 0.9)),
        (
            lambda d: d["quality_gates"]["qg-1"]["iteration_history"].append({"iteration": 1, "score": 0.8}),
            ("gate qg-1", "iteration_history", [], 1),
        ),
        (
            lambda d: d["checkpoints"]["entries"].append({"id": "CP-002"}),
            ("checkpoints", "entries", ["CP-001"], ["CP-001", "CP-002"]),
        ),
        (
            lambda d: d["pipelines"]["main"]["phases"][0]["agents"].append({"id": "tester", "status": "COMPLETE"}),
            ("agent tester", "status", None, "COMPLETE"),
        ),
    ],
    ids=[
        "workflow status",
        "current phase",
        "phase unblocked",
        "agent completed",
        "gate iteration",
        "gate score",
        "gate iteration logged",
        "checkpoint added",
        "finished agent added",
    ],
)
def test_state_bearing_edits_are_moves(base: dict[str, Any], edit: Any, expected: tuple[str, str, Any, Any]) -> None:
    new = copy.deepcopy(base)
    edit(new)
    assert moves_of(base, new) == [expected]
    staleness = assess(base, new)
    assert staleness is not None
    assert staleness.version == "2.0"


def test_a_planned_unit_that_has_not_started_is_not_a_move(base: dict[str, Any]) -> None:
    new = copy.deepcopy(base)
    new["pipelines"]["main"]["phases"].append({"id": 3, "name": "Support", "status": "PENDING", "agents": []})
    new["quality_gates"]["qg-2"] = {"status": "PENDING", "current_iteration": 0, "score": None}
    assert moved_state(base, new) == []


def test_editing_a_past_gate_iteration_is_not_a_move(base: dict[str, Any]) -> None:
    base["quality_gates"]["qg-1"]["iteration_history"] = [{"iteration": 1, "score": 0.8, "primary_defect": "x"}]
    new = copy.deepcopy(base)
    new["quality_gates"]["qg-1"]["iteration_history"][0]["primary_defect"] = "missing URLs"
    assert moved_state(base, new) == []


def test_numbers_compare_by_value(base: dict[str, Any]) -> None:
    base["quality_gates"]["qg-1"]["score"] = 0.92
    new = copy.deepcopy(base)
    new["quality_gates"]["qg-1"]["score"] = 0.920
    assert moved_state(base, new) == []
    new["quality_gates"]["qg-1"]["score"] = 0.93
    assert len(moved_state(base, new)) == 1


def test_list_items_are_matched_by_id_and_stream_id() -> None:
    old = {"pipelines": {"p": {"phases": [{"id": 1, "streams": [{"stream_id": "s-a", "status": "BLOCKED"}]}]}}}
    new = copy.deepcopy(old)
    new["pipelines"]["p"]["phases"][0]["streams"].insert(0, {"stream_id": "s-b", "status": "PENDING"})
    assert moved_state(old, new) == []
    new["pipelines"]["p"]["phases"][0]["streams"][1]["status"] = "COMPLETE"
    assert moves_of(old, new) == [("stream s-a", "status", "BLOCKED", "COMPLETE")]


# --- when the resumption section moved -----------------------------------------------------------


def _with_updated_at(data: dict[str, Any], value: Any) -> dict[str, Any]:
    new = copy.deepcopy(data)
    if value is None:
        new["resumption"]["recovery_state"].pop("updated_at")
    else:
        new["resumption"]["recovery_state"]["updated_at"] = value
    return new


@pytest.mark.parametrize(
    ("before", "after", "moved"),
    [
        ("2026-02-20T09:00:00Z", "2026-02-20T09:30:00Z", True),
        ("2026-02-20T09:00:00Z", "2026-02-20T09:00:00Z", False),
        ("2026-02-20T09:00:00Z", "2026-02-20T09:00:00+00:00", False),
        ("2026-02-20T09:00:00Z", "2026-02-20T10:30:00+01:00", True),
        ("2026-02-20T09:00:00Z", "2026-02-19T09:00:00Z", False),
        # Without a parsable updated_at (C001's finding), the section moved when its data changed:
        # dropping or garbling the field is itself a rewrite; keeping it missing is not.
        ("2026-02-20T09:00:00Z", None, True),
        ("2026-02-20T09:00:00Z", "soon", True),
        (None, None, False),
        ("soon", "soon", False),
        (None, "2026-02-20T09:00:00Z", True),
        ("yesterday", "2026-02-20T09:00:00Z", True),
    ],
)
def test_a_v2_section_moved_when_updated_at_advanced(
    base: dict[str, Any], before: Any, after: Any, moved: bool
) -> None:
    assert resumption_moved(_with_updated_at(base, before), _with_updated_at(base, after)) is moved


def test_a_v2_section_edited_without_advancing_updated_at_did_not_move(base: dict[str, Any]) -> None:
    new = copy.deepcopy(base)
    new["resumption"]["recovery_state"]["current_phase"] = 2
    assert resumption_moved(base, new) is False


def test_a_v1_section_moved_when_its_data_changed() -> None:
    old = {"resumption": {"current_state": "Phase 1", "next_step": "Run phase 1"}}
    new = copy.deepcopy(old)
    assert resumption_moved(old, new) is False
    new["resumption"]["current_state"] = "Phase 2"
    assert resumption_moved(old, new) is True


def test_timestamps_parse_with_z_offsets_and_dates() -> None:
    assert parse_timestamp("2026-02-20T09:00:00Z") == parse_timestamp("2026-02-20T10:00:00+01:00")
    assert parse_timestamp("2026-02-20") == parse_timestamp("2026-02-20T00:00:00Z")
    assert parse_timestamp("2026-02-20T09:00:00") == parse_timestamp("2026-02-20T09:00:00Z")
    assert parse_timestamp("not a date") is None
    assert parse_timestamp(20260220) is None


def test_parse_timestamp_remembers_texts_with_the_same_result() -> None:
    """A text is parsed once and its instant remembered: the same answer as parse_datetime, each time."""
    from ctxres.state import statediff
    from ctxres.timestamps import parse_datetime

    texts = ["2026-02-20T09:00:00Z", "2026-02-20T10:00:00+01:00", "2026-02-20", "2026-02-31T00:00:00Z", "nope", ""]
    statediff._PARSED_TIMES.clear()
    for _ in range(2):
        for text in texts:
            assert parse_timestamp(text) == parse_datetime(text)
    assert set(statediff._PARSED_TIMES) == set(texts)
    for value in (None, 20260220, ["2026-02-20"]):  # not a text: not remembered
        assert parse_timestamp(value) == parse_datetime(value)
    assert set(statediff._PARSED_TIMES) == set(texts)


# --- the verdict ---------------------------------------------------------------------------------


def test_v2_verdict_says_what_is_stale_and_which_fields_to_update(base: dict[str, Any]) -> None:
    new = copy.deepcopy(base)
    new["pipelines"]["main"]["phases"][0]["status"] = "COMPLETE"
    new["checkpoints"]["latest_id"] = "CP-002"
    new["pipelines"]["main"]["phases"][0]["agents"][0]["status"] = "COMPLETE"
    staleness = assess(base, new, example_time="2026-02-20T12:00:00Z")
    assert staleness is not None
    assert staleness.stale == (
        "`resumption.recovery_state.updated_at` did not advance (still 2026-02-20T09:00:00Z): the section "
        "describes the state before this change"
    )
    assert staleness.fix == (
        "update the resumption section: set `resumption.recovery_state.updated_at` to the time of this update "
        "(for example 2026-02-20T12:00:00Z) and bring up to date `recovery_state.current_phase`, "
        '`recovery_state.current_phase_name`, `recovery_state.last_checkpoint` (to "CP-002"), `agent_summaries` '
        "(one line per finished agent), `recovery_state.current_activity` and `recovery_state.next_step`"
    )


def test_v2_verdict_when_updated_at_is_missing(base: dict[str, Any]) -> None:
    old = _with_updated_at(base, None)
    new = copy.deepcopy(old)
    new["workflow"]["status"] = "COMPLETE"
    staleness = assess(old, new)
    assert staleness is not None
    assert "`resumption.recovery_state.updated_at` is missing" in staleness.stale
    assert "`recovery_state.workflow_status`" in staleness.fix


def test_v1_verdict_names_the_fields_to_rewrite() -> None:
    files = versions("PROJ-003-je-ne-sais-quoi")
    staleness = assess(load(files[0]), load(files[1]))
    assert staleness is not None
    assert staleness.version == "1.0"
    assert staleness.stale == (
        "the resumption section (v1.0) is unchanged: `current_state`, `next_step` and `last_checkpoint` still "
        "describe the state before this change"
    )
    assert staleness.fix == (
        "update the resumption section: rewrite `resumption.current_state` and `resumption.next_step` to describe "
        "the new state"
    )


def test_no_resumption_section_or_no_previous_version_is_never_stale(base: dict[str, Any]) -> None:
    new = copy.deepcopy(base)
    new["workflow"]["status"] = "COMPLETE"
    assert assess(None, new) is None
    without = copy.deepcopy(new)
    del without["resumption"]
    assert assess(base, without) is None


def test_updating_the_section_with_the_state_is_not_stale(base: dict[str, Any]) -> None:
    new = copy.deepcopy(base)
    new["pipelines"]["main"]["phases"][0]["status"] = "COMPLETE"
    new["resumption"]["recovery_state"]["updated_at"] = "2026-02-20T11:00:00Z"
    assert moved_state(base, new)
    assert assess(base, new) is None


def _extracted(extraction: Any) -> tuple[list[Any], list[Any]]:
    facts = [(key, tuple(fact), str(fact.unit)) for key, fact in extraction.facts.items()]
    return facts, list(extraction.units.items())


@pytest.mark.parametrize("project", ["PROJ-001-oss-release", "PROJ-003-je-ne-sais-quoi"])
def test_sections_extracted_once_give_the_same_facts_and_moves(project: str) -> None:
    """A version whose section is the very object of an earlier one (the section parser shares the
    sections a version did not change) reuses that section's extraction: the facts, units and moves
    are those of extracting every version whole, along the history, back again (the same sections
    reappear) and with one section swapped between two versions."""
    from ctxres.linters.checking.yaml_sections import WHOLE, SectionParser
    from ctxres.state.statediff import extract, moves_between

    parser = SectionParser()
    texts = [path.read_text("utf-8") for path in versions(project)]
    parsed = [(parser.parse(text), text) for text in [*texts, *reversed(texts)]]
    datas = [data if data is not WHOLE else load_text(text) for data, text in parsed]
    first, last = datas[0], datas[len(texts) - 1]
    datas.append({**first, **{key: value for key, value in last.items() if key == "pipelines"}})
    sections: dict[Any, Any] = {}
    previous = previous_whole = None
    for data in datas:
        shared, whole = extract(data, sections=sections), extract(data)
        assert _extracted(shared) == _extracted(whole)
        if previous is not None and previous_whole is not None:
            moves = [tuple(move) for move in moves_between(previous, shared)]
            assert moves == [tuple(move) for move in moves_between(previous_whole, whole)]
        previous, previous_whole = shared, whole
    assert len(sections) < len(datas) * len(first)  # sections were reused


def load_text(text: str) -> Any:
    result = parse_text("ORCHESTRATION.yaml", "orchestration", Format.YAML, text)
    assert result.document is not None
    return result.document.data


_STALE_EDITS = [
    ("            status: IN_PROGRESS\n            role", "            status: COMPLETE\n            role"),
    ("            status: BLOCKED\n", ""),  # a key removed from a unit both versions have
    ("    score: null\n", "    score: 0.9\n    verdict: PASS\n"),
    ('      - id: 2\n        name: "Ship"\n        status: BLOCKED\n', "      - id: 3\n        status: DONE\n"),
    ("  latest_id: CP-001\n", ""),
]


@pytest.mark.parametrize("edits", [*([edit] for edit in _STALE_EDITS), _STALE_EDITS])
def test_moves_located_after_the_comparison_are_those_of_a_comparison_with_lines(
    edits: list[tuple[str, str]],
) -> None:
    """`assess` given both versions extracted without lines and `locate` (what the history commands
    do for a blocked change) says exactly what `assess` says extracting the new version with lines:
    the moves, their order and lines (a removed key: its unit's line, or none), the verdict."""
    from ctxres.state.statediff import extract

    new_text = V2
    for before, after in edits:
        assert before in new_text
        new_text = new_text.replace(before, after, 1)
    old = load_text(V2)
    new_doc = parse_text("ORCHESTRATION.yaml", "orchestration", Format.YAML, new_text).document
    assert new_doc is not None

    def locate(path: Any) -> int:
        return new_doc.locate(path, key=True).line

    expected = assess(old, new_doc.data, example_time="2026-02-20T10:00:00Z", locate=locate)
    got = assess(
        old,
        new_doc.data,
        example_time="2026-02-20T10:00:00Z",
        locate=locate,
        extracted=lambda: (extract(old), extract(new_doc.data)),
    )
    assert expected is not None and got == expected
    assert [(move.line, move.change) for move in got.moves] == [(move.line, move.change) for move in expected.moves]
    if len(edits) == 1 and edits[0] == _STALE_EDITS[1]:
        assert [move.change for move in got.moves] == ["removed"] and got.moves[0].line is not None


@pytest.mark.parametrize("project", ["PROJ-001-oss-release", "PROJ-003-je-ne-sais-quoi"])
def test_moves_located_after_the_comparison_in_the_real_histories(project: str) -> None:
    from ctxres.state.statediff import extract

    paths = versions(project)
    for old_path, new_path in itertools.pairwise(paths):
        old, text = load(old_path), new_path.read_text("utf-8")
        new_doc = parse_text(new_path.name, "orchestration", Format.YAML, text).document
        assert new_doc is not None

        def locate(path: Any, doc: Any = new_doc) -> int:
            return int(doc.locate(path, key=True).line)

        expected = assess(old, new_doc.data, locate=locate)
        pair = (extract(old), extract(new_doc.data))
        got = assess(old, new_doc.data, locate=locate, extracted=lambda pair=pair: pair)
        assert got == expected
        if got is not None:
            assert [move.line for move in got.moves] == [move.line for move in expected.moves]
