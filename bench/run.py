#!/usr/bin/env python3
"""Benchmark ctxres against baselines measured in the same run, and print one Markdown table.

Every row is a scenario, its median, a baseline measured in the same run, the baseline's median,
their ratio, and its goal (if any; docs/performance.md, "What is measured, and why") with whether it is met:

* Hooks: ``ctxres-hook EVENT`` on a PROJ-001 workspace at its QG-2 point (six realistic payloads
  over the four events; the prompt also with a ``.ctxres.toml``, and beside 34 more workflow files
  of the corpus's shapes, where the live workflow is chosen among 35 on every prompt), each run
  alternating with the minimal hook of its event (minimal_hooks.py:
  the same file I/O in a few lines of stdlib Python, on the hook's interpreter, in its own copy of
  the workspace) and with ``python -c pass`` (in a note). Goals: UserPromptSubmit and PostToolUse
  ≤ 1.15× the minimal hook, PreCompact and SessionStart ≤ 1.3×.
* Statusline: ``ctxres-hook statusline`` with the client's JSON on the same workspace (and beside 34 more
  workflow files), alternating with the minimal statusline (minimal_statusline.py: read the JSON, walk for
  the workflow file, parse it with libyaml, print a line). Goal: ≤ 1.5× the minimal statusline.
* Fill estimation: ``ctxres.transcript.read_fill`` in-process on 1 MB / 100 MB / 1 GB transcripts
  (sparse files, deleted after; see transcript_bench.py), against a plain read of the last 64 KiB
  of the same file and against the 1 MB case (goal: the same cost).
* Timeline: the transcript reader of ``ctxres timeline`` in-process on generated 10 MB and 100 MB
  transcripts (timeline_bench.py) against ``for line in f: json.loads(line)`` on the same file (goal: ≤ 1.5×),
  with peak memory (``ru_maxrss`` of a child process) at each size.
* Conformance: ``ctxres check CORPUS`` against check-jsonschema validating the same files with the
  exported schemas (one process per schema; files it cannot read are left out and counted). When
  check-jsonschema is not installed the row says so.
* Check: ``ctxres check --jobs 1`` on the corpus and on a synthetic monorepo of 1,000 / 5,000 / 10,000
  artifacts (check_bench.py, generated from the corpus shapes) against the floor (reading the same files
  and parsing them with the C parsers, one process; goal: ≤ 2×), ``--jobs`` = the cores against
  ``--jobs 1`` on the largest tree (goal ≤ 0.75×), with peak memory (``ru_maxrss``) at each size.
* History: ``ctxres audit-history`` on the two real lineages (fixtures/corpus/history) and on
  synthetic 1,000- and 10,000-commit histories (history_bench.py, built with git fast-import and
  cached), ``check --since`` and ``stale --since`` on the 10,000-commit one, each against the git
  I/O it cannot avoid: ``git log --follow`` of the file plus ``git cat-file --batch`` of every
  version (goal: ≤ 10×); and ``ctxres audit-history`` with no FILE on a repository of 50 workflows ×
  2,000 commits (history_bench.build_monorepo) against ``git log -p -M`` of its workflow files (goal: ≤ 10×).

Processes are timed whole (wall time, time.perf_counter): the median of ``--repeat`` runs after one
warm-up. ``--only SECTION`` (hooks, statusline, fill, timeline, conformance, check, history, repository-audit;
repeatable) runs only those sections. ``--quick`` uses small inputs (a smoke run); ``--markdown FILE``
also writes the table.
Nothing here asserts a time: the numbers are for reading, not for failing a build.

Standard library only (fill estimation imports ctxres): ``python bench/run.py`` with ctxres
installed into that interpreter; ``nox -s bench`` installs ctxres and check-jsonschema and runs it.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# The byte-exact copy of the real corpus kept in the repository (tests/rules/test_corpus.py).
DEFAULT_CORPUS = ROOT / "fixtures" / "corpus"
SCHEMA_DIR = ROOT / "schemas"

# artifact kind (as `ctxres check --list-files` prints it) -> the exported schema check-jsonschema uses.
# Orchestration files are validated whole with `orchestration` (its `resumption` key is anyOf v1/v2).
SCHEMA_FOR_KIND = {
    "orchestration": "orchestration",
    "checkpoint": "checkpoint",  # `checkpoint-peer` for the peer layout, see _schema_for
    "monitor-state": "monitor-state",
    "precompact-state": "precompact-state",
    "task-graph": "task-graph",
}
# kinds check-jsonschema cannot read at all, and why
UNREADABLE_KINDS = {
    "resume-context": "YAML front matter in Markdown",
    "event-log": "JSON Lines",
}
TEMPLATES = ROOT / "fixtures" / "templates"
FULL_FILL_SIZES = (1_000_000, 100_000_000, 1_000_000_000)
QUICK_FILL_SIZES = (100_000, 1_000_000, 10_000_000)
FULL_COMMITS, QUICK_COMMITS = 1000, 40
# (label, event, payload builder key): each measured on a PROJ-001 workspace at the QG-2 point.
HOOK_SCENARIOS = (
    ("73% fill, injects <context-monitor>", "UserPromptSubmit", "prompt"),
    ("the same, in a project with a `.ctxres.toml`", "UserPromptSubmit", "prompt-configured"),
    ("the same, in a project with 35 workflow files (3 live)", "UserPromptSubmit", "prompt-many"),
    ("Edit of ORCHESTRATION.yaml", "PostToolUse", "edit-orchestration"),
    ("Bash, not a workflow file", "PostToolUse", "bash"),
    ("auto, writes a checkpoint", "PreCompact", "precompact"),
    ("compact, compaction alert", "SessionStart", "compact"),
    ("startup, resumption prompt", "SessionStart", "startup"),
)


# what --only selects
SECTIONS = ("hooks", "statusline", "fill", "timeline", "conformance", "check", "history", "repository-audit")
STATUSLINE_GOAL = 1.5  # the statusline runs after every assistant message: at most 1.5× the minimal statusline


class BenchError(Exception):
    """A tool is missing or a command failed in a way that makes the numbers meaningless."""


def _tool(name: str) -> str | None:
    """``name`` from this interpreter's scripts folder, else from PATH."""
    scripts = Path(sys.executable).parent
    for candidate in (scripts / name, scripts / f"{name}.exe"):
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return shutil.which(name)


def _script_interpreter(script: str) -> str:
    """The interpreter a console script runs on (its shebang), else this one."""
    try:
        with open(script, "rb") as handle:
            first = handle.readline(4096)
    except OSError:
        return sys.executable
    if first.startswith(b"#!"):
        parts = first[2:].decode("utf-8", "replace").split()
        if len(parts) == 1 and Path(parts[0]).is_file():
            return parts[0]
    return sys.executable


def _minimal_command(tool: str, module: str) -> list[str]:
    """The minimal baseline ``bench/<module>.py`` on the interpreter of the console script ``tool``, started as
    a console script starts ctxres: a ``-c`` line that imports it from its bytecode and calls ``main()``."""
    interpreter = _script_interpreter(tool)
    here = Path(__file__).resolve().parent
    _run([interpreter, "-m", "py_compile", str(here / f"{module}.py")])  # loaded from bytecode, like ctxres
    return [interpreter, "-c", f"import sys; sys.path.insert(0, {str(here)!r}); from {module} import main; main()"]


def _run(
    cmd: Sequence[str],
    *,
    ok: tuple[int, ...] = (0,),
    stdin: bytes | None = None,
    cwd: Path | None = None,
    capture: bool = False,
    env: dict[str, str] | None = None,
) -> tuple[float, bytes]:
    """Run one process (with ``env`` added to this one's environment); return its wall time and (when
    ``capture``) its stdout."""
    start = time.perf_counter()
    done = subprocess.run(
        list(cmd),
        input=stdin if stdin is not None else b"",
        stdout=subprocess.PIPE if capture else subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        cwd=cwd,
        check=False,
        env={**os.environ, **env} if env is not None else None,
    )
    elapsed = time.perf_counter() - start
    if done.returncode not in ok:
        detail = done.stderr.decode("utf-8", "replace").strip()[-2000:]
        raise BenchError(f"{' '.join(cmd)} exited {done.returncode}\n{detail}")
    return elapsed, done.stdout or b""


def _median_time(commands: Sequence[Sequence[str]], repeat: int, **kwargs: Any) -> float:
    """Median over ``repeat`` runs (after one warm-up) of the time to run ``commands`` in sequence."""
    samples = []
    for attempt in range(repeat + 1):
        total = sum(_run(cmd, **kwargs)[0] for cmd in commands)
        if attempt:  # the first run is the warm-up
            samples.append(total)
    return statistics.median(samples)


def _alternating_medians(commands: Sequence[Sequence[str]], repeat: int, **kwargs: Any) -> list[float]:
    """The median of each command over ``repeat`` rounds (after one warm-up round), the commands run in turn in
    each round, so that a change of the machine's load falls on all of them."""
    samples: list[list[float]] = [[] for _ in commands]
    for attempt in range(repeat + 1):
        for index, cmd in enumerate(commands):
            elapsed = _run(cmd, **kwargs)[0]
            if attempt:
                samples[index].append(elapsed)
    return [statistics.median(times) for times in samples]


def _yaml_start(ctxres: str, repeat: int) -> float:
    """``python -c 'import yaml'`` on ctxres's interpreter: the start-up any Python history audit pays."""
    return _median_time([[_script_interpreter(ctxres), "-c", "import yaml"]], repeat)


def _schema_for(path: Path, kind: str) -> str | None:
    schema = SCHEMA_FOR_KIND.get(kind)
    if schema == "checkpoint":
        try:
            data = json.loads(path.read_text("utf-8"))
        except (OSError, ValueError):
            return schema  # check-jsonschema's parse probe decides whether it stays
        if isinstance(data, dict) and "checkpoint_id" in data and "event_id" not in data:
            return "checkpoint-peer"
    return schema


def _list_artifacts(ctxres: str, corpus: Path) -> list[tuple[Path, str]]:
    _, out = _run([ctxres, "check", "--list-files", str(corpus)], cwd=ROOT, capture=True)
    artifacts = []
    for line in out.decode("utf-8").splitlines():
        if "\t" not in line:
            continue
        shown, kind = line.rsplit("\t", 1)
        path = Path(shown)
        artifacts.append((path if path.is_absolute() else (ROOT / path).resolve(), kind.strip()))
    return artifacts


def _cjs_groups(cjs: str, artifacts: list[tuple[Path, str]]) -> tuple[dict[str, list[Path]], dict[str, int]]:
    """Files per schema that check-jsonschema can parse, and the count left out per reason."""
    groups: dict[str, list[Path]] = {}
    skipped: dict[str, int] = {}
    for path, kind in artifacts:
        schema = _schema_for(path, kind)
        if schema is None:
            reason = UNREADABLE_KINDS.get(kind, f"no exported schema for kind {kind!r}")
            skipped[reason] = skipped.get(reason, 0) + 1
        else:
            groups.setdefault(schema, []).append(path)
    # One probe per schema: drop the files check-jsonschema cannot parse.
    for schema, files in list(groups.items()):
        schemafile = SCHEMA_DIR / f"{schema}.schema.json"
        if not schemafile.is_file():
            raise BenchError(f"{schemafile} is missing: run `ctxres schema export`")
        cmd = [cjs, "--schemafile", str(schemafile), "--output-format", "json", *map(str, files)]
        _, out = _run(cmd, ok=(0, 1), capture=True)
        try:
            result = json.loads(out.decode("utf-8"))
        except ValueError as exc:
            raise BenchError(f"check-jsonschema printed no JSON report for {schema}: {exc}") from exc
        unparsable = {str(Path(e["filename"]).resolve()) for e in result.get("parse_errors", []) if "filename" in e}
        kept = [f for f in files if str(f.resolve()) not in unparsable]
        if len(kept) != len(files):
            reason = "check-jsonschema cannot parse"
            skipped[reason] = skipped.get(reason, 0) + len(files) - len(kept)
        if kept:
            groups[schema] = kept
        else:
            del groups[schema]
    return groups, skipped


def _version(cmd: Sequence[str]) -> str:
    try:
        _, out = _run(cmd, capture=True)
    except (BenchError, OSError):
        return "?"
    return out.decode("utf-8", "replace").strip().splitlines()[-1] if out.strip() else "?"


@dataclass
class Row:
    """One line of the table: a scenario against a baseline measured in the same run."""

    section: str
    scenario: str
    seconds: float | None
    baseline: str
    baseline_seconds: float | None
    goal: str = "-"
    met: bool | None = None

    @property
    def ratio(self) -> float | None:
        if self.seconds is None or not self.baseline_seconds:
            return None
        return self.seconds / self.baseline_seconds


@dataclass
class Settings:
    corpus: Path
    repeat: int
    quick: bool
    check_jsonschema: str | None  # None: look for it
    cache: Path
    only: tuple[str, ...] = ()  # the sections to run (SECTIONS); () runs them all
    commits: int = field(init=False)
    fill_sizes: tuple[int, ...] = field(init=False)
    fill_repeat: int = field(init=False)
    audit_repeat: int = field(init=False)

    def __post_init__(self) -> None:
        self.commits = QUICK_COMMITS if self.quick else FULL_COMMITS
        self.fill_sizes = QUICK_FILL_SIZES if self.quick else FULL_FILL_SIZES
        self.fill_repeat = max(20, 10 * self.repeat)
        self.audit_repeat = max(1, min(self.repeat, 3))


def _ratio_goal(limit: float, what: str) -> tuple[str, Callable[[Row], bool | None]]:
    def met(row: Row) -> bool | None:
        return None if row.ratio is None else row.ratio <= limit

    return f"≤ {limit:g}× {what}", met


# Against the minimal hook of the event (the same I/O in the fewest lines of stdlib Python, minimal_hooks.py):
# the prompt and tool hooks run on every prompt and every write, the compaction hooks also render templates.
HOOK_GOALS = {
    "UserPromptSubmit": _ratio_goal(1.15, "the minimal hook"),
    "PostToolUse": _ratio_goal(1.15, "the minimal hook"),
    "PreCompact": _ratio_goal(1.3, "the minimal hook"),
    "SessionStart": _ratio_goal(1.3, "the minimal hook"),
}
# Reading the transcript must cost the same for 1 MB and 1 GB (1.5×: timer noise on ~0.1 ms).
FILL_GOAL = _ratio_goal(1.5, "the smallest case")
# The timeline reads a whole transcript once: at most 1.5x reading it line by line with json.loads.
TIMELINE_GOAL = _ratio_goal(1.5, "the `json.loads` loop")
FULL_TIMELINE_SIZES = (10_000_000, 100_000_000)
QUICK_TIMELINE_SIZES = (1_000_000, 10_000_000)


def machine_info() -> dict[str, Any]:
    cpu = platform.processor() or platform.machine()
    memory = None
    try:
        for line in Path("/proc/cpuinfo").read_text("utf-8", "replace").splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
        for line in Path("/proc/meminfo").read_text("utf-8", "replace").splitlines():
            if line.startswith("MemTotal:"):
                memory = int(line.split()[1]) * 1024
                break
    except OSError:
        pass
    if memory is None and hasattr(os, "sysconf"):
        try:
            memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        except (ValueError, OSError):
            memory = None
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "memory_gib": round(memory / 2**30, 1) if memory else None,
        "os": platform.platform(),
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "load": _load(),
    }


def _load() -> str:
    try:
        return " / ".join(f"{value:.2f}" for value in os.getloadavg())
    except (AttributeError, OSError):
        return "unknown"


# Run on the hooks' interpreter: how many of the installed ctxres modules have up-to-date bytecode.
_BYTECODE_PROBE = """
import importlib, importlib.util, json, os
files = set()
for name in ("ctxres", "ctxres.hooks", "ctxres.linters", "ctxres.schemas"):
    for top in importlib.import_module(name).__path__:
        for folder, subfolders, entries in os.walk(top):
            subfolders[:] = [s for s in subfolders if not s.startswith((".", "__"))]
            files.update(os.path.join(folder, e) for e in entries if e.endswith(".py"))
cached = 0
for source in files:
    pyc = importlib.util.cache_from_source(source)
    if os.path.exists(pyc) and os.path.getmtime(pyc) >= os.path.getmtime(source):
        cached += 1
print(json.dumps({"cached": cached, "modules": len(files), "location": importlib.import_module("ctxres").__path__[0]}))
"""


def bytecode_info(interpreter: str) -> dict[str, Any]:
    try:
        # from a neutral folder: run from the repository, `-c` would import the source tree's ctxres
        _, out = _run([interpreter, "-c", _BYTECODE_PROBE], capture=True, cwd=Path(tempfile.gettempdir()))
        info: dict[str, Any] = json.loads(out)
    except (BenchError, OSError, ValueError) as exc:
        return {"error": str(exc).splitlines()[0]}
    info["dont_write_bytecode"] = os.environ.get("PYTHONDONTWRITEBYTECODE", "")
    return info


def _git_commit() -> str:
    try:
        _, out = _run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture=True)
        _, dirty = _run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT, capture=True)
    except (BenchError, OSError):
        return "unknown (not a git checkout)"
    commit = out.decode().strip()
    return f"{commit} + uncommitted changes" if dirty.strip() else commit


def measure_check(ctxres: str, cjs: str | None, corpus: Path, repeat: int) -> tuple[list[Row], list[str]]:
    """``ctxres check`` on the corpus against check-jsonschema on the files it can read."""
    check_cmd = [ctxres, "check", str(corpus), "--exit-zero", "--output-format", "json"]
    _, out = _run(check_cmd, cwd=ROOT, capture=True)
    artifacts = _list_artifacts(ctxres, corpus)
    try:
        files_checked = int(json.loads(out)["summary"]["files_checked"])
    except (ValueError, KeyError, TypeError):
        files_checked = len(artifacts)
    ours = _median_time([check_cmd], repeat, cwd=ROOT)
    scenario = f"`ctxres check` on the corpus ({files_checked} files, every rule)"
    if cjs is None:
        row = Row("Conformance", scenario, ours, "check-jsonschema: not installed", None)
        return [row], ["check-jsonschema is not installed: `pip install check-jsonschema` (nox -s bench installs it)."]
    groups, skipped = _cjs_groups(cjs, artifacts)
    included = sum(len(files) for files in groups.values())
    commands = [
        [cjs, "--schemafile", str(SCHEMA_DIR / f"{schema}.schema.json"), *map(str, files)]
        for schema, files in sorted(groups.items())
    ]
    theirs = _median_time(commands, repeat, ok=(0, 1)) if commands else None
    version = _version([cjs, "--version"]).removeprefix("check-jsonschema, version ")
    baseline = f"check-jsonschema {version}, same corpus ({included} files, {len(commands)} processes)"
    per_schema = ", ".join(f"{name} {len(files)}" for name, files in sorted(groups.items()))
    left_out = ", ".join(f"{count} {reason}" for reason, count in skipped.items()) or "none"
    notes = [
        f"check-jsonschema validates {included} of the {files_checked} files against the exported schemas, one "
        f"process per schema ({per_schema}); left out: {left_out}. `ctxres check` also parses with positions and "
        "runs the semantic rules, so a ratio above 1 is the price of those rules."
    ]
    return [Row("Conformance", scenario, ours, baseline, theirs)], notes


def measure_hooks(hook: str, repeat: int) -> tuple[list[Row], list[str], str]:
    """Each scenario: ``ctxres-hook EVENT`` against the minimal hook of its event (minimal_hooks.py, on the same
    interpreter), alternating with it and with ``python -c pass``. The hook and the minimal hook each run in their
    own copy of the workspace (each keeps its own files: checkpoints written, the hook's private cache), built
    the same way; the warm-up run of each scenario leaves both in their steady state."""
    minimal = _minimal_command(hook, "minimal_hooks")  # started as the console script starts the hook
    interpreter = minimal[0]
    rows, bare_rows = [], []
    with tempfile.TemporaryDirectory(prefix="ctxres-bench-") as scratch:
        ours, theirs = Path(scratch) / "hook", Path(scratch) / "minimal"
        ours.mkdir()
        theirs.mkdir()
        payloads, minimal_payloads = _workspace(ours), _workspace(theirs)
        # A configured project beside it (its own workspace: one project is never inside the other).
        payloads.update(_configured_workspace(Path(scratch) / "hook-configured"))
        minimal_payloads.update(_configured_workspace(Path(scratch) / "minimal-configured"))
        # Many workflow files: each its own workspace of 35 files, where the minimal hook walks and stats them too.
        payloads.update(_many_workflows_workspace(Path(scratch) / "hook-many"))
        minimal_payloads.update(_many_workflows_workspace(Path(scratch) / "minimal-many"))
        for label, event, key in HOOK_SCENARIOS:
            bare, base, seconds = _alternating(
                [interpreter, "-c", "pass"],
                ([*minimal, event], json.dumps(minimal_payloads[key]).encode(), theirs),
                ([hook, event], json.dumps(payloads[key]).encode(), ours),
                repeat,
            )
            goal, met = HOOK_GOALS[event]
            row = Row("Hooks", f"`ctxres-hook {event}`: {label}", seconds, f"minimal hook ({event})", base, goal)
            row.met = met(row)
            rows.append(row)
            bare_rows.append(f"{label} {seconds / bare:.2f}× (minimal hook {base / bare:.2f}×)")
    notes = [
        "Hooks: the baseline of each row is the minimal hook of its event (bench/minimal_hooks.py): the same file "
        "I/O as the hook on the same workspace (stdin JSON, the transcript's tail, the monitor state and cache, the "
        "workflow YAML parsed with `yaml.CSafeLoader`, checkpoints, atomic writes with fsync as `ctxres.atomic` "
        "does them) in a few lines of stdlib Python and PyYAML, on the hook's interpreter, loaded from bytecode, "
        "without checks, templates or error handling; each in its own copy of the workspace (the files one writes, "
        "checkpoints and the hook's private cache, are not the other's). Against a bare "
        "`python -c pass` (measured alternating with both): " + "; ".join(bare_rows) + "."
    ]
    launcher_row, launcher_note = measure_launcher(hook, repeat)
    return [*rows, launcher_row], [*notes, launcher_note], interpreter


LAUNCHER_GOAL = _ratio_goal(1.1, "the hook started by its path")


def measure_launcher(hook: str, repeat: int) -> tuple[Row, str]:
    """What the committed command (``sh -c``: ``$CTXRES_HOOK``, the project's ``.venv``, then the PATH) adds to
    ``ctxres-hook UserPromptSubmit``: the hook found by its last and dearest search, on the PATH, against the
    same hook started by its path, alternating, on one workspace."""
    from ctxres.claude_settings import HOOK_ENV, portable_command

    command = portable_command("UserPromptSubmit")
    with tempfile.TemporaryDirectory(prefix="ctxres-bench-launcher-") as scratch:
        project = Path(scratch) / "project"
        project.mkdir()
        payload = json.dumps(_workspace(project)["prompt"]).encode()
        search = os.pathsep.join([str(Path(hook).parent), "/usr/bin", "/bin"])
        env = {"PATH": search, "CLAUDE_PROJECT_DIR": str(project), HOOK_ENV: ""}
        direct, launched = [], []
        for attempt in range(repeat + 1):
            times = (
                _run([hook, "UserPromptSubmit"], stdin=payload, cwd=project, env=env)[0],
                _run(["sh", "-c", command], stdin=payload, cwd=project, env=env)[0],
            )
            if attempt:
                direct.append(times[0])
                launched.append(times[1])
    goal, met = LAUNCHER_GOAL
    row = Row(
        "Launcher",
        "`ctxres-hook UserPromptSubmit` run by the committed `sh -c` command, found on the PATH (after "
        "`$CTXRES_HOOK` and the project's `.venv`)",
        statistics.median(launched),
        "`ctxres-hook UserPromptSubmit` started by its path",
        statistics.median(direct),
        goal,
    )
    row.met = met(row)
    note = (
        "Launcher: the command `.claude/settings.json` commits finds ctxres-hook itself (`$CTXRES_HOOK`, the "
        "project's `.venv/bin`, the PATH: tests and `command -v` built into `sh`, which then `exec`s it); the row "
        "measures its longest search, against the same hook with the same payload on the same workspace, started "
        "by its path."
    )
    return row, note


def statusline_document(project: Path) -> dict[str, Any]:
    """The JSON Claude Code sends its statusline command (2.1.328), at the workspace's 73% fill."""
    usage = {"input_tokens": 6, "output_tokens": 120, "cache_creation_input_tokens": 1400}
    usage["cache_read_input_tokens"] = 129_994
    return {
        "session_id": "bench-statusline",
        "transcript_path": str(project / "session.jsonl"),
        "cwd": str(project),
        "model": {"id": "claude-sonnet-4-5-20250929", "display_name": "Sonnet 4.5"},
        "workspace": {"current_dir": str(project), "project_dir": str(project), "added_dirs": []},
        "version": "2.1.328",
        "context_window": {
            "total_input_tokens": 131_400,
            "total_output_tokens": 120,
            "context_window_size": 200_000,
            "current_usage": usage,
            "used_percentage": 66,
            "remaining_percentage": 34,
        },
    }


def measure_statusline(hook: str, repeat: int) -> tuple[list[Row], list[str]]:
    """``ctxres-hook statusline`` against the minimal statusline (minimal_statusline.py), alternating, each in
    its own copy of the PROJ-001 workspace; and the same beside 34 more workflow files (3 live)."""
    minimal = _minimal_command(hook, "minimal_statusline")
    interpreter = minimal[0]
    goal, met = _ratio_goal(STATUSLINE_GOAL, "the minimal statusline")
    rows, bare_rows = [], []
    with tempfile.TemporaryDirectory(prefix="ctxres-bench-statusline-") as scratch:
        ours, theirs, many = (Path(scratch) / name for name in ("hook", "minimal", "hook-many"))
        ours.mkdir()
        theirs.mkdir()
        _workspace(ours)
        _workspace(theirs)
        _many_workflows_workspace(many)
        scenarios = (
            ("PROJ-001 at QG-2, a pending checkpoint", ours),
            ("the same, in a project with 35 workflow files (3 live)", many),
        )
        for label, project in scenarios:
            bare, base, seconds = _alternating(
                [interpreter, "-c", "pass"],
                (minimal, json.dumps(statusline_document(theirs)).encode(), theirs),
                ([hook, "statusline"], json.dumps(statusline_document(project)).encode(), project),
                repeat,
            )
            row = Row("Statusline", f"`ctxres-hook statusline`: {label}", seconds, "minimal statusline", base, goal)
            row.met = met(row)
            rows.append(row)
            bare_rows.append(f"{label} {seconds / bare:.2f}× (minimal statusline {base / bare:.2f}×)")
    notes = [
        "Statusline: the baseline is bench/minimal_statusline.py, which reads the client's JSON, walks the project "
        "for the workflow file, parses it with `yaml.CSafeLoader` and prints a line, on the hook's interpreter, "
        "loaded from bytecode; ctxres-hook also chooses the live workflow among the candidates, applies the "
        "staleness rule, counts the unacknowledged checkpoints and records the client's figure, remembering the "
        "parse between runs by path, size and mtime. Against a bare `python -c pass`: " + "; ".join(bare_rows) + "."
    ]
    return rows, notes


def measure_timeline_rows(sizes: tuple[int, ...], repeat: int) -> tuple[list[Row], list[str]]:
    from timeline_bench import measure_timeline  # imports ctxres: only when this section runs

    cases = measure_timeline(sizes, repeat)
    goal, met = TIMELINE_GOAL
    rows = []
    for case in cases:
        row = Row(
            "Timeline",
            f"the transcript reader on a {case.label} transcript",
            case.reader_seconds,
            "`for line in f: json.loads(line)` on it",
            case.floor_seconds,
            goal,
        )
        row.met = met(row)
        rows.append(row)
    peaks = "; ".join(
        f"{case.label}: {case.reader_peak_kib / 1024:.1f} MiB (the loop {case.floor_peak_kib / 1024:.1f} MiB), "
        f"{case.turns} turns, {case.compactions} compactions, {case.versions} workflow file versions"
        for case in cases
    )
    notes = [
        "Timeline: the transcript reader (`ctxres.linters.timeline.transcripts.read_session`) is timed in-process, "
        "alternately with the `json.loads` loop, on generated transcripts (bench/timeline_bench.py, deleted "
        f"afterwards). Peak memory (`ru_maxrss` of a child process reading the file): {peaks}."
    ]
    return rows, notes


def measure_fill_rows(sizes: tuple[int, ...], repeat: int) -> tuple[list[Row], list[str]]:
    from transcript_bench import measure_fill  # imports ctxres: only when this section runs

    cases = measure_fill(sizes, repeat)
    smallest = cases[0]
    rows = [
        Row(
            "Fill estimation",
            f"`read_fill` on a {smallest.label} transcript",
            smallest.fill_seconds,
            "open + seek + read of its last 64 KiB",
            smallest.tail_seconds,
        )
    ]
    goal, met = FILL_GOAL
    for case in cases[1:]:
        row = Row(
            "Fill estimation",
            f"`read_fill` on a {case.label} transcript",
            case.fill_seconds,
            f"`read_fill` on the {smallest.label} transcript",
            smallest.fill_seconds,
            goal,
        )
        row.met = met(row)
        rows.append(row)
    readings = "; ".join(
        f"{case.label}: {case.tokens:,} tokens ({case.source}), {case.bytes_scanned // 1024} KiB read"
        if case.tokens is not None
        else f"{case.label}: unknown ({case.source})"
        for case in cases
    )
    notes = [
        "Fill estimation is timed in-process (the function a hook calls, without interpreter start-up). The larger "
        f"transcripts are sparse files (a hole, then the same {smallest.label} of conversation), deleted afterwards; "
        f"readings: {readings}."
    ]
    return rows, notes


def measure_check_scale(ctxres: str, corpus: Path, repeat: int, quick: bool) -> tuple[list[Row], list[str]]:
    """``ctxres check`` against the parser's floor, on the corpus and the synthetic monorepo (check_bench.py)."""
    from check_bench import measure as measure_scale

    measures, notes = measure_scale(ctxres, corpus, repeat, quick)
    rows = []
    for item in measures:
        row = Row("Check", item.scenario, item.seconds, item.baseline, item.baseline_seconds)
        if item.goal is not None:
            row.goal, met = _ratio_goal(item.goal, item.goal_what)
            row.met = met(row)
        rows.append(row)
    return rows, notes


# History: each history command against the git I/O it cannot avoid (at most 10x;
# docs/performance.md, "What is measured, and why").
HISTORY_GOAL = _ratio_goal(10, "git I/O")


def _git_io_seconds(repo: Path, file_name: str, repeat: int) -> tuple[float, int]:
    """Median of `git log --follow` of the file plus median of one `git cat-file --batch` of every
    version it lists: the reading of the history no history command can avoid."""
    log_cmd = ["git", "log", "--follow", "--format=%H", "--", file_name]
    log_seconds = _median_time([log_cmd], repeat, cwd=repo)
    _, hashes = _run(log_cmd, cwd=repo, capture=True)
    specs = [f"{sha}:{file_name}" for sha in hashes.decode().split()]
    stdin = "".join(f"{spec}\n" for spec in specs).encode()
    cat_samples = [_run(["git", "cat-file", "--batch"], stdin=stdin, cwd=repo)[0] for _ in range(repeat + 1)][1:]
    return log_seconds + statistics.median(cat_samples), len(specs)


def _history_row(scenario: str, seconds: float, io_seconds: float, versions: int) -> Row:
    goal, met = HISTORY_GOAL
    baseline = f"git I/O: `git log --follow` + `git cat-file --batch` of its {versions:,} versions"
    row = Row("History", scenario, seconds, baseline, io_seconds, goal)
    row.met = met(row)
    return row


def _audit_report(ctxres: str, repo: Path, file_name: str) -> dict[str, Any]:
    _, out = _run([ctxres, "audit-history", file_name, "--output-format", "json"], ok=(0, 1), cwd=repo, capture=True)
    report: dict[str, Any] = json.loads(out)["files"][0]
    return report


def _parse_floor_note(path: Path, io_per_version: float) -> str:
    """How long libyaml's C parser alone (events only, no Python object) takes on one version,
    against the git I/O per version: what parsing every version whole would cost at the least."""
    try:
        from yaml import _yaml  # type: ignore[attr-defined]
    except ImportError:
        return "The C parser floor was not measured: PyYAML has no libyaml binding here."
    text = path.read_text("utf-8")
    samples = []
    for _ in range(21):
        start = time.perf_counter()
        _yaml.CParser(text).raw_parse()
        samples.append(time.perf_counter() - start)
    floor = statistics.median(samples)
    return (
        f"Floor: libyaml's C parser alone (its events, no Python object built) takes {_ms(floor)} ms on one "
        f"version of the synthetic file, {floor / io_per_version:.1f}× the git I/O per version "
        f"({_ms(io_per_version)} ms): parsing each version whole, even that way, costs about the whole 10× "
        "budget, which is why the history commands parse only the sections that changed."
    )


def measure_audit(
    ctxres: str, commits: int, repeat: int, cache: Path, quick: bool = False, lineage_repeat: int | None = None
) -> tuple[list[Row], list[str]]:
    """audit-history on the two real lineages (``lineage_repeat`` runs: they are short) against the git I/O and
    against the minimal audit (bench/minimal_audit.py), and on synthetic histories of ``commits`` and 10,000
    commits (200 with ``quick``); check --since and stale --since on the largest."""
    from history_bench import BIG_COMMITS, FILE_NAME, QUICK_BIG_COMMITS, REAL_LINEAGES, build, build_lineage

    rows: list[Row] = []
    notes: list[str] = []
    audit = [ctxres, "audit-history", FILE_NAME, "--output-format", "json"]
    minimal = [*_minimal_command(ctxres, "minimal_audit"), FILE_NAME]
    minimal_rows: list[Row] = []
    for name in REAL_LINEAGES:
        repo = build_lineage(name, cache)
        report = _audit_report(ctxres, repo.path, FILE_NAME)
        _, minimal_out = _run(minimal, cwd=repo.path, capture=True)
        minimal_found = len(json.loads(minimal_out)["stale_commits"])
        runs = lineage_repeat or repeat
        seconds, minimal_seconds = _alternating_medians([audit, minimal], runs, ok=(0, 1), cwd=repo.path)
        io_seconds, versions = _git_io_seconds(repo.path, FILE_NAME, runs)
        found, checked = len(report["stale_commits"]), report["commits_checked"]
        scenario = f"`ctxres audit-history` on the real lineage {name} ({found} stale of {checked} changes)"
        rows.append(_history_row(scenario, seconds, io_seconds, versions))
        minimal_rows.append(
            Row(
                "History",
                scenario,
                seconds,
                f"minimal audit (bench/minimal_audit.py, {minimal_found} stale): the same git I/O, every version "
                "parsed with `yaml.CSafeLoader`",
                minimal_seconds,
            )
        )
        notes.append(
            f"The minimal audit of {name} took {_ms(minimal_seconds)} ms, {minimal_seconds / io_seconds:.1f}× the "
            f"git I/O ({_ms(io_seconds)} ms); `python -c 'import yaml'` alone took {_ms(_yaml_start(ctxres, runs))} "
            "ms in this run."
        )
    rows += minimal_rows
    for size in (commits, QUICK_BIG_COMMITS if quick else BIG_COMMITS):
        repo = build(size, cache)
        report = _audit_report(ctxres, repo.path, FILE_NAME)
        found, checked = len(report["stale_commits"]), report["commits_checked"]
        expected = len(repo.history.stale)
        io_seconds, versions = _git_io_seconds(repo.path, FILE_NAME, repeat)
        seconds = _median_time([audit], repeat, ok=(0, 1), cwd=repo.path)
        scenario = f"`ctxres audit-history` on a {size:,}-commit history ({found} stale of {checked} changes found)"
        rows.append(_history_row(scenario, seconds, io_seconds, versions))
        verdict = "all of them" if found == expected else f"a DIFFERENT number ({found})"
        origin = "reused from the cache" if repo.cached else "built by git fast-import"
        notes.append(
            f"The synthetic {size:,}-commit history ({repo.path}, {origin}) has {_plural(expected, 'commit')} that "
            f"{'moves' if expected == 1 else 'move'} the state without the resumption section; audit-history found "
            f"{verdict} ({seconds / max(checked, 1) * 1000:.2f} ms per commit compared)."
        )
    _, root = _run(["git", "rev-list", "--max-parents=0", "HEAD"], cwd=repo.path, capture=True)
    since = root.decode().split()[0]
    for command in ("check", "stale"):
        cmd = [ctxres, command, "--since", since, "--output-format", "json"]
        seconds = _median_time([cmd], repeat, ok=(0, 1), cwd=repo.path)
        scenario = f"`ctxres {command} --since ROOT` on the {size:,}-commit history ({size - 1:,} changes)"
        rows.append(_history_row(scenario, seconds, io_seconds, versions))
    notes.append(_parse_floor_note(repo.path / FILE_NAME, io_seconds / max(versions, 1)))
    startup = _median_time([[ctxres, "audit-history", "--help"]], repeat)
    notes.append(
        f"`ctxres audit-history --help` (interpreter start-up and the imports of audit-history, no work) took "
        f"{_ms(startup)} ms in this run: on the real lineages (8 and 4 versions) that start-up is most of the time, "
        "so their ratio is a ratio of start-ups; the per-version work shows on the long histories. The minimal "
        "audit (bench/minimal_audit.py: the same git I/O, every version parsed with `yaml.CSafeLoader`, the state "
        "compared without the resumption section, no checks, no line numbers) is the floor of a history audit in "
        "Python: on a lineage of a few versions, it alone is more than 10× the git I/O."
    )
    notes.append(
        "History rows: the git I/O baseline is the median of `git log --follow --format=%H -- ORCHESTRATION.yaml` "
        "plus the median of one `git cat-file --batch` of every version it lists, timed in the same run. The "
        "history commands read each distinct version once (one `git cat-file --batch` by the blob hashes of "
        "`git log --raw`), parse it section by section (a section unchanged since an earlier version is not "
        "parsed again), extract its state only when the resumption section did not move, and compute line "
        "numbers only for the commits they report. `check --since` also checks the files of the work tree."
    )
    return rows, notes


# The whole-repository audit (at most 10x git's own `git log -p -M` of the workflow
# files; docs/performance.md, "What is measured, and why").
REPOSITORY_GOAL = _ratio_goal(10, "`git log -p -M`")


def measure_repository_audit(ctxres: str, repeat: int, cache: Path, quick: bool) -> tuple[list[Row], list[str]]:
    """``ctxres audit-history`` with no FILE on a repository of many workflows (history_bench.build_monorepo),
    against ``git log -p -M`` of its workflow files, run alternately in the same run."""
    from history_bench import (
        COMMITS_EACH,
        MOVED,
        QUICK_COMMITS_EACH,
        SHARED_PAIRS,
        WORKFLOW_GLOB,
        WORKFLOWS,
        build_monorepo,
    )

    workflows = 5 if quick else WORKFLOWS
    repo = build_monorepo(workflows, QUICK_COMMITS_EACH if quick else COMMITS_EACH, cache)
    audit = [ctxres, "audit-history", "--output-format", "json"]
    _, out = _run(audit, ok=(0, 1), cwd=repo.path, capture=True)
    files = json.loads(out)["files"]
    found = sum(len(entry["stale_commits"]) for entry in files)
    checked = sum(entry["commits_checked"] for entry in files)
    git_log = ["git", "log", "-p", "-M", "--", WORKFLOW_GLOB]
    seconds, log_seconds = _alternating_medians([audit, git_log], repeat, ok=(0, 1), cwd=repo.path)
    shape = f"{repo.workflows} workflows × {repo.commits_each:,} commits"
    goal, met = REPOSITORY_GOAL
    row = Row(
        "History",
        f"`ctxres audit-history` (no FILE) on a repository of {shape} ({repo.commits:,} commits; "
        f"{found:,} stale of {checked:,} changes found in {len(files)} files)",
        seconds,
        f"`git log -p -M -- '{WORKFLOW_GLOB}'`: every version of the workflow files, as diffs",
        log_seconds,
        goal,
    )
    row.met = met(row)
    verdict = "all of them" if found == repo.stale else f"a DIFFERENT number ({found:,})"
    origin = "reused from the cache" if repo.cached else "built by git fast-import"
    note = (
        f"The repository of {shape} ({repo.path}, {origin}; bench/history_bench.py `build_monorepo`) has "
        f"{repo.commits:,} commits: in each round every workflow moves once, {SHARED_PAIRS} pairs of them in a "
        f"shared commit, and {MOVED} workflows are moved from active/ to archive/ halfway (a rename with an edit). "
        f"It holds {repo.stale:,} changes that move the state without the resumption section; the one walk of "
        f"audit-history found {verdict}, each workflow with its whole history ({checked:,} changes compared, "
        f"{seconds / max(checked, 1) * 1000:.3f} ms each). The baseline is git writing every version of the "
        "workflow files as a diff; audit-history reads the same versions whole (one `git log --raw -M` of the YAML "
        "files, one `git cat-file --batch`) and compares each with the one before."
    )
    return [row], [note]


def measure(settings: Settings) -> dict[str, Any]:
    ctxres = _tool("ctxres")
    hook = _tool("ctxres-hook")
    if ctxres is None or hook is None:
        raise BenchError("ctxres is not installed for this interpreter or on PATH: pip install .")
    if not settings.corpus.is_dir():
        raise BenchError(f"corpus not found: {settings.corpus} (use --corpus)")
    cjs = _find_check_jsonschema(settings.check_jsonschema)
    started = datetime.now(timezone.utc)
    info: dict[str, Any] = {
        "date": started.strftime("%Y-%m-%d %H:%M UTC"),
        "machine": machine_info(),
        "ctxres": f"{_version([ctxres, '--version']).removeprefix('ctxres ')}, commit {_git_commit()}",
        "settings": settings,
    }
    rows: list[Row] = []
    notes: list[str] = []
    wanted = set(settings.only or SECTIONS)
    interpreter = _script_interpreter(hook)
    if "hooks" in wanted:
        hook_rows, hook_notes, interpreter = measure_hooks(hook, settings.repeat)
        rows += hook_rows
        notes += hook_notes
    if "statusline" in wanted:
        line_rows, line_notes = measure_statusline(hook, settings.repeat)
        rows += line_rows
        notes += line_notes
    info["interpreter"] = f"{interpreter} ({_version([interpreter, '--version'])})"
    info["bytecode"] = bytecode_info(interpreter)
    sections: dict[str, Callable[[], tuple[list[Row], list[str]]]] = {
        "fill": lambda: measure_fill_rows(settings.fill_sizes, settings.fill_repeat),
        "timeline": lambda: measure_timeline_rows(
            QUICK_TIMELINE_SIZES if settings.quick else FULL_TIMELINE_SIZES, max(1, min(settings.repeat, 5))
        ),
        "conformance": lambda: measure_check(ctxres, cjs, settings.corpus, settings.repeat),
        "check": lambda: measure_check_scale(ctxres, settings.corpus, settings.repeat, settings.quick),
        "history": lambda: measure_audit(
            ctxres, settings.commits, settings.audit_repeat, settings.cache, settings.quick, settings.repeat
        ),
        "repository-audit": lambda: measure_repository_audit(
            ctxres, settings.audit_repeat, settings.cache, settings.quick
        ),
    }
    for name, section in sections.items():
        if name in wanted:
            section_rows, section_notes = section()
            rows += section_rows
            notes += section_notes
    info["load_end"] = _load()
    return {"info": info, "rows": rows, "notes": notes}


def _find_check_jsonschema(given: str | None) -> str | None:
    if given is None:
        return _tool("check-jsonschema")
    if os.path.isfile(given) and os.access(given, os.X_OK):
        return given
    return shutil.which(given) if os.sep not in given else None


# A project's own settings: the hooks read them on every event (TOML), as a configured project's would.
CONFIGURED = 'staleness-minutes = 30\nstate-dir = ".jerry"\n\n[patterns]\norchestration = ["ORCHESTRATION.yaml"]\n'


def _configured_workspace(project: Path) -> dict[str, dict[str, Any]]:
    """The PROJ-001 workspace of :func:`_workspace` with a ``.ctxres.toml``; its payloads, named ``KEY-configured``."""
    project.mkdir()
    (project / ".ctxres.toml").write_text(CONFIGURED, "utf-8")
    return {f"{key}-configured": payload for key, payload in _workspace(project).items()}


MANY_WORKFLOWS = 35
MANY_LIVE = 3


def _many_workflows_workspace(project: Path) -> dict[str, dict[str, Any]]:
    """The PROJ-001 workspace of :func:`_workspace` beside 34 more workflow files, the real corpus's
    shapes in turn (``projects/PROJ-NNN/ORCHESTRATION.yaml``; 2 of them live, some do not parse): the live workflow is
    chosen among 35 files on every prompt. Its payload is named ``prompt-many``."""
    import yaml  # here: this section's only use of PyYAML and ctxres

    from ctxres.state.orchestration import is_live

    project.mkdir()
    payload = _workspace(project)["prompt"]
    shapes = sorted((DEFAULT_CORPUS / "orchestration").glob("*.yaml"))
    live = 1
    for number in range(1, MANY_WORKFLOWS):
        text = shapes[(number - 1) % len(shapes)].read_text("utf-8")
        target = project / "projects" / f"PROJ-{number:03d}" / "ORCHESTRATION.yaml"
        target.parent.mkdir(parents=True)
        target.write_text(text, "utf-8")
        with contextlib.suppress(yaml.YAMLError):  # a real file that does not parse: the hooks skip it too
            live += is_live(yaml.safe_load(text))
    if live != MANY_LIVE:
        raise BenchError(f"the many-workflows workspace has {live} live workflows, not {MANY_LIVE}")
    return {"prompt-many": payload}


def _workspace(project: Path) -> dict[str, dict[str, Any]]:
    """A PROJ-001 workspace at the QG-2 point: the workflow file, a transcript, a pending checkpoint."""
    (project / "ORCHESTRATION.yaml").write_bytes((TEMPLATES / "proj001-qg2-ORCHESTRATION.yaml").read_bytes())
    checkpoints = project / ".jerry" / "checkpoints"
    checkpoints.mkdir(parents=True)
    checkpoint = json.loads((TEMPLATES / "proj001-qg2-checkpoint.json").read_text("utf-8"))
    checkpoint["event_id"] = "cx-002"
    (checkpoints / "cx-002-checkpoint.json").write_text(json.dumps(checkpoint, indent=2), "utf-8")
    transcript = project / "session.jsonl"
    usage = {
        "input_tokens": 6,
        "cache_creation_input_tokens": 1400,
        "cache_read_input_tokens": 144994,
        "output_tokens": 120,
    }
    with transcript.open("w", encoding="utf-8") as handle:
        for n in range(2000):  # about 1 MB of conversation
            handle.write(
                json.dumps(
                    {
                        "type": "user",
                        "isSidechain": False,
                        "uuid": f"u{n}",
                        "message": {"role": "user", "content": "x" * 200},
                    }
                )
                + "\n"
            )
            handle.write(
                json.dumps(
                    {
                        "type": "assistant",
                        "isSidechain": False,
                        "uuid": f"a{n}",
                        "message": {
                            "id": f"msg_{n}",
                            "role": "assistant",
                            "model": "claude-opus-4-6",
                            "content": [{"type": "text", "text": "y" * 200}],
                            "usage": usage,
                        },
                    }
                )
                + "\n"
            )
    common = {"session_id": "bench", "transcript_path": str(transcript), "cwd": str(project)}
    orchestration = str(project / "ORCHESTRATION.yaml")
    return {
        "prompt": {**common, "hook_event_name": "UserPromptSubmit", "prompt": "continue"},
        "edit-orchestration": {
            **common,
            "hook_event_name": "PostToolUse",
            "tool_name": "Edit",
            "tool_input": {"file_path": orchestration},
            "tool_response": {"success": True},
        },
        "bash": {
            **common,
            "hook_event_name": "PostToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "ls"},
            "tool_response": {"stdout": ""},
        },
        "precompact": {**common, "hook_event_name": "PreCompact", "trigger": "auto", "custom_instructions": ""},
        "compact": {**common, "hook_event_name": "SessionStart", "source": "compact"},
        "startup": {**common, "hook_event_name": "SessionStart", "source": "startup"},
    }


def _alternating(
    bare: Sequence[str], base: tuple[Sequence[str], bytes, Path], cmd: tuple[Sequence[str], bytes, Path], repeat: int
) -> tuple[float, float, float]:
    """Medians of a bare command, the baseline and the command (each ``(argv, stdin, cwd)``), run one after the
    other ``repeat`` times after a warm-up."""
    samples: tuple[list[float], list[float], list[float]] = ([], [], [])
    for attempt in range(repeat + 1):
        times = (_run(bare)[0], _run(base[0], stdin=base[1], cwd=base[2])[0], _run(cmd[0], stdin=cmd[1], cwd=cmd[2])[0])
        if attempt:
            for kept, elapsed in zip(samples, times, strict=True):
                kept.append(elapsed)
    bare_median, base_median, cmd_median = (statistics.median(kept) for kept in samples)
    return bare_median, base_median, cmd_median


def _ms(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    return f"{seconds * 1000:,.3f}" if seconds < 0.01 else f"{seconds * 1000:,.1f}"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


TABLE_HEADER = ("Section", "Scenario", "Median ms", "Baseline", "Baseline median ms", "Ratio", "Goal", "Met")


def render_table(rows: Sequence[Row]) -> list[str]:
    lines = [
        "| " + " | ".join(TABLE_HEADER) + " |",
        "|" + "|".join(("---", "---", "---:", "---", "---:", "---:", "---", "---")) + "|",
    ]
    for row in rows:
        ratio = row.ratio
        met = "-" if row.met is None else ("met" if row.met else "NOT met")
        cells = (
            row.section,
            row.scenario,
            _ms(row.seconds),
            row.baseline,
            _ms(row.baseline_seconds),
            f"{ratio:.2f}×" if ratio is not None else "-",
            row.goal,
            met,
        )
        lines.append("| " + " | ".join(_cell(cell) for cell in cells) + " |")
    return lines


def _bytecode_line(info: dict[str, Any]) -> str:
    if "error" in info:
        return f"could not be checked ({info['error']})"
    text = f"{info['cached']} of {info['modules']} ctxres modules have up-to-date bytecode ({info['location']})"
    if info["dont_write_bytecode"]:
        text += (
            f"; PYTHONDONTWRITEBYTECODE={info['dont_write_bytecode']} is set, so modules without bytecode are "
            "recompiled at every hook start"
        )
    return text


def render(results: dict[str, Any]) -> str:
    info = results["info"]
    machine = info["machine"]
    settings: Settings = info["settings"]
    memory = f"{machine['memory_gib']} GiB RAM" if machine["memory_gib"] else "RAM unknown"
    sizes = ", ".join(case for case in (_size_name(size) for size in settings.fill_sizes))
    lines = [
        "## ctxres benchmark" + (" (quick run: small inputs, not for publishing)" if settings.quick else ""),
        "",
        f"- Date: {info['date']}; ctxres {info['ctxres']}",
        f"- Machine: {machine['cpu']}, {machine['cores']} cores, {memory}, {machine['os']}",
        f"- Load average (1/5/15 min): {machine['load']} at the start, {info['load_end']} at the end",
        f"- Python: the bench runs on {machine['python']}; hooks run on {info['interpreter']}",
        f"- Bytecode: {_bytecode_line(info['bytecode'])}",
        f"- Repeats: medians of {_plural(settings.repeat, 'run')} after 1 warm-up (hooks, alternating with "
        f"their minimal hook and `python -c pass`; `ctxres check` and check-jsonschema; audit-history on the real "
        f"lineages, alternating with the minimal audit, and their git I/O), "
        f"{settings.fill_repeat} calls (fill estimation, {sizes}), "
        f"{_plural(settings.audit_repeat, 'run')} (the synthetic histories and their git I/O)",
        f"- Corpus: {settings.corpus}",
        "",
    ]
    lines += render_table(results["rows"])
    lines += [
        "",
        "Ratio = median / baseline median (below 1: faster than the baseline). Hooks, `ctxres check`, "
        "check-jsonschema, audit-history and git are timed as whole processes (wall time, `time.perf_counter`).",
    ]
    lines += [f"\n{note}" for note in results["notes"]]
    return "\n".join(lines) + "\n"


def _plural(count: int, noun: str) -> str:
    return f"{count:,} {noun}" if count == 1 else f"{count:,} {noun}s"


def _size_name(size: int) -> str:
    for unit, name in ((1_000_000_000, "GB"), (1_000_000, "MB"), (1_000, "kB")):
        if size >= unit:
            return f"{size / unit:g} {name}"
    return f"{size} B"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument(
        "--corpus", type=Path, default=DEFAULT_CORPUS, help=f"folder to check (default: {DEFAULT_CORPUS})"
    )
    parser.add_argument(
        "--repeat", type=int, default=5, help="timed runs per measurement, after one warm-up (default: 5)"
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"a smoke run on small inputs: transcripts of {', '.join(map(_size_name, QUICK_FILL_SIZES))}, "
        f"a {QUICK_COMMITS}-commit history",
    )
    parser.add_argument("--markdown", type=Path, metavar="FILE", help="also write the Markdown table to FILE")
    parser.add_argument(
        "--only",
        action="append",
        choices=SECTIONS,
        default=[],
        help="run only this section (repeatable; default: every section)",
    )
    parser.add_argument(
        "--check-jsonschema",
        metavar="CMD",
        help="the check-jsonschema to compare with (default: next to this interpreter, else on PATH)",
    )
    parser.add_argument(
        "--cache",
        type=Path,
        default=None,
        help="where the synthetic git history is kept between runs (default: <tmp>/ctxres-bench-cache)",
    )
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from history_bench import CACHE_ROOT

    cache = args.cache or CACHE_ROOT
    settings = Settings(args.corpus.resolve(), args.repeat, args.quick, args.check_jsonschema, cache, tuple(args.only))
    try:
        results = measure(settings)
    except (BenchError, OSError, RuntimeError) as exc:
        print(f"bench: {exc}", file=sys.stderr)
        return 2
    text = render(results)
    print(text, end="")
    if args.markdown:
        args.markdown.write_text(text, "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
