"""The modules a measured start-up loads, read from real processes (docs/performance.md, "Start-up tricks").

Two start-ups are measured: a hook's (every event and the statusline, run as the ``ctxres-hook`` console
script runs them: the hook path) and those of the commands pre-commit runs on every commit (the check path):
``ctxres check`` (``--jobs 1`` on the corpus in every output format, as pre-commit and CI run it) and
``ctxres stale`` (the hook's entry on a staged workflow file, in every output format). Each process here
runs the console script's own entry point (``ctxres.hooks:cli``, ``ctxres.linters.cli:cli``) and, as it
ends (also through ``os._exit``), writes the names in ``sys.modules`` to a file: what the process loaded,
whatever imported it (``importlib`` too, which ``python -X importtime`` does not show).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ctxres.hook_events import HOOK_EVENTS
from ctxres.linters.reporters import FORMATS
from tests.conftest import CORPUS, FIXTURES, ROOT, assistant_line
from tests.git_sandbox import GitRepo
from tests.hooks.hook_project import (
    EVENT_FIELDS,
    SESSION,
    hook_env,
    monitor_state,
    payload,
    put_checkpoint,
    workspace,
)

# Runs ENTRY ("package.module:function") as its console script does, with the rest of argv; on the way out
# (a return, an exception, or os._exit) the loaded module names go to the file $MODULES_OUT names. Only os
# and sys are imported before the entry point: both are loaded at every interpreter start.
LAUNCHER = """\
import os, sys
out = os.environ.pop("MODULES_OUT")
def record():
    names = sorted(sys.modules)
    with open(out, "w", encoding="utf-8") as f:
        f.write("\\n".join(names))
leave = os._exit
def recorded_exit(code):
    record()
    leave(code)
os._exit = recorded_exit
module, function = sys.argv[1].split(":")
sys.argv = [sys.argv[1], *sys.argv[2:]]
try:
    __import__(module)
    code = getattr(sys.modules[module], function)()
finally:
    record()
sys.exit(code)
"""
HOOK_ENTRY = "ctxres.hooks:cli"
GATE = '\nquality_gates:\n  qg-2:\n    status: "PENDING"\n    threshold: 0.92\n'
GATE_PASSED = ('status: "PENDING"', 'status: "COMPLETE"')
CHECK_ENTRY = "ctxres.linters.cli:cli"
CHECK_FORMATS = tuple(FORMATS)


def loaded_modules(
    entry: str, args: list[str], out: Path, *, stdin: bytes = b"", env: dict[str, str], cwd: Path
) -> set[str]:
    """The names in ``sys.modules`` when a process of ``entry`` with ``args`` ended (it must exit 0 or 1)."""
    done = subprocess.run(
        [sys.executable, "-c", LAUNCHER, entry, *args],
        input=stdin,
        capture_output=True,
        env={**env, "MODULES_OUT": str(out)},
        cwd=cwd,
        timeout=120,
        check=False,
    )
    assert done.returncode in (0, 1), (args, done.stderr.decode(errors="replace"))
    assert b"Traceback" not in done.stderr, done.stderr.decode(errors="replace")
    return set(out.read_text("utf-8").split("\n"))


def _hook_runs(tmp: Path) -> list[tuple[list[str], dict[str, Any] | bytes, Path, dict[str, str]]]:
    """Each event on a project at a compaction point (a pending checkpoint, a transcript, the monitor's state),
    a write that moves the workflow's state, a configured project, the Nexus profile, and the statusline
    alone, beside a statusline of the user's, and as a segment."""
    (tmp / "proj").mkdir()
    project = workspace(tmp / "proj")
    transcript = project / "transcript.jsonl"
    transcript.write_text(assistant_line(150_000))
    monitor_state(project, transcript_path=str(transcript))
    put_checkpoint(project, 1)
    workflow = project / "ORCHESTRATION.yaml"
    workflow.write_text(workflow.read_text("utf-8") + GATE, "utf-8")
    env = hook_env(project)
    runs: list[tuple[list[str], dict[str, Any] | bytes, Path, dict[str, str]]] = []

    def event(name: str, root: Path = project, run_env: dict[str, str] = env, **fields: Any) -> None:
        runs.append(([name], payload(root, name, **{**EVENT_FIELDS.get(name, {}), **fields}), root, run_env))

    event("SessionStart", source="startup")
    event("UserPromptSubmit")
    event("PreCompact")
    event("SessionStart", source="compact")
    event("SessionStart", source="resume")
    event("UserPromptSubmit", prompt="and now?")
    written = {"tool_name": "Write", "tool_input": {"file_path": str(workflow), "content": "x"}, "tool_response": {}}
    event("PostToolUse", **written)
    runs.append((["PostToolUse"], b"", project, env))  # a step that edits the workflow comes before this run
    event("PostToolUse", **written)
    event("PostToolUse", tool_name="Bash", tool_input={"command": "ls"}, tool_response={})
    for spec in HOOK_EVENTS:  # every event of the table, also one added later, with the payload the doctor sends
        event(spec.name, **spec.harmless)

    (tmp / "configured").mkdir()
    configured = workspace(tmp / "configured")
    (configured / ".ctxres.toml").write_text('state-dir = ".state"\nstaleness-minutes = 45\n')
    event("UserPromptSubmit", configured, hook_env(configured))

    nexus = tmp / "nexus"
    shutil.copytree(CORPUS / "nexus", nexus)
    for path in nexus.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    (nexus / ".ctxres.toml").write_text('profile = "nexus"\n')
    (nexus / "transcript.jsonl").write_text(assistant_line(120_000))
    event("PreCompact", nexus, hook_env(nexus))
    event("SessionStart", nexus, hook_env(nexus), source="compact")

    home = tmp / "home"
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "settings.json").write_text(json.dumps({"statusLine": {"type": "command", "command": "true"}}))
    line_env = {**env, "HOME": str(home), "NO_COLOR": "1", "COLUMNS": "100"}
    document = {
        "session_id": SESSION,
        "transcript_path": str(transcript),
        "cwd": str(project),
        "workspace": {"current_dir": str(project), "project_dir": str(project)},
        "model": {"id": "claude-sonnet-4-5", "display_name": "Sonnet 4.5"},
        "context_window": {
            "total_input_tokens": 150_000,
            "total_output_tokens": 500,
            "context_window_size": 200_000,
            "current_usage": {"input_tokens": 1000, "output_tokens": 500, "cache_read_input_tokens": 149_000},
            "used_percentage": 75,
        },
    }
    for args in (["statusline"], ["statusline", "--beside", "echo theirs"], ["statusline", "--segment"]):
        runs.append((args, document, project, line_env))
    runs.append((["statusline"], document, nexus, {**line_env, "CLAUDE_PROJECT_DIR": str(nexus)}))
    return runs


def hook_processes(tmp: Path) -> list[frozenset[str]]:
    """What each hook process of ``_hook_runs`` loaded (every module name, the standard library's too)."""
    tmp.mkdir(parents=True, exist_ok=True)
    loaded: list[frozenset[str]] = []
    workflow = tmp / "proj" / "project" / "ORCHESTRATION.yaml"
    for number, (args, stdin, cwd, env) in enumerate(_hook_runs(tmp)):
        if stdin == b"":  # the workflow's state moves (a gate passes) and its section stays where it was
            workflow.write_text(workflow.read_text("utf-8").replace(*GATE_PASSED, 1), "utf-8")
            continue
        raw = stdin if isinstance(stdin, bytes) else json.dumps(stdin).encode()
        out = tmp / f"hook-{number}.txt"
        loaded.append(frozenset(loaded_modules(HOOK_ENTRY, args, out, stdin=raw, env=env, cwd=cwd)))
    return loaded


def check_processes(tmp: Path) -> list[frozenset[str]]:
    """What ``ctxres check --jobs 1`` loaded on the corpus, one process per output format."""
    tmp.mkdir(parents=True, exist_ok=True)
    return _in_every_format(["check", "--jobs", "1"], ["corpus"], tmp, os.environ, FIXTURES)


def stale_processes(tmp: Path) -> list[frozenset[str]]:
    """What ``ctxres stale --force-exclude FILE`` (the pre-commit hook's entry) loaded on a staged workflow file
    whose state moved without its resumption section, one process per output format (each exits 1)."""
    tmp.mkdir(parents=True, exist_ok=True)
    repo = GitRepo(tmp / "repo")
    workflow = repo.root / "ORCHESTRATION.yaml"
    workflow.write_text((FIXTURES / "rules" / "S005" / "good" / "ORCHESTRATION.yaml").read_text("utf-8") + GATE)
    repo.git("add", "-A")
    repo.git("commit", "-qm", "workflow")
    workflow.write_text(workflow.read_text("utf-8").replace(*GATE_PASSED, 1), "utf-8")
    repo.git("add", "-A")
    return _in_every_format(["stale", "--force-exclude"], ["ORCHESTRATION.yaml"], tmp, repo.env, repo.root)


def _in_every_format(
    command: list[str], paths: list[str], tmp: Path, env: Mapping[str, str], cwd: Path
) -> list[frozenset[str]]:
    """What ``ctxres COMMAND --output-format FORMAT PATHS`` loaded in ``cwd``, one process per output format,
    without the ``CTXRES_`` and ``CLAUDE_`` variables of ``env``."""
    kept = {name: value for name, value in env.items() if not name.startswith(("CTXRES_", "CLAUDE_"))}
    loaded: list[frozenset[str]] = []
    for fmt in CHECK_FORMATS:
        args = [*command, "--output-format", fmt, *paths]
        out = tmp / f"{command[0]}-{fmt}.txt"
        loaded.append(frozenset(loaded_modules(CHECK_ENTRY, args, out, env=kept, cwd=cwd)))
    return loaded


def ours(processes: list[frozenset[str]]) -> frozenset[str]:
    """The modules of this repository (``ctxres`` and below) that any of ``processes`` loaded."""
    return frozenset(name for loaded in processes for name in loaded if name.split(".")[0] == "ctxres")


def module_file(name: str) -> Path:
    """The source file of the ``ctxres`` module ``name`` in this repository (the rooms sit in their folders)."""
    parts = name.split(".")
    if len(parts) > 1 and parts[1] in ("hooks", "linters", "schemas"):
        base = ROOT.joinpath(*parts[1:])
    else:
        base = ROOT.joinpath("ctxres", *parts[1:])
    return base / "__init__.py" if base.is_dir() else base.with_suffix(".py")


def repository_modules() -> dict[str, Path]:
    """Every module of the package, by name: ``ctxres/``, ``hooks/``, ``linters/``, ``schemas/``."""
    found: dict[str, Path] = {}
    for room, prefix in (("ctxres", "ctxres"), ("hooks", "ctxres.hooks"), ("linters", "ctxres.linters")):
        found.update(_modules_in(ROOT / room, prefix))
    found.update(_modules_in(ROOT / "schemas", "ctxres.schemas"))
    return found


def _modules_in(folder: Path, prefix: str) -> dict[str, Path]:
    found: dict[str, Path] = {}
    for path in sorted(folder.rglob("*.py")):
        relative = path.relative_to(folder).with_suffix("").parts
        if relative[-1] == "__init__":
            relative = relative[:-1]
        found[".".join((prefix, *relative))] = path
    return found
