"""`bench/run.py --quick` (what `nox -s bench` runs, on small inputs) prints one well-formed table.

No timing is asserted: the test checks that every section is measured, that the Markdown table
parses (every row has every column, figures are numbers, ratio = median / baseline), that the
goal verdicts agree with the figures, that audit-history finds exactly the stale commits the
synthetic history was built with, and that a missing check-jsonschema is reported in its row
instead of crashing the run.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
BENCH = ROOT / "bench"
TINY_CORPUS = ROOT / "fixtures" / "valid"
HOOK_EVENTS = ("UserPromptSubmit", "PostToolUse", "PreCompact", "SessionStart")


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
    assert list(by_section) == ["Hooks", "Fill estimation", "Conformance", "History"]
    hooks = by_section["Hooks"]
    assert len(hooks) == len(bench_run.HOOK_SCENARIOS)
    assert {event for event in HOOK_EVENTS if any(event in row[1] for row in hooks)} == set(HOOK_EVENTS)
    assert all(row[3] == "`python -c pass`" for row in hooks)
    assert len(by_section["Fill estimation"]) == 3
    assert len(by_section["Conformance"]) == 1
    assert len(by_section["History"]) == 2


def test_figures_parse_and_ratios_agree(quick: tuple[str, str]) -> None:
    _, rows = _table(quick[1])
    for section, scenario, median, _baseline, base, ratio, goal, met in rows:
        if section == "Conformance" and "not installed" in _baseline:
            continue  # covered by test_conformance_row_matches_the_environment
        value, reference, shown = _number(median), _number(base), _number(ratio)
        assert value > 0 and reference > 0, scenario
        # the ratio is computed before rounding the medians for display
        assert shown == pytest.approx(value / reference, rel=0.05, abs=0.02), scenario
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
        "ctxres-hook UserPromptSubmit": "≤ 1.5× python -c pass",
        "ctxres-hook PostToolUse": "≤ 1.5× python -c pass",
        "ctxres-hook PreCompact": "< 50 ms",
        "ctxres-hook SessionStart": "< 200 ms",
    }
    fill = [row for row in rows if row[0] == "Fill estimation"]
    assert [row[6] for row in fill] == ["-", "≤ 1.5× the smallest case", "≤ 1.5× the smallest case"]
    assert "100 kB" in fill[0][1] and "10 MB" in fill[2][1]


def test_audit_history_finds_the_planted_stale_commits(quick: tuple[str, str]) -> None:
    history_bench = _load("history_bench")
    planted = history_bench.generate(40).stale
    assert planted, "the quick history must contain a stale commit"
    _, rows = _table(quick[1])
    history = [row for row in rows if row[0] == "History"]
    assert f"({len(planted)} stale of 39 changes found)" in history[0][1]
    assert "audit-history found all of them" in quick[1]


def test_conformance_row_matches_the_environment(quick: tuple[str, str], bench_run: ModuleType) -> None:
    _, rows = _table(quick[1])
    (row,) = [row for row in rows if row[0] == "Conformance"]
    assert "ctxres check" in row[1]
    if bench_run._tool("check-jsonschema") is None:
        assert row[3] == "check-jsonschema: not installed" and row[4] == row[5] == "-"
        assert "check-jsonschema is not installed" in quick[1]
    else:
        assert row[3].startswith("check-jsonschema ") and _number(row[4]) > 0


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


def test_synthetic_history_is_deterministic() -> None:
    history_bench = _load("history_bench")
    first, second = history_bench.generate(60), history_bench.generate(60)
    assert history_bench.fast_import_stream(first) == history_bench.fast_import_stream(second)
    assert first.commits == 60 and first.stale == second.stale
    with pytest.raises(ValueError):
        history_bench.generate(1)
