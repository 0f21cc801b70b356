"""The shipped hooks at pre-push, under the real pre-commit and a real `git push` to a local bare repository
(offline): nothing is staged there, so `ctxres-stale` compares the commits being pushed (the range pre-commit
exports, or a first push's whole history), never the empty index; and each hook declares the stages where
it checks something (`ctxres-append-only`, which compares the staged logs with HEAD, does not run)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
import yaml

from ctxres.linters.checking.pushed_commits import Pushed, pushed

from ..conftest import FIXTURES, ROOT
from ..git_sandbox import Sandbox

WORKFLOW = (FIXTURES / "rules/A010/bad/ORCHESTRATION.yaml").read_text("utf-8")
UPDATED = '    updated_at: "2026-03-02T12:30:00Z"'
assert UPDATED in WORKFLOW


def _moved(text: str, status: str) -> str:
    """The workflow's status changed; its resumption section left as it was (stale)."""
    return re.sub(r'^  status: "\w+"', f'  status: "{status}"', text, count=1, flags=re.MULTILINE)


def _moved_and_updated(text: str, status: str, time: str) -> str:
    return _moved(text, status).replace(UPDATED, f'    updated_at: "{time}"')


class Pushing(Sandbox):
    def commit_file(self, text: str, message: str, rel: str = "ORCHESTRATION.yaml") -> str:
        self.write(rel, text)
        self.git("add", rel)
        self.git("commit", "-q", "--no-verify", "-m", message)
        return self.git("rev-parse", "--short=7", "HEAD").strip()

    def push(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["git", "push", "-q", "origin", *args], cwd=self.root, env=self.env, capture_output=True, text=True
        )

    def remote_has(self, ref: str) -> bool:
        found = subprocess.run(
            ["git", "ls-remote", "--exit-code", "origin", ref], cwd=self.root, env=self.env, capture_output=True
        )
        return found.returncode == 0


@pytest.fixture
def box(tmp_path: Path) -> Pushing:
    box = Pushing(tmp_path / "repo")
    subprocess.run(["git", "init", "-q", "--bare", str(tmp_path / "remote.git")], env=box.env, check=True)
    box.git("remote", "add", "origin", str(tmp_path / "remote.git"))
    box.use_shipped_hooks("ctxres-stale", "ctxres-append-only")
    installed = box.pre_commit("install", "--hook-type", "pre-push")
    assert installed.returncode == 0, installed.stderr
    return box


def test_every_shipped_hook_declares_its_stages() -> None:
    hooks = {hook["id"]: hook for hook in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text("utf-8"))}
    assert all("stages" in hook for hook in hooks.values())
    assert "pre-push" in hooks["ctxres-stale"]["stages"]
    assert set(hooks["ctxres-append-only"]["stages"]) == {"pre-commit", "pre-merge-commit", "manual"}
    for hook in hooks.values():  # after a checkout, commit, merge or rewrite, or on the message: nothing
        assert not {"commit-msg", "prepare-commit-msg", "post-checkout", "post-commit", "post-merge"} & set(
            hook["stages"]
        )


def test_a_pushed_stale_commit_is_blocked_naming_the_file_and_the_commit(box: Pushing) -> None:
    box.commit_file(WORKFLOW, "workflow")
    first = box.push("main")
    assert first.returncode == 0, first.stdout + first.stderr
    stale = box.commit_file(_moved(WORKFLOW, "PAUSED"), "pause, section left behind")
    box.commit_file(_moved(WORKFLOW, "PAUSED") + "# a comment\n", "a later commit: HEAD itself is not stale")

    blocked = box.push("main")
    output = blocked.stdout + blocked.stderr
    assert blocked.returncode != 0, output
    assert re.search(r"ctxres stale\.+Failed", output), output
    assert f"{stale} " in output and "ORCHESTRATION.yaml: blocked" in output, output
    assert "in the commits being pushed" in output
    assert "append-only" not in output  # not run at pre-push
    assert box.git("rev-parse", "HEAD~2") == box.git("ls-remote", "origin", "refs/heads/main").split()[0] + "\n"
    # What `ctxres stale --since` says of the same commits.
    since = box.ctxres("stale", "--since", "origin/main")
    assert since.returncode == 1 and f"{stale} " in since.stdout


def test_a_fresh_commit_passes(box: Pushing) -> None:
    box.commit_file(WORKFLOW, "workflow")
    assert box.push("main").returncode == 0
    box.commit_file(_moved_and_updated(WORKFLOW, "PAUSED", "2026-03-02T13:00:00Z"), "pause, section updated")
    passed = box.push("main")
    output = passed.stdout + passed.stderr
    assert passed.returncode == 0, output
    assert box.remote_has("refs/heads/main")
    # Run by hand, the hook says it checked the pushed commit (not an empty index).
    head = box.git("rev-parse", "HEAD").strip()
    box.git("reset", "-q", "--hard", "HEAD")
    shown = box.pre_commit(
        "run", "ctxres-stale", "--hook-stage", "pre-push", "--from-ref", "HEAD~1", "--to-ref", head, "--verbose"
    )
    assert shown.returncode == 0, shown.stdout
    assert re.search(r"ctxres stale\.+Passed", shown.stdout)
    assert "(1 change to an orchestration file in the commits being pushed" in shown.stdout


def test_a_new_branchs_first_push_checks_its_own_commits(box: Pushing) -> None:
    """A new branch: pre-commit names the parent of its first commit that the remote lacks; the branch is
    pushed while another is checked out (TO is not HEAD)."""
    box.commit_file(WORKFLOW, "workflow")
    stale_on_main = box.commit_file(_moved(WORKFLOW, "PAUSED"), "stale, already on the remote")
    assert box.git("push", "-q", "--no-verify", "origin", "main") == ""
    box.git("checkout", "-q", "-b", "feature")
    box.commit_file(_moved_and_updated(WORKFLOW, "ACTIVE", "2026-03-02T14:00:00Z"), "resume, section updated")
    # The state moves again; `updated_at` stays where the previous commit put it.
    stale = box.commit_file(_moved_and_updated(WORKFLOW, "PAUSED", "2026-03-02T14:00:00Z"), "pause again")
    box.git("checkout", "-q", "main")

    blocked = box.push("feature")
    output = blocked.stdout + blocked.stderr
    assert blocked.returncode != 0, output
    assert f"{stale} " in output and f"{stale_on_main} " not in output, output
    assert "in the commits being pushed (" in output  # the range pre-commit names, from main's tip
    assert not box.remote_has("refs/heads/feature")

    # The same branch without its stale commit goes through.
    box.git("branch", "-f", "feature", "feature~1")
    passed = box.push("feature")
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert box.remote_has("refs/heads/feature")


def test_the_first_push_of_a_repository_checks_its_whole_history(box: Pushing) -> None:
    """Pushing a history from its root commit, pre-commit exports no range: the commits of the ref pushed
    that no ref of the remote holds are compared."""
    box.commit_file(WORKFLOW, "workflow")
    stale = box.commit_file(_moved(WORKFLOW, "PAUSED"), "stale")
    blocked = box.push("main")
    output = blocked.stdout + blocked.stderr
    assert blocked.returncode != 0, output
    assert f"{stale} " in output and "its first push" in output, output
    box.git("reset", "-q", "--hard", "HEAD~1")
    assert box.push("main").returncode == 0


def test_at_pre_commit_the_staged_files_are_still_compared_with_head(box: Pushing) -> None:
    box.commit_file(WORKFLOW, "workflow")
    box.write("ORCHESTRATION.yaml", _moved(WORKFLOW, "PAUSED"))
    box.git("add", ".")
    result = box.pre_commit("run", "--color", "never")
    assert result.returncode == 1, result.stdout
    assert re.search(r"ctxres stale\.+Failed", result.stdout)
    assert re.search(r"ctxres append-only \(agent-memory event logs\)\.+Passed", result.stdout)


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({}, None),
        ({"PRE_COMMIT": "1"}, None),  # the pre-commit stage: no range
        ({"PRE_COMMIT_FROM_REF": "a" * 40}, None),  # both or neither
        (
            {"PRE_COMMIT_FROM_REF": "a" * 40, "PRE_COMMIT_TO_REF": "b" * 40, "PRE_COMMIT_REMOTE_NAME": "origin"},
            Pushed(from_ref="a" * 40, to_ref="b" * 40),
        ),
        (
            {"PRE_COMMIT_LOCAL_BRANCH": "refs/heads/main", "PRE_COMMIT_REMOTE_NAME": "origin"},
            Pushed(local="refs/heads/main", remote="origin"),
        ),
    ],
)
def test_what_pre_commit_names(environ: dict[str, str], expected: Pushed | None) -> None:
    assert pushed(environ) == expected


def test_a_range_is_described_with_short_hashes() -> None:
    assert Pushed(from_ref="a" * 40, to_ref="origin/main").described() == (
        "the commits being pushed (aaaaaaaaaaaa..origin/main)"
    )
