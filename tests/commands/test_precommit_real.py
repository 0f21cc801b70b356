"""The shipped pre-commit hooks (`.pre-commit-hooks.yaml`, as written) under the real pre-commit, in real
git repositories: the configured excludes hold for the files pre-commit names (`--force-exclude`), and a
commit of a checkpoint alone is checked with its workflow, as `ctxres check .` checks it."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
import yaml

from ..conftest import FIXTURES, ROOT
from ..git_sandbox import Sandbox

CHECKPOINT = ".jerry/checkpoints/cx-002-checkpoint.json"


def test_the_hooks_that_are_given_files_force_the_excludes() -> None:
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text("utf-8"))
    given = [hook for hook in hooks if hook.get("pass_filenames", True)]
    assert {hook["id"] for hook in given} == {"ctxres-check", "ctxres-stale"}
    for hook in given:
        assert "--force-exclude" in hook["entry"].split(), hook["id"]


@pytest.fixture
def box(tmp_path: Path) -> Sandbox:
    box = Sandbox(tmp_path / "repo")
    box.use_shipped_hooks("ctxres-check", "ctxres-stale")
    return box


def test_extend_exclude_holds_under_pre_commit(box: Sandbox) -> None:
    box.write(".ctxres.toml", 'extend-exclude = ["archive/"]\n')
    box.write("archive/cx-001-checkpoint.json", '{not json, "checkpoint_id": "cx-001"}\n')  # broken, of our keys
    box.write("archive/old-ORCHESTRATION.yaml", (FIXTURES / "rules/A010/bad/ORCHESTRATION.yaml").read_text("utf-8"))
    box.git("add", ".")
    result = box.pre_commit("run", "--color", "never", "--files", *box.git("diff", "--cached", "--name-only").split())
    assert result.returncode == 0, result.stdout + result.stderr
    assert re.search(r"ctxres check\.+Passed", result.stdout), result.stdout
    # Named without the flag, the broken file is checked (the hook would have failed before).
    assert box.ctxres("check", "archive/cx-001-checkpoint.json").returncode == 1


def test_stale_skips_an_excluded_workflow_under_pre_commit(box: Sandbox) -> None:
    workflow = (FIXTURES / "rules/A010/bad/ORCHESTRATION.yaml").read_text("utf-8")
    box.write(".ctxres.toml", 'extend-exclude = ["archive/"]\n')
    box.write("archive/ORCHESTRATION.yaml", workflow)
    box.git("add", ".")
    box.git("commit", "-q", "--no-verify", "-m", "archived workflow")
    # The workflow state moves (ACTIVE -> PAUSED) and the resumption section does not.
    box.write("archive/ORCHESTRATION.yaml", workflow.replace('  status: "ACTIVE"', '  status: "PAUSED"', 1))
    box.git("add", ".")
    result = box.pre_commit("run", "ctxres-stale", "--color", "never", "--files", "archive/ORCHESTRATION.yaml")
    assert result.returncode == 0, result.stdout + result.stderr
    unforced = box.ctxres("stale", "archive/ORCHESTRATION.yaml")
    assert unforced.returncode == 1, unforced.stdout


def test_a_commit_of_a_checkpoint_alone_is_checked_with_its_workflow(box: Sandbox) -> None:
    shutil.copytree(FIXTURES / "rules/A010/bad", box.root, dirs_exist_ok=True)
    pending = box.root / CHECKPOINT
    text = pending.read_text("utf-8")
    pending.unlink()
    box.git("add", ".")
    assert box.ctxres("check", ".").returncode == 0
    installed = box.pre_commit("install")
    assert installed.returncode == 0, installed.stderr
    first = box.commit("workflow and its first checkpoint")
    assert first.returncode == 0, first.stdout + first.stderr

    # The PreCompact hook writes cx-002; only it is staged and committed, the workflow is not touched.
    box.write(CHECKPOINT, text)
    box.git("add", CHECKPOINT)
    blocked = box.commit("checkpoint")
    assert blocked.returncode == 1, blocked.stdout + blocked.stderr
    finding = "ORCHESTRATION.yaml:33:5: A010 checkpoint .jerry/checkpoints/cx-002-checkpoint.json is not merged"
    assert finding in blocked.stdout + blocked.stderr
    # ... which is what `ctxres check .` says right after.
    whole = box.ctxres("check", ".")
    assert whole.returncode == 1
    assert whole.stdout.strip() in blocked.stdout + blocked.stderr
    assert box.git("log", "--format=%s") == "workflow and its first checkpoint\npre-commit configuration\n"


def test_a_workflow_committed_whole_reports_each_finding_once(box: Sandbox) -> None:
    """pre-commit splits the files of a hook that is not `require_serial` into one batch per core; each batch
    checked a workflow's unit again, so a cross-file finding came once per batch (and each batch started its
    own pool of workers). The shipped hooks run one process for all the files."""
    shutil.copytree(FIXTURES / "rules/A010/bad", box.root, dirs_exist_ok=True)
    for number in range(3, 40):  # enough files for one batch per core: YAML files that are not artifacts
        box.write(f"notes/n{number:03d}.yaml", f"title: note {number}\n")
    box.git("add", ".")
    files = box.git("diff", "--cached", "--name-only").split()
    result = box.pre_commit("run", "ctxres-check", "--color", "never", "--files", *files)
    assert result.returncode == 1, result.stdout + result.stderr
    finding = "ORCHESTRATION.yaml:33:5: A010 checkpoint .jerry/checkpoints/cx-002-checkpoint.json is not merged"
    assert (result.stdout + result.stderr).count(finding) == 1, result.stdout


def _hook_output(shown: str, name: str) -> list[str]:
    """The lines pre-commit shows under the hook ``name`` in a --verbose run (after its status, id and
    duration lines, up to the next hook's status line), blank lines left out."""
    status = re.compile(r"^\S.*\.{3,}.*(Passed|Failed|Skipped)$")
    lines = shown.splitlines()
    at = next(index for index, line in enumerate(lines) if line.startswith(f"{name}.") and status.match(line))
    said = []
    for line in lines[at + 1 :]:
        if status.match(line):
            break
        if line.strip() and not line.startswith("- "):
            said.append(line)
    return said


@pytest.fixture
def many_files(box: Sandbox) -> Sandbox:
    """A repository of many YAML files that are no resumption artifact, and one workflow, all committed."""
    for number in range(40):
        box.write(f"config/part-{number:02}.yaml", f"name: part-{number}\n")
    box.write("mkdocs.yml", "site_name: docs\n")
    box.write("ORCHESTRATION.yaml", (FIXTURES / "rules/A010/bad/ORCHESTRATION.yaml").read_text("utf-8"))
    box.git("add", ".")
    box.git("commit", "-q", "--no-verify", "-m", "files")
    return box


def test_all_files_with_nothing_staged_prints_nothing(many_files: Sandbox) -> None:
    result = many_files.pre_commit("run", "ctxres-stale", "--all-files", "--verbose", "--color", "never")
    assert result.returncode == 0, result.stdout + result.stderr
    assert re.search(r"ctxres stale\.+Passed", result.stdout), result.stdout
    assert "nothing staged" not in result.stdout
    assert _hook_output(result.stdout, "ctxres stale") == [], result.stdout


def test_a_commit_of_other_files_prints_nothing(many_files: Sandbox) -> None:
    many_files.write("mkdocs.yml", "site_name: the docs\n")
    many_files.git("add", "mkdocs.yml")
    result = many_files.pre_commit("run", "--verbose", "--color", "never")
    assert result.returncode == 0, result.stdout + result.stderr
    assert re.search(r"ctxres check\.+Passed", result.stdout), result.stdout
    assert "no resumption artifacts found" not in result.stdout + result.stderr
    assert _hook_output(result.stdout, "ctxres check") == [], result.stdout
    assert _hook_output(result.stdout, "ctxres stale") == [], result.stdout


def test_a_commit_that_leaves_the_section_stale_still_says_so(many_files: Sandbox) -> None:
    workflow = many_files.root / "ORCHESTRATION.yaml"
    text = workflow.read_text("utf-8")
    many_files.write("ORCHESTRATION.yaml", text.replace('  status: "ACTIVE"', '  status: "PAUSED"', 1))
    many_files.git("add", "ORCHESTRATION.yaml")
    result = many_files.pre_commit("run", "ctxres-stale", "--verbose", "--color", "never")
    assert result.returncode == 1, result.stdout
    shown = _hook_output(result.stdout, "ctxres stale")
    assert "ORCHESTRATION.yaml: blocked: the workflow state moved but the resumption section did not" in shown
    assert shown[-1] == "ctxres stale: 1 of 1 staged orchestration file leaves the resumption section stale."


def test_the_settings_that_wire_the_hooks_are_checked_under_pre_commit(box: Sandbox) -> None:
    """pre-commit gives ctxres-check the Claude Code settings (its files: pattern comes from the catalog): a
    statusLine without command (the client would drop the whole file, hooks and all) blocks the commit; a
    settings.json elsewhere is another tool's."""
    box.write(".vscode/settings.json", '{"statusLine": {"type": "command"}}\n')
    box.write(".claude/settings.json", (FIXTURES / "rules/H006/bad/.claude/settings.json").read_text("utf-8"))
    box.git("add", ".")
    result = box.pre_commit("run", "ctxres-check", "--color", "never", "--files", *box.git("ls-files").split())
    assert result.returncode == 1, result.stdout + result.stderr
    assert re.search(r"\.claude/settings\.json:\d+:\d+: H006", result.stdout), result.stdout
    assert ".vscode" not in result.stdout
