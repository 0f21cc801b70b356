"""P007 only where the schema reads the keys of a mapping as text."""

from __future__ import annotations

import pytest

from ctxres.formats.document import Document
from ctxres.formats.loading import Format, parse_text
from ctxres.linters.validation.schema_keys import expects_string_key

V2 = """\
phase_notes: {1: "x"}
resumption:
  recovery_state: {current_phase: 1}
  agent_summaries: {writer: "PASS."}
  quality_trajectory: {score_history: {qg-1: [0.9]}}
  decision_log: [{id: "D-1", decision: "x"}]
  files_to_read: [{path: "a.md", priority: 1}]
  project_extension: {1: "x"}
"""
V1 = 'resumption:\n  last_checkpoint: null\n  current_state: "x"\n  next_step: "y"\n  files_to_read: []\n'


def _doc(text: str) -> Document:
    result = parse_text("ORCHESTRATION.yaml", "orchestration", Format.YAML, text)
    assert result.document is not None
    return result.document


@pytest.mark.parametrize(
    ("key_path", "expected"),
    [
        (("resumption", "agent_summaries", "1"), True),  # an agent id
        (("resumption", "quality_trajectory", "score_history", "1"), True),  # a gate id
        (("resumption", "recovery_state", "1"), True),  # a mapping of known keys
        (("resumption", "decision_log", 0, "1"), True),  # an item of a described list
        (("resumption", "files_to_read", 0, "1"), True),
        (("resumption", "1"), True),
        (("phase_notes", "1"), False),  # the project's own mapping, outside the section
        (("resumption", "project_extension", "1"), False),  # the project's own key inside it
    ],
)
def test_keys_the_schema_reads_as_text(key_path: tuple[str | int, ...], expected: bool) -> None:
    assert expects_string_key(_doc(V2), key_path) is expected


def test_a_v1_section_is_described_by_the_v1_schema() -> None:
    assert expects_string_key(_doc(V1), ("resumption", "1")) is True
    assert expects_string_key(_doc(V1), ("resumption", "agent_summaries", "1")) is False  # not a v1.0 key
