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
    box.write("archive/cx-001-checkpoint.json", "{not json\n")
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
