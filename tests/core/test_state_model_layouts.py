"""The generic state extraction of ctxres.state.statediff on two layouts without pipelines.

Two synthetic lineages under fixtures/state-model/, each version a commit:

* tasks-in-phases-list/: no pipelines; a top-level `phases:` list whose phases hold `tasks:`
  (status, iteration, quality_scores, accepted, blocked_by); a v2.0 section with `updated_at`.
* v2-without-updated-at/: pipelines with phases as a mapping, execution groups, quality gates,
  barriers, `workflow.current_pipeline`; a v2.0 section without `recovery_state.updated_at`.

Each transition is asserted with its exact moves and its verdict, through the pure functions, then
through `ctxres stale`, `ctxres check --since` (S013) and `ctxres audit-history` on a git history
replayed from the versions.
"""

from __future__ import annotations

import copy
import itertools
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from ctxres.formats.document import Document
from ctxres.formats.loading import Format, parse_text
from ctxres.state.statediff import Move, assess, extract, moved_state, resumption_moved

from ..conftest import FIXTURES
from ..git_sandbox import GitRepo

LAYOUTS = FIXTURES / "state-model"
TASKS = LAYOUTS / "tasks-in-phases-list"
NO_UPDATED_AT = LAYOUTS / "v2-without-updated-at"


def versions(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.yaml"))


def parse(path: Path) -> Document:
    document = parse_text(path.name, "orchestration", Format.YAML, path.read_text("utf-8")).document
    assert document is not None
    return document


def pair(folder: Path, new_name: str) -> tuple[Document, Document, Path]:
    files = versions(folder)
    index = [f.name for f in files].index(new_name)
    return parse(files[index - 1]), parse(files[index]), files[index]


def locator(doc: Document) -> Any:
    return lambda path: doc.locate(path, key=True).line


def line_of(path: Path, needle: str, occurrence: int = 1) -> int:
    seen = 0
    for number, line in enumerate(path.read_text("utf-8").splitlines(), 1):
        if needle in line:
            seen += 1
            if seen == occurrence:
                return number
    raise AssertionError(f"{needle!r} not in {path}")


def described(moves: list[Move] | tuple[Move, ...]) -> list[str]:
    return [move.describe() for move in moves]


# --- the tasks nested in a phases list -----------------------------------------------------------


def test_tasks_nested_in_a_phases_list_are_units_with_their_state_and_lines() -> None:
    doc = parse(TASKS / "01-start.yaml")
    facts = extract(doc.data, locator(doc)).facts
    t1 = {f.field: (f.value, f.line) for f in facts.values() if str(f.unit) == "phase 1 task T1"}
    start = TASKS / "01-start.yaml"
    assert t1 == {
        "status": ("IN_PROGRESS", line_of(start, "status: IN_PROGRESS", 2)),
        "iteration": (0, line_of(start, "iteration: 0")),
        "quality_scores": ([], line_of(start, "quality_scores: []")),
        "accepted": (False, line_of(start, "accepted: false")),
    }
    t2 = {f.field: f.value for f in facts.values() if str(f.unit) == "phase 1 task T2"}
    assert t2 == {"status": "BLOCKED", "blocked_by": ["T1"], "iteration": 0, "quality_scores": [], "accepted": False}
    # The same task id in another phase is another unit.
    assert {f.field: f.value for f in facts.values() if str(f.unit) == "phase 2 task T1"} == {"status": "PENDING"}
    # Nothing from metrics, next_actions or the resumption section; no line without a locator.
    assert not any(f.path[0] in ("metrics", "next_actions", "resumption") for f in facts.values())
    assert {f.line for f in extract(doc.data).facts.values()} == {None}


def test_accepting_a_nested_task_moves_status_iteration_scores_and_accepted_and_is_stale() -> None:
    old, new, path = pair(TASKS, "02-task-accepted-section-untouched.yaml")
    moves = moved_state(old.data, new.data, locator(new))
    assert described(moves) == [
        "phase 1 task T1 status: IN_PROGRESS -> ACCEPTED",
        "phase 1 task T1 iteration: 0 -> 1",
        "phase 1 task T1 quality_scores: [] -> [0.91]",
        "phase 1 task T1 accepted: false -> true",
    ]
    assert [m.line for m in moves] == [
        line_of(path, "ACCEPTED"),
        line_of(path, "iteration: 1"),
        line_of(path, "quality_scores: [0.91]"),
        line_of(path, "accepted: true"),
    ]
    staleness = assess(old.data, new.data, locate=locator(new))
    assert staleness is not None
    assert staleness.moves == tuple(moves)
    assert "`resumption.recovery_state.updated_at` did not advance" in staleness.stale


@pytest.mark.parametrize(
    ("field", "before", "after", "expected"),
    [
        ("status", "IN_PROGRESS", "ACCEPTED", "status: IN_PROGRESS -> ACCEPTED"),
        ("iteration", 0, 1, "iteration: 0 -> 1"),
        ("quality_scores", [], [0.91], "quality_scores: [] -> [0.91]"),
        ("quality_scores", [0.85], [0.85, 0.91], "quality_scores: [0.85] -> [0.85, 0.91]"),
        ("accepted", False, True, "accepted: false -> true"),
    ],
)
def test_each_nested_task_value_alone_is_a_move(field: str, before: Any, after: Any, expected: str) -> None:
    old = parse(TASKS / "01-start.yaml").data
    old["phases"][0]["tasks"][0][field] = before
    new = copy.deepcopy(old)
    new["phases"][0]["tasks"][0][field] = after
    assert described(moved_state(old, new)) == [f"phase 1 task T1 {expected}"]
    assert assess(old, new) is not None


def test_catching_up_the_section_alone_moves_nothing() -> None:
    old, new, _path = pair(TASKS, "03-section-caught-up.yaml")
    assert moved_state(old.data, new.data) == []
    assert resumption_moved(old.data, new.data)
    assert assess(old.data, new.data) is None


def test_a_removed_blocked_status_is_a_move_and_is_stale() -> None:
    old, new, path = pair(TASKS, "04-blocked-status-removed.yaml")
    moves = moved_state(old.data, new.data, locator(new))
    assert described(moves) == [
        "phase 1 task T2 status: BLOCKED -> (removed)",
        "phase 1 task T2 blocked_by: [T1] -> (removed)",
    ]
    assert [m.change for m in moves] == ["removed", "removed"]
    # A removed key has no line of its own in the new version: the line is its task's.
    assert [m.line for m in moves] == [line_of(path, "- id: T2")] * 2
    assert [m.as_json()["after"] for m in moves] == [None, None]
    staleness = assess(old.data, new.data)
    assert staleness is not None
    assert described(staleness.moves) == described(moves)


def test_removing_only_a_blocked_status_is_a_move() -> None:
    old = parse(TASKS / "01-start.yaml").data
    new = copy.deepcopy(old)
    del new["phases"][0]["tasks"][1]["status"]
    assert described(moved_state(old, new)) == ["phase 1 task T2 status: BLOCKED -> (removed)"]
    assert assess(old, new) is not None


def test_an_added_state_key_in_an_existing_unit_is_a_move() -> None:
    old, new, _path = pair(TASKS, "05-task-started-with-section.yaml")
    moves = moved_state(old.data, new.data)
    assert described(moves) == ["phase 1 task T2 status: (absent) -> IN_PROGRESS"]
    assert moves[0].change == "added"
    assert assess(old.data, new.data) is None  # the section was updated in the same commit


def test_a_whole_unit_planned_or_dropped_before_it_started_is_not_a_move() -> None:
    old = parse(TASKS / "01-start.yaml").data
    new = copy.deepcopy(old)
    new["phases"][1]["tasks"].append(
        {"id": "T2", "status": "PENDING", "blocked_by": ["T1"], "iteration": 0, "quality_scores": [], "accepted": False}
    )
    new["phases"].append({"id": 3, "name": "Archive", "status": "BLOCKED", "blocked_by": [2], "tasks": []})
    assert moved_state(old, new) == []
    assert moved_state(new, old) == []
    # But a task that appears already accepted, or disappears after it started, moved the state.
    new["phases"][1]["tasks"].append({"id": "T3", "status": "ACCEPTED", "accepted": True})
    del new["phases"][0]["tasks"][0]
    assert described(moved_state(old, new)) == [
        "phase 2 task T3 status: (absent) -> ACCEPTED",
        "phase 2 task T3 accepted: (absent) -> true",
        "phase 1 task T1 status: IN_PROGRESS -> (removed)",
    ]


def test_empty_values_added_or_removed_say_nothing() -> None:
    old = parse(TASKS / "01-start.yaml").data
    new = copy.deepcopy(old)
    del new["phases"][0]["tasks"][0]["quality_scores"]  # [] -> absent
    new["phases"][0]["tasks"][0]["score"] = None
    assert moved_state(old, new) == []


def test_blocked_by_compares_as_a_set() -> None:
    old = parse(TASKS / "01-start.yaml").data
    old["phases"][0]["tasks"][1]["blocked_by"] = ["T1", "T0"]
    new = copy.deepcopy(old)
    new["phases"][0]["tasks"][1]["blocked_by"] = ["T0", "T1"]
    assert moved_state(old, new) == []
    new["phases"][0]["tasks"][1]["blocked_by"] = ["T0"]
    assert described(moved_state(old, new)) == ["phase 1 task T2 blocked_by: [T0, T1] -> [T0]"]


def test_prose_comments_metrics_and_next_actions_are_silent() -> None:
    old, new, _path = pair(TASKS, "06-prose-metrics-next-actions.yaml")
    assert old.text != new.text and old.data != new.data
    assert moved_state(old.data, new.data) == []
    assert assess(old.data, new.data) is None


@pytest.mark.parametrize(
    "edit",
    [
        lambda d: d.update(metrics={"status": "COMPLETE", "score": 1.0}),
        lambda d: d.update(next_actions=[{"action": "ship", "status": "IN_PROGRESS"}]),
        lambda d: d["phases"][0].update(metrics={"quality_scores": [0.5]}),
        lambda d: d["phases"][0]["tasks"][0].update(next_actions={"status": "TODO"}),
        lambda d: d["phases"][0]["tasks"][0].update(title="Another title", notes="free text"),
    ],
    ids=["top metrics", "top next_actions", "nested metrics", "nested next_actions", "prose"],
)
def test_metrics_and_next_actions_never_count_wherever_they_sit(edit: Any) -> None:
    old = parse(TASKS / "01-start.yaml").data
    new = copy.deepcopy(old)
    edit(new)
    assert moved_state(old, new) == []


def test_top_level_tasks_without_phases() -> None:
    old: dict[str, Any] = {
        "workflow": {"status": "ACTIVE", "current_phase": 1},
        "tasks": [{"id": "T1", "state": "RUNNING", "scores": [0.8]}, {"id": "T2", "state": "DONE"}],
        "resumption": {"current_state": "T1 running", "next_step": "finish T1"},
    }
    new = copy.deepcopy(old)
    new["tasks"][0].update(state="DONE", scores=[0.8, 0.9])
    new["workflow"]["current_phase"] = 2
    assert described(moved_state(old, new)) == [
        "workflow current_phase: 1 -> 2",
        "task T1 state: RUNNING -> DONE",
        "task T1 scores: [0.8] -> [0.8, 0.9]",
    ]
    staleness = assess(old, new)
    assert staleness is not None and staleness.version == "1.0"


# --- a v2.0 section without updated_at --------------------------------------------------------------


def test_v2_without_updated_at_rewritten_with_the_state_is_not_stale() -> None:
    old, new, _path = pair(NO_UPDATED_AT, "02-state-and-section-rewritten.yaml")
    assert described(moved_state(old.data, new.data)) == [
        "phase phase_1 status: IN_PROGRESS -> COMPLETE",
        "agent researcher status: IN_PROGRESS -> COMPLETE",
        "gate qg-1 status: PENDING -> PASSED",
        "gate qg-1 iteration: 0 -> 1",
        "gate qg-1 score: (none) -> 0.93",
        "barrier barrier-1 status: PENDING -> OPEN",
    ]
    assert resumption_moved(old.data, new.data)
    assert assess(old.data, new.data) is None


def test_v2_without_updated_at_not_rewritten_is_stale() -> None:
    old, new, path = pair(NO_UPDATED_AT, "03-state-moved-section-untouched.yaml")
    moves = moved_state(old.data, new.data, locator(new))
    assert described(moves) == [
        "pipeline main current_phase: 1 -> 2",
        "phase phase_2 status: PENDING -> IN_PROGRESS",
        "group group-1 status: IN_PROGRESS -> COMPLETE",
        "group group-2 status: PENDING -> IN_PROGRESS",
    ]
    assert moves[0].line == line_of(path, "current_phase: 2")
    assert not resumption_moved(old.data, new.data)
    staleness = assess(old.data, new.data)
    assert staleness is not None
    assert staleness.stale == (
        "`resumption.recovery_state.updated_at` is missing and the section is unchanged: it still describes the "
        "state before this change"
    )


def test_v2_without_updated_at_prose_metrics_next_actions_are_silent() -> None:
    old, new, _path = pair(NO_UPDATED_AT, "04-prose-metrics-next-actions.yaml")
    assert moved_state(old.data, new.data) == []
    assert assess(old.data, new.data) is None


def test_v2_with_updated_at_still_needs_it_to_advance() -> None:
    old = parse(NO_UPDATED_AT / "02-state-and-section-rewritten.yaml").data
    old["resumption"]["recovery_state"]["updated_at"] = "2026-03-02T09:00:00Z"
    new = copy.deepcopy(old)
    new["pipelines"]["main"]["current_phase"] = 2
    new["resumption"]["recovery_state"]["current_phase"] = 2  # rewritten, but updated_at did not advance
    assert assess(old, new) is not None
    new["resumption"]["recovery_state"]["updated_at"] = "2026-03-02T09:30:00Z"
    assert assess(old, new) is None


# --- the same lineages as git histories ------------------------------------------------------------

EXPECTED_STALE = {
    "tasks-in-phases-list": ["02-task-accepted-section-untouched.yaml", "04-blocked-status-removed.yaml"],
    "v2-without-updated-at": ["03-state-moved-section-untouched.yaml"],
}


class Lineage:
    def __init__(self, repo: GitRepo) -> None:
        self.repo = repo
        self.version_of: dict[str, str] = {}  # short hash -> (layout, version file name)
        self.commit_of: dict[tuple[str, str], str] = {}

    def replay(self, folder: Path) -> str:
        rel = f"{folder.name}/ORCHESTRATION.yaml"
        for version in versions(folder):
            self.repo.write(rel, version.read_text("utf-8"))
            self.repo.git("add", rel)
            short = self.repo.commit(f"{folder.name}: {version.name}")
            self.version_of[short] = version.name
            self.commit_of[folder.name, version.name] = short
        return rel


@pytest.fixture(scope="module")
def lineage(tmp_path_factory: pytest.TempPathFactory) -> Lineage:
    replayed = Lineage(GitRepo(tmp_path_factory.mktemp("state-model") / "repo"))
    replayed.replay(TASKS)
    replayed.replay(NO_UPDATED_AT)
    return replayed


def section_rewritten(old: Path, new: Path) -> bool:
    return bool(parse(old).data.get("resumption") != parse(new).data.get("resumption"))


@pytest.mark.parametrize("layout", sorted(EXPECTED_STALE))
def test_audit_history_finds_every_stale_commit_and_no_rewritten_one(lineage: Lineage, layout: str) -> None:
    rel = f"{layout}/ORCHESTRATION.yaml"
    result = lineage.repo.run("audit-history", rel, "--output-format", "json")
    assert result.stderr == ""
    [entry] = json.loads(result.stdout)["files"]
    files = versions(LAYOUTS / layout)
    assert entry["commits_checked"] == len(files) - 1
    stale = [lineage.version_of[commit["commit"]] for commit in entry["stale_commits"]]
    assert stale == EXPECTED_STALE[layout]
    assert result.returncode == 1
    for old, new in itertools.pairwise(files):
        if section_rewritten(old, new):
            assert new.name not in stale
    for commit in entry["stale_commits"]:
        assert commit["moved"] and all(move["line"] >= 1 for move in commit["moved"])
        assert {"path", "unit", "kind", "field", "before", "after", "change", "line"} <= set(commit["moved"][0])


def test_audit_history_text_shows_the_line_of_each_move_in_the_new_version(lineage: Lineage) -> None:
    rel = "tasks-in-phases-list/ORCHESTRATION.yaml"
    result = lineage.repo.run("audit-history", rel)
    assert result.returncode == 1
    accepted = lineage.commit_of["tasks-in-phases-list", "02-task-accepted-section-untouched.yaml"]
    removed = lineage.commit_of["tasks-in-phases-list", "04-blocked-status-removed.yaml"]
    v2 = TASKS / "02-task-accepted-section-untouched.yaml"
    v4 = TASKS / "04-blocked-status-removed.yaml"
    lines = result.stdout.splitlines()
    assert lines[0] == f"{rel}: 2 of 5 changes would have been blocked by ctxres-stale"
    assert lines[2] == f"  4 state-bearing values moved ({accepted}^ -> {accepted}):"
    assert lines[3] == f"    {rel}:{line_of(v2, 'ACCEPTED')}: phase 1 task T1 status: IN_PROGRESS -> ACCEPTED"
    assert lines[6] == f"    {rel}:{line_of(v2, 'accepted: true')}: phase 1 task T1 accepted: false -> true"
    at = lines.index(f"  2 state-bearing values moved ({removed}^ -> {removed}):")
    assert lines[at + 1] == f"    {rel}:{line_of(v4, '- id: T2')}: phase 1 task T2 status: BLOCKED -> (removed)"


def test_stale_since_and_check_since_agree_with_audit_history(lineage: Lineage) -> None:
    first = lineage.repo.git("rev-list", "--max-parents=0", "HEAD").strip()
    result = lineage.repo.run("stale", "--since", first, "--output-format", "json")
    assert result.returncode == 1
    blocked = sorted(lineage.version_of[b["commit"]] for b in json.loads(result.stdout)["blocked"])
    assert blocked == sorted(name for names in EXPECTED_STALE.values() for name in names)
    checked = lineage.repo.run("check", "--since", first, "--select", "S013", "--output-format", "json", ".")
    messages = [f["message"] for f in json.loads(checked.stdout)["findings"] if f["code"] == "S013"]
    flagged = sorted(lineage.version_of[m.split()[1]] for m in messages)
    assert flagged == blocked


def test_statediff_imports_neither_dataclasses_nor_typing() -> None:
    import subprocess

    code = (
        "import sys; import ctxres.state.statediff; "
        "names = ('dataclasses', 'typing', 'pathlib', 'ctxres.formats.document'); "
        "print(' '.join(m for m in names if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-S", "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).parent.parent.parent,
    )
    assert out.stdout.strip() == ""
