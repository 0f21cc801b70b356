"""The compiled validity of each schema agrees with jsonschema: on every document of the fixtures, and on
values mutated from them (a key dropped, a value of another type, an unknown key)."""

from __future__ import annotations

import copy
import itertools
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from ctxres.config import load_config
from ctxres.formats.loading import Limits, load_file
from ctxres.linters.checking.discovery import discover
from ctxres.linters.rules import conformance
from ctxres.linters.validation.schema_explaining import Explainer
from ctxres.linters.validation.schema_validity import compile_validity, equal

from .schema_error_fields import flat_errors

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = sorted((ROOT / "schemas").glob("*.schema.json"))


def _targets() -> list[tuple[str, str, Any]]:
    config = load_config(ROOT / "fixtures", None)
    out = []
    for artifact in discover([ROOT / "fixtures"], config):
        result = load_file(str(artifact.path), artifact.kind, artifact.format, Limits(), artifact.display)
        if result.document is None:
            continue
        for name, _, value in conformance.targets(result.document):
            out.append((artifact.display, name, value))
    return out


TARGETS = _targets()


def _jsonschema_valid(name: str, value: Any) -> bool:
    return not any(True for _ in Draft202012Validator(conformance.schema(name)).iter_errors(value))


@pytest.mark.parametrize("path", SCHEMAS, ids=lambda p: p.name)
def test_every_schema_compiles(path: Path) -> None:
    assert compile_validity(json.loads(path.read_text("utf-8"))) is not None


def test_the_fixtures_hold_valid_and_invalid_documents_of_each_schema() -> None:
    assert len(TARGETS) > 100
    verdicts = {(name, _jsonschema_valid(name, value)) for _, name, value in TARGETS}
    names = {name for _, name, _ in TARGETS}
    assert {name for name, valid in verdicts if valid} >= names - {"resumption-v1"}
    assert len({name for name, valid in verdicts if not valid}) >= 4


@pytest.mark.parametrize("where,name,value", TARGETS, ids=[f"{w}:{n}" for w, n, _ in TARGETS])
def test_validity_agrees_with_jsonschema_on_the_fixtures(where: str, name: str, value: Any) -> None:
    assert conformance.validity(name)(value) == _jsonschema_valid(name, value)


_REPLACEMENTS: list[Any] = [None, True, 0, -1, 1.5, 2.0, float("nan"), "", "x", "2026-01-01T00:00:00Z", [], {}, [1]]


def _places(node: Any) -> list[tuple[Any, Any]]:
    """(container, key or index) of every value inside ``node``, depth first."""
    out: list[tuple[Any, Any]] = []
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, item in items:
        out.append((node, key))
        out += _places(item)
    return out


def _mutations(value: Any) -> Iterator[Any]:
    """Copies of ``value`` with one change each, at every place of it."""
    for number in range(len(_places(value))):
        for change in range(len(_REPLACEMENTS) + 2):
            mutated = copy.deepcopy(value)
            parent, key = _places(mutated)[number]
            if change == len(_REPLACEMENTS):
                del parent[key]
            elif change == len(_REPLACEMENTS) + 1:
                if not isinstance(parent, dict):
                    continue
                parent["zz_unknown"] = 1
            else:
                parent[key] = copy.deepcopy(_REPLACEMENTS[change])
            yield mutated


def _sample() -> list[tuple[str, str, Any]]:
    """One document of each schema, a valid one where there is one."""
    chosen: dict[str, tuple[str, str, Any]] = {}
    for where, name, value in TARGETS:
        if name not in chosen or (_jsonschema_valid(name, value) and not _jsonschema_valid(name, chosen[name][2])):
            chosen[name] = (where, name, value)
    return sorted(chosen.values(), key=lambda item: item[1])


@pytest.mark.parametrize("where,name,value", _sample(), ids=[f"{n}" for _, n, _ in _sample()])
def test_validity_agrees_with_jsonschema_on_mutated_documents(where: str, name: str, value: Any) -> None:
    validity = conformance.validity(name)
    for mutated in itertools.islice(_mutations(value), 1500):
        assert validity(mutated) == _jsonschema_valid(name, mutated), (where, mutated)


def test_equality_is_jsonschemas() -> None:
    assert equal(1, 1.0) and not equal(True, 1) and not equal(0, False) and equal(False, False)
    assert equal({"a": [1, "x"]}, {"a": [1.0, "x"]}) and not equal({"a": True}, {"a": 1})
    assert not equal("1", 1) and not equal([1], [1, 1]) and not equal({"a": 1}, {"b": 1})


@pytest.mark.parametrize("path", SCHEMAS, ids=lambda p: p.name)
def test_every_schema_is_explained_without_jsonschema(path: Path) -> None:
    assert isinstance(conformance.validator(path.name.removesuffix(".schema.json")), Explainer)


@pytest.mark.parametrize("where,name,value", TARGETS, ids=[f"{w}:{n}" for w, n, _ in TARGETS])
def test_the_explaining_validator_finds_jsonschemas_errors(where: str, name: str, value: Any) -> None:
    plain = Draft202012Validator(conformance.schema(name))
    assert flat_errors(conformance.validator(name), value) == flat_errors(plain, value)


@pytest.mark.parametrize("where,name,value", _sample(), ids=[f"{n}" for _, n, _ in _sample()])
def test_the_explaining_validator_finds_jsonschemas_errors_in_mutated_documents(
    where: str, name: str, value: Any
) -> None:
    plain = Draft202012Validator(conformance.schema(name))
    for mutated in itertools.islice(_mutations(value), 400):
        assert flat_errors(conformance.validator(name), mutated) == flat_errors(plain, mutated), (where, mutated)


_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.sampled_from([1.0, 2.5, "a", "b", "1", ""]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["a", "b", "c"]), inner, max_size=3),
    max_leaves=6,
)
_LEAF_SCHEMAS = st.sampled_from(
    [
        {"type": "string"},
        {"type": ["integer", "null"]},
        {"type": ["boolean", "array", "object"]},
        {"enum": ["a", 1, None, [1], {"a": 1}, True]},
        {"enum": ["b", "1"]},
        {"const": "a"},
        {"required": ["a", "b"]},
        {"minItems": 1},
        {"items": {"type": "integer"}},
        {"properties": {"a": {"type": "string"}, "b": {"enum": [1, 2]}}},
        {"additionalProperties": {"type": "integer"}, "properties": {"a": True}},
        {"required": ["a"], "type": "object"},
    ]
)
_SCHEMAS = st.recursive(
    _LEAF_SCHEMAS,
    lambda inner: st.lists(inner, min_size=1, max_size=3).flatmap(
        lambda branches: st.sampled_from([{"anyOf": branches}, {"allOf": branches}, {"oneOf": branches}])
    ),
    max_leaves=4,
)


@settings(max_examples=300, deadline=None)
@given(_SCHEMAS, _VALUES)
def test_compiled_keywords_agree_with_jsonschema(schema: dict[str, Any], value: Any) -> None:
    """anyOf/allOf/oneOf of one to three branches, enum and const with members of every type, required, type lists:
    the compiled predicate is jsonschema's verdict."""
    valid = compile_validity(schema)
    assert valid is not None
    assert bool(valid(value)) == Draft202012Validator(schema).is_valid(value)
