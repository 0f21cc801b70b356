"""agent-memory runs: derived task state, runnable tasks, the M rules and `ctxres runs`.

docs/formats.md, "Agent-memory runs".
"""

from __future__ import annotations

import datetime as dt
import json
import shutil
from pathlib import Path

import pytest

from ctxres import agent_memory as am
from ctxres.config import Config, load_config
from ctxres.formats.document import Document
from ctxres.linters.checking import engine
from ctxres.linters.cli import main

from ..conftest import FIXTURES

THREE_ACTORS = FIXTURES / "agent-memory" / "three-actors"
RUN_ID = "20260115-1000-user-validation"
RUN = THREE_ACTORS / ".agent-memory" / "runs" / RUN_ID
NOW = "2026-01-15T12:00:00Z"


# --------------------------------------------------------------------------- pure core


def event(kind: str, task: str | None, at: str, actor: str = "executor", line: int = 1) -> am.RunEvent:
    return am.RunEvent(
        path=f"events/{actor}/x.jsonl",
        line=line,
        item=line - 1,
        folder=actor,
        actor=actor,
        event_type=kind,
        kind=am.normalise_event_type(kind),
        task_id=task,
        timestamp=at,
        instant=dt.datetime.fromisoformat(at.replace("Z", "+00:00")),
    )


def tasks(*specs: tuple[str, tuple[str, ...]]) -> list[am.Task]:
    return [am.Task(task_id, f"title {task_id}", deps, index) for index, (task_id, deps) in enumerate(specs)]


def test_both_spellings_of_an_event_type_read_the_same() -> None:
    assert am.normalise_event_type("task-started") == am.normalise_event_type("task_started") == "task_started"
    assert am.normalise_event_type("Task-Verification-Failed") == "task_verification_failed"
    assert [am.spelling_of(v) for v in ("task_started", "task-started", "task_verification-failed", "escalation")] == [
        "underscore",
        "hyphen",
        "mixed",
        "plain",
    ]


def test_state_is_the_newest_lifecycle_event_across_actors_in_time_order() -> None:
    graph = tasks(("T1", ()), ("T2", ()), ("T3", ()), ("T4", ()), ("T5", ()))
    events = [
        # the verifier's log is read after the executor's, but time order decides
        event("task-verification-failed", "T1", "2026-01-15T11:00:00Z", "verifier"),
        event("task_started", "T1", "2026-01-15T10:00:00Z"),
        event("task-started", "T1", "2026-01-15T11:30:00Z"),  # retried after the failure
        event("task_completed", "T2", "2026-01-15T10:00:00Z"),
        event("task-blocked", "T3", "2026-01-15T10:00:00Z"),
        event("task_failed", "T4", "2026-01-15T10:00:00Z"),
        event("escalation", "T5", "2026-01-15T10:00:00Z"),  # not a lifecycle event: T5 stays pending
    ]
    states = {s.task.id: s.state for s in am.derive_states(graph, events)}
    assert states == {"T1": "in_progress", "T2": "done", "T3": "blocked", "T4": "failed", "T5": "pending"}


def test_runnable_tasks_have_every_dependency_done_and_are_neither_done_nor_blocked() -> None:
    graph = tasks(
        ("T1", ()),
        ("T2", ("T1",)),
        ("T3", ("T1",)),
        ("T4", ("T2", "T3")),
        ("T5", ("T9",)),  # dangling: never runnable
        ("T6", ()),
    )
    events = [
        event("task_completed", "T1", "2026-01-15T10:00:00Z"),
        event("task_failed", "T2", "2026-01-15T10:10:00Z"),
        event("task_blocked", "T3", "2026-01-15T10:20:00Z"),
        event("task_started", "T6", "2026-01-15T10:30:00Z"),
    ]
    runnable = am.runnable_tasks(am.derive_states(graph, events))
    assert [task.id for task in runnable] == ["T6", "T2"]  # work in progress first, then graph order


def test_cycles_are_reported_once_each_along_their_path() -> None:
    graph = tasks(("A", ("C",)), ("B", ("A",)), ("C", ("B",)), ("D", ("D",)), ("E", ("A",)), ("F", ()))
    assert am.cycles(graph) == [["A", "C", "B", "A"], ["D", "D"]]


def test_a_long_dependency_chain_does_not_hit_the_recursion_limit() -> None:
    chain = tasks(*[(f"T{i}", (f"T{i - 1}",) if i else ()) for i in range(5000)])
    assert am.cycles(chain) == []
    looped = tasks(*[(f"T{i}", (f"T{(i - 1) % 3000}",)) for i in range(3000)])
    assert len(am.cycles(looped)) == 1 and len(am.cycles(looped)[0]) == 3001


def test_dangling_and_duplicate_ids() -> None:
    graph = tasks(("T1", ()), ("T2", ("T1", "T7")), ("T1", ()))
    assert [(t.id, pos, dep) for t, pos, dep in am.dangling_dependencies(graph)] == [("T2", 1, "T7")]
    assert [(t.index, first.index) for t, first in am.duplicate_ids(graph)] == [(2, 0)]


def test_impossible_transitions() -> None:
    events = [
        event("task_completed", "T1", "2026-01-15T10:00:00Z"),
        event("task_started", "T1", "2026-01-15T10:30:00Z"),  # the start is stamped after the completion
        event("task_completed", "T2", "2026-01-15T10:00:00Z"),  # never started
        event("task_started", "T3", "2026-01-15T09:00:00Z"),
        event("task_completed", "T3", "2026-01-15T10:00:00Z"),
        event("task_verified", "T3", "2026-01-15T10:00:00Z", "verifier"),  # same second: no order, fine
        event("task_blocked", "T3", "2026-01-15T11:00:00Z"),  # after the completion
    ]
    found = [(t.kind, t.event.task_id, t.event.event_type) for t in am.impossible_transitions(events)]
    assert found == [
        ("started-later", "T1", "task_completed"),  # reported once, not also as "after completion"
        ("not-started", "T2", "task_completed"),
        ("after-completion", "T3", "task_blocked"),
    ]


def test_phase_from_events_else_from_the_artifacts() -> None:
    run = am.Run("r", "r", artifacts=frozenset())
    assert am.run_phase(run) == 0
    run.artifacts = frozenset({"prd.md"})
    assert am.run_phase(run) == 1
    run.events = [event("task_claimed", "T1", "2026-01-15T10:00:00Z")]
    assert am.run_phase(run) == 2
    cleanup = event("cleanup_started", None, "2026-01-15T12:00:00Z", "cleanup")
    run.events.append(cleanup)
    assert am.run_phase(run) == 3
    assert am.missing_artifacts(run, 3) == ["constitution.md", "plan.md", "task-graph.json"]
    assert am.missing_artifacts(run, 1) == []


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (b"", b'{"a":1}\n', []),
        (b'{"a":1}\n', b'{"a":1}\n{"b":2}\n', []),
        (b'{"a":1}', b'{"a":1}\n{"b":2}\n', []),  # the missing final newline may be added
        (b'{"a":1}\n{"b":2}\n', b'{"a":1}\n{"B":2}\n{"c":3}\n', [(2, "changed")]),
        (b'{"a":1}\n{"b":2}\n{"c":3}\n', b'{"a":1}\n{"c":3}\n', [(2, "deleted")]),
        (b'{"a":1}\n{"b":2}\n', b'{"a":1}\n{"x":0}\n{"b":2}\n', [(2, "inserted")]),
        (b'{"a":1}', b'{"a":1}{"b":2}\n', [(1, "changed")]),  # appended onto the last line
        (b'{"a":1}\n{"b":2}\n', b"", [(1, "deleted"), (2, "deleted")]),
        (b'{"a":1}\r\n', b'{"a":1}\n', [(1, "changed")]),  # line endings are bytes too
    ],
)
def test_append_only_violations(old: bytes, new: bytes, expected: list[tuple[int, str]]) -> None:
    assert [(c.line, c.kind) for c in am.append_only_violations(old, new)] == expected


# --------------------------------------------------------------------------- reading a run and the report


def test_the_three_actor_run_is_read_with_its_corrupted_line_skipped() -> None:
    run = am.read_run(str(RUN), cwd=str(THREE_ACTORS))
    assert run.run_id == RUN_ID
    assert run.artifacts == frozenset(am.CORE_ARTIFACTS)
    assert [(c.path.rsplit("/", 2)[-2], c.line) for c in run.corrupted] == [("executor", 4)]
    assert len(run.events) == 9  # 3 + 4 readable of 5 + 2
    assert {e.folder for e in run.events} == {"orchestrator", "executor", "verifier"}


def _runs(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["runs", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def in_fixture(monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(THREE_ACTORS)
    monkeypatch.setenv("CTXRES_NOW", NOW)
    return THREE_ACTORS


def test_runs_prints_the_seed_report_with_states_and_runnable_tasks(
    in_fixture: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _runs(capsys)
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0] == lines[-1] == "═" * 59
    assert lines[1] == f"RESUMING RUN: {RUN_ID}"
    for expected in (
        "- Phase: 2",
        "- Tasks: 1/5 complete",
        "- Last activity: 2026-01-15T11:40:00Z",
        "- Last completed: T001 - Add null check to UserService.ProcessUser",
        "- Runnable: T002",
        "- T001  done         Add null check to UserService.ProcessUser",
        "- T002  failed       Add unit test for null user handling",
        "- T003  blocked      Add null check to OrderService.ValidateOrder",
        "- T004  pending      Add unit test for OrderService null handling",
        "- T005  pending      Write the release note",
        "- retry task T002 - Add unit test for null user handling",
        "Continuing...",
    ):
        assert expected in lines, expected
    warning = next(line for line in lines if "unreadable line skipped" in line)
    assert warning.startswith(f"- .agent-memory/runs/{RUN_ID}/events/executor/20260115-1030.jsonl:4:")
    assert not any("idle" in line for line in lines)  # 20 minutes after the last event: not stale


def test_runs_status_with_the_run_id_and_json(in_fixture: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _err = _runs(capsys, "status", RUN_ID, "--output-format", "json")
    assert code == 0
    payload = json.loads(out)
    assert payload["status"] == "resume"
    report = payload["run"]
    assert {t["id"]: t["state"] for t in report["tasks"]} == {
        "T001": "done",
        "T002": "failed",
        "T003": "blocked",
        "T004": "pending",
        "T005": "pending",
    }
    assert report["runnable"] == ["T002"]
    assert (report["done"], report["total"], report["phase"]) == (1, 5, 2)
    assert report["last_completed"] == {"id": "T001", "title": "Add null check to UserService.ProcessUser"}
    assert len(report["warnings"]) == 1


def test_an_old_run_gets_a_staleness_warning(
    in_fixture: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CTXRES_NOW", "2026-03-01T12:00:00Z")
    _code, out, _err = _runs(capsys)
    assert (
        "- the run has been idle for 45 days (last event 2026-01-15T11:40:00Z): review the plan and the code it "
        "touches before resuming"
    ) in out.splitlines()
    _code, out, _err = _runs(capsys, "--stale-after-days", "60")
    assert "idle" not in out


def _copy_run(root: Path, run_id: str, finished: bool = False) -> Path:
    target = root / ".agent-memory" / "runs" / run_id
    shutil.copytree(RUN, target)
    if finished:
        with (target / "events" / "orchestrator" / "20260115-1000.jsonl").open("a") as log:
            log.write(
                json.dumps(
                    {"event_type": "run-completed", "timestamp": "2026-01-15T12:00:00Z", "actor": "orchestrator"}
                )
                + "\n"
            )
    return target


def test_several_incomplete_runs_are_listed_and_a_run_id_is_asked_for(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CTXRES_NOW", NOW)
    _copy_run(tmp_path, "run-a")
    _copy_run(tmp_path, "run-b")
    _copy_run(tmp_path, "run-c", finished=True)
    code, out, _err = _runs(capsys, "--root", str(tmp_path))
    assert code == 1
    assert "2 incomplete runs in" in out and "run-a  phase 2, 1/5 tasks done" in out and "run-c" not in out
    assert "ctxres runs status RUN-ID" in out
    code, out, _err = _runs(capsys, "--root", str(tmp_path), "run-b")
    assert code == 0 and out.splitlines()[1] == "RESUMING RUN: run-b"
    code, out, _err = _runs(capsys, "--root", str(tmp_path), "status", "run-c")
    assert code == 0 and "- The run is finished" in out
    code, _out, err = _runs(capsys, "--root", str(tmp_path), "no-such-run")
    assert code == 2 and "no run 'no-such-run'" in err and "run-a, run-b, run-c" in err


def test_no_incomplete_run_is_a_fresh_start(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _err = _runs(capsys, "--root", str(tmp_path))
    assert code == 0 and out.startswith("Fresh start: no incomplete run in")
    _copy_run(tmp_path, "done", finished=True)
    code, out, _err = _runs(capsys, "--root", str(tmp_path), "--output-format", "json")
    assert code == 0 and json.loads(out) == {
        "status": "fresh-start",
        "runs_dir": json.loads(out)["runs_dir"],
        "finished_runs": ["done"],
    }


def test_runs_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _runs(capsys, "--root", str(tmp_path / "missing"))[0] == 2
    assert _runs(capsys, "--root", str(tmp_path), "a", "b")[0] == 2
    assert _runs(capsys, "--root", str(tmp_path), "--stale-after-days", "0")[0] == 2


# --------------------------------------------------------------------------- the M rules through `ctxres check`


def _check(root: Path, config: Config | None = None) -> list[tuple[str, int, str]]:
    report = engine.run([root], config or load_config(root), cwd=root)
    return [(f.path.rsplit("/", 1)[-1], f.position.line, f.code) for f in report.findings]


def test_the_three_actor_fixture_has_only_its_corrupted_line_reported() -> None:
    assert _check(THREE_ACTORS) == [("20260115-1030.jsonl", 4, "P001")]


def test_lines_after_a_corrupted_line_are_still_checked(tmp_path: Path) -> None:
    run = _copy_run(tmp_path, "r")
    log = run / "events" / "executor" / "20260115-1030.jsonl"
    log.write_text(
        log.read_text()
        + json.dumps({"event_type": "task_started", "task_id": "T099", "timestamp": NOW, "actor": "verifier"})
        + "\n"
    )
    found = [(name, line, code) for name, line, code in _check(tmp_path) if name == log.name]
    assert sorted(found) == [(log.name, 4, "P001"), (log.name, 6, "M001"), (log.name, 6, "M002")]


def test_a_checked_log_is_compared_with_the_rest_of_its_run_read_from_disk(tmp_path: Path) -> None:
    """Pre-commit passes only the changed log: the task graph and the other actors' logs are read for context,
    and findings are only reported in the file being checked."""
    run = _copy_run(tmp_path, "r")
    log = run / "events" / "verifier" / "20260115-1100.jsonl"
    with log.open("a") as handle:
        handle.write(
            json.dumps({"event_type": "task-blocked", "task_id": "T001", "timestamp": NOW, "actor": "verifier"})
        )
        handle.write("\n")
    report = engine.run([log], load_config(tmp_path), cwd=tmp_path)
    assert [(f.position.line, f.code) for f in report.findings] == [(3, "M008")]
    assert "events/orchestrator/20260115-1000.jsonl:3" in report.findings[0].message


def spelling_config(root: Path, event_type_spelling: str = "underscore") -> Config:
    """The configuration with `event-type-spelling` set."""
    return Config(root=root, options={"event-type-spelling": event_type_spelling})


def test_the_configured_spelling_is_enforced_once_per_type_and_file(tmp_path: Path) -> None:
    shutil.copytree(THREE_ACTORS / ".agent-memory", tmp_path / ".agent-memory")
    default = [f for f in _check(tmp_path) if f[2] == "M010"]
    assert default == []  # both spellings are accepted unless configured
    underscore = [f for f in _check(tmp_path, spelling_config(root=tmp_path)) if f[2] == "M010"]
    assert underscore == [
        ("20260115-1030.jsonl", 5, "M010"),
        ("20260115-1100.jsonl", 1, "M010"),
        ("20260115-1100.jsonl", 2, "M010"),
    ]
    hyphen = [
        f for f in _check(tmp_path, spelling_config(root=tmp_path, event_type_spelling="hyphen")) if f[2] == "M010"
    ]
    # once per event type and file: the executor's second `task_started` (line 3) is not repeated
    assert sorted((name, line) for name, line, _code in hyphen) == [
        ("20260115-1000.jsonl", 1),
        ("20260115-1000.jsonl", 2),
        ("20260115-1000.jsonl", 3),
        ("20260115-1030.jsonl", 1),
        ("20260115-1030.jsonl", 2),
    ]


def test_events_of_a_document_keep_their_file_lines() -> None:
    from ctxres.formats.loading import Format, load_file

    path = RUN / "events" / "executor" / "20260115-1030.jsonl"
    doc = load_file(str(path), "event-log", Format.JSONL).document
    assert isinstance(doc, Document)
    assert [(e.line, e.kind, e.task_id) for e in am.events_of(doc)] == [
        (1, "task_started", "T001"),
        (2, "task_implemented", "T001"),
        (3, "task_started", "T002"),
        (5, "task_blocked", "T003"),
    ]


def test_a_young_run_without_a_task_graph_continues_the_prd(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CTXRES_NOW", NOW)
    run = tmp_path / ".agent-memory" / "runs" / "young"
    (run / "events" / "orchestrator").mkdir(parents=True)
    (run / "constitution.md").write_text("# Constitution\n")
    (run / "events" / "orchestrator" / "20260115-0900.jsonl").write_text(
        json.dumps({"event_type": "run-started", "timestamp": "2026-01-15T09:00:00Z", "actor": "orchestrator"}) + "\n"
    )
    code, out, _err = _runs(capsys, "--root", str(tmp_path))
    assert code == 0
    assert "- Phase: 0" in out and "- Tasks: 0/0 complete" in out and "Warnings:" not in out
    assert "- phase 0: continue the PRD/plan (prd.md, plan.md not written yet)" in out


def test_an_executing_run_without_its_artifacts_is_sent_back_to_produce_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CTXRES_NOW", NOW)
    run = _copy_run(tmp_path, "r")
    (run / "plan.md").unlink()
    (run / "task-graph.json").write_text('{"metadata": {}}\n')
    _code, out, _err = _runs(capsys, "--root", str(tmp_path))
    assert "- re-run the step that produces the missing plan.md, then resume phase 2" in out
    assert "task-graph.json has no `tasks` list: task states cannot be derived" in out


# ------------------------------------------------------------------ the agent pack's vocabulary

PACK = FIXTURES / "agent-memory" / "pack-vocabulary"
PACK_RUN_ID = "20260301-0900-invoice-export"
PACK_RUN = PACK / ".agent-memory" / "runs" / PACK_RUN_ID


def test_the_pack_examples_claimed_implemented_verified_make_a_done_task() -> None:
    """The pack's own example: claimed and implemented by the executor, verified by the verifier."""
    graph = tasks(("T001", ()), ("T002", ()), ("T003", ()), ("T004", ()))
    events = [
        event("task-verified", "T001", "2024-01-15T11:00:00Z", "verifier"),  # another actor's log, read first
        event("task-claimed", "T001", "2024-01-15T10:30:00Z"),
        event("task-implemented", "T001", "2024-01-15T10:45:00Z"),
    ]
    states = [s.state for s in am.derive_states(graph, events)]
    assert states == ["done", "pending", "pending", "pending"]
    run = am.Run("r", "r", tasks=graph, events=events, artifacts=frozenset(am.CORE_ARTIFACTS))
    status = am.assess(run, now=dt.datetime(2024, 1, 15, 12, tzinfo=dt.timezone.utc), stale_after=dt.timedelta(7))
    assert (status.done, len(status.tasks), status.warnings) == (1, 4, [])
    assert status.last_completed is not None and status.last_completed.task.id == "T001"


def test_the_pack_failed_blocked_and_the_catalog_steps_map_to_states() -> None:
    graph = tasks(("T1", ()), ("T2", ()), ("T3", ()), ("T4", ()), ("T5", ()))
    events = [
        event("task-claimed", "T1", "2026-01-15T10:00:00Z"),
        event("task-failed", "T1", "2026-01-15T10:30:00Z", "verifier"),
        event("task-blocked", "T2", "2026-01-15T10:00:00Z"),
        event("task-verified", "T3", "2026-01-15T10:00:00Z", "verifier"),
        event("task-completed", "T3", "2026-01-15T10:05:00Z", "orchestrator"),  # the catalog's final step: still done
        event("task-verified", "T4", "2026-01-15T10:00:00Z", "verifier"),
        event("task-claimed", "T4", "2026-01-15T10:20:00Z"),  # claimed again after verification: rework
        event("task-ready", "T5", "2026-01-15T10:00:00Z", "orchestrator"),
    ]
    states = {s.task.id: s.state for s in am.derive_states(graph, events)}
    assert states == {"T1": "failed", "T2": "blocked", "T3": "done", "T4": "in_progress", "T5": "pending"}
    assert am.impossible_transitions(events) == []


def test_events_stamped_with_the_same_instant_take_the_later_lifecycle_step() -> None:
    graph = tasks(("T1", ()))
    events = [
        event("task-verified", "T1", "2026-01-15T10:00:00Z", "a-verifier"),  # sorts first by path
        event("task-claimed", "T1", "2026-01-15T10:00:00Z", "executor"),
    ]
    assert [s.state for s in am.derive_states(graph, events)] == ["done"]


def test_phase_complete_and_run_complete_are_read() -> None:
    run = am.Run("r", "r", artifacts=frozenset(am.CORE_ARTIFACTS))
    run.events = [
        am.RunEvent(
            "e",
            1,
            0,
            "orchestrator",
            "orchestrator",
            "phase-complete",
            "phase_complete",
            None,
            None,
            None,
            {"phase": 3},
        )
    ]
    assert am.run_phase(run) == 3
    finished = event("run-complete", None, "2026-01-15T12:00:00Z", "orchestrator")
    assert am.is_complete([finished]) and am.run_phase(am.Run("r", "r", events=[finished])) == 4
    assert am.unmapped_events([*run.events, finished]) == []


def test_unknown_event_types_and_events_without_a_type_are_listed_not_silently_dropped() -> None:
    known = [event(kind, "T1", "2026-01-15T10:00:00Z") for kind in ("task-claimed", "escalation", "execution_error")]
    unknown = event("task-done", "T1", "2026-01-15T10:10:00Z", line=2)
    untyped = event("", "T1", "2026-01-15T10:20:00Z", line=3)
    assert am.unmapped_events([*known, unknown, untyped]) == [unknown, untyped]
    assert am.describe_unmapped(unknown) == (
        "event type 'task-done' for task T1 is in neither the agent-memory format's nor the agent pack's "
        "vocabulary: ignored, the state of task T1 may be wrong"
    )
    assert am.describe_unmapped(untyped) == (
        "an event for task T1 without `event_type` is ignored: the state of task T1 may be wrong"
    )


def test_runs_reports_the_pack_run_with_its_verified_task_done(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(PACK)
    monkeypatch.setenv("CTXRES_NOW", "2026-03-01T11:00:00Z")
    code, out, _err = _runs(capsys, "--output-format", "json")
    assert code == 0
    report = json.loads(out)["run"]
    assert {t["id"]: t["state"] for t in report["tasks"]} == {
        "T001": "done",
        "T002": "failed",
        "T003": "blocked",
        "T004": "pending",
    }
    assert (report["done"], report["total"], report["warnings"]) == (1, 4, [])
    assert report["last_completed"] == {"id": "T001", "title": "Write the CSV writer"}


def test_runs_warns_about_unknown_event_types_and_events_without_a_type(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copytree(PACK / ".agent-memory", tmp_path / ".agent-memory")
    log = tmp_path / ".agent-memory" / "runs" / PACK_RUN_ID / "events" / "executor" / "20260301-0930.jsonl"
    with log.open("a") as handle:
        handle.write(
            '{"event_type": "task-done", "task_id": "T004", "timestamp": "2026-03-01T10:55:00Z", "actor": "executor"}\n'
        )
        handle.write('{"task_id": "T004", "timestamp": "2026-03-01T10:56:00Z", "actor": "executor"}\n')
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CTXRES_NOW", "2026-03-01T11:00:00Z")
    _code, out, _err = _runs(capsys)
    where = f".agent-memory/runs/{PACK_RUN_ID}/events/executor/20260301-0930.jsonl"
    lines = out.splitlines()
    assert (
        f"- {where}:6: event type 'task-done' for task T004 is in neither the agent-memory format's nor the agent "
        "pack's vocabulary: ignored, the state of task T004 may be wrong"
    ) in lines
    assert (
        f"- {where}:7: an event for task T004 without `event_type` is ignored: the state of task T004 may be wrong"
        in lines
    )
    assert "- T004  pending      Document the export" in lines
    findings = _check(tmp_path)
    assert sorted(findings) == [("20260301-0930.jsonl", 6, "M011"), ("20260301-0930.jsonl", 7, "C001")]


def test_the_pack_vocabulary_fixture_is_clean() -> None:
    assert _check(PACK) == []
