"""`ctxres stale` in real git repositories: the pre-commit hook `ctxres-stale` and `--since REF` for CI."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ..conftest import CORPUS
from ..git_sandbox import GitRepo
from .demo_workflow import ADVANCED, ORCH, UPDATED, demo_repository, line_of


@pytest.fixture
def repo(tmp_path: Path) -> GitRepo:
    return demo_repository(tmp_path)


def test_the_edits_used_below_are_the_ones_intended() -> None:
    assert ADVANCED.count('status: "COMPLETE"') == 2
    assert "PHASE_2_IN_PROGRESS" in ADVANCED
    assert UPDATED.count("2026-02-20T10:15:00Z") == 1
    assert 'current_phase_name: "Ship"' in UPDATED


def test_advancing_a_phase_without_the_section_blocks_the_commit_with_a_readable_message(repo: GitRepo) -> None:
    repo.stage("ORCHESTRATION.yaml", ADVANCED)
    result = repo.run("stale", "ORCHESTRATION.yaml")
    assert result.returncode == 1, result.stdout + result.stderr
    assert result.stderr == ""
    lines = result.stdout.splitlines()
    done, started = 'status: "COMPLETE"', 'status: "IN_PROGRESS"'
    assert lines[:7] == [
        "ORCHESTRATION.yaml: blocked: the workflow state moved but the resumption section did not",
        "  5 state-bearing values moved (HEAD -> staged):",
        f"    ORCHESTRATION.yaml:{line_of(ADVANCED, 'PHASE_2')}: pipeline main status: PHASE_1_IN_PROGRESS -> "
        "PHASE_2_IN_PROGRESS",
        f"    ORCHESTRATION.yaml:{line_of(ADVANCED, 'current_phase: 2')}: pipeline main current_phase: 1 -> 2",
        f'    ORCHESTRATION.yaml:{line_of(ADVANCED, done)}: phase 1 "Build" status: IN_PROGRESS -> COMPLETE',
        f"    ORCHESTRATION.yaml:{line_of(ADVANCED, done, 2)}: agent builder status: IN_PROGRESS -> COMPLETE",
        f'    ORCHESTRATION.yaml:{line_of(ADVANCED, started)}: phase 2 "Ship" status: BLOCKED -> IN_PROGRESS',
    ]
    assert lines[7] == (
        f"  stale: ORCHESTRATION.yaml:{line_of(ADVANCED, 'updated_at')}: `resumption.recovery_state.updated_at` "
        "did not advance (still 2026-02-20T09:00:00Z): the section describes the state before this change"
    )
    assert re.fullmatch(
        r"  fix: update the resumption section: set `resumption\.recovery_state\.updated_at` to the time of this "
        r"update \(for example \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\) and bring up to date "
        r"`recovery_state\.current_phase`, `recovery_state\.current_phase_name`, `agent_summaries` \(one line per "
        r"finished agent\), `recovery_state\.current_activity` and `recovery_state\.next_step`, then stage the "
        r"file again \(`git add ORCHESTRATION\.yaml`\)",
        lines[8],
    ), lines[8]
    assert lines[9:] == ["ctxres stale: 1 of 1 staged orchestration file leaves the resumption section stale."]


def test_updating_the_section_lets_the_commit_pass(repo: GitRepo) -> None:
    repo.stage("ORCHESTRATION.yaml", UPDATED)
    result = repo.run("stale", "ORCHESTRATION.yaml")
    assert result.returncode == 0, result.stdout
    assert result.stdout == "ctxres stale: resumption sections are up to date (1 staged orchestration file checked).\n"


@pytest.mark.parametrize(
    "edit",
    [
        lambda t: t.replace("# Orchestration state", "# The orchestration state"),
        lambda t: t.replace('status: "ACTIVE"  # ACTIVE | PAUSED | COMPLETE', "status: ACTIVE"),
        lambda t: t.replace("Build and ship the demo.", "Build the demo, then ship it."),
        lambda t: t.replace('      trigger: "MANUAL"\n', '      trigger: "MANUAL"\n      description: "kick-off"\n'),
        lambda t: t + "\n# trailing note\n",
    ],
    ids=["comment", "quoting and comment", "description", "prose field added", "trailing comment"],
)
def test_cosmetic_edits_pass(repo: GitRepo, edit: object) -> None:
    assert callable(edit)
    edited = edit(ORCH)
    assert edited != ORCH
    repo.stage("ORCHESTRATION.yaml", edited)
    result = repo.run("stale", "ORCHESTRATION.yaml")
    assert result.returncode == 0, result.stdout


def test_a_new_file_is_not_blocked(repo: GitRepo) -> None:
    repo.stage("other/ORCHESTRATION.yaml", ADVANCED)
    assert repo.run("stale", "other/ORCHESTRATION.yaml").returncode == 0
    assert repo.run("stale").returncode == 0


def test_without_files_every_staged_orchestration_file_is_checked(repo: GitRepo) -> None:
    repo.stage("notes.yaml", "status: draft\n")
    repo.commit("notes")
    repo.stage("notes.yaml", "status: final\n")  # YAML without a resumption section: not ours
    repo.stage("README.md", "hello\n")
    assert repo.run("stale").returncode == 0
    repo.stage("ORCHESTRATION.yaml", ADVANCED)
    result = repo.run("stale")
    assert result.returncode == 1
    assert result.stdout.startswith("ORCHESTRATION.yaml: blocked:")
    assert "notes.yaml" not in result.stdout


def test_a_file_with_another_name_is_found_by_its_resumption_section(repo: GitRepo) -> None:
    repo.stage("state/workflow.yml", ORCH)
    repo.commit("second file")
    repo.stage("state/workflow.yml", ADVANCED)
    result = repo.run("stale")
    assert result.returncode == 1
    assert result.stdout.startswith("state/workflow.yml: blocked:")


def test_paths_are_relative_to_the_current_folder(repo: GitRepo) -> None:
    repo.stage("projects/demo/ORCHESTRATION.yaml", ORCH)
    repo.commit("nested")
    repo.stage("projects/demo/ORCHESTRATION.yaml", ADVANCED)
    result = repo.run("stale", "ORCHESTRATION.yaml", cwd=repo.root / "projects" / "demo")
    assert result.returncode == 1
    assert result.stdout.startswith("ORCHESTRATION.yaml: blocked:")
    assert "(`git add ORCHESTRATION.yaml`)" in result.stdout
    from_root = repo.run("stale")
    assert from_root.stdout.startswith("projects/demo/ORCHESTRATION.yaml: blocked:")


def test_a_renamed_file_is_compared_with_its_old_name(repo: GitRepo) -> None:
    repo.git("mv", "ORCHESTRATION.yaml", "ORCHESTRATION-demo.yaml")
    repo.stage("ORCHESTRATION-demo.yaml", ADVANCED)
    result = repo.run("stale", "ORCHESTRATION-demo.yaml")
    assert result.returncode == 1
    assert result.stdout.startswith("ORCHESTRATION-demo.yaml: blocked:")
    assert repo.run("stale").returncode == 1


def test_a_v1_section_must_change_when_the_state_moves(tmp_path: Path) -> None:
    first = (CORPUS / "history" / "PROJ-001-oss-release" / "20260217T190149Z-1fea04c2.yaml").read_text("utf-8")
    repo = GitRepo(tmp_path / "v1")
    repo.stage("ORCHESTRATION.yaml", first)
    repo.commit("initial")
    started = first.replace(
        '        path_id: "phase-1-audit"\n        status: "PENDING"',
        '        path_id: "phase-1-audit"\n        status: "IN_PROGRESS"',
    )
    assert started != first
    repo.stage("ORCHESTRATION.yaml", started)
    result = repo.run("stale", "ORCHESTRATION.yaml")
    assert result.returncode == 1
    assert (
        f'    ORCHESTRATION.yaml:{line_of(started, "IN_PROGRESS")}: phase 1 "Dependency License Compatibility Audit" '
        "status: PENDING -> IN_PROGRESS"
    ) in result.stdout.splitlines()
    assert (
        "the resumption section (v1.0) is unchanged: `current_state`, `next_step` and `last_checkpoint` still "
        "describe the state before this change"
    ) in result.stdout
    assert "rewrite `resumption.current_state` and `resumption.next_step` to describe the new state" in result.stdout
    rewritten = started.replace(
        'current_state: "Workflow initialized. Phase 1 READY to execute. All other phases BLOCKED."',
        'current_state: "Phase 1 IN_PROGRESS: audit-executor running."',
    )
    assert rewritten != started
    repo.stage("ORCHESTRATION.yaml", rewritten)
    assert repo.run("stale", "ORCHESTRATION.yaml").returncode == 0


def test_a_staged_file_that_does_not_parse_is_left_to_ctxres_check(repo: GitRepo) -> None:
    repo.stage("ORCHESTRATION.yaml", ADVANCED + "resumption: [unclosed\n")
    result = repo.run("stale", "ORCHESTRATION.yaml")
    assert result.returncode == 0
    assert result.stderr == (
        "ctxres stale: ORCHESTRATION.yaml: not compared: this version is not valid YAML (`ctxres check` says why)\n"
    )


def test_a_staged_file_that_does_not_parse_is_never_up_to_date(repo: GitRepo) -> None:
    repo.stage("ORCHESTRATION.yaml", ADVANCED + "resumption: [unclosed\n")
    result = repo.run("stale")
    assert "up to date" not in result.stdout.replace("not known to be up to date", "")
    assert result.stdout == (
        "ctxres stale: 1 staged orchestration file not compared (see above), so not known to be up to date.\n"
    )


def test_a_named_file_that_does_not_exist_is_a_usage_error(repo: GitRepo) -> None:
    result = repo.run("stale", "ORCHESTRATION.yaml", "missing/ORCHESTRATION.yaml")
    assert result.returncode == 2
    assert result.stderr == "ctxres stale: error: no such file: missing/ORCHESTRATION.yaml\n"
    assert result.stdout == ""


def test_a_named_file_with_nothing_staged_says_so(repo: GitRepo) -> None:
    result = repo.run("stale", "ORCHESTRATION.yaml")
    assert result.returncode == 0
    assert result.stdout == (
        "ctxres stale: ORCHESTRATION.yaml: nothing staged, nothing to compare (`git add ORCHESTRATION.yaml` "
        "stages it)\nctxres stale: no staged orchestration file to compare.\n"
    )
    assert "checked" not in result.stdout


def test_many_named_files_with_nothing_staged_say_so_in_one_line(repo: GitRepo) -> None:
    for number in range(5):
        repo.write(f"notes-{number}.yaml", f"note: {number}\n")
    names = [f"notes-{number}.yaml" for number in range(5)]
    result = repo.run("stale", "ORCHESTRATION.yaml", *names)
    assert result.returncode == 0
    assert result.stdout == (
        "ctxres stale: 6 named files have nothing staged (ORCHESTRATION.yaml, ...), nothing to compare "
        "(`git add FILE` stages one)\nctxres stale: no staged orchestration file to compare.\n"
    )


def test_a_repository_without_commits_has_nothing_to_compare(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "empty")
    repo.stage("ORCHESTRATION.yaml", ADVANCED)
    assert repo.run("stale").returncode == 0


def test_outside_a_git_repository_is_a_usage_error(tmp_path: Path) -> None:
    folder = tmp_path / "plain"
    folder.mkdir()
    (folder / "ORCHESTRATION.yaml").write_text(ORCH)
    env = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
    env["GIT_CEILING_DIRECTORIES"] = str(tmp_path)
    result = subprocess.run(
        [sys.executable, "-m", "ctxres.linters.cli", "stale", "ORCHESTRATION.yaml"],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1
    assert result.stderr.startswith("ctxres stale: error: ")
    assert "is not inside a git repository" in result.stderr


def test_json_output_lists_the_moves_with_their_lines(repo: GitRepo) -> None:
    repo.stage("ORCHESTRATION.yaml", ADVANCED)
    result = repo.run("stale", "--output-format", "json")
    assert result.returncode == 1
    payload = json.loads(result.stdout)
    assert payload["checked"] == 1
    assert payload["not_compared"] == []
    [blocked] = payload["blocked"]
    assert blocked["path"] == "ORCHESTRATION.yaml"
    assert blocked["resumption_version"] == "2.0"
    assert blocked["stale_line"] == line_of(ADVANCED, "updated_at")
    assert blocked["moved"][0] == {
        "path": "$.pipelines.main.status",
        "unit": "pipeline main",
        "kind": "pipeline",
        "field": "status",
        "before": "PHASE_1_IN_PROGRESS",
        "after": "PHASE_2_IN_PROGRESS",
        "change": "changed",  # "added"/"removed" when the key itself appeared or disappeared
        "line": line_of(ADVANCED, "PHASE_2"),
    }
    assert [move["field"] for move in blocked["moved"]] == ["status", "current_phase", "status", "status", "status"]


# --- CI: every commit of a range ---------------------------------------------------------------------


def test_since_checks_each_commit_against_its_parent(repo: GitRepo) -> None:
    base = repo.git("rev-parse", "HEAD").strip()
    repo.stage("ORCHESTRATION.yaml", ADVANCED)
    stale = repo.commit("phase 2 started (section forgotten)", date="2026-02-20T10:00:00+00:00")
    repo.stage("ORCHESTRATION.yaml", UPDATED)
    repo.commit("resumption section caught up")
    repo.stage("ORCHESTRATION.yaml", UPDATED.replace("Build and ship", "Build, test and ship"))
    repo.commit("prose")
    result = repo.run("stale", "--since", base)
    assert result.returncode == 1, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == (
        f"{stale} 2026-02-20T10:00:00+00:00 ORCHESTRATION.yaml: blocked: the workflow state moved but the "
        "resumption section did not"
    )
    assert lines[1] == f"  5 state-bearing values moved ({stale}^ -> {stale}):"
    assert "(for example 2026-02-20T10:00:00+00:00)" in result.stdout
    assert f"`git rebase -i {stale}^`" in result.stdout
    assert lines[-1] == "ctxres stale: 1 of 3 changes to orchestration files leaves the resumption section stale."
    elsewhere = repo.run("stale", "--since", base, "other/ORCHESTRATION.yaml")
    assert elsewhere.returncode == 0
    assert elsewhere.stdout == (
        "ctxres stale: resumption sections are up to date (0 changes to orchestration files checked).\n"
    )
    later = repo.git("rev-parse", "HEAD~1").strip()
    clean = repo.run("stale", "--since", later)
    assert clean.returncode == 0
    assert clean.stdout == (
        "ctxres stale: resumption sections are up to date (1 change to an orchestration file checked).\n"
    )


def test_since_an_unknown_ref_is_a_usage_error(repo: GitRepo) -> None:
    result = repo.run("stale", "--since", "no-such-branch")
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr == ("ctxres stale: error: unknown revision 'no-such-branch': no such commit, branch or tag\n")
    assert repo.run("stale", "--since", "--all").returncode == 2


# --- through real pre-commit ---------------------------------------------------------------------------


def _pre_commit() -> str:
    found = Path(sys.executable).parent / "pre-commit"
    executable = str(found) if found.exists() else shutil.which("pre-commit")
    if executable is None:
        pytest.fail("pre-commit is not installed: `pip install pre-commit` (it belongs in the test extras)")
    return executable


def _ctxres_executable() -> str:
    found = Path(sys.executable).parent / "ctxres"
    return str(found) if found.exists() else "ctxres"


def test_the_hook_runs_under_pre_commit(repo: GitRepo) -> None:
    config = f"""\
repos:
  - repo: local
    hooks:
      - id: ctxres-stale
        name: ctxres stale (resumption section updated with the workflow state)
        entry: {_ctxres_executable()} stale
        language: system
        files: (^|/)[^/]*ORCHESTRATION[^/]*\\.ya?ml$
        pass_filenames: true
"""
    repo.stage(".pre-commit-config.yaml", config)
    repo.commit("pre-commit configuration")

    def pre_commit() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [_pre_commit(), "run", "ctxres-stale", "--color", "never"],
            cwd=repo.root,
            env=repo.env,
            capture_output=True,
            text=True,
            timeout=300,
        )

    repo.stage("ORCHESTRATION.yaml", ADVANCED)
    blocked = pre_commit()
    assert blocked.returncode == 1, blocked.stdout + blocked.stderr
    assert "Failed" in blocked.stdout
    assert "ORCHESTRATION.yaml: blocked: the workflow state moved but the resumption section did not" in blocked.stdout
    assert "`resumption.recovery_state.updated_at` did not advance" in blocked.stdout

    repo.stage("ORCHESTRATION.yaml", UPDATED)
    passed = pre_commit()
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert re.search(r"ctxres stale \(resumption section updated with the workflow state\)\.+Passed", passed.stdout)

    repo.commit("phase 2 started")
    repo.stage("ORCHESTRATION.yaml", UPDATED.replace("# Orchestration state", "# Orchestration state (demo)"))
    comment = pre_commit()
    assert comment.returncode == 0, comment.stdout + comment.stderr
    assert "Passed" in comment.stdout


# The same range check through `ctxres check --since REF` (rule S013): tests/rules/test_stale_commits.py.
