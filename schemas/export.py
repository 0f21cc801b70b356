"""Generate the checked-in ``schemas/*.schema.json`` files from the pydantic models.

The models are the source of truth; the JSON files are what validators (ours, check-jsonschema,
editors) read. ``ctxres schema export --check`` fails when they drift apart.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from ctxres.schemas.agent_memory import AGENT_MEMORY_SCHEMAS
from ctxres.schemas.base import SCHEMA_BASE_URI
from ctxres.schemas.checkpoint import CHECKPOINT_SCHEMAS
from ctxres.schemas.claude_settings import CLAUDE_SETTINGS_SCHEMAS
from ctxres.schemas.hook_io import HOOK_SCHEMAS
from ctxres.schemas.monitor import MONITOR_SCHEMAS
from ctxres.schemas.nexus import NEXUS_SCHEMAS
from ctxres.schemas.resumption import OrchestrationFile, ResumptionV1, ResumptionV2
from ctxres.schemas.timeline import TIMELINE_SCHEMAS

DRAFT = "https://json-schema.org/draft/2020-12/schema"

MODELS: dict[str, type[BaseModel]] = {
    "resumption-v1": ResumptionV1,
    "resumption-v2": ResumptionV2,
    "orchestration": OrchestrationFile,
    **CHECKPOINT_SCHEMAS,
    **MONITOR_SCHEMAS,
    **NEXUS_SCHEMAS,
    **AGENT_MEMORY_SCHEMAS,
    **HOOK_SCHEMAS,
    **CLAUDE_SETTINGS_SCHEMAS,
    **TIMELINE_SCHEMAS,
}


def schema_for(name: str) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of one model, with ``$schema``, ``$id``, title, description."""
    model = MODELS[name]
    body = model.model_json_schema(by_alias=True, mode="validation")
    head: dict[str, Any] = {
        "$schema": DRAFT,
        "$id": f"{SCHEMA_BASE_URI}{name}.schema.json",
        "title": body.pop("title", model.__name__),
        "description": " ".join((model.__doc__ or "").split()),
    }
    body.pop("description", None)
    return {**head, **body}


def render(name: str) -> str:
    return json.dumps(schema_for(name), indent=2, ensure_ascii=False) + "\n"


def schema_dir() -> Path:
    return Path(__file__).resolve().parent


def export(directory: Path | None = None) -> list[Path]:
    """Write every schema; return the files whose content changed."""
    target = directory or schema_dir()
    changed = []
    for name in MODELS:
        path = target / f"{name}.schema.json"
        text = render(name)
        if not path.exists() or path.read_text("utf-8") != text:
            path.write_text(text, "utf-8")
            changed.append(path)
    return changed


def drift(directory: Path | None = None) -> list[str]:
    """Names of the schema files that differ from (or are missing against) the models."""
    target = directory or schema_dir()
    stale = []
    for name in MODELS:
        path = target / f"{name}.schema.json"
        if not path.exists() or path.read_text("utf-8") != render(name):
            stale.append(path.name)
    known = {f"{name}.schema.json" for name in MODELS}
    stale += sorted(p.name for p in target.glob("*.schema.json") if p.name not in known)
    return stale
