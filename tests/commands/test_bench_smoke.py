"""`bench/run.py --quick` (what `nox -s bench` runs, on small inputs) prints one well-formed table.

No timing is asserted: the test checks that every section is measured, that the Markdown table
parses (every row has every column, figures are numbers, ratio = median / baseline), that the
goal verdicts agree with the figures, that audit-history finds exactly the stale commits the
synthetic history was built with, and that a missing check-jsonschema is reported in its row
instead of crashing the run.
"""

from __future__ import annotations

import importlib.util
import itertools
import json
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from ctxres.hook_events import EVENTS

from ..git_sandbox import git

ROOT = Path(__file__).resolve().parent.parent.parent
BENCH = ROOT / "bench"
TINY_CORPUS = ROOT / "fixtures" / "valid"


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"ctxres_bench_{name}", BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def bench_run() -> ModuleType:
    if str(BENCH) not in sys.path:
        sys.path.insert(0, str(BENCH))  # run.py imports its sibling modules by name
    return _load("run")


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """stdout of one quick run, and the Markdown file it wrote."""
    scratch = tmp_path_factory.mktemp("bench")
    markdown = scratch / "bench.md"
    cmd = [sys.executable, str(BENCH / "run.py"), "--quick", "--repeat", "1", "--corpus", str(TINY_CORPUS)]
    cmd += ["--cache", str(scratch / "cache"), "--markdown", str(markdown)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout, markdown.read_text("utf-8")


def _table(text: str) -> tuple[list[str], list[list[str]]]:
    lines = [line for line in text.splitlines() if line.startswith("|")]
    assert len(lines) >= 3, text

    def cells(line: str) -> list[str]:
        assert line.endswith("|"), line
        return [cell.strip() for cell in re.split(r"(?<!\\)\|", line[1:-1])]

    header = cells(lines[0])
    assert set(lines[1]) <= set("|-:"), lines[1]
    rows = [cells(line) for line in lines[2:]]
    for row in rows:
        assert len(row) == len(header), row
    return header, rows


def _number(cell: str) -> float:
    return float(cell.replace(",", "").removesuffix("×"))


def _half_step(cell: str) -> float:
    """Half the last shown digit of a number: how far rounding may have moved it."""
    text = cell.replace(",", "").removesuffix("×")
    decimals = len(text.partition(".")[2])
    return 0.5 * 10**-decimals


def test_quick_run_prints_the_markdown_it_writes(quick: tuple[str, str]) -> None:
    stdout, markdown = quick
    assert stdout == markdown
    for field in ("- Date:", "- Machine:", "- Load average", "- Python:", "- Bytecode:", "- Repeats:", "- Corpus:"):
        assert field in markdown, field
    assert "cores" in markdown and "RAM" in markdown and "commit" in markdown


def test_every_section_is_in_the_table(quick: tuple[str, str], bench_run: ModuleType) -> None:
    header, rows = _table(quick[1])
    assert tuple(header) == bench_run.TABLE_HEADER
    by_section: dict[str, list[list[str]]] = {}
    for row in rows:
        by_section.setdefault(row[0], []).append(row)
    assert list(by_section) == [
        "Hooks",
        "Launcher",
        "Statusline",
        "Fill estimation",
        "Timeline",
        "Conformance",
        "Check",
        "History",
    ]
    timeline = by_section["Timeline"]  # the transcript reader against the json.loads loop, 1 MB and 10 MB
    assert [row[1] for row in timeline] == [
        "the transcript reader on a 1 MB transcript",
        "the transcript reader on a 10 MB transcript",
    ]
    assert all(row[3] == "`for line in f: json.loads(line)` on it" for row in timeline)
    assert all(row[6] == "≤ 1.5× the `json.loads` loop" for row in timeline)
    (launcher,) = by_section["Launcher"]  # the committed command's search, against the hook started by its path
    assert (
        "committed `sh -c` command" in launcher[1]
        and launcher[3] == "`ctxres-hook UserPromptSubmit` started by its path"
    )
    assert launcher[6] == "≤ 1.1× the hook started by its path"
    statusline = by_section["Statusline"]
    assert len(statusline) == 2 and all(row[3] == "minimal statusline" for row in statusline), statusline
    assert all(row[1].startswith("`ctxres-hook statusline`") and "1.5×" in row[6] for row in statusline), statusline
    hooks = by_section["Hooks"]
    assert len(hooks) == len(bench_run.HOOK_SCENARIOS)
    assert {event for event in EVENTS if any(event in row[1] for row in hooks)} == set(EVENTS)
    for row in hooks:  # each hook against the minimal hook of its event
        event = row[1].split("`")[1].removeprefix("ctxres-hook ")
        assert row[3] == f"minimal hook ({event})", row
    assert len(by_section["Fill estimation"]) == 3
    assert len(by_section["Conformance"]) == 1
    history = by_section["History"]
    assert [row[1].split(" on ")[0] for row in history] == ["`ctxres audit-history`"] * 6 + [
        "`ctxres check --since ROOT`",
        "`ctxres stale --since ROOT`",
        "`ctxres audit-history` (no FILE)",
    ]
    # Each real lineage against the git I/O (the goal), then against the minimal audit (its floor in Python).
    assert [row[1] for row in history[:2]] == [row[1] for row in history[2:4]]
    assert "real lineage PROJ-001-oss-release" in history[0][1] and "PROJ-003-je-ne-sais-quoi" in history[1][1]
    for row in history[2:4]:
        ours = row[1].split("(")[1].split(" of ")[0]  # "2 stale"
        assert row[3].startswith(f"minimal audit (bench/minimal_audit.py, {ours}): the same git I/O"), row
        assert row[6] == "-"
    assert "40-commit history" in history[4][1] and all("200-commit history" in row[1] for row in history[5:-1])
    others = history[:2] + history[4:-1]
    whole = history[-1]  # the whole repository in one walk, against git writing every version as a diff
    assert "a repository of 5 workflows × 40 commits" in whole[1]
    assert whole[3].startswith("`git log -p -M -- '*ORCHESTRATION*.yaml'`") and whole[6] == "≤ 10× `git log -p -M`"
    assert all(row[3].startswith("git I/O: `git log --follow` + `git cat-file --batch`") for row in others)
    assert all(row[6] == "≤ 10× git I/O" for row in others)
    assert quick[1].count("The minimal audit of PROJ-") == 2
    check = by_section["Check"]
    sizes = bench_run_sizes()
    # the corpus, the monorepo at each size (the smallest also by its files' names), the pool
    assert len(check) == 1 + len(sizes) + 1 + 1
    assert "--jobs 1` on the corpus" in check[0][1] and check[0][3].startswith("floor: read + C-parse")
    by_folder = [check[1], *check[3:-1]]
    for row, size in zip(by_folder, sizes, strict=True):
        assert f"--jobs 1` on a {size:,}-file synthetic monorepo (peak memory " in row[1], row[1]
        assert row[3] == check[0][3]
    assert check[2][1].startswith(f"`ctxres check --jobs 1 FILE...` naming the {sizes[0]:,} files of the {sizes[0]:,}-")
    assert check[2][3] == check[0][3] and check[2][4] == check[1][4]  # the same floor as the folder's row
    assert "(the cores) on the" in check[-1][1] and check[-1][3].startswith("`ctxres check --jobs 1` on the same")
    assert [row[6] for row in check] == ["≤ 2× the floor", "-", "-", "-", "≤ 2× the floor", check[-1][6]]
    assert check[-1][6] in ("≤ 0.75× --jobs 1", "-")  # no goal for the pool on one core


def test_hooks_note_keeps_the_bare_interpreter(quick: tuple[str, str], bench_run: ModuleType) -> None:
    (note,) = [line for line in quick[1].splitlines() if line.startswith("Hooks: the baseline of each row")]
    assert "bench/minimal_hooks.py" in note and "`python -c pass`" in note
    for (
        label,
        _event,
        _key,
    ) in bench_run.HOOK_SCENARIOS:  # each scenario against the bare interpreter, with its minimal hook
        assert re.search(re.escape(label) + r" \d+\.\d\d× \(minimal hook \d+\.\d\d×\)", note), label


@pytest.mark.parametrize(
    "key", ["prompt", "prompt-configured", "edit-orchestration", "bash", "precompact", "compact", "startup"]
)
def test_minimal_hook_answers_like_the_hook(bench_run: ModuleType, tmp_path: Path, key: str) -> None:
    """The minimal hook runs on the bench's workspace and answers with the hook's shape: the same keys on stdout
    (nothing for PreCompact), and it writes the files the hook writes there."""
    outputs = []
    hook = bench_run._tool("ctxres-hook")
    assert hook is not None
    for name, cmd in (("hook", [hook]), ("minimal", [sys.executable, str(BENCH / "minimal_hooks.py")])):
        project = tmp_path / name
        if key.endswith("-configured"):  # a workspace with a .ctxres.toml
            payloads = {k.removesuffix("-configured"): v for k, v in bench_run._configured_workspace(project).items()}
        else:
            project.mkdir()
            payloads = bench_run._workspace(project)
        for warm in ("prompt", "edit-orchestration"):  # the prompt and edit hooks write the state the others read
            stdin = json.dumps(payloads[warm])
            event = payloads[warm]["hook_event_name"]
            subprocess.run([*cmd, event], input=stdin, capture_output=True, text=True, cwd=project, check=True)
        payload = payloads[key.removesuffix("-configured")]
        done = subprocess.run(
            [*cmd, payload["hook_event_name"]],
            input=json.dumps(payload),
            capture_output=True,
            text=True,
            cwd=project,
            check=True,
        )
        assert done.stderr == "", done.stderr
        files = sorted(str(path.relative_to(project)) for path in project.rglob("*") if path.is_file())
        outputs.append((json.loads(done.stdout) if done.stdout.strip() else None, files))
    (hook_answer, hook_files), (minimal_answer, minimal_files) = outputs
    assert _shape(minimal_answer) == _shape(hook_answer)
    assert set(minimal_files) >= set(hook_files)


def _shape(answer: dict[str, Any] | None) -> dict[str, list[str]] | None:
    """The keys of an answer, and of each of its objects."""
    return None if answer is None else {name: sorted(value) for name, value in answer.items()}


def bench_run_sizes() -> tuple[int, ...]:
    return tuple(_load("check_bench").QUICK_SIZES)


def test_quick_run_reports_flat_memory(quick: tuple[str, str]) -> None:
    (note,) = [line for line in quick[1].splitlines() if line.startswith("`ctxres check` at scale")]
    sizes = bench_run_sizes()
    for size in sizes:
        assert f"MB at {size:,} files" in note, note
    slopes = re.findall(r"(-?[\d,]+) bytes a file from ([\d,]+) to ([\d,]+) files", note)
    pairs = [(int(start.replace(",", "")), int(end.replace(",", ""))) for _, start, end in slopes]
    assert pairs == list(itertools.pairwise(sizes)), note


def test_synthetic_monorepo_has_the_files_asked_for(tmp_path: Path) -> None:
    check_bench = _load("check_bench")
    assert check_bench.generate(tmp_path / "tree", 23) == 23
    files = sorted(path.relative_to(tmp_path / "tree") for path in (tmp_path / "tree").rglob("*") if path.is_file())
    assert len(files) == 23 and sum(path.name == "ORCHESTRATION.yaml" for path in files) == 5
    listed = subprocess.run(
        [sys.executable, "-m", "ctxres.linters.cli", "check", "--list-files", "."],
        cwd=tmp_path / "tree",
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    kinds = sorted({line.split("\t")[1] for line in listed})
    assert len(listed) == 23 and kinds == [
        "build-manifest",
        "checkpoint",
        "orchestration",
        "precompact-state",
        "resume-context",
    ]


def test_figures_parse_and_ratios_agree(quick: tuple[str, str]) -> None:
    _, rows = _table(quick[1])
    for section, scenario, median, _baseline, base, ratio, goal, met in rows:
        if section == "Conformance" and "not installed" in _baseline:
            continue  # covered by test_conformance_row_matches_the_environment
        value, reference, shown = _number(median), _number(base), _number(ratio)
        assert value > 0 and reference > 0, scenario
        # the ratio is computed before the medians are rounded for display, so it
        # must lie within what the rounded medians allow, give or take its own rounding
        low = (value - _half_step(median)) / (reference + _half_step(base)) - _half_step(ratio)
        high = (value + _half_step(median)) / (reference - _half_step(base)) + _half_step(ratio)
        assert low - 1e-9 <= shown <= high + 1e-9, (scenario, low, shown, high)
        if goal == "-":
            assert met == "-", scenario
            continue
        assert met in ("met", "NOT met"), scenario
        if goal.startswith("<"):
            limit = float(goal.removeprefix("<").removesuffix("ms").strip())
            assert (met == "met") == (value < limit), scenario
        else:
            limit = float(goal.removeprefix("≤").split("×")[0].strip())
            if abs(shown - limit) > 0.02:
                assert (met == "met") == (shown <= limit), scenario


def test_goals_are_the_designs(quick: tuple[str, str]) -> None:
    _, rows = _table(quick[1])
    goals = {row[1].split("`")[1]: row[6] for row in rows if row[0] == "Hooks"}
    assert goals == {
        "ctxres-hook UserPromptSubmit": "≤ 1.15× the minimal hook",
        "ctxres-hook PostToolUse": "≤ 1.15× the minimal hook",
        "ctxres-hook PreCompact": "≤ 1.3× the minimal hook",
        "ctxres-hook SessionStart": "≤ 1.3× the minimal hook",
    }
    fill = [row for row in rows if row[0] == "Fill estimation"]
    assert [row[6] for row in fill] == ["-", "≤ 1.5× the smallest case", "≤ 1.5× the smallest case"]
    assert "100 kB" in fill[0][1] and "10 MB" in fill[2][1]


def test_audit_history_finds_the_planted_stale_commits(quick: tuple[str, str]) -> None:
    history_bench = _load("history_bench")
    planted = history_bench.generate(40).stale
    assert planted, "the quick history must contain a stale commit"
    _, rows = _table(quick[1])
    (history,) = [row for row in rows if row[0] == "History" and "40-commit" in row[1]]
    assert f"({len(planted)} stale of 39 changes found)" in history[1]
    # the 40- and the 200-commit histories, and the repository of 5 workflows (one walk)
    assert quick[1].count("audit-history found all of them") == 3
    assert "the one walk of audit-history found all of them" in quick[1]
    real = [row[1] for row in rows if row[0] == "History" and "real lineage" in row[1]]
    # The real lineages, as tests/commands/test_audit_history.py reviewed them.
    assert [name.split("(")[1] for name in real] == ["0 stale of 7 changes)", "2 stale of 3 changes)"] * 2


def test_real_lineages_are_replayed_with_their_commit_dates(tmp_path: Path) -> None:
    history_bench = _load("history_bench")
    repo = history_bench.build_lineage("PROJ-003-je-ne-sais-quoi", tmp_path / "cache")
    dates = subprocess.run(
        ["git", "log", "--reverse", "--format=%aI", "--", history_bench.FILE_NAME],
        cwd=repo.path,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert dates == [
        "2026-02-19T10:15:56+00:00",
        "2026-02-19T15:39:58+00:00",
        "2026-02-19T17:24:40+00:00",
        "2026-02-19T21:05:20+00:00",
    ]
    newest = sorted((history_bench.CORPUS_HISTORY / "PROJ-003-je-ne-sais-quoi").glob("*.yaml"))[-1]
    assert (repo.path / history_bench.FILE_NAME).read_bytes() == newest.read_bytes()
    assert history_bench.build_lineage("PROJ-003-je-ne-sais-quoi", tmp_path / "cache").cached


def test_conformance_row_matches_the_environment(quick: tuple[str, str], bench_run: ModuleType) -> None:
    _, rows = _table(quick[1])
    (row,) = [row for row in rows if row[0] == "Conformance"]
    assert "ctxres check" in row[1]
    if bench_run._tool("check-jsonschema") is None:
        assert row[3] == "check-jsonschema: not installed" and row[4] == row[5] == "-"
        assert "check-jsonschema is not installed" in quick[1]
    else:
        assert row[3].startswith("check-jsonschema ") and _number(row[4]) > 0


@pytest.mark.processes  # the bench module runs the real `ctxres check`
def test_missing_check_jsonschema_is_reported_in_its_row(bench_run: ModuleType, tmp_path: Path) -> None:
    assert bench_run._find_check_jsonschema(str(tmp_path / "check-jsonschema")) is None
    ctxres = bench_run._tool("ctxres")
    assert ctxres is not None
    rows, notes = bench_run.measure_check(ctxres, None, TINY_CORPUS, 1)
    (row,) = rows
    assert row.baseline == "check-jsonschema: not installed" and row.ratio is None and row.seconds > 0
    (line,) = bench_run.render_table(rows)[2:]
    assert "| check-jsonschema: not installed | - | - |" in line
    assert "pip install check-jsonschema" in notes[0]


def test_the_repository_of_many_workflows_holds_what_its_row_says(tmp_path: Path) -> None:
    history_bench = _load("history_bench")
    repo = history_bench.build_monorepo(12, 30, tmp_path / "cache")
    assert not repo.cached and history_bench.build_monorepo(12, 30, tmp_path / "cache").cached

    assert int(git(repo.path, "rev-list", "--count", "HEAD")) == repo.commits == 30 * (12 - history_bench.SHARED_PAIRS)
    log = git(repo.path, "log", "--format=", "--name-status", "-M")
    moved = [line for line in log.splitlines() if line.startswith("R")]
    assert len(moved) == history_bench.MOVED
    assert all(line.split("\t")[2].startswith("archive/") for line in moved)
    assert repo.stale == 12 * len(history_bench.generate(30).stale)


def test_synthetic_history_is_deterministic() -> None:
    history_bench = _load("history_bench")
    first, second = history_bench.generate(60), history_bench.generate(60)
    assert history_bench.fast_import_stream(first) == history_bench.fast_import_stream(second)
    assert first.commits == 60 and first.stale == second.stale
    with pytest.raises(ValueError):
        history_bench.generate(1)
