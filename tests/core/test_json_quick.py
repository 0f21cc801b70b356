"""JSON read by the C parser with positions found on demand agrees with the position-keeping parser."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxres.formats.document import LazyPositions
from ctxres.formats.jsonpos import JsonPosError, parse_json, parse_json_quick

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"

CASES = [
    '{"a": 1, "b": [1, 2.5, {"c": null}], "d": "\\u00e9\\n"}',
    '{"a": 1, "a": 2}',  # a duplicate: read by parse_json at once
    '{"a": NaN}',
    "[Infinity]",
    '{"a": 1} x',
    '{"a": }',
    "",
    "  [1, 2]  ",
    "\ufeff{}",
    "[" * 250 + "]" * 250,  # nested past the limit
    "[" * 150 + "]" * 150,
    '"just a string"',
    "-0",
    "1e999",
    '{"k": "\\ud800"}',
    '{"a": "tab\tinside"}',
    "١",
]


def _texts() -> list[str]:
    texts = list(CASES)
    for path in sorted(FIXTURES.rglob("*.json")):
        try:
            texts.append(path.read_text("utf-8"))
        except (UnicodeDecodeError, OSError):
            continue
    return texts


def _outcome(parse: object, text: str) -> tuple[object, ...]:
    try:
        parsed = parse(text, max_depth=200)  # type: ignore[operator]
    except JsonPosError as exc:
        return ("error", exc.message, exc.position)
    return ("ok", parsed.data, parsed.duplicates, dict(parsed.value_pos.items()), dict(parsed.key_pos.items()))


@pytest.mark.parametrize("text", _texts())
def test_quick_json_agrees_with_parse_json(text: str) -> None:
    assert repr(_outcome(parse_json_quick, text)) == repr(_outcome(parse_json, text))


def test_positions_are_looked_up_without_settling() -> None:
    parsed = parse_json_quick('{\n  "a": [1, {"b": 2}]\n}')
    assert isinstance(parsed.value_pos, LazyPositions)
    assert parsed.value_pos[("a", 1, "b")].line == 2 and parsed.key_pos[("a",)].col == 3
    assert ("a", 2) not in parsed.value_pos and not parsed.value_pos.settled
