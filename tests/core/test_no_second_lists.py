"""Every list of output formats, hook events, rule options or rule codes is made from its one table.

A second copy of a table's names goes stale the day the table grows: `ctxres runs --output-format
checkstyle` printed text because ``linters/commands/runs.py`` kept its own ``("github", "sarif")``. These
tests parse every module and fail on a literal list, tuple, set or dict of a table's names outside the
table's own module: in the package and the maintainer's scripts, any such literal of two names or more (a
subset picked by hand is a list too: say what it is in the table); in the tests, benchmarks and end-to-end
sessions (and for the rule codes everywhere), a literal list of all the table's names (a copy of the table;
there a dict keyed by the names is the test's data for each, which a test of the table's own completes).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

from ctxres.config import CODES, OPTIONS
from ctxres.hook_events import EVENTS
from ctxres.linters import reporters

from ..conftest import ROOT

CODE_FOLDERS = ("ctxres", "hooks", "linters", "schemas", "dev")
TEST_FOLDERS = ("tests", "bench", "e2e", "fuzz")
TABLES: dict[str, tuple[frozenset[str], str]] = {
    "output formats": (frozenset(reporters.FORMATS), "linters/reporters/__init__.py"),
    "hook events": (frozenset(EVENTS), "ctxres/hook_events.py"),
    "rule options": (frozenset(OPTIONS), "ctxres/config.py"),
    "rule codes": (frozenset(CODES), "ctxres/config.py"),
}
OWN_CHOICES = {
    # `ctxres rules` prints the registry, not a report: its formats are its own (with `markdown`).
    ("linters/commands/rules.py", ("text", "json")),
}


def literals(tree: ast.AST, *, keys: bool) -> Iterator[tuple[int, tuple[str, ...]]]:
    """Each literal collection of strings only (a dict's keys too, if ``keys``), with its line."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            elements: list[ast.expr | None] = list(node.elts)
        elif isinstance(node, ast.Dict) and keys:
            elements = list(node.keys)
        else:
            continue
        names = tuple(e.value for e in elements if isinstance(e, ast.Constant) and isinstance(e.value, str))
        if len(names) >= 2 and len(names) == len(elements):
            yield node.lineno, names


def copies(folders: tuple[str, ...], *, whole: bool) -> list[str]:
    found = []
    for folder in folders:
        for path in sorted((ROOT / folder).rglob("*.py")):
            name = path.relative_to(ROOT).as_posix()
            for line, names in literals(ast.parse(path.read_text("utf-8")), keys=not whole):
                for what, (table, home) in TABLES.items():
                    if name == home or not set(names) <= table or (name, names) in OWN_CHOICES:
                        continue
                    if (whole or what == "rule codes") and set(names) != table:
                        continue  # the codes a check reports are its own list (its declaration)
                    found.append(f"{name}:{line}: {what} {list(names)}")
    return found


def test_the_package_keeps_no_list_of_a_table_s_names() -> None:
    assert copies(CODE_FOLDERS, whole=False) == []


def test_the_tests_keep_no_copy_of_a_table() -> None:
    assert copies(TEST_FOLDERS, whole=True) == []


def test_runs_prints_findings_in_every_format_but_its_report_s(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A format added to the table (here a second name for github's) is one `ctxres runs` prints its
    findings in, not its text report."""
    from ctxres.linters import cli

    monkeypatch.setitem(reporters.FORMATS, "annotations", "github")
    monkeypatch.chdir(tmp_path)
    assert cli.main(["runs", "--output-format", "annotations"]) == 0
    assert "Fresh start" not in capsys.readouterr().out
