"""The team repository of the adoption tests, and its clones: many workflows sharing one state folder, old
errors, rule files that already use ranks 1-10 and spend more than the L2 budget, a `.gitignore` that ignores
the state folder. Each clone is used with one virtual environment's scripts, as a teammate's machine."""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import subprocess
import time
from pathlib import Path

from ctxres.linters.setup.hook_runs import settings_environment  # the settings' env, as the client merges it

from .cli_process import MINIMAL_PATH
from .conftest import FIXTURES
from .git_sandbox import Sandbox
from .installs import install_wheel, offline_venv

# Another tool's checkpoint (its `cx-NNN.json` layout), from a real project.
PEER_CHECKPOINT = FIXTURES / "corpus" / "checkpoints" / "cx-001.d933ffb7.json"
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


def peer_checkpoint_template() -> str:
    """What a team's own checkpoint writer writes (its id and time aside), holding the workflow's position."""
    data = json.loads(PEER_CHECKPOINT.read_text("utf-8"))
    data["resumption_state"] = {"recovery_state": {"current_phase": 1, "current_activity": "phase-1-build"}}
    return json.dumps(data, indent=2) + "\n"


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
        # The teammate's shell has the virtual environment activated (`activate` sets VIRTUAL_ENV too): a
        # Claude Code started elsewhere does not have it on its PATH.
        self.env.pop("VIRTUAL_ENV", None)
        if (bin_folder.parent / "pyvenv.cfg").is_file():
            self.env["VIRTUAL_ENV"] = str(bin_folder.parent)

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(self.bin / args[0]), *args[1:]], cwd=self.root, env=self.env, capture_output=True, text=True
        )

    def hook_commands(self) -> list[tuple[str, str]]:
        data = json.loads((self.root / ".claude" / "settings.json").read_text())
        return [(event, h["command"]) for event, groups in data["hooks"].items() for g in groups for h in g["hooks"]]

    def run_hook_as_the_client(self, command: str, event: str) -> subprocess.CompletedProcess[str]:
        return self.as_the_client(command, {"hook_event_name": event, "session_id": "team", **PAYLOADS[event]})

    def as_the_client(self, command: str, payload: dict[str, object]) -> subprocess.CompletedProcess[str]:
        """A hook command of the settings run as Claude Code runs it (``sh -c``, the settings' env merged), with
        ``payload`` (its ``cwd`` added) on stdin."""
        process = self.start_as_the_client(command)
        stdout, stderr = process.communicate(self.payload(payload))
        return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)

    def payload(self, fields: dict[str, object]) -> str:
        """The JSON the client sends a hook of this clone: ``fields`` and the ``cwd``."""
        return json.dumps({"cwd": str(self.root), **fields})

    def start_as_the_client(self, command: str) -> subprocess.Popen[str]:
        """The process of :meth:`as_the_client`, started; its :meth:`payload` goes to ``communicate()``."""
        env = {
            "PATH": MINIMAL_PATH,
            "HOME": str(self.home),
            "CLAUDE_PROJECT_DIR": str(self.root),
            **settings_environment(self.root, self.home),  # the user's own settings too, as the client merges
        }
        return subprocess.Popen(
            ["sh", "-c", command],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=self.root,
            env=env,
            text=True,
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


def run_in(clone: Clone, folder: str, *args: str) -> subprocess.CompletedProcess[str]:
    """One of the clone's scripts (``ctxres ...``) run from ``folder`` (relative to the clone), as a person in a
    subfolder of the repository runs it."""
    return subprocess.run(
        [str(clone.bin / args[0]), *args[1:]], cwd=clone.root / folder, env=clone.env, capture_output=True, text=True
    )


def project_venv(root: Path, wheel: Path, links: Path) -> Path:
    """ctxres installed from the wheel in the project's own ``.venv`` (where uv and poetry create it; it ignores
    itself in git, as virtualenv's and uv's do), with a ``pre-commit`` of its own; its scripts folder.
    ``links``: where the folder of links to the test environment's packages goes, outside the project."""
    folder = root / ".venv"
    python = offline_venv(folder, links)
    install_wheel(python, wheel)
    script = folder / "bin" / "pre-commit"
    script.write_text(f"#!{python}\nimport sys\nfrom pre_commit.main import main\nsys.exit(main())\n")
    script.chmod(0o755)
    assert (folder / "bin" / "ctxres-hook").is_file() and (folder / ".gitignore").is_file()
    return folder / "bin"


def without_ctxres(folder: Path) -> Path:
    """A virtual environment with pre-commit and without ctxres (a teammate who never installed it); its
    scripts folder."""
    python = offline_venv(folder)
    script = folder / "bin" / "pre-commit"
    script.write_text(f"#!{python}\nimport sys\nfrom pre_commit.main import main\nsys.exit(main())\n")
    script.chmod(0o755)
    assert not (folder / "bin" / "ctxres").exists() and not (folder / "bin" / "ctxres-hook").exists()
    return folder / "bin"


def stale_commit_is_blocked(clone: Clone) -> None:
    """A commit that moves the phase of the workflow NEW without its resumption section is blocked, naming the
    file; the same change with the section updated passes."""
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
