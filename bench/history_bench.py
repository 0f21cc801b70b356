#!/usr/bin/env python3
"""A synthetic git history of one ORCHESTRATION.yaml, for timing ``ctxres audit-history``.

The file evolves the way a real workflow file does (see fixtures/corpus/history/): phases start,
their agents start, report progress (``iterations_complete``) and complete, a quality gate runs
scored iterations until it passes, a checkpoint is recorded, the next phase starts. Each commit
that moves the state also rewrites the v2.0 resumption section (``recovery_state.updated_at``,
``current_activity``, ``next_step``), except a few chosen commits that move the state and leave
the section alone: exactly the commits ``audit-history`` must report. One commit in twenty only
rewrites the plan (``next_actions``): not state, never reported.

The repository is written in one ``git fast-import`` run (about a second for 1,000 commits) into
a cache folder named after a hash of the import stream, so a run with the same generator and
commit count reuses it, and any change to the generator builds a new one.

Standard library only: ``python bench/history_bench.py --commits 1000`` prints the repository path
and the expected stale commits.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import BinaryIO

FILE_NAME = "ORCHESTRATION.yaml"
PHASES = 8
AGENTS_PER_PHASE = 4
GATE_ITERATIONS = 3  # scored iterations before each gate passes
NON_STATE_EVERY = 20  # one commit in twenty edits next_actions only
STALE_EVERY = 200  # one state commit in two hundred leaves the resumption section stale
START = 1_771_286_400  # 2026-02-17T00:00:00Z
STEP_SECONDS = 600
AUTHOR = "ctxres bench <bench@example.invalid>"
CACHE_ROOT = Path(tempfile.gettempdir()) / "ctxres-bench-cache"


def _iso(seconds: int) -> str:
    from datetime import datetime, timezone

    return datetime.fromtimestamp(seconds, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class Agent:
    id: str
    status: str = "PENDING"
    iterations_complete: int = 0


@dataclass
class Phase:
    id: int
    status: str = "PENDING"
    agents: list[Agent] = field(default_factory=list)
    gate_status: str = "PENDING"
    gate_iteration: int = 0
    gate_score: float = 0.0
    scores: list[float] = field(default_factory=list)


@dataclass
class State:
    phases: list[Phase]
    workflow_status: str = "ACTIVE"
    current_phase: int = 1
    latest_checkpoint: str = "CP-000"
    checkpoints: int = 0
    activity: str = "planning"
    next_step: str = "Start phase 1."
    updated_at: str = _iso(START)
    plan_revision: int = 0

    @classmethod
    def initial(cls) -> State:
        phases = [
            Phase(p, agents=[Agent(f"p{p}-agent-{a}") for a in range(1, AGENTS_PER_PHASE + 1)])
            for p in range(1, PHASES + 1)
        ]
        return cls(phases)


# An event moves the state and returns the activity it leaves the workflow in.
def _events(progress_steps: int) -> list[tuple[str, int, int]]:
    """(kind, phase index, agent index) for the whole workflow, in order."""
    events: list[tuple[str, int, int]] = []
    for p in range(PHASES):
        events.append(("phase-start", p, -1))
        for a in range(AGENTS_PER_PHASE):
            events.append(("agent-start", p, a))
            events.extend(("agent-progress", p, a) for _ in range(progress_steps))
            events.append(("agent-complete", p, a))
        events.extend(("gate-iteration", p, -1) for _ in range(GATE_ITERATIONS))
        events.append(("gate-pass", p, -1))
    events[-1] = ("workflow-complete", PHASES - 1, -1)
    return events


def _apply(state: State, kind: str, p: int, a: int) -> str:
    phase = state.phases[p]
    if kind == "phase-start":
        phase.status = "IN_PROGRESS"
        state.current_phase = phase.id
        return f"phase {phase.id} started"
    if kind.startswith("agent-"):
        agent = phase.agents[a]
        if kind == "agent-start":
            agent.status = "IN_PROGRESS"
        elif kind == "agent-progress":
            agent.iterations_complete += 1
        else:
            agent.status = "COMPLETE"
        return f"{agent.id} {agent.status.lower()} (iteration {agent.iterations_complete})"
    if kind == "gate-iteration":
        phase.gate_status = "IN_PROGRESS"
        phase.gate_iteration += 1
        phase.gate_score = round(0.80 + 0.04 * phase.gate_iteration + 0.001 * phase.id, 3)
        phase.scores.append(phase.gate_score)
        return f"qg-{phase.id} iteration {phase.gate_iteration} scored {phase.gate_score}"
    # gate-pass / workflow-complete
    phase.gate_status = "PASS"
    phase.status = "COMPLETE"
    state.checkpoints += 1
    state.latest_checkpoint = f"CP-{state.checkpoints:03d}"
    if kind == "workflow-complete":
        state.workflow_status = "COMPLETE"
        return "workflow complete"
    return f"qg-{phase.id} passed, checkpoint {state.latest_checkpoint}"


def render(state: State) -> str:
    """The ORCHESTRATION.yaml text of ``state`` (about 400 lines, shaped like the corpus files)."""
    out = [
        "# ORCHESTRATION.yaml",
        "# Machine-readable orchestration state (synthetic benchmark workflow)",
        'schema_version: "2.0.0"',
        "",
        "# " + "=" * 77,
        "# WORKFLOW METADATA",
        "# " + "=" * 77,
        "workflow:",
        '  id: "bench-20260217-001"',
        '  name: "Synthetic benchmark workflow"',
        '  project_id: "PROJ-900-bench"',
        '  created_at: "2026-02-17T00:00:00Z"',
        f'  status: "{state.workflow_status}"  # ACTIVE | PAUSED | COMPLETE | FAILED | CANCELLED',
        "  constraints:",
        "    max_agent_nesting: 1",
        "    max_gate_retries: 3",
        '    checkpoint_frequency: "PHASE"',
        "",
        "pipelines:",
        "  main:",
        '    id: "main"',
        '    name: "Main pipeline"',
        f'    status: "{"COMPLETE" if state.workflow_status == "COMPLETE" else "IN_PROGRESS"}"',
        f"    current_phase: {state.current_phase}",
        f"    total_phases: {PHASES}",
        "    phases:",
    ]
    for phase in state.phases:
        out += [
            "",
            "      # " + "-" * 69,
            f"      # PHASE {phase.id}",
            "      # " + "-" * 69,
            f"      - id: {phase.id}",
            f'        name: "Phase {phase.id} of the synthetic workflow"',
            f'        path_id: "phase-{phase.id}"',
            f'        status: "{phase.status}"',
            f'        gate_after: "qg-{phase.id}"',
            "        agents:",
        ]
        for agent in phase.agents:
            out += [
                f'          - id: "{agent.id}"',
                f'            name: "Agent {agent.id}"',
                f'            status: "{agent.status}"',
                f"            iterations_complete: {agent.iterations_complete}",
                f'            artifact: "orchestration/bench/phase-{phase.id}/{agent.id}/{agent.id}-output.md"',
                "            description: >",
                f"              Produce the deliverable of {agent.id} and hand it to the quality gate",
                f"              qg-{phase.id}; the critic re-scores it until the threshold is met.",
            ]
    out += ["", "quality_gates:"]
    for phase in state.phases:
        scores = ", ".join(f"{score:.3f}" for score in phase.scores)
        out += [
            f"  qg-{phase.id}:",
            f'    status: "{phase.gate_status}"',
            "    threshold: 0.92",
            f"    iteration: {phase.gate_iteration}",
            f"    score: {phase.gate_score:.3f}",
            f"    score_history: [{scores}]",
        ]
    out += [
        "",
        "checkpoints:",
        f'  latest_id: "{state.latest_checkpoint}"',
        "",
        "next_actions:",
        f"  # plan revision {state.plan_revision}",
        f'  - "Continue phase {state.current_phase}: {state.next_step} (plan revision {state.plan_revision})"',
        '  - "Run the quality gate when every agent of the phase is COMPLETE."',
        "",
        "resumption:",
        "  recovery_state:",
        f'    last_checkpoint: "{state.latest_checkpoint}"',
        f"    current_phase: {state.current_phase}",
        f'    workflow_status: "{state.workflow_status}"',
        f'    current_activity: "{state.activity}"',
        f'    next_step: "{state.next_step}"',
        f'    updated_at: "{state.updated_at}"',
        "  files_to_read:",
        '    - path: "ORCHESTRATION.yaml"',
        "      priority: 1",
        '      purpose: "Machine-readable workflow state. Read the resumption section first."',
        '    - path: "ORCHESTRATION_PLAN.md"',
        "      priority: 2",
        '      purpose: "Strategic context: agent definitions and phase descriptions."',
        "  compaction_events:",
        "    count: 0",
        "    events: []",
        "",
    ]
    return "\n".join(out)


@dataclass
class History:
    """The versions to commit, their messages, and which commits must be reported stale."""

    versions: list[tuple[str, bytes]]  # (commit message, file content)
    stale: list[int]  # indexes (into versions) of the commits that leave the section stale

    @property
    def commits(self) -> int:
        return len(self.versions)


def generate(commits: int) -> History:
    """``commits`` versions of the file (the first one adds it)."""
    versions: list[tuple[str, bytes]] = []
    stale: list[int] = []
    for index, (message, content, left) in enumerate(evolve(commits)):
        versions.append((message, content))
        if left:
            stale.append(index)
    return History(versions, stale)


def evolve(commits: int, workflow: str = "") -> Iterator[tuple[str, bytes, bool]]:
    """The ``commits`` versions of one file, one at a time (message, content, whether it leaves the
    resumption section stale); ``workflow`` (e.g. ``017``) varies the workflow's ids."""
    if commits < 2:
        raise ValueError("a history needs at least 2 commits")
    changes = commits - 1
    non_state = changes // NON_STATE_EVERY
    base_events = PHASES * (2 + 2 * AGENTS_PER_PHASE + GATE_ITERATIONS)
    progress = max(0, math.ceil((changes - non_state - base_events) / (PHASES * AGENTS_PER_PHASE)))
    events = _events(progress)
    stale_count = max(1, commits // STALE_EVERY)
    state_commits = min(len(events), changes - non_state)
    stale_events = {int((k + 0.5) * state_commits / stale_count) for k in range(stale_count)}

    def text(state: State) -> bytes:
        rendered = render(state)
        if workflow:
            rendered = rendered.replace("bench-20260217-001", f"bench-20260217-{workflow}").replace(
                "PROJ-900-bench", f"PROJ-{workflow}-bench"
            )
        return rendered.encode()

    state = State.initial()
    yield "plan the workflow", text(state), False
    event_index = 0
    for index in range(1, commits):
        now = _iso(START + index * STEP_SECONDS)
        is_plan_edit = index % NON_STATE_EVERY == 0 or event_index >= len(events)
        if is_plan_edit:
            state.plan_revision += 1
            yield f"revise the plan ({state.plan_revision})", text(state), False
            continue
        kind, p, a = events[event_index]
        activity = _apply(state, kind, p, a)
        left = event_index in stale_events  # the state moved; the resumption section is left as it was
        if not left:
            state.activity = activity
            state.next_step = f"After {activity}: continue with the next step of phase {state.current_phase}."
            state.updated_at = now
        event_index += 1
        yield activity, text(state), left


def fast_import_stream(history: History, stamps: list[int] | None = None) -> bytes:
    parts: list[bytes] = []
    for index, (message, content) in enumerate(history.versions):
        blob_mark, commit_mark = 2 * index + 1, 2 * index + 2
        stamp = f"{stamps[index] if stamps else START + index * STEP_SECONDS} +0000"
        msg = message.encode()
        parts += [
            b"blob\n",
            f"mark :{blob_mark}\ndata {len(content)}\n".encode(),
            content,
            b"\n",
            f"commit refs/heads/main\nmark :{commit_mark}\n".encode(),
            f"author {AUTHOR} {stamp}\ncommitter {AUTHOR} {stamp}\n".encode(),
            f"data {len(msg)}\n".encode(),
            msg,
            b"\n",
        ]
        if index:
            parts.append(f"from :{commit_mark - 2}\n".encode())
        parts.append(f"M 100644 :{blob_mark} {FILE_NAME}\n\n".encode())
    return b"".join(parts)


def _git(args: list[str], cwd: Path, stdin: bytes | None = None) -> None:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_TERMINAL_PROMPT": "0"}
    done = subprocess.run(["git", *args], cwd=cwd, input=stdin, capture_output=True, env=env, check=False)
    if done.returncode:
        raise RuntimeError(f"git {args[0]} failed: {done.stderr.decode('utf-8', 'replace').strip()}")


@dataclass
class Repository:
    path: Path
    history: History
    cached: bool  # reused from an earlier run


def _place(building: Path, target: Path, facts: str) -> bool:
    """Check out the history imported into ``building``, record its ``facts`` (``.bench-history.json``, kept
    out of git) and move it to ``target``; False when another run put its own there first."""
    _git(["reset", "-q", "--hard", "main"], building)
    (building / ".git" / "info" / "exclude").write_text(".bench-history.json\n", "utf-8")
    (building / ".bench-history.json").write_text(facts, "utf-8")
    try:
        building.rename(target)
    except OSError:  # another run built it at the same time
        shutil.rmtree(building, ignore_errors=True)
        if not (target / ".bench-history.json").is_file():
            raise
        return False
    return True


def build(commits: int, cache_root: Path = CACHE_ROOT) -> Repository:
    """The repository of a ``commits``-commit history, built (or reused) under ``cache_root``."""
    history = generate(commits)
    return _build(f"history-{commits}", history, fast_import_stream(history), cache_root)


def _build(prefix: str, history: History, stream: bytes, cache_root: Path) -> Repository:
    commits = history.commits
    key = hashlib.sha256(stream).hexdigest()[:16]
    target = cache_root / f"{prefix}-{key}"
    meta = target / ".bench-history.json"
    if meta.is_file() and (target / FILE_NAME).is_file():
        return Repository(target, history, cached=True)
    if target.exists():
        shutil.rmtree(target)
    cache_root.mkdir(parents=True, exist_ok=True)
    building = Path(tempfile.mkdtemp(prefix=f"{prefix}-", dir=cache_root))
    try:
        _git(["init", "-q", "-b", "main", "."], building)
        _git(["fast-import", "--quiet"], building, stdin=stream)
        if not _place(building, target, json.dumps({"commits": commits, "stale": history.stale}, indent=1)):
            return Repository(target, history, cached=True)
    except BaseException:
        shutil.rmtree(building, ignore_errors=True)
        raise
    return Repository(target, history, cached=False)


# A repository of many workflows (bench row "whole-repository audit"): WORKFLOWS files, each changed by
# COMMITS_EACH commits; in each round every workflow moves once, the first SHARED_PAIRS pairs of them in a
# shared commit (two workflows in one commit); the first MOVED workflows are moved from active/ to archive/
# halfway through (a rename with an edit, which the audit must follow).
WORKFLOWS, COMMITS_EACH, QUICK_COMMITS_EACH = 50, 2_000, 40
SHARED_PAIRS = 5
MOVED = 5
WORKFLOW_GLOB = "*ORCHESTRATION*.yaml"


@dataclass
class Monorepo:
    path: Path
    workflows: int
    commits_each: int
    commits: int  # in the repository
    stale: int  # changes that leave a resumption section stale
    cached: bool


def workflow_path(workflow: int, moved: bool) -> str:
    return f"{'archive' if moved else 'active'}/wf-{workflow:03d}/{FILE_NAME}"


def _monorepo_commits(workflows: int, commits_each: int) -> Iterator[tuple[int, list[tuple[str, str, bytes]]]]:
    """Each commit: its number, and its files as (old path, path, content)."""
    histories = [evolve(commits_each, f"{workflow:03d}") for workflow in range(workflows)]
    number = 0
    for round_index in range(commits_each):
        moving = round_index == commits_each // 2
        groups = [[w, w + 1] for w in range(0, min(2 * SHARED_PAIRS, workflows - 1), 2)]
        groups += [[w] for w in range(2 * len(groups), workflows)]
        for group in groups:
            files = []
            for workflow in group:
                _message, content, _left = next(histories[workflow])
                moved = workflow < MOVED and round_index >= commits_each // 2
                old = workflow_path(workflow, moved and not moving)
                files.append((old, workflow_path(workflow, moved), content))
            yield number, files
            number += 1


def _write_monorepo_stream(sink: BinaryIO, workflows: int, commits_each: int) -> tuple[int, int]:
    """Write the fast-import stream of the repository to ``sink``; return (commits, stale changes)."""
    commits = stale = 0
    for number, files in _monorepo_commits(workflows, commits_each):
        stamp = f"{START + number * 60} +0000"
        message = f"commit {number}: {', '.join(path for _old, path, _content in files)}".encode()
        parts = [
            f"commit refs/heads/main\nauthor {AUTHOR} {stamp}\ncommitter {AUTHOR} {stamp}\n".encode(),
            f"data {len(message)}\n".encode(),
            message,
            b"\n",
        ]
        for old, path, content in files:
            if old != path:
                parts.append(f"R {old} {path}\n".encode())
            parts += [f"M 100644 inline {path}\ndata {len(content)}\n".encode(), content, b"\n"]
        sink.write(b"".join(parts) + b"\n")
        commits = number + 1
    for workflow in range(workflows):  # (counted apart: a shared commit may hold two stale changes)
        stale += sum(left for _message, _content, left in evolve(commits_each, f"{workflow:03d}"))
    return commits, stale


def build_monorepo(workflows: int, commits_each: int, cache_root: Path = CACHE_ROOT) -> Monorepo:
    """The repository of ``workflows`` workflows of ``commits_each`` commits each, built (streamed into
    ``git fast-import``) or reused under ``cache_root``; named after this generator's source and sizes."""
    source = Path(__file__).read_bytes()
    key = hashlib.sha256(source + f"{workflows}x{commits_each}".encode()).hexdigest()[:16]
    target = cache_root / f"monorepo-{workflows}x{commits_each}-{key}"
    meta = target / ".bench-history.json"
    if meta.is_file():
        facts = json.loads(meta.read_text("utf-8"))
        return Monorepo(target, workflows, commits_each, facts["commits"], facts["stale"], cached=True)
    if target.exists():
        shutil.rmtree(target)
    cache_root.mkdir(parents=True, exist_ok=True)
    building = Path(tempfile.mkdtemp(prefix="monorepo-", dir=cache_root))
    try:
        _git(["init", "-q", "-b", "main", "."], building)
        env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_TERMINAL_PROMPT": "0"}
        importer = subprocess.Popen(
            ["git", "fast-import", "--quiet"], cwd=building, stdin=subprocess.PIPE, stderr=subprocess.PIPE, env=env
        )
        assert importer.stdin is not None and importer.stderr is not None
        with importer.stdin:
            commits, stale = _write_monorepo_stream(importer.stdin, workflows, commits_each)
        error = importer.stderr.read()
        if importer.wait():
            raise RuntimeError(f"git fast-import failed: {error.decode('utf-8', 'replace').strip()}")
        if not _place(building, target, json.dumps({"commits": commits, "stale": stale})):
            return build_monorepo(workflows, commits_each, cache_root)
    except BaseException:
        shutil.rmtree(building, ignore_errors=True)
        raise
    return Monorepo(target, workflows, commits_each, commits, stale, cached=False)


# The two real lineages of fixtures/corpus/history: every committed version of one file, named
# `<commit time>-<commit>.yaml`; replayed as commits of ORCHESTRATION.yaml (bench rows "History").
CORPUS_HISTORY = Path(__file__).resolve().parent.parent / "fixtures" / "corpus" / "history"
REAL_LINEAGES = ("PROJ-001-oss-release", "PROJ-003-je-ne-sais-quoi")
BIG_COMMITS, QUICK_BIG_COMMITS = 10_000, 200


def lineage(name: str, history_root: Path = CORPUS_HISTORY) -> History:
    """The versions of a real lineage, oldest first (their stale commits are not listed here:
    tests/commands/test_audit_history.py reviews them)."""
    versions = [(path.name, path.read_bytes()) for path in sorted((history_root / name).glob("*.yaml"))]
    if len(versions) < 2:
        raise ValueError(f"{history_root / name} holds fewer than 2 versions")
    return History(versions, [])


def _lineage_stamps(history: History) -> list[int]:
    from datetime import datetime, timezone

    stamps = []
    for name, _content in history.versions:
        when = datetime.strptime(name.split("-")[0], "%Y%m%dT%H%M%SZ").replace(tzinfo=timezone.utc)
        stamps.append(int(when.timestamp()))
    return stamps


def build_lineage(name: str, cache_root: Path = CACHE_ROOT, history_root: Path = CORPUS_HISTORY) -> Repository:
    """A repository whose ORCHESTRATION.yaml goes through the versions of a real lineage (commit
    dates from the file names), built (or reused) under ``cache_root``."""
    history = lineage(name, history_root)
    return _build(f"lineage-{name}", history, fast_import_stream(history, _lineage_stamps(history)), cache_root)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--commits", type=int, default=1000, help="commits in the history (default 1000)")
    parser.add_argument("--cache", type=Path, default=CACHE_ROOT, help=f"cache folder (default {CACHE_ROOT})")
    args = parser.parse_args(argv)
    repo = build(args.commits, args.cache)
    state = "reused" if repo.cached else "built"
    print(f"{repo.path} ({state}): {repo.history.commits} commits of {FILE_NAME}")
    print(f"stale commits expected: {len(repo.history.stale)} (commit numbers {repo.history.stale})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
