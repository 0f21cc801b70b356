"""docs/timeline.md explains every kind of event the timeline draws, each under its own heading."""

from __future__ import annotations

import re
from pathlib import Path

from ctxres.linters.timeline.data import kind_of
from ctxres.linters.timeline.model import EVENT_KINDS

DOC = Path(__file__).resolve().parents[2] / "docs" / "timeline.md"


def test_every_kind_of_event_has_its_section_and_no_other() -> None:
    text = DOC.read_text("utf-8")
    events = text.split("## The events\n", 1)[1].split("\n## ", 1)[0]
    assert re.findall(r"^### (\S+)$", events, re.M) == [kind_of(kind) for kind in EVENT_KINDS]


def test_every_field_of_an_event_is_named_in_its_section() -> None:
    text = DOC.read_text("utf-8")
    for kind in EVENT_KINDS:
        section = text.split(f"\n### {kind_of(kind)}\n", 1)[1].split("\n#", 1)[0]
        fields = [name for name in kind.__dataclass_fields__ if name not in ("turn", "time", "kind", "workflow")]
        missing = [name for name in fields if f"`{name}`" not in section]
        assert missing == [], (kind_of(kind), missing)
