"""One definition per concept: the live-status set, the status vocabularies and the checkpoint file
pattern live in the core (``ctxres/state/orchestration.py``, the checkpoint naming module), nowhere else.

The hooks, the linters and the git checks once carried their own copies and disagreed (the list
of live workflow statuses existed four times with different values). These tests read the source
of every module and fail when a second definition appears.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from ctxres.state import orchestration

ROOT = Path(__file__).resolve().parent.parent.parent
PACKAGES = ("ctxres", "hooks", "linters")
CORE_STATUS_MODULE = Path("ctxres/state/orchestration.py")
# Literal sets of status words, each word set by what identifies it.
_VOCABULARIES = {
    "live/workflow statuses": {"ACTIVE", "PAUSED"},
    "running statuses": {"IN_PROGRESS", "RUNNING"},
    "not-started statuses": {"PENDING", "NOT_STARTED"},
    "complete statuses": {"COMPLETE", "COMPLETED", "DONE"},
    "passed statuses": {"PASS", "PASSED"},
}
# A checkpoint file-name pattern: a glob or regex after `cx-`, or a formatted number.
_CHECKPOINT_PATTERN = re.compile(r"cx-(?:\[|\(|\\d|\{|%)")


def _modules() -> Iterator[Path]:
    for package in PACKAGES:
        yield from sorted((ROOT / package).rglob("*.py"))


def _string_elements(node: ast.AST) -> set[str]:
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return {e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)}
    if isinstance(node, ast.Call) and node.args and getattr(node.func, "id", "") in ("frozenset", "set", "tuple"):
        return _string_elements(node.args[0])
    return set()


def _status_literals(tree: ast.AST) -> Iterator[tuple[int, str]]:
    for node in ast.walk(tree):
        if not isinstance(node, ast.expr):
            continue
        words = _string_elements(node)
        for name, marker in _VOCABULARIES.items():
            if marker <= words:
                yield node.lineno, name
                break


def _checkpoint_literals(tree: ast.AST) -> Iterator[tuple[int, str]]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and _CHECKPOINT_PATTERN.search(node.value):
            yield node.lineno, node.value
        elif isinstance(node, ast.JoinedStr):
            text = "".join(
                part.value if isinstance(part, ast.Constant) and isinstance(part.value, str) else "{"
                for part in node.values
            )
            if _CHECKPOINT_PATTERN.search(text):
                yield node.lineno, text


def _checkpoint_core_modules() -> set[Path]:
    """The modules allowed to spell the checkpoint file pattern: the one that defines it."""
    owners = set()
    for path in _modules():
        tree = ast.parse(path.read_text("utf-8"))
        if any(True for _ in _checkpoint_literals(tree)):
            owners.add(path.relative_to(ROOT))
    return owners


def test_status_vocabularies_are_defined_once_in_the_core() -> None:
    found = []
    for path in _modules():
        rel = path.relative_to(ROOT)
        if rel == CORE_STATUS_MODULE:
            continue
        for line, name in _status_literals(ast.parse(path.read_text("utf-8"))):
            found.append(f"{rel}:{line}: a second list of {name}")
    assert not found, "use the sets of ctxres.state.orchestration instead:\n" + "\n".join(found)


def test_the_core_defines_the_vocabularies_the_guard_looks_for() -> None:
    """The guard above would pass vacuously if its markers matched nothing; they match the core."""
    tree = ast.parse((ROOT / CORE_STATUS_MODULE).read_text("utf-8"))
    assert {name for _, name in _status_literals(tree)} == set(_VOCABULARIES)


def test_the_checkpoint_file_pattern_is_defined_in_one_module() -> None:
    owners = _checkpoint_core_modules()
    assert len(owners) == 1, f"the checkpoint file pattern is spelled in several modules: {sorted(map(str, owners))}"


def test_the_guards_catch_a_second_definition() -> None:
    copy = ast.parse('LIVE = ("ACTIVE", "PAUSED")\nNAME = re.compile(r"^cx-(\\d{3})\\.json$")\n')
    assert [name for _, name in _status_literals(copy)] == ["live/workflow statuses"]
    assert [line for line, _ in _checkpoint_literals(copy)] == [2]
    prose = ast.parse('HELP = "an id such as cx-002"\nWORDS = ("ACTIVE", "COMPLETE")\n')
    assert not list(_checkpoint_literals(prose)) and not list(_status_literals(prose))


def test_the_schema_enum_is_the_core_enum() -> None:
    """The v2.0 schema's `workflow_status` enum (pydantic, not importable by hooks) and the core agree."""
    from ctxres.schemas.resumption import WorkflowStatus

    assert tuple(member.value for member in WorkflowStatus) == orchestration.WORKFLOW_STATUSES


@pytest.mark.parametrize("word", sorted(orchestration.LIVE_STATUSES))
def test_live_statuses_are_workflow_statuses(word: str) -> None:
    assert word in orchestration.WORKFLOW_STATUSES
