"""An upgrade: what an older ``ctxres init`` wrote is brought to what today's writes.

Real git, the team's repository (tests/team_repository.py), real pre-commit offline, and the real 0.1.0
release (its wheel built from its commit of this repository's history). The older forms: the remote
pre-commit entry init wrote before it wrote ``repo: local`` (``repo:`` of a repository that was never
published, ``rev: v0.1.0``: every commit fails in ``git fetch``), and an L2 reminder whose rank another
marker took (the team's rule files came after 0.1.0's init; an older init looked at one file only) with the
budget that no longer holds the markers.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from ..git_sandbox import Sandbox, executable
from ..installs import install_wheel, offline_venv, released_wheel
from ..team_repository import TEAM_RULE, Clone, team_repository

OLD_REMOTE = """\
# pre-commit: the team's hooks first
repos:
  - repo: local
    hooks:
      - id: team-check  # the team's own
        name: the team's check
        entry: "true"
        language: system
        files: \\.md$
  - repo: https://github.com/ctxres/ctxres
    rev: v0.1.0
    hooks:
      - id: ctxres-check
        exclude: ^legacy/
      - id: ctxres-stale
      - id: ctxres-reinject
# keep the list above short
"""


def _team(base: Path) -> Clone:
    return Clone(team_repository(base / "repo").root, Path(executable("ctxres")).parent)


def test_init_migrates_the_remote_entry_an_older_init_wrote(tmp_path: Path) -> None:
    team = _team(tmp_path)
    team.write(".pre-commit-config.yaml", OLD_REMOTE)
    team.git("add", ".")
    team.git("commit", "-q", "-m", "ctxres as an older init set it up")
    assert team.run("pre-commit", "install").returncode == 0
    team.write("notes.md", "a note\n")
    team.git("add", "notes.md")
    failed = team.commit("a note")
    assert failed.returncode != 0 and "github.com" in failed.stdout + failed.stderr  # git fetch fails

    doctor = team.run("ctxres", "doctor")
    (row,) = [line for line in doctor.stdout.splitlines() if "written by an older ctxres init" in line]
    assert "lines 10-16 of .pre-commit-config.yaml" in row, doctor.stdout
    assert "replace lines 10-16 by a `repo: local` entry" in doctor.stdout

    done = team.run("ctxres", "init")
    assert done.returncode == 0, done.stderr
    assert "replace the ctxres entry (repo: https://github.com/ctxres/ctxres" in done.stdout
    text = (team.root / ".pre-commit-config.yaml").read_text()
    before = OLD_REMOTE.split("  - repo: https://github.com/ctxres/ctxres")[0]
    assert text.startswith(before) and text.endswith("# keep the list above short\n")  # the team's part kept
    assert "github.com" not in text and text.count("repo: local") == 2 and "exclude: ^legacy/" in text
    team.git("add", ".")
    passed = team.commit("a note, after the upgrade")
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "ctxres check" in passed.stdout + passed.stderr  # the ctxres hooks ran
    assert team.run("ctxres", "init").stdout.count("pre-commit-config") == 0  # once


def _reinject(box: Sandbox | Clone) -> subprocess.CompletedProcess[str]:
    return subprocess.run([executable("ctxres"), "reinject"], cwd=box.root, env=box.env, capture_output=True, text=True)


def _without_team_rule(base: Path) -> Clone:
    """The team's repository before its rule file of ten ranked markers."""
    team = _team(base)
    team.git("rm", "-q", ".claude/rules/team.md")
    team.git("commit", "-q", "-m", "the rules come later")
    return team


def _add_team_rule(team: Clone) -> None:
    team.write(".claude/rules/team.md", "# How we work\n\n" + TEAM_RULE + "\n")
    team.git("add", ".")
    team.git("commit", "-q", "--no-verify", "-m", "the team's rules, ranks 1-10")  # the reinject hook would stop it


def _fresh(base: Path) -> Clone:
    """The same repository as a fresh init leaves it."""
    fresh = _team(base)
    assert fresh.run("ctxres", "init").returncode == 0
    return fresh


def test_after_the_0_1_0_init_the_current_init_brings_the_reminder_up_to_date(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    old = offline_venv(tmp_path / "old-venv")
    install_wheel(old, released_wheel(tmp_path_factory, "0.1.0"))
    team = _without_team_rule(tmp_path / "team")
    older = subprocess.run(
        [str(tmp_path / "old-venv" / "bin" / "ctxres"), "init"], cwd=team.root, env=team.env, capture_output=True
    )
    assert older.returncode == 0, older.stderr
    team.git("add", ".")
    team.git("commit", "-q", "-m", "ctxres 0.1.0 init")
    _add_team_rule(team)
    before = _reinject(team)
    assert before.returncode != 0 and "R005" in before.stdout and "R006" in before.stdout, before.stdout

    done = team.run("ctxres", "init")
    assert done.returncode == 0 and "Nothing to do" not in done.stdout, done.stdout
    assert _reinject(team).returncode == 0, _reinject(team).stdout
    fresh = _fresh(tmp_path / "fresh")
    for name in ("CLAUDE.md", ".ctxres.toml"):
        assert (team.root / name).read_text() == (fresh.root / name).read_text(), name
    assert "Nothing to do" in team.run("ctxres", "init").stdout


def test_the_reminder_an_older_init_wrote_at_rank_9_is_moved(tmp_path: Path) -> None:
    """Before 0.1.0, init put the reminder at rank 9 of CLAUDE.md whatever the other rule files used, and never
    raised the budget."""
    team = _team(tmp_path / "team")
    reminder = (
        '<!-- L2-REINJECT: rank=9, tokens=40, content="Resumption update: MUST update ORCHESTRATION.yaml '
        "resumption section at every state transition (phase/QG/agent/compaction); after a compaction run "
        'ctxres ack." -->'
    )
    team.write("CLAUDE.md", (team.root / "CLAUDE.md").read_text() + "\n" + reminder + "\n")
    assert "R005" in _reinject(team).stdout
    assert team.run("ctxres", "init").returncode == 0
    assert _reinject(team).returncode == 0, _reinject(team).stdout
    fresh = _fresh(tmp_path / "fresh")
    assert (team.root / "CLAUDE.md").read_text() == (fresh.root / "CLAUDE.md").read_text()
