"""A team adopts ctxres beside a PreCompact checkpoint writer of its own, and with a broken live workflow.

(a) The team's writer keeps `cx-NNN.json` files in `.jerry/checkpoints/` and numbers a new one by `int()` of
every `cx-*.json` name: registered in the team's committed settings before `ctxres init`, run as the client
runs hooks (`sh -c`, both commands, several compactions in turn), it keeps writing, the numbers are one
sequence, `ctxres ack --all` merges ours and a commit passes. (b) The ACTIVE workflow's file gets an unclosed
quote: the commit is blocked with P001, the baseline does not record it, and the hooks and `ctxres prompt`
name it instead of resuming another workflow. Real git and real pre-commit, offline."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from ctxres.linters.setup.hook_runs import settings_environment

from ..cli_process import MINIMAL_PATH
from ..git_sandbox import executable
from ..hooks.claude_session import fill_transcript
from ..installs import shared_wheel
from ..team_repository import NEW, Clone, new_workflow, other_venv, peer_checkpoint_template, team_repository

TEAM_COMMAND = 'python3 "$CLAUDE_PROJECT_DIR/tools/cx_writer.py"'
# The team's own writer: fail-open (a hook must not break the session), numbering by int() of every name.
WRITER = """import json, sys, datetime
from pathlib import Path

try:
    folder = Path(".jerry/checkpoints")
    folder.mkdir(parents=True, exist_ok=True)
    number = max((int(p.stem[3:]) for p in folder.glob("cx-*.json")), default=0) + 1
    data = json.loads(Path("tools/cx_template.json").read_text())
    data["checkpoint_id"] = f"cx-{number:03d}"
    data["created_at"] = datetime.datetime.now(datetime.timezone.utc).isoformat()
    (folder / f"cx-{number:03d}.json").write_text(json.dumps(data, indent=2) + "\\n")
except Exception as exc:
    print(f"team checkpoint writer: {exc!r}", file=sys.stderr)
sys.exit(0)
"""
BROKEN = '    current_activity: "phase-1-build\n'  # the closing quote is missing


def origin_with_writer(base: Path) -> Path:
    """The team's shared repository: the team repository with its own writer in its committed settings."""
    work = team_repository(base / "before")
    work.write("tools/cx_writer.py", WRITER)
    work.write("tools/cx_template.json", peer_checkpoint_template())
    settings = {"hooks": {"PreCompact": [{"hooks": [{"type": "command", "command": TEAM_COMMAND}]}]}}
    work.write(".claude/settings.json", json.dumps(settings, indent=2) + "\n")
    work.git("add", ".")
    work.git("commit", "-q", "-m", "the team's own checkpoint writer")
    origin = base / "origin.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(work.root), str(origin)], check=True, env=work.env)
    return origin


def adopted(origin: Path, folder: Path) -> Clone:
    """A clone with this environment's ctxres: init, baseline, the new workflow FEAT-900, committed."""
    clone = Clone(folder, Path(executable("ctxres")).parent)
    subprocess.run(["git", "clone", "-q", str(origin), str(clone.root)], check=True, env=clone.env)
    init = clone.run("ctxres", "init")
    assert init.returncode == 0, init.stdout + init.stderr
    precompact = commands(clone, "PreCompact")
    assert precompact[0] == TEAM_COMMAND and len(precompact) == 2, precompact  # theirs kept, ours beside it
    clone.run("ctxres", "baseline")
    clone.write(NEW, new_workflow("2026-11-26T10:00:00Z"))
    clone.git("add", "-A")
    done = clone.commit("Adopt ctxres; FEAT-900")
    assert done.returncode == 0, done.stdout + done.stderr
    return clone


@pytest.fixture(scope="module")
def team(tmp_path_factory: pytest.TempPathFactory) -> tuple[Clone, Clone]:
    base = tmp_path_factory.mktemp("team-writers")
    alice = adopted(origin_with_writer(base), base / "alice" / "repo")
    bob = Clone(base / "bob-elsewhere" / "repo", other_venv(base / "bob-venv", shared_wheel(tmp_path_factory)))
    return alice, bob


@pytest.fixture
def broken(tmp_path: Path) -> Clone:
    return adopted(origin_with_writer(tmp_path), tmp_path / "carol" / "repo")


def as_the_client(clone: Clone, command: str, event: str, **fields: object) -> subprocess.CompletedProcess[str]:
    transcript = clone.home / "transcript.jsonl"  # the client sends one with every event
    transcript.touch()
    payload = {
        "hook_event_name": event,
        "session_id": "team",
        "cwd": str(clone.root),
        "transcript_path": str(transcript),
        **fields,
    }
    env = {
        "PATH": MINIMAL_PATH,
        "HOME": str(clone.home),
        "CLAUDE_PROJECT_DIR": str(clone.root),
        **settings_environment(clone.root, clone.home),
    }
    return subprocess.run(
        ["sh", "-c", command], input=json.dumps(payload), cwd=clone.root, env=env, capture_output=True, text=True
    )


def commands(clone: Clone, event: str) -> list[str]:
    return [command for name, command in clone.hook_commands() if name == event]


def compact(clone: Clone) -> None:
    """One compaction: every PreCompact command of the settings, in order, as the client runs them."""
    for command in commands(clone, "PreCompact"):
        done = as_the_client(clone, command, "PreCompact", trigger="auto", custom_instructions="")
        assert done.returncode == 0 and done.stderr == "", (command, done.stderr)


def names(clone: Clone) -> list[str]:
    return sorted(p.name for p in (clone.root / ".jerry" / "checkpoints").iterdir())


def test_the_teams_writer_keeps_working_beside_ours(team: tuple[Clone, Clone]) -> None:
    alice, bob = team
    for _ in range(3):
        compact(alice)
    # one sequence: theirs 1, 3, 5 (int() of every name never failed), ours 2, 4, 6 in their layout
    assert names(alice) == [f"cx-{n:03d}.json" for n in range(1, 7)]
    folder = alice.root / ".jerry" / "checkpoints"
    ours = [n for n in range(1, 7) if "event_id" in json.loads((folder / f"cx-{n:03d}.json").read_text())]
    assert ours == [2, 4, 6]

    acked = alice.run("ctxres", "ack", "--all")
    assert acked.returncode == 0, acked.stdout + acked.stderr
    for n in (2, 4, 6):
        assert f"merged .jerry/checkpoints/cx-{n:03d}.json as CX-{n:03d}" in acked.stdout, acked.stdout
    checked = alice.run("ctxres", "check", NEW, ".jerry/checkpoints")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    alice.git("add", "-A")
    assert ".jerry/checkpoints/cx-001.json" in alice.git("diff", "--cached", "--name-only")
    passed = alice.commit("FEAT-900: three compactions")
    assert passed.returncode == 0, passed.stdout + passed.stderr

    # the teammate at another path, another venv: one more compaction continues the same sequence
    alice.git("push", "-q", "origin", "HEAD")
    origin = alice.git("remote", "get-url", "origin").strip()
    subprocess.run(["git", "clone", "-q", origin, str(bob.root)], check=True, env=bob.env)
    local = bob.run("ctxres", "init", "--local")
    assert local.returncode == 0, local.stdout + local.stderr
    compact(bob)
    assert names(bob) == [f"cx-{n:03d}.json" for n in range(1, 9)]
    acked = bob.run("ctxres", "ack", "--all")
    assert acked.returncode == 0 and "as CX-008" in acked.stdout, acked.stdout + acked.stderr
    bob.git("add", "-A")
    passed = bob.commit("FEAT-900: a fourth compaction")
    assert passed.returncode == 0, passed.stdout + passed.stderr


def test_a_broken_live_workflow_is_named_not_replaced(broken: Clone) -> None:
    alice = broken
    assert alice.live_workflow() == NEW
    late = fill_transcript(alice.home, 150_000)  # a session late in its context: the hooks look at the workflow
    for command in commands(alice, "UserPromptSubmit"):
        done = as_the_client(alice, command, "UserPromptSubmit", prompt="go on", transcript_path=late)
        assert done.returncode == 0 and "Compaction events: 0" in done.stdout, done.stdout + done.stderr  # FEAT-900
    text = (alice.root / NEW).read_text()
    alice.write(NEW, re.sub(r'    current_activity: "[^"]*"\n', BROKEN, text, count=1))
    alice.git("add", NEW)
    blocked = alice.commit("FEAT-900: a typo")
    output = blocked.stdout + blocked.stderr
    assert blocked.returncode != 0, output
    assert re.search(rf"{re.escape(NEW)}:\d+:\d+: P001", output), output
    assert "baseline entry is fixed" not in output, output

    before = (alice.root / ".ctxres-baseline.json").read_text()
    baseline = alice.run("ctxres", "baseline")
    assert baseline.returncode == 1, baseline.stdout + baseline.stderr
    assert re.search(rf"not recorded: {re.escape(NEW)}:\d+:\d+: P001", baseline.stderr), baseline.stderr
    assert NEW not in (alice.root / ".ctxres-baseline.json").read_text()
    assert NEW not in before

    said = f"the live workflow {NEW} cannot be read"
    prompted = {"prompt": "go on", "transcript_path": late}
    for event, fields in (("SessionStart", {"source": "startup"}), ("UserPromptSubmit", prompted)):
        for command in commands(alice, event):
            done = as_the_client(alice, command, event, **fields)
            assert done.returncode == 0, (event, done.stderr)
            assert said in done.stdout, (event, done.stdout)
            assert "PROJ-0" not in done.stdout, (event, done.stdout)  # no other workflow resumed instead
    prompt = alice.run("ctxres", "prompt")
    assert said in prompt.stdout + prompt.stderr, prompt.stdout + prompt.stderr
    assert "PROJ-0" not in prompt.stdout, prompt.stdout
