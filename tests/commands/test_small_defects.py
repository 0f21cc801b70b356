"""The small defects a new user meets, each through the real command.

`ctxres schema export --dir NEW`, a misspelt option of a sub-command, `ctxres-hook --help`, a tab
in YAML, the position in a JSON error message, SARIF paths run from a sub-folder, and
`ctxres replay` finding fixtures at any depth.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from ctxres.hook_events import EVENTS

from ..cli_process import ctxres
from ..git_sandbox import git

SARIF_SCHEMA = Path(__file__).parent.parent / "data" / "sarif-schema-2.1.0.json"
BIN = Path(sys.executable).parent


def hook_command() -> str:
    return shutil.which("ctxres-hook", path=str(BIN)) or shutil.which("ctxres-hook") or "ctxres-hook"


# --- schema export -----------------------------------------------------------------------------


def test_schema_export_creates_a_missing_folder_and_its_parents(tmp_path: Path) -> None:
    target = tmp_path / "new" / "nested"
    result = ctxres("schema", "export", "--dir", str(target))
    assert result.returncode == 0, result.stderr
    assert "internal error" not in result.stderr
    written = sorted(p.name for p in target.glob("*.schema.json"))
    assert "checkpoint.schema.json" in written and "resumption-v2.schema.json" in written
    assert f"written to {target.resolve()}" in result.stdout
    assert ctxres("schema", "export", "--check", "--dir", str(target)).returncode == 0


def test_schema_export_to_a_file_is_a_clean_usage_error(tmp_path: Path) -> None:
    target = tmp_path / "a-file"
    target.write_text("not a folder\n")
    result = ctxres("schema", "export", "--dir", str(target))
    assert result.returncode == 2
    assert "is not a folder" in result.stderr and "Traceback" not in result.stderr
    assert target.read_text() == "not a folder\n"


def test_schema_export_without_dir_writes_to_schemas_here_and_says_so(tmp_path: Path) -> None:
    from ctxres.schemas import export

    package = Path(export.__file__).parent
    before = {p: p.stat().st_mtime_ns for p in package.glob("*.schema.json")}
    result = ctxres("schema", "export", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    here = tmp_path / "schemas"
    assert (here / "checkpoint.schema.json").is_file()
    assert str(here.resolve()) in result.stdout
    assert {p: p.stat().st_mtime_ns for p in package.glob("*.schema.json")} == before  # the package is untouched


# --- a misspelt option is the sub-command's error ----------------------------------------------


def test_misspelt_option_prints_the_sub_commands_usage_and_a_suggestion(tmp_path: Path) -> None:
    result = ctxres("check", "--output-fromat", "json", ".", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.startswith("usage: ctxres check "), result.stderr
    assert "ctxres check: error: unrecognized arguments: --output-fromat" in result.stderr
    assert "did you mean --output-format?" in result.stderr
    assert result.stdout == ""


@pytest.mark.parametrize(
    ("args", "usage", "option"),
    [
        (["rules", "--output-formt", "json"], "usage: ctxres rules ", "--output-format"),
        (["schema", "export", "--chek"], "usage: ctxres schema export ", "--check"),
        (["stale", "--snice", "HEAD"], "usage: ctxres stale ", "--since"),
    ],
)
def test_every_sub_command_reports_its_own_unknown_option(args: list[str], usage: str, option: str) -> None:
    result = ctxres(*args)
    assert result.returncode == 2
    assert result.stderr.startswith(usage), result.stderr
    assert f"did you mean {option}?" in result.stderr


# --- ctxres-hook --help ------------------------------------------------------------------------


@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_hook_help_lists_the_events_and_exits_zero(flag: str) -> None:
    result = subprocess.run([hook_command(), flag], capture_output=True, text=True, stdin=subprocess.DEVNULL)
    assert result.returncode == 0
    assert "unknown" not in result.stderr and result.stderr == ""
    assert result.stdout.startswith("usage: ctxres-hook EVENT")
    for event in EVENTS:
        assert f"\n  {event} " in result.stdout


# --- a tab in YAML -----------------------------------------------------------------------------


def check_json(folder: Path) -> list[dict[str, Any]]:
    result = ctxres("check", ".", "--output-format", "json", cwd=folder)
    assert result.returncode == 1, result.stdout + result.stderr
    findings: list[dict[str, Any]] = json.loads(result.stdout)["findings"]
    return [f for f in findings if f["code"] == "P001"]


def test_a_tab_in_the_indentation_is_named_at_its_place(tmp_path: Path) -> None:
    (tmp_path / "ORCHESTRATION.yaml").write_text(
        "resumption:\n  recovery_state:\n    next_step: x\n  \tfiles_to_read: []\n", encoding="utf-8"
    )
    [finding] = check_json(tmp_path)
    assert (finding["line"], finding["column"]) == (4, 3)
    assert "a tab character is used for indentation at line 4 column 3; YAML allows spaces only" in finding["message"]
    assert "spaces" in finding["fix"]


def test_a_tab_in_front_matter_is_located_in_the_file(tmp_path: Path) -> None:
    manifest = tmp_path / ".jerry" / "resume-context.md"
    manifest.parent.mkdir()
    manifest.write_text("---\nversion: 1\nfiles_to_load:\n\t- a.md\n---\n# Resume\n", encoding="utf-8")
    [finding] = check_json(tmp_path)
    assert (finding["line"], finding["column"]) == (4, 1)
    assert "tab character is used for indentation at line 4 column 1" in finding["message"]


# --- a JSON error keeps its position -----------------------------------------------------------


def test_json_errors_state_the_position_the_finding_has(tmp_path: Path) -> None:
    checkpoints = tmp_path / ".jerry" / "checkpoints"
    checkpoints.mkdir(parents=True)
    (checkpoints / "cx-001-x.json").write_text('{\n  "checkpoint_id": "cx-001",\n  "note": "tab\there"\n}\n')
    (checkpoints / "cx-002-x.json").write_text('{\n  "checkpoint_id": "cx-002",\n  "version": 1,\n')
    events = tmp_path / ".agent-memory" / "runs" / "r1" / "events" / "s1"  # a run's: ours whatever its lines
    events.mkdir(parents=True)
    (events / "e.jsonl").write_text('{"event_type": "a"}\n{"event_type": "b\\q"}\n')
    by_path = {f["path"]: f for f in check_json(tmp_path)}

    control = by_path[".jerry/checkpoints/cx-001-x.json"]
    assert (control["line"], control["column"]) == (3, 15)
    assert control["message"].endswith(
        "invalid control character '\\t' in a string at line 3 column 15; write it as an escape (\\n, \\t, \\u0000)"
    )
    truncated = by_path[".jerry/checkpoints/cx-002-x.json"]
    assert (truncated["line"], truncated["column"]) == (3, 16)
    assert "the JSON ends early" in truncated["message"]
    assert "the '{' at line 1 column 1 is never closed" in truncated["message"]
    escape = by_path[".agent-memory/runs/r1/events/s1/e.jsonl"]
    assert (escape["line"], escape["column"]) == (2, 18)
    assert escape["message"] == (
        "line 2 is not valid JSON and was skipped: invalid escape in a string at line 2 column 18; "
        "write a backslash as \\\\"
    )


# --- SARIF paths are relative to the repository root ------------------------------------------


def test_sarif_uris_are_relative_to_the_repository_root_from_a_sub_folder(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", ".")
    project = tmp_path / "projects" / "P1"
    project.mkdir(parents=True)
    (project / "ORCHESTRATION.yaml").write_text("resumption:\n  a: 1\n\tb: 2\n", encoding="utf-8")
    result = ctxres("check", ".", "--output-format", "sarif", cwd=tmp_path / "projects")
    assert result.returncode == 1, result.stderr
    log = json.loads(result.stdout)
    jsonschema.Draft7Validator(json.loads(SARIF_SCHEMA.read_text("utf-8"))).validate(log)
    [run] = log["runs"]
    locations = [r["locations"][0]["physicalLocation"]["artifactLocation"] for r in run["results"]]
    assert locations == [{"uri": "projects/P1/ORCHESTRATION.yaml", "uriBaseId": "%SRCROOT%"}]
    assert run["originalUriBaseIds"] == {"%SRCROOT%": {"uri": tmp_path.resolve().as_uri() + "/"}}
    # the text output keeps the path relative to the current folder
    assert ctxres("check", ".", cwd=tmp_path / "projects").stdout.startswith("P1/ORCHESTRATION.yaml:3:1:")


def test_sarif_outside_git_is_relative_to_the_current_folder(tmp_path: Path) -> None:
    (tmp_path / "ORCHESTRATION.yaml").write_text("resumption:\n  a: 1\n\tb: 2\n", encoding="utf-8")
    log = json.loads(ctxres("check", "ORCHESTRATION.yaml", "--output-format", "sarif", cwd=tmp_path).stdout)
    [run] = log["runs"]
    [result] = run["results"]
    assert result["locations"][0]["physicalLocation"]["artifactLocation"] == {
        "uri": "ORCHESTRATION.yaml",
        "uriBaseId": "%SRCROOT%",
    }


def test_github_annotations_name_files_from_the_repository_root(tmp_path: Path) -> None:
    """The Actions runner resolves `file=` against the repository, not the folder the run started in."""
    git(tmp_path, "init", "-q", ".")
    project = tmp_path / "projects" / "P1"
    project.mkdir(parents=True)
    (project / "ORCHESTRATION.yaml").write_text("resumption:\n  a: 1\n\tb: 2\n", encoding="utf-8")
    result = ctxres("check", ".", "--output-format", "github", cwd=tmp_path / "projects")
    assert result.returncode == 1, result.stderr
    assert result.stdout.startswith("::error file=projects/P1/ORCHESTRATION.yaml,line=3,col=1,title=P0"), result.stdout


# --- ctxres replay finds fixtures at any depth -------------------------------------------------


def make_fixture(folder: Path, note: str) -> None:
    (folder / "workspace" / ".claude").mkdir(parents=True)
    (folder / "workspace" / ".claude" / "settings.json").write_text("{}\n")
    steps = f"""\
        description: {note}
        steps:
        - name: s01-start
          now: '2026-02-17T09:00:00Z'
          event: SessionStart
          stdin:
            session_id: s-1
            cwd: $PROJECT
            hook_event_name: SessionStart
            source: startup
        """
    (folder / "steps.yaml").write_text(textwrap.dedent(steps), encoding="utf-8")


def test_replay_finds_fixtures_at_any_depth_in_a_stable_order(tmp_path: Path) -> None:
    make_fixture(tmp_path / "fixtures" / "replay" / "b-second", "second")
    make_fixture(tmp_path / "fixtures" / "replay" / "group" / "a-first", "first")
    (tmp_path / "fixtures" / "rules" / "P001" / "bad").mkdir(parents=True)  # no fixture here: not an error
    updated = ctxres("replay", "--update", "fixtures", cwd=tmp_path)
    assert updated.returncode == 0, updated.stderr
    result = ctxres("replay", "fixtures", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "fixtures/replay/b-second: ok",
        "fixtures/replay/group/a-first: ok",
    ]


def test_replay_of_a_folder_without_any_fixture_is_an_error_saying_so(tmp_path: Path) -> None:
    (tmp_path / "empty" / "deeper").mkdir(parents=True)
    result = ctxres("replay", "empty", cwd=tmp_path)
    assert result.returncode == 2
    assert "empty: no fixture here nor in any sub-folder" in result.stderr
    missing = ctxres("replay", "nowhere", cwd=tmp_path)
    assert missing.returncode == 2 and "nowhere: no such fixture directory" in missing.stderr
