"""The layout of the test suites: what tests share is written once, outside the test modules.

A test module (``test_*.py``) imports no other test module: what two of them share lives in a helper
module (``tests/cli_process.py``, ``tests/git_sandbox.py``, ``tests/hooks/claude_session.py``, ...) or a
``conftest.py``, where pytest does not collect it and where the next reader looks for it. The runners
written once (``ctxres()``, which runs the real command, and ``git()``) are not defined again in a test
module, under that name or as a method or a nested function.

The tests of the rules are laid out like the rules: each module of ``linters/rules/`` (``RULE_MODULES``)
has its test module ``tests/rules/test_<module>.py``; tests that span rule modules sit in modules named
for what they span (``test_s_rules.py``, ``test_rule_fixtures.py``, ...).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from ctxres.linters.rules import RULE_MODULES

from .conftest import ROOT

SUITES = ("tests", "e2e", "fuzz", "browser")
# The consolidated helpers, by the names a copy of them would have, and where the one definition is.
CONSOLIDATED = {"ctxres": "tests/cli_process.py", "run_ctxres": "tests/cli_process.py", "git": "tests/git_sandbox.py"}


def modules_of_tests(root: Path) -> Iterator[Path]:
    for suite in SUITES:
        yield from sorted((root / suite).rglob("test_*.py"))


def dotted_name(root: Path, path: Path) -> list[str]:
    return list(path.relative_to(root).with_suffix("").parts)


def imported(root: Path, path: Path, tree: ast.Module) -> Iterator[tuple[int, str]]:
    """(line, dotted name) of every module and name an import of ``path`` names, relative ones resolved."""
    package = dotted_name(root, path)[:-1]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *(node.module.split(".") if node.module else [])])
            yield node.lineno, module
            for alias in node.names:
                yield node.lineno, f"{module}.{alias.name}"


def is_test_module(root: Path, dotted: str) -> bool:
    parts = dotted.split(".")
    return parts[-1].startswith("test_") and root.joinpath(*parts).with_suffix(".py").is_file()


def layout_problems(root: Path) -> list[str]:
    problems = []
    for path in modules_of_tests(root):
        rel = path.relative_to(root).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=rel)
        for line, dotted in imported(root, path, tree):
            if is_test_module(root, dotted):
                problems.append(f"{rel}:{line}: imports the test module {dotted}: move what it shares to a helper")
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.lstrip("_") in CONSOLIDATED:
                home = CONSOLIDATED[node.name.lstrip("_")]
                problems.append(f"{rel}:{node.lineno}: defines {node.name}() again: use the one in {home}")
    return problems


def test_no_test_module_imports_another_or_defines_a_consolidated_helper_again() -> None:
    problems = layout_problems(ROOT)
    assert problems == [], "\n".join(problems)


def test_the_check_finds_an_imported_test_module_and_a_helper_written_again(tmp_path: Path) -> None:
    tests = tmp_path / "tests"
    (tests / "hooks").mkdir(parents=True)
    (tests / "hooks" / "test_monitor.py").write_text("def run_hook() -> None: ...\n")
    (tests / "hooks" / "session.py").write_text("def git() -> None: ...\n")  # a helper module may hold it
    (tests / "test_a.py").write_text(
        "from .hooks.test_monitor import run_hook\n"
        "from tests.hooks import test_monitor\n"
        "import tests.hooks.test_monitor\n"
        "from .hooks.session import git\n"
        "from .hooks import session\n"
    )
    (tests / "test_b.py").write_text(
        "class Repo:\n    def git(self) -> None: ...\n\n\ndef test_x() -> None:\n    def _ctxres() -> None: ...\n"
    )
    assert layout_problems(tmp_path) == [
        "tests/test_a.py:1: imports the test module tests.hooks.test_monitor: move what it shares to a helper",
        "tests/test_a.py:2: imports the test module tests.hooks.test_monitor: move what it shares to a helper",
        "tests/test_a.py:3: imports the test module tests.hooks.test_monitor: move what it shares to a helper",
        "tests/test_b.py:2: defines git() again: use the one in tests/git_sandbox.py",
        "tests/test_b.py:6: defines _ctxres() again: use the one in tests/cli_process.py",
    ]


def rule_modules_without_tests(root: Path, modules: tuple[str, ...] = RULE_MODULES) -> list[str]:
    """The rule modules (dotted names) that have no ``tests/rules/test_<module>.py`` under ``root``."""
    return [name for name in modules if not (root / "tests" / "rules" / f"test_{name.rsplit('.', 1)[-1]}.py").is_file()]


def test_every_rule_module_has_its_test_module() -> None:
    missing = rule_modules_without_tests(ROOT)
    assert missing == [], f"rule modules without tests/rules/test_<module>.py: {missing}"


def test_the_check_finds_a_rule_module_without_its_test_module(tmp_path: Path) -> None:
    (tmp_path / "tests" / "rules").mkdir(parents=True)
    (tmp_path / "tests" / "rules" / "test_parsing.py").write_text("")
    (tmp_path / "tests" / "rules" / "test_parsing_more.py").write_text("")  # another name does not count
    modules = ("ctxres.linters.rules.parsing", "ctxres.linters.rules.layers")
    assert rule_modules_without_tests(tmp_path, modules) == ["ctxres.linters.rules.layers"]
