"""A013 (compaction-dropped-by-merge) and ``ctxres renumber``, with real git: two clones of one origin each
compact (the real ``ctxres-hook PreCompact`` process) and ``ctxres ack`` on a branch; the merge is an
add/add conflict on the checkpoint name; ``--ours`` drops one compaction, which the check reports with the
command that keeps both; that command restores it under the next number."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from ctxres.linters.checking.merged_checkpoints import has_conflict_markers
from ctxres.linters.checking.registry import RULES
from ctxres.linters.rules import merged_compactions

from ..git_sandbox import Clone, GitRepo, executable
from ..team_repository import new_workflow

WORKFLOW = "projects/FEAT-900/ORCHESTRATION.yaml"
FOLDER = ".jerry/checkpoints"


def test_the_rule_is_registered_with_its_check() -> None:
    assert RULES["A013"] is merged_compactions.COMPACTION_DROPPED_BY_MERGE


def test_conflict_markers_are_told() -> None:
    assert has_conflict_markers('{\n<<<<<<< HEAD\n  "a": 1\n=======\n  "a": 2\n>>>>>>> other\n}\n')
    assert not has_conflict_markers('{"text": "a line with ======= inside"}\n')


def compact_and_ack(clone: Clone, branch: str, now: str) -> None:
    """On a new branch: the real PreCompact hook writes a checkpoint, `ctxres ack` merges it, commit."""
    clone.git("checkout", "-q", "-b", branch)
    hook = subprocess.run(
        [executable("ctxres-hook"), "PreCompact"],
        input=json.dumps({"hook_event_name": "PreCompact", "trigger": "manual", "session_id": branch, "cwd": "."}),
        cwd=clone.root,
        env={**clone.env, "CLAUDE_PROJECT_DIR": str(clone.root), "CTXRES_NOW": now},
        capture_output=True,
        text=True,
    )
    assert hook.returncode == 0 and hook.stderr == "", hook.stderr
    acked = clone.run("ack", "--all", "--now", now)
    assert acked.returncode == 0, acked.stderr
    clone.git("add", "-A")
    clone.commit(f"compaction on {branch}")


@pytest.fixture
def merged(tmp_path: Path) -> Clone:
    """Alice's clone in the middle of merging Bob's branch, both conflicts resolved with --ours."""
    work = GitRepo(tmp_path / "work")
    work.write(WORKFLOW, new_workflow("2026-11-26T10:00:00Z"))
    work.git("add", "-A")
    work.commit("a workflow")
    origin = tmp_path / "origin.git"
    work.git("clone", "-q", "--bare", str(work.root), str(origin))
    bare = GitRepo.__new__(GitRepo)
    bare.root, bare.env = origin, work.env
    alice, bob = Clone(bare, tmp_path / "alice"), Clone(bare, tmp_path / "bob")
    compact_and_ack(alice, "alice", "2026-11-26T11:00:00Z")
    compact_and_ack(bob, "bob", "2026-11-26T11:30:00Z")
    bob.git("push", "-q", "origin", "bob")
    alice.git("fetch", "-q", "origin")
    conflicted = subprocess.run(
        ["git", "merge", "origin/bob"], cwd=alice.root, env=alice.env, capture_output=True, text=True
    )
    assert conflicted.returncode != 0 and "CONFLICT (add/add)" in conflicted.stdout, conflicted.stdout
    assert has_conflict_markers((alice.root / FOLDER / "cx-001.json").read_text())
    return alice


def test_a_merge_that_kept_one_of_two_compactions_is_reported_and_renumber_keeps_both(merged: Clone) -> None:
    alice = merged
    unresolved = alice.run("check", ".")
    assert unresolved.returncode == 1
    assert "unresolved merge conflict" in unresolved.stdout, unresolved.stdout
    refused = alice.run("renumber", "--file", WORKFLOW)
    assert refused.returncode == 1 and "conflict markers" in refused.stderr, refused.stderr
    found = alice.run("renumber")  # the live workflow is the conflicted file
    assert found.returncode == 1 and "unresolved merge conflict" in found.stderr, found.stderr
    assert "ctxres renumber` again" in found.stderr, found.stderr
    alice.git("checkout", "--ours", "--", f"{FOLDER}/cx-001.json", WORKFLOW)
    alice.git("add", "-A")
    for state in ("merging", "merged"):  # MERGE_HEAD, then the merge commit HEAD
        checked = alice.run("check", ".")
        assert checked.returncode == 1, checked.stdout
        [line] = [line for line in checked.stdout.splitlines() if " A013 " in line]
        assert line.startswith(f"{WORKFLOW}:"), line
        assert "2026-11-26T11:00:00Z" in line and "2026-11-26T11:30:00Z" in line, line
        assert "ctxres renumber" in checked.stdout, checked.stdout
        if state == "merging":
            alice.git("commit", "-q", "--no-edit")
    dry = alice.run("renumber", "--dry-run", "--now", "2026-11-26T12:00:00Z")
    assert dry.returncode == 0 and "would restore cx-001.json" in dry.stdout, dry.stdout + dry.stderr
    assert not (alice.root / FOLDER / "cx-002.json").exists()
    done = alice.run("renumber", "--now", "2026-11-26T12:00:00Z")
    assert done.returncode == 0, done.stderr
    assert f"restore cx-001.json of the other side as {FOLDER}/cx-002.json (CX-002" in done.stdout, done.stdout
    restored = json.loads((alice.root / FOLDER / "cx-002.json").read_text())
    assert restored["event_id"] == "cx-002" and restored["timestamp"] == "2026-11-26T11:30:00Z"
    text = alice.read(WORKFLOW)
    assert re.search(r'id: "?CX-002"?', text) and f"{FOLDER}/cx-002.json" in text, text
    assert re.search(r"count: 2\b", text), text
    checked = alice.run("check", ".")
    assert checked.returncode == 0, checked.stdout
    alice.git("add", "-A")
    alice.commit("keep both compactions")
    assert alice.run("check", ".").returncode == 0
    assert "nothing to renumber" in alice.run("renumber").stdout
