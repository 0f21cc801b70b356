"""What the conformance rules read of each schema error, flattened to compare two validators' errors."""

from __future__ import annotations

import json
from typing import Any


def flat_errors(validator: Any, value: Any) -> list[tuple[Any, ...]]:
    """The errors of ``validator`` for ``value``, in its order, each as everything the conformance rules read
    of it and of its context's errors (validator values compared as JSON, instances by ``repr``, schemas by
    identity)."""

    def flat(error: Any) -> tuple[Any, ...]:
        return (
            error.message,
            tuple(error.absolute_path),
            tuple(error.absolute_schema_path),
            tuple(error.relative_path),
            tuple(error.relative_schema_path),
            error.validator,
            json.dumps(error.validator_value, sort_keys=True, default=repr),
            repr(error.instance),
            id(error.schema) if isinstance(error.schema, dict) else error.schema,
            tuple(flat(sub) for sub in error.context or ()),
        )

    return [flat(error) for error in validator.iter_errors(value)]
