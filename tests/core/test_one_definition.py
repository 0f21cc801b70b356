"""One definition per concept: the live-status set, the status vocabularies and the checkpoint file
pattern live in the core (``ctxres/state/orchestration.py``, the checkpoint naming module), nowhere else.

The hooks, the linters and the git checks once carried their own copies and disagreed (the list
of live workflow statuses existed four times with different values). These tests read the source
of every module and fail when a second definition appears.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Literal

import pytest

from ctxres import hook_events
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


Scan = Callable[[ast.AST], Iterator[tuple[int, str]]]


def _named_in(scan: Scan, paths: Iterable[Path], but: Path | None = None) -> list[str]:
    """``path:line: name`` of what ``scan`` finds in each module of ``paths`` other than ``but``."""
    return [
        f"{path.relative_to(ROOT)}:{line}: {name}"
        for path in paths
        if path.relative_to(ROOT) != but
        for line, name in scan(ast.parse(path.read_text("utf-8")))
    ]


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


# --------------------------------------------------------------------------------------------
# One YAML emitter: ctxres/formats/yamlemit.py
# --------------------------------------------------------------------------------------------

YAML_EMITTER_MODULE = Path("ctxres/formats/yamlemit.py")


def _flow_emitters(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """Functions that write a flow mapping by calling themselves on its values: ``"{" + ... + "}"``."""
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        opens = any(
            isinstance(inner, ast.BinOp) and isinstance(inner.left, ast.Constant) and inner.left.value == "{"
            for inner in ast.walk(node)
        )
        recursive = any(
            isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name) and inner.func.id == node.name
            for inner in ast.walk(node)
        )
        if opens and recursive:
            yield node.lineno, node.name


def test_one_module_writes_yaml_flow_values() -> None:
    found = _named_in(_flow_emitters, _modules(), but=YAML_EMITTER_MODULE)
    assert not found, "use ctxres.formats.yamlemit (flow, render) instead:\n" + "\n".join(found)
    assert [name for _, name in _flow_emitters(ast.parse((ROOT / YAML_EMITTER_MODULE).read_text("utf-8")))] == ["flow"]


def test_the_emitter_guard_catches_a_second_emitter() -> None:
    copy = ast.parse(
        "def _inline(value):\n"
        "    if isinstance(value, dict):\n"
        '        return "{" + ", ".join(f"{k}: {_inline(v)}" for k, v in value.items()) + "}"\n'
        "    return scalar(value)\n"
    )
    assert [name for _, name in _flow_emitters(copy)] == ["_inline"]


# --------------------------------------------------------------------------------------------
# One warn helper in the hooks: hooks/context.py's warn
# --------------------------------------------------------------------------------------------

WARN_MODULE = Path("hooks/context.py")


def _warn_helpers(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """Functions named like a warn helper, and direct writes to stderr."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.lstrip("_") == "warn":
            yield node.lineno, f"def {node.name}"
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("write", "print")
            and isinstance(node.func.value, ast.Attribute)
            and node.func.value.attr == "stderr"
        ):
            yield node.lineno, "sys.stderr.write"
        elif (
            isinstance(node, ast.Call)
            and getattr(node.func, "id", "") == "print"
            and any(k.arg == "file" and getattr(k.value, "attr", "") == "stderr" for k in node.keywords)
        ):
            yield node.lineno, "print(file=sys.stderr)"


def test_every_hook_warns_through_one_helper() -> None:
    # hooks/__init__.py refuses a core of another checkout before any hook module, the helper's included, can load
    modules = sorted(p for p in (ROOT / "hooks").rglob("*.py") if p != ROOT / "hooks" / "__init__.py")
    found = _named_in(_warn_helpers, modules, but=WARN_MODULE)
    assert not found, "call ctxres.hooks.context.warn(message, event) instead:\n" + "\n".join(found)
    owner = sorted(what for _, what in _warn_helpers(ast.parse((ROOT / WARN_MODULE).read_text("utf-8"))))
    assert owner == ["def warn", "sys.stderr.write"]


def test_the_warn_guard_catches_a_second_helper() -> None:
    copy = ast.parse(
        "def _warn(ctx, message):\n    warn(f'{ctx.event}: {message}')\n"
        "def report(text):\n    sys.stderr.write(text)\n    print(text, file=sys.stderr)\n"
    )
    assert [what for _, what in _warn_helpers(copy)] == ["def _warn", "sys.stderr.write", "print(file=sys.stderr)"]


# --------------------------------------------------------------------------------------------
# One policy (selection, suppression comments, per-file ignores, severities): the engine's _Policy
# --------------------------------------------------------------------------------------------

SUPPRESSION_MODULE = Path("linters/checking/suppression.py")


def _suppression_deciders(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """Functions that ask the suppression comments whether they silence a finding."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
            isinstance(inner, ast.Call)
            and isinstance(inner.func, ast.Attribute)
            and inner.func.attr in ("covering", "covers")
            for inner in ast.walk(node)
        ):
            yield node.lineno, node.name


def test_one_function_decides_whether_a_comment_silences_a_finding() -> None:
    found = _named_in(_suppression_deciders, _modules(), but=SUPPRESSION_MODULE)
    assert [entry.split(": ", 1)[1] for entry in found] == ["decide"], (
        "the engine's _Policy.decide applies the policy; use it (apply_policy does):\n" + "\n".join(found)
    )


def test_the_policy_guard_catches_a_second_policy() -> None:
    copy = ast.parse(
        "def apply_policy(findings, comments):\n"
        "    return [f for f in findings if not comments[f.path].covering(f.code, f.position.line)]\n"
    )
    assert [name for _, name in _suppression_deciders(copy)] == ["apply_policy"]


# --------------------------------------------------------------------------------------------
# One hook-event table: ctxres/hook_events.py
# --------------------------------------------------------------------------------------------

HOOK_EVENTS_MODULE = Path("ctxres/hook_events.py")


def _event_lists(tree: ast.AST) -> Iterator[int]:
    """Literal tuples, lists, sets and dict keys that name every hook event."""
    events = set(hook_events.EVENTS)
    for node in ast.walk(tree):
        words = _string_elements(node) if isinstance(node, ast.expr) else set()
        if isinstance(node, ast.Dict):
            words = {k.value for k in node.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)}
        if events <= words:
            yield node.lineno


def test_the_hook_events_are_listed_only_in_their_table() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{line}"
        for path in _modules()
        if path.relative_to(ROOT) != HOOK_EVENTS_MODULE
        for line in _event_lists(ast.parse(path.read_text("utf-8")))
    ]
    assert not found, "derive the list from ctxres.hook_events.HOOK_EVENTS:\n" + "\n".join(found)


def test_the_event_guard_catches_a_second_list() -> None:
    events = hook_events.EVENTS
    copy = ast.parse(f"EVENTS = {events!r}\nMODULES = {dict.fromkeys(events, 'a')!r}\nSOME = {events[:-1]!r}\n")
    assert list(_event_lists(copy)) == [1, 2]


def test_the_hook_models_cover_the_table() -> None:
    """The pydantic models of the hooks' stdin and stdout (not importable by the hooks) and the table agree."""
    from ctxres.schemas import hook_io

    assert tuple(hook_io.HOOK_INPUT_MODELS) == hook_events.EVENTS
    assert tuple(hook_io.HOOK_OUTPUT_MODELS) == hook_events.EVENTS
    for name, model in hook_io.HOOK_INPUT_MODELS.items():
        assert model.model_fields["hook_event_name"].annotation == Literal[name]  # type: ignore[valid-type]
    stems = {f"hook-{name.lower()}-{side}" for name in hook_events.EVENTS for side in ("input", "output")}
    assert set(hook_io.HOOK_SCHEMAS) == stems


def test_every_event_has_its_handler_module() -> None:
    for event in hook_events.HOOK_EVENTS:
        assert (ROOT / "hooks" / f"{event.module}.py").is_file(), event.name


# --------------------------------------------------------------------------------------------
# One reader of Nexus project and build ids in paths and shell commands: ctxres.nexus._ids
# --------------------------------------------------------------------------------------------


def _id_scanners(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """Functions that search a text for a folder and test what follows it with ``is_project_id``."""
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        calls = {
            inner.func.attr if isinstance(inner.func, ast.Attribute) else getattr(inner.func, "id", "")
            for inner in ast.walk(node)
            if isinstance(inner, ast.Call)
        }
        if {"find", "is_project_id"} <= calls:
            yield node.lineno, node.name


def test_one_function_reads_nexus_ids_in_paths_and_commands() -> None:
    found = _named_in(_id_scanners, _modules())
    assert [entry.rsplit(": ", 1)[1] for entry in found] == ["_ids"], "\n".join(found)


def test_the_id_guard_catches_a_second_reader() -> None:
    copy = ast.parse(
        "def project_in_path(path):\n"
        "    at = path.find('02-projects/')\n"
        "    candidate = path[at + 12 :].split('/')[0]\n"
        "    return candidate if is_project_id(candidate) else None\n"
    )
    assert [name for _, name in _id_scanners(copy)] == ["project_in_path"]
