"""jsonschema's Draft 2020-12 validator for explaining a value that is not valid, quicker: it does not descend
into a property or an item that the compiled validity (:mod:`schema_validity`) calls valid.

jsonschema's ``properties`` and ``items`` keywords descend into every property and item; the errors of a
value come only from its invalid parts, so skipping the valid ones yields the same errors, in the same order,
with the same paths. The two keywords below are jsonschema's own, with that skip.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from ctxres.linters.rules.schema_validity import Valid


def validator_class(parts: Mapping[int, Valid]) -> Any:
    """``Draft202012Validator`` whose ``properties`` and ``items`` skip a subschema's valid values (``parts``: the
    compiled predicate of a subschema mapping, by ``id``)."""
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
