"""The hook I/O models (``ctxres.schemas.hook_io``) and the monitor state model (``ctxres.schemas.monitor``)."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest
from pydantic import BaseModel, ValidationError
from pydantic.json_schema import JsonSchemaMode

from ctxres.hook_events import HOOK_EVENTS
from ctxres.schemas.hook_io import (
    HOOK_INPUT_MODELS,
    HOOK_OUTPUT_MODELS,
    HOOK_SCHEMAS,
    MAX_HOOK_OUTPUT_CHARS,
    PostToolUseInput,
    PostToolUseOutput,
    PreCompactInput,
    PreCompactOutput,
    SessionStartInput,
    SessionStartOutput,
    UserPromptSubmitInput,
    UserPromptSubmitOutput,
)
from ctxres.schemas.monitor import MONITOR_SCHEMAS, FillSource, FillTier, MonitorState

# Verbatim from the example inputs of Claude Code's hooks documentation.
EXAMPLE_INPUTS: dict[str, str] = {
    "PreCompact": '{"session_id":"abc123","transcript_path":"/Users/.../.claude/projects/.../00893aaf-19fa-41d2-'
    '8238-13269b9b3ca0.jsonl","cwd":"/Users/...","hook_event_name":"PreCompact","trigger":"manual",'
    '"custom_instructions":""}',
    "SessionStart": '{"session_id":"abc123","transcript_path":"...","cwd":"/Users/...","hook_event_name":'
    '"SessionStart","source":"startup","model":"claude-sonnet-5"}',
    "UserPromptSubmit": '{"session_id":"abc123","transcript_path":"...","cwd":"/Users/...","permission_mode":'
    '"default","hook_event_name":"UserPromptSubmit","prompt":"Write a function ..."}',
    "PostToolUse": '{"session_id":"abc123","transcript_path":"...","cwd":"/Users/...","permission_mode":'
    '"default","hook_event_name":"PostToolUse","tool_name":"Write","tool_input":{"file_path":"/path/to/'
    'file.txt","content":"file content"},"tool_response":{"filePath":"/path/to/file.txt","success":true},'
    '"tool_use_id":"toolu_01ABC123...","duration_ms":12}',
}

ALL_MODELS: dict[str, type[BaseModel]] = {**HOOK_SCHEMAS, **MONITOR_SCHEMAS}

CONTEXT_OUTPUTS: list[tuple[type[BaseModel], str]] = [
    (SessionStartOutput, "SessionStart"),
    (UserPromptSubmitOutput, "UserPromptSubmit"),
    (PostToolUseOutput, "PostToolUse"),
]


def _rejected_at(error: ValidationError, *path: str) -> bool:
    """True when one of the errors is at the JSON location ``path``.

    pydantic inserts a step per union member it tried (`SessionStartSpecificOutput`, `literal['block']`,
    `none`); only the steps that are JSON keys of ``path`` are compared.
    """
    return any(
        item["loc"][0] == path[0] and [step for step in item["loc"] if step in path] == list(path)
        for item in error.errors()
    )


def _context_output(event: str, text: str) -> dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}


def _monitor_state(**changes: Any) -> dict[str, Any]:
    state: dict[str, Any] = {
        "schema_version": "1.0",
        "session_id": "abc123",
        "timestamp": "2026-02-17T12:34:56Z",
        "fill": 0.642,
        "tokens": 128_400,
        "window": 200_000,
        "tier": "WARNING",
        "transcript_path": "/home/u/.claude/projects/p/abc123.jsonl",
        "transcript_offset": 52_311,
        "source": "transcript",
    }
    state.update(changes)
    return state


# (a) the documented example inputs validate, unknown fields included -----------------------------------------


def test_every_event_has_an_example() -> None:
    assert set(EXAMPLE_INPUTS) == set(HOOK_INPUT_MODELS) == set(HOOK_OUTPUT_MODELS)


@pytest.mark.parametrize("event", sorted(EXAMPLE_INPUTS))
def test_documented_example_input_validates(event: str) -> None:
    payload = json.loads(EXAMPLE_INPUTS[event])
    model = HOOK_INPUT_MODELS[event].model_validate(payload)
    assert model.hook_event_name == event
    assert model.session_id == "abc123"


@pytest.mark.parametrize("event", sorted(EXAMPLE_INPUTS))
def test_input_with_unknown_fields_validates_and_keeps_them(event: str) -> None:
    payload = json.loads(EXAMPLE_INPUTS[event])
    payload["field_from_a_future_version"] = {"nested": [1, 2, 3]}
    model = HOOK_INPUT_MODELS[event].model_validate(payload)
    assert model.model_extra == {"field_from_a_future_version": {"nested": [1, 2, 3]}}


def test_example_inputs_are_read_into_the_event_fields() -> None:
    pre = PreCompactInput.model_validate_json(EXAMPLE_INPUTS["PreCompact"])
    assert (pre.trigger, pre.custom_instructions) == ("manual", "")
    start = SessionStartInput.model_validate_json(EXAMPLE_INPUTS["SessionStart"])
    assert (start.source, start.model) == ("startup", "claude-sonnet-5")
    prompt = UserPromptSubmitInput.model_validate_json(EXAMPLE_INPUTS["UserPromptSubmit"])
    assert (prompt.prompt, prompt.permission_mode) == ("Write a function ...", "default")
    tool = PostToolUseInput.model_validate_json(EXAMPLE_INPUTS["PostToolUse"])
    assert tool.tool_name == "Write"
    assert tool.tool_input["file_path"] == "/path/to/file.txt"
    assert tool.tool_response == {"filePath": "/path/to/file.txt", "success": True}
    assert tool.duration_ms == 12


def test_precompact_custom_instructions_may_be_null() -> None:
    payload = json.loads(EXAMPLE_INPUTS["PreCompact"])
    payload["custom_instructions"] = None
    assert PreCompactInput.model_validate(payload).custom_instructions is None


def test_posttooluse_tool_response_may_be_any_json_value() -> None:
    payload = json.loads(EXAMPLE_INPUTS["PostToolUse"])
    payload["tool_response"] = "plain text output"
    assert PostToolUseInput.model_validate(payload).tool_response == "plain text output"


@pytest.mark.parametrize(
    ("event", "key", "bad"),
    [
        ("PreCompact", "trigger", "sometimes"),
        ("SessionStart", "source", "reboot"),
        ("PreCompact", "hook_event_name", "PostCompact"),
        ("UserPromptSubmit", "hook_event_name", "SessionStart"),
    ],
)
def test_input_rejects_values_outside_the_contract(event: str, key: str, bad: str) -> None:
    payload = json.loads(EXAMPLE_INPUTS[event])
    payload[key] = bad
    with pytest.raises(ValidationError) as caught:
        HOOK_INPUT_MODELS[event].model_validate(payload)
    assert _rejected_at(caught.value, key)


# (b) outputs: the event name must match, additionalContext is capped -----------------------------------------


@pytest.mark.parametrize(("model", "event"), CONTEXT_OUTPUTS)
def test_output_with_context_validates_and_dumps_json_names(model: type[BaseModel], event: str) -> None:
    data = {"continue": True, "suppressOutput": False, "systemMessage": "note", **_context_output(event, "x")}
    parsed = model.model_validate(data)
    assert parsed.model_dump(by_alias=True, exclude_none=True) == data


@pytest.mark.parametrize(("model", "event"), CONTEXT_OUTPUTS)
def test_output_with_another_event_name_is_rejected(model: type[BaseModel], event: str) -> None:
    wrong = "UserPromptSubmit" if event == "SessionStart" else "SessionStart"
    with pytest.raises(ValidationError) as caught:
        model.model_validate(_context_output(wrong, "x"))
    assert _rejected_at(caught.value, "hookSpecificOutput", "hookEventName")


@pytest.mark.parametrize(("model", "event"), CONTEXT_OUTPUTS)
def test_output_without_event_name_is_rejected(model: type[BaseModel], event: str) -> None:
    with pytest.raises(ValidationError) as caught:
        model.model_validate({"hookSpecificOutput": {"additionalContext": "x"}})
    assert _rejected_at(caught.value, "hookSpecificOutput", "hookEventName")


@pytest.mark.parametrize(("model", "event"), CONTEXT_OUTPUTS)
def test_additional_context_is_capped_at_10000_characters(model: type[BaseModel], event: str) -> None:
    assert MAX_HOOK_OUTPUT_CHARS == 10_000
    model.model_validate(_context_output(event, "x" * 10_000))
    with pytest.raises(ValidationError) as caught:
        model.model_validate(_context_output(event, "x" * 10_001))
    assert _rejected_at(caught.value, "hookSpecificOutput", "additionalContext")


@pytest.mark.parametrize(("model", "event"), CONTEXT_OUTPUTS)
def test_output_rejects_unknown_keys_and_nulls(model: type[BaseModel], event: str) -> None:
    model.model_validate({})
    with pytest.raises(ValidationError):
        model.model_validate({"additionalContext": "at the wrong level"})
    with pytest.raises(ValidationError):
        model.model_validate({"systemMessage": None})


@pytest.mark.parametrize("model", [UserPromptSubmitOutput, PostToolUseOutput])
def test_blocking_outputs_accept_decision_block_only(model: type[BaseModel]) -> None:
    model.model_validate({"decision": "block", "reason": "resumption section is stale"})
    with pytest.raises(ValidationError) as caught:
        model.model_validate({"decision": "approve"})
    assert _rejected_at(caught.value, "decision")


def test_sessionstart_output_has_no_decision() -> None:
    with pytest.raises(ValidationError):
        SessionStartOutput.model_validate({"decision": "block", "reason": "no"})


# (c) PreCompact output -----------------------------------------------------------------------------------------


def test_precompact_output_empty_object_is_valid() -> None:
    assert PreCompactOutput.model_validate({}).model_dump(exclude_none=True) == {}


def test_precompact_output_may_block_with_a_reason() -> None:
    parsed = PreCompactOutput.model_validate({"decision": "block", "reason": "checkpoint not written"})
    assert parsed.decision == "block"


@pytest.mark.parametrize(
    "data",
    [
        {"hookSpecificOutput": {"hookEventName": "PreCompact", "additionalContext": "x"}},
        {"systemMessage": "Claude Code discards this for PreCompact"},
        {"decision": "allow"},
    ],
)
def test_precompact_output_rejects_what_claude_code_rejects_or_discards(data: dict[str, Any]) -> None:
    with pytest.raises(ValidationError) as caught:
        PreCompactOutput.model_validate(data)
    assert _rejected_at(caught.value, next(iter(data)))


# (d) the JSON Schemas are valid 2020-12 and every property is described --------------------------------------


def _undescribed_properties(node: Any, path: str = "#") -> tuple[list[str], int]:
    """Paths of the properties without a non-empty description, and the number of properties seen."""
    missing: list[str] = []
    seen = 0
    if isinstance(node, dict):
        properties = node.get("properties")
        if isinstance(properties, dict):
            for name, prop in properties.items():
                seen += 1
                description = prop.get("description") if isinstance(prop, dict) else None
                if not (isinstance(description, str) and description.strip()):
                    missing.append(f"{path}/properties/{name}")
        for key, value in node.items():
            sub_missing, sub_seen = _undescribed_properties(value, f"{path}/{key}")
            missing += sub_missing
            seen += sub_seen
    elif isinstance(node, list):
        for index, value in enumerate(node):
            sub_missing, sub_seen = _undescribed_properties(value, f"{path}/{index}")
            missing += sub_missing
            seen += sub_seen
    return missing, seen


def test_the_description_walker_finds_missing_descriptions() -> None:
    schema = {"properties": {"a": {"description": "ok"}}, "$defs": {"X": {"properties": {"b": {"type": "string"}}}}}
    assert _undescribed_properties(schema) == (["#/$defs/X/properties/b"], 2)


def test_schema_registries_have_the_agreed_names() -> None:
    assert set(HOOK_SCHEMAS) == {
        f"hook-{event}-{side}"
        for event in (event.name.lower() for event in HOOK_EVENTS)
        for side in ("input", "output")
    }
    assert list(MONITOR_SCHEMAS.items()) == [("monitor-state", MonitorState)]


@pytest.mark.parametrize("mode", ["validation", "serialization"])
@pytest.mark.parametrize("name", sorted(ALL_MODELS))
def test_json_schema_is_valid_and_fully_described(name: str, mode: JsonSchemaMode) -> None:
    model = ALL_MODELS[name]
    schema = model.model_json_schema(by_alias=True, mode=mode)
    jsonschema.Draft202012Validator.check_schema(schema)
    assert (schema.get("description") or "").strip(), f"{name}: the model has no docstring"
    for def_name, definition in schema.get("$defs", {}).items():
        assert (definition.get("description") or "").strip(), f"{name}: $defs/{def_name} has no description"
    missing, seen = _undescribed_properties(schema)
    assert seen >= 2
    assert missing == []


@pytest.mark.parametrize("model", [SessionStartOutput, UserPromptSubmitOutput, PostToolUseOutput])
def test_output_schema_uses_the_json_key_names(model: type[BaseModel]) -> None:
    properties = model.model_json_schema(by_alias=True)["properties"]
    assert {"continue", "stopReason", "suppressOutput", "systemMessage", "hookSpecificOutput"} <= set(properties)
    assert "continue_" not in properties


@pytest.mark.parametrize(("model", "event"), CONTEXT_OUTPUTS)
def test_json_schema_agrees_with_the_model_on_outputs(model: type[BaseModel], event: str) -> None:
    validator = jsonschema.Draft202012Validator(model.model_json_schema(by_alias=True))
    assert validator.is_valid({})
    assert validator.is_valid({"continue": False, "stopReason": "stop", **_context_output(event, "x" * 10_000)})
    assert not validator.is_valid(_context_output(event, "x" * 10_001))
    assert not validator.is_valid(_context_output("Notification", "x"))
    assert not validator.is_valid({"systemMessage": None})
    assert not validator.is_valid({"unknownKey": 1})


def test_json_schema_of_precompact_output() -> None:
    validator = jsonschema.Draft202012Validator(PreCompactOutput.model_json_schema(by_alias=True))
    assert validator.is_valid({})
    assert validator.is_valid({"decision": "block", "reason": "why"})
    assert not validator.is_valid({"hookSpecificOutput": {"hookEventName": "PreCompact", "additionalContext": ""}})


@pytest.mark.parametrize("event", sorted(EXAMPLE_INPUTS))
def test_json_schema_of_inputs_accepts_examples_with_unknown_fields(event: str) -> None:
    payload = json.loads(EXAMPLE_INPUTS[event])
    payload["field_from_a_future_version"] = True
    schema = HOOK_INPUT_MODELS[event].model_json_schema(by_alias=True)
    jsonschema.Draft202012Validator(schema).validate(payload)


# (e) MonitorState ----------------------------------------------------------------------------------------------


def test_monitor_state_valid_example() -> None:
    state = MonitorState.model_validate(_monitor_state())
    assert state.tier is FillTier.WARNING
    assert state.source is FillSource.TRANSCRIPT


def test_monitor_state_unknown_fill_after_compaction() -> None:
    data = _monitor_state(fill=None, tokens=None, tier="UNKNOWN", source="compact_boundary")
    assert MonitorState.model_validate(data).fill is None


@pytest.mark.parametrize(
    ("key", "bad"),
    [
        ("fill", 1.5),
        ("fill", -0.1),
        ("tier", "HIGH"),
        ("source", "statusline"),
        ("window", 0),
        ("tokens", -1),
        ("transcript_offset", -1),
        ("schema_version", "2.0"),
        ("timestamp", "yesterday"),
    ],
)
def test_monitor_state_rejects_bad_values(key: str, bad: Any) -> None:
    with pytest.raises(ValidationError) as caught:
        MonitorState.model_validate(_monitor_state(**{key: bad}))
    assert _rejected_at(caught.value, key)


def test_monitor_state_rejects_unknown_and_missing_keys() -> None:
    with pytest.raises(ValidationError):
        MonitorState.model_validate(_monitor_state(fill_percent=64))
    data = _monitor_state()
    del data["transcript_offset"]
    with pytest.raises(ValidationError):
        MonitorState.model_validate(data)


def test_monitor_state_json_schema_rejects_what_the_model_rejects() -> None:
    validator = jsonschema.Draft202012Validator(MonitorState.model_json_schema(by_alias=True))
    assert validator.is_valid(_monitor_state())
    assert not validator.is_valid(_monitor_state(fill=1.5))
    assert not validator.is_valid(_monitor_state(tier="HIGH"))
