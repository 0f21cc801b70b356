"""`ctxres append-only` (the pre-commit hook `ctxres-append-only`) in real git repositories."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ..git_sandbox import GitRepo

LOG = ".agent-memory/runs/r1/events/executor/20260115-1030.jsonl"
OTHER = ".agent-memory/runs/r1/events/verifier/20260115-1100.jsonl"
LINES = [
    '{"event_type": "task_started", "task_id": "T001", "timestamp": "2026-01-15T10:30:00Z", "actor": "executor"}',
    '{"event_type": "task_implemented", "task_id": "T001", "timestamp": "2026-01-15T10:50:00Z", "actor": "executor"}',
    '{"event_type": "task_started", "task_id": "T002", "timestamp": "2026-01-15T11:10:00Z", "actor": "executor"}',
]
NEW = '{"event_type": "task_blocked", "task_id": "T002", "timestamp": "2026-01-15T11:30:00Z", "actor": "executor"}'


def log_text(lines: list[str]) -> str:
    """An event log of these lines, one JSON object a line."""
    return "".join(line + "\n" for line in lines)


@pytest.fixture
def repo(git_repo: GitRepo) -> GitRepo:
    repo = git_repo
    repo.stage(LOG, log_text(LINES))
    repo.git("commit", "-q", "-m", "first events")
    return repo


def test_an_appended_line_is_accepted(repo: GitRepo) -> None:
    repo.stage(LOG, log_text([*LINES, NEW]))
    result = repo.run("append-only")
    assert result.returncode == 0, result.stdout
    assert "only appended lines (1 staged event log checked)" in result.stdout


def test_an_edited_old_line_is_blocked_with_its_line_number(repo: GitRepo) -> None:
    edited = LINES[1].replace("10:50", "10:55")
    repo.stage(LOG, log_text([LINES[0], edited, LINES[2], NEW]))
    result = repo.run("append-only", LOG)  # as pre-commit passes it
    assert result.returncode == 1
    out = result.stdout.splitlines()
    assert out[0] == f"{LOG}: blocked: 1 committed line of an append-only event log would change"
    assert out[1:4] == ["    line 2: changed", f"      was: {LINES[1][:97]}...", f"      now: {edited[:97]}..."]
    assert out[4].startswith(f"  fix: put the committed lines back unchanged (`git show HEAD:./{LOG}`")


def test_deleted_and_inserted_lines_are_blocked(repo: GitRepo) -> None:
    repo.stage(LOG, log_text([LINES[0], NEW, LINES[2]]))
    result = repo.run("append-only", "--output-format", "json")
    assert result.returncode == 1
    [log] = json.loads(result.stdout)["logs"]
    assert [(line["line"], line["kind"]) for line in log["lines"]] == [(2, "changed")]
    repo.stage(LOG, log_text([LINES[0], LINES[2]]))
    [log] = json.loads(repo.run("append-only", "--output-format", "json").stdout)["logs"]
    assert [(line["line"], line["kind"]) for line in log["lines"]] == [(2, "deleted")]
    repo.stage(LOG, log_text([LINES[0], NEW, *LINES[1:]]))
    result = repo.run("append-only")
    assert result.returncode == 1
    assert f"    line 2: a new line was inserted before it: {NEW[:97]}..." in result.stdout.splitlines()


def test_deleting_a_committed_log_is_blocked_even_when_pre_commit_passes_no_file(repo: GitRepo) -> None:
    repo.git("rm", "-q", LOG)
    result = repo.run("append-only")
    assert result.returncode == 1
    assert f"{LOG}: blocked: the committed event log is deleted; event logs are append-only" in result.stdout
    other = repo.root / "notes.md"
    other.write_text("notes\n")
    repo.git("add", "notes.md")
    assert repo.run("append-only", "notes.md").returncode == 1  # the deletion is still seen


def test_moving_a_committed_log_is_blocked(repo: GitRepo) -> None:
    target = LOG.replace("executor", "verifier")
    (repo.root / target).parent.mkdir(parents=True)
    repo.git("mv", LOG, target)
    result = repo.run("append-only")
    assert result.returncode == 1
    assert f"{LOG}: blocked: the committed event log is moved to {target}" in result.stdout


def test_new_logs_and_other_files_pass(repo: GitRepo) -> None:
    repo.stage(OTHER, log_text([NEW.replace("executor", "verifier")]))
    (repo.root / "README.md").write_text("x\n")
    repo.git("add", "README.md")
    result = repo.run("append-only")
    assert result.returncode == 0
    assert "(0 staged event logs checked)" in result.stdout


DATED = "data/events/2024-03/01.jsonl"  # a news data set named like an event log
NEWS = ['{"id": "a1", "headline": "Rates held"}', '{"id": "a2", "headline": "Storm closes roads"}']
KEPT_ELSEWHERE = "archive/r0/events/executor/20260101.jsonl"  # a run's log kept elsewhere: ours by its lines


def test_a_data_set_named_like_an_event_log_may_be_edited_and_a_log_kept_elsewhere_may_not(repo: GitRepo) -> None:
    repo.stage(DATED, log_text(NEWS))
    repo.stage(KEPT_ELSEWHERE, log_text(LINES))
    repo.git("commit", "-q", "-m", "data and an archived run")
    repo.stage(DATED, log_text([NEWS[1].replace("Storm", "A storm"), NEWS[0]]))  # corrected and reordered
    repo.stage(KEPT_ELSEWHERE, log_text([LINES[0], LINES[2]]))  # a line of a run's log deleted
    for given in ((), (DATED, KEPT_ELSEWHERE)):  # found in the index, or passed by pre-commit
        result = repo.run("append-only", *given)
        assert result.returncode == 1, result.stdout
        assert f"{KEPT_ELSEWHERE}: blocked" in result.stdout
        assert DATED not in result.stdout
    repo.git("checkout", "-q", "HEAD", "--", KEPT_ELSEWHERE)
    repo.git("rm", "-q", "-f", DATED)  # the data set's file deleted: not an event log either
    result = repo.run("append-only")
    assert result.returncode == 0, result.stdout


def test_the_first_commit_passes(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "fresh")
    repo.stage(LOG, log_text(LINES))
    assert repo.run("append-only").returncode == 0


def test_outside_a_git_repository_is_a_usage_error(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "ctxres.linters.cli", "append-only"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "GIT_CEILING_DIRECTORIES": str(tmp_path.parent)},
        timeout=60,
    )
    assert result.returncode == 2
    assert result.stderr.startswith("ctxres append-only: error:") and "Traceback" not in result.stderr
