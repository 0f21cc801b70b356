"""Every rule follows a case of the severity policy, and its page and the policy page say which."""

from __future__ import annotations

import pytest

from ctxres.findings import Severity
from ctxres.linters.checking.registry import register
from ctxres.linters.checking.severity_policy import Case
from ctxres.linters.rules import _pages, all_rules


def test_every_rule_names_a_case_that_gives_its_severity_and_says_why() -> None:
    for code, rule in all_rules().items():
        assert rule.case is not None, code
        assert rule.case.severity is rule.severity, code
        assert rule.why.strip(), code


def test_every_rule_page_cites_its_case() -> None:
    for code, rule in all_rules().items():
        assert rule.case is not None
        page = rule.doc()
        assert "\n## Severity\n" in page, code
        assert rule.case.meaning in page and "(severity.md)" in page, code


def test_the_policy_page_lists_every_rule_once_under_its_case() -> None:
    page = _pages()["severity.md"]
    assert page.startswith("# Severity policy")
    for code, rule in all_rules().items():
        assert page.count(f"[{code}]({code}.md)") == 1, code
        assert rule.case is not None
        heading = f"## {rule.severity.value.capitalize()}: {rule.case.meaning}"
        assert page.index(heading) < page.index(f"[{code}]"), code


def test_a_rule_whose_case_disagrees_with_its_severity_is_refused() -> None:
    with pytest.raises(ValueError, match="case"):
        register("C999", "x", "x", Severity.ERROR, case=Case.OLD_VERSION, why="x")


def test_errors_are_the_three_error_cases() -> None:
    errors = {case for case in Case if case.severity is Severity.ERROR}
    assert errors == {Case.WRONG_RESUMPTION, Case.TOOL_JOB, Case.CONTRADICTION}
