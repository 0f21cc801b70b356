"""Where this machine's ctxres is, as the committed commands look for it, and which files may hold a path of it.

The committed hook and statusline commands (:func:`ctxres.claude_settings.portable_command`) find
``ctxres-hook`` themselves: ``$CTXRES_HOOK`` when it is executable, else the project's own
``.venv/bin/ctxres-hook`` (where uv and poetry put a project's environment), else the PATH. The
committed pre-commit entries (:mod:`ctxres.linters.commands._precommit_hooks`) find ``ctxres`` the same
way, from the repository's root. A path of one machine goes only into a file that git does not track:
``.claude/settings.local.json`` when git ignores it, or the user's own ``~/.claude/settings.json``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from ctxres.claude_settings import PROJECT_VENV_BIN

GIT_SECONDS = 10.0
PROJECT_VENV = "the project's .venv"
ON_PATH = "the PATH"


def _git(folder: Path, *args: str) -> subprocess.CompletedProcess[str] | None:
    try:
        return subprocess.run(
            ["git", "-C", str(folder), *args],
            capture_output=True,
            text=True,
            timeout=GIT_SECONDS,
            stdin=subprocess.DEVNULL,
            env={**os.environ, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"},
        )
    except (OSError, subprocess.TimeoutExpired):
        return None


def in_git(folder: Path) -> bool:
    done = _git(folder, "rev-parse", "--is-inside-work-tree")
    return done is not None and done.returncode == 0 and done.stdout.strip() == "true"


def is_tracked(path: Path) -> bool:
    """Whether git tracks ``path`` (``git ls-files --error-unmatch``); False outside a repository."""
    folder = path.parent if path.parent.is_dir() else path.parent.parent
    if not in_git(folder):
        return False
    done = _git(folder, "ls-files", "--error-unmatch", "--", str(path.absolute()))
    return done is not None and done.returncode == 0


def is_ignored(path: Path) -> bool:
    """Whether git ignores ``path`` (``git check-ignore``); True outside a repository (nothing can commit it)."""
    folder = path.parent if path.parent.is_dir() else path.parent.parent
    if not in_git(folder):
        return True
    done = _git(folder, "check-ignore", "-q", "--no-index", "--", str(path.absolute()))
    return done is not None and done.returncode == 0


def exclude_entry(path: Path) -> tuple[Path, str] | None:
    """The clone's own ignore list (``.git/info/exclude``: never committed) of the repository holding
    ``path``, and the line that ignores ``path`` there; None outside a repository."""
    folder = path.parent if path.parent.is_dir() else path.parent.parent
    done = _git(folder, "rev-parse", "--path-format=absolute", "--git-path", "info/exclude", "--show-toplevel")
    if done is None or done.returncode != 0 or len(done.stdout.split("\n")) < 2:
        return None
    exclude, top = done.stdout.split("\n")[:2]
    try:
        line = "/" + path.resolve().relative_to(Path(top).resolve()).as_posix()
    except ValueError:
        return None
    return Path(exclude), line


def is_venv_bin(folder: Path) -> bool:
    """Whether ``folder`` is the scripts folder of a virtual environment (on a PATH only while it is activated
    in one shell)."""
    return (folder.parent / "pyvenv.cfg").is_file()


def _same(a: Path, b: Path) -> bool:
    try:
        return a.samefile(b)
    except OSError:
        return False


def project_script(project: Path, name: str) -> Path:
    """The project's own ``.venv/bin/NAME``."""
    return project / PROJECT_VENV_BIN / name


def executable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def found_without_env(script: Path, project: Path, name: str) -> str | None:
    """Where the committed commands find ``script`` with no per-machine setting: in the project's ``.venv``,
    or on the PATH (a pipx or ``uv tool`` install; an activated virtual environment does not count: another
    shell, or Claude Code started elsewhere, does not have it); None when they do not."""
    if _same(script, project_script(project, name)):
        return PROJECT_VENV
    on_path = shutil.which(name)
    if on_path is not None and _same(Path(on_path), script) and not is_venv_bin(Path(on_path).parent):
        return ON_PATH
    return None


def resolve(project: Path, name: str, with_venv: bool = True) -> Path | None:
    """What a committed command runs for ``name`` in ``project``: the project's ``.venv/bin/NAME`` when it is
    executable (``with_venv``), else ``NAME`` on this process's PATH; None when neither has it."""
    local = project_script(project, name)
    if with_venv and executable(local):
        return local
    found = shutil.which(name)
    return Path(found) if found else None


def user_settings() -> Path:
    """The user's own Claude Code settings file (``~/.claude/settings.json``), outside every repository."""
    return Path.home() / ".claude" / "settings.json"


# --------------------------------------------------------------------------- the pre-commit entries

PRECOMMIT_COMMAND = "ctxres"
PRECOMMIT_NOT_FOUND = (
    f"ctxres not found ({PROJECT_VENV_BIN}/ctxres, PATH), so the ctxres checks did not run; install ctxres in the "
    "project .venv, or with pipx or uv tool"
)


def precommit_entry(args: str, name: str) -> str:
    """The committed ``entry:`` of a ``repo: local`` hook that runs ``ctxres ARGS``: pre-commit runs it from the
    repository's root, so it finds the project's ``.venv/bin/ctxres``, else ``ctxres`` on the PATH of ``git
    commit``; with neither it passes, saying that the checks did not run (shown with ``verbose: true``).
    pre-commit appends the file names, which ``"$@"`` passes on (``name`` is the script's ``$0``)."""
    script = (
        f'c={PROJECT_VENV_BIN}/ctxres; [ -x "$c" ] || c=ctxres; command -v "$c" >/dev/null || '
        f'{{ echo "{PRECOMMIT_NOT_FOUND}"; exit 0; }}; exec "$c" {args} "$@"'
    )
    return f"sh -c '{script}' {name}"


def is_precommit_launcher(entry: str) -> bool:
    """Whether a hook's ``entry:`` is one of :func:`precommit_entry`'s (it finds ctxres itself)."""
    return entry.startswith("sh -c ") and f"{PROJECT_VENV_BIN}/ctxres" in entry
