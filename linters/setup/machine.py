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
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ctxres.claude_settings import HOOK_ENV, PROJECT_VENV_BIN

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


def activated_venv(folder: Path, environ: Mapping[str, str] | None = None) -> Path | None:
    """The virtual environment whose scripts folder ``folder`` is, when it is the one activated in this shell
    (``$VIRTUAL_ENV``, which ``activate`` sets while it puts the folder on the PATH): on the PATH only while it
    stays activated, in this shell. None for any other folder, a virtual environment's too: a PATH that holds
    one without activating it (a shell profile's ``export PATH=...``) holds it in every shell."""
    active = (os.environ if environ is None else environ).get("VIRTUAL_ENV")
    if not active:
        return None
    venv = Path(active)
    return venv if any(_same(folder, venv / scripts) for scripts in ("bin", "Scripts")) else None


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


@dataclass(frozen=True, slots=True)
class Location:
    """Where the committed commands find a script without a per-machine setting: ``place`` as a message names
    it; ``activated``: the virtual environment it is found in only while that one is activated."""

    place: str
    activated: Path | None = None

    def shown(self) -> str:
        """The place, with the condition it holds under (``the PATH, while VENV is activated``)."""
        return f"{self.place}, while {self.activated} is activated" if self.activated else self.place


def found_without_env(script: Path, project: Path, name: str) -> Location | None:
    """Where the committed commands find ``script`` with no per-machine setting: in the project's ``.venv``, or
    on the PATH (as ``command -v NAME`` finds it: a pipx or ``uv tool`` install, or any folder the PATH holds,
    a virtual environment's too; the one activated in this shell counts only while it is, which the location
    says); None when they do not. ``ctxres init`` and the doctor both ask this."""
    if _same(script, project_script(project, name)):
        return Location(PROJECT_VENV)
    on_path = shutil.which(name)
    if on_path is None or not _same(Path(on_path), script):
        return None
    return Location(ON_PATH, activated_venv(Path(on_path).parent))


def committed_lookup(project: Path, name: str, environ: Mapping[str, str]) -> tuple[Path, Location] | None:
    """What the committed command (:func:`ctxres.claude_settings.portable_command`) runs for ``name`` with
    ``environ`` (the settings files' ``env`` over this process's): ``$CTXRES_HOOK`` when it is executable, else
    the project's ``.venv``, else the PATH; and where it found it. None when it finds nothing."""
    given = environ.get(HOOK_ENV)
    if given and executable(Path(given)):
        return Path(given), Location(f"${HOOK_ENV}")
    found = resolve(project, name)
    if found is None:
        return None
    location = found_without_env(found, project, name)
    return found, location or Location(ON_PATH)


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
