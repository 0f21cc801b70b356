"""The GitHub Actions job of the README's "Use it in CI" section: it is valid YAML, it checks out
the whole history, and its commands run for real (the job's own `run:` lines, through bash) in a
clone of a pull request: a full clone reports the stale commit as an annotation, a shallow clone
(the default of `actions/checkout`) stops with exit 2 and names the fix the job applies."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from ..conftest import ROOT
from ..git_sandbox import Clone, GitRepo
from ..installs import OFFLINE, build_wheel, offline_venv
from .demo_workflow import ADVANCED, ORCH

WORKFLOW = "ORCHESTRATION.yaml"


def ci_job() -> dict[str, Any]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    match = re.search(r"^## Use it in CI\n(.*?)(?=^## )", text, re.MULTILINE | re.DOTALL)
    assert match, "README.md has no section `## Use it in CI`"
    blocks = re.findall(r"^```yaml\n(.*?)^```", match.group(1), re.MULTILINE | re.DOTALL)
    assert len(blocks) == 1, "the CI section should hold one YAML block, the GitHub Actions workflow"
    workflow = yaml.safe_load(blocks[0])
    assert isinstance(workflow, dict)
    jobs = workflow["jobs"]
    assert len(jobs) == 1
    job: dict[str, Any] = next(iter(jobs.values()))
    return job


def steps_using(job: dict[str, Any], action: str) -> list[dict[str, Any]]:
    return [step for step in job["steps"] if str(step.get("uses", "")).startswith(f"{action}@")]


def run_step(job: dict[str, Any], event: str) -> str:
    runs = [step["run"] for step in job["steps"] if step.get("if") == f"github.event_name == '{event}'"]
    assert len(runs) == 1, f"one step runs on {event}"
    command: str = runs[0]
    return command


def test_the_job_fetches_the_whole_history_and_installs_ctxres() -> None:
    job = ci_job()
    assert job["runs-on"]
    (checkout,) = steps_using(job, "actions/checkout")
    assert checkout["with"]["fetch-depth"] == 0
    (python,) = steps_using(job, "actions/setup-python")
    assert python["with"]["python-version"]
    installs = [step["run"] for step in job["steps"] if "pip install" in str(step.get("run", ""))]
    assert len(installs) == 1 and "ctxres" in installs[0]
    assert job["steps"].index(checkout) < job["steps"].index(python)


def test_every_option_the_job_uses_is_one_the_real_command_has() -> None:
    job = ci_job()
    commands = [shlex.split(step["run"]) for step in job["steps"] if str(step.get("run", "")).startswith("ctxres ")]
    assert len(commands) == 2
    for words in commands:
        help_text = subprocess.run(
            [sys.executable, "-m", "ctxres.linters.cli", words[1], "--help"],
            capture_output=True,
            text=True,
            check=True,
            timeout=120,
        ).stdout
        for word in words[2:]:
            if word.startswith("--"):
                assert re.search(rf"\[{re.escape(word)}\b", help_text), f"`ctxres {words[1]}` has no {word}"


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel a team keeps under tools/ctxres/ (the README's "Use it in CI")."""
    return build_wheel(tmp_path_factory.mktemp("wheel"))


@pytest.fixture(scope="module")
def pull_request(tmp_path_factory: pytest.TempPathFactory, wheel: Path) -> tuple[GitRepo, str]:
    """A repository whose branch `feature` moves the state without the section; `main` is the base."""
    repo = GitRepo(tmp_path_factory.mktemp("ci") / "origin")
    repo.stage(WORKFLOW, ORCH)
    repo.stage(f"tools/ctxres/{wheel.name}", "")
    shutil.copy2(wheel, repo.root / "tools" / "ctxres" / wheel.name)
    repo.git("add", "tools")
    repo.commit("add the workflow, and the wheel of ctxres the team uses")
    repo.git("checkout", "-q", "-b", "feature")
    repo.stage(WORKFLOW, ADVANCED)
    stale = repo.commit("advance the phase, forget the section")
    repo.git("checkout", "-q", "main")
    repo.stage("NOTES.txt", "main moves on\n")
    repo.commit("notes")
    return repo, stale


@pytest.fixture(scope="module")
def runner(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The runner's Python (actions/setup-python): a fresh environment with pip and no ctxres."""
    return offline_venv(tmp_path_factory.mktemp("runner") / "python").parent


def _run_as_github(command: str, clone: Clone, runner: Path) -> subprocess.CompletedProcess[str]:
    """``command`` as GitHub Actions runs a `run:` line of a pull-request job (bash, GITHUB_BASE_REF), after
    the job's own install step (pip with no index: the wheel's dependencies are already there)."""
    env = dict(clone.env, GITHUB_BASE_REF="main", GITHUB_EVENT_NAME="pull_request", **OFFLINE)
    env["PATH"] = os.pathsep.join([str(runner), env.get("PATH", "")])
    (install,) = [step["run"] for step in ci_job()["steps"] if "pip install" in str(step.get("run", ""))]
    installed = subprocess.run(
        ["bash", "-e", "-c", install], cwd=clone.root, env=env, capture_output=True, text=True, timeout=300
    )
    assert installed.returncode == 0, installed.stdout + installed.stderr
    assert (runner / "ctxres").is_file(), "the install step installed no ctxres command"
    return subprocess.run(
        ["bash", "-e", "-c", command], cwd=clone.root, env=env, capture_output=True, text=True, timeout=120
    )


def test_the_pull_request_step_reports_the_stale_commit(
    pull_request: tuple[GitRepo, str], tmp_path: Path, runner: Path
) -> None:
    origin, stale = pull_request
    clone = Clone(origin, tmp_path / "checkout", "--branch", "feature")  # fetch-depth: 0
    result = _run_as_github(run_step(ci_job(), "pull_request"), clone, runner)
    assert result.returncode == 1, result.stderr
    s013 = [line for line in result.stdout.splitlines() if "S013" in line]
    assert len(s013) == 1
    assert s013[0].startswith(f"::error file={WORKFLOW},line=")
    assert f"commit {stale} " in s013[0]


def test_the_pull_request_step_in_a_shallow_checkout_names_the_fix(
    pull_request: tuple[GitRepo, str], tmp_path: Path, runner: Path
) -> None:
    origin, _stale = pull_request
    clone = Clone(origin, tmp_path / "checkout", "--depth", "1", "--branch", "feature")  # the default checkout
    result = _run_as_github(run_step(ci_job(), "pull_request"), clone, runner)
    assert result.returncode == 2
    assert result.stderr.startswith("ctxres: error: --since: this is a shallow clone (only 1 commit of history)")
    assert "`fetch-depth: 0`" in result.stderr


def test_the_push_step_runs(pull_request: tuple[GitRepo, str], tmp_path: Path, runner: Path) -> None:
    origin, _stale = pull_request
    clone = Clone(origin, tmp_path / "checkout", "--depth", "1")  # no history needed
    result = _run_as_github(run_step(ci_job(), "push"), clone, runner)
    # The demo file lacks keys the schema requires (C001): the job reports it, as an annotation.
    assert (result.returncode, result.stderr) == (1, ""), result.stdout + result.stderr
    assert result.stdout.startswith(f"::error file={WORKFLOW},line=")
    assert "title=C001::" in result.stdout
    assert "S013" not in result.stdout


def nox_session() -> str:
    """The `noxfile.py` of the README's "Use it in CI" section, as a team pastes it."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    match = re.search(r"^## Use it in CI\n(.*?)(?=^## )", text, re.MULTILINE | re.DOTALL)
    assert match
    (block,) = re.findall(r"^```python\n(.*?)^```", match.group(1), re.MULTILINE | re.DOTALL)
    return block


def test_the_nox_session_a_team_pastes_runs(pull_request: tuple[GitRepo, str], tmp_path: Path) -> None:
    """`nox -s ctxres` in the team's repository installs the committed wheel and checks; with CTXRES_SINCE
    it also checks every commit of the branch. The session's environment is made beforehand (pip with no
    index sees the wheel's dependencies; nox reuses it), so that nothing is downloaded."""
    origin, stale = pull_request
    clone = Clone(origin, tmp_path / "checkout", "--branch", "feature")
    (clone.root / "noxfile.py").write_text(nox_session(), encoding="utf-8")
    offline_venv(clone.root / ".nox" / "ctxres")
    env = dict(clone.env, **OFFLINE, PATH="/usr/bin:/bin")
    nox = [str(Path(sys.executable).parent / "nox"), "--reuse-venv=yes", "-s", "ctxres"]
    plain = subprocess.run(nox, cwd=clone.root, env=env, capture_output=True, text=True, timeout=600)
    output = plain.stdout + plain.stderr
    assert plain.returncode == 1 and "Session ctxres failed" in output, output
    assert f"{WORKFLOW}:" in output and " C001 " in output and "S013" not in output
    assert (clone.root / ".nox" / "ctxres" / "bin" / "ctxres").is_file()  # installed from tools/ctxres/
    since = subprocess.run(
        nox, cwd=clone.root, env={**env, "CTXRES_SINCE": "origin/main"}, capture_output=True, text=True, timeout=600
    )
    assert since.returncode == 1 and f"commit {stale} " in since.stdout + since.stderr, since.stdout + since.stderr
