"""The checked-in JSON Schemas are generated from the models, valid, identified and described."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from ctxres.schemas import export

SCHEMA_DIR = Path(export.__file__).resolve().parent
FILES = sorted(SCHEMA_DIR.glob("*.schema.json"))


def test_checked_in_schemas_match_the_models() -> None:
    assert export.drift() == [], "run `ctxres schema export` and commit the result"


def test_drift_is_detected(tmp_path: Path) -> None:
    export.export(tmp_path)
    assert export.drift(tmp_path) == []
    victim = tmp_path / "checkpoint.schema.json"
    victim.write_text(victim.read_text().replace('"1.0.0"', '"9.9.9"'))
    (tmp_path / "orphan.schema.json").write_text("{}")
    assert export.drift(tmp_path) == ["checkpoint.schema.json", "orphan.schema.json"]


def test_one_file_per_model() -> None:
    assert {p.name for p in FILES} == {f"{name}.schema.json" for name in export.MODELS}


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_schema_passes_its_metaschema_and_is_identified(path: Path) -> None:
    schema = json.loads(path.read_text("utf-8"))
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"].endswith("/" + path.name)
    assert schema["title"] and schema["description"]


def _undescribed(node: Any, where: str) -> list[str]:
    missing: list[str] = []
    if isinstance(node, dict):
        for name, prop in node.get("properties", {}).items():
            if not (isinstance(prop, dict) and prop.get("description")):
                missing.append(f"{where}.{name}")
        for key, value in node.items():
            missing += _undescribed(value, f"{where}.{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            missing += _undescribed(value, f"{where}[{index}]")
    return missing


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_every_field_has_a_description(path: Path) -> None:
    assert _undescribed(json.loads(path.read_text("utf-8")), "$") == []


def test_seed_checkpoint_example_is_valid() -> None:
    """The original checkpoint example validates, with the fixture's own values.

    docs/formats.md, "Checkpoint files".
    """
    from ctxres.linters.rules.conformance import validator

    from ..conftest import FIXTURES

    data = json.loads((FIXTURES / "valid/projects/PROJ-001/.jerry/checkpoints/cx-001-checkpoint.json").read_text())
    assert list(validator("checkpoint").iter_errors(data)) == []
    data["metadata"]["acknowledged"] = "yes"
    assert [e.validator for e in validator("checkpoint").iter_errors(data)] == ["type"]


def test_decisions_alias_is_accepted_by_the_v2_schema() -> None:
    from ctxres.linters.rules.conformance import validator

    entry = {"id": "RD-001", "decision": "Align the copyright holder"}
    section = {
        "recovery_state": {
            "last_checkpoint": None,
            "current_phase": 1,
            "current_phase_name": "One",
            "workflow_status": "ACTIVE",
            "current_activity": "idle",
            "next_step": "Start",
            "updated_at": "2026-02-17T12:34:56Z",
        },
        "files_to_read": ["PLAN.md", {"path": "ORCHESTRATION.yaml", "priority": 1}],
        "quality_trajectory": {"gates_completed": [], "gates_remaining": ["qg-1"], "score_history": {}},
        "defect_summary": {"total_defects_found": 0, "total_defects_resolved": 0, "unresolved_defects": []},
        "decisions": [entry],
        "agent_summaries": {},
        "compaction_events": {"count": 0, "events": []},
    }
    assert list(validator("resumption-v2").iter_errors(section)) == []
