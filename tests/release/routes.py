"""The ways a user installs ctxres, each done for real in a throw-away folder: ``pipx install`` and ``uv tool
install`` of the built wheel, and the remote pre-commit form (``repo:`` a git repository of this working tree
with a version tag, ``rev:`` that tag), in which pre-commit installs ctxres by itself.

The package index is asked once, for a wheelhouse of ctxres's dependencies (and setuptools and wheel, which
pre-commit's source install builds with); every install then runs with no index (``--no-index`` and that
folder), so an install that would need anything else fails.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from uv import find_uv_bin

from ctxres.linters.setup.hook_runs import settings_environment  # the settings' env, as the client merges it

from ..cli_process import MINIMAL_PATH
from ..git_sandbox import executable, git
from ..installs import working_tree_copy
from ..team_repository import NEW, Clone, new_workflow

INSTALL_TIMEOUT = 600


def wheelhouse(target: Path, wheel: Path) -> Path:
    """``pip download`` of the wheel's dependencies (from the package index, as pip is configured here) and of
    the build requirements of a source install, into ``target``."""
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "-q", "-d", str(target), str(wheel), "setuptools>=77", "wheel"],
        check=True,
        capture_output=True,
        timeout=INSTALL_TIMEOUT,
    )
    return target


def _offline(home: Path, **more: str) -> dict[str, str]:
    """A user's environment with no index and no configuration of this machine: HOME, a minimal PATH."""
    return {
        "HOME": str(home),
        "PATH": MINIMAL_PATH,
        "LANG": "C.UTF-8",
        "PIP_CONFIG_FILE": os.devnull,
        "PIP_NO_INDEX": "1",
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        "UV_NO_CONFIG": "1",
        "UV_OFFLINE": "1",
        "UV_PYTHON_DOWNLOADS": "never",
        **more,
    }


def pipx_install(folder: Path, wheel: Path, wheels: Path) -> Path:
    """``pipx install WHEEL`` (pip backend) with its own PIPX_HOME; the folder of the apps (``PIPX_BIN_DIR``)."""
    env = _offline(
        folder / "home",
        PIPX_HOME=str(folder / "pipx"),
        PIPX_BIN_DIR=str(folder / "bin"),
        PIPX_MAN_DIR=str(folder / "man"),
        PIPX_DISABLE_SHARED_LIBS_AUTO_UPGRADE="1",
    )
    (folder / "home").mkdir(parents=True)
    command = [sys.executable, "-m", "pipx", "install", "--backend", "pip", "--python", sys.executable]
    command += ["--pip-args", f"--no-index --find-links {wheels}", str(wheel)]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=INSTALL_TIMEOUT)
    assert done.returncode == 0, done.stdout + done.stderr
    return folder / "bin"


def uv_tool_install(folder: Path, wheel: Path, wheels: Path) -> Path:
    """``uv tool install WHEEL`` with its own tool folders and cache; the folder of the apps."""
    env = _offline(
        folder / "home",
        UV_TOOL_DIR=str(folder / "tools"),
        UV_TOOL_BIN_DIR=str(folder / "bin"),
        UV_CACHE_DIR=str(folder / "cache"),
    )
    (folder / "home").mkdir(parents=True)
    command = [find_uv_bin(), "tool", "install", "--no-index", "--find-links", str(wheels), "--python", sys.executable]
    done = subprocess.run([*command, str(wheel)], env=env, capture_output=True, text=True, timeout=INSTALL_TIMEOUT)
    assert done.returncode == 0, done.stdout + done.stderr
    return folder / "bin"


def pre_commit_only(folder: Path) -> Path:
    """A folder holding only ``pre-commit`` (the test environment's): what a user who installed pre-commit
    on its own has on PATH, with no ctxres beside it."""
    folder.mkdir(parents=True)
    (folder / "pre-commit").symlink_to(executable("pre-commit"))
    return folder


def tagged_source_repository(target: Path, tag: str) -> Path:
    """A bare git repository of this working tree (one commit, tagged ``tag``): what the remote pre-commit
    form points at once ctxres is published."""
    work = working_tree_copy(target.parent / f"{target.name}-work")
    env = {"HOME": str(target.parent), "PATH": MINIMAL_PATH, "GIT_CONFIG_NOSYSTEM": "1"}
    git(work, "init", "-q", "-b", "main", env=env)
    git(work, "add", "-A", env=env)
    git(work, "commit", "-q", "-m", f"ctxres {tag}", env=env)
    git(work, "tag", tag, env=env)
    git(target.parent, "clone", "-q", "--bare", str(work), str(target), env=env)
    return target


def user_project(root: Path, bin_folder: Path, extra_path: Path) -> Clone:
    """A repository with one live workflow (``NEW``), committed, used with ``bin_folder``'s commands and
    ``extra_path`` (pre-commit) on its PATH."""
    project = Clone(root, bin_folder)
    project.env["PATH"] = os.pathsep.join([str(bin_folder), str(extra_path), MINIMAL_PATH])
    project.git("init", "-q", "-b", "main")
    project.git("config", "commit.gpgsign", "false")
    project.write(NEW, new_workflow("2026-11-26T10:00:00Z"))
    project.git("add", "-A")
    project.git("commit", "-q", "-m", "a workflow")
    return project


def run_as_the_client(project: Clone, command: str, event: str, payload: dict[str, object]) -> dict[str, object]:
    """The hook ``command`` run as the client runs it (``sh -c`` in the project, the settings' env, the user's
    PATH: the folder of the installed apps, which pipx and uv tool put on it, and the system's); its answer,
    after checking that it exited 0 with nothing on stderr and nothing or one JSON object on stdout."""
    full = {"hook_event_name": event, "session_id": "s1", "cwd": str(project.root), **payload}
    env = {
        "PATH": os.pathsep.join([str(project.bin), MINIMAL_PATH]),
        "HOME": str(project.home),
        "CLAUDE_PROJECT_DIR": str(project.root),
        **settings_environment(project.root),
    }
    done = subprocess.run(
        ["sh", "-c", command], input=json.dumps(full), cwd=project.root, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0 and done.stderr == "", (event, command, done.returncode, done.stderr)
    answer = json.loads(done.stdout) if done.stdout.strip() else {}
    assert isinstance(answer, dict), done.stdout
    return answer
