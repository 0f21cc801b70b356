"""git's conflict markers in a file that does not parse: the one sentence every reader says, the line of the
first marker, and what can still be read of the file (each conflict's first side)."""

from __future__ import annotations

from ctxres.formats import conflicts

CONFLICTED = """workflow:
  id: FEAT-1
<<<<<<< HEAD
  status: ACTIVE
=======
  status: PAUSED
>>>>>>> feature
resumption: {}
"""
DIFF3 = CONFLICTED.replace("=======\n", "||||||| base\n  status: DRAFT\n=======\n")


def test_the_first_marker_is_found_and_a_lone_separator_is_text() -> None:
    assert conflicts.first_marker(CONFLICTED) == (3, "<<<<<<< HEAD")
    assert conflicts.first_marker("title: a\n=======\nbody: b\n") is None
    assert conflicts.first_marker("a: <<<<<<<x\n") is None


def test_every_reader_says_the_same_sentence_with_the_line() -> None:
    reason = conflicts.conflict_reason(CONFLICTED)
    assert reason is not None and reason.startswith("unresolved merge conflict at line 3")
    assert conflicts.is_conflict(reason)
    assert conflicts.conflict_line(CONFLICTED, line_offset=1) == 4  # front matter before the YAML
    assert conflicts.conflict_reason("a: 1\n") is None


def test_what_can_be_read_is_each_conflicts_first_side() -> None:
    kept = "workflow:\n  id: FEAT-1\n  status: ACTIVE\nresumption: {}\n"
    assert conflicts.ours(CONFLICTED) == kept
    assert conflicts.ours(DIFF3) == kept  # the base of a diff3-style conflict is left out too
    assert conflicts.ours("a: 1\n") == "a: 1\n"
    assert conflicts.ours(CONFLICTED.replace("\n", "\r\n")) == kept.replace("\n", "\r\n")
