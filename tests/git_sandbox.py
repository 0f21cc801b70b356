"""Throw-away git repositories for the tests: `git()` for one command, `GitRepo` (a repository with a
fixed author and dated commits, where `ctxres` runs), its `Clone`, and `Sandbox` (a repository where the
real `ctxres` console script and the real pre-commit run)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import yaml

from .cli_process import HANG_GUARD, ctxres

ROOT = Path(__file__).resolve().parent.parent  # the repository

AUTHOR = {
    "GIT_AUTHOR_NAME": "Ada Tester",
    "GIT_AUTHOR_EMAIL": "ada@example.com",
    "GIT_COMMITTER_NAME": "Ada Tester",
    "GIT_COMMITTER_EMAIL": "ada@example.com",
}

# Who commits with `git()`, whatever the machine's git configuration says (and no signing).
IDENTITY = ("-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false")


def git(cwd: Path, *args: str, env: Mapping[str, str] | None = None) -> str:
    """``git ARGS`` in ``cwd`` as the committer of `IDENTITY`; its stdout. A failure raises, with git's stderr."""
    return subprocess.run(
        ["git", *IDENTITY, *args], cwd=cwd, env=env, capture_output=True, text=True, check=True, timeout=HANG_GUARD
    ).stdout


def executable(name: str) -> str:
    """A console script of the environment running the tests (``ctxres``, ``pre-commit``)."""
    found = Path(sys.executable).parent / name
    path = str(found) if found.exists() else shutil.which(name)
    if path is None:
        raise AssertionError(f"{name} is not installed: `pip install -e .[dev]` installs it")
    return path


class GitRepo:
    """A throw-away repository with a fixed author and no user or system git configuration."""

    KEPT_OUT: tuple[str, ...] = ("GIT_", "PRE_COMMIT")  # the variables of this process its commands do not see

    def __init__(self, root: Path) -> None:
        self.root = root
        home = root.parent / f"{root.name}-home"
        home.mkdir(exist_ok=True)
        self.env = {key: value for key, value in os.environ.items() if not key.startswith(self.KEPT_OUT)}
        self.env.update(AUTHOR, HOME=str(home), GIT_CONFIG_NOSYSTEM="1", PRE_COMMIT_HOME=str(home / "pre-commit"))
        root.mkdir(parents=True, exist_ok=True)
        self.git("init", "-q", "-b", "main")
        self.git("config", "commit.gpgsign", "false")

    def git(self, *args: str, date: str | None = None) -> str:
        env = dict(self.env)
        if date is not None:
            env.update(GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date)
        return git(self.root, *args, env=env)

    def write(self, rel: str, text: str) -> None:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")

    def read(self, rel: str) -> str:
        return (self.root / rel).read_text(encoding="utf-8")

    def stage(self, rel: str, text: str) -> None:
        self.write(rel, text)
        self.git("add", rel)

    def commit(self, message: str, date: str | None = None) -> str:
        """Commit the index; returns the short hash."""
        self.git("commit", "-q", "--allow-empty", "-m", message, date=date)
        return self.git("rev-parse", "--short", "HEAD").strip()

    def run(self, *args: str, cwd: Path | None = None, **env: str) -> subprocess.CompletedProcess[str]:
        """``ctxres ARGS`` in the repository (or ``cwd``), with its environment and ``env`` added."""
        return ctxres(*args, cwd=cwd or self.root, env={**self.env, **env})


class Clone(GitRepo):
    """A clone of ``source`` (``git clone ARGS``), run with the source's clean git environment."""

    def __init__(self, source: GitRepo, root: Path, *args: str) -> None:
        self.root = root
        self.env = source.env
        git(source.root, "clone", "-q", *args, f"file://{source.root}", str(root), env=self.env)


class Sandbox:
    """A repository with a fixed author, a HOME of its own (its global git ignore file included) and no
    system git configuration, so that only what a test writes decides what git ignores."""

    def __init__(self, root: Path, *, git: bool = True) -> None:
        self.root = root
        self.home = root.parent / f"{root.name}-home"
        self.home.mkdir(parents=True, exist_ok=True)
        self.env = {key: value for key, value in os.environ.items() if not key.startswith(("GIT_", "PRE_COMMIT"))}
        self.env.update(
            AUTHOR,
            HOME=str(self.home),
            XDG_CONFIG_HOME=str(self.home / ".config"),
            GIT_CONFIG_NOSYSTEM="1",
            PRE_COMMIT_HOME=str(self.home / "pre-commit"),
        )
        root.mkdir(parents=True, exist_ok=True)
        if git:
            self.git("init", "-q", "-b", "main")
            self.git("config", "commit.gpgsign", "false")

    def git(self, *args: str) -> str:
        return git(self.root, *args, env=self.env)

    def write(self, rel: str, text: str) -> Path:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path

    def ctxres(self, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [executable("ctxres"), *args], cwd=cwd or self.root, env=self.env, capture_output=True, text=True
        )

    def listed(self, *args: str, cwd: Path | None = None) -> list[str]:
        """The files `ctxres check --list-files` would check (as it shows them)."""
        result = self.ctxres("check", "--list-files", *args, cwd=cwd)
        assert result.returncode == 0, result.stderr
        return [line.split("\t")[0] for line in result.stdout.splitlines()]

    def use_shipped_hooks(self, *ids: str) -> None:
        """A `.pre-commit-config.yaml` with the hooks of this repository's `.pre-commit-hooks.yaml` as they
        are shipped (entry, files, pass_filenames, ...), run from this environment's `ctxres` (a local,
        `language: system` repository: no network), committed."""
        shipped = {hook["id"]: hook for hook in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text("utf-8"))}
        hooks = []
        for hook_id in ids:
            hook = dict(shipped[hook_id])
            command, _, arguments = hook["entry"].partition(" ")
            assert command == "ctxres", hook["entry"]
            hook["entry"] = f"{executable('ctxres')} {arguments}".strip()
            hook["language"] = "system"
            hooks.append({key: value for key, value in hook.items() if key != "minimum_pre_commit_version"})
        config = {"repos": [{"repo": "local", "hooks": hooks}]}
        self.write(".pre-commit-config.yaml", yaml.safe_dump(config, sort_keys=False))
        self.git("add", ".pre-commit-config.yaml")
        self.git("commit", "-q", "-m", "pre-commit configuration")

    def pre_commit(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [executable("pre-commit"), *args], cwd=self.root, env=self.env, capture_output=True, text=True
        )

    def commit(self, message: str) -> subprocess.CompletedProcess[str]:
        """``git commit`` of the index, its hooks (pre-commit, once installed) included."""
        return subprocess.run(
            ["git", "commit", "-q", "-m", message], cwd=self.root, env=self.env, capture_output=True, text=True
        )
