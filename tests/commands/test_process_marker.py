"""The `processes` marker (tests/process_marker.py): set from what a test's code can reach, and a test
that starts a process without it fails, so the tests run on every interpreter start none."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ..conftest import ROOT
from ..git_sandbox import GitRepo, Sandbox
from ..process_marker import ProcessReach


def _starts_git() -> str:
    return subprocess.run(["git", "--version"], capture_output=True, text=True, check=True).stdout


def _calls_a_helper_that_starts_git() -> str:
    return _starts_git().upper()


def _imports_subprocess_itself() -> None:
    import subprocess as local

    local.run(["true"], check=True)


def _forks() -> int:
    return os.fork()


def _makes_a_sandbox(root: Path) -> Sandbox:
    return Sandbox(root)


class _QuietRepo(GitRepo):  # starts processes through the methods it inherits only
    KEPT_OUT = (*GitRepo.KEPT_OUT, "CTXRES_")


def _makes_a_subclass_of_a_repository(root: Path) -> GitRepo:
    return _QuietRepo(root)


def _pure(text: str) -> str:
    return text.strip().upper()


def _calls_pure() -> str:
    return _pure(" a ")


@pytest.mark.parametrize(
    "helper",
    [
        _starts_git,
        _calls_a_helper_that_starts_git,
        _imports_subprocess_itself,
        _forks,
        _makes_a_sandbox,
        _makes_a_subclass_of_a_repository,
    ],
)
def test_code_that_reaches_a_process_is_found(helper: object) -> None:
    assert ProcessReach().function(helper)  # type: ignore[arg-type]


@pytest.mark.parametrize("helper", [_pure, _calls_pure, Path.cwd])
def test_code_that_starts_no_process_is_not(helper: object) -> None:
    assert not ProcessReach().function(helper)  # type: ignore[arg-type]


GUARDED = """
import os
import subprocess

import pytest

from ctxres import git


def test_unmarked_starts_a_process():
    subprocess.run(["git", "--version"], capture_output=True, check=True)


def test_unmarked_forks():
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)


@pytest.mark.processes
def test_marked_starts_a_process():
    subprocess.run(["git", "--version"], capture_output=True, check=True)


def test_the_package_starts_git(tmp_path):
    assert git.run(["--version"], tmp_path).startswith(b"git version")


def test_in_process():
    assert "a".upper() == "A"
"""


def _run_guarded(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    (folder / "test_guarded.py").write_text(GUARDED, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "tests.process_marker", "-p", "no:cacheprovider", "-q", "-rf", *args],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_test_that_starts_a_process_without_the_marker_fails(tmp_path: Path) -> None:
    result = _run_guarded(tmp_path, "test_guarded.py")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "2 failed, 3 passed" in result.stdout
    assert "FAILED test_guarded.py::test_unmarked_starts_a_process" in result.stdout
    assert "started 1 process(es) (subprocess: git --version) but is not marked `processes`" in result.stdout
    assert "FAILED test_guarded.py::test_unmarked_forks" in result.stdout
    assert "started 1 process(es) (os.fork) but is not marked `processes`" in result.stdout


def test_the_in_process_selection_leaves_out_the_marked_tests(tmp_path: Path) -> None:
    result = _run_guarded(tmp_path, "-m", "not processes", "test_guarded.py")
    assert "2 failed, 2 passed, 1 deselected" in result.stdout, result.stdout + result.stderr
