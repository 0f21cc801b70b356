"""Loading keeps positions, reports problems as issues, and refuses hostile input quickly."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxres.findings import Position
from ctxres.formats.loading import Format, IssueKind, Limits, load_file, parse_text


def _yaml(text: str) -> tuple[object, list[IssueKind]]:
    result = parse_text("f.yaml", "orchestration", Format.YAML, text)
    return result.document, [issue.kind for issue in result.issues]


def test_yaml_positions_of_keys_and_values() -> None:
    doc = parse_text("f.yaml", "o", Format.YAML, "a:\n  b: 1\n  c:\n    - x\n    - {d: 2}\n").document
    assert doc is not None
    assert doc.key_pos[("a", "b")] == Position(2, 3)
    assert doc.value_pos[("a", "b")] == Position(2, 6)
    assert doc.value_pos[("a", "c", 1)] == Position(5, 7)
    assert doc.key_pos[("a", "c", 1, "d")] == Position(5, 8)
    # an absent path is located at its nearest ancestor
    assert doc.locate(("a", "c", 1, "missing")) == Position(5, 7)


def test_yaml_duplicate_key_is_an_issue_at_the_second_key() -> None:
    result = parse_text("f.yaml", "o", Format.YAML, "a: 1\nb: 2\na: 3\n")
    assert [(i.kind, i.position) for i in result.issues] == [(IssueKind.DUPLICATE_KEY, Position(3, 1))]
    assert result.document is not None and result.document.data == {"a": 3, "b": 2}


def test_yaml_timestamps_become_iso_strings_and_are_remembered() -> None:
    doc = parse_text("f.yaml", "o", Format.YAML, "t: 2026-01-03T17:00:00\nd: 2026-01-03\n").document
    assert doc is not None
    assert doc.data == {"t": "2026-01-03T17:00:00", "d": "2026-01-03"}
    assert sorted(doc.yaml_timestamps) == [("d",), ("t",)]


def test_yaml_syntax_error_is_located() -> None:
    result = parse_text("f.yaml", "o", Format.YAML, "a:\n  b: 1\n   c: 2\n")
    assert result.document is None
    assert result.issues[0].kind is IssueKind.SYNTAX
    assert result.issues[0].position.line == 3


def test_yaml_merge_keys_are_resolved() -> None:
    doc = parse_text("f.yaml", "o", Format.YAML, "base: &b {k: 1}\nc:\n  <<: *b\n  j: 2\n").document
    assert doc is not None and doc.data["c"] == {"k": 1, "j": 2}


def test_alias_bomb_is_refused() -> None:
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, 9):
        prev, cur = chr(96 + i), chr(97 + i)
        lines.append(f"{cur}: &{cur} [" + ",".join([f"*{prev}"] * 9) + "]")
    _, kinds = _yaml("\n".join(lines))
    assert kinds == [IssueKind.LIMIT]


def test_recursive_alias_is_refused() -> None:
    _, kinds = _yaml("a: &x [1, *x]\n")
    assert kinds == [IssueKind.LIMIT]


def test_deep_nesting_is_refused_not_crashing() -> None:
    _, kinds = _yaml("[" * 5000 + "]" * 5000)
    assert kinds == [IssueKind.LIMIT]
    _, kinds = _yaml("a: " + "[" * 300 + "]" * 300)
    assert kinds == [IssueKind.LIMIT]


def test_custom_tags_never_construct_objects() -> None:
    doc, kinds = _yaml("a: !!python/object/apply:os.system ['echo hi']\nb: !custom text\n")
    assert kinds == []
    assert doc is not None
    assert doc.data == {"a": ["echo hi"], "b": "text"}  # plain data, nothing constructed or run


def test_json_positions_and_duplicates() -> None:
    result = parse_text("f.json", "c", Format.JSON, '{\n  "a": {"b": [1, 2.5, "x"]},\n  "a": null\n}')
    doc = result.document
    assert doc is not None
    assert doc.data == {"a": None}
    assert doc.key_pos[("a",)] == Position(3, 3)
    assert [(i.kind, i.position) for i in result.issues] == [(IssueKind.DUPLICATE_KEY, Position(3, 3))]


def test_json_values_match_the_standard_library() -> None:
    import json

    text = '{"s": "\\u00e9\\n\\"", "n": -1.5e3, "i": 42, "t": true, "f": false, "z": null, "l": []}'
    doc = parse_text("f.json", "c", Format.JSON, text).document
    assert doc is not None and doc.data == json.loads(text)


@pytest.mark.parametrize(
    ("text", "line", "col"),
    [('{"a": 1,\n "b": }', 2, 7), ('{"a" 1}', 1, 6), ("[1, 2", 1, 6), ('{"a": 1} x', 1, 10), ("", 1, 1)],
)
def test_json_syntax_errors_are_located(text: str, line: int, col: int) -> None:
    result = parse_text("f.json", "c", Format.JSON, text)
    assert result.document is None
    assert [(i.kind, i.position) for i in result.issues] == [(IssueKind.SYNTAX, Position(line, col))]


def test_jsonl_bad_lines_are_reported_and_skipped() -> None:
    text = '{"a": 1}\nnot json\n\n{"a": 2}\n{"a":\n'
    result = parse_text("e.jsonl", "event-log", Format.JSONL, text)
    assert result.document is not None
    assert result.document.data == [{"a": 1}, {"a": 2}]
    assert result.document.line_numbers == [1, 4]
    assert result.document.value_pos[(1, "a")] == Position(4, 7)
    assert [(i.kind, i.position.line) for i in result.issues] == [(IssueKind.SYNTAX, 2), (IssueKind.SYNTAX, 5)]


def test_front_matter_positions_are_file_lines() -> None:
    text = "---\nproject_id: 24-demo\nlast_updated: 2026-01-03T17:00:00\n---\n# Body\n"
    doc = parse_text("resume-context.md", "resume-context", Format.FRONT_MATTER, text).document
    assert doc is not None
    assert doc.key_pos[("last_updated",)] == Position(3, 1)
    assert doc.yaml_timestamps == [("last_updated",)]


def test_missing_front_matter() -> None:
    result = parse_text("resume-context.md", "r", Format.FRONT_MATTER, "# Title\n---\na: 1\n---\n")
    assert [i.kind for i in result.issues] == [IssueKind.NO_FRONT_MATTER]


def test_size_limit(tmp_path: Path) -> None:
    path = tmp_path / "ORCHESTRATION.yaml"
    path.write_text("a: " + "x" * 500)
    result = load_file(str(path), "o", Format.YAML, Limits(max_bytes=100))
    assert [i.kind for i in result.issues] == [IssueKind.TOO_LARGE]


def test_non_utf8_and_binary(tmp_path: Path) -> None:
    latin = tmp_path / "a.yaml"
    latin.write_bytes(b"a: 1\nb: caf\xe9\n")
    result = load_file(str(latin), "o", Format.YAML)
    assert [(i.kind, i.position) for i in result.issues] == [(IssueKind.ENCODING, Position(2, 7))]
    binary = tmp_path / "b.json"
    binary.write_bytes(b'{"a":\x00}')
    assert [i.kind for i in load_file(str(binary), "c", Format.JSON).issues] == [IssueKind.BINARY]


def test_utf8_bom_is_accepted(tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    path.write_bytes(b'\xef\xbb\xbf{"a": 1}')
    result = load_file(str(path), "c", Format.JSON)
    assert result.issues == [] and result.document is not None and result.document.data == {"a": 1}


def test_unreadable_file(tmp_path: Path) -> None:
    result = load_file(str(tmp_path / "missing.yaml"), "o", Format.YAML)
    assert [i.kind for i in result.issues] == [IssueKind.UNREADABLE]
