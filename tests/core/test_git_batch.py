"""``ctxres.git.run_batch`` gives git its input and takes its errors through anonymous files (in
memory on Linux, without importing ``tempfile``), and reads its output at once."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ctxres import git


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e", "GIT_COMMITTER_NAME": "t"}
    env["GIT_COMMITTER_EMAIL"] = "t@e"
    for args in (["init", "-q", "-b", "main"], ["commit", "-q", "--allow-empty", "-m", "one"]):
        subprocess.run(["git", *args], cwd=tmp_path, env=env, check=True, capture_output=True)
    return tmp_path


def test_input_and_output(repo: Path) -> None:
    head = git.run(["rev-parse", "HEAD"], repo).decode().strip()
    out = git.run_batch(["cat-file", "--batch-check"], repo, f"{head}\nnosuch\n".encode())
    assert out.decode().splitlines() == [
        f"{head} commit {len(git.run(['cat-file', 'commit', head], repo))}",
        "nosuch missing",
    ]


def test_the_first_line_of_the_errors_is_the_message(repo: Path) -> None:
    with pytest.raises(git.GitError, match="nosuchrev"):
        git.run_batch(["log", "--end-of-options", "nosuchrev"], repo, b"")


@pytest.mark.skipif(not hasattr(os, "memfd_create"), reason="anonymous files in memory: Linux")
def test_tempfile_is_not_imported(repo: Path) -> None:
    code = (
        "import sys\nfrom pathlib import Path\nfrom ctxres import git\n"
        "git.run_batch(['cat-file', '--batch'], Path(sys.argv[1]), b'HEAD\\n')\n"
        "print('tempfile' in sys.modules)\n"
    )
    result = subprocess.run([sys.executable, "-c", code, str(repo)], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"
