"""Drive the real Claude Code client (``claude -p``) offline against the stand-in API.

Interface (also used to record the replay fixtures)::

    from e2e.claude_client import CLAUDE_CODE_VERSION, ClaudeClient, ensure_client

    binary = ensure_client()                      # the pinned client, installed with npm when missing
    client = ClaudeClient(binary, home=tmp / "home", project=workspace, base_url=api.base_url)
    run = client.run("Start FEAT-015")            # one client process: claude -p PROMPT
    run = client.run("/compact", continue_=True)  # claude -p --continue /compact
    run.returncode, run.stdout, run.stderr, run.debug_log, client.transcripts()

The version is pinned here, in one place (:data:`CLAUDE_CODE_VERSION`); changing that line tries
another client. The cache folder is ``$CTXRES_CLAUDE_CACHE`` or ``<repository>/.cache/claude-code``;
the client is installed in ``<cache>/<version>`` with ``npm install --prefix``.

Each :class:`ClaudeClient` has its own HOME, whose ``.claude.json`` pre-answers onboarding, folder
trust and the API key, so the client asks nothing. Hooks come from the project's
``.claude/settings.json`` (or a plugin folder, ``plugin_dirs``). The environment is built from
nothing but what is listed here: no variable of the calling process leaks in, and ``PATH`` is the
one given (by default the folders of ``node`` and of the system tools, never a virtual
environment).
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

CLAUDE_CODE_VERSION = "2.1.328"
"""The pinned ``@anthropic-ai/claude-code`` version (the one place it is written)."""

PACKAGE = "@anthropic-ai/claude-code"
API_KEY = "sk-ant-api03-stand-in-key-for-offline-tests-0000000000AA"
REPOSITORY = Path(__file__).resolve().parent.parent
SYSTEM_PATH = ("/usr/local/bin", "/usr/bin", "/bin")
DEFAULT_TIMEOUT = 90.0


class ClientUnavailable(RuntimeError):
    """node or npm is missing, or the client cannot be installed: the message says which."""


def cache_folder() -> Path:
    """``$CTXRES_CLAUDE_CACHE`` or ``<repository>/.cache/claude-code``."""
    configured = os.environ.get("CTXRES_CLAUDE_CACHE")
    return Path(configured) if configured else REPOSITORY / ".cache" / "claude-code"


def client_path(version: str = CLAUDE_CODE_VERSION, cache: Path | None = None) -> Path:
    """Where the ``claude`` binary of ``version`` is (or will be) in the cache."""
    return (cache or cache_folder()) / version / "node_modules" / ".bin" / "claude"


def require_node() -> tuple[str, str]:
    """The paths of ``node`` and ``npm``; :class:`ClientUnavailable` naming what is missing."""
    node, npm = shutil.which("node"), shutil.which("npm")
    missing = [name for name, found in (("node", node), ("npm", npm)) if found is None]
    if missing or node is None or npm is None:
        raise ClientUnavailable(
            f"{' and '.join(missing)} not found on PATH: the end-to-end session runs the real Claude Code "
            f"client ({PACKAGE}@{CLAUDE_CODE_VERSION}), which npm installs and node runs; install Node.js 18+"
        )
    return node, npm


def ensure_client(version: str = CLAUDE_CODE_VERSION, cache: Path | None = None) -> Path:
    """The ``claude`` binary of ``version``, installed into the cache with npm when it is not there."""
    binary = client_path(version, cache)
    if not binary.exists():
        prefix = binary.parent.parent.parent
        prefix.mkdir(parents=True, exist_ok=True)
        with (prefix.parent / f".{version}.lock").open("w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # one installer at a time (pytest -n runs several processes)
            if not binary.exists():
                _install(binary, prefix, version)
    probe = subprocess.run([str(binary), "--version"], capture_output=True, text=True, timeout=60, check=False)
    if probe.returncode != 0 or version not in probe.stdout:
        raise ClientUnavailable(f"{binary} --version said {probe.stdout.strip() or probe.stderr.strip()!r}")
    return binary


def _install(binary: Path, prefix: Path, version: str) -> None:
    """``npm install --prefix PREFIX @anthropic-ai/claude-code@VERSION``."""
    _node, npm = require_node()
    done = subprocess.run(
        [npm, "install", "--prefix", str(prefix), "--no-audit", "--no-fund", f"{PACKAGE}@{version}"],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0 or not binary.exists():
        raise ClientUnavailable(
            f"npm install {PACKAGE}@{version} into {prefix} failed (exit {done.returncode}):\n"
            f"{done.stderr.strip()[-2000:]}"
        )


def default_path() -> list[str]:
    """A PATH with node's folder and the system tools only (no virtual environment)."""
    folders: list[str] = []
    node = shutil.which("node")
    if node is not None:
        folders.append(str(Path(node).parent))
    for folder in SYSTEM_PATH:
        if folder not in folders and Path(folder).is_dir():
            folders.append(folder)
    return folders


def make_home(home: Path, projects: list[Path], api_key: str = API_KEY) -> Path:
    """A fresh HOME whose ``.claude.json`` pre-answers onboarding, trust and the API key prompt."""
    home.mkdir(parents=True, exist_ok=True)
    config = {
        "hasCompletedOnboarding": True,
        "numStartups": 1,
        "autoUpdates": False,
        "customApiKeyResponses": {"approved": [api_key[-20:]], "rejected": []},
        "projects": {
            str(project): {"hasTrustDialogAccepted": True, "hasCompletedProjectOnboarding": True}
            for project in projects
        },
    }
    (home / ".claude.json").write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    return home


@dataclass
class ClientRun:
    """What one client process did."""

    args: list[str]
    returncode: int
    stdout: str
    stderr: str
    debug_log: str
    debug_file: Path


@dataclass
class ClaudeClient:
    """The client for one project, with its own HOME; each :meth:`run` is one ``claude -p`` process."""

    binary: Path
    home: Path
    project: Path
    base_url: str
    path: list[str] = field(default_factory=default_path)
    plugin_dirs: list[Path] = field(default_factory=list)
    extra_env: dict[str, str] = field(default_factory=dict)
    timeout: float = DEFAULT_TIMEOUT
    runs: list[ClientRun] = field(default_factory=list)

    def __post_init__(self) -> None:
        make_home(self.home, [self.project])

    def env(self) -> dict[str, str]:
        """The client's whole environment."""
        return {
            "HOME": str(self.home),
            "PATH": os.pathsep.join(self.path),
            "LANG": "C.UTF-8",
            "TZ": "UTC",
            "TMPDIR": os.environ.get("TMPDIR", "/tmp"),
            "ANTHROPIC_BASE_URL": self.base_url,
            "ANTHROPIC_API_KEY": API_KEY,
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_ERROR_REPORTING": "1",
            **self.extra_env,
        }

    def run(self, prompt: str, *, continue_: bool = False, extra_args: tuple[str, ...] = ()) -> ClientRun:
        """``claude -p PROMPT`` (``--continue`` the latest session) in the project; waits for it to end."""
        debug_file = self.home / f"debug-{len(self.runs) + 1:02d}.log"
        args = [str(self.binary), "-p", "--debug-file", str(debug_file)]
        if continue_:
            args.append("--continue")
        for folder in self.plugin_dirs:
            args += ["--plugin-dir", str(folder)]
        args += [*extra_args, prompt]
        try:
            done = subprocess.run(
                args,
                cwd=self.project,
                env=self.env(),
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                timeout=self.timeout,
                check=False,
            )
            returncode, stdout, stderr = done.returncode, done.stdout, done.stderr
        except subprocess.TimeoutExpired as exc:
            returncode = -1
            stdout = _decoded(exc.stdout)
            stderr = _decoded(exc.stderr) + f"\n(the client did not finish within {self.timeout:.0f} s)"
        log = debug_file.read_text("utf-8", "replace") if debug_file.exists() else ""
        result = ClientRun(args, returncode, stdout, stderr, log, debug_file)
        self.runs.append(result)
        return result

    def transcripts(self) -> list[Path]:
        """The session transcripts the client wrote under HOME/.claude/projects (oldest first)."""
        folder = self.home / ".claude" / "projects"
        found = [path for path in folder.glob("*/*.jsonl")] if folder.is_dir() else []
        return sorted(found, key=lambda path: path.stat().st_mtime_ns)


def _decoded(value: str | bytes | None) -> str:
    if value is None:
        return ""
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else value
