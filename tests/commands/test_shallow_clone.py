"""The commands that read git history, in a shallow clone (`git clone --depth N`, the default
checkout of most CI services).

The source repository (built in tmp, cloned over `file://`) has six commits; the workflow file is
added by the third, and the fourth moves its state without updating the resumption section:

    c1 notes   c2 notes   c3 adds ORCH   c4 ADVANCED (stale)   c5 UPDATED   c6 notes = HEAD

A clone of depth 1 holds c6 only; one of depth 5 holds c2..c6 (c2 is where its history is cut, and
the workflow file is not in it). When the history a command needs is cut off, it must stop with exit
2 and say how to fetch the rest, not report a clean result; when the clone is deep enough, it must
give the same answer as a full clone. Comparing the index with HEAD (the pre-commit hook) needs no
history at all.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from ..git_sandbox import Clone, GitRepo
from .demo_workflow import ADVANCED, ORCH, UPDATED

WORKFLOW = "projects/demo/ORCHESTRATION.yaml"
SHALLOW = "this is a shallow clone (only {count} of history)"
FIX = "`git fetch --unshallow` (GitHub Actions: `actions/checkout` with `fetch-depth: 0`; GitLab CI"


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> GitRepo:
    repo = GitRepo(tmp_path_factory.mktemp("shallow") / "source")
    repo.stage("NOTES.txt", "one\n")
    repo.commit("c1 notes")
    repo.stage("NOTES.txt", "one\ntwo\n")
    repo.commit("c2 notes")
    repo.stage(WORKFLOW, ORCH)
    repo.commit("c3 add the workflow")
    repo.stage(WORKFLOW, ADVANCED)
    repo.commit("c4 advance the phase, forget the section")
    repo.stage(WORKFLOW, UPDATED)
    repo.commit("c5 update the section")
    repo.stage("NOTES.txt", "one\ntwo\nthree\n")
    repo.commit("c6 notes")
    return repo


@pytest.fixture(scope="module")
def stale_commit(source: GitRepo) -> str:
    return source.git("rev-parse", "--short", "HEAD~2").strip()


@pytest.fixture(scope="module")
def full(source: GitRepo, tmp_path_factory: pytest.TempPathFactory) -> Clone:
    return Clone(source, tmp_path_factory.mktemp("full") / "clone")


@pytest.fixture(scope="module")
def depth1(source: GitRepo, tmp_path_factory: pytest.TempPathFactory) -> Clone:
    return Clone(source, tmp_path_factory.mktemp("depth1") / "clone", "--depth", "1")


@pytest.fixture(scope="module")
def depth5(source: GitRepo, tmp_path_factory: pytest.TempPathFactory) -> Clone:
    return Clone(source, tmp_path_factory.mktemp("depth5") / "clone", "--depth", "5")


def test_the_clones_are_what_the_tests_assume(full: Clone, depth1: Clone, depth5: Clone) -> None:
    assert full.git("rev-parse", "--is-shallow-repository").strip() == "false"
    assert depth1.git("rev-parse", "--is-shallow-repository").strip() == "true"
    assert depth5.git("rev-parse", "--is-shallow-repository").strip() == "true"
    assert depth1.git("rev-list", "--count", "HEAD").strip() == "1"
    assert depth5.git("rev-list", "--count", "HEAD").strip() == "5"
    # The depth-5 clone is cut at c2, which does not hold the workflow file.
    cut = (depth5.root / ".git" / "shallow").read_text().split()
    assert len(cut) == 1
    assert WORKFLOW not in depth5.git("ls-tree", "-r", "--name-only", cut[0])


def _assert_shallow_error(result: subprocess.CompletedProcess[str], prefix: str, count: str, *names: str) -> None:
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stdout == ""
    assert result.stderr.startswith(f"{prefix}{SHALLOW.format(count=count)} and ")
    assert FIX in result.stderr
    assert "`fetch-depth: 0`" in result.stderr and "`GIT_DEPTH: 0`" in result.stderr
    for name in names:
        assert name in result.stderr
    assert result.stderr.count("\n") == 1  # one line, no traceback


# --- depth 1: the history is cut; every history command says so -------------------------------


def test_audit_history_in_a_depth_1_clone_names_the_shallow_clone_and_the_fix(depth1: Clone) -> None:
    result = depth1.run("audit-history", WORKFLOW)
    head = depth1.git("rev-parse", "--short", "HEAD").strip()
    _assert_shallow_error(result, "ctxres audit-history: error: ", "1 commit", WORKFLOW, head)
    assert "no stale commit" not in result.stdout


def test_history_commands_run_from_a_subfolder_of_a_depth_1_clone_find_the_cut(depth1: Clone) -> None:
    """The shallow file is located where the root is asked for, relative to the folder asked from."""
    folder = depth1.root / WORKFLOW.rsplit("/", 1)[0]
    result = depth1.run("audit-history", "ORCHESTRATION.yaml", cwd=folder)
    _assert_shallow_error(result, "ctxres audit-history: error: ", "1 commit", "ORCHESTRATION.yaml")
    result = depth1.run("stale", "--since", "HEAD~3", cwd=folder)
    _assert_shallow_error(result, "ctxres stale: error: ", "1 commit", "'HEAD~3'")


def test_audit_history_json_in_a_depth_1_clone_is_the_same_error(depth1: Clone) -> None:
    result = depth1.run("audit-history", WORKFLOW, "--output-format", "json")
    _assert_shallow_error(result, "ctxres audit-history: error: ", "1 commit", WORKFLOW)


def test_audit_history_of_a_range_reaching_past_a_depth_1_clone(depth1: Clone) -> None:
    result = depth1.run("audit-history", "--rev", "HEAD~3..HEAD", WORKFLOW)
    _assert_shallow_error(result, "ctxres audit-history: error: ", "1 commit", "'HEAD~3..HEAD'")


def test_check_since_in_a_depth_1_clone_names_the_shallow_clone_not_an_unknown_revision(depth1: Clone) -> None:
    result = depth1.run("check", "--since", "HEAD~3", ".")
    _assert_shallow_error(result, "ctxres: error: --since: ", "1 commit", "'HEAD~3'")
    assert "unknown revision" not in result.stderr


def test_stale_since_in_a_depth_1_clone_names_the_shallow_clone(depth1: Clone) -> None:
    result = depth1.run("stale", "--since", "HEAD~3")
    _assert_shallow_error(result, "ctxres stale: error: ", "1 commit", "'HEAD~3'")


def test_the_fix_the_message_names_works(source: GitRepo, tmp_path: Path, full: Clone, stale_commit: str) -> None:
    clone = Clone(source, tmp_path / "clone", "--depth", "1")
    assert clone.run("audit-history", WORKFLOW).returncode == 2
    clone.git("fetch", "-q", "--unshallow")
    fetched, expected = clone.run("audit-history", WORKFLOW), full.run("audit-history", WORKFLOW)
    assert (fetched.returncode, fetched.stdout, fetched.stderr) == (expected.returncode, expected.stdout, "")
    assert fetched.returncode == 1
    assert f"\n{stale_commit} " in fetched.stdout


# --- a branch whose base is cut off: the pull-request checkout of a CI service ------------------


@pytest.fixture(scope="module")
def pull_request(source: GitRepo, tmp_path_factory: pytest.TempPathFactory) -> tuple[GitRepo, str]:
    """``source`` with a branch ``feature`` (from c6) that moves the state without the section, while
    ``main`` moved on: the situation of a pull request in CI. Returns the repository and the stale commit."""
    repo = Clone(source, tmp_path_factory.mktemp("pr") / "source")
    repo.git("checkout", "-q", "-b", "feature")
    repo.stage(WORKFLOW, UPDATED.replace("current_iteration: 0", "current_iteration: 1"))
    stale = repo.commit("feature: a gate iteration, section forgotten")
    repo.git("checkout", "-q", "main")
    repo.stage("NOTES.txt", "one\ntwo\nthree\nfour\n")
    repo.commit("main moves on")
    return repo, stale


def test_check_since_the_base_branch_cut_off_by_a_shallow_clone(
    pull_request: tuple[GitRepo, str], tmp_path: Path
) -> None:
    repo, stale = pull_request
    shallow = Clone(repo, tmp_path / "shallow", "--depth", "1", "--no-single-branch", "--branch", "feature")
    assert shallow.git("rev-parse", "--verify", "-q", "origin/main").strip()  # the base resolves...
    result = shallow.run("check", "--since", "origin/main", "--select", "S013", ".")
    # ... but the range origin/main..HEAD runs into the cut: its commits cannot be compared.
    _assert_shallow_error(result, "ctxres: error: --since: ", "1 commit", "origin/main..HEAD", stale)
    result = shallow.run("stale", "--since", "origin/main")
    _assert_shallow_error(result, "ctxres stale: error: ", "1 commit", "origin/main..HEAD")

    complete = Clone(repo, tmp_path / "complete", "--branch", "feature")
    result = complete.run("check", "--since", "origin/main", "--select", "S013", "--output-format", "json", ".")
    assert result.returncode == 1, result.stderr
    assert [(f["code"], f["path"]) for f in json.loads(result.stdout)["findings"]] == [("S013", WORKFLOW)]
    assert f"commit {stale} " in result.stdout


# --- deep enough: no false error, the same answers as a full clone -------------------------------


def _same(shallow: Clone, full: Clone, *args: str) -> subprocess.CompletedProcess[str]:
    got, expected = shallow.run(*args), full.run(*args)
    assert (got.returncode, got.stdout, got.stderr) == (expected.returncode, expected.stdout, expected.stderr)
    assert "shallow" not in got.stderr
    return got


def test_a_clone_deep_enough_for_the_range_checks_it(depth5: Clone, full: Clone, stale_commit: str) -> None:
    result = _same(depth5, full, "check", "--since", "HEAD~3", "--select", "S013", "--output-format", "json", ".")
    assert result.returncode == 1
    assert [f["code"] for f in json.loads(result.stdout)["findings"]] == ["S013"]
    assert f"commit {stale_commit} " in result.stdout
    result = _same(depth5, full, "stale", "--since", "HEAD~3")
    assert result.returncode == 1
    assert result.stdout.startswith(f"{stale_commit} ")
    assert _same(depth5, full, "stale", "--since", "HEAD~1").returncode == 0


def test_audit_history_of_a_file_younger_than_the_cut(depth5: Clone, full: Clone, stale_commit: str) -> None:
    # The workflow file was added after c2, where the depth-5 clone is cut: its whole history is there.
    result = _same(depth5, full, "audit-history", WORKFLOW)
    assert result.returncode == 1
    assert result.stdout.startswith(f"{WORKFLOW}: 1 of 2 changes would have been blocked by ctxres-stale\n")
    assert f"\n{stale_commit} " in result.stdout


def test_a_range_just_past_the_depth_5_clone_is_refused(depth5: Clone) -> None:
    result = depth5.run("check", "--since", "HEAD~5", ".")
    _assert_shallow_error(result, "ctxres: error: --since: ", "5 commits", "'HEAD~5'")
    # NOTES.txt is in c2, where the clone is cut: its history is not all there.
    result = depth5.run("audit-history", "NOTES.txt")
    _assert_shallow_error(result, "ctxres audit-history: error: ", "5 commits", "NOTES.txt")


# --- the pre-commit hook compares the index with HEAD: no history needed -------------------------


def test_stale_on_the_index_works_in_a_depth_1_clone(source: GitRepo, tmp_path: Path) -> None:
    clone = Clone(source, tmp_path / "clone", "--depth", "1")
    clean = clone.run("stale")
    assert (clean.returncode, clean.stderr) == (0, "")
    clone.stage(WORKFLOW, UPDATED.replace('status: "PENDING"', 'status: "IN_PROGRESS"'))
    blocked = clone.run("stale")
    assert blocked.returncode == 1, blocked.stderr
    assert "blocked: the workflow state moved but the resumption section did not" in blocked.stdout
    assert "shallow" not in blocked.stdout + blocked.stderr
