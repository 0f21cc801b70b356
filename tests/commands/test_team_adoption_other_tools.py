"""A team adopts ctxres on a repository that also holds other tools' files with our names: a monorepo task
runner's `task-graph.json`, a planning tool's, handoff notes called `resume-context.md`, and design documents
that quote L2-REINJECT markers. None of them is ours: `init` sizes the budget from the rule files alone, and
real pre-commit lets commits that change them through; a real run's graph with a missing key is still
blocked. Real git and real pre-commit, offline."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from ..conftest import FIXTURES
from ..git_sandbox import executable
from ..team_repository import Clone, team_repository

OTHER_GRAPHS = FIXTURES / "rules" / "C001" / "good-other-tools-task-graphs"
HANDOFF = FIXTURES / "rules" / "P008" / "good-handoff-notes" / "resume-context.md"
QUOTE = (
    "# Design {n}: the rule markers\n\nThe marker we ship:\n\n"
    '<!-- L2-REINJECT: rank=2, tokens=90, content="{content}" -->\n'
)
CONTENT = "Quality gate: every deliverable is scored by the rubric before any review starts. " * 4
RUN_GRAPH = ".agent-memory/runs/20260301-0900-invoice-export/task-graph.json"


@pytest.fixture(scope="module")
def alice(tmp_path_factory: pytest.TempPathFactory) -> Clone:
    base = tmp_path_factory.mktemp("team-other-tools")
    work = team_repository(base / "before")
    for path in sorted(OTHER_GRAPHS.rglob("task-graph.json")):
        work.write(path.relative_to(OTHER_GRAPHS).as_posix(), path.read_text("utf-8"))
    work.write("docs/handoff/resume-context.md", HANDOFF.read_text("utf-8"))
    for n in range(12):  # about 1,000 tokens of quoted markers: over the budget, had they counted
        work.write(f"docs/design/d{n:02}.md", QUOTE.format(n=n, content=CONTENT))
    work.git("add", ".")
    work.git("commit", "-q", "-m", "other tools' files")
    clone = Clone(base / "alice" / "repo", Path(executable("ctxres")).parent)
    subprocess.run(["git", "clone", "-q", str(work.root), str(clone.root)], check=True, env=clone.env)
    return clone


def _budget(output: str) -> tuple[int, int]:
    """(the budget init set, what the markers measure with the reminder), from init's stdout."""
    match = re.search(r"set reinject-budget = (\d+): the rule files' markers measure (\d+) tokens", output)
    assert match, output
    return int(match.group(1)), int(match.group(2))


def test_other_tools_files_stay_theirs_through_adoption(alice: Clone) -> None:
    listed = alice.run("ctxres", "check", "--list-files", ".")
    assert listed.returncode == 0, listed.stderr
    assert "task-graph" not in listed.stdout and "resume-context" not in listed.stdout
    assert "docs/design" not in listed.stdout  # quoted markers: not rule files
    skipped = [line for line in listed.stderr.splitlines() if line.startswith("ctxres: skipped ")]
    assert len(skipped) == 4, listed.stderr  # three task graphs and the handoff notes, each with its reason

    init = alice.run("ctxres", "init")
    assert init.returncode == 0, init.stdout + init.stderr
    # the team's rule files spend more than the budget: raised to what they (and the reminder) measure,
    # the design documents' quoted markers not counted; the reminder at rank 11 (the documents' rank 2 is text)
    budget, measured = _budget(init.stdout)
    assert measured < 1000 and budget == -(-measured // 50) * 50, init.stdout
    assert "rank 11" in init.stdout, init.stdout
    assert alice.run("ctxres", "baseline").returncode in (0, 1)
    alice.git("add", "-A")
    adopted = alice.commit("Adopt ctxres")
    assert adopted.returncode == 0, adopted.stdout + adopted.stderr

    # A commit that changes the other tools' files goes through pre-commit's ctxres hooks untouched.
    graph = (alice.root / "tools" / "prd" / "task-graph.json").read_text("utf-8")
    alice.write("tools/prd/task-graph.json", graph.replace('"pending"', '"done"'))
    alice.write("docs/handoff/resume-context.md", HANDOFF.read_text("utf-8") + "\nProduction went out.\n")
    alice.write("docs/design/d00.md", QUOTE.format(n=0, content=CONTENT.upper()))
    alice.git("add", "-A")
    theirs = alice.commit("tools: the export task is done; handoff notes")
    assert theirs.returncode == 0, theirs.stdout + theirs.stderr

    # The near miss: a real run's graph with a task without a title is ours, and blocked.
    alice.write(RUN_GRAPH, '{"tasks": [{"id": "T001", "dependencies": []}]}\n')
    alice.git("add", "-A")
    ours = alice.commit("run: the invoice export")
    assert ours.returncode != 0, ours.stdout + ours.stderr
    assert f"{RUN_GRAPH}:1:12: C001" in ours.stdout + ours.stderr, ours.stdout + ours.stderr
