"""S013: a commit in a range moved the workflow state without updating the resumption section.

Reported by ``ctxres check --since REF`` only (it needs the git history, not the files on disk):
the same comparison as ``ctxres stale --since REF`` (see :mod:`ctxres.state.statediff`), turned into
findings so that the range check prints through the usual reporters (text, json, github, sarif).
"""

from __future__ import annotations

import os
from pathlib import Path

from ctxres.config import Config
from ctxres.findings import Finding, Position, Severity
from ctxres.linters.checking.progress import Progress
from ctxres.linters.checking.registry import register
from ctxres.linters.checking.severity_policy import Case

# `ctxres check` loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:  # the comparison of versions and git are imported for `check --since` only
    from ctxres.linters.checking.commit_comparison import Comparison

STALE_IN_HISTORY = register(
    "S013",
    "state-moved-in-history",
    "A commit moved the workflow state without updating the resumption section (`ctxres check --since REF`).",
    Severity.ERROR,
    case=Case.WRONG_RESUMPTION,
    why="A commit moved the state without its section: anyone resuming from that commit resumes from an older state.",
    explanation="""
    ## Why
    The resumption section of an ORCHESTRATION file is what a session reads after its context was
    compacted. Every commit that moves the workflow state (a phase or agent status, a quality
    gate's score or iteration, a new checkpoint) must update the section in the same commit, or a
    session that resumes from that commit is told an older story. The pre-commit hook
    `ctxres-stale` blocks such a commit on the developer's machine; this rule finds the ones that
    reached a branch anyway (the hook was skipped, or the commit came from elsewhere).

    It runs only when `ctxres check` is given `--since REF` (in CI, e.g. `--since origin/main`):
    each commit of `REF..HEAD` that changed an orchestration file is compared with its parent.
    Line numbers are those of the file *in that commit*, which the message names. The clone must
    hold those commits and their parents: in a shallow clone that lacks them (the default
    checkout of most CI services), the check stops with exit 2 and says so; in GitHub Actions,
    check out with `fetch-depth: 0`.

    ## Example
    A commit changes

    ```yaml
    pipelines:
      main:
        phases:
          - {id: 2, status: "IN_PROGRESS"}   # was PENDING
    resumption:
      recovery_state:
        updated_at: "2026-02-18T10:00:00Z"     # unchanged
    ```

    ## Fix
    Update the resumption section in the commit that moved the state: its `recovery_state`
    (`updated_at`, the current phase, the next step). A commit already pushed cannot be changed
    without rewriting history; update the section in a new commit, and make sure the pre-commit
    hook `ctxres-stale` runs for everyone (`ctxres doctor` checks it).
    """,
)


def stale_finding(comparison: Comparison, shown: str, fix_suffix: str = "") -> Finding:
    """S013 for one blocked comparison, at the stale part of the section; ``shown`` is the path to
    print. A comparison without a commit is a staged change (``ctxres stale``)."""
    from ctxres.linters.checking.commit_comparison import stale_line

    staleness, commit = comparison.staleness, comparison.commit
    assert staleness is not None
    moves = staleness.moves
    first = moves[0].describe() if moves else "the state"
    more = f" and {len(moves) - 1} more state-bearing values" if len(moves) > 1 else ""
    if commit is not None:
        where = f"commit {commit.short} ({commit.date})"
        after = f" (line of the file in {commit.short})"
    else:
        where, after = "the staged version", ""
    return Finding(
        path=shown,
        code=STALE_IN_HISTORY.code,
        message=f"{where} moved {first}{more}, but the resumption section stayed stale: {staleness.stale}{after}",
        severity=STALE_IN_HISTORY.severity,
        position=Position(stale_line(comparison), 1),
        fix=f"{staleness.fix}{fix_suffix}",
    )


def _finding(comparison: Comparison, cwd: Path, root: Path) -> Finding:
    return stale_finding(comparison, Path(os.path.relpath(root / comparison.path, cwd)).as_posix())


def range_findings(since: str, paths: list[Path], config: Config, cwd: Path | None = None) -> list[Finding]:
    """S013 for every commit of ``since..HEAD`` (touching ``paths``) that left a section stale.

    :class:`ctxres.git.GitError` when the paths are not in a git repository or ``since`` names no
    commit; :class:`ctxres.git.ShallowClone` when the range needs history a shallow clone lacks."""
    from ctxres import git
    from ctxres.linters.checking.commit_comparison import check_range

    here = cwd or Path.cwd()
    start = paths[0] if paths else here
    root = git.repo_root(start if start.is_dir() else start.parent)
    with Progress("check --since", "changes") as progress:
        comparisons = check_range(since, paths, root, config, progress)
    return [_finding(c, here, root) for c in comparisons if c.staleness is not None and c.commit is not None]
