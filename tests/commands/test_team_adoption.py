"""A team adopts ctxres on a repository that already exists, following the README, with real git and real
pre-commit, offline: many workflows sharing one state folder, old errors, rule files that already use
ranks 1-10 and spend more than the L2 budget, a `.gitignore` that ignores the state folder. The first
person runs `ctxres init` and commits; a teammate clones at another path, with another virtual
environment that is not on the PATH, and runs `ctxres init --local`."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from ctxres.claude_settings import HOOK_ENV
from ctxres.linters.setup.hook_runs import settings_environment

from ..git_sandbox import executable
from ..installs import shared_wheel
from ..team_repository import NEW, Clone, new_workflow, other_venv, stale_commit_is_blocked, team_repository


@pytest.fixture(scope="module")
def team(tmp_path_factory: pytest.TempPathFactory) -> tuple[Clone, Clone]:
    base = tmp_path_factory.mktemp("team")
    work = team_repository(base / "before")
    origin = base / "origin.git"  # the team's shared repository
    subprocess.run(["git", "clone", "-q", "--bare", str(work.root), str(origin)], check=True, env=work.env)
    first = Clone(base / "alice" / "repo", Path(executable("ctxres")).parent)
    subprocess.run(["git", "clone", "-q", str(origin), str(first.root)], check=True, env=first.env)
    wheel = shared_wheel(tmp_path_factory)
    return first, Clone(base / "bob-at-another-path" / "work" / "repo", other_venv(base / "bob-venv", wheel))


def test_a_team_adopts_ctxres(team: tuple[Clone, Clone]) -> None:
    alice, bob = team
    assert alice.run("ctxres", "check", ".").returncode == 1, "the team's repository has old errors"

    # The first person: init, doctor, commit.
    init = alice.run("ctxres", "init")
    assert init.returncode == 0, init.stdout + init.stderr
    assert "reinject-budget" in init.stdout and "rank 11" in init.stdout, init.stdout
    assert "keep the checkpoints in git" in init.stdout
    # The old findings: recorded, visible, not blocking. One old workflow cannot be read (invalid YAML): it
    # hides every finding it would have, so the baseline does not record it and says so.
    baseline = alice.run("ctxres", "baseline")
    assert baseline.returncode == 1, baseline.stdout + baseline.stderr
    assert re.search(r"not recorded: projects/PROJ-\d+/ORCHESTRATION\.yaml:\d+:\d+: P001", baseline.stderr), (
        baseline.stderr
    )
    checked = alice.run("ctxres", "check", ".")
    assert checked.returncode == 1, checked.stdout
    findings = [line for line in checked.stdout.splitlines() if re.match(r"\S+:\d+:\d+: [A-Z]\d{3} ", line)]
    assert findings and all(" P001 " in line for line in findings), checked.stdout
    assert re.search(r"\d+ existing findings are in the baseline", checked.stdout), checked.stdout
    doctor = alice.run("ctxres", "doctor")
    assert doctor.returncode == 0 and "All layers present." in doctor.stdout, doctor.stdout
    committed = [".claude/settings.json", ".pre-commit-config.yaml", "CLAUDE.md", ".gitignore", ".ctxres-baseline.json"]
    alice_venv = str(Path(executable("ctxres")).parent)
    for name in committed:
        assert alice_venv not in (alice.root / name).read_text(), f"{name} names this machine's venv"
    assert "?? .claude/settings.local.json" not in alice.status()
    alice.git("add", "-A")
    first = alice.commit("Adopt ctxres")
    assert first.returncode == 0, first.stdout + first.stderr
    assert re.search(r"ctxres reinject.*\.+Passed", first.stdout + first.stderr), first.stdout + first.stderr

    # A new workflow, a compaction (the PreCompact hook writes a checkpoint), ack, commit.
    alice.write(NEW, new_workflow("2026-11-26T10:00:00Z"))
    os.utime(alice.root / NEW, (0, 0))  # an old mtime: the choice must come from the content
    assert alice.live_workflow() == NEW
    precompact = subprocess.run(
        [str(alice.bin / "ctxres-hook"), "PreCompact"],
        input=json.dumps(
            {"hook_event_name": "PreCompact", "trigger": "manual", "session_id": "s1", "cwd": str(alice.root)}
        ),
        cwd=alice.root,
        env={**alice.env, "CLAUDE_PROJECT_DIR": str(alice.root)},
        capture_output=True,
        text=True,
    )
    assert precompact.returncode == 0, precompact.stderr
    checkpoints = sorted((alice.root / ".jerry" / "checkpoints").glob("cx-*.json"))
    assert len(checkpoints) == 1, precompact.stderr
    acked = alice.run("ctxres", "ack", "--all")
    assert acked.returncode == 0, acked.stdout + acked.stderr
    alice.git("add", "-A")
    assert ".jerry/checkpoints/" in alice.git("diff", "--cached", "--name-only"), "git ignores the checkpoint"
    second = alice.commit("FEAT-900: build, compacted once")
    assert second.returncode == 0, second.stdout + second.stderr
    alice.git("push", "-q", "origin", "HEAD")

    # The teammate: another path, another venv not on any PATH, one command, no tracked file changed.
    origin = alice.git("remote", "get-url", "origin").strip()
    subprocess.run(["git", "clone", "-q", origin, str(bob.root)], check=True, env=bob.env)
    for path in (bob.root / "projects").rglob("ORCHESTRATION.yaml"):  # mtimes in the other order
        os.utime(path, (10**9, 10**9 if path.as_posix().endswith(NEW) else 2 * 10**9))
    local = bob.run("ctxres", "init", "--local")
    assert local.returncode == 0, local.stdout + local.stderr
    assert bob.status() == "", bob.status()
    assert settings_environment(bob.root)[HOOK_ENV] == str(bob.bin / "ctxres-hook")
    for event, command in bob.hook_commands():
        done = bob.run_hook_as_the_client(command, event)
        assert done.returncode == 0, (event, command, done.stderr)
        assert done.stdout.strip() == "" or isinstance(json.loads(done.stdout), dict)
    assert bob.run("ctxres", "doctor").returncode == 0
    assert bob.live_workflow() == alice.live_workflow() == NEW

    # A stale commit is blocked in both clones, naming the file; the section update passes.
    for clone in (alice, bob):
        stale_commit_is_blocked(clone)
    shutil.rmtree(bob.home / "pre-commit", ignore_errors=True)
