"""The rules of linters/rules/conformance.py (C001 to C008; the validators they use:
tests/rules/test_schema_*.py). A Nexus manifest written before the versioned format: one C001 listing
every missing key; a warning when only its version or its project's id or name is missing, an error when
what it loads is missing."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxres.config import load_config
from ctxres.findings import Severity
from ctxres.linters.checking import engine

COMPLETE = {
    "resume_schema_version": '"1.0"',
    "last_updated": '"2026-01-04T12:00:00Z"',
    "project_id": '"24-demo-project"',
    "project_name": '"Demo Project"',
    "current_phase": '"execution"',
    "next_action": '"execute-project"',
    "files_to_load": '["01-planning/plan.md"]',
}


def check(tmp_path: Path, *absent: str, extra: str = "") -> list[tuple[str, Severity, str]]:
    folder = tmp_path / "02-projects" / "24-demo-project" / "01-planning"
    folder.mkdir(parents=True)
    (tmp_path / "00-system").mkdir()  # a Nexus workspace: the manifest is ours by its place, whatever its keys
    (folder / "plan.md").write_text("# Plan\n")
    keys = "".join(f"{k}: {v}\n" for k, v in COMPLETE.items() if k not in absent)
    (folder / "resume-context.md").write_text(f"---\n{keys}{extra}---\n\n# Resume\n")
    report = engine.run([tmp_path], load_config(tmp_path), cwd=tmp_path)
    return [(f.code, f.severity, f.message) for f in report.findings]


def test_a_complete_manifest_with_its_own_keys_is_clean(tmp_path: Path) -> None:
    assert check(tmp_path, extra='status: "in progress"\nowner: "platform"\n') == []


@pytest.mark.parametrize(
    "absent",
    [
        ("resume_schema_version",),
        ("project_id",),
        ("resume_schema_version", "project_id"),
        ("resume_schema_version", "project_id", "project_name"),
    ],
)
def test_a_missing_version_or_project_id_is_one_warning_listing_every_key(
    tmp_path: Path, absent: tuple[str, ...]
) -> None:
    ((code, severity, message),) = check(tmp_path, *absent, extra="status: planning\n")
    assert (code, severity) == ("C001", Severity.WARNING)
    assert f"misses {len(absent)} key" in message and "more like it" not in message
    assert all(f"`{key}`" in message for key in absent)
    assert ("before the versioned format" in message) == ("resume_schema_version" in absent)


@pytest.mark.parametrize("loaded", ["current_phase", "next_action", "files_to_load", "last_updated"])
def test_a_missing_key_of_what_is_loaded_makes_the_one_finding_an_error(tmp_path: Path, loaded: str) -> None:
    ((code, severity, message),) = check(tmp_path, "resume_schema_version", "project_id", loaded)
    assert (code, severity) == ("C001", Severity.ERROR)
    assert "misses 3 keys: `resume_schema_version`, " in message and "`project_id`" in message
    assert f"without `{loaded}` a resuming session cannot load it" in message


def test_one_missing_key_of_what_is_loaded_alone_is_the_plain_error(tmp_path: Path) -> None:
    ((code, severity, message),) = check(tmp_path, "next_action")
    assert (code, severity) == ("C001", Severity.ERROR)
    assert message == "missing required key `next_action` in the top level"
