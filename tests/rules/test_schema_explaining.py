"""The explainer finds jsonschema's errors (every field the conformance rules read, in the same order) on
schemas that use each keyword it implements, for generated values; schemas with anything else are left to
jsonschema. The shipped schemas are compared on the fixtures in test_schema_validity.py."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from ctxres.linters.validation.schema_explaining import Explainer, explainer
from ctxres.linters.validation.schema_validity import compile_validity

from .schema_error_fields import flat_errors

SCHEMAS: list[dict[str, Any]] = [
    {
        "type": "object",
        "required": ["kind", "size"],
        "properties": {
            "kind": {"enum": ["a", "b", 3]},
            "size": {"type": "integer", "minimum": 0, "exclusiveMaximum": 10},
            "name": {"type": "string", "minLength": 2, "maxLength": 4, "pattern": "^[a-z]+$"},
            "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 2},
            "ratio": {"type": ["number", "null"], "maximum": 1, "exclusiveMinimum": 0},
            "flag": {"const": True},
            "never": False,
        },
        "additionalProperties": False,
    },
    {
        "$defs": {
            "leaf": {"type": "string", "format": "date-time"},
            "tree": {"anyOf": [{"$ref": "#/$defs/leaf"}, {"type": "array", "items": {"$ref": "#/$defs/tree"}}]},
            "nothing": False,
        },
        "type": "object",
        "properties": {
            "root": {"$ref": "#/$defs/tree"},
            "self": {"$ref": "#"},
            "zz": {"$ref": "#/$defs/nothing"},
            "tags": {"items": {"$ref": "#/$defs/nothing"}},
            "x": {"anyOf": [{"$ref": "#/$defs/nothing"}, {"type": "integer"}]},
            "c": {"allOf": [{"type": "string"}, False]},
        },
        "additionalProperties": {"type": "integer"},
    },
    {
        "oneOf": [{"type": "integer"}, {"type": "number", "minimum": 5}, {"required": ["a"]}],
        "not": {"type": "array", "maxItems": 0},
    },
    {
        "anyOf": [{"required": ["a"]}, {"required": ["b", "c"]}],
        "allOf": [
            {"properties": {"a": {"type": "string"}}},
            {"properties": {"b": {"anyOf": [{"type": "null"}, {"type": "object", "required": ["x"]}]}}},
        ],
        "if": {"properties": {"a": {"const": "x"}}, "required": ["a"]},
        "then": {"required": ["d"]},
        "else": {"properties": {"d": False}},
    },
    {"type": "array", "items": False},
    {"items": {"oneOf": [{"type": "string"}, {"type": "string", "maxLength": 1}]}},
]

_keys = st.sampled_from(
    ["kind", "size", "name", "tags", "ratio", "flag", "never", "root", "self", "a", "b", "c", "d", "x", "zz"]
)
_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-3, max_value=12),
    st.sampled_from([0.5, 1.0, 1.5, 5.0, 10.0, float("nan")]),
    st.sampled_from(["", "a", "b", "ab", "abcde", "A1", "x", "2026-01-01T00:00:00Z"]),
)
values = st.recursive(
    _scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(_keys, inner, max_size=5)),
    max_leaves=12,
)


def _explainer(schema: dict[str, Any]) -> Explainer:
    parts: dict[int, Callable[[Any], bool]] = {}
    assert compile_validity(schema, parts) is not None
    found = explainer(schema, parts)
    assert found is not None
    return found


@pytest.mark.parametrize("number", range(len(SCHEMAS)))
@settings(max_examples=300, deadline=None)
@given(value=values)
def test_the_errors_are_jsonschemas(number: int, value: Any) -> None:
    schema = SCHEMAS[number]
    assert flat_errors(_explainer(schema), value) == flat_errors(Draft202012Validator(schema), value)


@pytest.mark.parametrize(
    "schema",
    [
        {"patternProperties": {"^x": {"type": "string"}}},
        {"$ref": "other.schema.json"},
        {"$ref": "#/$defs/missing"},
        {"properties": {"a": {"$id": "inner", "type": "string"}}},
        {"prefixItems": [{"type": "string"}]},
        {"uniqueItems": True},
        {"type": "text"},
    ],
)
def test_a_schema_with_anything_else_is_left_to_jsonschema(schema: dict[str, Any]) -> None:
    assert explainer(schema, {}) is None


def test_an_anyof_error_holds_its_branches_errors() -> None:
    schema = {"properties": {"v": {"anyOf": [{"type": "integer"}, {"type": "object", "required": ["a"]}]}}}
    (error,) = _explainer(schema).iter_errors({"v": {"b": 1}})
    assert error.validator == "anyOf" and tuple(error.absolute_path) == ("v",)
    assert [(sub.validator, tuple(sub.relative_schema_path), tuple(sub.absolute_path)) for sub in error.context] == [
        ("type", (0, "type"), ("v",)),
        ("required", (1, "required"), ("v",)),
    ]
