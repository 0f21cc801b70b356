"""The core model of a workflow (ctxres.state.orchestration): statuses, the live workflow, the readers."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxres.defaults import WORKFLOW_ENV
from ctxres.state import live
from ctxres.state import orchestration as o

LIVE = "workflow: {status: ACTIVE}\n"
DONE = "workflow: {status: COMPLETE}\n"


def _read(path: str) -> Any:
    try:
        return yaml.safe_load(Path(path).read_text("utf-8"))
    except (OSError, yaml.YAMLError):
        return None


def _write(root: Path, rel: str, text: str, mtime: float) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, "utf-8")
    os.utime(path, (mtime, mtime))
    return path


@pytest.mark.parametrize(
    ("word", "meaning"),
    [
        ("ACTIVE", "ACTIVE"),
        ("in progress", "ACTIVE"),
        ("In-Progress", "ACTIVE"),
        ("RUNNING", "ACTIVE"),
        ("COMPLETED", "COMPLETE"),
        ("done", "COMPLETE"),
        ("ON_HOLD", "PAUSED"),
        ("FAILED", "FAILED"),
        ("NOT_STARTED", ""),
        (3, ""),
        (None, ""),
    ],
)
def test_workflow_meaning(word: object, meaning: str) -> None:
    assert o.workflow_meaning(word) == meaning


def test_workflow_status_prefers_the_recovery_state_then_the_workflow() -> None:
    both = {"workflow": {"status": "COMPLETE"}, "resumption": {"recovery_state": {"workflow_status": "ACTIVE"}}}
    assert o.workflow_status_of(both) == "ACTIVE"
    assert (
        o.workflow_status_of({"workflow": {"status": "in progress"}, "resumption": {"current_state": "x"}}) == "ACTIVE"
    )
    assert o.workflow_status_of({"workflow": {"status": "Weird"}}) == "WEIRD"
    assert o.workflow_status_of({"workflow": {"status": ["ACTIVE"]}}) is None
    assert o.workflow_status_of("text") is None
    assert o.is_live({"workflow": {"status": "PAUSED"}})
    assert not o.is_live({"workflow": {"status": "COMPLETED"}})


@pytest.mark.parametrize(
    ("rel", "example"),
    [
        ("ORCHESTRATION.yaml", False),
        ("projects/PROJ-001/ORCHESTRATION.yaml", False),
        ("projects/PROJ-001/orchestration/feat-001/FEAT-001-ORCHESTRATION.yaml", False),
        ("docs/protocol/orchestration-template.yaml", True),
        ("docs/protocol/ORCHESTRATION.yaml", True),
        ("./docs/protocol/x/ORCHESTRATION.yml", True),
        ("examples/ORCHESTRATION.yaml", True),
        ("skills/orchestration/templates/ORCHESTRATION.yaml", True),
        ("ORCHESTRATION.template.yaml", True),
        ("ORCHESTRATION_EXAMPLE.yaml", True),
        ("OrchestrationTemplate.yaml", True),
        ("sample-ORCHESTRATION.yaml", True),
        ("docs/ORCHESTRATION.yaml", False),  # another docs folder is the project's own
        ("contemplate/ORCHESTRATION.yaml", False),  # a word that merely contains "template"
        # test data and deliberately invalid examples
        ("03-working/test_data/resume-context.md", True),
        ("pkg/testdata/ORCHESTRATION.yaml", True),
        ("tests/fixtures/ORCHESTRATION.yaml", True),
        ("03-working/invalid_nested_precompact_state.json", True),
        ("Invalid-ORCHESTRATION.yaml", True),
        ("test_data_notes/ORCHESTRATION.yaml", False),  # a folder whose name merely starts like one
        ("my_fixtures/ORCHESTRATION.yaml", False),
        ("ORCHESTRATION.invalid_backup.yaml", False),  # "invalid_" not at the start of the name
        ("fixtures.yaml", False),  # a file, not a folder, named like one
    ],
)
def test_examples_and_templates(rel: str, example: bool) -> None:
    assert live.is_example_path(rel) is example


def _live(updated: str | None = None, section: str | None = None, status: str = "ACTIVE") -> str:
    text = f"workflow: {{status: {status}" + (f", updated_at: '{updated}'" if updated else "") + "}\n"
    if section:
        text += f"resumption: {{recovery_state: {{workflow_status: {status}, updated_at: '{section}'}}}}\n"
    return text


def test_the_most_recently_updated_live_workflow_wins_whatever_the_mtimes_and_the_note_says_why(
    tmp_path: Path,
) -> None:
    # mtimes say the opposite of the files' own update times: the content decides.
    _write(tmp_path, "a/ORCHESTRATION.yaml", _live("2026-11-20T10:00:00Z"), 9000)
    _write(tmp_path, "b/ORCHESTRATION.yaml", _live("2026-11-19T10:00:00Z"), 1000)
    _write(tmp_path, "c/ORCHESTRATION.yaml", DONE + "  # finished\n", 9999)  # newest mtime, but finished
    _write(tmp_path, "docs/protocol/orchestration-template.yaml", "resumption: {}\n" + LIVE, 9999)
    _write(tmp_path, "d/ORCHESTRATION.yaml", "workflow: [broken\n", 9999)  # unreadable: skipped
    choice = live.find_live_workflow(str(tmp_path), _read)
    assert choice is not None
    assert choice.relpath == "a/ORCHESTRATION.yaml"
    assert choice.others == ["b/ORCHESTRATION.yaml"]
    assert choice.note() == (
        "using a/ORCHESTRATION.yaml: the most recently updated of 2 live workflows (status ACTIVE, updated "
        "2026-11-20T10:00:00Z); also live: b/ORCHESTRATION.yaml"
    )
    for path in tmp_path.rglob("*.yaml"):  # the opposite mtimes: the same choice
        os.utime(path, (20000 - path.stat().st_mtime, 20000 - path.stat().st_mtime))
    again = live.find_live_workflow(str(tmp_path), _read)
    assert again is not None and again.relpath == "a/ORCHESTRATION.yaml"


def test_the_section_update_time_counts_and_times_compare_as_instants(tmp_path: Path) -> None:
    # 11:30+02:00 is 09:30Z: earlier than 10:00Z, although it reads later.
    _write(tmp_path, "a/ORCHESTRATION.yaml", _live("2026-11-20T11:30:00+02:00"), 1000)
    _write(tmp_path, "b/ORCHESTRATION.yaml", _live("2026-11-01T00:00:00Z", section="2026-11-20T10:00:00Z"), 1000)
    choice = live.find_live_workflow(str(tmp_path), _read)
    assert choice is not None and choice.relpath == "b/ORCHESTRATION.yaml"
    assert "updated 2026-11-20T10:00:00Z" in choice.reason()


def test_ties_and_files_without_a_time_are_ordered_by_path(tmp_path: Path) -> None:
    _write(tmp_path, "b/ORCHESTRATION.yaml", _live("2026-11-20T10:00:00Z"), 9000)
    _write(tmp_path, "a/ORCHESTRATION.yaml", _live("2026-11-20T11:00:00+01:00"), 1000)  # the same instant
    _write(tmp_path, "0/ORCHESTRATION.yaml", _live(), 9999)  # no time: after those with one
    _write(tmp_path, "1/ORCHESTRATION.yaml", _live("not a time"), 9999)  # a time that cannot be read: the same
    choice = live.find_live_workflow(str(tmp_path), _read)
    assert choice is not None and choice.relpath == "a/ORCHESTRATION.yaml" and choice.tied
    assert choice.others == ["b/ORCHESTRATION.yaml", "0/ORCHESTRATION.yaml", "1/ORCHESTRATION.yaml"]
    assert "updated 2026-11-20T10:00:00Z; the first by path of those updated then" in choice.reason()
    for rel in ("a", "b"):
        (tmp_path / rel / "ORCHESTRATION.yaml").unlink()
    untimed = live.find_live_workflow(str(tmp_path), _read)
    assert untimed is not None and untimed.relpath == "0/ORCHESTRATION.yaml"
    assert untimed.reason() == (
        "the first by path of 2 live workflows, none of which records when it was updated (status ACTIVE); "
        "also live: 1/ORCHESTRATION.yaml"
    )


def test_what_a_search_remembers_spares_parsing_unchanged_files(tmp_path: Path) -> None:
    a = _write(tmp_path, "a/ORCHESTRATION.yaml", _live("2026-11-20T10:00:00Z"), 1000)
    _write(tmp_path, "b/ORCHESTRATION.yaml", _live("2026-11-19T10:00:00Z"), 1000)
    _write(tmp_path, "c/ORCHESTRATION.yaml", DONE, 1000)
    parsed: list[str] = []

    def counting(path: str) -> Any:
        parsed.append(Path(path).parent.name)
        return _read(path)

    known: dict[str, list[Any]] = {}
    first = live.find_live_workflow(str(tmp_path), counting, known=known, load=False)
    assert first is not None and first.relpath == "a/ORCHESTRATION.yaml" and first.data is not None
    assert sorted(parsed) == ["a", "b", "c"] and sorted(known) == [f"{x}/ORCHESTRATION.yaml" for x in "abc"]
    parsed.clear()
    second = live.find_live_workflow(str(tmp_path), counting, known=known, load=False)
    assert second is not None and second.relpath == "a/ORCHESTRATION.yaml" and second.data is None
    assert parsed == []  # nothing changed: nothing parsed
    loaded = live.find_live_workflow(str(tmp_path), counting, known=known)
    assert loaded is not None and loaded.data is not None and parsed == ["a"]  # only the chosen file, to load it
    parsed.clear()
    a.write_text(_live("2026-11-18T10:00:00Z", status="PAUSED"), "utf-8")  # changed in place, new mtime
    os.utime(a, (2000, 2000))
    third = live.find_live_workflow(str(tmp_path), counting, known=known, load=False)
    assert parsed == ["a"]  # re-read; the others were not
    assert third is not None and third.relpath == "b/ORCHESTRATION.yaml" and third.others == ["a/ORCHESTRATION.yaml"]
    (tmp_path / "c" / "ORCHESTRATION.yaml").unlink()
    live.find_live_workflow(str(tmp_path), counting, known=known, load=False)
    assert sorted(known) == ["a/ORCHESTRATION.yaml", "b/ORCHESTRATION.yaml"]  # a file gone is forgotten


def test_a_setting_pins_the_workflow_and_the_environment_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(WORKFLOW_ENV, raising=False)
    _write(tmp_path, "a/ORCHESTRATION.yaml", _live("2026-11-20T10:00:00Z"), 1000)
    _write(tmp_path, "b/ORCHESTRATION.yaml", _live("2026-11-01T10:00:00Z"), 1000)
    pin = {"pinned": "b/ORCHESTRATION.yaml", "pinned_by": "live-workflow in pyproject.toml"}
    choice = live.find_live_workflow(str(tmp_path), _read, **pin)  # type: ignore[arg-type]
    assert choice is not None and choice.relpath == "b/ORCHESTRATION.yaml"
    assert choice.note() == "using b/ORCHESTRATION.yaml: pinned by live-workflow in pyproject.toml"
    missing = live.find_live_workflow(str(tmp_path), _read, pinned="gone/ORCHESTRATION.yaml")
    assert missing is None  # a bad pin is never replaced by the search
    monkeypatch.setenv(WORKFLOW_ENV, "a/ORCHESTRATION.yaml")
    named = live.find_live_workflow(str(tmp_path), _read, **pin)  # type: ignore[arg-type]
    assert named is not None and named.relpath == "a/ORCHESTRATION.yaml" and named.named


def test_a_template_is_never_live_even_alone(tmp_path: Path) -> None:
    _write(tmp_path, "docs/protocol/ORCHESTRATION-template.yaml", LIVE, 1000)
    _write(tmp_path, "examples/ORCHESTRATION.yaml", LIVE, 1000)
    assert live.find_live_workflow(str(tmp_path), _read) is None


def test_the_configured_patterns_decide_which_files_are_workflows(tmp_path: Path) -> None:
    _write(tmp_path, "plan/workflow-state.yaml", LIVE, 1000)
    _write(tmp_path, "ORCHESTRATION.yaml", LIVE, 500)  # the only default-pattern file, older
    assert live.find_live_workflow(str(tmp_path), _read).relpath == "ORCHESTRATION.yaml"  # type: ignore[union-attr]
    custom = live.find_live_workflow(str(tmp_path), _read, patterns=("workflow-state.yaml",))
    assert custom is not None and custom.relpath == "plan/workflow-state.yaml"
    assert custom.reason() == "the only live workflow (status ACTIVE)"


def test_skipped_folders_are_not_searched(tmp_path: Path) -> None:
    _write(tmp_path, "node_modules/pkg/ORCHESTRATION.yaml", LIVE, 1000)
    _write(tmp_path, ".venv/ORCHESTRATION.yaml", LIVE, 1000)
    assert live.find_live_workflow(str(tmp_path), _read) is None


def test_the_environment_names_the_workflow(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _write(tmp_path, "a/ORCHESTRATION.yaml", DONE, 1000)
    _write(tmp_path, "b/ORCHESTRATION.yaml", LIVE, 3000)
    monkeypatch.setenv(WORKFLOW_ENV, "a/ORCHESTRATION.yaml")
    choice = live.find_live_workflow(str(tmp_path), _read)
    assert choice is not None and choice.relpath == "a/ORCHESTRATION.yaml" and choice.named
    assert choice.note() == f"using a/ORCHESTRATION.yaml: named by ${WORKFLOW_ENV}"
    refused = live.find_live_workflow(str(tmp_path), _read, accept=lambda path: False)
    assert refused is None


def test_accept_refuses_a_path(tmp_path: Path) -> None:
    _write(tmp_path, "a/ORCHESTRATION.yaml", LIVE, 1000)
    _write(tmp_path, "b/ORCHESTRATION.yaml", LIVE, 3000)
    choice = live.find_live_workflow(str(tmp_path), _read, accept=lambda path: "/b/" not in path)
    assert choice is not None and choice.relpath == "a/ORCHESTRATION.yaml"


def test_pipelines_in_every_layout() -> None:
    mapping = yaml.safe_load(
        """
        pipelines:
          impl:
            current_phase: 2
            phases:
              - {id: 1, name: Research, status: COMPLETE}
              - {id: 2, name: Build, status: in progress}
        """
    )
    (impl,) = o.pipelines(mapping)
    assert (impl.name, impl.path, impl.current_phase, impl.current_phase_path) == (
        "impl",
        ("pipelines", "impl"),
        2,
        ("pipelines", "impl", "current_phase"),
    )
    assert [(p.number, p.name, p.status, p.path) for p in impl.phases] == [
        (1, "Research", "COMPLETE", ("pipelines", "impl", "phases", 0)),
        (2, "Build", "IN_PROGRESS", ("pipelines", "impl", "phases", 1)),
    ]
    assert impl.phase(2) is impl.phases[1] and impl.phase(9) is None and not impl.not_started()

    phases_by_key = yaml.safe_load("pipeline: {phases: {phase-1: {status: PENDING}, phase-2: {status: PENDING}}}")
    (single,) = o.pipelines(phases_by_key)
    assert [p.number for p in single.phases] == [1, 2] and single.not_started()

    listed = yaml.safe_load("pipelines: [{id: a, current_phase: '3'}, {name: b}]")
    assert [(p.name, p.current_phase) for p in o.pipelines(listed)] == [("a", 3), ("b", None)]

    top = yaml.safe_load("workflow: {current_phase: 1}\nphases: [{id: 1, tasks: [{id: T1}]}]")
    (flat,) = o.pipelines(top)
    assert flat.name == "" and flat.current_phase == 1 and flat.phases[0].path == ("phases", 0)


def test_gates_in_every_layout() -> None:
    data = yaml.safe_load(
        """
        quality_gates:
          qg-1: {status: PASS, iteration_history: [{score: 0.81}, {score: 0.93}]}
          qg-2: {status: IN_PROGRESS, iterations: 2, score: 0.9}
          notes: "not a gate"
        """
    )
    first, second = o.gates(data)
    assert (first.id, first.status, first.iterations, first.scores, first.latest_score()) == (
        "qg-1",
        "PASS",
        2,
        [0.81, 0.93],
        0.93,
    )
    assert first.history_path == ("quality_gates", "qg-1", "iteration_history")
    assert (second.iterations, second.scores, second.latest_score(), second.is_running()) == (2, None, 0.9, True)
    listed = yaml.safe_load("quality_gates: {threshold: 0.9, gates: [{id: QG-1, status: PENDING}, {status: x}]}")
    assert [(g.id, g.path) for g in o.gates(listed)] == [("QG-1", ("quality_gates", "gates", 0))]


def test_checkpoint_entries() -> None:
    section = yaml.safe_load("checkpoints: {latest_id: CP-2, entries: [{id: CP-1}, {id: CP-2, timestamp: t}]}")
    view = o.checkpoint_entries(section)
    assert view is not None and view.latest == "CP-2" and view.latest_path == ("checkpoints", "latest_id")
    assert view.entries[1] == ("CP-2", ("checkpoints", "entries", 1, "id"), "t")
    unused = o.checkpoint_entries(yaml.safe_load("checkpoints: {latest_id: null, entries: []}"))
    assert unused is not None and unused.latest is None and unused.entries == []
    assert o.checkpoint_entries(yaml.safe_load("checkpoints: {latest_id: null, entries: [{id: A}]}")) is None
    assert o.checkpoint_entries(yaml.safe_load("checkpoints: [{id: A}, {id: B}]")).latest == "B"  # type: ignore[union-attr]


@pytest.mark.parametrize(("value", "number"), [(3, 3), ("3", 3), ("phase-3", 3), ("Phase 3: Build", 3), (True, None)])
def test_phase_number(value: object, number: int | None) -> None:
    assert o.phase_number(value) == number


def test_the_core_imports_only_the_standard_library_lightly() -> None:
    """Measured against what the interpreter has loaded anyway (an editable install preloads pathlib)."""
    heavy = ("dataclasses", "typing", "pathlib", "yaml", "pydantic", "jsonschema")
    show = f"print(' '.join(m for m in {heavy!r} if m in sys.modules))"
    before = subprocess.run([sys.executable, "-c", f"import sys; {show}"], capture_output=True, text=True, check=True)
    calls = "live.workflow_files('.'); live.is_example_path('a/b.yaml')"
    code = f"import sys, ctxres.state.orchestration, ctxres.state.live as live; {calls}; {show}"
    after = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert set(after.stdout.split()) - set(before.stdout.split()) == set()


def _normalized_by_a_loop(value: str) -> str:
    """normalize_status as the character loop it was: each run of spaces and hyphens one underscore."""
    out: list[str] = []
    gap = False
    for char in value.strip():
        if char == "-" or char.isspace():
            gap = True
            continue
        if gap:
            out.append("_")
            gap = False
        out.append(char)
    if gap:
        out.append("_")
    return "".join(out).upper()


@settings(max_examples=2000)
@given(st.text(alphabet=st.sampled_from(list("ab- \t\n\u00a0\u2003\u3000\x1c\x85Xé")) | st.characters()))
def test_normalize_status_splits_on_what_isspace_calls_white_space(value: str) -> None:
    assert o.normalize_status(value) == _normalized_by_a_loop(value)


@pytest.mark.parametrize("value", ["", "-", "---", " - a - ", "a-b", "In progress", "\u3000x\u3000", "x\x1c-"])
def test_normalize_status_keeps_leading_and_trailing_gaps(value: str) -> None:
    assert o.normalize_status(value) == _normalized_by_a_loop(value)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(st.sampled_from("aB -_\t\u00a0é1"), max_size=80), min_size=1, max_size=4))
def test_normalize_status_remembered_answers_as_computed(values: list[str]) -> None:
    """The memory of normalized status words answers what the computation answers, asked once or again."""
    for value in values * 2:
        assert o.normalize_status(value) == o._normalized(value)
