"""The rule of linters/rules/stale_commits.py: S013, a commit in a range that moved the workflow state
without its resumption section (`ctxres check --since REF`; `ctxres stale`, the same comparison for the
pre-commit hook: tests/commands/test_stale_git.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ..commands.demo_workflow import ADVANCED, UPDATED, demo_repository, line_of
from ..git_sandbox import GitRepo


@pytest.fixture
def repo(tmp_path: Path) -> GitRepo:
    return demo_repository(tmp_path)


def test_check_since_reports_the_stale_commit_as_s013_in_every_format(repo: GitRepo) -> None:
    base = repo.git("rev-parse", "HEAD").strip()
    repo.stage("ORCHESTRATION.yaml", ADVANCED)
    stale = repo.commit("phase 2 started (section forgotten)", date="2026-02-20T10:00:00+00:00")
    repo.stage("ORCHESTRATION.yaml", UPDATED)
    repo.commit("resumption section caught up")
    result = repo.run("check", "--since", base, "--select", "S013")
    assert result.returncode == 1, result.stderr
    where = f"ORCHESTRATION.yaml:{line_of(ADVANCED, 'updated_at')}:1: S013 "
    [finding] = [line for line in result.stdout.splitlines() if line.startswith("ORCHESTRATION.yaml:")]
    assert finding.startswith(where + f"commit {stale} (2026-02-20T10:00:00+00:00) moved ")
    assert "and 4 more state-bearing values" in finding
    assert f"(line of the file in {stale})" in finding
    payload = json.loads(repo.run("check", "--since", base, "--select", "S013", "--output-format", "json").stdout)
    [reported] = payload["findings"]
    assert (reported["path"], reported["line"], reported["code"]) == (
        "ORCHESTRATION.yaml",
        line_of(ADVANCED, "updated_at"),
        "S013",
    )
    assert reported["fix"]
    # The same files without --since: the current version is up to date, so S013 cannot appear.
    assert "S013" not in repo.run("check", "--select", "S013").stdout
    # Ignored like any rule.
    assert repo.run("check", "--since", base, "--select", "S013", "--ignore", "S013").returncode == 0


def test_check_since_a_clean_range_and_a_bad_ref(repo: GitRepo) -> None:
    base = repo.git("rev-parse", "HEAD").strip()
    repo.stage("ORCHESTRATION.yaml", UPDATED)
    repo.commit("state and section together")
    assert repo.run("check", "--since", base, "--select", "S013").returncode == 0
    bad = repo.run("check", "--since", "no-such-branch")
    assert bad.returncode == 2
    assert bad.stderr == ("ctxres: error: --since: unknown revision 'no-such-branch': no such commit, branch or tag\n")
