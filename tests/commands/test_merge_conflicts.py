"""A merge conflict left in a state file is said as one by every reader: ``ctxres check``, the hooks, ``ack``,
``prompt``, the statusline and the baseline reader name the marker's line and say how to resolve it, never
"could not find expected ':'" nor "check the indentation". And while the live workflow holds a conflict, a
compaction still gets its checkpoint (PreCompact), and the alert after it says why the workflow was not read.
Real git merges, real processes.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

from ctxres.defaults import WORKFLOW_ENV
from ctxres.formats.conflicts import conflict_reason
from tests.cli_process import ctxres
from tests.conftest import FIXTURES
from tests.git_sandbox import git
from tests.hooks.hook_project import answer, payload, transcript, validate

WORKSPACE = FIXTURES / "ack" / "two-unacknowledged"  # PROJ-002, ACTIVE, v2.0, two checkpoints waiting
REAL = "projects/PROJ-002/ORCHESTRATION.yaml"
NOW = "2026-03-02T12:00:00Z"
YAML_WORDS = ("could not find expected", "indentation", "invalid YAML", "mapping values", "Expecting")


def env(**extra: str) -> dict[str, str]:
    result = {k: v for k, v in os.environ.items() if k != WORKFLOW_ENV}
    return {**result, "CTXRES_NOW": NOW, **extra}


def hook(
    event: str, root: Path, stdin: dict[str, Any] | None = None, **fields: Any
) -> subprocess.CompletedProcess[str]:
    """The real ``ctxres-hook EVENT`` process in the project ``root``."""
    given = stdin if stdin is not None else payload(root, event, **{"session_id": uuid.uuid4().hex, **fields})
    return subprocess.run(
        [sys.executable, "-m", "ctxres.hooks.main", event],
        input=json.dumps(given),
        capture_output=True,
        text=True,
        cwd=root,
        env=env(CLAUDE_PROJECT_DIR=str(root), COLUMNS="200"),
        timeout=120,
    )


def context_of(result: subprocess.CompletedProcess[str], event: str) -> str:
    output = answer(result, event)
    text: str = output["hookSpecificOutput"]["additionalContext"] if output else ""
    return text


def no_yaml_words(text: str) -> None:
    for words in YAML_WORDS:
        assert words not in text, text


@pytest.fixture
def conflicted(tmp_path: Path) -> Path:
    """The PROJ-002 workflow merged from two branches that each moved its position: git leaves the markers
    in `recovery_state` (the HEAD side: phase 2, the feature side: phase 3)."""
    root = tmp_path / "project"
    shutil.copytree(WORKSPACE, root)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "PROJ-002")
    git(root, "checkout", "-qb", "feature")
    path = root / REAL
    text = path.read_text()
    path.write_text(text.replace('next_step: "Re-score', 'next_step: "Feature side: re-score'))
    git(root, "commit", "-qam", "feature side")
    git(root, "checkout", "-q", "main")
    path.write_text(text.replace('next_step: "Re-score', 'next_step: "Main side: re-score'))
    git(root, "commit", "-qam", "main side")
    merged = subprocess.run(["git", "merge", "-q", "feature"], cwd=root, capture_output=True, text=True, check=False)
    assert merged.returncode != 0 and "<<<<<<< HEAD" in path.read_text()
    return root


def marker_line(path: Path) -> int:
    return next(n for n, line in enumerate(path.read_text().splitlines(), start=1) if line.startswith("<<<<<<<"))


def test_the_core_finds_the_first_marker_and_not_a_lone_separator() -> None:
    assert conflict_reason("a: 1\n<<<<<<< HEAD\nb: 2\n=======\nb: 3\n>>>>>>> other\n") == (
        "unresolved merge conflict at line 2 (<<<<<<< HEAD)"
    )
    assert conflict_reason("a: 1\n=======\nb: [\n") is None  # text, not a conflict
    assert conflict_reason("x: |\n  <<<<<<< quoted in a block\n") is None  # indented: not git's marker


def test_check_names_the_conflict_at_its_line(conflicted: Path) -> None:
    line = marker_line(conflicted / REAL)
    result = ctxres("check", REAL, cwd=conflicted, env=env())
    assert result.returncode == 1
    assert f"{REAL}:{line}:1: P001 unresolved merge conflict at line {line} (<<<<<<< HEAD)" in result.stdout
    assert "resolve it (keep one side, remove the markers) and run again" in result.stdout
    no_yaml_words(result.stdout)


def test_ack_prompt_the_hooks_and_the_statusline_name_the_conflict(conflicted: Path) -> None:
    line = marker_line(conflicted / REAL)
    said = (
        f"the live workflow {REAL} cannot be read: unresolved merge conflict at line {line} (<<<<<<< HEAD): "
        "resolve it (keep one side, remove the markers)"
    )
    acked = ctxres("ack", cwd=conflicted, env=env())
    assert acked.returncode != 0 and said in acked.stderr
    no_yaml_words(acked.stderr)
    prompt = ctxres("prompt", cwd=conflicted, env=env())
    assert prompt.returncode != 0 and said in prompt.stderr
    no_yaml_words(prompt.stderr)
    opening = context_of(hook("SessionStart", conflicted, source="startup"), "SessionStart")
    assert said in opening
    no_yaml_words(opening)
    status = hook("statusline", conflicted, {"session_id": "s", "cwd": str(conflicted)})
    assert f"{REAL}: merge conflict at line {line}: resolve it" in status.stdout
    no_yaml_words(status.stdout)


def test_a_checkpoint_and_a_baseline_with_conflict_markers_are_said_as_such(conflicted: Path) -> None:
    checkpoint = conflicted / ".jerry" / "checkpoints" / "cx-002-checkpoint.json"
    lines = checkpoint.read_text().splitlines()
    lines[3:3] = ["<<<<<<< HEAD", '  "note": "ours",', "=======", '  "note": "theirs",', ">>>>>>> feature"]
    checkpoint.write_text("\n".join(lines) + "\n")
    shown = "cx-002-checkpoint.json has an unresolved merge conflict at line 4 (<<<<<<< HEAD)"
    prompt = ctxres("prompt", "--template", "2", "--checkpoint", str(checkpoint), cwd=conflicted, env=env())
    assert shown in prompt.stderr, prompt.stderr
    no_yaml_words(prompt.stderr)

    baseline = conflicted / ".ctxres-baseline.json"
    baseline.write_text('{\n<<<<<<< HEAD\n  "version": 1,\n=======\n  "version": 1,\n>>>>>>> feature\n}\n')
    result = ctxres("check", cwd=conflicted, env=env())
    assert (
        ".ctxres-baseline.json: unresolved merge conflict at line 2 (<<<<<<< HEAD): resolve it (keep one side, "
        "remove the markers) and run again"
    ) in result.stdout + result.stderr
    no_yaml_words(result.stderr)


# --- a compaction while the conflict waits ------------------------------------------------------------


def test_a_compaction_during_the_merge_still_gets_its_checkpoint_and_the_alert_says_why(conflicted: Path) -> None:
    """PreCompact writes the next checkpoint from what can be read (the transcript's figures, the conflict's
    first side, the newest readable checkpoint) and says the workflow could not be read; the alert after the
    compaction tells the session so, and once the conflict is resolved `ctxres ack` merges the checkpoint."""
    line = marker_line(conflicted / REAL)
    transcript(conflicted, 123_000)
    session = uuid.uuid4().hex
    result = hook("PreCompact", conflicted, session_id=session, trigger="auto")
    answer(result, "PreCompact")
    assert "records what could be read of it" in result.stderr
    written = conflicted / ".jerry" / "checkpoints" / "cx-003.json"
    checkpoint = json.loads(written.read_text())
    validate("checkpoint", checkpoint)
    state = checkpoint["orchestration_state"]
    assert state["workflow_unreadable"].startswith(f"{REAL}: unresolved merge conflict at line {line} (<<<<<<< HEAD)")
    assert state["workflow_id"] == "proj002-docs-20260302-001" and state["workflow_status"] == "ACTIVE"
    assert state["current_phase"] == 2 and state["current_phase_name"] == "Content Migration"
    assert checkpoint["recovery_instructions"]["next_action"].startswith("Main side: re-score")
    assert checkpoint["context_state"]["estimated_tokens_used"] == 123_000
    assert checkpoint["context_state"]["source"] == "transcript_heuristic"

    said = context_of(hook("SessionStart", conflicted, session_id=session, source="compact"), "SessionStart")
    alert = " ".join(said.split())  # the alert's lines are wrapped
    assert "CHECKPOINT: .jerry/checkpoints/cx-003.json" in alert
    assert f"WORKFLOW NOT READ: {REAL}: unresolved merge conflict at line {line}" in alert
    assert f"2. Fix {REAL} (it could not be read), then read its resumption section" in alert
    assert "`ctxres ack --all`" in alert and "YOU WERE DOING: Phase 2 (Content Migration)" in alert
    no_yaml_words(alert)

    git(conflicted, "checkout", "--ours", REAL)
    acked = ctxres("ack", "--all", "--now", NOW, cwd=conflicted, env=env())
    assert acked.returncode == 0, acked.stderr
    assert f"merged .jerry/checkpoints/cx-003.json as CX-003 into {REAL}" in acked.stdout
    checked = ctxres("check", str(written.relative_to(conflicted)), REAL, cwd=conflicted, env=env())
    assert checked.returncode == 0, checked.stdout  # the checkpoint is valid, and merged


# --- hook texts that do not contradict themselves ----------------------------------------------------------


def test_the_monitor_never_says_no_workflow_was_found_when_the_live_one_cannot_be_read(conflicted: Path) -> None:
    transcript(conflicted, 170_000)  # above the WARNING tier: the monitor speaks
    text = context_of(hook("UserPromptSubmit", conflicted, prompt="go on"), "UserPromptSubmit")
    assert f"the live workflow {REAL} cannot be read" in text and "<context-monitor>" in text
    assert "no ACTIVE or PAUSED ORCHESTRATION file found" not in text
    assert f"Resumption: unknown until {REAL} can be read (see above)" in text


def test_a_session_that_was_not_compacted_is_not_told_what_it_was_doing(tmp_path: Path) -> None:
    """A new session finds another session's checkpoint unmerged: the alert says this session was not
    compacted, and gives the other session's position as that session's, not as "YOU WERE DOING"."""
    root = tmp_path / "project"
    shutil.copytree(WORKSPACE, root)
    opening = context_of(hook("SessionStart", root, source="startup"), "SessionStart")
    assert "this session's context was not compacted" in opening
    assert "YOU WERE DOING" not in opening and "THAT SESSION WAS DOING: " in opening
