"""Progress on stderr for the history commands: in a terminal only, erased at the end.

`CTXRES_PROGRESS_AFTER=0` shows it from the start (by default a run must last two seconds first),
so no test depends on timing. With stderr on a pseudo-terminal (`pty.openpty()`), `audit-history`,
`stale --since` and `check --since` write "LABEL: done/total UNIT" lines rewritten with `\\r` and
erased before they exit; their stdout is the same as without a terminal. With stderr on a pipe,
nothing is written, whatever the variable says.
"""

from __future__ import annotations

import os
import pty
import subprocess
import sys

import pytest

from ..git_sandbox import GitRepo
from .demo_workflow import ADVANCED, ORCH, UPDATED

PATH = "ORCHESTRATION.yaml"


@pytest.fixture
def repo(git_repo: GitRepo) -> tuple[GitRepo, str]:
    repo = git_repo
    first = ""
    for index, text in enumerate([ORCH, ADVANCED, ORCH, UPDATED]):
        repo.stage(PATH, text)
        short = repo.commit(f"version {index}", date=f"2026-02-20T1{index}:00:00Z")
        first = first or short
    repo.env["CTXRES_PROGRESS_AFTER"] = "0"
    return repo, first


def _on_terminal(repo: GitRepo, *args: str) -> tuple[int, str, str]:
    """Run ctxres with stderr on a pseudo-terminal: exit status, stdout, what the terminal got."""
    main, secondary = pty.openpty()
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "ctxres.linters.cli", *args],
            cwd=repo.root,
            env=repo.env,
            stdout=subprocess.PIPE,
            stderr=secondary,
            stdin=subprocess.DEVNULL,
        )
        os.close(secondary)
        secondary = -1
        chunks = []
        while True:
            try:
                chunk = os.read(main, 4096)
            except OSError:  # EIO: the process closed its end
                break
            if not chunk:
                break
            chunks.append(chunk)
        stdout = proc.stdout.read() if proc.stdout else b""
        status = proc.wait(timeout=120)
    finally:
        if secondary >= 0:
            os.close(secondary)
        os.close(main)
    return status, stdout.decode("utf-8"), b"".join(chunks).decode("utf-8")


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (("audit-history", PATH), "audit-history: ORCHESTRATION.yaml: 3/3 commits"),
        (("stale", "--since", "FIRST"), "stale --since: 3/3 changes"),
        (("check", "--since", "FIRST", PATH), "check --since: 3/3 changes"),
    ],
)
def test_a_terminal_sees_progress_that_is_erased_at_the_end(
    repo: tuple[GitRepo, str], args: tuple[str, ...], line: str
) -> None:
    git_repo, first = repo
    args = tuple(first if arg == "FIRST" else arg for arg in args)
    status, stdout, terminal = _on_terminal(git_repo, *args)
    piped = git_repo.run(*args)
    assert status == piped.returncode == 1
    assert stdout == piped.stdout  # the report itself is unchanged
    assert piped.stderr == ""  # not a terminal: no progress at all, even with CTXRES_PROGRESS_AFTER=0
    assert f"\r{line}" in terminal
    assert line.replace("3/3", "0/3") in terminal  # shown from the first comparison on
    assert terminal.endswith("\r" + " " * len(line) + "\r")  # erased: the terminal is left as it was


def test_no_progress_before_the_delay(repo: tuple[GitRepo, str]) -> None:
    git_repo, _first = repo
    git_repo.env["CTXRES_PROGRESS_AFTER"] = "3600"
    status, _stdout, terminal = _on_terminal(git_repo, "audit-history", PATH)
    assert status == 1 and terminal == ""
