"""Start-up tricks only where a start-up is measured, each module saying so once (docs/performance.md,
"Start-up tricks").

The measured start-ups are read from real processes (``tests/startup_paths.py``): the hook path is what
``ctxres-hook`` loads for every event and the statusline, the check path what the commands pre-commit runs on
every commit load: ``ctxres check`` on the corpus and ``ctxres stale`` on a staged workflow, in every output
format. There, classes are records (``ctxres.records``), ``typing`` is imported for
the type checker only (``TYPE_CHECKING = False``) and imports may sit inside functions. Everywhere else a
class is a plain ``@dataclass(slots=True)``, ``typing`` is imported as usual and imports are at the top of
the module, unless a module loads late what only some commands need and says so.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.startup_paths import check_processes, hook_processes, ours, repository_modules, stale_processes

CITATION = 'docs/performance.md, "Start-up tricks"'
RUN_TIME_FREE = ("dataclasses", "typing")


class Paths:
    def __init__(self, hooks: list[frozenset[str]], checks: list[frozenset[str]], stale: list[frozenset[str]]) -> None:
        self.hook_processes = hooks
        self.check_processes = checks
        self.stale_processes = stale
        self.hooks = ours(hooks)
        self.check = ours(checks)
        # `ctxres stale` loads `typing` through yaml_sections (NamedTuple) as it always did: on its path, only
        # dataclasses are kept out.
        self.stale = ours(stale) - self.hooks - self.check
        self.measured = self.hooks | self.check | self.stale


@pytest.fixture(scope="module")
def paths(tmp_path_factory: pytest.TempPathFactory) -> Paths:
    tmp = tmp_path_factory.mktemp("startup")
    return Paths(hook_processes(tmp / "hooks"), check_processes(tmp / "check"), stale_processes(tmp / "stale"))


def _type_checking_nodes(tree: ast.Module) -> set[int]:
    """The ids of the nodes the type checker alone reads: under ``if TYPE_CHECKING:``, or in the ``else:`` of
    ``if not TYPE_CHECKING:``."""
    inside: set[int] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.If):
            continue
        test = node.test
        if isinstance(test, ast.Name) and test.id == "TYPE_CHECKING":
            branch = node.body
        elif (
            isinstance(test, ast.UnaryOp)
            and isinstance(test.op, ast.Not)
            and ast.unparse(test.operand) == "TYPE_CHECKING"
        ):
            branch = node.orelse
        else:
            continue
        inside.update(id(child) for statement in branch for child in ast.walk(statement))
    return inside


def _imports(node: ast.AST, hidden: set[int]) -> list[str]:
    """The modules imported under ``node`` at run time (not under ``if TYPE_CHECKING:``), absolute ones only."""
    names: list[str] = []
    for child in ast.walk(node):
        if id(child) in hidden:
            continue
        if isinstance(child, ast.Import):
            names.extend(alias.name for alias in child.names)
        elif isinstance(child, ast.ImportFrom) and not child.level and child.module:
            names.append(child.module)
    return names


class Tricks:
    """What one module's source does about start-up."""

    def __init__(self, path: Path) -> None:
        source = path.read_text("utf-8")
        tree = ast.parse(source)
        hidden = _type_checking_nodes(tree)
        self.type_checking_false = any(
            isinstance(node, ast.Assign)
            and [getattr(target, "id", None) for target in node.targets] == ["TYPE_CHECKING"]
            and isinstance(node.value, ast.Constant)
            and node.value.value is False
            for node in tree.body
        )
        imported = _imports(tree, hidden) + [name for name in _imports(tree, set()) if name == "ctxres.records"]
        self.records = "ctxres.records" in imported
        self.dataclasses = "dataclasses" in imported
        self.run_time_typing = "typing" in imported
        self.inner_imports = [
            name
            for function in ast.walk(tree)
            if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef))
            for name in _imports(function, hidden)
        ]
        self.citations = source.count(CITATION)

    @property
    def any(self) -> bool:
        return self.type_checking_false or self.records or bool(self.inner_imports)


@pytest.fixture(scope="module")
def tricks() -> dict[str, Tricks]:
    return {name: Tricks(path) for name, path in repository_modules().items()}


def test_the_hook_runs_reach_every_module_of_the_hooks(paths: Paths) -> None:
    """Every event, the Nexus profile and the statusline ran: each module of ``hooks/`` was loaded (but the
    plugin's script, which Claude Code runs by its path)."""
    hooks = {name for name in repository_modules() if name.startswith("ctxres.hooks")}
    assert sorted(hooks - paths.hooks) == ["ctxres.hooks.plugin_entry"]
    assert "ctxres.linters" not in paths.hooks and "ctxres.schemas" not in paths.hooks


def test_no_hook_process_loads_dataclasses_or_typing(paths: Paths) -> None:
    """``typing`` only where Python's TOML parser brings it (a project configured in ``.ctxres.toml``)."""
    for loaded in paths.hook_processes:
        assert "dataclasses" not in loaded
        assert "typing" not in loaded or "tomllib" in loaded or "tomli" in loaded
    assert any("tomllib" not in loaded for loaded in paths.hook_processes)


def test_no_check_loads_dataclasses_or_typing(paths: Paths) -> None:
    for loaded in paths.check_processes:
        assert [name for name in RUN_TIME_FREE if name in loaded] == []
    assert "ctxres.linters.checking.engine" in paths.check


def test_no_stale_loads_dataclasses(paths: Paths) -> None:
    """``ctxres stale``, which pre-commit runs on every commit too, loads no ``dataclasses`` (with ``inspect``,
    ``ast``, ``dis`` and ``tokenize``, it would cost every commit about 10 ms)."""
    for loaded in paths.stale_processes:
        assert "dataclasses" not in loaded
    assert "ctxres.linters.checking.commit_comparison" in paths.stale


def test_the_measured_paths_define_no_dataclass_and_import_typing_for_the_type_checker_only(
    paths: Paths, tricks: dict[str, Tricks]
) -> None:
    found = [
        name
        for name in sorted(paths.measured)
        if tricks[name].dataclasses or (tricks[name].run_time_typing and name not in paths.stale)
    ]
    assert found == []


def test_the_tricks_stay_on_the_measured_paths(paths: Paths, tricks: dict[str, Tricks]) -> None:
    """``TYPE_CHECKING = False`` and records only where a start-up is measured; a dataclass elsewhere."""
    found = [
        name
        for name, module in sorted(tricks.items())
        if (module.type_checking_false or module.records) and name not in paths.measured
    ]
    assert found == []


def test_a_module_with_start_up_tricks_says_so_once(tricks: dict[str, Tricks]) -> None:
    """One citation of the page's heading for all of a module's tricks (records, ``TYPE_CHECKING = False``,
    imports inside functions), none in a module that has none."""
    found = [
        f"{name}: {module.citations} citations"
        for name, module in sorted(tricks.items())
        if module.citations != (1 if module.any else 0)
    ]
    assert found == []


def test_a_dataclass_has_slots() -> None:
    """Off the measured paths a value class is ``@dataclass(slots=True)`` (``frozen=True`` too when immutable):
    the same storage as the records it replaced."""
    found = []
    for name, path in sorted(repository_modules().items()):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if not isinstance(node, ast.ClassDef):
                continue
            for decorator in node.decorator_list:
                called = decorator.func if isinstance(decorator, ast.Call) else decorator
                if ast.unparse(called) not in ("dataclass", "dataclasses.dataclass"):
                    continue
                keywords = {k.arg: ast.unparse(k.value) for k in getattr(decorator, "keywords", [])}
                if keywords.get("slots") != "True":
                    found.append(f"{name}.{node.name}")
    assert found == []
