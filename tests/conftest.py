from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from hypothesis import settings

from .git_sandbox import GitRepo

# The `processes` marker, set from each test's code and checked while it runs (see process_marker.py).
from .process_marker import (
    pytest_collection_modifyitems,
    pytest_configure,
    pytest_runtest_call,
    pytest_runtest_setup,
)

ROOT = Path(__file__).resolve().parent.parent

# Under coverage (`nox -s tests` on noxfile.py's COVERAGE_PYTHON), an xdist worker is measured: it was started
# with coverage's variable. The ctxres, hook, git and pre-commit processes the tests start are not: each would
# load coverage at start-up and write a data file of its own (several times the cost of the process), and the
# start-up tests would see coverage's modules. CTXRES_COVERAGE_PROCESSES=1 measures them too.
if os.environ.get("PYTEST_XDIST_WORKER") and not os.environ.get("CTXRES_COVERAGE_PROCESSES"):
    os.environ.pop("COVERAGE_PROCESS_CONFIG", None)
# No per-example deadline: on a loaded CI machine Hypothesis's 200 ms deadline fails a test for the machine's
# load, not for the code (how long the code takes is measured by `nox -s bench`, as ratios, never by a test).
settings.register_profile("ctxres", deadline=None)
settings.load_profile("ctxres")
# The tests run where ctxres's console scripts are on the PATH, as an activated virtual environment, nox or pipx
# puts them: the commands they start (git with pre-commit's hooks, the doctor resolving those hooks) look for
# `ctxres` there. `.venv/bin/python -m pytest` (the README's second command) runs from a virtual environment
# that is not activated; its bin folder goes first on the PATH here. The tests of a machine without ctxres on
# the PATH set their own (tests/cli_process.py, minimal_path).
# Activated as `activate` does it, VIRTUAL_ENV included: `ctxres init` counts a virtual environment that is
# on the PATH only while it is activated as not found by a Claude Code started from another shell.
_SCRIPTS = Path(sys.executable).parent
if (_SCRIPTS / "ctxres").exists() and str(_SCRIPTS) not in os.environ.get("PATH", "").split(os.pathsep):
    os.environ["PATH"] = os.pathsep.join((str(_SCRIPTS), os.environ.get("PATH", "")))
if (_SCRIPTS / "ctxres").exists() and sys.prefix != sys.base_prefix:
    os.environ["VIRTUAL_ENV"] = sys.prefix
FIXTURES = ROOT / "fixtures"
# A byte-exact copy of a real project's files, vendored so that the tests run from any clone; where the
# original is beside the repository (SHARED_CORPUS), test_corpus_copy_is_byte_exact keeps the copy identical.
CORPUS = FIXTURES / "corpus"
SHARED_CORPUS = ROOT.parent / "shared" / "corpus"

__all__ = [
    "pytest_collection_modifyitems",
    "pytest_configure",
    "pytest_runtest_call",
    "pytest_runtest_setup",
]


def assistant_line(tokens: int) -> str:
    """One transcript line: a model reply whose usage puts ``tokens`` in the context window."""
    line = {
        "type": "assistant",
        "isSidechain": False,
        "uuid": "u1",
        "timestamp": "2026-02-17T11:59:00Z",
        "message": {
            "id": "msg_1",
            "model": "claude-opus-4-7",
            "role": "assistant",
            "type": "message",
            "content": [{"type": "text", "text": "ok"}],
            "usage": {"input_tokens": tokens, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
        },
    }
    return json.dumps(line) + "\n"


@pytest.fixture
def git_repo(tmp_path: Path) -> GitRepo:
    """An empty git repository at ``tmp_path / "repo"`` (branch ``main``), with a fixed author and no user or
    system git configuration: see :class:`tests.git_sandbox.GitRepo`."""
    return GitRepo(tmp_path / "repo")
