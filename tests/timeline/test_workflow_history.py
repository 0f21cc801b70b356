"""The versions of a workflow file and what they imply on the timeline: section updates, phase changes and
stale stretches, from a real git history and from the edits of the recorded replay sessions."""

from __future__ import annotations

import datetime as dt
import os
import shutil
from pathlib import Path
from typing import Literal

import pytest
import yaml

from ctxres.linters.replay.player import apply_edits, load_fixture
from ctxres.linters.timeline.model import FileVersion, PhaseChanged, SectionUpdated, StaleStretch
from ctxres.linters.timeline.workflow_history import (
    git_versions,
    history_events,
    phase_label,
    same_phase,
    state_phase,
    told_phase,
)

from ..conftest import FIXTURES
from ..git_sandbox import GitRepo

WORKFLOW = "projects/PROJ-9/ORCHESTRATION.yaml"
DAY = "2026-02-17"


def at(clock: str) -> dt.datetime:
    """``09:40`` on the day of the tests, UTC."""
    return dt.datetime.fromisoformat(f"{DAY}T{clock}:00+00:00")


def turn_at(moment: dt.datetime | None) -> int:
    """A turn per minute since 09:00: the tests see which moment a turn was taken from."""
    return 0 if moment is None else int((moment - at("09:00")).total_seconds() // 60)


def workflow_text(
    *,
    phases: tuple[str, str, str],
    current: int,
    task: str = "PENDING",
    review: str = "PENDING",
    updated: str = "09:00",
    section_phase: int = 1,
    status: str = "ACTIVE",
    section_status: str = "ACTIVE",
) -> str:
    """A workflow file as real ones are laid out: a pipeline with numbered phases and tasks, and a v2.0
    resumption section that names its own phase (``section_phase``) and time (``updated``)."""
    names = {1: "Dependency Audit", 2: "Core License Changes", 3: "CI Validation"}
    return f"""\
workflow:
  id: "proj-9"
  status: "{status}"
pipelines:
  lic:
    current_phase: {current}
    phases:
      - id: 1
        name: "{names[1]}"
        status: "{phases[0]}"
      - id: 2
        name: "{names[2]}"
        status: "{phases[1]}"
        tasks:
          - id: T1
            status: "{task}"
          - id: T2
            status: "{review}"
      - id: 3
        name: "{names[3]}"
        status: "{phases[2]}"
resumption:
  recovery_state:
    current_phase: {section_phase}
    current_phase_name: "{names[section_phase]}"
    workflow_status: "{section_status}"
    current_activity: "working"
    next_step: "go on"
    updated_at: "{DAY}T{updated}:00Z"
"""


def commit(repo: GitRepo, text: str, clock: str) -> str:
    repo.stage(WORKFLOW, text)
    return repo.commit(f"workflow at {clock}", date=f"{DAY}T{clock}:00+00:00")


def history(repo: GitRepo) -> dict[str, str]:
    """Phase 1 done at 09:20 (section updated with it); at 09:40 and 09:52 phase 2's tasks move while the
    section stays at 09:20; at 10:10 the section catches up. Short ids by time."""
    running = ("COMPLETE", "IN_PROGRESS", "PENDING")
    return {
        "09:00": commit(repo, workflow_text(phases=("IN_PROGRESS", "PENDING", "PENDING"), current=1), "09:00"),
        "09:20": commit(repo, workflow_text(phases=running, current=2, updated="09:20", section_phase=2), "09:20"),
        "09:40": commit(
            repo, workflow_text(phases=running, current=2, task="COMPLETE", updated="09:20", section_phase=2), "09:40"
        ),
        "09:52": commit(
            repo,
            workflow_text(
                phases=running, current=2, task="COMPLETE", review="IN_PROGRESS", updated="09:20", section_phase=2
            ),
            "09:52",
        ),
        "10:10": commit(
            repo,
            workflow_text(
                phases=running, current=2, task="COMPLETE", review="IN_PROGRESS", updated="10:10", section_phase=2
            ),
            "10:10",
        ),
    }


def pin_mtime(path: Path, moment: dt.datetime) -> None:
    os.utime(path, (moment.timestamp(), moment.timestamp()))


def test_the_git_history_gives_each_commit_at_its_time_and_the_file_at_its_mtime(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "repo")
    ids = history(repo)
    path = repo.root / WORKFLOW
    pin_mtime(path, at("10:30"))

    versions = git_versions(path, since=None, until=None)

    assert [(v.source, v.revision, v.time) for v in versions] == [
        *(("commit", short, at(clock)) for clock, short in ids.items()),
        ("file", None, at("10:30")),
    ]
    assert versions[2].text == repo.git("show", f"{ids['09:40']}:{WORKFLOW}")
    assert all(v.path == str(path) and v.turn is None for v in versions)


def test_a_range_keeps_the_commit_it_starts_from_and_leaves_out_what_came_after(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "repo")
    ids = history(repo)
    path = repo.root / WORKFLOW
    pin_mtime(path, at("10:30"))

    versions = git_versions(path, since=at("09:30"), until=at("10:00"))

    # 09:20 is the state at 09:30; 10:10 and the file (written 10:30) are after the range.
    assert [v.revision for v in versions] == [ids["09:20"], ids["09:40"], ids["09:52"]]


def test_state_moves_without_the_section_make_one_stale_stretch_until_it_is_updated(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "repo")
    ids = history(repo)
    path = repo.root / WORKFLOW
    pin_mtime(path, at("10:30"))

    events, lookup = history_events(
        git_versions(path, since=None, until=None), workflow=WORKFLOW, turn_at=turn_at, end=at("11:00")
    )

    stale = [e for e in events if isinstance(e, StaleStretch)]
    assert len(stale) == 1
    assert (stale[0].time, stale[0].turn, stale[0].end_time, stale[0].end_turn) == (at("09:40"), 40, at("10:10"), 70)
    assert stale[0].minutes == 30.0
    assert stale[0].moves == (
        "phase 2 task T1 status: PENDING -> COMPLETE",
        "phase 2 task T2 status: PENDING -> IN_PROGRESS",
    )
    updates = [e for e in events if isinstance(e, SectionUpdated)]
    assert [(u.time, u.updated_at, u.phase, u.source, u.revision) for u in updates] == [
        (at("09:20"), at("09:20"), "Phase 2 (Core License Changes)", "commit", ids["09:20"]),
        (at("10:10"), at("10:10"), "Phase 2 (Core License Changes)", "commit", ids["10:10"]),
    ]
    changes = [e for e in events if isinstance(e, PhaseChanged)]
    assert [(c.time, c.before, c.after) for c in changes] == [
        (at("09:20"), "Phase 1 (Dependency Audit)", "Phase 2 (Core License Changes)")
    ]
    assert [e.time for e in events] == sorted(e.time for e in events if e.time is not None)
    assert lookup.phase_at(at("08:59")) is None
    assert lookup.phase_at(at("09:19")) == "Phase 1 (Dependency Audit)"
    assert lookup(at("09:20")) == "Phase 2 (Core License Changes)"
    assert lookup.skipped == []


def test_a_stretch_the_section_never_caught_up_with_is_open_to_the_end(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "repo")
    commit(repo, workflow_text(phases=("IN_PROGRESS", "PENDING", "PENDING"), current=1), "09:00")
    commit(repo, workflow_text(phases=("COMPLETE", "PENDING", "PENDING"), current=1), "09:05")
    path = repo.root / WORKFLOW
    pin_mtime(path, at("09:05"))

    events, _ = history_events(
        git_versions(path, since=None, until=None), workflow=WORKFLOW, turn_at=turn_at, end=at("09:17")
    )

    assert events == [
        StaleStretch(
            turn=5,
            time=at("09:05"),
            workflow=WORKFLOW,
            moves=('phase 1 "Dependency Audit" status: IN_PROGRESS -> COMPLETE',),
            end_turn=None,
            end_time=None,
            minutes=12.0,
        )
    ]


def test_a_finished_workflow_has_no_stale_stretch(tmp_path: Path) -> None:
    """The workflow completes with its section; afterwards the project archives it (statuses move, nobody
    updates the section of a workflow nobody will resume)."""
    repo = GitRepo(tmp_path / "repo")
    done = ("COMPLETE", "COMPLETE", "COMPLETE")
    commit(repo, workflow_text(phases=("COMPLETE", "COMPLETE", "IN_PROGRESS"), current=3, section_phase=3), "09:00")
    finished = workflow_text(
        phases=done, current=3, updated="09:30", section_phase=3, status="COMPLETE", section_status="COMPLETE"
    )
    commit(repo, finished, "09:30")
    archived = workflow_text(
        phases=("ARCHIVED", "ARCHIVED", "ARCHIVED"),
        current=3,
        task="ARCHIVED",
        updated="09:30",
        section_phase=3,
        status="ARCHIVED",
        section_status="COMPLETE",
    )
    commit(repo, archived, "10:00")
    path = repo.root / WORKFLOW

    events, _ = history_events(
        git_versions(path, since=None, until=None), workflow=WORKFLOW, turn_at=turn_at, end=at("12:00")
    )

    assert [type(e).__name__ for e in events] == ["SectionUpdated"]


def v1_text(phase1: str, current_state: str) -> str:
    return f"""\
workflow:
  status: ACTIVE
phases:
  - id: 1
    name: Audit
    status: {phase1}
  - id: 2
    name: Build
    status: PENDING
resumption:
  version: "1.0"
  current_state: "{current_state}"
  next_step: "go on"
"""


def version(
    text: str, clock: str, turn: int | None = None, source: Literal["edit", "read", "commit", "file"] = "edit"
) -> FileVersion:
    return FileVersion(f"/p/{WORKFLOW}", at(clock), turn, text, source)


def test_a_v1_section_rewritten_with_the_state_is_not_stale_and_one_left_behind_is() -> None:
    """A v1.0 section has no `updated_at`: it was updated when its content changed."""
    done = v1_text("COMPLETE", "audit done, phase 2 next")
    versions = [
        version(v1_text("IN_PROGRESS", "auditing"), "09:00", 1),
        version(done, "09:10", 4),
        version(done.replace("status: PENDING", "status: RUNNING"), "09:20", 9),  # the section left behind
    ]

    events, lookup = history_events(versions, workflow=WORKFLOW, turn_at=turn_at, end=at("09:30"))

    assert [(type(e).__name__, e.turn) for e in events] == [
        ("SectionUpdated", 4),
        ("PhaseChanged", 9),
        ("StaleStretch", 9),
    ]
    assert isinstance(events[0], SectionUpdated) and events[0].updated_at is None and events[0].source == "edit"
    assert isinstance(events[2], StaleStretch) and events[2].minutes == 10.0
    assert lookup.phase_at(at("09:05")) == "Phase 1 (Audit)"
    assert lookup.phase_at(at("09:25")) == "Phase 2 (Build)"


def test_unreadable_versions_are_skipped_with_why_and_the_rest_is_read() -> None:
    base = workflow_text(phases=("IN_PROGRESS", "PENDING", "PENDING"), current=1)
    moved = workflow_text(phases=("COMPLETE", "PENDING", "PENDING"), current=1)
    sides = '<<<<<<< HEAD\n  status: "ACTIVE"\n=======\n  status: "X"\n>>>>>>> b\n'
    conflict = base.replace('  status: "ACTIVE"\n', sides, 1)
    versions = [
        version(base, "09:00", 0),
        version("workflow: [unclosed\n", "09:02", 2),
        version(conflict, "09:03", 3, "commit"),
        version(moved, "09:06", 6),
    ]

    events, lookup = history_events(versions, workflow=WORKFLOW, turn_at=turn_at, end=at("09:10"))

    assert [(type(e).__name__, e.turn) for e in events] == [("StaleStretch", 6)]
    assert len(lookup.skipped) == 2
    assert all(s.count == 1 and WORKFLOW in s.source for s in lookup.skipped)
    assert "conflict" in lookup.skipped[1].reason
    assert "(line " in lookup.skipped[0].reason


def test_identical_texts_collapse_and_a_later_commit_of_a_text_already_seen_is_no_new_version() -> None:
    """The session edits A -> B -> C, then commits B (staged earlier): the history does not go back to B."""
    a = workflow_text(phases=("IN_PROGRESS", "PENDING", "PENDING"), current=1)
    b = workflow_text(phases=("COMPLETE", "IN_PROGRESS", "PENDING"), current=2, updated="09:05", section_phase=2)
    c = workflow_text(
        phases=("COMPLETE", "IN_PROGRESS", "PENDING"), current=2, task="COMPLETE", updated="09:08", section_phase=2
    )
    versions = [version(a, "09:00", 0), version(b, "09:05", 5), version(b, "09:06", 6, "read"), version(c, "09:08", 8)]
    versions.append(FileVersion(f"/p/{WORKFLOW}", at("09:30"), None, b, "commit", "abc1234"))

    events, lookup = history_events(versions, workflow=WORKFLOW, turn_at=turn_at, end=at("10:00"))

    assert [(type(e).__name__, e.turn) for e in events] == [
        ("SectionUpdated", 5),
        ("PhaseChanged", 5),
        ("SectionUpdated", 8),
    ]
    assert lookup.phase_at(at("09:45")) == "Phase 2 (Core License Changes)"


# ----------------------------------------------------------------------------- the replay sessions


def replayed_versions(name: str, tmp_path: Path, last_step: str | None = None) -> tuple[list[FileVersion], str]:
    """The workflow file after each step of a replay fixture that edits it (at the step's clock, the step's
    index as its turn), applying the steps' edits as the replay does; up to ``last_step``."""
    fixture = load_fixture(FIXTURES / "replay" / name)
    project = tmp_path / "project"
    shutil.copytree(fixture.root / "workspace", project)
    rel = "projects/PROJ-001-oss-release/ORCHESTRATION.yaml"
    target = project / rel
    start = dt.datetime.fromisoformat(fixture.steps[0].now.replace("Z", "+00:00"))  # Python 3.10 reads no Z
    versions = [FileVersion(str(target), start, 0, target.read_text("utf-8"), "read")]
    for index, step in enumerate(fixture.steps, start=1):
        edits = [edit for edit in step.edits if edit.path == rel]  # others touch files the hooks wrote
        if edits:
            apply_edits(project, edits, step.name)
            when = dt.datetime.fromisoformat(step.now.replace("Z", "+00:00"))
            versions.append(FileVersion(str(target), when, index, target.read_text("utf-8"), "edit"))
        if f"{index:02d}-{step.name}" == last_step:
            break
    return versions, rel


def test_the_posttooluse_session_has_one_stale_stretch_of_five_minutes(tmp_path: Path) -> None:
    """Replay f: qg-1 completes at 09:30 without the section, a prose edit at 09:32, the section catches up
    at 09:35; at 09:50 qg-2 starts in the same edit as a section update (no stretch)."""
    versions, rel = replayed_versions("f-posttooluse-state-move", tmp_path)

    events, _ = history_events(versions, workflow=rel, turn_at=turn_at, end=at("10:00"))

    stale = [e for e in events if isinstance(e, StaleStretch)]
    assert [(s.time, s.end_time, s.minutes, s.turn, s.end_turn) for s in stale] == [
        (at("09:30"), at("09:35"), 5.0, 2, 4)
    ]
    assert stale[0].moves == ("gate qg-1 status: PENDING -> COMPLETE", "gate qg-1 score: (none) -> 0.941")
    updates = [(e.time, e.updated_at) for e in events if isinstance(e, SectionUpdated)]
    assert updates == [(at("09:35"), at("09:35")), (at("09:50"), at("09:50"))]


def test_the_phase_the_file_said_is_named_as_sessionstart_named_it(tmp_path: Path) -> None:
    """Replay a: after the manual compaction SessionStart said ``YOU WERE DOING: Phase 4 (CI Validation), ...``;
    the file said the same phase then, in the same words."""
    versions, rel = replayed_versions("a-feat015-single-session", tmp_path, last_step="34-sessionstart-compact")
    prompt = (
        FIXTURES / "replay/a-feat015-single-session/expected/34-sessionstart-compact/additional-context.txt"
    ).read_text("utf-8")
    told = told_phase(prompt)

    events, lookup = history_events(versions, workflow=rel, turn_at=turn_at, end=None)

    said = lookup.phase_at(versions[-1].time)
    assert told == said == "Phase 4 (CI Validation)"
    assert same_phase(told, said)
    assert [e.after for e in events if isinstance(e, PhaseChanged)] == [
        "Phase 2 (Core License Changes)",
        "Phase 3 (Source Headers)",
        "Phase 4 (CI Validation)",
    ]


# ------------------------------------------------------------------------------------------ phases


@pytest.mark.parametrize(
    ("told", "said", "same"),
    [
        ("Phase 2 (Core License Changes)", "Phase 2 (Core License Changes)", True),
        ("Phase 2 (Core License Changes)", "phase-2", True),
        ("Phase 2  (Core  License Changes)", "Phase 2 (core license changes)", True),
        ("Phase 1 (Dependency Audit)", "Phase 2 (Dependency Audit)", False),
        ("Validation", "Phase 3 (validation)", True),
        ("Validation", "Build", False),
        ("phase not recorded", "phase not recorded", False),
        (None, "Phase 1", False),
    ],
)
def test_same_phase_compares_by_number_then_by_name(told: str | None, said: str | None, same: bool) -> None:
    assert same_phase(told, said) is same


def test_phase_label_is_the_prompts_wording_and_none_when_nothing_is_known() -> None:
    assert phase_label(2, "Core License Changes") == "Phase 2 (Core License Changes)"
    assert phase_label("2", None) == "Phase 2"
    assert phase_label(None, "Validation") == "Validation"
    assert phase_label(None, "") is None


def test_the_state_names_the_phase_before_the_section_does() -> None:
    """The state says phase 2 while the section still says phase 1: the state's phase is the file's."""
    stale_section = workflow_text(phases=("COMPLETE", "IN_PROGRESS", "PENDING"), current=2, section_phase=1)
    assert state_phase(yaml.safe_load(stale_section)) == "Phase 2 (Core License Changes)"
    running = yaml.safe_load(stale_section.replace("    current_phase: 2\n", "", 1))
    assert state_phase(running) == "Phase 2 (Core License Changes)"
    nothing = yaml.safe_load(stale_section.replace("IN_PROGRESS", "PENDING").replace("    current_phase: 2\n", "", 1))
    assert state_phase(nothing) == "Phase 1 (Dependency Audit)"  # the section's, when the state says nothing


@pytest.mark.processes
def test_without_a_repository_only_the_file_is_a_version(tmp_path: Path) -> None:
    path = tmp_path / "ORCHESTRATION.yaml"
    path.write_text("workflow: {status: ACTIVE}\n", "utf-8")
    pin_mtime(path, at("09:00"))

    assert [(v.source, v.time) for v in git_versions(path, since=None, until=None)] == [("file", at("09:00"))]
    assert git_versions(tmp_path / "missing.yaml", since=None, until=None) == []


def test_without_git_a_tracked_file_is_only_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = GitRepo(tmp_path / "repo")
    history(repo)
    monkeypatch.setenv("PATH", str(tmp_path / "no-programs"))

    assert [v.source for v in git_versions(repo.root / WORKFLOW, since=None, until=None)] == ["file"]


def test_an_untracked_file_has_no_history(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "repo")
    repo.stage("README.md", "x\n")
    repo.commit("first", date=f"{DAY}T08:00:00+00:00")
    repo.write(WORKFLOW, "workflow: {status: ACTIVE}\n")

    assert [v.source for v in git_versions(repo.root / WORKFLOW, since=None, until=None)] == ["file"]


@pytest.mark.parametrize(
    ("prompt", "told"),
    [
        (
            "RECOVERY STATE:\n- Current phase: Phase 1 (Dependency Audit)\n- Workflow status: ACTIVE\n",
            "Phase 1 (Dependency Audit)",
        ),
        ("\nYOU WERE DOING: Phase 2 (Build, Test), qg-2-iteration-2\nLAST SCORE: none\n", "Phase 2 (Build, Test)"),
        ("THAT SESSION WAS DOING: Validation, review, round 2\n", "Validation, review"),
        ("THAT SESSION WAS DOING: Phase 3, unknown\n", "Phase 3"),
        ("- Current phase: phase not recorded\n", None),
        ("<compaction-alert>no position</compaction-alert>", None),
    ],
)
def test_told_phase_reads_both_prompts_position_lines(prompt: str, told: str | None) -> None:
    assert told_phase(prompt) == told


def test_every_phase_the_recorded_prompts_told_is_read_in_the_labels_words() -> None:
    told = {
        told_phase(path.read_text("utf-8"))
        for path in (FIXTURES / "replay").glob("*/expected/*/additional-context.txt")
    }
    assert {
        "Phase 1 (Dependency Audit)",
        "Phase 2 (Core License Changes)",
        "Phase 3 (Source Headers)",
        "Phase 4 (CI Validation)",
    } <= told
    assert phase_label(2, "Core License Changes") in told
