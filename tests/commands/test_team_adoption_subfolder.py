"""The team adoption walk, every command run from a project's subfolder (`projects/PROJ-003/`), with real git and
real pre-commit, offline: each acts on the repository (its configuration file, else its git root) and prints
paths as they are true from where the user stands; paths given on the command line stay relative to it."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from ..cli_process import ctxres
from ..git_sandbox import executable
from ..team_repository import NEW, Clone, new_workflow, run_in, team_repository

SUB = "projects/PROJ-003"
# A project with rule files of its own, one marker at a rank the team's rule already uses (R005, baselined).
SUB_RULES = '# PROJ-003\n\n<!-- L2-REINJECT: rank=3, tokens=10, content="Project three: run its own tests first." -->\n'


@pytest.fixture(scope="module")
def alice(tmp_path_factory: pytest.TempPathFactory) -> Clone:
    base = tmp_path_factory.mktemp("team-sub")
    work = team_repository(base / "before")
    work.write(f"{SUB}/CLAUDE.md", SUB_RULES)
    work.git("add", ".")
    work.git("commit", "-q", "-m", "PROJ-003's own rules")
    clone = Clone(base / "alice" / "repo", Path(executable("ctxres")).parent)
    subprocess.run(["git", "clone", "-q", str(work.root), str(clone.root)], check=True, env=clone.env)
    return clone


def test_every_command_from_a_subfolder(alice: Clone) -> None:
    sub = alice.root / SUB
    before = sorted(p.name for p in sub.iterdir())

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return run_in(alice, SUB, *args)

    # init: every file at the repository's root, said as paths from here; a rank no rule file uses.
    init = run("ctxres", "init")
    assert init.returncode == 0, init.stdout + init.stderr
    assert "ctxres: the project at ../.." in init.stdout
    for written in ("../../CLAUDE.md", "../../.claude/settings.json", "../../.gitignore", "../../.ctxres.toml"):
        assert f": {written}\n" in init.stdout, (written, init.stdout)
    assert "../../docs/protocol/resumption-update-protocol.md" in init.stdout, init.stdout
    assert "rank 11" in init.stdout and "reinject-budget" in init.stdout, init.stdout
    assert sorted(p.name for p in sub.iterdir()) == before, "init wrote into the subfolder"
    for name in ("CLAUDE.md", ".claude/settings.json", ".pre-commit-config.yaml", ".ctxres.toml", ".gitignore"):
        assert (alice.root / name).is_file(), name

    # baseline at the root, then check, reinject and baseline from the subfolder: no entry of another folder is
    # "fixed" or dropped, and the cross-file R005 of the subfolder's rule file keeps its entry.
    recorded_at_root = alice.run("ctxres", "baseline")  # (exit 1: it says it cannot record the unreadable file)
    assert "Wrote .ctxres-baseline.json" in recorded_at_root.stdout, recorded_at_root.stdout + recorded_at_root.stderr
    recorded = json.loads((alice.root / ".ctxres-baseline.json").read_text())["entries"]
    assert any(e["code"] == "R005" and e["path"] == f"{SUB}/CLAUDE.md" for e in recorded), recorded
    checked = run("ctxres", "check")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "fixed" not in checked.stdout and "(../../.ctxres-baseline.json)" in checked.stdout, checked.stdout
    reinject = run("ctxres", "reinject")
    assert reinject.returncode == 0 and "fixed" not in reinject.stdout, reinject.stdout + reinject.stderr
    rewritten = run("ctxres", "baseline")
    assert rewritten.returncode == 0, rewritten.stderr
    assert "Wrote ../../.ctxres-baseline.json" in rewritten.stdout and "(0 added, 0 removed)" in rewritten.stdout
    assert json.loads((alice.root / ".ctxres-baseline.json").read_text())["entries"] == recorded
    named = run("ctxres", "check", "ORCHESTRATION.yaml")  # a path given is relative to the working folder
    assert named.returncode == 0 and "1 file checked" in named.stdout, named.stdout + named.stderr

    # doctor: every layer of the repository, none "Not present".
    doctor = run("ctxres", "doctor")
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    assert "All layers present." in doctor.stdout and "Not present" not in doctor.stdout, doctor.stdout
    assert "in no rule file" not in doctor.stdout
    install = run("ctxres", "install-hooks")
    assert install.returncode == 0 and "../../.claude/settings.json is already up to date" in install.stdout
    assert sorted(p.name for p in sub.iterdir()) == before

    # The first commit, from the subfolder: real pre-commit runs the ctxres hooks at the root.
    alice.git("add", "-A")
    committed = subprocess.run(
        ["git", "commit", "-q", "-m", "Adopt ctxres"], cwd=sub, env=alice.env, capture_output=True, text=True
    )
    assert committed.returncode == 0, committed.stdout + committed.stderr
    assert re.search(r"ctxres reinject.*\.+Passed", committed.stdout + committed.stderr)

    # A live workflow and a compaction: ack and prompt from the subfolder find the repository's state folder.
    alice.write(NEW, new_workflow("2026-11-26T10:00:00Z"))
    precompact = subprocess.run(
        [str(alice.bin / "ctxres-hook"), "PreCompact"],
        input=json.dumps({"hook_event_name": "PreCompact", "trigger": "manual", "session_id": "s", "cwd": str(sub)}),
        cwd=alice.root,
        env={**alice.env, "CLAUDE_PROJECT_DIR": str(alice.root)},
        capture_output=True,
        text=True,
    )
    assert precompact.returncode == 0, precompact.stderr
    prompt = run("ctxres", "prompt", "--template", "2")
    assert prompt.returncode == 0 and "<compaction-alert>" in prompt.stdout, prompt.stdout + prompt.stderr
    acked = run("ctxres", "ack", "--all")
    assert acked.returncode == 0, acked.stdout + acked.stderr
    merged = "merged ../../.jerry/checkpoints/cx-001.json as CX-001 into ../FEAT-900/ORCHESTRATION.yaml"
    assert merged in acked.stdout, acked.stdout  # the checkpoint and NEW, as paths from the subfolder
    for args in (("stale",), ("audit-history",), ("runs",), ("append-only",)):
        done = run("ctxres", *args)
        assert done.returncode == 0, (args, done.stdout, done.stderr)
    assert not (sub / ".jerry").exists() and not (sub / ".claude").exists()
    assert sorted(p.name for p in sub.iterdir()) == before


def test_force_exclude_tests_the_path_from_the_repository(tmp_path: Path) -> None:
    """pre-commit passes paths from the root; a person in `docs/` passes them from there: the example under
    `docs/protocol/` is skipped either way (no configuration file: the root is the top of the git work tree)."""
    (tmp_path / ".git").mkdir()
    example = tmp_path / "docs" / "protocol" / "ORCHESTRATION.yaml"
    example.parent.mkdir(parents=True)
    example.write_text("resumption: 3\n")
    for cwd, named in (
        (tmp_path, "docs/protocol/ORCHESTRATION.yaml"),
        (tmp_path / "docs", "protocol/ORCHESTRATION.yaml"),
    ):
        done = ctxres("check", "--force-exclude", named, cwd=cwd)
        assert done.returncode == 0 and "0 files checked" in done.stdout, (cwd, done.stdout, done.stderr)
    assert ctxres("check", "protocol/ORCHESTRATION.yaml", cwd=tmp_path / "docs").returncode == 1  # named: checked
