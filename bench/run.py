#!/usr/bin/env python3
"""Benchmark ctxres against baselines measured in the same run, and print one table.

(a) ``ctxres check CORPUS --exit-zero --output-format json`` against check-jsonschema validating
    the same files with our exported schemas (``schemas/*.schema.json``): one check-jsonschema
    process per schema, files grouped by schema. The files and their kinds come from
    ``ctxres check --list-files``; ``resume-context.md`` manifests (YAML front matter, which
    check-jsonschema cannot read), event logs (JSON Lines) and any file check-jsonschema fails
    to parse are left out of its run, and the table says how many files each side covered.
(b) ``ctxres-hook UserPromptSubmit`` and ``ctxres-hook PreCompact`` with ``{}`` on stdin, as whole
    processes, against ``python -c pass`` on the interpreter the hook runs on.

Every figure is the median wall time (time.perf_counter) of ``--repeat`` runs after one warm-up
run. Nothing here asserts a time: the numbers are for reading, not for failing a build.

Standard library only: ``python bench/run.py`` with ctxres installed into that interpreter (or on
PATH); ``nox -s bench`` installs ctxres and check-jsonschema and runs it.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# The byte-exact copy of the real corpus kept in the repository (../shared/corpus on development machines).
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
# (label, event, payload builder key): each measured on a PROJ-001 workspace at the QG-2 point.
HOOK_SCENARIOS = (
    ("UserPromptSubmit, 73% fill (injects <context-monitor>)", "UserPromptSubmit", "prompt"),
    ("PostToolUse, Edit of ORCHESTRATION.yaml", "PostToolUse", "edit-orchestration"),
    ("PostToolUse, Bash (not a workflow file)", "PostToolUse", "bash"),
    ("PreCompact, auto (writes a checkpoint)", "PreCompact", "precompact"),
    ("SessionStart, compact (compaction alert)", "SessionStart", "compact"),
    ("SessionStart, startup (resumption prompt)", "SessionStart", "startup"),
)


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


def _run(
    cmd: Sequence[str],
    *,
    ok: tuple[int, ...] = (0,),
    stdin: bytes | None = None,
    cwd: Path | None = None,
    capture: bool = False,
) -> tuple[float, bytes]:
    """Run one process; return its wall time and (when ``capture``) its stdout."""
    start = time.perf_counter()
    done = subprocess.run(
        list(cmd),
        input=stdin if stdin is not None else b"",
        stdout=subprocess.PIPE if capture else subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        cwd=cwd,
        check=False,
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


def measure(corpus: Path, repeat: int) -> dict[str, Any]:
    ctxres = _tool("ctxres")
    hook = _tool("ctxres-hook")
    if ctxres is None or hook is None:
        raise BenchError("ctxres is not installed for this interpreter or on PATH: pip install .")
    if not corpus.is_dir():
        raise BenchError(f"corpus not found: {corpus} (use --corpus)")
    results: dict[str, Any] = {
        "machine": {
            "platform": platform.platform(),
            "machine": platform.machine(),
            "python": f"{platform.python_implementation()} {platform.python_version()}",
            "cpu_count": os.cpu_count(),
        },
        "repeat": repeat,
        "corpus": str(corpus),
        "versions": {"ctxres": _version([ctxres, "--version"])},
    }

    # (a) ctxres check vs check-jsonschema
    check_cmd = [ctxres, "check", str(corpus), "--exit-zero", "--output-format", "json"]
    _, out = _run(check_cmd, cwd=ROOT, capture=True)
    artifacts = _list_artifacts(ctxres, corpus)
    try:
        files_checked = int(json.loads(out)["summary"]["files_checked"])
    except (ValueError, KeyError, TypeError):
        files_checked = len(artifacts)
    ctxres_time = _median_time([check_cmd], repeat, cwd=ROOT)
    check: dict[str, Any] = {
        "ctxres": {"seconds": ctxres_time, "files": files_checked, "files_per_second": files_checked / ctxres_time},
    }
    cjs = _tool("check-jsonschema")
    if cjs is None:
        check["check_jsonschema"] = None
        check["note"] = "check-jsonschema is not installed: pip install check-jsonschema (or run nox -s bench)"
    else:
        results["versions"]["check-jsonschema"] = _version([cjs, "--version"])
        groups, skipped = _cjs_groups(cjs, artifacts)
        included = sum(len(files) for files in groups.values())
        commands = [
            [cjs, "--schemafile", str(SCHEMA_DIR / f"{schema}.schema.json"), *map(str, files)]
            for schema, files in sorted(groups.items())
        ]
        cjs_time = _median_time(commands, repeat, ok=(0, 1)) if commands else 0.0
        check["check_jsonschema"] = {
            "seconds": cjs_time,
            "files": included,
            "files_per_second": included / cjs_time if cjs_time else 0.0,
            "processes": len(commands),
            "files_per_schema": {schema: len(files) for schema, files in sorted(groups.items())},
            "skipped": skipped,
        }
        check["ratio"] = cjs_time / ctxres_time if cjs_time else None
    results["check"] = check

    # (b) hook processes on a realistic workspace vs a bare interpreter, measured alternately
    interpreter = _script_interpreter(hook)
    with tempfile.TemporaryDirectory(prefix="ctxres-bench-") as scratch:
        project = Path(scratch)
        payloads = _workspace(project)
        hooks: dict[str, Any] = {"interpreter": interpreter, "scenarios": []}
        for label, event, key in HOOK_SCENARIOS:
            base, seconds = _alternating(
                [interpreter, "-c", "pass"], [hook, event], repeat, json.dumps(payloads[key]).encode(), project
            )
            hooks["scenarios"].append(
                {"label": label, "event": event, "seconds": seconds, "baseline": base, "ratio": seconds / base}
            )
    results["hooks"] = hooks
    return results


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


def _alternating(base: Sequence[str], cmd: Sequence[str], repeat: int, stdin: bytes, cwd: Path) -> tuple[float, float]:
    """Medians of the baseline and the command, run one after the other ``repeat`` times (after a warm-up)."""
    env_cwd = {"cwd": cwd}
    base_samples, cmd_samples = [], []
    for attempt in range(repeat + 1):
        b = _run(base, **env_cwd)[0]
        c = _run(cmd, stdin=stdin, **env_cwd)[0]
        if attempt:
            base_samples.append(b)
            cmd_samples.append(c)
    return statistics.median(base_samples), statistics.median(cmd_samples)


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def render(results: dict[str, Any]) -> str:
    machine = results["machine"]
    versions = "; ".join(results["versions"].values())
    lines = [
        f"machine: {machine['platform']} ({machine['machine']}), {machine['python']}, {machine['cpu_count']} CPUs",
        f"tools:   {versions}",
        f"corpus:  {results['corpus']}",
        f"timing:  median of {results['repeat']} run{'s' if results['repeat'] != 1 else ''} after 1 warm-up run"
        " (wall time of whole processes)",
        "",
    ]
    rows = [("measurement", "files", "median", "files/s", "ratio")]
    check = results["check"]
    ours, theirs = check["ctxres"], check["check_jsonschema"]
    rows.append(
        (
            "ctxres check --output-format json",
            str(ours["files"]),
            _ms(ours["seconds"]),
            f"{ours['files_per_second']:.0f}",
            "1.00",
        )
    )
    if theirs is not None:
        ratio = check.get("ratio")
        rows.append(
            (
                f"check-jsonschema ({theirs['processes']} processes, one per schema)",
                str(theirs["files"]),
                _ms(theirs["seconds"]),
                f"{theirs['files_per_second']:.0f}",
                f"{ratio:.2f}" if ratio else "-",
            )
        )
    hooks = results["hooks"]
    baselines = [scenario["baseline"] for scenario in hooks["scenarios"]]
    rows.append(("python -c pass (median over the hook runs)", "", _ms(statistics.median(baselines)), "", "1.00"))
    for scenario in hooks["scenarios"]:
        rows.append((f"ctxres-hook {scenario['label']}", "", _ms(scenario["seconds"]), "", f"{scenario['ratio']:.2f}"))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]

    def fmt(row: tuple[str, ...]) -> str:
        cells = [row[0].ljust(widths[0])] + [cell.rjust(width) for cell, width in zip(row[1:], widths[1:], strict=True)]
        return "  ".join(cells).rstrip()

    lines.append(fmt(rows[0]))
    lines.append("  ".join("-" * width for width in widths))
    lines.extend(fmt(row) for row in rows[1:])
    lines.append("")
    if theirs is None:
        lines.append(f"check-jsonschema: not measured ({check['note']})")
    else:
        per_schema = ", ".join(f"{name} {count}" for name, count in theirs["files_per_schema"].items())
        skipped = ", ".join(f"{count} {reason}" for reason, count in theirs["skipped"].items()) or "none"
        lines.append(
            f"check-jsonschema covered {theirs['files']} of {ours['files']} files ({per_schema}); left out: {skipped}."
        )
        lines.append("check ratio = check-jsonschema time / ctxres time (> 1: ctxres is faster).")
    lines.append("hook ratio = hook process time / `python -c pass` time on the same interpreter (1 = bare start-up).")
    if os.environ.get("PYTHONDONTWRITEBYTECODE"):
        lines.append(
            "note: PYTHONDONTWRITEBYTECODE is set, so every hook run recompiles ctxres; an installed ctxres "
            "has its bytecode cached and starts faster (unset it, or set PYTHONPYCACHEPREFIX)."
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument(
        "--corpus", type=Path, default=DEFAULT_CORPUS, help=f"folder to check (default: {DEFAULT_CORPUS})"
    )
    parser.add_argument(
        "--repeat", type=int, default=5, help="timed runs per measurement, after one warm-up (default: 5)"
    )
    parser.add_argument("--json", action="store_true", help="print the numbers as JSON instead of the table")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    try:
        results = measure(args.corpus.resolve(), args.repeat)
    except (BenchError, OSError) as exc:
        print(f"bench: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(results, indent=2) if args.json else render(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
