"""Rule codes cannot be mistyped, through the real `ctxres` command.

An unknown code or prefix, wherever it is written (`--select`, `--extend-select`, `--ignore`, the
configuration keys `select`, `extend-select`, `ignore`, `severity`, `per-file-ignores`), is a usage
error: exit 2, one line, a "did you mean" when a code is close, never "All checks passed". Options that
take codes accumulate. `--statistics` counts the findings per code.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from ..cli_process import ctxres

# A v1.0 section with a misspelled key: V001 (warning) on line 1 and C006 (warning) on line 6.
ORCHESTRATION = """\
resumption:
  last_checkpoint: "CP-005"
  current_state: "Workflow COMPLETE."
  next_step: "None: workflow finished."
  files_to_read: []
  cross_session_portabel: true
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "ORCHESTRATION.yaml").write_text(ORCHESTRATION)
    return tmp_path


def codes(result: subprocess.CompletedProcess[str]) -> list[str]:
    return [finding["code"] for finding in json.loads(result.stdout)["findings"]]


def assert_usage_error(result: subprocess.CompletedProcess[str], *needles: str) -> None:
    assert result.returncode == 2, result
    assert result.stdout == "", "nothing is checked"
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("ctxres: "), result.stderr
    assert "error" in lines[0] and "Traceback" not in result.stderr
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])


@pytest.mark.parametrize(
    ("args", "needles"),
    [
        (["--select", "c003"], ["--select", "'c003'", "did you mean 'C003'?"]),
        (["--select", "Z999"], ["--select", "'Z999'", "ctxres rules"]),
        (["--select", "C003,C0005"], ["--select", "'C0005'", "did you mean 'C005'?"]),
        (["--extend-select", "x001"], ["--extend-select", "did you mean 'X001'?"]),
        (["--ignore", "C0006"], ["--ignore", "did you mean 'C006'?"]),
        (["--select", "C003", "--select", "all"], ["--select", "did you mean 'ALL'?"]),
    ],
)
def test_an_unknown_code_on_the_command_line_is_a_usage_error(
    project: Path, args: list[str], needles: list[str]
) -> None:
    assert_usage_error(ctxres("check", *args, ".", cwd=project), "ctxres: error:", *needles)


@pytest.mark.parametrize(
    ("selector", "expected"),
    [
        ("ALL", ["C006", "V001"]),
        ("C", ["C006"]),
        ("C0", ["C006"]),
        ("C006", ["C006"]),
        ("S01", []),
        ("V001,C", ["C006", "V001"]),
    ],
)
def test_codes_families_and_prefixes_are_accepted(project: Path, selector: str, expected: list[str]) -> None:
    result = ctxres("check", "--select", selector, "--output-format", "json", ".", cwd=project)
    assert result.returncode == 0 and result.stderr == "", result.stderr
    assert sorted(codes(result)) == expected


@pytest.mark.parametrize(
    ("toml", "needles"),
    [
        ('select = ["Z9"]\n', [":1:12:", "`select`", "'Z9'", "ctxres rules"]),
        ('extend-select = ["c003"]\n', [":1:19:", "`extend-select`", "did you mean 'C003'?"]),
        ('ignore = ["V001", "C0006"]\n', [":1:20:", "`ignore`", "did you mean 'C006'?"]),
        ('[severity]\nC0006 = "error"\n', [":2:1:", "`severity`", "did you mean 'C006'?"]),
        ('severity = { C = "error" }\n', ["`severity`", "'C' is a prefix", "C001"]),
        ('severity = { C006 = "info" }\n', [":1:14:", "`severity`", 'C006 must be "error" or "warning"']),
        ('[per-file-ignores]\n"*.yaml" = ["c006"]\n', [":2:14:", "per-file-ignores", "did you mean 'C006'?"]),
    ],
)
def test_an_unknown_code_in_the_configuration_is_an_error_naming_file_and_key(
    project: Path, toml: str, needles: list[str]
) -> None:
    (project / ".ctxres.toml").write_text(toml)
    result = ctxres("check", ".", cwd=project)
    assert_usage_error(result, ".ctxres.toml", *needles)


def test_pyproject_codes_are_checked_for_every_command_that_reads_the_configuration(project: Path) -> None:
    (project / "pyproject.toml").write_text('[project]\nname = "demo"\n\n[tool.ctxres]\nignore = ["c006"]\n')
    for command in (["check", "."], ["reinject", "."], ["doctor", "."]):
        result = ctxres(*command, cwd=project)
        assert result.returncode == 2, (command, result)
        assert "pyproject.toml:5:" in result.stderr and "did you mean 'C006'?" in result.stderr, command
        assert "Traceback" not in result.stderr


def test_select_accumulates(project: Path) -> None:
    result = ctxres("check", "--select", "C006", "--select", "V001", "--output-format", "json", ".", cwd=project)
    assert sorted(codes(result)) == ["C006", "V001"]


def test_ignore_and_extend_select_accumulate(project: Path) -> None:
    ignored = ctxres("check", "--ignore", "C006", "--ignore", "V001", "--output-format", "json", ".", cwd=project)
    assert codes(ignored) == []
    extended = ctxres(
        "check", "--select", "P", "--extend-select", "C006", "--extend-select", "V", "--output-format", "json", ".",
        cwd=project,
    )  # fmt: skip
    assert sorted(codes(extended)) == ["C006", "V001"]


def test_statistics_counts_the_findings_per_code(project: Path) -> None:
    (project / "ORCHESTRATION.yaml").write_text(ORCHESTRATION + '  ephemeral_refs: "x"\n  cross_portable: "y"\n')
    plain = ctxres("check", "--strict", ".", cwd=project)
    result = ctxres("check", "--strict", "--statistics", ".", cwd=project)
    assert result.returncode == plain.returncode == 1
    assert result.stdout.splitlines() == [
        "3  C006  unknown-key",
        "1  V001  v1-section",
        "Found 0 errors and 4 warnings in 1 file checked.",
    ]
    as_json = json.loads(ctxres("check", "--statistics", "--output-format", "json", ".", cwd=project).stdout)
    assert as_json == [
        {"code": "C006", "name": "unknown-key", "count": 3},
        {"code": "V001", "name": "v1-section", "count": 1},
    ]


def test_statistics_of_a_clean_run(project: Path) -> None:
    result = ctxres("check", "--statistics", "--select", "P", ".", cwd=project)
    assert result.returncode == 0 and result.stdout == "All checks passed (1 file checked).\n"


def test_rule_names_a_close_code(project: Path) -> None:
    result = ctxres("rule", "C0006", cwd=project)
    assert_usage_error(result, "ctxres: error:", "'C0006'", "did you mean 'C006'?")
    assert ctxres("rule", "i002", cwd=project).stdout.startswith("# I002: unused-suppression")
