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
