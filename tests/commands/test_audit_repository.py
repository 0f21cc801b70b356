"""`ctxres audit-history` with no FILE: every orchestration file of the repository in one history walk.

The heart of it is an equality: the one walk finds, file by file, the same changes and the same stale
commits as one `ctxres audit-history FILE` (`git log --follow`) per file, on a repository whose history
has renames, deletions, a file re-added, merges and commits that change two workflows at once.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ..git_sandbox import GitRepo

ALPHA, ALPHA_MOVED = "alpha/ORCHESTRATION.yaml", "archive/alpha/ORCHESTRATION.yaml"
BETA, GAMMA = "beta/ORCHESTRATION.yaml", "gamma/ORCHESTRATION.yaml"
EXAMPLE = "docs/examples/ORCHESTRATION.yaml"


def workflow(name: str, iteration: int, updated: int, note: str = "") -> str:
    """A v2.0 workflow whose quality gate is at ``iteration`` (the state) and whose resumption section was last
    rewritten at hour ``updated``; ``note`` changes a comment only (not state)."""
    # Lines of its own, so that git's rename and copy detection never takes one workflow for another.
    own = "".join(f"#   {name} {line}: {name * (1 + line % 3)}\n" for line in range(12))
    return f"""\
# The {name} workflow.{note}
{own}schema_version: "2.0.0"
workflow:
  id: "{name}-20260301-001"
  status: "ACTIVE"
pipelines:
  main:
    status: "PHASE_1_IN_PROGRESS"
    current_phase: 1
    phases:
      - id: 1
        name: "Build"
        status: "IN_PROGRESS"
quality_gates:
  qg-1:
    status: "REVISE"
    current_iteration: {iteration}
    score: 0.{50 + iteration}
resumption:
  recovery_state:
    current_phase: 1
    workflow_status: "ACTIVE"
    current_activity: "gate iteration {updated}"
    next_step: "Revise and score again."
    updated_at: "2026-03-01T{updated:02d}:00:00Z"
"""


class Repo:
    """A repository whose commits are made at increasing dates, with the hashes of the stale ones by file."""

    def __init__(self, root: Path) -> None:
        self.git = GitRepo(root)
        self.hour = 0
        self.state: dict[str, tuple[int, int]] = {}  # path -> (iteration, updated)
        self.stale: dict[str, list[str]] = {}  # path at the end -> full hashes of its stale commits

    def commit(self, message: str) -> str:
        self.hour += 1
        self.git.commit(message, date=f"2026-03-01T{self.hour:02d}:00:00+00:00")
        return self.git.git("rev-parse", "HEAD").strip()

    def write(self, path: str, name: str, iteration: int, updated: int, note: str = "") -> None:
        self.git.stage(path, workflow(name, iteration, updated, note))
        self.state[path] = (iteration, updated)

    def move(self, old: str, new: str) -> None:
        (self.git.root / new).parent.mkdir(parents=True, exist_ok=True)
        self.git.git("mv", old, new)
        self.state[new] = self.state.pop(old)

    def step(self, path: str, name: str, *, stale: bool) -> None:
        """Move the state of ``path`` one gate iteration on; with ``stale``, leave its resumption section."""
        iteration, updated = self.state[path]
        self.write(path, name, iteration + 1, updated if stale else updated + 1)


def build(root: Path) -> tuple[Repo, dict[str, list[str]]]:
    """The repository, and the full hashes of the stale commits of each file, by its name at the end."""
    repo = Repo(root)
    stale: dict[str, list[str]] = {ALPHA_MOVED: [], BETA: [], GAMMA: []}
    repo.write(ALPHA, "alpha", 1, 1)
    repo.write(BETA, "beta", 1, 1)
    repo.git.stage("notes/plan.yaml", "plan: [build, ship]\n")
    repo.commit("two workflows")
    repo.step(ALPHA, "alpha", stale=True)
    stale[ALPHA_MOVED].append(repo.commit("alpha: gate iteration 2, section left"))
    repo.step(BETA, "beta", stale=False)
    repo.commit("beta: gate iteration 2")
    # One commit, two workflows: alpha is fine, beta is stale.
    repo.step(ALPHA, "alpha", stale=False)
    repo.step(BETA, "beta", stale=True)
    stale[BETA].append(repo.commit("both workflows move"))
    # Both stale in the same commit.
    repo.step(ALPHA, "alpha", stale=True)
    repo.step(BETA, "beta", stale=True)
    shared = repo.commit("both workflows move, both sections left")
    stale[ALPHA_MOVED].append(shared)
    stale[BETA].append(shared)
    # alpha moves to archive/ with a stale edit in the same commit: the walk follows it.
    repo.move(ALPHA, ALPHA_MOVED)
    repo.step(ALPHA_MOVED, "alpha", stale=True)
    stale[ALPHA_MOVED].append(repo.commit("archive alpha"))
    repo.step(ALPHA_MOVED, "alpha", stale=False)
    repo.commit("alpha: one more iteration")
    # A side branch changes beta while main adds gamma; merged with a merge commit.
    repo.git.git("checkout", "-q", "-b", "side")
    repo.step(BETA, "beta", stale=True)
    stale[BETA].append(repo.commit("side: beta moves"))
    repo.write(BETA, "beta", *repo.state[BETA], note=" Reviewed.")
    repo.commit("side: a comment in beta")
    repo.git.git("checkout", "-q", "main")
    repo.write(GAMMA, "gamma", 1, 1)
    repo.commit("gamma")
    repo.step(GAMMA, "gamma", stale=True)
    stale[GAMMA].append(repo.commit("gamma: iteration 2, section left"))
    repo.hour += 1
    repo.git.git("merge", "-q", "--no-ff", "-m", "merge side", "side", date=f"2026-03-01T{repo.hour:02d}:00:00+00:00")
    # gamma is deleted, then added again and moved on: git log --follow sees one file, so does the walk.
    repo.git.git("rm", "-q", GAMMA)
    repo.commit("drop gamma")
    repo.write(GAMMA, "gamma", 5, 5)
    repo.commit("gamma again")
    repo.step(GAMMA, "gamma", stale=True)
    stale[GAMMA].append(repo.commit("gamma: iteration 6, section left"))
    repo.step(GAMMA, "gamma", stale=False)
    repo.commit("gamma: iteration 7")
    # beta is deleted for good: its history is still audited, under its last name.
    repo.git.git("rm", "-q", BETA)
    repo.commit("drop beta")
    # An example is not a live workflow: left out, like `ctxres check` leaves it out.
    repo.write(EXAMPLE, "example", 1, 1)
    repo.commit("an example")
    repo.step(EXAMPLE, "example", stale=True)
    repo.commit("example: stale, but an example")
    return repo, stale


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Repo, dict[str, list[str]]]:
    return build(tmp_path_factory.mktemp("audit-repository") / "repo")


def audit(repo: Repo, *args: str) -> tuple[int, list[dict[str, object]]]:
    result = repo.git.run("audit-history", *args, "--output-format", "json")
    assert result.stderr == "", result.stderr
    files: list[dict[str, object]] = json.loads(result.stdout)["files"]
    return result.returncode, files


def stale_shas(entry: dict[str, object]) -> list[str]:
    commits = entry["stale_commits"]
    assert isinstance(commits, list)
    return [commit["sha"] for commit in commits]


def test_one_walk_finds_what_one_run_per_file_finds(built: tuple[Repo, dict[str, list[str]]]) -> None:
    repo, stale = built
    assert len(repo.git.git("rev-list", "--merges", "HEAD").split()) == 1
    code, whole = audit(repo)
    assert code == 1
    assert [entry["path"] for entry in whole] == sorted(stale)
    per_file = []
    for path in sorted(stale):
        file_code, [entry] = audit(repo, path)
        assert file_code == 1
        per_file.append(entry)
    assert whole == per_file
    # And both are right: every planted stale commit, under the file's last name, nothing else.
    for entry in whole:
        assert sorted(stale_shas(entry)) == sorted(stale[str(entry["path"])]), entry["path"]
    assert {str(entry["path"]): entry["commits_checked"] for entry in whole} == {ALPHA_MOVED: 5, BETA: 5, GAMMA: 3}


def test_the_history_is_read_once_for_all_files(built: tuple[Repo, dict[str, list[str]]], tmp_path: Path) -> None:
    repo, _stale = built
    trace = tmp_path / "trace"
    repo.git.env["GIT_TRACE"] = str(trace)
    try:
        assert repo.git.run("audit-history", "--output-format", "json").returncode == 1
    finally:
        del repo.git.env["GIT_TRACE"]
    lines = trace.read_text("utf-8").split("\n")  # (not splitlines: the log's format holds separators it splits at)
    commands = [line.split("built-in: git ", 1)[1] for line in lines if "built-in: git " in line]
    assert len([command for command in commands if command.startswith("log ") and "--raw" in command]) == 1, commands
    assert len([command for command in commands if command == "cat-file --batch"]) == 1
    assert not [command for command in commands if "--follow" in command]


def test_examples_and_templates_are_audited_when_asked(built: tuple[Repo, dict[str, list[str]]]) -> None:
    repo, stale = built
    _code, files = audit(repo, "--include-examples")
    assert [entry["path"] for entry in files] == sorted([*stale, EXAMPLE])
    [example] = [entry for entry in files if entry["path"] == EXAMPLE]
    assert len(stale_shas(example)) == 1
    assert example["commits_checked"] == 1


def test_the_configuration_decides_which_files_are_audited(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    repo.git.stage(".ctxres.toml", 'extend-exclude = ["vendor/"]\ncheck-examples = true\n')
    repo.write("vendor/ORCHESTRATION.yaml", "vendored", 1, 1)
    repo.write("templates/ORCHESTRATION.yaml", "template", 1, 1)
    repo.write("plan.yaml", "not matched by the patterns", 1, 1)
    repo.commit("three files")
    for path in ("vendor/ORCHESTRATION.yaml", "templates/ORCHESTRATION.yaml", "plan.yaml"):
        repo.step(path, "any", stale=True)
    repo.commit("all stale")
    code, files = audit(repo)
    assert code == 1
    assert [(entry["path"], len(stale_shas(entry))) for entry in files] == [("templates/ORCHESTRATION.yaml", 1)]
    # The patterns come from the configuration too.
    repo.git.stage(".ctxres.toml", '[patterns]\norchestration = ["plan.yaml"]\n')
    repo.commit("plan.yaml is the workflow")
    _code, files = audit(repo)
    assert [entry["path"] for entry in files] == ["plan.yaml"]


def test_a_name_used_again_after_a_rename_starts_a_new_history(tmp_path: Path) -> None:
    """`git log --follow NAME` lists the changes of an earlier file of that name too, which moved away; the
    walk gives each of its changes to the file they became."""
    repo = Repo(tmp_path / "repo")
    repo.write(ALPHA, "alpha", 1, 1)
    repo.commit("alpha")
    repo.step(ALPHA, "alpha", stale=True)
    first = repo.commit("alpha: stale")
    repo.move(ALPHA, ALPHA_MOVED)
    repo.commit("archive alpha")
    repo.write(ALPHA, "alpha-two", 1, 1)
    repo.commit("a new alpha")
    repo.step(ALPHA, "alpha-two", stale=False)
    repo.commit("alpha two moves")
    _code, files = audit(repo)
    assert [(entry["path"], stale_shas(entry), entry["commits_checked"]) for entry in files] == [
        (ALPHA, [], 1),
        (ALPHA_MOVED, [first], 2),  # the stale change, and the rename
    ]


def test_text_output_is_grouped_by_file(built: tuple[Repo, dict[str, list[str]]]) -> None:
    repo, stale = built
    result = repo.git.run("audit-history")
    assert result.returncode == 1
    headers = [line for line in result.stdout.splitlines() if not line.startswith((" ", "\t")) and ":" in line]
    summaries = [line for line in headers if "would have been blocked" in line]
    assert summaries == [
        f"{ALPHA_MOVED}: 3 of 5 changes would have been blocked by ctxres-stale",
        f"{BETA}: 3 of 5 changes would have been blocked by ctxres-stale",
        f"{GAMMA}: 2 of 3 changes would have been blocked by ctxres-stale",
    ]
    assert sum(len(shas) for shas in stale.values()) == 8


@pytest.mark.parametrize("output_format", ["github", "sarif"])
def test_annotations_name_each_file(built: tuple[Repo, dict[str, list[str]]], output_format: str) -> None:
    repo, _stale = built
    result = repo.git.run("audit-history", "--output-format", output_format)
    assert result.returncode == 1
    for path in (ALPHA_MOVED, BETA, GAMMA):
        assert path in result.stdout
    assert EXAMPLE not in result.stdout


def test_a_revision_range_limits_the_walk(built: tuple[Repo, dict[str, list[str]]]) -> None:
    repo, stale = built
    since = stale[GAMMA][0]
    code, files = audit(repo, "--rev", f"{since}..HEAD")
    assert code == 1
    by_path = {entry["path"]: entry for entry in files}
    assert stale_shas(by_path[GAMMA]) == [stale[GAMMA][1]]
    assert stale_shas(by_path[BETA]) == [stale[BETA][2]]  # the side branch is not an ancestor of `since`
    assert ALPHA_MOVED not in by_path  # no change to it in the range


def test_a_repository_without_workflows(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    repo.git.stage("README.md", "nothing here\n")
    repo.commit("readme")
    result = repo.git.run("audit-history")
    assert result.returncode == 0
    assert result.stdout == "no orchestration file in the history of 'HEAD'\n"
    assert audit(repo) == (0, [])
