"""Conventions shared by every model: unknown keys are reported, every field is described."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

SCHEMA_BASE_URI = "https://ctxres.dev/schemas/"

# ISO-8601 date-time as the formats write it ("2026-02-17T12:34:56Z"); an offset or no zone is
# accepted, fractional seconds too. Stated as a pattern so any JSON Schema validator enforces it
# (the ``date-time`` format is only checked when a format checker is installed).
ISO_DATETIME_PATTERN = r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$"

IsoDateTime = Annotated[
    str,
    Field(
        pattern=ISO_DATETIME_PATTERN,
        json_schema_extra={"format": "date-time"},
        examples=["2026-02-17T12:34:56Z"],
    ),
]


class StrictModel(BaseModel):
    """A mapping whose keys are all known: any other key is an "unknown key" finding (a warning)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class OpenModel(BaseModel):
    """A mapping that other tools may extend: unknown keys are allowed silently."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)
