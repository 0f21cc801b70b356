"""``ctxres check`` at repository scale: a synthetic monorepo, the parser's floor, peak memory.

The monorepo is generated from the shapes of the real corpus (never committed): each workflow
folder holds an ``ORCHESTRATION.yaml`` (a corpus file, its project ids varied), two checkpoints, a
Nexus ``resume-context.md`` and a ``precompact_state.json`` (corpus files, their ids and figures
varied): five artifacts a folder, the last folder cut to reach the wanted count.

The floor is what no checker of these files can avoid, in one process: read every file and parse
it with the C parsers (``yaml.compose(text, Loader=yaml.CSafeLoader)`` for YAML and front matter,
``json.loads`` for JSON). It runs as a process like ``ctxres check``, on the files
``ctxres check --list-files`` lists. Peak memory is the ``ru_maxrss`` that ``os.wait4`` reports for
the ``ctxres check`` process (its workers included, which it waits for).

Standard library only; ``run.py`` turns :class:`Measure` values into rows of its table.
"""

from __future__ import annotations

import itertools
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "fixtures" / "corpus"

FULL_SIZES = (1_000, 5_000, 10_000)
QUICK_SIZES = (60, 120, 200)

# Reads every listed file and parses it with the C parsers; prints the number of files parsed.
FLOOR_SCRIPT = r"""
import json, sys, yaml
parsed = 0
for line in open(sys.argv[1], encoding="utf-8"):
    path, _, kind = line.rstrip("\n").partition("\t")
    with open(path, "rb") as handle:
        text = handle.read().decode("utf-8", "replace")
    try:
        if path.endswith(".json"):
            json.loads(text)
        elif path.endswith(".jsonl"):
            for item in text.splitlines():
                if item.strip():
                    json.loads(item)
        elif path.endswith((".md", ".markdown")):
            if text.startswith("---"):
                yaml.compose(text.split("\n---", 2)[0][3:], Loader=yaml.CSafeLoader)
        else:
            yaml.compose(text, Loader=yaml.CSafeLoader)
        parsed += 1
    except (ValueError, yaml.YAMLError):
        pass
print(parsed)
"""


@dataclass
class Run:
    seconds: float
    peak_bytes: int


@dataclass
class Measure:
    """One row: ``ctxres check`` on some files against a baseline run on the same files."""

    scenario: str
    seconds: float
    baseline: str
    baseline_seconds: float
    goal: float | None = None  # the ratio to stay at or below (None: no goal)
    goal_what: str = ""
    peak_bytes: int = 0


def _vary_checkpoint(text: str, folder: int, number: int) -> str:
    data = json.loads(text)
    data["checkpoint_id"] = f"cx-{number:03d}"
    state = data.get("context_state")
    if isinstance(state, dict) and isinstance(state.get("token_count"), int):
        state["token_count"] += folder % 997
    return json.dumps(data, indent=2) + "\n"


def _vary_precompact(text: str, folder: int) -> str:
    data = json.loads(text)
    data["active_project_id"] = f"{folder:05d}-synthetic-project"
    return json.dumps(data, indent=2) + "\n"


def generate(root: Path, files: int, corpus: Path = CORPUS) -> int:
    """Write a monorepo of ``files`` artifacts under ``root`` (which must not exist); return the count."""
    orchestration = [p.read_text("utf-8") for p in sorted((corpus / "orchestration").glob("*.yaml"))]
    checkpoints = [p.read_text("utf-8") for p in sorted((corpus / "checkpoints").glob("*.json"))]
    manifests = [p.read_text("utf-8") for p in sorted((corpus / "nexus").rglob("resume-context.md"))]
    precompact = [p.read_text("utf-8") for p in sorted((corpus / "nexus").rglob("precompact_state.json"))]
    if not (orchestration and checkpoints and manifests and precompact):
        raise ValueError(f"{corpus} lacks the orchestration, checkpoint or nexus files the monorepo is made of")
    written = 0
    folder = 0
    while written < files:
        base = root / "workflows" / f"w{folder // 100:03d}" / f"wf-{folder:05d}"
        ident = f"PROJ-{folder:05d}-"
        members = [
            (base / "ORCHESTRATION.yaml", orchestration[folder % len(orchestration)].replace("PROJ-0", ident)),
            *(
                (
                    base / ".jerry" / "checkpoints" / f"cx-{number:03d}.json",
                    _vary_checkpoint(checkpoints[(folder + number) % len(checkpoints)], folder, number),
                )
                for number in (1, 2)
            ),
            (
                base / "01-planning" / "resume-context.md",
                manifests[folder % len(manifests)].replace("project", f"project-{folder:05d}", 1),
            ),
            (base / "precompact_state.json", _vary_precompact(precompact[folder % len(precompact)], folder)),
        ]
        for path, text in members[: files - written]:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, "utf-8")
            written += 1
        folder += 1
    return written


def run_measured(cmd: Sequence[str], cwd: Path, ok: tuple[int, ...] = (0, 1)) -> Run:
    """Run ``cmd``; its wall time and peak resident memory (``ru_maxrss``, from ``os.wait4``)."""
    start = time.perf_counter()
    process = subprocess.Popen(list(cmd), cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert process.stderr is not None
    error = process.stderr.read()
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode not in ok:
        detail = error.decode("utf-8", "replace").strip()[-2000:]
        raise RuntimeError(f"{' '.join(cmd)} exited {process.returncode}\n{detail}")
    scale = 1 if sys.platform == "darwin" else 1024  # ru_maxrss is in bytes on macOS, KiB on Linux
    return Run(seconds, usage.ru_maxrss * scale)


def _median(cmd: Sequence[str], cwd: Path, repeat: int, *, warm_up: bool = True) -> Run:
    """The median time and the largest peak of ``repeat`` runs (after one warm-up run unless told not to: the
    monorepo was just written, its files are in the page cache)."""
    runs = [run_measured(cmd, cwd) for _ in range(repeat + warm_up)][warm_up:]
    return Run(statistics.median(run.seconds for run in runs), max(run.peak_bytes for run in runs))


def _listing(ctxres: str, folder: Path, scratch: Path) -> tuple[Path, int]:
    done = subprocess.run(
        [ctxres, "check", "--list-files", "."], cwd=folder, capture_output=True, check=False, text=True
    )
    if done.returncode != 0:
        raise RuntimeError(f"ctxres check --list-files exited {done.returncode}: {done.stderr.strip()[-2000:]}")
    listing = scratch / f"listing-{abs(hash(str(folder)))}.tsv"
    listing.write_text(done.stdout, "utf-8")
    return listing, len(done.stdout.splitlines())


def _floor(folder: Path, listing: Path, repeat: int, *, warm_up: bool = True) -> float:
    return _median([sys.executable, "-c", FLOOR_SCRIPT, str(listing)], folder, repeat, warm_up=warm_up).seconds


def megabytes(size: int) -> str:
    return f"{size / 1_000_000:,.1f} MB"  # (a tenth: the sizes differ by a few MB)


def cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


FLOOR = "floor: read + C-parse the same files (`yaml.compose`, CSafeLoader), one process"


def measure(
    ctxres: str, corpus: Path, repeat: int, quick: bool, scratch: Path | None = None
) -> tuple[list[Measure], list[str]]:
    """The corpus and the monorepo at each size against the floor; the pool against one process."""
    sizes = QUICK_SIZES if quick else FULL_SIZES
    big_repeat = 1 if not quick else repeat  # the largest tree takes minutes: one run
    owned = scratch is None
    scratch = Path(tempfile.mkdtemp(prefix="ctxres-check-bench-")) if scratch is None else scratch
    try:
        rows: list[Measure] = []
        listing, count = _listing(ctxres, corpus, scratch)
        check = [ctxres, "check", ".", "--exit-zero", "--output-format", "json"]
        ours = _median([*check, "--jobs", "1"], corpus, repeat)
        rows.append(
            Measure(
                f"`ctxres check --jobs 1` on the corpus ({count} files, every rule)",
                ours.seconds,
                FLOOR,
                _floor(corpus, listing, repeat),
                2.0,
                "the floor",
                ours.peak_bytes,
            )
        )
        peaks: list[tuple[int, int]] = []
        for size in sizes:
            tree = scratch / f"monorepo-{size}"
            if not tree.exists():
                generate(tree, size)  # from the repository's corpus, whatever corpus the first row checks
            listing, count = _listing(ctxres, tree, scratch)
            largest = size == sizes[-1]
            one = _median([*check, "--jobs", "1"], tree, big_repeat if largest else 1, warm_up=quick)
            peaks.append((count, one.peak_bytes))
            floor = _floor(tree, listing, big_repeat if largest else 1, warm_up=quick)
            what = f"{count:,}-file synthetic monorepo"
            rows.append(
                Measure(
                    f"`ctxres check --jobs 1` on a {what} (peak memory {megabytes(one.peak_bytes)})",
                    one.seconds,
                    FLOOR,
                    floor,
                    2.0 if largest else None,
                    "the floor",
                    one.peak_bytes,
                )
            )
            if size == sizes[0]:
                # pre-commit names the files (the changed ones; all of them with --all-files): each brings
                # the files of its workflow's unit, found and matched once for all of them.
                named = [line.rsplit("\t", 1)[0] for line in listing.read_text("utf-8").splitlines()]
                by_name = _median([*check[:2], *check[3:], "--jobs", "1", *named], tree, 1, warm_up=quick)
                rows.append(
                    Measure(
                        f"`ctxres check --jobs 1 FILE...` naming the {count:,} files of the {what}, as pre-commit "
                        f"does (peak memory {megabytes(by_name.peak_bytes)})",
                        by_name.seconds,
                        FLOOR,
                        floor,
                        None,
                        "the floor",
                        by_name.peak_bytes,
                    )
                )
            if largest:
                jobs = cores()
                pooled = _median([*check, "--jobs", str(jobs)], tree, big_repeat, warm_up=quick)
                rows.append(
                    Measure(
                        f"`ctxres check --jobs {jobs}` (the cores) on the {what} "
                        f"(peak memory {megabytes(pooled.peak_bytes)}, the largest of its processes)",
                        pooled.seconds,
                        f"`ctxres check --jobs 1` on the same files ({megabytes(one.peak_bytes)})",
                        one.seconds,
                        0.75 if jobs > 1 else None,
                        "--jobs 1",
                        pooled.peak_bytes,
                    )
                )
        slopes = [
            f"{(peak - before) / max(count - counted, 1):,.0f} bytes a file from {counted:,} to {count:,} files"
            for (counted, before), (count, peak) in itertools.pairwise(peaks)
        ]
        notes = [
            "`ctxres check` at scale: the synthetic monorepo (bench/check_bench.py) repeats the corpus shapes (an "
            "ORCHESTRATION.yaml, two checkpoints, a resume-context.md and a precompact_state.json per workflow "
            "folder, ids varied). Peak memory (ru_maxrss of the process, JSON output) with --jobs 1: "
            + ", ".join(f"{megabytes(peak)} at {n:,} files" for n, peak in peaks)
            + (f"; {', '.join(slopes)}" if slopes else "")
            + ". No document is kept after its checks, the files found are held in a few strings, and findings "
            "past 2,048 wait on disk in sorted runs until the report is written: what grows is what the cross-file "
            "rules keep of each file (its path and kind, and of each workflow what the A rules compare), and the "
            "bounded memories (of findings, of close matches for messages) until they are full."
        ]
        return rows, notes
    finally:
        if owned:
            shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":  # python bench/check_bench.py DIR FILES: write a monorepo to look at
    print(generate(Path(sys.argv[1]), int(sys.argv[2])))
