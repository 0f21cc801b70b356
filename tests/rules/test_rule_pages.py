"""Every rule's page (generated from its explanation) says why it matters, shows an example and says how
to fix it, in that order, as each rule's page does; ``python dev/generate.py --check`` keeps the pages in
``docs/rules`` equal to the explanations."""

from __future__ import annotations

import re

import pytest

from ctxres.linters.rules import all_rules

HEADINGS = ("Why", "Example", "Fix")


@pytest.mark.parametrize("code", sorted(all_rules()))
def test_every_rule_page_has_why_example_and_fix_in_order(code: str) -> None:
    headings = re.findall(r"^## (.+)$", all_rules()[code].doc(), re.M)
    assert [heading for heading in headings if heading in HEADINGS] == list(HEADINGS), (code, headings)
