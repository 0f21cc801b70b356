"""The real `ctxres` command, run as a process of the interpreter running the tests.

One runner for every test that checks what a user of the command sees (exit code, stdout, stderr):
``python -m ctxres.linters.cli ARGS`` in ``cwd``, with an empty stdin, so that a command waiting for
input fails at once instead of hanging the suite.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

HANG_GUARD = 300  # seconds; turns a hang into a failure, nothing asserts on time


def ctxres(
    *args: str, cwd: Path | None = None, env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``ctxres ARGS`` as a process; ``env`` is its whole environment (this process's when None)."""
    return subprocess.run(
        [sys.executable, "-m", "ctxres.linters.cli", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        timeout=HANG_GUARD,
    )


MINIMAL_PATH = "/usr/bin:/bin"  # what a hook or a teammate's shell has: no virtual environment's bin folder


def minimal_path() -> dict[str, str]:
    """This process's environment with a PATH that does not hold the virtual environment's bin folder."""
    return {**os.environ, "PATH": MINIMAL_PATH}
