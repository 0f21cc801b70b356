"""Every rule has a fixture that triggers it (at the expected place) and fixtures that do not."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ctxres.config import ALL, Config, load_config
from ctxres.findings import Finding
from ctxres.linters.checking import engine
from ctxres.linters.rules import all_rules

from ..conftest import FIXTURES

RULE_DIR = FIXTURES / "rules"
# `expect: CODE` or `expect: CODE/warning` (the finding's severity is checked when it is given)
_CODE = r"[A-Z]\d{3}(?:/(?:error|warning))?"
MARKER = re.compile(rf"expect:\s*({_CODE}(?:\s*,\s*{_CODE})*)")
EXPECTED_LINE = re.compile(rf"^(?P<file>[^:]+):(?P<line>\d+|\*):(?P<col>\d+|\*):\s*(?P<code>{_CODE})$")


def _cases(prefix: str) -> list[Path]:
    return sorted(p for p in RULE_DIR.glob(f"*/{prefix}*") if p.is_dir())


def _expected(case: Path) -> set[tuple[str, int | None, int | None, str]]:
    """(file, line, column or None, code) from `expect: CODE` markers and the EXPECTED file."""
    found: set[tuple[str, int | None, int | None, str]] = set()
    for path in sorted(case.rglob("*")):
        if not path.is_file() or path.name == "EXPECTED":
            continue
        rel = path.relative_to(case).as_posix()
        for number, line in enumerate(path.read_bytes().decode("utf-8", "replace").splitlines(), start=1):
            match = MARKER.search(line)
            if match:
                for code in re.split(r"\s*,\s*", match.group(1)):
                    found.add((rel, number, None, code))
    listing = case / "EXPECTED"
    if listing.exists():
        for line in listing.read_text().splitlines():
            match = EXPECTED_LINE.match(line.strip())
            assert match, f"bad EXPECTED line in {listing}: {line!r}"
            row = match.group("line")
            col = match.group("col")
            found.add(
                (
                    match.group("file"),
                    None if row == "*" else int(row),
                    None if col == "*" else int(col),
                    match.group("code"),
                )
            )
    return found


def _run(case: Path) -> list[tuple[str, int, int, str]]:
    """(file, line, column, CODE/severity) of every finding."""
    report = engine.run([case], load_config(case), cwd=case)
    return [(f.path, f.position.line, f.position.col, f"{f.code}/{f.severity.value}") for f in report.findings]


def _code(code: str) -> str:
    return code.split("/")[0]


def _matches(actual: tuple[str, int, int, str], expected: tuple[str, int | None, int | None, str]) -> bool:
    return (
        actual[0] == expected[0]
        and (actual[3] == expected[3] or _code(actual[3]) == expected[3])
        and expected[1] in (None, actual[1])
        and expected[2] in (None, actual[2])
    )


@pytest.mark.parametrize("case", _cases("bad"), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_bad_fixture_triggers_its_rule_where_expected(case: Path) -> None:
    code = case.parent.name
    expected = _expected(case)
    assert any(_code(e[3]) == code for e in expected), f"{case} declares no expected {code} finding"
    actual = [a for a in _run(case) if _code(a[3]) == code]
    wanted = {e for e in expected if _code(e[3]) == code}
    unmatched_expected = [e for e in wanted if not any(_matches(a, e) for a in actual)]
    unexpected = [a for a in actual if not any(_matches(a, e) for e in wanted)]
    assert not unmatched_expected and not unexpected, f"missing: {unmatched_expected}; unexpected: {unexpected}"


@pytest.mark.parametrize("case", _cases("good"), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_good_fixture_is_clean(case: Path) -> None:
    """A near miss for its rule, and clean for every other rule too."""
    assert _run(case) == []


def test_valid_workspace_has_no_findings_at_all() -> None:
    valid = FIXTURES / "valid"
    report = engine.run([valid], load_config(valid), cwd=valid)
    assert report.files_checked == 7
    assert report.findings == []


# Rules that need a git history rather than a folder of files; each is triggered by the test named.
# Rules that a command reports, not `ctxres check` on files: the test that triggers each.
COMMAND_RULES = {
    "S013": "tests/rules/test_stale_commits.py::test_check_since_reports_the_stale_commit_as_s013_in_every_format",
    "A013": "tests/rules/test_merged_compactions.py::"
    "test_a_merge_that_kept_one_of_two_compactions_is_reported_and_renumber_keeps_both",
    "L001": "tests/commands/test_command_reporters.py::test_doctor_missing_layers_are_l001",
    "L002": "tests/commands/test_command_reporters.py::test_doctor_misconfigured_layer_is_l002",
    "M012": "tests/commands/test_command_reporters.py::test_append_only_rewritten_line_is_m012",
    "M013": "tests/commands/test_command_reporters.py::test_runs_warnings_are_findings",
}


def test_command_rules_name_tests_that_exist() -> None:
    root = Path(__file__).resolve().parent.parent.parent
    for code, test in COMMAND_RULES.items():
        path, name = test.split("::")
        assert f"def {name}(" in (root / path).read_text("utf-8"), (code, test)


def test_every_rule_has_a_triggering_fixture() -> None:
    missing = [code for code in all_rules() if code not in COMMAND_RULES and not list((RULE_DIR / code).glob("bad*"))]
    assert not missing, f"rules without a fixture that triggers them: {missing}"


def _place(finding: Finding) -> tuple[str, int, int, str]:
    return finding.path, finding.position.line, finding.position.col, finding.code


def _every_rule(case: Path) -> Config:
    return load_config(case).replace(select=(ALL,), extend_select=(), ignore=(), per_file_ignores={})


@pytest.mark.parametrize("case", _cases("bad"), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_bad_fixture_yields_only_the_codes_it_declares_on_each_line(case: Path) -> None:
    """With every rule selected, each finding of a bad fixture is declared (its code, on its line): two rules
    that report one defect at one place fail here, whichever rule the fixture is for. And a run that selects
    only the fixture's rule finds what the run of every rule finds of it (the engine calls only the checks of
    the selected rules)."""
    full = engine.run([case], _every_rule(case), cwd=case).findings
    expected = _expected(case)
    undeclared = [
        (f.path, f.position.line, f.code)
        for f in full
        if not any(e[0] == f.path and _code(e[3]) == f.code and e[1] in (None, f.position.line) for e in expected)
    ]
    assert not undeclared, f"findings the fixture does not declare (`expect:` marker or EXPECTED line): {undeclared}"
    code = case.parent.name
    if code == "I002":
        return  # a code of a comment is unused only when the run selects its rule: I002 depends on the others
    only = _every_rule(case).replace(select=(code,))
    alone = engine.run([case], only, cwd=case).findings
    # (place and code: a message may say the time of the run, S002's "it is now ...")
    assert [_place(f) for f in alone] == [_place(f) for f in full if f.code == code]
