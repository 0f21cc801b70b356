"""A team adopts ctxres, and no machine's path lands in a tracked file, whatever the repository tracks; a
teammate who installs ctxres in the project's `.venv` needs no step; one who never installed it loses
nothing. Real git and real pre-commit, offline; every clone at its own path with its own environment.

The team's repository tracks `.claude/settings.local.json` (with a hook command of its own, written with
`$CLAUDE_PROJECT_DIR`) and has a statusline of its own in `.claude/settings.json`.
- Alice installs ctxres in the project's `.venv` (as uv or poetry create it) and runs `ctxres init`.
- Bob's ctxres lives in a virtual environment elsewhere, activated in his shell: `init --local` leaves the
  tracked file alone and says so; `init --local --user-env` records his path in his own
  `~/.claude/settings.json`.
- Dave installs ctxres in the project's `.venv` as a dev dependency, not on his PATH, and runs nothing.
- Carol never installed ctxres; she has pre-commit.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from ctxres.claude_settings import HOOK_ENV, NOT_FOUND
from ctxres.linters.setup.hook_runs import settings_environment
from ctxres.linters.setup.machine import PRECOMMIT_NOT_FOUND

from ..cli_process import MINIMAL_PATH
from ..git_sandbox import executable
from ..installs import shared_wheel
from ..team_repository import (
    NEW,
    Clone,
    new_workflow,
    other_venv,
    project_venv,
    stale_commit_is_blocked,
    team_repository,
    without_ctxres,
)

TEAM_HOOK = '"$CLAUDE_PROJECT_DIR"/scripts/team-hook.sh'
TEAM_LOCAL_SETTINGS = json.dumps(
    {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": TEAM_HOOK}]}]}, "env": {"TEAM": "1"}}, indent=2
)
TEAM_STATUSLINE = "cat >/dev/null; printf 'team %s' \"$TEAM\""
STATUSLINE_PAYLOAD = {
    "session_id": "s1",
    "transcript_path": "/nonexistent/t.jsonl",
    "model": {"id": "claude", "display_name": "Claude"},
    "workspace": {},
    "context_window": {"context_window_size": 200000, "current_usage": None},
}


class Team:
    """The team's shared repository, the wheel every teammate installs, and the machines' folders."""

    def __init__(self, base: Path, origin: Path, wheel: Path) -> None:
        self.base = base
        self.origin = origin
        self.wheel = wheel

    def clone(self, name: str, bin_folder: Path | None = None) -> Clone:
        root = self.base / name / "repo"
        clone = Clone(root, bin_folder or Path("/usr/bin"))
        subprocess.run(["git", "clone", "-q", str(self.origin), str(root)], check=True, env=clone.env)
        return clone

    def in_project_venv(self, clone: Clone) -> None:
        """ctxres installed in the clone's own `.venv`, which is not on the clone's PATH."""
        clone.bin = project_venv(clone.root, self.wheel, self.base / clone.root.parent.name)
        clone.env["PATH"] = MINIMAL_PATH

    def machine_paths(self) -> list[str]:
        """The folders of every machine's environment and home, and of the tests' own environment."""
        found = [str(Path(executable("ctxres")).parent.parent)]
        for folder in self.base.iterdir():
            found += [str(p) for p in (folder / "repo" / ".venv", folder / "repo-home", folder / "venv") if p.exists()]
        return found

    def assert_no_machine_path(self, repository: Path) -> None:
        """`git grep` finds no machine's path in any commit of ``repository``, nor in its tracked files."""
        commits = subprocess.run(
            ["git", "rev-list", "--all"], cwd=repository, capture_output=True, text=True, check=True
        ).stdout.split()
        patterns = [arg for path in self.machine_paths() for arg in ("-e", path)]
        for revisions in ([*commits], []) if (repository / ".git").exists() else ([*commits],):
            found = subprocess.run(
                ["git", "grep", "-n", "-F", *patterns, *revisions], cwd=repository, capture_output=True, text=True
            )
            assert (found.returncode, found.stdout) == (1, ""), (repository, found.stdout[:800], found.stderr)


def team_origin(base: Path) -> Path:
    work = team_repository(base / "before")
    work.write(".claude/settings.local.json", TEAM_LOCAL_SETTINGS)
    work.write(".claude/settings.json", json.dumps({"statusLine": {"type": "command", "command": TEAM_STATUSLINE}}))
    hook = work.write("scripts/team-hook.sh", "#!/bin/sh\nexit 0\n")
    hook.chmod(0o755)
    work.git("add", ".")
    work.git("commit", "-q", "-m", "the team's own Claude Code settings, tracked")
    origin = base / "origin.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(work.root), str(origin)], check=True, env=work.env)
    return origin


def hooks_answer(clone: Clone) -> None:
    """Every ctxres hook command of the committed settings runs ctxres-hook as the client runs it."""
    ours = [(event, command) for event, command in clone.hook_commands() if "ctxres-hook" in command]
    assert len(ours) == 4
    for event, command in ours:
        done = clone.run_hook_as_the_client(command, event)
        assert done.returncode == 0 and NOT_FOUND not in done.stderr, (event, done.stderr)
        assert done.stdout.strip() == "" or isinstance(json.loads(done.stdout), dict)


def statusline(clone: Clone, **env: str) -> subprocess.CompletedProcess[str]:
    """The committed statusline command, run as the client runs it (`sh -c`, the settings' env, a payload)."""
    command = json.loads((clone.root / ".claude" / "settings.json").read_text())["statusLine"]["command"]
    payload = {**STATUSLINE_PAYLOAD, "cwd": str(clone.root), "workspace": {"project_dir": str(clone.root)}}
    variables = {
        "PATH": MINIMAL_PATH,
        "HOME": str(clone.home),
        "CLAUDE_PROJECT_DIR": str(clone.root),
        "NO_COLOR": "1",
        **settings_environment(clone.root, clone.home),
        **env,
    }
    return subprocess.run(
        ["sh", "-c", command], input=json.dumps(payload), cwd=clone.root, env=variables, capture_output=True, text=True
    )


@pytest.fixture(scope="module")
def team(tmp_path_factory: pytest.TempPathFactory) -> Team:
    """Alice adopts ctxres (her ctxres in the project's `.venv`), commits and pushes a live workflow."""
    base = tmp_path_factory.mktemp("machines")
    team = Team(base, team_origin(base), shared_wheel(tmp_path_factory))
    alice = team.clone("alice")
    team.in_project_venv(alice)
    init = alice.run("ctxres", "init")
    assert init.returncode == 0, init.stdout + init.stderr
    assert (
        ".claude/settings.local.json is tracked by git: not written; the hooks look for ctxres-hook in "
        "$CTXRES_HOOK, the project's .venv and the PATH, and find this machine's in the project's .venv"
    ) in init.stdout
    assert "not committed" not in init.stdout
    assert "/.claude/settings.local.json" not in (alice.root / ".gitignore").read_text()  # it would not untrack it
    baseline = alice.run("ctxres", "baseline")
    assert "Wrote .ctxres-baseline.json" in baseline.stdout, baseline.stdout + baseline.stderr
    alice.git("add", "-A")
    first = alice.commit("Adopt ctxres")
    assert first.returncode == 0, first.stdout + first.stderr
    assert (alice.root / ".claude" / "settings.local.json").read_text() == TEAM_LOCAL_SETTINGS
    assert alice.status() == ""
    hooks_answer(alice)
    alice.write(NEW, new_workflow("2026-11-26T10:00:00Z"))
    alice.git("add", NEW)
    assert alice.commit("FEAT-900").returncode == 0
    alice.git("push", "-q", "origin", "HEAD")
    doctor = alice.run("ctxres", "doctor")
    assert doctor.returncode == 0 and "All layers present." in doctor.stdout, doctor.stdout
    stale_commit_is_blocked(alice)
    team.assert_no_machine_path(alice.root)
    team.assert_no_machine_path(team.origin)
    return team


def test_a_tracked_settings_local_json_is_never_written_and_hooks_answer_in_both_clones(team: Team) -> None:
    bob = team.clone("bob-at-another-path", other_venv(team.base / "bob-at-another-path" / "venv", team.wheel))
    local = bob.run("ctxres", "init", "--local")
    assert local.returncode == 0, local.stdout + local.stderr
    assert ".claude/settings.local.json is tracked by git: not written" in local.stdout
    assert "ctxres init --local --user-env" in local.stdout
    assert (bob.root / ".claude" / "settings.local.json").read_text() == TEAM_LOCAL_SETTINGS
    assert bob.status() == ""
    user = bob.run("ctxres", "init", "--local", "--user-env")
    assert user.returncode == 0, user.stdout + user.stderr
    assert json.loads((bob.home / ".claude" / "settings.json").read_text()) == {
        "env": {HOOK_ENV: str(bob.bin / "ctxres-hook")}
    }
    assert (bob.root / ".claude" / "settings.local.json").read_text() == TEAM_LOCAL_SETTINGS
    assert bob.status() == ""
    again = bob.run("ctxres", "init", "--local")
    assert "and find this machine's in $CTXRES_HOOK of your own ~/.claude/settings.json" in again.stdout
    hooks_answer(bob)
    shown = statusline(bob).stdout  # the team's line, ours beside it (the live workflow)
    assert shown.startswith("team 1  ") and NEW.split("/")[1] in shown, shown
    doctor = bob.run("ctxres", "doctor")
    assert doctor.returncode == 0 and "All layers present." in doctor.stdout, doctor.stdout
    stale_commit_is_blocked(bob)
    team.assert_no_machine_path(bob.root)


def test_a_teammate_with_ctxres_only_in_the_project_venv_needs_no_step(team: Team) -> None:
    dave = team.clone("dave")
    team.in_project_venv(dave)  # not on his PATH; no init --local
    assert dave.run("pre-commit", "install").returncode == 0
    assert dave.status() == ""
    hooks_answer(dave)
    doctor = dave.run("ctxres", "doctor")
    assert doctor.returncode == 0 and "All layers present." in doctor.stdout, doctor.stdout
    assert "the ctxres hooks of .pre-commit-config.yaml run .venv/bin/ctxres" in doctor.stdout
    stale_commit_is_blocked(dave)
    team.assert_no_machine_path(dave.root)


def test_a_teammate_without_ctxres_loses_nothing(team: Team) -> None:
    carol = team.clone("carol", without_ctxres(team.base / "carol" / "venv"))
    assert carol.run("pre-commit", "install").returncode == 0
    for event, command in carol.hook_commands():
        if "ctxres-hook" in command:
            done = carol.run_hook_as_the_client(command, event)
            assert (done.returncode, done.stdout, done.stderr) == (0, "", NOT_FOUND + "\n"), event
    # The team's statusline, unchanged: without ctxres, and with a CTXRES_HOOK that names nothing.
    for env in ({}, {HOOK_ENV: str(team.base / "gone" / "bin" / "ctxres-hook")}):
        shown = statusline(carol, **env)
        assert (shown.returncode, shown.stdout) == (0, "team 1"), shown
    # A commit that the checks would have blocked passes, and says the checks did not run.
    text = (carol.root / NEW).read_text()
    carol.write(NEW, text.replace('status: "IN_PROGRESS"', 'status: "COMPLETE"', 1))
    carol.git("add", NEW)
    committed = carol.commit("phase 1 done")
    assert committed.returncode == 0, committed.stdout + committed.stderr
    assert PRECOMMIT_NOT_FOUND in committed.stdout + committed.stderr
    team.assert_no_machine_path(carol.root)


def test_the_doctor_fails_where_the_pre_commit_entries_would_not_find_ctxres(team: Team) -> None:
    erin = team.clone("erin")  # no ctxres of her own: the doctor of the tests' environment, off her PATH
    env = {**erin.env, "PATH": MINIMAL_PATH}

    def doctor() -> subprocess.CompletedProcess[str]:
        return subprocess.run([executable("ctxres"), "doctor"], cwd=erin.root, env=env, capture_output=True, text=True)

    found = doctor()
    assert found.returncode == 1, found.stdout
    assert "All layers present." not in found.stdout
    assert (
        "ctxres-check, ctxres-stale, ctxres-reinject would pass without checking anything (no .venv/bin/ctxres, no "
        "ctxres on the PATH) here"
    ) in found.stdout
    assert "finds no ctxres-hook here" in found.stdout
    # The entries an older init wrote (`entry: ctxres ...`): every commit would fail.
    config = erin.root / ".pre-commit-config.yaml"
    text = config.read_text()
    for args in ("check --force-exclude", "stale --force-exclude", "reinject"):
        start = text.index("entry: sh -c ")
        end = text.index("\n", start)
        text = text[:start] + f"entry: ctxres {args}" + text[end:]
    config.write_text(text)
    old = doctor()
    assert old.returncode == 1
    assert (
        "ctxres-check, ctxres-stale, ctxres-reinject would fail every commit (pre-commit: Executable `ctxres` not "
        "found)"
    ) in old.stdout
    on_path = subprocess.run(
        [executable("ctxres"), "doctor"],
        cwd=erin.root,
        env={**env, "PATH": f"{Path(executable('ctxres')).parent}:{MINIMAL_PATH}"},
        capture_output=True,
        text=True,
    )  # where this shell's PATH has ctxres they run, and the doctor says what they depend on
    assert "ctxres-check, ctxres-stale, ctxres-reinject: an entry that only a PATH with ctxres finds" in on_path.stdout
    # Re-running init brings them up to date, in place.
    assert (
        subprocess.run(
            [executable("ctxres"), "init", "--only", "pre-commit"], cwd=erin.root, env=env, capture_output=True
        ).returncode
        == 0
    )
    assert erin.git("diff", "--stat") == ""
