"""CI runs the suite on every supported Python: every test on the main interpreter, the tests that start
no process on the others (the `processes` marker, tests/process_marker.py); nothing is left out."""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType
from typing import Any

import pytest

from .. import process_marker
from ..conftest import ROOT

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: the backport, a dependency of ctxres there
    import tomli as tomllib

# Importing the noxfile asks which Pythons start (`python3.11 -c ""`).
pytestmark = pytest.mark.processes

PYTEST = ["python", "-m", "pytest", "-n", "auto"]
# The same command under coverage (on COVERAGE_PYTHON).
COVERED = ["python", "-m", "coverage", "run", "-m", "pytest", "-n", "auto"]


@pytest.fixture(scope="module")
def noxfile() -> ModuleType:
    spec = importlib.util.spec_from_file_location("ctxres_noxfile", ROOT / "noxfile.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class RecordingSession:
    """A nox session that records the commands it is asked to run instead of running them."""

    def __init__(self, python: str) -> None:
        self.python = python
        self.posargs: list[str] = []
        self.commands: list[list[str]] = []

    def install(self, *args: str, **kwargs: Any) -> None:
        pass

    def log(self, *args: Any, **kwargs: Any) -> None:
        pass

    def run(self, *args: str, **kwargs: Any) -> None:
        self.commands.append(list(args))


def pytest_command(noxfile: ModuleType, python: str) -> list[str]:
    session = RecordingSession(python)
    noxfile.tests(session)
    (command,) = [command for command in session.commands if "pytest" in command]
    return command


def test_the_tests_session_covers_every_python_pyproject_claims(noxfile: ModuleType) -> None:
    requires = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]["requires-python"]
    assert requires == f">={noxfile.PYTHONS[0]}"
    minors = [int(version.split(".")[1]) for version in noxfile.PYTHONS]
    assert minors == list(range(minors[0], minors[0] + len(minors))), "a supported Python is missing"
    assert noxfile.tests.python == noxfile.PYTHONS
    assert "tests" in noxfile.nox.options.sessions
    assert noxfile.MAIN_PYTHON in noxfile.PYTHONS


def test_the_main_interpreter_runs_every_test(noxfile: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(noxfile, "COVERAGE_PYTHON", "none")
    assert pytest_command(noxfile, noxfile.MAIN_PYTHON) == PYTEST


def test_coverage_is_measured_on_the_newest_python(noxfile: ModuleType) -> None:
    assert noxfile.PYTHONS[-1] == noxfile.COVERAGE_PYTHON
    session = RecordingSession(noxfile.COVERAGE_PYTHON)
    noxfile.tests(session)
    selection = [] if noxfile.COVERAGE_PYTHON == noxfile.MAIN_PYTHON else ["-m", noxfile.IN_PROCESS_SELECTION]
    assert pytest_command(noxfile, noxfile.COVERAGE_PYTHON) == [*COVERED, *selection]
    assert session.commands[-2:] == [
        ["python", "-m", "coverage", "combine", "--quiet"],
        ["python", "-m", "coverage", "report"],  # the floor of pyproject.toml applies when no test is named
    ]


def test_the_coverage_floor_is_the_one_the_readme_states() -> None:
    floor = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["coverage"]["report"]["fail_under"]
    assert floor > 0
    assert f"fails below {floor}%" in (ROOT / "README.md").read_text("utf-8")


def test_the_other_interpreters_run_the_tests_without_the_marker(noxfile: ModuleType) -> None:
    assert noxfile.IN_PROCESS_SELECTION == process_marker.IN_PROCESS_SELECTION == f"not {process_marker.MARKER}"
    others = [python for python in noxfile.PYTHONS if python != noxfile.MAIN_PYTHON]
    assert len(others) == len(noxfile.PYTHONS) - 1
    for python in others:
        command = pytest_command(noxfile, python)
        selection = ["-m", noxfile.IN_PROCESS_SELECTION]
        assert command == [*(COVERED if python == noxfile.COVERAGE_PYTHON else PYTEST), *selection]


def test_an_absent_python_is_skipped_and_never_downloaded(noxfile: ModuleType) -> None:
    assert noxfile.nox.options.download_python == "never"


def test_the_main_interpreter_can_be_chosen(monkeypatch: pytest.MonkeyPatch, noxfile: ModuleType) -> None:
    monkeypatch.setenv("CTXRES_MAIN_PYTHON", "3.13")
    assert noxfile._main_python() == "3.13"
    monkeypatch.delenv("CTXRES_MAIN_PYTHON")
    monkeypatch.setattr(noxfile, "_runs", lambda version: True)
    assert noxfile._main_python() == "3.11"
    monkeypatch.setattr(noxfile, "_runs", lambda version: False)  # none on PATH: the one nox runs on
    assert noxfile._main_python() == f"{sys.version_info.major}.{sys.version_info.minor}"


def test_ci_runs_the_tests_session_on_every_python_it_finds() -> None:
    script = (ROOT / ".ci" / "run").read_text("utf-8")
    assert "-s tests lint typecheck schemas replay" in script
    assert "--no-error-on-missing-interpreters" in script
    assert "PYENV_ROOT" in script  # pyenv's versions are found even where their shims do not answer
