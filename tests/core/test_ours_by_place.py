"""Ours by place and content, not by name: `cx-001.json`, `events/<x>/<day>.jsonl`, `task-graph.json`,
`resume-context.md`, `context-monitor-state.json` and `precompact_state.json` are common names, and a rule file
is a file the client or the L2 engine reads. Another tool's file that only shares the name gets
no finding; ours in its place, or with our content, is checked as before (near misses below)."""

from __future__ import annotations

import shutil
from pathlib import Path

from ctxres.artifacts import DEFAULT_PATTERNS
from ctxres.config import Config, load_config
from ctxres.linters.checking import engine
from ctxres.linters.checking.discovery import discover, skip_reason, skipped_files
from ctxres.linters.commands.init import plan_l2

from ..cli_process import ctxres
from ..conftest import FIXTURES
from ..hooks.hook_project import answer, payload, run_hook, workspace

RULES = FIXTURES / "rules"
OTHER_GRAPHS = RULES / "C001" / "good-other-tools-task-graphs"
RUN_BESIDE_OTHERS = RULES / "C001" / "bad-run-graph-beside-other-tools"
HANDOFF = RULES / "P008" / "good-handoff-notes"
QUOTED = RULES / "R001" / "good-quoted-in-a-deliverable"
OTHER_CX = RULES / "C007" / "good-other-tools-cx-items"
CX_BESIDE = RULES / "C001" / "bad-checkpoint-beside-other-tools-cx-items"
DATED_EVENTS = RULES / "C007" / "good-dated-events-data-set"
EVENTS_BESIDE = RULES / "C007" / "bad-event-log-beside-dated-data-set"
NOT_OURS = '{"id": "item-7", "reviewed": true, "raw_output": "42", "expected": "42"}\n'
MARKER = '<!-- L2-REINJECT: rank={rank}, tokens={tokens}, content="{content}" -->\n'


def _kinds(root: Path, config: Config | None = None) -> dict[str, str]:
    return {a.display: a.kind for a in discover([root], config or Config(root=root), root)}


def _codes(root: Path, config: Config | None = None) -> list[tuple[str, str]]:
    report = engine.run([root], config or Config(root=root), cwd=root)
    return [(f.path, f.code) for f in report.findings]


# --- agent-memory task graphs -------------------------------------------------------------------


def test_other_tools_task_graphs_are_not_ours() -> None:
    # a map keyed by task name with `dependsOn`, a PRD list with `depends_on`, an Nx-style graph
    assert _kinds(OTHER_GRAPHS) == {}
    assert _codes(OTHER_GRAPHS) == []
    skipped = dict(skipped_files([OTHER_GRAPHS], Config(root=OTHER_GRAPHS), OTHER_GRAPHS))
    assert sorted(skipped) == ["task-graph.json", "tools/nx/task-graph.json", "tools/prd/task-graph.json"]
    assert all("another tool's file, not checked" in why for why in skipped.values())


def test_a_run_graph_in_its_place_is_checked_beside_them() -> None:
    run_graph = ".agent-memory/runs/20260301-0900-invoice-export/task-graph.json"
    assert _kinds(RUN_BESIDE_OTHERS) == {run_graph: "task-graph"}
    assert _codes(RUN_BESIDE_OTHERS) == [(run_graph, "C001")]  # the near miss: a task without `title`


def test_a_graph_of_the_runs_shape_is_ours_wherever_it_is(tmp_path: Path) -> None:
    (tmp_path / "plans").mkdir()
    shaped = '{"tasks": [{"id": "T1", "title": "Export", "dependencies": ["T0"]}, {"id": 2}]}'
    (tmp_path / "plans" / "task-graph.json").write_text(shaped)
    assert _kinds(tmp_path) == {"plans/task-graph.json": "task-graph"}
    assert ("plans/task-graph.json", "C001") in _codes(tmp_path)  # broken, and ours: reported as before
    (tmp_path / "plans" / "task-graph.json").write_text('{"metadata": {"run_id": "r1"}, "tasks": {}}')
    assert _kinds(tmp_path) == {"plans/task-graph.json": "task-graph"}


def test_a_broken_file_in_a_run_folder_is_still_reported(tmp_path: Path) -> None:
    run = tmp_path / ".agent-memory" / "runs" / "r1"
    run.mkdir(parents=True)
    (run / "task-graph.json").write_text('{"tasks": [')
    (tmp_path / "task-graph.json").write_text('{"tasks": [')  # the same outside: only the name, not ours
    assert _codes(tmp_path) == [(".agent-memory/runs/r1/task-graph.json", "P001")]


def test_files_named_on_the_command_line_are_recognised_alike() -> None:
    """pre-commit passes file names: the same place and content decide."""
    named = [OTHER_GRAPHS / "task-graph.json", OTHER_GRAPHS / "tools" / "prd" / "task-graph.json"]
    assert discover(named, Config(root=OTHER_GRAPHS), OTHER_GRAPHS) == []
    graph = RUN_BESIDE_OTHERS / ".agent-memory" / "runs" / "20260301-0900-invoice-export" / "task-graph.json"
    # named from inside the run folder too: the place is the file's, not the shown path's
    found = discover([graph], Config(root=RUN_BESIDE_OTHERS), graph.parent)
    assert [(a.display, a.kind) for a in found] == [("task-graph.json", "task-graph")]


def test_a_pattern_the_project_sets_is_taken_as_said(tmp_path: Path) -> None:
    shutil.copytree(OTHER_GRAPHS, tmp_path / "repo")
    root = tmp_path / "repo"
    config = Config(root=root, patterns={**DEFAULT_PATTERNS, "task-graph": ("tools/prd/task-graph.json",)})
    assert _kinds(root, config) == {"tools/prd/task-graph.json": "task-graph"}
    assert skip_reason("tools/prd/task-graph.json", root / "tools/prd/task-graph.json", config) is None


# --- checkpoints ---------------------------------------------------------------------------------


def test_other_tools_cx_items_are_not_ours() -> None:
    """An evaluation tool's `cx-NNN.json` items, a training run's `checkpoints/cx-004.json`, another monitor's
    and another Nexus tool's state files: nothing checked, each said why."""
    assert _kinds(OTHER_CX) == {}
    assert _codes(OTHER_CX) == []
    skipped = dict(skipped_files([OTHER_CX], Config(root=OTHER_CX), OTHER_CX))
    assert sorted(skipped) == [
        "evals/canary/cx-001.json",
        "evals/canary/cx-002.json",
        "evals/canary/cx-003.json",
        "tools/monitor/context-monitor-state.json",
        "training/checkpoints/cx-004.json",
        "vendor/nexus-lite/precompact_state.json",
    ]
    assert all("another tool's file, not checked" in why for why in skipped.values())
    # named on the command line (pre-commit passes file names): the same
    assert discover([OTHER_CX / "evals" / "canary" / "cx-001.json"], Config(root=OTHER_CX), OTHER_CX) == []


def test_a_checkpoint_with_a_missing_key_is_still_reported_beside_them() -> None:
    """Ours in the state folder's `checkpoints/` (whatever it holds), and the peer layout elsewhere by its keys."""
    assert _kinds(CX_BESIDE) == {".jerry/checkpoints/cx-001.json": "checkpoint", "archive/cx-002.json": "checkpoint"}
    assert _codes(CX_BESIDE) == [(".jerry/checkpoints/cx-001.json", "C001"), ("archive/cx-002.json", "C001")]


def test_a_broken_checkpoint_in_its_folder_is_still_reported(tmp_path: Path) -> None:
    (tmp_path / ".jerry" / "checkpoints").mkdir(parents=True)
    (tmp_path / ".jerry" / "checkpoints" / "cx-001.json").write_text('{"id": ')
    (tmp_path / "cx-001.json").write_text('{"id": ')  # the same elsewhere: only the name
    (tmp_path / "cx-002.json").write_text('{"checkpoint_id": "cx-002", ')  # broken, but of our keys
    assert _codes(tmp_path) == [(".jerry/checkpoints/cx-001.json", "P001"), ("cx-002.json", "P001")]


def test_the_configured_state_dir_is_the_checkpoints_place(tmp_path: Path) -> None:
    """`state-dir` moves the folder the PreCompact hook writes `cx-NNN.json` into, and the monitor state."""
    state = tmp_path / "tools" / "ctx-state"
    (state / "checkpoints").mkdir(parents=True)
    (state / "checkpoints" / "cx-001.json").write_text(NOT_OURS)
    (state / "context-monitor-state.json").write_text('{"schema_version": "1.0"}\n')
    (tmp_path / "pyproject.toml").write_text('[tool.ctxres]\nstate-dir = "tools/ctx-state"\n')
    assert _kinds(tmp_path, load_config(tmp_path)) == {
        "tools/ctx-state/checkpoints/cx-001.json": "checkpoint",
        "tools/ctx-state/context-monitor-state.json": "monitor-state",
    }
    assert ("tools/ctx-state/checkpoints/cx-001.json", "C007") in _codes(tmp_path, load_config(tmp_path))
    assert _kinds(tmp_path) == {}  # under the default `.jerry`, the folder is no state folder


def test_the_checkpoint_the_precompact_hook_writes_is_checked_where_it_writes_it(tmp_path: Path) -> None:
    """The hook's own checkpoint, in the configured state folder, written by the real hook process, is ours
    whatever it holds: the folder says so (a content test is not read for it)."""
    root = workspace(tmp_path)
    (root / "pyproject.toml").write_text('[tool.ctxres]\nstate-dir = "tools/ctx-state"\n')
    result = run_hook("PreCompact", root, payload(root, trigger="auto", custom_instructions=""))
    assert answer(result, "PreCompact") == {}
    [written] = (root / "tools" / "ctx-state" / "checkpoints").glob("cx-*.json")
    shown = written.relative_to(root).as_posix()
    assert _kinds(root, load_config(root))[shown] == "checkpoint"
    written.write_text(NOT_OURS)  # overwritten by hand: still ours, by its place, and reported
    assert (shown, "C007") in _codes(root, load_config(root))


# --- event logs ---------------------------------------------------------------------------------


def test_a_dated_events_data_set_is_not_ours() -> None:
    """`data/events/<YYYY-MM>/<day>.jsonl` of news items (one carries an `event_type` of its own)."""
    assert _kinds(DATED_EVENTS) == {}
    assert _codes(DATED_EVENTS) == []
    skipped = dict(skipped_files([DATED_EVENTS], Config(root=DATED_EVENTS), DATED_EVENTS))
    assert sorted(skipped) == [
        "data/events/2024-03/01.jsonl",
        "data/events/2024-03/02.jsonl",
        "data/events/2024-04/01.jsonl",
    ]


def test_an_event_log_with_a_line_of_another_shape_is_still_reported_beside_it() -> None:
    run = "archive/20260301-0900-invoice-export"  # a run kept outside `.agent-memory/runs/`: ours by content
    log = f"{run}/events/executor/20260301-0930.jsonl"
    assert _kinds(EVENTS_BESIDE) == {log: "event-log", f"{run}/task-graph.json": "task-graph"}
    assert _codes(EVENTS_BESIDE) == [(log, "C007")]


def test_an_event_log_in_a_run_is_checked_whatever_its_lines(tmp_path: Path) -> None:
    actor = tmp_path / ".agent-memory" / "runs" / "r1" / "events" / "executor"
    actor.mkdir(parents=True)
    (actor / "20260301.jsonl").write_text(NOT_OURS)
    assert _kinds(tmp_path) == {".agent-memory/runs/r1/events/executor/20260301.jsonl": "event-log"}
    assert (".agent-memory/runs/r1/events/executor/20260301.jsonl", "C007") in _codes(tmp_path)


# --- the monitor state and the Nexus pre-compact state ------------------------------------------


def test_state_files_are_ours_in_their_place_or_by_their_keys(tmp_path: Path) -> None:
    (tmp_path / ".jerry").mkdir()
    (tmp_path / ".jerry" / "context-monitor-state.json").write_text("{}\n")  # in its place: checked
    (tmp_path / "backup").mkdir()
    near_miss = '{"fill": 0.5, "tier": "NOMINAL", "tokens": 100000}\n'  # ours, without most of its keys
    (tmp_path / "backup" / "context-monitor-state.json").write_text(near_miss)
    cache = tmp_path / "nexus" / "00-system" / ".cache"
    cache.mkdir(parents=True)
    (cache / "precompact_state.json").write_text("{}\n")
    (tmp_path / "backup" / "nested_precompact_state.json").write_text('{"detection_method": "transcript"}\n')
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "context-monitor-state.json").write_text('{"percent_used": 41}\n')
    (tmp_path / "tools" / "precompact_state.json").write_text('{"summary": "notes"}\n')
    assert _kinds(tmp_path) == {
        ".jerry/context-monitor-state.json": "monitor-state",
        "backup/context-monitor-state.json": "monitor-state",
        "nexus/00-system/.cache/precompact_state.json": "precompact-state",
        "backup/nested_precompact_state.json": "precompact-state",
    }
    assert {path for path, code in _codes(tmp_path) if code == "C001"} == {
        ".jerry/context-monitor-state.json",
        "backup/context-monitor-state.json",
        "nexus/00-system/.cache/precompact_state.json",
        "backup/nested_precompact_state.json",
    }


# --- Nexus manifests ----------------------------------------------------------------------------


def test_handoff_notes_and_a_cv_named_resume_context_are_not_ours() -> None:
    assert _kinds(HANDOFF) == {}
    assert _codes(HANDOFF) == []


def test_a_manifest_without_front_matter_in_a_workspace_is_still_p008(tmp_path: Path) -> None:
    planning = tmp_path / "nexus" / "02-projects" / "07-billing" / "01-planning"
    planning.mkdir(parents=True)
    (planning / "resume-context.md").write_text("# Resume context\n\nNo front matter here.\n")
    shown = "nexus/02-projects/07-billing/01-planning/resume-context.md"
    # the project folders alone do not make a workspace: `00-system/` beside them does
    assert _codes(tmp_path) == []
    assert "beside 00-system/" in (skip_reason(shown, tmp_path / shown, Config(root=tmp_path)) or "")
    (tmp_path / "nexus" / "00-system").mkdir()
    assert _codes(tmp_path) == [(shown, "P008")]
    # a build's place too
    build = tmp_path / "nexus" / "02-builds" / "active" / "03-search" / "01-planning"
    build.mkdir(parents=True)
    (build / "resume-context.md").write_text("# Build notes\n")
    assert (("nexus/02-builds/active/03-search/01-planning/resume-context.md", "P008")) in _codes(tmp_path)


def test_a_manifest_is_ours_by_its_own_keys_outside_a_workspace(tmp_path: Path) -> None:
    (tmp_path / "resume-context.md").write_text('---\nresume_schema_version: "2.0"\nproject_id: 24-x\n---\n')
    assert _kinds(tmp_path) == {"resume-context.md": "resume-context"}
    assert ("resume-context.md", "C001") in _codes(tmp_path)  # broken, and ours


# --- rule files ---------------------------------------------------------------------------------


def test_a_marker_quoted_in_a_deliverable_is_text() -> None:
    assert _kinds(QUOTED) == {"CLAUDE.md": "rule-file"}  # a CLAUDE.md without markers is read, and clean
    assert _codes(QUOTED) == []


def test_a_project_adds_a_rule_folder_in_its_configuration(tmp_path: Path) -> None:
    (tmp_path / "guidance").mkdir()
    (tmp_path / "guidance" / "rules.md").write_text(MARKER.format(rank=1, tokens=99, content="Ask first."))
    assert _codes(tmp_path) == []
    patterns = {**DEFAULT_PATTERNS, "rule-file": (*DEFAULT_PATTERNS["rule-file"], "guidance/*.md")}
    assert _codes(tmp_path, Config(root=tmp_path, patterns=patterns)) == [("guidance/rules.md", "R003")]


def _deliverables(root: Path, count: int) -> None:
    """``count`` design documents, each quoting a long marker at rank 9."""
    (root / "docs" / "design").mkdir(parents=True)
    content = "Quality gate: every deliverable scored by the rubric before review. " * 6
    for n in range(count):
        text = f"# Design {n}\n\nThe marker we ship:\n\n" + MARKER.format(rank=9, tokens=100, content=content)
        (root / "docs" / "design" / f"d{n:02}.md").write_text(text)


def test_quoted_markers_count_toward_no_budget(tmp_path: Path) -> None:
    (tmp_path / "CLAUDE.md").write_text("# Rules\n\n" + MARKER.format(rank=1, tokens=4, content="Ask first."))
    _deliverables(tmp_path, 12)  # 1,200 tokens quoted: over the 600-token budget had they counted
    result = ctxres("reinject", ".", cwd=tmp_path)
    assert result.returncode == 0 and "R006" not in result.stdout, result.stdout


def test_init_budget_and_rank_use_the_rule_files_only(tmp_path: Path) -> None:
    (tmp_path / "CLAUDE.md").write_text("# Rules\n\n" + MARKER.format(rank=1, tokens=4, content="Ask first."))
    _deliverables(tmp_path, 12)
    changes = plan_l2(tmp_path, "CLAUDE.md")
    # the reminder at the protocol's rank 9 (the deliverables' rank 9 is text), and no budget raised
    assert [change.path.name for change in changes] == ["CLAUDE.md"]
    assert "rank=9" in changes[0].text


def test_list_files_says_why_a_checkpoint_named_alike_is_skipped() -> None:
    result = ctxres("check", "--list-files", ".", cwd=CX_BESIDE)
    assert result.returncode == 0, result.stderr
    assert result.stdout == ".jerry/checkpoints/cx-001.json\tcheckpoint\narchive/cx-002.json\tcheckpoint\n"
    assert result.stderr.splitlines() == [
        f"ctxres: skipped evals/canary/cx-00{n}.json: named like an artifact (checkpoint), but neither in its place "
        "(checkpoints/ of the state folder, .jerry/checkpoints/ or the configured state-dir's) nor of its content "
        "(a JSON object with event_id, orchestration_state, checkpoint_id, context_state or resumption_state): "
        "another tool's file, not checked"
        for n in (1, 2, 3)
    ]


def test_list_files_says_why_a_file_is_skipped() -> None:
    result = ctxres("check", "--list-files", ".", cwd=RUN_BESIDE_OTHERS)
    assert result.returncode == 0, result.stderr
    assert result.stdout == ".agent-memory/runs/20260301-0900-invoice-export/task-graph.json\ttask-graph\n"
    assert result.stderr.splitlines() == [
        f"ctxres: skipped {name}: named like an artifact (agent-memory task graph), but neither in its place "
        "(a run folder, .agent-memory/runs/<run>/) nor of its content (a tasks list whose tasks have "
        "dependencies, or metadata.run_id): another tool's file, not checked"
        for name in ("task-graph.json", "tools/nx/task-graph.json", "tools/prd/task-graph.json")
    ]
