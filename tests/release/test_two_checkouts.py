"""One environment, two checkouts: an editable install of the first, run from the second's folder
(``python -m`` puts that folder first on ``sys.path``), would import ``ctxres`` from the second and its
rooms (``ctxres.linters``, ``ctxres.hooks``, ``ctxres.schemas``) from the first, through the install's
finder, without a word. Each room refuses in one line that names both trees; a hook says so and exits 0."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from ..installs import OFFLINE, offline_venv, working_tree_copy

ADVICE = "two checkouts mixed in one environment; run it from another folder, or install this folder's checkout"


class Checkouts:
    def __init__(self, python: Path, first: Path, second: Path) -> None:
        self.python, self.first, self.second = python, first, second

    def run(self, *args: str, cwd: Path, stdin: str = "") -> subprocess.CompletedProcess[str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "VIRTUAL_ENV", "PYTHONPATH"))}
        return subprocess.run(
            [str(self.python), *args], cwd=cwd, input=stdin, capture_output=True, text=True, env=env, timeout=120
        )

    def mixed(self, room: str) -> str:
        return f"ctxres is imported from {self.second / 'ctxres'} but ctxres.{room} from {self.first / room}: {ADVICE}"


@pytest.fixture(scope="module")
def checkouts(tmp_path_factory: pytest.TempPathFactory) -> Checkouts:
    base = tmp_path_factory.mktemp("two-checkouts").resolve()
    first = working_tree_copy(base / "first")
    second = working_tree_copy(base / "second")
    python = offline_venv(base / "venv")
    subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", "-e", str(first)],
        check=True,
        capture_output=True,
        timeout=300,
        env={**os.environ, **OFFLINE},
    )
    return Checkouts(python, first, second)


def test_the_command_run_from_the_other_checkout_refuses_in_one_line(checkouts: Checkouts) -> None:
    done = checkouts.run("-m", "ctxres.linters.cli", "--version", cwd=checkouts.second)
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr.splitlines() == [f"ctxres: {checkouts.mixed('linters')} (pip install -e .)"]


def test_the_schemas_refuse_in_one_line(checkouts: Checkouts) -> None:
    done = checkouts.run("-c", "import ctxres.schemas", cwd=checkouts.second)
    assert done.returncode == 1
    assert done.stderr.splitlines() == [f"ctxres: {checkouts.mixed('schemas')} (pip install -e .)"]


def test_a_hook_run_from_the_other_checkout_says_so_and_exits_0(checkouts: Checkouts) -> None:
    done = checkouts.run("-m", "ctxres.hooks.main", "SessionStart", cwd=checkouts.second, stdin="{}")
    assert (done.returncode, done.stdout) == (0, "")
    assert done.stderr.splitlines() == [f"ctxres-hook: {checkouts.mixed('hooks')} (pip install -e .)"]


@pytest.mark.parametrize("where", ["first", "outside"])
def test_from_the_installed_checkout_or_elsewhere_it_runs(checkouts: Checkouts, where: str) -> None:
    cwd = checkouts.first if where == "first" else checkouts.first.parent
    done = checkouts.run("-m", "ctxres.linters.cli", "--version", cwd=cwd)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.startswith("ctxres ")


def test_the_plugins_entry_runs_its_own_clone_whole(checkouts: Checkouts, tmp_path: Path) -> None:
    """The plugin runs ``python3 <clone>/hooks/plugin_entry.py EVENT`` with whatever ``python3`` the machine has,
    here one with the other checkout installed: the hook comes from the plugin's clone, not a mix."""
    payload = json.dumps({"hook_event_name": "SessionStart", "source": "startup", "cwd": str(tmp_path)})
    entry = str(checkouts.second / "hooks" / "plugin_entry.py")
    done = checkouts.run(entry, "SessionStart", cwd=tmp_path, stdin=payload)
    assert (done.returncode, done.stderr) == (0, "")
    probe = checkouts.run(
        "-c",
        "import sys; sys.path[0] = sys.argv[1]; import ctxres; ctxres.clone_whole(); import ctxres.hooks; "
        "print(ctxres.hooks.__file__)",
        str(checkouts.second),
        cwd=tmp_path,
    )
    assert probe.stdout.strip() == str(checkouts.second / "hooks" / "__init__.py"), probe.stderr
