"""Explaining a value that is not valid against a JSON Schema: the errors jsonschema's Draft 2020-12 validator
finds, without importing jsonschema (30-50 ms of a check's start) for the schemas ctxres ships.

:class:`Explainer` walks a schema of the keywords :mod:`schema_validity` compiles, as jsonschema's
``iter_errors`` does: keywords in the order of the schema, ``$ref`` and ``if`` adding no step to the schema
path, ``anyOf``/``oneOf`` collecting the errors of each branch as the context of their own error. Each error
has what the conformance rules read of a ``jsonschema.exceptions.ValidationError`` (``message``,
``validator``, ``validator_value``, ``instance``, ``schema``, the relative and absolute paths, ``context``),
with the same values, in the same order. It does not descend into a property or an item that the compiled
validity calls valid: the errors of a value come only from its invalid parts, so the errors are the same.

A schema with anything else (a reference to another document, ``patternProperties``, ...) has no explainer
(:func:`explainer` returns None): :func:`validator_class` is jsonschema's validator with the same skip.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping

from ctxres.linters.validation.schema_validity import _TYPES, equal

# `ctxres check` loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ctxres.linters.validation.schema_validity import Valid

Path = tuple[str | int, ...]


class SchemaError:
    """One error, as jsonschema's ``ValidationError`` would have it (its message made when asked for)."""

    __slots__ = (
        "_base",
        "_message",
        "context",
        "instance",
        "relative_path",
        "relative_schema_path",
        "schema",
        "validator",
        "validator_value",
    )

    def __init__(
        self,
        message: Callable[[], str],
        validator: str | None,
        validator_value: Any,
        instance: Any,
        schema: Any,
        path: Path,
        schema_path: Path,
        context: list[SchemaError] | None = None,
        base: tuple[Path, Path] = ((), ()),
    ) -> None:
        self._message = message
        self.validator = validator
        self.validator_value = validator_value
        self.instance = instance
        self.schema = schema
        self.relative_path = path
        self.relative_schema_path = schema_path
        self.context = context or []
        self._base = base  # the absolute paths of the value (and schema) the relative paths start from

    @property
    def message(self) -> str:
        return self._message()

    @property
    def absolute_path(self) -> Path:
        return (*self._base[0], *self.relative_path)

    @property
    def absolute_schema_path(self) -> Path:
        return (*self._base[1], *self.relative_schema_path)


class Unsupported(ValueError):
    """The schema has something :class:`Explainer` does not explain as jsonschema would."""


# The keywords of jsonschema's Draft 2020-12 validator that the explainer implements; `format` asserts
# nothing without a format checker. Other keywords (annotations, `$defs`, `then`, `else`) are not validators.
_VALIDATORS = frozenset(
    {
        "$ref",
        "type",
        "properties",
        "additionalProperties",
        "required",
        "items",
        "minItems",
        "maxItems",
        "minLength",
        "maxLength",
        "pattern",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "const",
        "enum",
        "anyOf",
        "allOf",
        "oneOf",
        "not",
        "if",
        "format",
    }
)
# Keywords jsonschema validates that the explainer does not: a schema with one of them is not explained here.
_UNSUPPORTED = frozenset(
    {
        "$dynamicRef",
        "$recursiveRef",
        "contains",
        "dependentRequired",
        "dependentSchemas",
        "dependencies",
        "maxContains",
        "minContains",
        "maxProperties",
        "minProperties",
        "multipleOf",
        "patternProperties",
        "prefixItems",
        "propertyNames",
        "unevaluatedItems",
        "unevaluatedProperties",
        "uniqueItems",
    }
)
# Keywords whose value is a schema, or a list or mapping of schemas (walked by the check for support).
_SUBSCHEMA = frozenset({"additionalProperties", "items", "not", "if", "then", "else"})
_SUBSCHEMAS = frozenset({"anyOf", "allOf", "oneOf"})
_SUBSCHEMA_MAPS = frozenset({"properties", "$defs", "definitions"})


def _checked(root: Mapping[str, Any]) -> None:
    """Raise :class:`Unsupported` unless every (sub)schema of ``root`` is one the explainer explains."""
    stack: list[Any] = [root]
    seen: set[int] = set()
    while stack:
        schema = stack.pop()
        if isinstance(schema, bool) or id(schema) in seen:
            continue
        seen.add(id(schema))
        if not isinstance(schema, Mapping):
            raise Unsupported(f"schema {schema!r}")
        for keyword, argument in schema.items():
            if keyword in _UNSUPPORTED:
                raise Unsupported(keyword)
            if keyword == "$id" and schema is not root:
                raise Unsupported("$id in a subschema")
            if keyword == "$ref":
                target = _target(root, argument) if isinstance(argument, str) else None
                if target is None:
                    raise Unsupported(f"$ref {argument!r}")
                stack.append(target)
            if keyword == "items" and isinstance(argument, list):
                raise Unsupported("items as a list")
            if keyword == "type":
                names = [argument] if isinstance(argument, str) else argument
                if not isinstance(names, list) or not all(isinstance(n, str) and n in _TYPES for n in names):
                    raise Unsupported(f"type {argument!r}")
            if keyword in _SUBSCHEMA:
                stack.append(argument)
            elif keyword in _SUBSCHEMAS:
                if not isinstance(argument, list):
                    raise Unsupported(keyword)
                stack.extend(argument)
            elif keyword in _SUBSCHEMA_MAPS:
                if not isinstance(argument, Mapping):
                    raise Unsupported(keyword)
                stack.extend(argument.values())


def _target(root: Mapping[str, Any], ref: str) -> Any:
    """The subschema a local JSON Pointer reference leads to, else None (another document, an escape)."""
    if ref == "#":
        return root
    if not ref.startswith("#/") or "%" in ref:
        return None
    target: Any = root
    for token in ref[2:].split("/"):
        token = token.replace("~1", "/").replace("~0", "~")
        if not isinstance(target, Mapping) or token not in target:
            return None
        target = target[token]
    return target


class Explainer:
    """jsonschema's errors of a value against ``root`` (a schema :func:`explainer` accepted), with the compiled
    predicate of each subschema mapping (``parts``, by ``id``) to skip what is valid."""

    def __init__(self, root: Mapping[str, Any], parts: Mapping[int, Valid]) -> None:
        self.root = root
        self.parts = parts

    def iter_errors(self, instance: Any) -> Iterator[SchemaError]:
        return self._descend(instance, self.root, (), ())

    def _valid(self, instance: Any, schema: Any) -> bool:
        if schema is True:
            return True
        if schema is False:
            return False
        test = self.parts.get(id(schema))
        if test is not None:
            return test(instance)
        return not any(True for _ in self._descend(instance, schema, (), ()))

    def _descend(
        self,
        instance: Any,
        schema: Any,
        path: Path,
        schema_path: Path,
        outer: tuple[Path, Path] | None = None,
        base: tuple[Path, Path] = ((), ()),
    ) -> Iterator[SchemaError]:
        """The errors of ``instance`` against ``schema``; ``path`` and ``schema_path`` lead to them from the
        value the errors are relative to (the checked value, or the value of an ``anyOf``). A ``false`` schema
        has one error, at ``outer`` (default: the same paths): jsonschema gives it the paths of the schema
        that holds it, without the step to the property (``properties: {x: false}``) or branch. ``base``: the
        absolute paths of the value the relative paths start from (an error of a branch of an ``anyOf`` is
        relative to the value of the ``anyOf``, as in jsonschema, where it points to the ``anyOf``'s error)."""
        if schema is True:
            return
        if schema is False:
            at, schema_at = outer or (path, schema_path)
            yield SchemaError(
                lambda: f"False schema does not allow {instance!r}",
                None,
                None,
                instance,
                schema,
                at,
                schema_at,
                None,
                base,
            )
            return
        for keyword, argument in schema.items():
            if keyword in _VALIDATORS:
                yield from self._keyword(keyword, argument, instance, schema, path, schema_path, base)

    def _keyword(
        self,
        keyword: str,
        argument: Any,
        instance: Any,
        schema: Mapping[str, Any],
        path: Path,
        schema_path: Path,
        base: tuple[Path, Path],
    ) -> Iterator[SchemaError]:
        here = (*schema_path, keyword)

        def error(message: Callable[[], str], context: list[SchemaError] | None = None) -> SchemaError:
            return SchemaError(message, keyword, argument, instance, schema, path, here, context, base)

        if keyword == "$ref":
            yield from self._descend(instance, _target(self.root, argument), path, schema_path, None, base)
        elif keyword == "type":
            names = [argument] if isinstance(argument, str) else argument
            if not any(_TYPES[name](instance) for name in names):
                yield error(lambda: f"{instance!r} is not of type {', '.join(repr(name) for name in names)}")
        elif keyword == "properties":
            if isinstance(instance, dict):
                for name, subschema in argument.items():
                    if name in instance and not self._valid(instance[name], subschema):
                        yield from self._descend(
                            instance[name], subschema, (*path, name), (*here, name), (path, here), base
                        )
        elif keyword == "additionalProperties":
            yield from self._additional(argument, instance, schema, path, here, error, base)
        elif keyword == "required":
            if isinstance(instance, dict):
                for name in argument:
                    if name not in instance:
                        yield error(_required_message(name))
        elif keyword == "items":
            if isinstance(instance, list) and instance:
                if argument is False:
                    extra = len(instance)
                    rest = instance if extra != 1 else instance[0]
                    yield error(lambda: f"Expected at most 0 items but found {extra} extra: {rest!r}")
                else:
                    for index, item in enumerate(instance):
                        if not self._valid(item, argument):
                            yield from self._descend(item, argument, (*path, index), here, None, base)
        elif keyword in ("anyOf", "oneOf"):
            branch_base = ((*base[0], *path), (*base[1], *here))
            yield from self._branches(keyword, argument, instance, error, branch_base)
        elif keyword == "allOf":
            for index, subschema in enumerate(argument):
                yield from self._descend(instance, subschema, path, (*here, index), (path, here), base)
        elif keyword == "not":
            if self._valid(instance, argument):
                yield error(lambda: f"{instance!r} should not be valid under {argument!r}")
        elif keyword == "if":
            if self._valid(instance, argument):
                if "then" in schema:
                    yield from self._descend(
                        instance, schema["then"], path, (*schema_path, "then"), (path, schema_path), base
                    )
            elif "else" in schema:
                yield from self._descend(
                    instance, schema["else"], path, (*schema_path, "else"), (path, schema_path), base
                )
        elif keyword == "format":
            return  # asserted only with a format checker
        else:
            found = _bounds(keyword, argument, instance)
            if found is not None:
                yield error(found)

    def _additional(
        self,
        extra_schema: Any,
        instance: Any,
        schema: Mapping[str, Any],
        path: Path,
        here: Path,
        error: Callable[[Callable[[], str]], SchemaError],
        base: tuple[Path, Path],
    ) -> Iterator[SchemaError]:
        if not isinstance(instance, dict):
            return
        properties = schema.get("properties", {})
        extras = {name for name in instance if name not in properties}  # a set, iterated as jsonschema does
        if isinstance(extra_schema, dict):
            for extra in extras:
                yield from self._descend(instance[extra], extra_schema, (*path, extra), here, None, base)
        elif not extra_schema and extras:
            names = sorted(extras, key=str)
            verb = "was" if len(names) == 1 else "were"
            listed = ", ".join(repr(name) for name in names)
            yield error(lambda: f"Additional properties are not allowed ({listed} {verb} unexpected)")

    def _branches(
        self,
        keyword: str,
        branches: list[Any],
        instance: Any,
        error: Callable[[Callable[[], str], list[SchemaError]], SchemaError],
        base: tuple[Path, Path],
    ) -> Iterator[SchemaError]:
        context: list[SchemaError] = []
        first_valid: Any = None
        rest = iter(enumerate(branches))
        for index, branch in rest:
            valid = self._valid(instance, branch)
            errors = [] if valid else list(self._descend(instance, branch, (), (index,), ((), ()), base))
            if not errors:
                first_valid = branch
                break
            context += errors
        else:
            yield error(lambda: f"{instance!r} is not valid under any of the given schemas", context)
            return
        if keyword == "oneOf":
            more = [branch for _, branch in rest if self._valid(instance, branch)]
            if more:
                more.append(first_valid)
                listed = ", ".join(repr(each) for each in more)
                yield error(lambda: f"{instance!r} is valid under each of {listed}", [])


def _required_message(name: Any) -> Callable[[], str]:
    return lambda: f"{name!r} is a required property"


def _bounds(keyword: str, bound: Any, instance: Any) -> Callable[[], str] | None:
    """The message of a failed bound (``minimum`` ... ``maxLength``, ``pattern``, ``const``, ``enum``), else None."""
    if keyword in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        if not _TYPES["number"](instance):
            return None
        if keyword == "minimum" and instance < bound:
            return lambda: f"{instance!r} is less than the minimum of {bound!r}"
        if keyword == "maximum" and instance > bound:
            return lambda: f"{instance!r} is greater than the maximum of {bound!r}"
        if keyword == "exclusiveMinimum" and instance <= bound:
            return lambda: f"{instance!r} is less than or equal to the minimum of {bound!r}"
        if keyword == "exclusiveMaximum" and instance >= bound:
            return lambda: f"{instance!r} is greater than or equal to the maximum of {bound!r}"
        return None
    if keyword in ("minLength", "maxLength", "minItems", "maxItems"):
        if not isinstance(instance, str if keyword.endswith("Length") else list):
            return None
        if keyword.startswith("min") and len(instance) < bound:
            message = "should be non-empty" if bound == 1 else "is too short"
            return lambda: f"{instance!r} {message}"
        if keyword.startswith("max") and len(instance) > bound:
            message = "is expected to be empty" if bound == 0 else "is too long"
            return lambda: f"{instance!r} {message}"
        return None
    if keyword == "pattern":
        if isinstance(instance, str) and not re.search(bound, instance):
            return lambda: f"{instance!r} does not match {bound!r}"
        return None
    if keyword == "const":
        return None if equal(instance, bound) else lambda: f"{bound!r} was expected"
    if keyword == "enum":
        return None if any(equal(each, instance) for each in bound) else lambda: f"{instance!r} is not one of {bound!r}"
    raise Unsupported(keyword)  # pragma: no cover - _VALIDATORS lists only the keywords handled above


def explainer(root: Mapping[str, Any], parts: Mapping[int, Valid]) -> Explainer | None:
    """The explainer of ``root`` (its compiled subschemas in ``parts``), or None for a schema it does not
    explain as jsonschema does (then :func:`validator_class`)."""
    try:
        _checked(root)
    except Unsupported:
        return None
    return Explainer(root, parts)


def validator_class(parts: Mapping[int, Valid]) -> Any:
    """``Draft202012Validator`` whose ``properties`` and ``items`` skip a subschema's valid values (``parts``: the
    compiled predicate of a subschema mapping, by ``id``): for a schema :func:`explainer` does not explain."""
    from jsonschema import Draft202012Validator, validators  # imported for an invalid value only
    from jsonschema._keywords import items as all_items

    def valid(value: Any, subschema: Any) -> bool:
        test = parts.get(id(subschema))
        return test is not None and test(value)

    def properties(validator: Any, properties: dict[str, Any], instance: Any, schema: Any) -> Iterator[Any]:
        if not validator.is_type(instance, "object"):
            return
        for name, subschema in properties.items():
            if name in instance and not valid(instance[name], subschema):
                yield from validator.descend(instance[name], subschema, path=name, schema_path=name)

    def items(validator: Any, items: Any, instance: Any, schema: Any) -> Iterator[Any]:
        if items is False or not validator.is_type(instance, "array"):
            yield from all_items(validator, items, instance, schema)
            return
        for index in range(len(schema.get("prefixItems", [])), len(instance)):
            if not valid(instance[index], items):
                yield from validator.descend(instance=instance[index], schema=items, path=index)

    return validators.extend(Draft202012Validator, {"properties": properties, "items": items})
