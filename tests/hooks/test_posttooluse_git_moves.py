"""PostToolUse never blames the model for a state git moved: after `git checkout` or `git stash` puts the
workflow file in another state (a phase or gate moved, the resumption section not updated, as a branch can
hold), the model's next write is judged by what it changed itself. The real `ctxres-hook PostToolUse`
process, real git, and the payloads the client sends (an Edit's answer carries the file before it ran)."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ..git_sandbox import executable, git
from .claude_session import NOW, SESSION, WORKFLOW, validate, workspace

GATES = '\nquality_gates:\n  qg-2:\n    status: "PENDING"  # the gate the section is on\n    threshold: 0.92\n'
TEN_MINUTES_AGO = "2026-02-17T11:50:00Z"  # NOW is 12:00: FRESH by its age
FIVE_MINUTES_AGO = "2026-02-17T11:55:00Z"
GATE_DONE = ('status: "PENDING"  # the gate', 'status: "COMPLETE"  # the gate')
PROSE = ("Strategic context.", "Strategic context, reworded.")
SECTION_UPDATED = (f'updated_at: "{TEN_MINUTES_AGO}"', f'updated_at: "{NOW}"')
WORKFLOW_PAUSED = ('  status: "ACTIVE"', '  status: "PAUSED"')


def post_tool_use(project: Path, payload: dict[str, Any]) -> dict[str, Any]:
    """The answer of the installed `ctxres-hook PostToolUse`, run as the client runs it."""
    env = {k: v for k, v in os.environ.items() if k not in ("CTXRES_ORCHESTRATION", "CTXRES_NOW")}
    env.update(CLAUDE_PROJECT_DIR=str(project), CTXRES_NOW=NOW)
    done = subprocess.run(
        [executable("ctxres-hook"), "PostToolUse"],
        input=json.dumps(payload).encode(),
        env=env,
        cwd=project,
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == 0 and b"Traceback" not in done.stderr, done.stderr
    answer: dict[str, Any] = json.loads(done.stdout or b"{}")
    validate(answer, "hook-posttooluse-output")
    return answer


def _common(project: Path, tool: str) -> dict[str, Any]:
    return {
        "session_id": SESSION,
        "transcript_path": str(project.parent / "transcript.jsonl"),
        "cwd": str(project),
        "permission_mode": "default",
        "hook_event_name": "PostToolUse",
        "tool_name": tool,
        "tool_use_id": "toolu_01ABC123",
    }


def edit(project: Path, old: str, new: str, *, with_original: bool = True) -> dict[str, Any]:
    """The model's Edit of the workflow file (made here), and the payload the client sends after it: its
    answer carries the file before (``originalFile``), or, as the documentation's example, only the path."""
    target = project / WORKFLOW
    before = target.read_text()
    assert before.count(old) == 1, old
    target.write_text(before.replace(old, new))
    path = str(target)
    response: dict[str, Any] = {"filePath": path, "success": True}
    if with_original:
        response = {
            "filePath": path,
            "oldString": old,
            "newString": new,
            "originalFile": before,
            "structuredPatch": [],
            "userModified": False,
            "replaceAll": False,
        }
    tool_input = {"file_path": path, "old_string": old, "new_string": new, "replace_all": False}
    return {**_common(project, "Edit"), "tool_input": tool_input, "tool_response": response}


def edit_undone_from_its_input(project: Path, old: str, new: str) -> dict[str, Any]:
    return edit(project, old, new, with_original=False)


def write(project: Path, old: str, new: str, *, with_original: bool = True) -> dict[str, Any]:
    """The model's Write of the whole file (with one change), and the client's payload."""
    before = _text(project)
    return write_text(project, _replace(before, old, new), with_original=with_original)


def write_text(project: Path, after: str, *, with_original: bool = True) -> dict[str, Any]:
    """The model's Write of ``after`` over the workflow file, and the client's payload."""
    target = project / WORKFLOW
    before = target.read_text()
    target.write_text(after)
    path = str(target)
    response: dict[str, Any] = {"filePath": path, "success": True}
    if with_original:
        response = {"type": "update", "filePath": path, "content": after, "structuredPatch": [], "originalFile": before}
    return {**_common(project, "Write"), "tool_input": {"file_path": path, "content": after}, "tool_response": response}


def write_without_its_file_before(project: Path, old: str, new: str) -> dict[str, Any]:
    return write(project, old, new, with_original=False)


Write = Callable[[Path, str, str], dict[str, Any]]
WRITES = [
    pytest.param(edit, id="edit"),
    pytest.param(edit_undone_from_its_input, id="edit-without-originalFile"),
    pytest.param(write, id="write"),
    pytest.param(write_without_its_file_before, id="write-without-originalFile"),
]


def _text(project: Path) -> str:
    return (project / WORKFLOW).read_text()


def _replace(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, old
    return text.replace(old, new)


def _repository(tmp_path: Path) -> Path:
    project = workspace(tmp_path, updated_at=TEN_MINUTES_AGO)
    (project / WORKFLOW).write_text(_text(project) + GATES)
    git(project, "init", "-q", "-b", "main")
    git(project, "config", "user.email", "dev@example.com")
    git(project, "config", "user.name", "dev")
    git(project, "add", WORKFLOW)
    git(project, "commit", "-q", "-m", "qg-2 pending")
    return project


def after_a_checkout(tmp_path: Path) -> Path:
    """The hooks saw the workflow on `main` (qg-2 PENDING); `git checkout other` puts it where the other
    branch has it: qg-2 COMPLETE, the section as it was."""
    project = _repository(tmp_path)
    git(project, "checkout", "-q", "-b", "other")
    (project / WORKFLOW).write_text(_replace(_text(project), *GATE_DONE))
    git(project, "commit", "-q", "-am", "qg-2 complete, section not updated")
    git(project, "checkout", "-q", "main")
    assert post_tool_use(project, edit(project, "qg-2:\n", "qg-2:  # the next gate\n")) == {}  # seen on main
    git(project, "commit", "-q", "-am", "a comment")
    git(project, "checkout", "-q", "other")
    return project


def after_a_stash(tmp_path: Path) -> Path:
    """The commit has qg-2 COMPLETE; the model reopened it and updated the section (the hooks saw that);
    `git stash` puts the committed state back, section older than the one the hooks saw."""
    project = _repository(tmp_path)
    (project / WORKFLOW).write_text(_replace(_text(project), *GATE_DONE))
    git(project, "commit", "-q", "-am", "qg-2 complete")
    reopened = _replace(_text(project), 'status: "COMPLETE"  # the gate', 'status: "PENDING"  # the gate')
    reopened = _replace(reopened, f'updated_at: "{TEN_MINUTES_AGO}"', f'updated_at: "{FIVE_MINUTES_AGO}"')
    assert post_tool_use(project, write_text(project, reopened)) == {}  # the gate and the section: seen
    git(project, "stash", "-q")
    return project


GIT_MOVES = [pytest.param(after_a_checkout, id="checkout"), pytest.param(after_a_stash, id="stash")]


@pytest.mark.parametrize("moved_by_git", GIT_MOVES)
@pytest.mark.parametrize("model_writes", WRITES)
@pytest.mark.parametrize("change", [PROSE, SECTION_UPDATED], ids=["unrelated-line", "section-updated"])
def test_a_state_git_moved_is_not_blamed_on_the_next_write(
    tmp_path: Path, moved_by_git: Callable[[Path], Path], model_writes: Write, change: tuple[str, str]
) -> None:
    project = moved_by_git(tmp_path)
    answer = post_tool_use(project, model_writes(project, *change))
    assert answer == {}, answer


@pytest.mark.parametrize("moved_by_git", GIT_MOVES)
@pytest.mark.parametrize("model_writes", [WRITES[0], WRITES[1], WRITES[2]])
def test_a_write_that_moves_the_state_after_git_moved_it_is_still_stale(
    tmp_path: Path, moved_by_git: Callable[[Path], Path], model_writes: Write
) -> None:
    """The near miss: the model's own write pauses the workflow and leaves recovery_state.updated_at."""
    project = moved_by_git(tmp_path)
    answer = post_tool_use(project, model_writes(project, *WORKFLOW_PAUSED))
    context = answer["hookSpecificOutput"]["additionalContext"]
    first, *moves = context.splitlines()
    assert first.startswith(f"Resumption staleness after this write to {WORKFLOW}: STALE."), context
    assert "compared with the file just before this write" in first, first
    assert any("ACTIVE -> PAUSED" in line for line in moves), context
    assert not any("qg-2" in line for line in moves), context  # git's move is not named


def test_a_section_left_behind_keeps_warning_while_the_file_is_as_the_hooks_saw_it(tmp_path: Path) -> None:
    project = _repository(tmp_path)
    moved = post_tool_use(project, edit(project, *GATE_DONE))
    assert "- gate qg-2 status: PENDING -> COMPLETE" in moved["hookSpecificOutput"]["additionalContext"]
    again = post_tool_use(project, edit(project, *PROSE))  # a later prose edit: the section is still behind
    assert "- gate qg-2 status: PENDING -> COMPLETE" in again["hookSpecificOutput"]["additionalContext"]
    assert post_tool_use(project, edit(project, *SECTION_UPDATED)) == {}  # caught up
