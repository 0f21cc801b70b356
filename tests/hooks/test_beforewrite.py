"""The file as it was just before a write (PostToolUse judges only what the write changed), and the stamp
that tells when git moved the work tree since: in-process, on payloads as the client sends them and on
git folders written by hand (no git process)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ctxres.hooks import beforewrite
from ctxres.hooks.beforewrite import NEW_FILE, git_stamp, text_before

AFTER = "workflow:\n  status: ACTIVE\nresumption:\n  phase: 2\n"


def payload(tool: str, tool_input: dict[str, Any], response: object = None) -> dict[str, Any]:
    return {"tool_name": tool, "tool_input": tool_input, "tool_response": response}


def test_the_clients_original_file_is_the_text_before() -> None:
    before = "workflow:\n  status: PAUSED\n"
    assert text_before(payload("Write", {"content": AFTER}, {"originalFile": before}), AFTER) == before


def test_a_write_that_created_the_file_had_nothing_before() -> None:
    assert text_before(payload("Write", {"content": AFTER}, {"type": "create"}), AFTER) == NEW_FILE


def test_a_write_without_the_original_leaves_the_text_before_unknown() -> None:
    assert text_before(payload("Write", {"content": AFTER}, {"type": "update"}), AFTER) is None
    assert text_before(payload("Write", {"content": AFTER}, "not an object"), AFTER) is None


def test_an_edit_is_undone_from_its_input_when_it_can_be_located() -> None:
    edit = {"old_string": "phase: 1", "new_string": "phase: 2"}
    assert text_before(payload("Edit", edit), AFTER) == AFTER.replace("phase: 2", "phase: 1")


@pytest.mark.parametrize(
    "edit",
    [
        {"old_string": "phase: 1", "new_string": "status"},  # "status" is twice in the file
        {"old_string": "", "new_string": "phase: 2"},  # nothing to put back
        {"old_string": "phase: 2", "new_string": "phase: 2"},  # no change
        {"old_string": "phase: 1", "new_string": "absent"},  # not in the file
        {"old_string": 1, "new_string": "phase: 2"},  # not text
    ],
)
def test_an_edit_that_cannot_be_located_without_doubt_leaves_it_unknown(edit: dict[str, Any]) -> None:
    after = AFTER + "  status_note: status\n"  # "status" now appears twice
    assert text_before(payload("Edit", edit), after) is None


def test_an_edit_whose_undo_would_be_ambiguous_leaves_it_unknown() -> None:
    """``old_string`` already elsewhere in the file: the tool would have refused it; the input is not this write."""
    after = "a: x\nb: y\n"
    assert text_before(payload("Edit", {"old_string": "x", "new_string": "y"}), after) is None


def test_a_multiedit_is_undone_from_its_last_edit() -> None:
    edits = [
        {"old_string": "status: PAUSED", "new_string": "status: ACTIVE"},
        {"old_string": "phase: 1", "new_string": "phase: 2"},
    ]
    before = "workflow:\n  status: PAUSED\nresumption:\n  phase: 1\n"
    assert text_before(payload("MultiEdit", {"edits": edits}), AFTER) == before


@pytest.mark.parametrize("edits", [[], None, ["not an edit"], [{"old_string": "x", "new_string": "absent"}]])
def test_a_multiedit_that_cannot_be_undone_leaves_it_unknown(edits: object) -> None:
    assert text_before(payload("MultiEdit", {"edits": edits}), AFTER) is None


def test_another_tool_or_no_input_leaves_it_unknown() -> None:
    assert text_before(payload("Bash", {"command": "true"}), AFTER) is None
    assert text_before({"tool_name": "Edit", "tool_input": "garbage"}, AFTER) is None


def test_the_git_stamp_moves_with_a_checkout_a_commit_and_a_stash(tmp_path: Path) -> None:
    git_dir = tmp_path / ".git"
    (git_dir / "logs" / "refs").mkdir(parents=True)
    (git_dir / "HEAD").write_text("ref: refs/heads/main\n")
    (git_dir / "logs" / "HEAD").write_text("one\n")
    inside = tmp_path / "projects" / "P"
    inside.mkdir(parents=True)
    first = git_stamp(str(inside))
    assert first == "refs/heads/main 4 -1"
    (git_dir / "HEAD").write_text("ref: refs/heads/feature\n")  # a checkout
    assert git_stamp(str(inside)) != first
    (git_dir / "logs" / "refs" / "stash").write_text("a stash\n")  # git stash
    assert git_stamp(str(inside)).endswith(" 8")
    (git_dir / "HEAD").write_text("0123abcd\n")
    assert git_stamp(str(inside)).startswith("(detached) ")


def test_a_worktrees_stamp_reads_its_own_git_folder_and_the_shared_stashes(tmp_path: Path) -> None:
    common = tmp_path / "main" / ".git"
    own = common / "worktrees" / "wt2"
    (own / "logs").mkdir(parents=True)
    (common / "logs" / "refs").mkdir(parents=True)
    (own / "HEAD").write_text("ref: refs/heads/wt2\n")
    (own / "logs" / "HEAD").write_text("x\n")
    (own / "commondir").write_text("../..\n")
    (common / "logs" / "refs" / "stash").write_text("s\n")
    tree = tmp_path / "main" / ".claude" / "worktrees" / "wt2"
    tree.mkdir(parents=True)
    (tree / ".git").write_text(f"gitdir: {own}\n")
    assert git_stamp(str(tree)) == "refs/heads/wt2 2 2"


def test_no_stamp_outside_a_repository_or_for_a_broken_git_file(tmp_path: Path) -> None:
    assert beforewrite._git_dir("/") is None
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / ".git").write_text("not a gitdir line\n")
    assert git_stamp(str(broken)) is None
    assert beforewrite._size(str(broken / "absent")) == -1
