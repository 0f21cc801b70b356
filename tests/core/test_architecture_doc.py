"""docs/architecture.md is the map a new maintainer reads: it names every module where it is, and
its recipes name files that exist.

Each folder of the package has a heading ``### `folder/` `` followed by a table whose first column
names the folder's modules (`` `name` ``, without ``.py``; ``__init__`` is the folder itself). The
test compares each table with the folder, both ways, and checks that every folder of the package has
its heading. In the "Where to add…" recipes, every path in backquotes exists (``<placeholder>``
parts match any name; a path ending in ``.NAME`` names something that file defines).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
DOC = ROOT / "docs" / "architecture.md"
PACKAGE_FOLDERS = ("ctxres", "hooks", "schemas", "linters")
TOP_FILES = ("pyproject.toml", "README.md", "noxfile.py", ".pre-commit-hooks.yaml", ".pre-commit-config.yaml")

_HEADING = re.compile(r"^### `([^`]+)/`\s*$", re.MULTILINE)
_ROW_NAME = re.compile(r"^\| `([A-Za-z_][A-Za-z0-9_]*)` \|", re.MULTILINE)
_CODE = re.compile(r"`([^`\s]+)`")


def folder_tables(text: str) -> dict[str, set[str]]:
    """The modules each ``### `folder/` `` section's tables name (first column), by folder."""
    tables: dict[str, set[str]] = {}
    headings = list(_HEADING.finditer(text))
    for heading, following in zip(headings, [*headings[1:], None], strict=True):
        end = following.start() if following else len(text)
        section = text[heading.end() : end]
        section = section.split("\n## ", 1)[0]
        tables[heading.group(1)] = set(_ROW_NAME.findall(section))
    return tables


def package_folders(root: Path) -> dict[str, set[str]]:
    """Every folder of the package that holds Python modules, and its modules (no ``__init__``)."""
    found: dict[str, set[str]] = {}
    for top in PACKAGE_FOLDERS:
        for init in sorted((root / top).rglob("__init__.py")):
            folder = init.parent
            if any(part.startswith((".", "__")) or part == "build" for part in folder.relative_to(root).parts):
                continue
            found[folder.relative_to(root).as_posix()] = {p.stem for p in folder.glob("*.py") if p.stem != "__init__"}
    return found


def map_problems(text: str, root: Path) -> list[str]:
    tables = folder_tables(text)
    problems = []
    for folder, modules in package_folders(root).items():
        if folder not in tables:
            problems.append(f"no section for `{folder}/`")
            continue
        problems += [f"`{folder}/{m}.py` is not in the map" for m in sorted(modules - tables[folder])]
        problems += [f"the map names `{folder}/{m}.py`, which does not exist" for m in sorted(tables[folder] - modules)]
    gone = [folder for folder in tables if not (root / folder).is_dir()]
    problems += [f"the map has a section for `{folder}/`, which is no package folder" for folder in gone]
    return problems


def _path_exists(token: str, root: Path) -> bool:
    pattern = re.sub(r"<[^>]+>", "*", token.rstrip("/"))
    if any(root.glob(pattern)):
        return True
    if "*" in pattern:  # a file the recipe tells you to create: its folder exists
        return (root / pattern).parent.is_dir() and "*" not in str(Path(pattern).parent)
    module, _, name = pattern.rpartition(".")
    source = root / f"{module}.py"
    if not name or not source.is_file():
        return False
    return re.search(rf"\b{re.escape(name)}\b", source.read_text("utf-8")) is not None


def recipe_problems(text: str, root: Path) -> list[str]:
    recipes = text.split("## Where to add", 1)[1] if "## Where to add" in text else ""
    problems = []
    for token in _CODE.findall(recipes):
        looks_like_path = "/" in token and not token.startswith(("-", "$")) and re.match(r"^[\w.<>*/-]+$", token)
        if (looks_like_path or token in TOP_FILES) and not _path_exists(token, root):
            problems.append(f"a recipe names `{token}`, which does not exist")
    return problems


def test_every_module_is_in_the_map_and_the_map_names_only_modules() -> None:
    assert map_problems(DOC.read_text("utf-8"), ROOT) == []


def test_every_file_a_recipe_names_exists() -> None:
    text = DOC.read_text("utf-8")
    assert "## Where to add" in text
    assert recipe_problems(text, ROOT) == []


def test_the_recipes_cover_rules_artifacts_events_formats_and_commands() -> None:
    recipes = DOC.read_text("utf-8").split("## Where to add", 1)[1]
    for what in ("A rule.", "An artifact kind.", "A hook event.", "An output format.", "A command."):
        assert f"**{what}**" in recipes


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    for folder in ("ctxres", "ctxres/state", "hooks", "schemas", "linters"):
        (tmp_path / folder).mkdir(parents=True, exist_ok=True)
        (tmp_path / folder / "__init__.py").write_text("", "utf-8")
    (tmp_path / "ctxres" / "atomic.py").write_text("", "utf-8")
    (tmp_path / "ctxres" / "state" / "orchestration.py").write_text("EVENTS = ()\n", "utf-8")
    (tmp_path / "hooks" / "main.py").write_text("", "utf-8")
    return tmp_path


MAP = """# Map
### `ctxres/`
| module | holds |
|---|---|
| `atomic` | writes |
### `ctxres/state/`
| module | holds |
|---|---|
| `orchestration` | the model |
### `hooks/`
| `main` | dispatch |
### `schemas/`
### `linters/`
## Where to add…
- Files: `ctxres/state/orchestration.py`, `hooks/<event>.py`, `ctxres/state/orchestration.EVENTS`, `pyproject.toml`.
"""


def test_a_true_map_passes(tree: Path) -> None:
    (tree / "pyproject.toml").write_text("", "utf-8")
    assert map_problems(MAP, tree) == []
    assert recipe_problems(MAP, tree) == []


def test_a_module_left_out_or_a_module_that_is_gone_is_caught(tree: Path) -> None:
    (tree / "ctxres" / "state" / "statediff.py").write_text("", "utf-8")
    (tree / "ctxres" / "atomic.py").unlink()
    assert sorted(map_problems(MAP, tree)) == [
        "`ctxres/state/statediff.py` is not in the map",
        "the map names `ctxres/atomic.py`, which does not exist",
    ]


def test_a_new_package_folder_without_a_section_is_caught(tree: Path) -> None:
    (tree / "ctxres" / "formats").mkdir()
    (tree / "ctxres" / "formats" / "__init__.py").write_text("", "utf-8")
    assert map_problems(MAP, tree) == ["no section for `ctxres/formats/`"]


def test_a_recipe_naming_a_missing_file_or_name_is_caught(tree: Path) -> None:
    problems = recipe_problems(MAP, tree)
    assert problems == ["a recipe names `pyproject.toml`, which does not exist"]
    broken = MAP.replace("orchestration.EVENTS", "orchestration.MODULES")
    broken = broken.replace("`hooks/<event>.py`", "`hookz/<e>.py`")
    (tree / "pyproject.toml").write_text("", "utf-8")
    assert sorted(recipe_problems(broken, tree)) == [
        "a recipe names `ctxres/state/orchestration.MODULES`, which does not exist",
        "a recipe names `hookz/<e>.py`, which does not exist",
    ]
