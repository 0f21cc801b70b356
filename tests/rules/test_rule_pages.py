"""Every rule's page (generated from its explanation) says why it matters, shows an example and says how
to fix it, in that order, as each rule's page does; ``python dev/generate.py --check`` keeps the pages in
``docs/rules`` equal to the explanations."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ctxres.linters.commands.rules import failing_case, run_case
from ctxres.linters.rules import all_rules

from ..conftest import FIXTURES, ROOT

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


PAGES = ROOT / "docs" / "rules"
SHOWN = re.compile(
    r"^`ctxres check` run in this rule's failing test case \(`([^`]+)` in the repository\) prints:\n\n"
    r"```text\n(.*?)\n```$",
    re.M | re.S,
)
# The rules whose failing case is not a folder of files (a git merge, a commit range, the doctor's
# layers, a staged change): their tests build it, and their pages show no output.
NO_FAILING_FOLDER = ("A013", "L001", "L002", "M012", "M013", "S013")


def shown_output(code: str) -> tuple[str, str] | None:
    """The failing case and the output the page ``docs/rules/<code>.md`` shows under its Example."""
    page = (PAGES / f"{code}.md").read_text("utf-8")
    example = page.split("## Example\n", 1)[1].split("\n## ", 1)[0]
    found = SHOWN.search(example)
    return None if found is None else (found[1], found[2])


@pytest.mark.parametrize("code", sorted(set(all_rules()) - set(NO_FAILING_FOLDER)))
def test_every_rule_page_shows_what_check_prints_on_its_failing_case(code: str) -> None:
    """The output on the page is what `ctxres check` prints today in the case it names: a message whose
    wording changed fails here until ``python dev/generate.py --write`` regenerates the pages."""
    shown = shown_output(code)
    assert shown is not None, f"docs/rules/{code}.md shows no output under its Example"
    case, output = shown
    assert case == f"fixtures/rules/{code}/{failing_case(FIXTURES / 'rules', code)}/"
    assert "\n".join(run_case(ROOT / case, code)) == output


def test_the_rules_without_a_failing_folder_show_no_output() -> None:
    assert [code for code in sorted(all_rules()) if shown_output(code) is None] == sorted(NO_FAILING_FOLDER)
