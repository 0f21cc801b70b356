"""A PROJ-001 workspace, its hooks, and one client session against the stand-in API.

``Session`` bundles what a scenario needs: the project (a copy of the PROJ-001 workspace), the
stand-in API with its script, and the client with its own HOME. ``session.run(prompt)`` is one
``claude -p`` process (``--continue`` after the first run); the request log, the debug logs and
the project's files are there to assert on afterwards.
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from e2e.claude_client import ClaudeClient, ClientRun, default_path
from e2e.stand_in_api import Request, StandInAPI, Turn, Usage

WORKSPACE = Path(__file__).resolve().parent / "workspace"
"""PROJ-001 at the start of FEAT-015 (the workspace of the replay fixture ``a-feat015-single-session``
as first written): the workflow file, its plan, an empty checkpoint folder; no hook settings."""
WORKFLOW = "projects/PROJ-001-oss-release/ORCHESTRATION.yaml"
WORKFLOW_ID = "feat015-licmig-20260217-001"

# Usage figures of an answer, and the fill the client shows after it (its `N% context used`):
# T = input + cache_creation + cache_read + output, N = 100 - max(0, round((180,000 - T) / 180,000 * 100)).
# LOW 8%, WARNING 72%, CRITICAL 89%, COMPACTION 95%. The first three are in the same tier with the older
# ctxres figure, (input + cache) / 200,000 (7.5%, 65%, 80%); COMPACTION is not (85.5%).
LOW_USAGE = Usage(input_tokens=3_000, cache_read_input_tokens=12_000, output_tokens=200)
WARNING_USAGE = Usage(
    input_tokens=2_000, cache_creation_input_tokens=8_000, cache_read_input_tokens=120_000, output_tokens=500
)
CRITICAL_USAGE = Usage(
    input_tokens=3_000, cache_creation_input_tokens=7_000, cache_read_input_tokens=150_000, output_tokens=500
)
COMPACTION_USAGE = Usage(input_tokens=1_000, cache_read_input_tokens=170_000, output_tokens=500)


def client_percent(usage: Usage, window: int = 200_000, reserve: int = 20_000) -> int:
    """The ``N% context used`` the client shows after an answer with ``usage``."""
    usable = window - reserve
    return 100 - max(0, _js_round((usable - usage.context_tokens) / usable * 100))


def _js_round(value: float) -> int:
    """JavaScript's Math.round (halves go up)."""
    import math

    return math.floor(value + 0.5)


def bin_folder() -> Path:
    """The folder of the running interpreter's scripts (``ctxres``, ``ctxres-hook``)."""
    return Path(sys.executable).parent


def tool(name: str) -> str:
    """The absolute path of ``ctxres`` or ``ctxres-hook`` installed with this interpreter."""
    found = bin_folder() / name
    if found.exists():
        return str(found)
    located = shutil.which(name)
    if located is None:
        raise FileNotFoundError(f"{name} is not installed next to {sys.executable} nor on PATH: pip install -e .")
    return located


def copy_workspace(target: Path) -> Path:
    """A copy of the PROJ-001 workspace at ``target`` (no git, no hook settings), its resumption section last
    updated an hour ago: a workflow in progress (SessionStart gives a workflow whose state is days old only a
    few lines), whose section is older than the session and the 30-minute window, as before."""
    import datetime as dt

    shutil.copytree(WORKSPACE, target)
    workflow = target / WORKFLOW
    hour_ago = (dt.datetime.now(dt.timezone.utc) - dt.timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    text = workflow.read_text("utf-8")
    assert text.count('updated_at: "2026-02-17T09:00:00Z"') == 1
    workflow.write_text(text.replace('updated_at: "2026-02-17T09:00:00Z"', f'updated_at: "{hour_ago}"'), "utf-8")
    return target


def ctxres(*args: str, cwd: Path) -> str:
    """Run the installed ``ctxres`` command; its stdout (an error shows its stderr)."""
    done = subprocess.run([tool("ctxres"), *args], cwd=cwd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"ctxres {' '.join(args)} exited {done.returncode}: {done.stderr.strip()}")
    return done.stdout


def install_hooks(project: Path, command: str | None = None) -> Path:
    """``ctxres install-hooks --command <the absolute ctxres-hook, or the command given>`` into the
    project's ``.claude/settings.json`` (the portable form ``ctxres init`` writes is run by
    ``test_routes.py``)."""
    settings = project / ".claude" / "settings.json"
    ctxres("install-hooks", "--settings", str(settings), "--command", command or tool("ctxres-hook"), cwd=project)
    return settings


@dataclass
class Session:
    """One project, one stand-in API, one client (one HOME); ``run`` is one client process."""

    project: Path
    api: StandInAPI
    client: ClaudeClient
    permission_mode: str = "acceptEdits"
    runs: list[ClientRun] = field(default_factory=list)
    run_requests: list[list[Request]] = field(default_factory=list)

    def run(self, prompt: str, *turns: Turn, continue_: bool | None = None) -> ClientRun:
        """Script ``turns``, then ``claude -p PROMPT`` (``--continue`` from the second run on)."""
        self.api.add(*turns)
        first = self.api.requests[-1].index + 1 if self.api.requests else 0
        cont = bool(self.runs) if continue_ is None else continue_
        result = self.client.run(prompt, continue_=cont, extra_args=("--permission-mode", self.permission_mode))
        self.runs.append(result)
        self.run_requests.append([r for r in self.api.requests if r.index >= first])
        assert result.returncode == 0, f"claude -p {prompt!r} exited {result.returncode}: {result.stderr[-2000:]}"
        return result

    def requests_of(self, run: int) -> list[Request]:
        """The requests made during the ``run``-th client process (0-based; -1 is the latest)."""
        return self.run_requests[run]

    @property
    def debug_log(self) -> str:
        """The debug logs of every run, one after the other."""
        return "\n".join(run.debug_log for run in self.runs)

    @property
    def stderr(self) -> str:
        return "\n".join(run.stderr for run in self.runs)


@contextlib.contextmanager
def session(
    root: Path,
    binary: Path,
    *,
    project: Path | None = None,
    path: list[str] | None = None,
    plugin_dirs: list[Path] | None = None,
) -> Iterator[Session]:
    """A :class:`Session` in ``root`` (the project defaults to a copy of the workspace with the hooks
    installed by ``ctxres install-hooks``)."""
    if project is None:
        project = copy_workspace(root / "project")
        install_hooks(project)
    with StandInAPI(log_path=root / "requests.jsonl") as api:
        client = ClaudeClient(
            binary,
            home=root / "home",
            project=project,
            base_url=api.base_url,
            path=path if path is not None else default_path(),
            plugin_dirs=list(plugin_dirs or []),
        )
        yield Session(project, api, client)
