"""Turning jsonschema validation errors into precise, readable problems.

jsonschema reports ``anyOf`` failures as one opaque error; here we pick the branch that the value
was evidently meant to match (same JSON type, fewest errors) and report its errors instead, so a
wrong value inside a nullable or union field reads like any other error.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from functools import lru_cache

from ctxres.formats.document import JsonPath
from ctxres.linters.validation.close_match import close_match
from ctxres.records import FrozenRecord, init_field
from ctxres.timestamps import parse_datetime

# `ctxres check` loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from jsonschema.exceptions import ValidationError  # imported by conformance only for a value that is not valid

_JSON_TYPES = {
    bool: "boolean",
    int: "integer",
    float: "number",
    str: "string",
    list: "array",
    dict: "object",
    type(None): "null",
}
_ARTICLE = {
    "integer": "an integer",
    "array": "a list",
    "object": "a mapping",
    "null": "null",
    "boolean": "a boolean (true or false)",
    "number": "a number",
    "string": "a string",
}


def json_type(value: Any) -> str:
    return _JSON_TYPES.get(type(value), type(value).__name__)


def describe_type(name: str) -> str:
    return _ARTICLE.get(name, name)


class Problem(FrozenRecord):
    """One schema problem, classified. ``kind`` maps to a conformance rule."""

    __slots__ = ("fix", "group", "kind", "message", "path")

    kind: str  # missing | type | value | format | range | unknown | shape
    path: JsonPath  # where the problem is (for missing/unknown: the key's own path)
    message: str
    fix: str
    group: str  # problems with the same kind, group and generalised path are reported once

    def __init__(self, kind: str, path: JsonPath, message: str, fix: str = "", group: str = "") -> None:
        init_field(self, "kind", kind)
        init_field(self, "path", path)
        init_field(self, "message", message)
        init_field(self, "fix", fix)
        init_field(self, "group", group)


def _description(schema: dict[str, Any]) -> str:
    text = schema.get("description")
    return " ".join(text.split()) if isinstance(text, str) else ""


def _short(value: Any, limit: int = 40) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def dotted(path: JsonPath) -> str:
    """``resumption.files_to_read[2].path`` (the path as a reader says it)."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def subject(path: JsonPath) -> str:
    """How a message names a place: `` `resumption.recovery_state` `` or ``the top level``."""
    return f"`{dotted(path)}`" if path else "the top level"


def _field_name(path: JsonPath) -> str:
    return next((part for part in reversed(path) if isinstance(part, str)), "value")


def _branch_matches_type(branch_errors: list[ValidationError]) -> bool:
    return not any(e.validator == "type" and not e.relative_path for e in branch_errors)


def _only_required(branches: list[Any]) -> bool:
    return all(isinstance(b, dict) and set(b) == {"required"} for b in branches)


def expand(error: ValidationError) -> Iterator[ValidationError]:
    """The leaf errors to report for one top-level jsonschema error."""
    if error.validator not in ("anyOf", "oneOf") or not error.context or _only_required(error.validator_value):
        yield error
        return
    branches: dict[int, list[ValidationError]] = {}
    for sub in error.context:
        branches.setdefault(int(sub.relative_schema_path[0]), []).append(sub)
    typed = {i: errs for i, errs in branches.items() if _branch_matches_type(errs)}
    if not typed:  # the value matches no branch's type: one type error listing the choices
        yield error
        return
    best = min(typed.items(), key=lambda item: (len(item[1]), item[0]))[1]
    for sub in best:  # sub.absolute_path already includes the anyOf's own path
        yield from expand(sub)


def _allowed_types(error: ValidationError) -> list[str]:
    names: list[str] = []
    for branch in error.validator_value:
        if not isinstance(branch, dict):
            continue
        if "type" in branch:
            names += [branch["type"]] if isinstance(branch["type"], str) else list(branch["type"])
        elif "$ref" in branch or "properties" in branch:
            names.append("object")
        elif "const" in branch:
            names.append(json.dumps(branch["const"]))
    return list(dict.fromkeys(names))


def _another_fact(value: object, target: object) -> bool:
    """Whether ``value`` is a time where the suggested key's schema (``target``) holds none: the key carries a fact
    of its own (a decision's `date`), not a misspelling of that key."""
    holds_time = isinstance(target, dict) and target.get("format") in ("date-time", "date")
    return not holds_time and parse_datetime(value) is not None


def _suggest(word: str, choices: Iterable[str]) -> str:
    return _closest(word, tuple(choices))


@lru_cache(maxsize=128)
def _closest(word: str, choices: tuple[str, ...]) -> str:
    """The closest of ``choices`` to ``word`` (difflib's, see :mod:`.close_match`), remembered: the same stray keys
    recur across files (a few, met again and again: a key met once is soon replaced, and a check's memory of
    them, each with its tuple of choices, does not grow with its files)."""
    return close_match(word, choices, 0.6)


def classify(error: ValidationError, base: JsonPath) -> list[Problem]:
    """Problems for one leaf error; ``base`` is where the validated value sits in the file."""
    path: JsonPath = (*base, *error.absolute_path)
    where = subject(path)
    validator = error.validator
    schema = error.schema if isinstance(error.schema, dict) else {}
    instance = error.instance
    if validator == "required":
        missing = [name for name in error.validator_value if isinstance(instance, dict) and name not in instance]
        props = schema.get("properties", {})
        return [
            Problem(
                "missing",
                (*path, name),
                f"missing required key `{name}` in {where}",
                fix=f"add `{name}`: {_description(props.get(name, {}))}".rstrip(": "),
                group=name,
            )
            for name in missing
        ]
    if validator in ("anyOf", "oneOf") and _only_required(error.validator_value):
        options = " or ".join(" and ".join(f"`{k}`" for k in branch["required"]) for branch in error.validator_value)
        return [Problem("missing", path, f"{where} needs {options}", group="anyOf-required")]
    if validator == "additionalProperties" and isinstance(instance, dict):
        allowed = set(schema.get("properties", {}))
        extras = [key for key in instance if key not in allowed]
        problems = []
        absent = [name for name in allowed if name not in instance]
        properties = schema.get("properties", {})
        for key in extras:
            hint = _suggest(key, absent)
            if hint and _another_fact(instance[key], properties.get(hint)):
                hint = ""  # `date: 2026-02-20` is not a misspelt `gate`: renaming it would lose the date
            # a near miss of a known key that is not there is worth a warning (C006); a project's own
            # key is silent ("extra"), though it still shows another shape beside missing keys (C007)
            problems.append(
                Problem(
                    "unknown" if hint else EXTRA,
                    (*path, key),
                    f"unknown key `{key}` in {where}",
                    fix=f"did you mean `{hint}`?" if hint else "",
                    group=key,
                )
            )
        return problems
    if validator == "type" or validator in ("anyOf", "oneOf"):
        expected = error.validator_value if validator == "type" else _allowed_types(error)
        names = [expected] if isinstance(expected, str) else list(expected)
        wanted = " or ".join(describe_type(n) for n in names) or "another type"
        got = describe_type(json_type(instance))
        fix = ""
        if isinstance(instance, str) and "integer" in names and instance.strip().isdigit():
            fix = f"write {instance.strip()} without quotes"
        elif _description(schema):
            fix = f"`{_field_name(path)}`: {_description(schema)}"
        return [
            Problem(
                "type",
                path,
                f"{where} is {got} ({_short(instance)}), expected {wanted}",
                fix=fix,
                group=f"{json_type(instance)}->{wanted}",
            )
        ]
    if validator in ("enum", "const"):
        choices = error.validator_value if validator == "enum" else [error.validator_value]
        listed = ", ".join(str(c) for c in choices)
        hint = _suggest(str(instance), [str(c) for c in choices]) if isinstance(instance, str) else ""
        if not hint and isinstance(instance, str):
            hint = next((str(c) for c in choices if str(c).lower() == instance.lower()), "")
        return [
            Problem(
                "value",
                path,
                f"{where} is {_short(instance)}, expected " + (f"one of: {listed}" if len(choices) > 1 else listed),
                fix=f"did you mean {json.dumps(hint)}?" if hint else "",
                group=str(instance),
            )
        ]
    if validator in ("pattern", "format"):
        examples = schema.get("examples") or []
        example = f" such as {examples[0]}" if examples else ""
        if schema.get("format") == "date-time" or validator == "format":
            expected = f"an ISO-8601 date-time{example or ' such as 2026-02-17T12:34:56Z'}"
        else:
            expected = f"a value matching `{error.validator_value}`{example}"
        return [
            Problem(
                "format",
                path,
                f"{where} is {_short(instance)}, expected {expected}",
                fix=_description(schema),
                group="format",
            )
        ]
    if validator in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        words = {
            "minimum": "at least",
            "maximum": "at most",
            "exclusiveMinimum": "more than",
            "exclusiveMaximum": "less than",
        }[validator]
        fix = ""
        if (
            validator == "maximum"
            and error.validator_value == 1
            and isinstance(instance, (int, float))
            and 1 < instance <= 100
        ):
            fix = f"fills are fractions: write {instance / 100:g} for {instance}%"
        return [
            Problem(
                "range",
                path,
                f"{where} is {instance}, must be {words} {error.validator_value}",
                fix=fix or _description(schema),
                group=validator,
            )
        ]
    if validator in ("minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties"):
        unit = "characters" if "Length" in validator else ("items" if "Items" in validator else "keys")
        words = "at least" if validator.startswith("min") else "at most"
        return [
            Problem(
                "range",
                path,
                f"{where} must have {words} {error.validator_value} {unit}",
                fix=_description(schema),
                group=validator,
            )
        ]
    return [Problem("value", path, f"{where}: {error.message}", group=str(validator))]


def _generalise(path: JsonPath) -> tuple[str | int, ...]:
    return tuple("*" if isinstance(part, int) else part for part in path)


EXTRA = "extra"  # the kind of a key the schema does not know and that is no near miss of one: silent alone


def without_extra_keys(problems: list[Problem]) -> list[Problem]:
    """A project's own keys are silent: drop the extra keys that no other shape problem took in."""
    return [p for p in problems if p.kind != EXTRA]


def collapse_shapes(problems: list[Problem], schema_name: str = "NAME") -> list[Problem]:
    """A mapping with both missing and unknown keys has another shape: one problem, not many."""
    by_parent: dict[JsonPath, list[Problem]] = {}
    for problem in problems:
        if problem.kind in ("missing", "unknown", EXTRA) and problem.group != "anyOf-required" and problem.path:
            by_parent.setdefault(problem.path[:-1], []).append(problem)
    replaced: set[int] = set()
    shapes: list[Problem] = []
    for parent, group in by_parent.items():
        missing = [p.path[-1] for p in group if p.kind == "missing"]
        unknown = [p.path[-1] for p in group if p.kind in ("unknown", EXTRA)]
        if not missing or not unknown:
            continue
        replaced.update(id(p) for p in group)
        renames = [(u, _suggest(str(u), map(str, missing))) for u in unknown]
        hints = [f"rename `{u}` to `{m}`" for u, m in renames if m]
        shapes.append(
            Problem(
                "shape",
                parent,
                f"{subject(parent)} has another shape than expected: missing "
                + ", ".join(f"`{m}`" for m in missing)
                + "; unexpected "
                + ", ".join(f"`{u}`" for u in unknown),
                fix="; ".join(hints)
                if hints and len(hints) == len(missing) == len(unknown)
                else f"restructure it to the documented keys (`ctxres schema show {schema_name}` prints them)",
                group="|".join(map(str, missing)) + "/" + "|".join(map(str, unknown)),
            )
        )
    return [p for p in problems if id(p) not in replaced] + shapes


SEVERAL_MISSING = "several-missing:"  # the group of a problem that lists several missing keys of one mapping


def collapse_missing(problems: list[Problem]) -> list[Problem]:
    """A mapping missing several required keys is one problem listing them (one root cause, one
    error): a v2.0 section without its sub-sections is reported once, not once per sub-section.
    The combined problem's path is the mapping itself."""
    by_parent: dict[JsonPath, list[Problem]] = {}
    for problem in problems:
        if problem.kind == "missing" and problem.group != "anyOf-required" and problem.path:
            by_parent.setdefault(problem.path[:-1], []).append(problem)
    replaced: set[int] = set()
    combined: list[Problem] = []
    for parent, group in by_parent.items():
        if len(group) < 2:
            continue
        replaced.update(id(p) for p in group)
        names = [str(p.path[-1]) for p in group]
        combined.append(
            Problem(
                "missing",
                parent,
                f"missing {len(names)} required keys in {subject(parent)}: " + ", ".join(f"`{n}`" for n in names),
                fix="add "
                + "; ".join((p.fix[len("add ") :] if p.fix.startswith("add ") else p.fix).rstrip(".") for p in group),
                group=SEVERAL_MISSING + "|".join(names),
            )
        )
    return [p for p in problems if id(p) not in replaced] + combined


def dedupe(problems: list[Problem]) -> list[Problem]:
    """Drop exact repeats (jsonschema reports a `required` failure once per missing key)."""
    unique: dict[tuple[str, JsonPath, str], Problem] = {}
    for problem in problems:
        unique.setdefault((problem.kind, problem.path, problem.message), problem)
    return list(unique.values())


def collapse_repeats(problems: list[Problem]) -> list[tuple[Problem, int]]:
    """The same problem in several items of one list is reported once, with a count of the others."""
    seen: dict[tuple[Any, ...], list[Problem]] = {}
    for problem in problems:
        seen.setdefault((problem.kind, problem.group, _generalise(problem.path)), []).append(problem)
    return [(group[0], len(group) - 1) for group in seen.values()]
