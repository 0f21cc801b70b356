"""The rooms import in one direction (docs/architecture.md): the core imports no room built on it;
the hooks import only the core; the schemas only the core and pydantic; the linters never import the
hooks; inside the linters, rule families and the checking machinery never import a command or the
replay package.

The core (``ctxres/*.py``) is shared by both sides; ``linters/`` (``ctxres.linters``) and ``hooks/``
(``ctxres.hooks``) each build on it. What both need (the prompts, for one) lives in the core. The
tests parse the source with :mod:`ast`, so an import inside a function or under ``TYPE_CHECKING``
counts too.
"""

from __future__ import annotations

import ast
import subprocess
import sys

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent


def imported_modules(source: str, package: str) -> Iterator[tuple[int, str]]:
    """(line, absolute module name) of every import in ``source``, a module of ``package``; a relative
    import is resolved against ``package``, ``from X import y`` also yields ``X.y`` (y may be a module)."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[: len(parts) - (node.level - 1)] if node.level > 1 else parts
                base = ".".join([*parts, base] if base else parts)
            yield node.lineno, base
            for alias in node.names:
                yield node.lineno, f"{base}.{alias.name}"


def violations(folder: Path, package: str, forbidden: tuple[str, ...], *, recursive: bool = True) -> list[str]:
    """``path:line: module`` for every import statement of a ``forbidden`` package in ``folder``."""
    found: dict[tuple[str, int], str] = {}
    for path in sorted(folder.rglob("*.py") if recursive else folder.glob("*.py")):
        sub = path.parent.relative_to(folder).parts
        owner = ".".join([package, *sub])
        shown = path.relative_to(folder.parent).as_posix()
        for line, module in imported_modules(path.read_text("utf-8"), owner):
            if any(module == name or module.startswith(name + ".") for name in forbidden):
                found.setdefault((shown, line), module)
    return [f"{path}:{line}: {module}" for (path, line), module in sorted(found.items())]


def test_linters_never_import_the_hooks() -> None:
    assert violations(ROOT / "linters", "ctxres.linters", ("ctxres.hooks",)) == []


def test_the_hooks_import_only_the_core() -> None:
    forbidden = ("ctxres.linters", "ctxres.schemas", "pydantic", "jsonschema")
    assert violations(ROOT / "hooks", "ctxres.hooks", forbidden) == []


def test_the_schemas_import_neither_linters_nor_hooks() -> None:
    assert violations(ROOT / "schemas", "ctxres.schemas", ("ctxres.linters", "ctxres.hooks")) == []


@pytest.mark.parametrize("room", ["rules", "checking", "reporters", "validation", "setup"])
def test_rules_and_checking_never_import_a_command_or_the_replay(room: str) -> None:
    """A rule family is a library of checks: commands use it, never the reverse (S013 once imported
    the `stale` command)."""
    forbidden = ("ctxres.linters.commands", "ctxres.linters.replay", "ctxres.linters.cli")
    assert violations(ROOT / "linters" / room, f"ctxres.linters.{room}", forbidden) == []


def test_every_linters_module_sits_in_a_room() -> None:
    """`linters/` holds its rooms and the command-line entry point, nothing else."""
    loose = sorted(p.name for p in (ROOT / "linters").glob("*.py") if p.name not in ("__init__.py", "cli.py"))
    assert loose == []


def test_the_core_imports_no_room_built_on_it() -> None:
    forbidden = ("ctxres.linters", "ctxres.hooks", "ctxres.schemas")
    assert violations(ROOT / "ctxres", "ctxres", forbidden) == []


def test_the_core_keeps_at_most_25_modules_loose() -> None:
    """The core's families (``formats``, ``state``, ``migration``) are folders; what is left loose is
    few enough to read as a list."""
    loose = [p.name for p in (ROOT / "ctxres").glob("*.py") if p.name != "__init__.py"]
    assert len(loose) <= 25, sorted(loose)


def test_in_a_plain_clone_only_the_package_rooms_import_under_ctxres() -> None:
    """A plain clone (the Claude Code plugin) imports ``ctxres.hooks``, ``ctxres.linters`` and
    ``ctxres.schemas`` from the folders beside ``ctxres/``; the repository's other folders are not
    part of the package."""
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); from importlib.util import find_spec; "
        "print(' '.join(f'{n}={find_spec(n) is not None}' for n in sys.argv[2:]))"
    )
    names = ["ctxres.hooks", "ctxres.linters", "ctxres.schemas", "ctxres.linters.rules", "ctxres.e2e", "ctxres.bench"]
    names += ["ctxres.tests", "ctxres.fixtures", "ctxres.fuzz", "ctxres.docs"]
    out = subprocess.run([sys.executable, "-S", "-c", code, str(ROOT), *names], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    found = dict(item.split("=") for item in out.stdout.split())
    assert {name for name, there in found.items() if there == "True"} == {
        "ctxres.hooks",
        "ctxres.linters",
        "ctxres.schemas",
        "ctxres.linters.rules",
    }


@pytest.mark.parametrize(
    ("source", "package"),
    [
        ("from ctxres.hooks.alerts import compaction_alert\n", "ctxres.linters"),
        ("import ctxres.hooks.context\n", "ctxres.linters"),
        ("from ctxres import hooks\n", "ctxres.linters"),
        ("def f():\n    from ctxres.hooks import alerts\n", "ctxres.linters"),
        ("if TYPE_CHECKING:\n    from ctxres.hooks.context import HookContext\n", "ctxres.linters"),
        ("from ..hooks import sessionstart\n", "ctxres.linters"),
        ("from ...hooks.context import HookError\n", "ctxres.linters.reporters"),
    ],
)
def test_a_planted_violation_is_caught(tmp_path: Path, source: str, package: str) -> None:
    folder = tmp_path / "linters"
    module = folder / "reporters" if package.endswith("reporters") else folder
    module.mkdir(parents=True)
    (module / "planted.py").write_text(source, "utf-8")
    assert len(violations(folder, "ctxres.linters", ("ctxres.hooks",))) == 1


def test_clean_and_lookalike_imports_pass(tmp_path: Path) -> None:
    folder = tmp_path / "ctxres"
    folder.mkdir()
    (folder / "fine.py").write_text(
        "import os\nfrom ctxres import prompts\nfrom ctxres.hooksmith import x\nfrom . import tokens\n", "utf-8"
    )
    assert violations(folder, "ctxres", ("ctxres.linters", "ctxres.hooks", "ctxres.schemas")) == []
    (folder / "bad.py").write_text("from ctxres.schemas import load\n", "utf-8")
    assert violations(folder, "ctxres", ("ctxres.schemas",)) == ["ctxres/bad.py:1: ctxres.schemas"]


# --- linters/rules/ holds rule families only, each page beside its check ----------------------------------

RULES_PACKAGE = "ctxres.linters.rules"
RULE_MODULE_MAX_LINES = 900  # a rules module has fewer lines than this


def _is_register(statement: ast.stmt) -> bool:
    """``NAME = register(...)`` or a bare ``register(...)`` at the top of a module."""
    call = statement.value if isinstance(statement, (ast.Assign, ast.Expr)) else None
    return isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "register"


def _uses(statement: ast.stmt, name: str) -> bool:
    return any(isinstance(node, ast.Name) and node.id == name for node in ast.walk(statement))


def page_far_from_check(body: list[ast.stmt], index: int) -> str | None:
    """Why the rule registered by ``body[index]`` is not beside its check, None when it is.

    Beside: the first top-level statement of the module that uses the rule's constant comes after the
    ``register(...)``, and no function or class is defined between them (only other rules' pages and
    constants stand there). A rule that no statement of its module uses (a command reports it) is free.
    """
    statement = body[index]
    if not isinstance(statement, ast.Assign) or not isinstance(statement.targets[0], ast.Name):
        return None
    name = statement.targets[0].id
    users = [i for i, other in enumerate(body) if i != index and _uses(other, name)]
    if not users:
        return None
    first = users[0]
    if first < index:
        return f"{name} is used on line {body[first].lineno}, above its register()"
    between = [s for s in body[index + 1 : first] if isinstance(s, (ast.FunctionDef, ast.ClassDef))]
    if between:
        return (
            f"{name}'s register() is separated from its first use (line {body[first].lineno}) by "
            f"{', '.join(s.name for s in between[:3])}{' ...' if len(between) > 3 else ''}"
        )
    return None


def rules_room_problems(folder: Path, listed: tuple[str, ...]) -> list[str]:
    """What makes ``folder`` (``linters/rules/``) more than rule families listed in ``listed`` (RULE_MODULES)."""
    modules = sorted(p for p in folder.glob("*.py") if p.name != "__init__.py")
    names = {f"{RULES_PACKAGE}.{p.stem}" for p in modules}
    problems = [f"{name} is not in RULE_MODULES" for name in sorted(names - set(listed))]
    problems += [f"{name} is in RULE_MODULES but not in {folder.name}/" for name in listed if name not in names]
    for path in modules:
        source = path.read_text("utf-8")
        if len(source.splitlines()) >= RULE_MODULE_MAX_LINES:
            problems.append(f"{path.name}: {len(source.splitlines())} lines (fewer than {RULE_MODULE_MAX_LINES})")
        body = ast.parse(source).body
        registers = [i for i, statement in enumerate(body) if _is_register(statement)]
        if not registers:
            problems.append(f"{path.name} registers no rule: a helper belongs beside what uses it, outside rules/")
        for index in registers:
            far = page_far_from_check(body, index)
            if far:
                problems.append(f"{path.name}:{body[index].lineno}: {far}")
    return problems


def test_linters_rules_holds_rule_families_only_each_page_beside_its_check() -> None:
    from ctxres.linters.rules import RULE_MODULES

    assert rules_room_problems(ROOT / "linters" / "rules", RULE_MODULES) == []


_FAMILY = """from ctxres.linters.checking.registry import register

{pages}

def _helper(text: str) -> str:
    return text.strip()


{check}
"""
_PAGE = 'FIRST = register("S901", "first", "The first rule.")\n'
_CHECK = "def check(text: str) -> list[str]:\n    return [FIRST.code] if _helper(text) else []\n"


def _plant(tmp_path: Path, sources: dict[str, str]) -> tuple[Path, tuple[str, ...]]:
    folder = tmp_path / "rules"
    folder.mkdir()
    (folder / "__init__.py").write_text("", "utf-8")
    for name, source in sources.items():
        (folder / f"{name}.py").write_text(source, "utf-8")
    return folder, tuple(f"{RULES_PACKAGE}.{name}" for name in sources)


def test_a_planted_rules_room_that_keeps_the_rules_passes(tmp_path: Path) -> None:
    beside = "def _helper(text: str) -> str:\n    return text\n\n\n" + _PAGE + "LIMIT = 3\n\n\n" + _CHECK
    folder, listed = _plant(tmp_path, {"family": beside, "by_command": 'USED_ELSEWHERE = register("S902", "x", "y")\n'})
    assert rules_room_problems(folder, listed) == []


@pytest.mark.parametrize(
    ("sources", "unlisted", "expected"),
    [
        (
            {"family": _FAMILY.format(pages=_PAGE, check=_CHECK)},
            (),
            "separated from its first use (line 10) by _helper",
        ),
        ({"family": _CHECK + "\n\n" + _PAGE}, (), "FIRST is used on line 1, above its register()"),
        (
            {"helpers": "def shared() -> int:\n    return 1\n"},
            (),
            "helpers.py registers no rule: a helper belongs beside what uses it, outside rules/",
        ),
        ({"family": _PAGE + "\n\n" + _CHECK + "# more\n" * 900}, (), "family.py: 905 lines (fewer than 900)"),
        ({"family": _PAGE + "\n\n" + _CHECK}, ("family",), "ctxres.linters.rules.family is not in RULE_MODULES"),
    ],
)
def test_a_planted_rules_room_violation_is_caught(
    tmp_path: Path, sources: dict[str, str], unlisted: tuple[str, ...], expected: str
) -> None:
    folder, listed = _plant(tmp_path, sources)
    listed = tuple(name for name in listed if name.rsplit(".", 1)[-1] not in unlisted)
    problems = rules_room_problems(folder, listed)
    assert len(problems) == 1 and problems[0].endswith(expected), problems


def test_a_module_listed_but_gone_from_the_rules_room_is_caught(tmp_path: Path) -> None:
    folder, listed = _plant(tmp_path, {"family": _PAGE + "\n\n" + _CHECK})
    problems = rules_room_problems(folder, (*listed, f"{RULES_PACKAGE}.dropped"))
    assert problems == [f"{RULES_PACKAGE}.dropped is in RULE_MODULES but not in rules/"]


# --- the core's import graph: no circle, no import running back up ---------------------------------------
#
# Inside the core a room is a loose module (``ctxres/ack.py``) or a family folder as a whole
# (``ctxres/formats/``, ``ctxres/state/``, ``ctxres/migration/``). A room stands above every room it
# imports, so the rooms form floors; an import that runs back up (``formats/loading.py`` importing
# ``artifacts``, which imports ``formats/``) puts two rooms in a circle. Modules must not import each
# other in a circle either, even inside one family.


def core_imports(folder: Path, package: str = "ctxres") -> dict[str, set[str]]:
    """module -> the core modules it imports (package ``__init__`` files are no targets: importing a
    submodule names its package, which is no arrow)."""
    modules = {}
    for path in sorted(folder.rglob("*.py")):
        parts = [package, *path.relative_to(folder).with_suffix("").parts]
        is_init = parts[-1] == "__init__"
        modules[".".join(parts[:-1] if is_init else parts)] = (path, is_init)
    targets = {name for name, (_, is_init) in modules.items() if not is_init}
    graph: dict[str, set[str]] = {}
    for name, (path, is_init) in modules.items():
        owner = name if is_init else name.rpartition(".")[0]
        graph[name] = {
            module
            for _, module in imported_modules(path.read_text("utf-8"), owner)
            if module in targets and module != name
        }
    return graph


def room_of(module: str, package: str = "ctxres") -> str:
    """``ctxres.formats.loading`` -> ``ctxres.formats``; a loose module is its own room."""
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] == package and len(parts) > 2 else module


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node, each sorted (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            nxt = next((e for e in edges if e not in index or e in on_stack), None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph.get(nxt, ())))))
                else:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return sorted(found)


def graph_problems(graph: dict[str, set[str]]) -> list[str]:
    """One line for every circle of modules and every import that runs back up between rooms."""
    problems = [f"circle: {' <-> '.join(circle)}" for circle in circles(graph)]
    rooms: dict[str, set[str]] = {}
    for module, imported in graph.items():
        rooms.setdefault(room_of(module), set()).update(room_of(m) for m in imported if room_of(m) != room_of(module))
    for circle in circles(rooms):
        members = set(circle)
        edges = [
            f"{module} -> {target}"
            for module, imported in sorted(graph.items())
            for target in sorted(imported)
            if room_of(module) in members and room_of(target) in members and room_of(module) != room_of(target)
        ]
        problems.append(f"rooms in a circle ({', '.join(circle)}): one of {'; '.join(edges)} runs back up")
    return problems


def test_the_core_has_no_import_circle_and_no_import_running_back_up() -> None:
    assert graph_problems(core_imports(ROOT / "ctxres")) == []


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        (
            {
                "state/live.py": "from ctxres.state.orchestration import X\n",
                "state/orchestration.py": "def f():\n    from ctxres.state import live\n",
            },
            ["circle: ctxres.state.live <-> ctxres.state.orchestration"],
        ),
        (
            {
                "formats/loading.py": "from ctxres.artifacts import Format\n",
                "artifacts.py": "from ctxres.formats.document import D\n",
            },
            [
                "rooms in a circle (ctxres.artifacts, ctxres.formats): one of ctxres.artifacts -> "
                "ctxres.formats.document; ctxres.formats.loading -> ctxres.artifacts runs back up"
            ],
        ),
        (
            {
                "formats/loading.py": "from ctxres.formats import document\n",
                "artifacts.py": "from ctxres.formats.loading import F\nimport ctxres\n",
            },
            [],
        ),
    ],
)
def test_a_planted_circle_or_import_back_up_is_caught(
    tmp_path: Path, files: dict[str, str], expected: list[str]
) -> None:
    folder = tmp_path / "ctxres"
    for name in ("__init__.py", "formats/__init__.py", "state/__init__.py", "formats/document.py", "state/live.py"):
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text("", "utf-8")
    for name, source in files.items():
        (folder / name).write_text(source, "utf-8")
    (folder / "state/orchestration.py").touch()
    assert graph_problems(core_imports(folder)) == expected


def test_the_repository_root_holds_no_script_but_the_noxfile() -> None:
    """The maintainer's scripts live in ``dev/``; the root holds the configuration and ``noxfile.py``
    (nox looks for it there)."""
    assert sorted(p.name for p in ROOT.glob("*.py")) == ["noxfile.py"]


def test_the_type_checker_sees_the_rooms_where_the_package_has_them() -> None:
    """``mypy`` and ``mypy linters/rules/x.py`` run in place from ``[tool.mypy]`` (``nox -s typecheck`` runs
    both): ``dev/typing/ctxres/`` holds one link per room that ``package-dir`` maps to a top-level folder,
    each to that folder, and the configuration searches it and checks through it."""
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    mapped = pyproject["tool"]["setuptools"]["package-dir"]
    rooms = {name.split(".")[1]: folder for name, folder in mapped.items() if name.count(".") == 1}
    typing = ROOT / "dev" / "typing" / "ctxres"
    links = {path.name: path for path in typing.iterdir()} if typing.is_dir() else {}
    assert sorted(links) == sorted(rooms)
    for room, folder in rooms.items():
        assert links[room].is_symlink() and links[room].resolve() == (ROOT / folder).resolve(), room
    mypy = pyproject["tool"]["mypy"]
    assert "dev/typing" in mypy["mypy_path"] and mypy["explicit_package_bases"] is True
    assert sorted(mypy["files"]) == ["ctxres", "dev/typing/ctxres"]
