"""ctxres installed the way a team installs it, offline: a wheel built from this working tree (what the
README tells a team to keep under ``tools/ctxres/``), and virtual environments elsewhere on the disk
that install it with pip and no index.

The dependencies (PyYAML, jsonschema, pydantic, pre-commit) are those of the environment running the
tests: a new environment sees them through a ``.pth`` line naming a folder of links to that
environment's packages, ctxres's own left out, so that pip finds every dependency installed, needs no
index, and installs ctxres itself.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Callable
from pathlib import Path

import pytest

from .conftest import ROOT

OFFLINE = {"PIP_NO_INDEX": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}


def build_wheel(target: Path) -> Path:
    """The wheel of the working tree (its git-tracked and new files, as a clone would have them), built
    without network (``--no-build-isolation``: setuptools comes from the test dependencies)."""
    return _wheel_of(working_tree_copy(target / "source"), target / "wheels")


def build_release_wheel(target: Path, commit: str) -> Path:
    """The wheel of ``commit`` of this repository (a release: its history has it), built from a clone."""
    source = target / "source"
    subprocess.run(["git", "clone", "-q", "--no-checkout", str(ROOT), str(source)], check=True, capture_output=True)
    subprocess.run(["git", "checkout", "-q", commit], cwd=source, check=True, capture_output=True)
    return _wheel_of(source, target / "wheels")


def _wheel_of(source: Path, wheels: Path) -> Path:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(wheels),
            str(source),
        ],
        check=True,
        capture_output=True,
        timeout=300,
        env={**_env(), **OFFLINE},
    )
    (wheel,) = wheels.glob("ctxres-*.whl")
    return wheel


def shared_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel of the working tree, built once per test run and tree content, for every test module and
    every xdist worker that installs ctxres: under the run's temporary root (which the workers share), in a
    folder named by the digest of the tree's files; the first to ask builds it under a lock, the others wait
    for it and reuse it."""
    return _built_once(tmp_path_factory, f"ctxres-wheel-{tree_digest()[:16]}", build_wheel)


RELEASES = {"0.1.0": "72cde69"}
"""The commits of this repository that were released, by version (CHANGELOG.md's entries)."""


def released_wheel(tmp_path_factory: pytest.TempPathFactory, version: str = "0.1.0") -> Path:
    """The wheel of an earlier release, built from its commit of this repository's history (a clone of it
    checked out there), once per test run for every module and xdist worker, as :func:`shared_wheel`."""
    commit = RELEASES[version]
    return _built_once(tmp_path_factory, f"ctxres-wheel-{version}", lambda folder: build_release_wheel(folder, commit))


def _built_once(tmp_path_factory: pytest.TempPathFactory, name: str, build: Callable[[Path], Path]) -> Path:
    """The wheel in the folder ``name`` of the run's temporary root, ``build`` (given the folder) making it under
    a lock when it is not there yet."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # each worker's root is a folder of the run's root
    folder = base / name
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / "lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        built = sorted((folder / "wheels").glob("ctxres-*.whl"))
        return built[0] if built else build(folder)


def tree_digest() -> str:
    """The sha256 of the working tree as a clone would have it: each git-tracked or new file's name and bytes."""
    digest = hashlib.sha256()
    for name in _tree_files():
        digest.update(name.encode() + b"\0" + (ROOT / name).read_bytes() + b"\0")
    return digest.hexdigest()


def offline_venv(folder: Path, beside: Path | None = None) -> Path:
    """A virtual environment at ``folder`` (with pip, from virtualenv's own wheels) that sees this
    environment's packages but not its ctxres (through a folder of links made in ``beside``, by default
    ``folder``'s parent); its python."""
    subprocess.run(
        [sys.executable, "-m", "virtualenv", "-q", "--no-periodic-update", "-p", sys.executable, str(folder)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    python = folder / "bin" / "python"
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    Path(site, "ctxres_test_dependencies.pth").write_text(str(_dependencies(beside or folder.parent)) + "\n")
    return python


def _dependencies(beside: Path) -> Path:
    """A folder of links to this environment's packages, ctxres's own entries left out (pip must not see
    an installed ctxres, nor import the editable one)."""
    folder = beside / "ctxres-test-dependencies"
    if folder.is_dir():
        return folder
    folder.mkdir(parents=True)
    ours = Path(sysconfig.get_path("purelib"))
    for entry in ours.iterdir():
        if entry.name.lower().startswith(("ctxres", "__editable__.ctxres", "__editable___ctxres")):
            continue
        (folder / entry.name).symlink_to(entry)
    return folder


def install_wheel(python: Path, wheel: Path) -> None:
    """``pip install`` the wheel into the environment of ``python``, with no index."""
    subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--no-deps", "--ignore-installed", str(wheel)],
        check=True,
        capture_output=True,
        timeout=300,
        env={**_env(), **OFFLINE},
    )


def _env() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "VIRTUAL_ENV", "PYTHONPATH"))}


def working_tree_copy(source: Path) -> Path:
    """A copy of the working tree at ``source``: its git-tracked and new files, as a clone would have them
    (a symbolic link as a link: the fixture of an unreadable file is one that leads nowhere)."""
    for name in _tree_files(links=True):
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, source / name, follow_symlinks=False)
    return source


def _tree_files(*, links: bool = False) -> list[str]:
    """The working tree's git-tracked and new (not ignored) files, sorted, ``/``-separated; with ``links``,
    its symbolic links that lead nowhere too."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    return sorted(
        name
        for name in filter(None, (item.decode() for item in listed))
        if (ROOT / name).is_file() or (links and (ROOT / name).is_symlink())
    )
