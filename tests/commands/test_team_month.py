"""A month of a team's work with ctxres, as one walk: two teammates, each with a clone of the team repository
(a local bare origin) and a virtual environment of their own; one starts on the previous release (built from
its commit of this repository) and upgrades; both compact, ack, branch, merge (conflicts included), stash,
check out, work beside one of Claude Code's worktrees, run two sessions at once, compact in the middle of a
merge; a tool of the team's own writes `cx-NNN.json` checkpoints numbered by `int()` of every name, before
and after ours. Real hooks as the client runs them, real git, real pre-commit, offline.

The story runs in order, so it is one test (xdist spreads the tests of a module over its workers). What it
must hold at the end comes from a ledger the walk keeps: every compaction has its checkpoint and its event,
no file lost an edit, every commit that should pass passed, the other writer still writes after ours."""

from __future__ import annotations

import collections
import json
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

from ..git_sandbox import IDENTITY
from ..installs import install_wheel, released_wheel, shared_wheel
from ..team_repository import (
    NEW,
    Clone,
    new_workflow,
    other_venv,
    peer_checkpoint_template,
    team_repository,
    with_section_updated_now,
)

PREVIOUS_RELEASE = "0.1.0"  # CHANGELOG's last entry (tests/installs.py RELEASES: its commit): where a teammate starts
CHECKPOINTS = ".jerry/checkpoints"
WORKTREE = ".claude/worktrees/wt2"
OURS = "ctxres-hook PreCompact"  # a checkpoint's metadata.written_by when the PreCompact hook wrote it
KEEP_BOTH = ("ctxres", "renumber")  # the command `ctxres check` names after a `--ours` resolution
# The team's own PreCompact writer: numbers by int() of every cx-*.json name, and does not expect to fail.
WRITER = """import datetime, json
from pathlib import Path
from typing import Any

folder = Path(".jerry/checkpoints")
folder.mkdir(parents=True, exist_ok=True)
n = max((int(p.name[3:-5]) for p in folder.glob("cx-*.json")), default=0) + 1
data = json.loads(Path("tools/cx_template.json").read_text())
data["checkpoint_id"] = f"cx-{n:03d}"
data["created_at"] = datetime.datetime.now(datetime.timezone.utc).isoformat()
(folder / f"cx-{n:03d}.json").write_text(json.dumps(data, indent=2) + "\\n")
print(f"cx-{n:03d}.json")
"""
# Another process editing the workflow (a person's editor): adds a line per edit, re-reading before it replaces.
EDITOR = """import os, sys, time
from pathlib import Path
from typing import Any

path, tag, count = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
for n in range(count):
    while True:
        text = path.read_text()
        temporary = path.with_name(".editor.tmp")
        temporary.write_text(text.replace("pipelines:\\n", f"# {tag} {n}\\npipelines:\\n", 1))
        if path.read_text() == text:
            os.replace(temporary, path)
            break
    time.sleep(0.002)
"""
EDITS = 100  # about as long as `ctxres ack` runs: an edit falls between its read and its write


@dataclass
class Compaction:
    teammate: str
    session: str
    trigger: str
    next_step: str | None  # what the section said; None in a file with conflict markers
    written: list[str]  # the checkpoint names that appeared in the folder
    alert: str  # SessionStart `compact`'s answer


@dataclass
class Ledger:
    compactions: list[Compaction] = field(default_factory=list)
    edits: list[tuple[str, str]] = field(default_factory=list)  # (file, a text it keeps from then on)
    failures: list[str] = field(default_factory=list)  # what should have worked and did not, with its output
    writer: list[tuple[str, str]] = field(default_factory=list)  # (teammate, the name the team's writer wrote)

    def expect(self, ok: bool, what: str) -> bool:
        if not ok:
            self.failures.append(what)
        return ok


class Teammate(Clone):
    def __init__(self, name: str, root: Path, bin_folder: Path, ledger: Ledger) -> None:
        super().__init__(root, bin_folder)
        self.name = name
        self.ledger = ledger
        self.sessions = 0


@dataclass
class Team:
    origin: Path
    ann: Teammate  # starts on the previous release
    ben: Teammate
    wheel: Path  # the current tree's
    ledger: Ledger


def origin_with_writer(base: Path) -> Path:
    work = team_repository(base / "before")
    work.write("tools/cx_writer.py", WRITER)
    work.write("tools/cx_template.json", peer_checkpoint_template())
    work.git("add", ".")
    work.git("commit", "-q", "-m", "the team's own checkpoint writer")
    origin = base / "origin.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(work.root), str(origin)], check=True, env=work.env)
    return origin


@pytest.fixture(scope="module")
def team(tmp_path_factory: pytest.TempPathFactory) -> Team:
    base = tmp_path_factory.mktemp("team-month")
    ledger = Ledger()
    origin = origin_with_writer(base)
    old = other_venv(base / "ann-venv", released_wheel(tmp_path_factory, PREVIOUS_RELEASE))
    wheel = shared_wheel(tmp_path_factory)
    ann = Teammate("ann", base / "ann" / "repo", old, ledger)
    ben = Teammate("ben", base / "ben-elsewhere" / "work" / "repo", other_venv(base / "ben-venv", wheel), ledger)
    for teammate in (ann, ben):
        subprocess.run(["git", "clone", "-q", str(origin), str(teammate.root)], check=True, env=teammate.env)
    return Team(origin, ann, ben, wheel, ledger)


# --- what a teammate does ------------------------------------------------------------------------------------


def attempt(teammate: Teammate, *args: str) -> subprocess.CompletedProcess[str]:
    """``git ARGS`` that may fail (a merge that conflicts)."""
    return subprocess.run(
        ["git", *IDENTITY, *args], cwd=teammate.root, env=teammate.env, capture_output=True, text=True
    )


def succeeded(teammate: Teammate, what: str, done: subprocess.CompletedProcess[str]) -> bool:
    return teammate.ledger.expect(done.returncode == 0, f"{teammate.name}: {what}: {done.stdout}{done.stderr}")


def commit(teammate: Teammate, message: str) -> bool:
    """``git add -A`` and a commit through pre-commit, which should pass."""
    teammate.git("add", "-A")
    return succeeded(teammate, f"commit {message!r}", teammate.commit(message))


def pull(teammate: Teammate) -> None:
    succeeded(teammate, "git pull", attempt(teammate, "pull", "-q", "--no-rebase", "origin", "main"))


def push(teammate: Teammate) -> None:
    succeeded(teammate, "git push", attempt(teammate, "push", "-q", "origin", "HEAD:main"))


def model_sets_next_step(teammate: Teammate, next_step: str) -> None:
    """The model writes the section: a new next step, `updated_at` now."""
    text = (teammate.root / NEW).read_text()
    text = re.sub(r'    next_step: "[^"]*"', f'    next_step: "{next_step}"', text, count=1)
    teammate.write(NEW, with_section_updated_now(text))


def team_writer(teammate: Teammate) -> None:
    done = subprocess.run(
        ["python3", "tools/cx_writer.py"], cwd=teammate.root, env=teammate.env, capture_output=True, text=True
    )
    said = (done.stderr.strip().splitlines() or [""])[-1]  # a traceback's last line
    if teammate.ledger.expect(done.returncode == 0, f"{teammate.name}: the team's checkpoint writer failed: {said}"):
        teammate.ledger.writer.append((teammate.name, done.stdout.strip()))


def hook(teammate: Teammate, session: str, event: str, **fields: object) -> str:
    """Every command the settings register for ``event``, as the client runs them; their answers."""
    transcript = teammate.home / f"{session}.jsonl"
    transcript.touch()
    payload = {"hook_event_name": event, "session_id": session, "transcript_path": str(transcript), **fields}
    answers = []
    for name, command in teammate.hook_commands():
        if name == event:
            done = teammate.as_the_client(command, payload)
            succeeded(teammate, f"{event} hook", done)
            answers.append(done.stdout)
    return "".join(answers)


def names(teammate: Teammate) -> set[str]:
    folder = teammate.root / CHECKPOINTS
    return {p.name for p in folder.iterdir()} if folder.is_dir() else set()


def new_session(teammate: Teammate) -> str:
    teammate.sessions += 1
    return f"{teammate.name}-s{teammate.sessions}"


def compact(
    teammate: Teammate, trigger: str = "auto", next_step: str | None = None, *, theirs_first: bool = True
) -> Compaction:
    """One compaction of a new session: the team's writer (unless ``theirs_first`` is false: ours writes first),
    our PreCompact, SessionStart `compact`, the writer again; recorded in the ledger."""
    session = new_session(teammate)
    if next_step is not None:
        model_sets_next_step(teammate, next_step)
    if theirs_first:
        team_writer(teammate)
    before = names(teammate)
    hook(teammate, session, "PreCompact", trigger=trigger, custom_instructions="")
    written = sorted(names(teammate) - before)
    alert = hook(teammate, session, "SessionStart", source="compact")
    team_writer(teammate)
    entry = Compaction(teammate.name, session, trigger, next_step, written, alert)
    teammate.ledger.compactions.append(entry)
    return entry


def ack(teammate: Teammate) -> subprocess.CompletedProcess[str]:
    done = teammate.run("ctxres", "ack", "--all")
    succeeded(teammate, "ctxres ack --all", done)
    return done


def edit(teammate: Teammate, rel: str, text: str) -> None:
    """A person adds ``text`` at the end of ``rel``; the file keeps it from then on."""
    path = teammate.root / rel
    teammate.write(rel, path.read_text() + text)
    teammate.ledger.edits.append((rel, text))


def quiet(answer: str) -> bool:
    """The hook said nothing to the model."""
    return answer.strip() in ("", "{}")


def check(teammate: Teammate) -> subprocess.CompletedProcess[str]:
    return teammate.run("ctxres", "check", NEW, CHECKPOINTS)


def keep_both(teammate: Teammate, told: str) -> None:
    """The command `ctxres check` names after a `--ours` resolution dropped a compaction, run: it keeps both (the
    other side's checkpoint and its event renumbered)."""
    teammate.ledger.expect(" ".join(KEEP_BOTH) in told, f"{teammate.name}: check does not name {KEEP_BOTH}: {told}")
    succeeded(teammate, " ".join(KEEP_BOTH), teammate.run(*KEEP_BOTH))


def edit_workflow_as_the_model(teammate: Teammate, session: str, note: str) -> str:
    """An Edit of the workflow that moves nothing (a comment line), and PostToolUse's answer to it."""
    path = teammate.root / NEW
    old = path.read_text()
    path.write_text(old.replace("pipelines:\n", f"# {note}\npipelines:\n", 1))
    teammate.ledger.edits.append((NEW, f"# {note}\n"))
    tool_input = {"file_path": str(path), "old_string": "pipelines:\n", "new_string": f"# {note}\npipelines:\n"}
    return hook(
        teammate,
        session,
        "PostToolUse",
        tool_name="Edit",
        tool_input=tool_input,
        tool_response={"filePath": str(path), "success": True},
    )


def write_workflow_as_the_model(teammate: Teammate, session: str) -> str:
    """PostToolUse's answer to a Write of the workflow (its content as it is now)."""
    path = teammate.root / NEW
    tool_input = {"file_path": str(path), "content": path.read_text()}
    return hook(teammate, session, "PostToolUse", tool_name="Write", tool_input=tool_input, tool_response={})


def phase_done(teammate: Teammate) -> None:
    text = (teammate.root / NEW).read_text().replace('status: "IN_PROGRESS"', 'status: "COMPLETE"', 1)
    teammate.write(NEW, with_section_updated_now(text))


# --- the month, in order -------------------------------------------------------------------------------------


def ann_adopts_on_the_previous_release(ann: Teammate) -> None:
    succeeded(ann, "ctxres init (0.1.0)", ann.run("ctxres", "init"))
    ann.run("ctxres", "baseline")  # the old findings recorded (one unreadable file is not: exit 1)
    ann.write(NEW, with_section_updated_now(new_workflow("2026-11-26T10:00:00Z")))
    edit(ann, "CLAUDE.md", "\nTeam rule: run the parser's tests before a commit.\n")
    edit(ann, ".gitignore", "# the team's build output\n/build/\n")
    commit(ann, "Adopt ctxres 0.1.0; FEAT-900")
    push(ann)


def ben_joins_on_the_current_version(ben: Teammate) -> None:
    pull(ben)
    succeeded(ben, "ctxres init --local", ben.run("ctxres", "init", "--local"))
    compact(ben, next_step="Write the parser (ben, before ann upgrades)", theirs_first=False)  # an empty folder
    ack(ben)
    commit(ben, "FEAT-900: a compaction on the current version")
    push(ben)


def ann_works_on_the_old_version_then_upgrades(ann: Teammate, wheel: Path) -> None:
    pull(ann)  # the teammate's checkpoints, written by the current version
    edit(ann, "CLAUDE.md", "Team rule: name the phase in the commit message.\n")
    commit(ann, "team rules, committed on 0.1.0")
    install_wheel(ann.bin / "python", wheel)
    succeeded(ann, "ctxres init (upgrade)", ann.run("ctxres", "init"))
    if ann.status():  # what the new init migrated
        commit(ann, "ctxres upgraded")
    succeeded(ann, "ctxres doctor after the upgrade", ann.run("ctxres", "doctor"))
    compact(ann, next_step="Write the parser's tests (ann, upgraded)")
    ack(ann)
    commit(ann, "FEAT-900: a compaction after the upgrade")
    push(ann)


def both_compact_on_branches_and_merge(ann: Teammate, ben: Teammate) -> None:
    pull(ben)
    ann.git("checkout", "-q", "-b", "ann-parser")
    dropped = compact(ann, "manual", "Parser: the error paths (ann's branch)")
    ack(ann)
    commit(ann, "parser: the error paths")
    ann.git("checkout", "-q", "main")
    ann.git("merge", "-q", "ann-parser")
    push(ann)

    ben.git("checkout", "-q", "-b", "ben-tests")
    compact(ben, "auto", "Tests: the parser's fixtures (ben's branch)")
    ack(ben)
    commit(ben, "tests: the parser's fixtures")
    ben.git("fetch", "-q", "origin")
    merged = attempt(ben, "merge", "origin/main")
    ben.ledger.expect(merged.returncode != 0, f"ben: the merge of both compactions did not conflict: {merged.stdout}")
    conflicted = ben.git("diff", "--name-only", "--diff-filter=U").split()
    if conflicted:
        ben.git("checkout", "--ours", "--", *conflicted)
        ben.git("add", "--", *conflicted)
    told = check(ben)
    ids = [name[:6] for name in dropped.written]
    ben.ledger.expect(
        told.returncode != 0 and bool(ids) and all(i in (told.stdout + told.stderr).lower() for i in ids),
        f"ben: after `--ours`, check does not name the dropped compaction {ids}: {told.stdout}{told.stderr}",
    )
    keep_both(ben, told.stdout + told.stderr)
    succeeded(ben, "check after keeping both", check(ben))
    commit(ben, "merge main: both compactions kept")
    ben.git("checkout", "-q", "main")
    succeeded(ben, "git merge ben-tests", attempt(ben, "merge", "-q", "ben-tests"))
    push(ben)
    pull(ann)


def checkout_and_stash_are_not_the_model(ben: Teammate) -> None:
    session = new_session(ben)
    model_sets_next_step(ben, "Tests: the parser's edge cases")
    first = edit_workflow_as_the_model(ben, session, "ben: the edge cases are listed in the issue")
    ben.ledger.expect(quiet(first), f"ben: PostToolUse after the model's own write: {first}")
    commit(ben, "FEAT-900: edge cases next")
    ben.git("checkout", "-q", "-b", "ben-phase-done")
    phase_done(ben)
    written = write_workflow_as_the_model(ben, session)
    ben.ledger.expect(quiet(written), f"ben: PostToolUse after the model's phase move with its section: {written}")
    commit(ben, "FEAT-900: phase 1 done (a branch)")
    ben.git("checkout", "-q", "main")  # git moves the phase back, not the model
    answer = edit_workflow_as_the_model(ben, session, "ben: back on main")
    ben.ledger.expect(quiet(answer), f"ben: PostToolUse after `git checkout` blamed the model: {answer}")
    commit(ben, "FEAT-900: a note on main")

    phase_done(ben)  # a change, put aside
    write_workflow_as_the_model(ben, session)
    ben.git("stash", "-q")
    answer = edit_workflow_as_the_model(ben, session, "ben: while the change is stashed")
    ben.ledger.expect(quiet(answer), f"ben: PostToolUse after `git stash` blamed the model: {answer}")
    commit(ben, "FEAT-900: a note while the change is stashed")
    succeeded(ben, "git stash pop", attempt(ben, "stash", "pop"))
    ben.ledger.edits.append((NEW, 'status: "COMPLETE"'))
    model_sets_next_step(ben, "Phase 2: the review")
    commit(ben, "FEAT-900: phase 1 done")
    push(ben)


def a_worktree_of_the_client_beside_the_main_checkout(ann: Teammate) -> None:
    pull(ann)
    edit(ann, ".gitignore", ".claude/worktrees/\n")
    commit(ann, "git ignores the client's worktrees")
    ann.git("worktree", "add", "-q", WORKTREE, "-b", "wt2")
    other = ann.root / WORKTREE / "projects" / "FEAT-901" / "ORCHESTRATION.yaml"
    text = new_workflow("2026-11-26T10:00:00Z").replace("FEAT-900", "FEAT-901")
    other.parent.mkdir(parents=True)
    model_sets_next_step(ann, "Review the parser (ann, main checkout)")
    other.write_text(with_section_updated_now(text))  # the worktree's workflow is the newest ACTIVE one
    live = ann.live_workflow()
    ann.ledger.expect(live == NEW, f"ann: the live workflow beside a worktree is {live}, not {NEW}")
    compact(ann, next_step="Review the parser's tests (ann, main checkout)")
    ack(ann)
    commit(ann, "FEAT-900: two compactions beside a worktree")
    push(ann)


def two_sessions_at_once(ben: Teammate) -> None:
    pull(ben)
    model_sets_next_step(ben, "Review: two sessions at once (ben)")
    sessions = [new_session(ben), new_session(ben)]
    before = names(ben)
    (command,) = [command for name, command in ben.hook_commands() if name == "PreCompact"]
    started = [ben.start_as_the_client(command) for _ in sessions]
    for session, process in zip(sessions, started, strict=True):
        assert process.stdin is not None
        process.stdin.write(ben.payload({"hook_event_name": "PreCompact", "session_id": session, "trigger": "auto"}))
        process.stdin.close()
    for process in started:
        assert process.stdout is not None and process.stderr is not None
        output = process.stdout.read() + process.stderr.read()
        succeeded(ben, "PreCompact (two at once)", subprocess.CompletedProcess(process.args, process.wait(), output))
    written = sorted(names(ben) - before)
    for session in sessions:
        alert = hook(ben, session, "SessionStart", source="compact")
        ben.ledger.compactions.append(
            Compaction("ben", session, "auto", "Review: two sessions at once (ben)", written, alert)
        )
    ack(ben)
    compact(ben, next_step="Review: ack beside an editor (ben)")
    editor = ben.home / "editor.py"
    editor.write_text(EDITOR)
    editing = subprocess.Popen(["python3", str(editor), str(ben.root / NEW), "ben-editor", str(EDITS)])
    acked = ben.run("ctxres", "ack", "--all")
    editing.wait()
    ben.ledger.edits.extend((NEW, f"# ben-editor {n}\n") for n in range(EDITS))
    if acked.returncode != 0:  # refused, having seen the edit: nothing changed, so again
        ack(ben)
    commit(ben, "FEAT-900: two sessions at once")
    push(ben)


def a_compaction_in_the_middle_of_a_merge(ann: Teammate) -> None:
    pull(ann)
    ann.git("checkout", "-q", "-b", "ann-review")
    model_sets_next_step(ann, "Review: the parser's names (ann's branch)")
    commit(ann, "review: names")
    ann.git("checkout", "-q", "main")
    model_sets_next_step(ann, "Review: the parser's errors (main)")
    commit(ann, "review: errors")
    merged = attempt(ann, "merge", "ann-review")
    ann.ledger.expect(merged.returncode != 0, f"ann: the merge of two next steps did not conflict: {merged.stdout}")
    compact(ann)  # the live workflow holds conflict markers
    ann.git("checkout", "--ours", "--", NEW)
    ack(ann)
    commit(ann, "merge ann-review: main's next step")
    push(ann)


def the_team_writer_writes_last(ann: Teammate, ben: Teammate) -> None:
    for teammate in (ben, ann):
        pull(teammate)
        team_writer(teammate)
        commit(teammate, "the team writer's checkpoint")
        push(teammate)
    pull(ben)


# --- the end of the month ------------------------------------------------------------------------------------


def ours(teammate: Teammate) -> dict[str, dict[str, Any]]:
    """Our checkpoints in the clone, by name."""
    found = {}
    for path in sorted((teammate.root / CHECKPOINTS).glob("cx-*.json")):
        data = json.loads(path.read_text())
        if data.get("metadata", {}).get("written_by") == OURS:
            found[path.name] = data
    return found


def every_compaction_has_its_checkpoint_and_event(teammate: Teammate, ledger: Ledger) -> None:
    checkpoints = ours(teammate)
    assert len(checkpoints) == len(ledger.compactions), (sorted(checkpoints), ledger.compactions)
    recorded = collections.Counter(c["recovery_instructions"]["next_action"] for c in checkpoints.values())
    expected = collections.Counter(c.next_step for c in ledger.compactions if c.next_step is not None)
    assert not expected - recorded, (expected - recorded, recorded)
    section = yaml.safe_load((teammate.root / NEW).read_text())["resumption"]["compaction_events"]
    files = collections.Counter(Path(e["checkpoint_file"]).name for e in section["events"])
    assert files == collections.Counter(checkpoints.keys()), (files, sorted(checkpoints))
    assert section["count"] == len(section["events"]) == len(ledger.compactions), section
    missed = [c for c in ledger.compactions if "compaction-alert" not in c.alert]
    assert not missed, missed


def no_file_lost_an_edit(teammate: Teammate, ledger: Ledger) -> None:
    lost = [(rel, text) for rel, text in ledger.edits if text not in (teammate.root / rel).read_text()]
    assert not lost, lost


def the_other_writer_wrote_after_ours(teammate: Teammate, ledger: Ledger) -> None:
    last_ours = max(int(name[3:6]) for name in ours(teammate))
    theirs = [int(name[3:6]) for who, name in ledger.writer if who == teammate.name]
    assert theirs and max(theirs) > last_ours, (theirs, last_ours)


def test_a_month_of_team_work(team: Team) -> None:
    ann, ben, ledger = team.ann, team.ben, team.ledger
    ann_adopts_on_the_previous_release(ann)
    ben_joins_on_the_current_version(ben)
    ann_works_on_the_old_version_then_upgrades(ann, team.wheel)
    both_compact_on_branches_and_merge(ann, ben)
    checkout_and_stash_are_not_the_model(ben)
    a_worktree_of_the_client_beside_the_main_checkout(ann)
    two_sessions_at_once(ben)
    a_compaction_in_the_middle_of_a_merge(ann)
    the_team_writer_writes_last(ann, ben)

    assert not ledger.failures, "\n\n".join(ledger.failures)  # every commit that should pass passed, ...
    assert ann.git("rev-parse", "HEAD") == ben.git("rev-parse", "HEAD")
    for teammate in (ann, ben):
        every_compaction_has_its_checkpoint_and_event(teammate, ledger)
        no_file_lost_an_edit(teammate, ledger)
        the_other_writer_wrote_after_ours(teammate, ledger)
