"""A013: a compaction that a merge dropped (both branches wrote the same checkpoint name; one side kept)."""

from __future__ import annotations

from pathlib import Path

from ctxres.config import Config
from ctxres.findings import ORIGIN, Finding, Position, Severity
from ctxres.formats.document import Document, format_json_path
from ctxres.linters.checking.merged_checkpoints import dropped, fix_command, merge_sides
from ctxres.linters.checking.registry import register, workspace_check
from ctxres.linters.checking.roots import root_of
from ctxres.linters.checking.severity_policy import Case
from ctxres.state import checkpoints as cp

# `ctxres check` loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:
    from ctxres.linters.checking.engine import Workspace

EVENTS_OWNER = ("resumption", "compaction_events")


class _Fact:
    __slots__ = ("path", "position", "root", "state_dir")

    def __init__(self, path: str, root: Path, state_dir: Path, position: Position) -> None:
        self.path = path
        self.root = root
        self.state_dir = state_dir
        self.position = position


def collect(doc: Document, config: Config) -> tuple[_Fact | None, list[Finding]]:
    """Where each workflow that records compactions keeps its checkpoints."""
    if not doc.fs_path or doc.get(EVENTS_OWNER) is None:
        return None, []
    path = Path(doc.fs_path)
    root = root_of(path)
    return _Fact(
        doc.path, root, cp.find_state_dir(path, root, config.state_dir), doc.locate(EVENTS_OWNER, key=True)
    ), []


# --- A013: compaction-dropped-by-merge ------------------------------------------------------------

COMPACTION_DROPPED_BY_MERGE = register(
    "A013",
    "compaction-dropped-by-merge",
    "A merge kept one of two compactions that two branches recorded under the same checkpoint name.",
    Severity.ERROR,
    case=Case.CONTRADICTION,
    why=(
        "The other branch's compaction is in no file and no event any more: its resumption record is lost, "
        "and the two clones' histories of the workflow contradict each other."
    ),
    explanation="""
    ## Why
    Checkpoint names are numbers (`cx-002.json`), one numbering shared with any other writer of the
    folder, so two teammates who compact on two branches both write `cx-002.json` and both record
    `CX-002`. The merge is an add/add conflict, and its obvious resolution (`git checkout --ours`)
    keeps one compaction and silently drops the other. While a merge is in progress (`MERGE_HEAD`)
    or when `HEAD` is a merge commit, a checkpoint that both sides hold under the same name with
    different content, whose other-side content is now in no checkpoint file, is reported here.

    ## Example
    ```
    git merge feature          # add/add conflict in .jerry/checkpoints/cx-002.json and ORCHESTRATION.yaml
    git checkout --ours .jerry/checkpoints/cx-002.json ORCHESTRATION.yaml
    ```

    ## Fix
    Run `ctxres renumber`: it restores the other side's checkpoint from git under the next free
    number (`cx-003.json`), gives it that id, and appends its compaction event (from the other
    side's resumption section) with `count` updated. `ctxres renumber --dry-run` shows what it does.
    """,
)


@workspace_check(COMPACTION_DROPPED_BY_MERGE, collect=collect)
def check_compaction_dropped_by_merge(ws: Workspace) -> list[Finding]:
    """A013: per checkpoints folder, the other side's compactions that the merge result holds under no name."""
    findings: list[Finding] = []
    by_folder: dict[Path, list[_Fact]] = {}
    for fact in ws.facts_of(__name__):
        by_folder.setdefault(cp.checkpoints_dir(fact.state_dir), []).append(fact)
    sides_of: dict[Path, tuple[str, str, str] | None] = {}  # one git process a repository, not one a folder
    for folder, facts in sorted(by_folder.items()):
        first = min(facts, key=lambda fact: fact.path)
        if first.root not in sides_of:
            sides_of[first.root] = merge_sides(first.root)
        sides = sides_of[first.root]
        if sides is None:
            continue
        for item in dropped(first.root, folder, sides):
            mine, theirs = item.times()
            shown = cp.relative_reference(folder / item.name, first.root)
            findings.append(
                Finding(
                    first.path,
                    COMPACTION_DROPPED_BY_MERGE.code,
                    f"the merge dropped a compaction: both sides wrote {shown}; this side's (compacted at {mine}) "
                    f"was kept and the one of {item.other_label} (compacted at {theirs}) is in no file",
                    COMPACTION_DROPPED_BY_MERGE.severity,
                    first.position if first.position is not None else ORIGIN,
                    format_json_path(EVENTS_OWNER),
                    f"run `{fix_command()}` to keep both: it restores the other one under the next free number "
                    "with its compaction event",
                )
            )
    return findings
