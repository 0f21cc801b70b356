"""`stale`, `audit-history`, `append-only`, `runs` and `doctor` print through the reporters `check` uses.

Each command is run through the real CLI in a throw-away repository: ``--output-format github`` prints
one workflow command per finding (``::error file=...,line=...::``), ``sarif`` is valid SARIF 2.1.0
with the rule ids and locations of the findings, and a clean run prints no annotation and no result.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from ..git_sandbox import GitRepo
from .demo_workflow import ADVANCED, ORCH, UPDATED, line_of

SCHEMA_PATH = Path(__file__).parent.parent / "data" / "sarif-schema-2.1.0.json"
ANNOTATION = re.compile(
    r"^::(?P<level>error|warning) file=(?P<file>[^,]*),line=(?P<line>\d+),col=\d+,title=(?P<code>\w+)::"
)

ORCH_PATH = "orchestration/ORCHESTRATION.yaml"
UPDATED_AT_LINE = line_of(ORCH, "updated_at:")

LOG = ".agent-memory/runs/r1/events/executor/20260115-1030.jsonl"
EVENTS = [
    '{"event_type": "task_started", "task_id": "T001", "timestamp": "2026-01-15T10:30:00Z", "actor": "executor"}',
    '{"event_type": "task_implemented", "task_id": "T001", "timestamp": "2026-01-15T10:50:00Z", "actor": "executor"}',
]
NEW_EVENT = (
    '{"event_type": "task_started", "task_id": "T002", "timestamp": "2026-01-15T11:10:00Z", "actor": "executor"}'
)


class Repo(GitRepo):
    """A throw-away repository whose commands see none of this process's CTXRES_ variables either."""

    KEPT_OUT = (*GitRepo.KEPT_OUT, "CTXRES_")


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return Repo(tmp_path / "repo")


@pytest.fixture(scope="module")
def validator() -> Any:
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


def annotations(result: subprocess.CompletedProcess[str]) -> list[tuple[str, str, int, str]]:
    """(level, file, line, code) of each workflow command; every other line is the summary."""
    found = []
    lines = result.stdout.splitlines()
    for line in lines:
        match = ANNOTATION.match(line)
        if match:
            found.append((match["level"], match["file"], int(match["line"]), match["code"]))
    assert len(lines) == len(found) + 1 and not lines[-1].startswith("::"), result.stdout
    return found


def sarif_results(result: subprocess.CompletedProcess[str], validator: Any) -> list[tuple[str, str, str, int]]:
    """(ruleId, level, uri, startLine) of each result, after validating the log and its rule table."""
    data = json.loads(result.stdout)
    validator.validate(data)
    assert data["version"] == "2.1.0"
    [run] = data["runs"]
    rules = [rule["id"] for rule in run["tool"]["driver"]["rules"]]
    out = []
    for item in run["results"]:
        assert rules[item["ruleIndex"]] == item["ruleId"]
        [location] = item["locations"]
        physical = location["physicalLocation"]
        out.append(
            (item["ruleId"], item["level"], physical["artifactLocation"]["uri"], physical["region"]["startLine"])
        )
    return out


def assert_clean(repo: Repo, validator: Any, *args: str, **env: str) -> None:
    github = repo.run(*args, "--output-format", "github", **env)
    assert github.returncode == 0, github.stdout + github.stderr
    assert annotations(github) == []
    sarif = repo.run(*args, "--output-format", "sarif", **env)
    assert sarif.returncode == 0 and sarif_results(sarif, validator) == []


# --- stale -------------------------------------------------------------------------------------


def test_stale_staged_change_is_an_s013_annotation_and_sarif_result(repo: Repo, validator: Any) -> None:
    repo.stage(ORCH_PATH, ORCH)
    repo.commit("first")
    repo.stage(ORCH_PATH, ADVANCED)
    github = repo.run("stale", "--output-format", "github")
    assert github.returncode == 1
    assert annotations(github) == [("error", ORCH_PATH, UPDATED_AT_LINE, "S013")]
    assert "the staged version moved" in github.stdout and f"git add {ORCH_PATH}" in github.stdout
    sarif = repo.run("stale", "--output-format", "sarif")
    assert sarif.returncode == 1
    assert sarif_results(sarif, validator) == [("S013", "error", ORCH_PATH, UPDATED_AT_LINE)]
    text = repo.run("stale")  # the text output is the hook's, unchanged
    assert text.returncode == 1 and f"{ORCH_PATH}: blocked:" in text.stdout and "::" not in text.stdout


def test_stale_clean_staged_change_prints_no_finding(repo: Repo, validator: Any) -> None:
    repo.stage(ORCH_PATH, ORCH)
    repo.commit("first")
    repo.stage(ORCH_PATH, UPDATED)
    assert_clean(repo, validator, "stale")


def test_stale_since_reports_each_commit(repo: Repo, validator: Any) -> None:
    repo.stage(ORCH_PATH, ORCH)
    base = repo.commit("first")
    repo.stage(ORCH_PATH, ADVANCED)
    short = repo.commit("moved")
    github = repo.run("stale", "--since", base, "--output-format", "github")
    assert github.returncode == 1
    assert annotations(github) == [("error", ORCH_PATH, UPDATED_AT_LINE, "S013")]
    assert f"commit {short} (" in github.stdout
    sarif = repo.run("stale", "--since", base, "--output-format", "sarif")
    assert sarif_results(sarif, validator) == [("S013", "error", ORCH_PATH, UPDATED_AT_LINE)]
    assert_clean(repo, validator, "stale", "--since", "HEAD")


# --- audit-history ----------------------------------------------------------------------------


def test_audit_history_reports_each_stale_commit(repo: Repo, validator: Any) -> None:
    repo.stage(ORCH_PATH, ORCH)
    repo.commit("first")
    repo.stage(ORCH_PATH, ADVANCED)
    short = repo.commit("moved")
    github = repo.run("audit-history", ORCH_PATH, "--output-format", "github")
    assert github.returncode == 1
    assert annotations(github) == [("error", ORCH_PATH, UPDATED_AT_LINE, "S013")]
    assert f"commit {short} (" in github.stdout
    sarif = repo.run("audit-history", ORCH_PATH, "--output-format", "sarif")
    assert sarif.returncode == 1
    assert sarif_results(sarif, validator) == [("S013", "error", ORCH_PATH, UPDATED_AT_LINE)]


def test_audit_history_clean(repo: Repo, validator: Any) -> None:
    repo.stage(ORCH_PATH, ORCH)
    repo.commit("first")
    repo.stage(ORCH_PATH, UPDATED)
    repo.commit("moved and updated")
    assert_clean(repo, validator, "audit-history", ORCH_PATH)


# --- append-only -------------------------------------------------------------------------------


def test_append_only_rewritten_line_is_m012(repo: Repo, validator: Any) -> None:
    repo.stage(LOG, "".join(f"{line}\n" for line in EVENTS))
    repo.commit("events")
    repo.stage(LOG, f"{EVENTS[0]}\n{EVENTS[1].replace('10:50', '10:55')}\n{NEW_EVENT}\n")
    github = repo.run("append-only", "--output-format", "github")
    assert github.returncode == 1
    assert annotations(github) == [("error", LOG, 2, "M012")]
    assert "committed line changed" in github.stdout
    sarif = repo.run("append-only", LOG, "--output-format", "sarif")
    assert sarif.returncode == 1
    assert sarif_results(sarif, validator) == [("M012", "error", LOG, 2)]


def test_append_only_deleted_log_is_m012_at_line_1(repo: Repo, validator: Any) -> None:
    repo.stage(LOG, "".join(f"{line}\n" for line in EVENTS))
    repo.commit("events")
    repo.git("rm", "-q", LOG)
    github = repo.run("append-only", "--output-format", "github")
    assert github.returncode == 1
    assert annotations(github) == [("error", LOG, 1, "M012")]
    assert sarif_results(repo.run("append-only", "--output-format", "sarif"), validator) == [("M012", "error", LOG, 1)]


def test_append_only_appended_line_is_clean(repo: Repo, validator: Any) -> None:
    repo.stage(LOG, "".join(f"{line}\n" for line in EVENTS))
    repo.commit("events")
    repo.stage(LOG, "".join(f"{line}\n" for line in [*EVENTS, NEW_EVENT]))
    assert_clean(repo, validator, "append-only")


# --- runs ---------------------------------------------------------------------------------------


def _run_folder(repo: Repo, events: list[str]) -> None:
    folder = repo.root / ".agent-memory/runs/r1"
    (folder / "events/executor").mkdir(parents=True)
    for name in ("constitution.md", "prd.md", "plan.md"):
        (folder / name).write_text("# x\n")
    graph = {"tasks": [{"id": "T001", "title": "Build", "dependencies": []}]}
    (folder / "task-graph.json").write_text(json.dumps(graph))
    (folder / "events/executor/20260115-1030.jsonl").write_text("".join(f"{line}\n" for line in events))


def test_runs_warnings_are_findings(repo: Repo, validator: Any) -> None:
    odd = '{"event_type": "task-done", "task_id": "T001", "timestamp": "2026-01-15T11:00:00Z", "actor": "executor"}'
    _run_folder(repo, [EVENTS[0], "{not json", odd])
    now = {"CTXRES_NOW": "2026-03-01T00:00:00Z"}
    github = repo.run("runs", "--output-format", "github", **now)
    assert github.returncode == 0, github.stderr
    found = annotations(github)
    assert found == [
        ("warning", LOG, 2, "P001"),
        ("warning", LOG, 3, "M011"),
        ("warning", LOG, 3, "M013"),  # the newest event: the run is idle
    ]
    assert "the run has been idle for" in github.stdout
    sarif = repo.run("runs", "r1", "--output-format", "sarif", **now)
    assert sarif.returncode == 0
    assert sarif_results(sarif, validator) == [
        ("P001", "warning", LOG, 2),
        ("M011", "warning", LOG, 3),
        ("M013", "warning", LOG, 3),
    ]
    text = repo.run("runs", **now)  # the resume report is unchanged
    assert "RESUMING RUN: r1" in text.stdout and "Warnings:" in text.stdout


def test_runs_without_warnings_or_runs_is_clean(repo: Repo, validator: Any) -> None:
    now = {"CTXRES_NOW": "2026-01-15T12:00:00Z"}
    assert_clean(repo, validator, "runs", **now)  # fresh start
    _run_folder(repo, EVENTS)
    assert_clean(repo, validator, "runs", **now)


# --- doctor -------------------------------------------------------------------------------------


def test_doctor_missing_layers_are_l001(repo: Repo, validator: Any) -> None:
    github = repo.run("doctor", "--output-format", "github")
    assert github.returncode == 1
    found = annotations(github)
    assert {code for _level, _file, _line, code in found} == {"L001"}
    assert ("error", ".pre-commit-config.yaml", 1, "L001") in found
    assert len(found) == 7  # every layer of an empty repository
    assert "(help: ctxres init --only pre-commit)" in github.stdout
    sarif = sarif_results(repo.run("doctor", "--output-format", "sarif"), validator)
    assert sorted(sarif) == sorted(("L001", "error", file, line) for _level, file, line, _code in found)


def test_doctor_misconfigured_layer_is_l002(repo: Repo, validator: Any) -> None:
    assert repo.run("init").returncode == 0
    (repo.root / ".pre-commit-config.yaml").write_text("repos: [\n")
    github = repo.run("doctor", "--output-format", "github")
    assert github.returncode == 1
    assert annotations(github) == [("error", ".pre-commit-config.yaml", 1, "L002")]
    sarif = repo.run("doctor", "--output-format", "sarif")
    assert sarif_results(sarif, validator) == [("L002", "error", ".pre-commit-config.yaml", 1)]


def test_doctor_with_every_layer_is_clean(repo: Repo, validator: Any) -> None:
    assert repo.run("init").returncode == 0
    assert_clean(repo, validator, "doctor")


# --- the registry ------------------------------------------------------------------------------


def test_the_new_codes_are_documented(repo: Repo) -> None:
    listing = repo.run("rules").stdout
    for code in ("L001", "L002", "M012", "M013"):
        assert re.search(rf"^{code}\s", listing, re.M), code
        assert (Path(__file__).parent.parent.parent / "docs" / "rules" / f"{code}.md").is_file(), code
