"""Surgical YAML edits change only what they must."""

from __future__ import annotations

import pytest
import yaml

from ctxres.formats.yamledit import EditError, append_item, render, replace_value, set_key, top_level_span

DOC = """\
# header comment
workflow:
  id: "wf-1"   # keep me
resumption:
  recovery_state:
    last_checkpoint: "CP-001"  # latest
    updated_at: '2026-02-17T11:30:00Z'
  compaction_events:
    count: 1
    events:
      - id: "CX-001"
        acknowledged: true
      # - id: "CX-002"   (an example kept as a comment)
  decision_log: []

# trailing comment
next_actions: []
"""


def test_replace_value_keeps_comments_and_other_lines() -> None:
    out = replace_value(DOC, ("resumption", "compaction_events", "count"), "2")
    assert out == DOC.replace("    count: 1\n", "    count: 2\n")
    out = replace_value(DOC, ("resumption", "recovery_state", "last_checkpoint"), '"CP-002"')
    assert '    last_checkpoint: "CP-002"  # latest\n' in out
    assert out.replace('"CP-002"', '"CP-001"') == DOC


def test_set_key_appends_to_a_block_mapping() -> None:
    out = set_key(DOC, ("resumption", "recovery_state"), "next_step", "Run QG-2")
    assert "    updated_at: '2026-02-17T11:30:00Z'\n    next_step: \"Run QG-2\"\n  compaction_events:" in out
    assert yaml.safe_load(out)["resumption"]["recovery_state"]["next_step"] == "Run QG-2"
    assert set_key(DOC, ("resumption", "compaction_events"), "count", 3) == DOC.replace("count: 1", "count: 3")


def test_append_to_block_list_goes_after_the_last_item_not_after_comments() -> None:
    out = append_item(DOC, ("resumption", "compaction_events", "events"), {"id": "CX-002", "acknowledged": False})
    assert (
        '        acknowledged: true\n      - id: "CX-002"\n        acknowledged: false\n'
        '      # - id: "CX-002"   (an example kept as a comment)\n'
    ) in out
    assert [e["id"] for e in yaml.safe_load(out)["resumption"]["compaction_events"]["events"]] == ["CX-001", "CX-002"]


def test_append_to_empty_flow_list_makes_a_block_list() -> None:
    out = append_item(DOC, ("resumption", "decision_log"), {"id": "RD-001", "decision": "x"})
    assert '  decision_log:\n    - id: "RD-001"\n      decision: "x"\n\n# trailing comment' in out
    assert yaml.safe_load(out)["resumption"]["decision_log"] == [{"id": "RD-001", "decision": "x"}]


def test_refuses_what_it_cannot_do_in_place() -> None:
    with pytest.raises(EditError):
        replace_value(DOC, ("resumption", "recovery_state"), "x")
    with pytest.raises(EditError):
        replace_value(DOC, ("resumption", "nope"), "x")
    with pytest.raises(EditError):
        append_item("a: [1, 2]\n", ("a",), 3)


def test_top_level_span_stops_before_trailing_comments() -> None:
    span = top_level_span(DOC, "resumption")
    assert span is not None
    section = DOC[span[0] : span[1]]
    assert section.startswith("resumption:\n") and section.endswith("  decision_log: []")
    assert top_level_span(DOC, "missing") is None


def test_render_round_trips_through_yaml() -> None:
    value = {"a": [1, {"b": "yes", "c": None}], "d": {}, "e": [], "f": "x: y # z", "true": [[1, 2]]}
    assert yaml.safe_load("\n".join(render({"root": value}, 0))) == {"root": value}
