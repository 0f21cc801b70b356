"""Every rule's page (generated from its explanation) says why it matters, shows an example and says how
to fix it, in that order, as each rule's page does; ``python dev/generate.py --check`` keeps the pages in
``docs/rules`` equal to the explanations."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ctxres.linters.rules import all_rules

HEADINGS = ("Why", "Example", "Fix")


@pytest.mark.parametrize("code", sorted(all_rules()))
def test_every_rule_page_has_why_example_and_fix_in_order(code: str) -> None:
    headings = re.findall(r"^## (.+)$", all_rules()[code].doc(), re.M)
    assert [heading for heading in headings if heading in HEADINGS] == list(HEADINGS), (code, headings)


@pytest.mark.parametrize("code", sorted(all_rules()))
def test_no_rule_keeps_a_placeholder_of_the_scaffold(code: str) -> None:
    """`python dev/new_rule.py` writes TODOs for the summary, the case's reason and the page: each must be
    written before the rule passes (its page, its row of docs/architecture.md, `ctxres rules`)."""
    rule = all_rules()[code]
    assert "TODO" not in rule.summary + rule.why + rule.doc(), code


def test_the_architecture_page_keeps_no_placeholder_row() -> None:
    text = (Path(__file__).resolve().parents[2] / "docs" / "architecture.md").read_text("utf-8")
    rows = [line for line in text.splitlines() if line.startswith("|") and "TODO" in line]
    assert rows == []
