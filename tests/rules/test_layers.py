"""The rules of linters/rules/layers.py: L001 and L002, the layers `ctxres doctor` reports (what a hook
matcher covers; the reports themselves: tests/commands/test_command_reporters.py)."""

from __future__ import annotations

import pytest

from ctxres.linters.rules.layers import matcher_covers


@pytest.mark.parametrize(
    ("matcher", "covers"),
    [
        ("", True),
        ("*", True),
        ("Write|Edit|MultiEdit", True),
        ("Edit|Write", False),
        ("Edit, Write, MultiEdit", True),
        (".*Edit|Write", True),
        ("Write", False),
        ("(", False),
    ],
)
def test_matcher_semantics(matcher: str, covers: bool) -> None:
    assert matcher_covers(matcher, ("Write", "Edit", "MultiEdit")) is covers
