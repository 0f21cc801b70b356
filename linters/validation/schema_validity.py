"""Whether a value is valid against a JSON Schema, fast: the schema compiled to nested Python predicates.

Most checked files are valid, and for them jsonschema (pure Python, general) costs more than everything else
a check does with the file. :func:`compile_validity` turns a schema into one predicate for the keywords the
ctxres schemas use, with the semantics of jsonschema's ``Draft202012Validator`` (no format assertion, as
jsonschema without a format checker). The conformance rules ask it first and ask jsonschema for the errors
only when it says "invalid": a value it calls valid is one jsonschema finds no error in. A schema with a
keyword it does not know compiles to None (jsonschema then decides every value).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

# `ctxres check` loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    Valid = Callable[[Any], bool]

# Keywords that assert nothing (annotations, and `format`, which jsonschema asserts only with a format checker;
# `discriminator`, which pydantic writes for a union told apart by one field, is OpenAPI's: jsonschema ignores it).
_ANNOTATIONS = frozenset(
    {
        "$schema",
        "$comment",
        "$defs",
        "definitions",
        "title",
        "description",
        "default",
        "examples",
        "deprecated",
        "readOnly",
        "writeOnly",
        "format",
        "contentMediaType",
        "contentEncoding",
        "discriminator",
    }
)


class Unsupported(ValueError):
    """The schema uses a keyword (or a reference) that :func:`compile_validity` does not compile."""


def _is_integer(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, float) and value.is_integer())


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


_TYPES: dict[str, Valid] = {
    "null": lambda value: value is None,
    "boolean": lambda value: isinstance(value, bool),
    "integer": _is_integer,
    "number": _is_number,
    "string": lambda value: isinstance(value, str),
    "array": lambda value: isinstance(value, list),
    "object": lambda value: isinstance(value, dict),
}


def equal(one: Any, two: Any) -> bool:
    """JSON equality as jsonschema's ``const`` and ``enum`` compare: ``true`` is not ``1``, ``1`` is ``1.0``."""
    if one is two:
        return True
    if isinstance(one, str) or isinstance(two, str):
        return bool(one == two)
    if isinstance(one, list) and isinstance(two, list):
        return len(one) == len(two) and all(equal(a, b) for a, b in zip(one, two, strict=True))
    if isinstance(one, dict) and isinstance(two, dict):
        return one.keys() == two.keys() and all(equal(one[key], two[key]) for key in one)
    if isinstance(one, bool) or isinstance(two, bool):
        return isinstance(one, bool) and isinstance(two, bool) and one == two
    return bool(one == two)


class _Compiler:
    def __init__(self, root: Mapping[str, Any], parts: dict[int, Valid]) -> None:
        self.root = root
        self.refs: dict[str, list[Valid]] = {}  # reference -> [its predicate], filled once compiled
        self.parts = parts  # id of each (sub)schema mapping -> its predicate

    def reference(self, ref: str) -> Valid:
        if ref != "#" and not ref.startswith("#/"):
            raise Unsupported(f"$ref {ref!r}")
        if ref not in self.refs:
            cell: list[Valid] = []
            self.refs[ref] = cell
            target: Any = self.root
            for token in ref[2:].split("/") if ref != "#" else ():
                token = token.replace("~1", "/").replace("~0", "~")
                if not isinstance(target, Mapping) or token not in target:
                    raise Unsupported(f"$ref {ref!r} leads nowhere")
                target = target[token]
            cell.append(self.schema(target))
        cell = self.refs[ref]
        return lambda value: cell[0](value)

    def schema(self, schema: Any) -> Valid:
        if schema is True:
            return lambda value: True
        if schema is False:
            return lambda value: False
        if not isinstance(schema, Mapping):
            raise Unsupported(f"schema {schema!r}")
        if "$id" in schema and schema is not self.root:
            raise Unsupported("$id in a subschema")
        checks = [self.keyword(keyword, argument, schema) for keyword, argument in schema.items()]
        tests = [check for check in checks if check is not None]
        valid = _every(tests)
        self.parts[id(schema)] = valid
        return valid

    def keyword(self, keyword: str, argument: Any, schema: Mapping[str, Any]) -> Valid | None:
        if keyword in _ANNOTATIONS or keyword in ("$id", "then", "else"):
            return None
        method = getattr(self, "_" + keyword.lstrip("$"), None)
        if method is None:
            raise Unsupported(f"keyword {keyword!r}")
        result: Valid | None = method(argument, schema)
        return result

    def _ref(self, ref: Any, schema: Mapping[str, Any]) -> Valid:
        if not isinstance(ref, str):
            raise Unsupported("$ref")
        return self.reference(ref)

    def _type(self, names: Any, schema: Mapping[str, Any]) -> Valid:
        tests = [_TYPES[names]] if isinstance(names, str) else [_TYPES[name] for name in names]
        return _some(tests)

    def _properties(self, properties: Mapping[str, Any], schema: Mapping[str, Any]) -> Valid:
        compiled = [(name, self.schema(sub)) for name, sub in properties.items()]

        def valid(value: Any) -> bool:
            if not isinstance(value, dict):
                return True
            for name, test in compiled:  # noqa: SIM110 - no generator per call
                if name in value and not test(value[name]):
                    return False
            return True

        return valid

    def _additionalProperties(self, extra: Any, schema: Mapping[str, Any]) -> Valid:
        if "patternProperties" in schema:
            raise Unsupported("patternProperties")
        known = frozenset(schema.get("properties", {}))
        test = self.schema(extra)

        def valid(value: Any) -> bool:
            if not isinstance(value, dict):
                return True
            for key, item in value.items():  # noqa: SIM110 - no generator per call
                if key not in known and not test(item):
                    return False
            return True

        return valid

    def _required(self, names: list[str], schema: Mapping[str, Any]) -> Valid:
        every = frozenset(names)
        return lambda value: not isinstance(value, dict) or value.keys() >= every

    def _items(self, items: Any, schema: Mapping[str, Any]) -> Valid:
        if "prefixItems" in schema or isinstance(items, list):
            raise Unsupported("prefixItems")
        test = self.schema(items)

        def valid(value: Any) -> bool:
            if not isinstance(value, list):
                return True
            for item in value:  # noqa: SIM110 - no generator per call
                if not test(item):
                    return False
            return True

        return valid

    def _minItems(self, least: int, schema: Mapping[str, Any]) -> Valid:
        return lambda value: not isinstance(value, list) or len(value) >= least

    def _maxItems(self, most: int, schema: Mapping[str, Any]) -> Valid:
        return lambda value: not isinstance(value, list) or len(value) <= most

    def _minLength(self, least: int, schema: Mapping[str, Any]) -> Valid:
        return lambda value: not isinstance(value, str) or len(value) >= least

    def _maxLength(self, most: int, schema: Mapping[str, Any]) -> Valid:
        return lambda value: not isinstance(value, str) or len(value) <= most

    def _pattern(self, pattern: str, schema: Mapping[str, Any]) -> Valid:
        search = re.compile(pattern).search
        return lambda value: not isinstance(value, str) or search(value) is not None

    # Numbers: the comparisons jsonschema makes (a NaN fails none of them, as there).
    def _minimum(self, bound: float, schema: Mapping[str, Any]) -> Valid:
        return lambda value: not _is_number(value) or not value < bound

    def _maximum(self, bound: float, schema: Mapping[str, Any]) -> Valid:
        return lambda value: not _is_number(value) or not value > bound

    def _exclusiveMinimum(self, bound: float, schema: Mapping[str, Any]) -> Valid:
        return lambda value: not _is_number(value) or not value <= bound

    def _exclusiveMaximum(self, bound: float, schema: Mapping[str, Any]) -> Valid:
        return lambda value: not _is_number(value) or not value >= bound

    def _const(self, constant: Any, schema: Mapping[str, Any]) -> Valid:
        return lambda value: equal(value, constant)

    def _enum(self, members: list[Any], schema: Mapping[str, Any]) -> Valid:
        strings = frozenset(member for member in members if isinstance(member, str))

        def valid(value: Any) -> bool:
            if isinstance(value, str):  # equal to a string member only, as ==
                return value in strings
            return any(equal(value, member) for member in members)

        return valid

    def _anyOf(self, branches: list[Any], schema: Mapping[str, Any]) -> Valid:
        return _some([self.schema(branch) for branch in branches])

    def _allOf(self, branches: list[Any], schema: Mapping[str, Any]) -> Valid:
        return _every([self.schema(branch) for branch in branches])

    def _oneOf(self, branches: list[Any], schema: Mapping[str, Any]) -> Valid:
        tests = [self.schema(branch) for branch in branches]
        return lambda value: sum(1 for test in tests if test(value)) == 1

    def _not(self, branch: Any, schema: Mapping[str, Any]) -> Valid:
        test = self.schema(branch)
        return lambda value: not test(value)

    def _if(self, condition: Any, schema: Mapping[str, Any]) -> Valid:
        test = self.schema(condition)
        then = self.schema(schema.get("then", True))
        otherwise = self.schema(schema.get("else", True))
        return lambda value: then(value) if test(value) else otherwise(value)


def _every(tests: list[Valid]) -> Valid:
    """``lambda value: all(test(value) for test in tests)``, in the same order, without a generator per call."""
    if not tests:
        return lambda value: True
    if len(tests) == 1:
        return tests[0]
    if len(tests) == 2:
        first, second = tests
        return lambda value: first(value) and second(value)

    def valid(value: Any) -> bool:
        for test in tests:  # noqa: SIM110 - no generator per call
            if not test(value):
                return False
        return True

    return valid


def _some(tests: list[Valid]) -> Valid:
    """``lambda value: any(test(value) for test in tests)``, in the same order, without a generator per call."""
    if len(tests) == 1:
        return tests[0]
    if len(tests) == 2:
        first, second = tests
        return lambda value: first(value) or second(value)

    def valid(value: Any) -> bool:
        for test in tests:  # noqa: SIM110 - no generator per call
            if test(value):
                return True
        return False

    return valid


def compile_validity(schema: Mapping[str, Any], parts: dict[int, Valid] | None = None) -> Valid | None:
    """A predicate that is True exactly when jsonschema's ``Draft202012Validator(schema)`` finds no error in a
    JSON value; None when the schema uses a keyword this module does not compile. ``parts`` (when given) gets
    the predicate of each subschema mapping, by its ``id``, to skip what is valid while explaining a value."""
    found: dict[int, Valid] = {}
    try:
        valid = _Compiler(schema, found).schema(schema)
    except (Unsupported, KeyError, TypeError, re.error):
        return None
    if parts is not None:
        parts.update(found)
    return valid
