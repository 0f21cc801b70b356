"""A team adopts ctxres on a repository that already exists, following the README, with real git and real
pre-commit, offline: many workflows sharing one state folder, old errors, rule files that already use
ranks 1-10 and spend more than the L2 budget, a `.gitignore` that ignores the state folder. The first
person runs `ctxres init` and commits; a teammate clones at another path, with another virtual
environment that is not on the PATH, and runs `ctxres init --local`."""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from ctxres.claude_settings import HOOK_ENV
from ctxres.linters.setup.hook_runs import settings_environment  # the settings' env, as the client merges it

from ..cli_process import MINIMAL_PATH
from ..conftest import FIXTURES
from ..git_sandbox import Sandbox, executable
from ..installs import build_wheel, install_wheel, offline_venv

WORKFLOWS = sorted((FIXTURES / "corpus" / "orchestration").glob("*.yaml"))
NEW = "projects/FEAT-900/ORCHESTRATION.yaml"
PAYLOADS = {
    "PreCompact": {"trigger": "ctxres-team-test", "custom_instructions": ""},
    "SessionStart": {"source": "clear"},
    "UserPromptSubmit": {"prompt": ""},
    "PostToolUse": {"tool_name": "Read", "tool_input": {}, "tool_response": {}},
}
# A rule of the team's own: ten markers, ranks 1-10, more than the 600-token budget together.
TEAM_RULE = "\n\n".join(
    f'<!-- L2-REINJECT: rank={rank}, tokens={len(text) // 4}, content="{text}" -->'
    for rank, text in (
        (n, f"Team rule {n}: " + "keep the change small and say why in the commit. " * 5) for n in range(1, 11)
    )
)


def new_workflow(updated_at: str, phase_status: str = "IN_PROGRESS") -> str:
    """A clean v2.0 workflow, ACTIVE in its first phase."""
    return f"""workflow:
  id: "FEAT-900"
  status: "ACTIVE"
pipelines:
  main:
    phases:
      - id: 1
        name: "Build"
        status: "{phase_status}"
resumption:
  recovery_state:
    last_checkpoint: null
    current_phase: 1
    current_phase_name: "Build"
    workflow_status: "ACTIVE"
    current_activity: "phase-1-build"
    next_step: "Write the parser"
    context_fill_at_update: null
    updated_at: "{updated_at}"
  files_to_read:
    - path: "{NEW}"
      priority: 1
      purpose: "The workflow state."
      sections: ["resumption"]
  quality_trajectory:
    gates_completed: []
    gates_remaining: []
    current_gate: null
    current_gate_iteration: null
    score_history: {{}}
  defect_summary:
    total_defects_found: 0
    total_defects_resolved: 0
    unresolved_defects: []
  decision_log: []
  agent_summaries: {{}}
  compaction_events:
    count: 0
    events: []
"""


def with_section_updated_now(text: str) -> str:
    """The workflow with `recovery_state.updated_at` set to now (later than the time it holds)."""
    pattern = re.compile(r'(    updated_at: ")([^"]+)(")')
    match = pattern.search(text)
    assert match, "no recovery_state.updated_at"
    before = dt.datetime.fromisoformat(match.group(2).replace("Z", "+00:00"))
    while (now := dt.datetime.now(dt.timezone.utc).replace(microsecond=0)) <= before:
        time.sleep(0.2)
    return pattern.sub(lambda m: m.group(1) + now.isoformat().replace("+00:00", "Z") + m.group(3), text, count=1)


def other_venv(folder: Path, wheel: Path) -> Path:
    """A second virtual environment at another path, not on any PATH, with ctxres installed from the wheel
    (as a teammate installs it) and a `pre-commit` of its own; its scripts folder."""
    python = offline_venv(folder)
    install_wheel(python, wheel)
    script = folder / "bin" / "pre-commit"
    script.write_text(f"#!{python}\nimport sys\nfrom pre_commit.main import main\nsys.exit(main())\n")
    script.chmod(0o755)
    assert (folder / "bin" / "ctxres-hook").is_file()
    return folder / "bin"


class Clone(Sandbox):
    """A clone of the team repository, used with one virtual environment's scripts."""

    def __init__(self, root: Path, bin_folder: Path) -> None:
        super().__init__(root, git=False)
        self.bin = bin_folder
        self.env["PATH"] = f"{bin_folder}{os.pathsep}{MINIMAL_PATH}"

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(self.bin / args[0]), *args[1:]], cwd=self.root, env=self.env, capture_output=True, text=True
        )

    def hook_commands(self) -> list[tuple[str, str]]:
        data = json.loads((self.root / ".claude" / "settings.json").read_text())
        return [(event, h["command"]) for event, groups in data["hooks"].items() for g in groups for h in g["hooks"]]

    def run_hook_as_the_client(self, command: str, event: str) -> subprocess.CompletedProcess[str]:
        payload = {"hook_event_name": event, "session_id": "team", "cwd": str(self.root), **PAYLOADS[event]}
        env = {
            "PATH": MINIMAL_PATH,
            "HOME": str(self.home),
            "CLAUDE_PROJECT_DIR": str(self.root),
            **settings_environment(self.root),
        }
        return subprocess.run(
            ["sh", "-c", command], input=json.dumps(payload), cwd=self.root, env=env, capture_output=True, text=True
        )

    def status(self) -> str:
        return self.git("status", "--porcelain", "--untracked-files=all")

    def live_workflow(self) -> str | None:
        report = json.loads(self.run("ctxres", "doctor", "--output-format", "json").stdout)
        path: str | None = report["workflow"]["path"]
        return path


def team_repository(root: Path) -> Sandbox:
    box = Sandbox(root)
    for number, source in enumerate(WORKFLOWS, start=1):
        box.write(f"projects/PROJ-{number:03d}/ORCHESTRATION.yaml", source.read_text("utf-8"))
    box.write("CLAUDE.md", "# Team rules\n\nUse the project's scripts.\n")
    box.write(".claude/rules/team.md", "# How we work\n\n" + TEAM_RULE + "\n")
    box.write(".gitignore", ".jerry/\n__pycache__/\n")
    box.git("add", ".")
    box.git("commit", "-q", "-m", "the team's repository before ctxres")
    return box


@pytest.fixture(scope="module")
def team(tmp_path_factory: pytest.TempPathFactory) -> tuple[Clone, Clone]:
    base = tmp_path_factory.mktemp("team")
    work = team_repository(base / "before")
    origin = base / "origin.git"  # the team's shared repository
    subprocess.run(["git", "clone", "-q", "--bare", str(work.root), str(origin)], check=True, env=work.env)
    first = Clone(base / "alice" / "repo", Path(executable("ctxres")).parent)
    subprocess.run(["git", "clone", "-q", str(origin), str(first.root)], check=True, env=first.env)
    wheel = build_wheel(base / "wheel")
    return first, Clone(base / "bob-at-another-path" / "work" / "repo", other_venv(base / "bob-venv", wheel))


def test_a_team_adopts_ctxres(team: tuple[Clone, Clone]) -> None:
    alice, bob = team
    assert alice.run("ctxres", "check", ".").returncode == 1, "the team's repository has old errors"

    # The first person: init, doctor, commit.
    init = alice.run("ctxres", "init")
    assert init.returncode == 0, init.stdout + init.stderr
    assert "reinject-budget" in init.stdout and "rank 11" in init.stdout, init.stdout
    assert "keep the checkpoints in git" in init.stdout
    baseline = alice.run("ctxres", "baseline")  # the old findings: recorded, visible, not blocking
    assert baseline.returncode == 0, baseline.stdout + baseline.stderr
    checked = alice.run("ctxres", "check", ".")
    assert checked.returncode == 0, checked.stdout
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
    checkpoints = sorted((alice.root / ".jerry" / "checkpoints").glob("cx-*-checkpoint.json"))
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
        text = (clone.root / NEW).read_text()
        clone.write(NEW, text.replace('status: "IN_PROGRESS"', 'status: "COMPLETE"', 1))
        clone.git("add", NEW)
        blocked = clone.commit("phase 1 done")
        assert blocked.returncode != 0, blocked.stdout + blocked.stderr
        assert NEW in blocked.stdout + blocked.stderr
        clone.write(NEW, with_section_updated_now((clone.root / NEW).read_text()))
        clone.git("add", NEW)
        passed = clone.commit("phase 1 done, resumption section updated")
        assert passed.returncode == 0, passed.stdout + passed.stderr
    shutil.rmtree(bob.home / "pre-commit", ignore_errors=True)
