"""Checking a file as part of its unit: the files the rules compare it with.

pre-commit passes only the changed files, but some rules compare several files: a checkpoint with the
compaction events of the workflow that owns its state folder (the A rules), an event log with the task
graph and the other logs of its agent-memory run (the M rules). When a file named on the command line
belongs to such a unit, the other files of the unit are read with it, so that the rules comparing files
run as they do on the whole folder. They are only compared with: ``ctxres check FILE`` reports the findings
located in the named files, and of the findings located in a member only those about a named file (a
workflow's event that disagrees with the named checkpoint, a checkpoint no event records: the finding's
``related`` files); a member's own old problems do not fail a commit that did not touch it. The members
are found as ``ctxres check`` on their folder finds them (excludes and ignore rules apply).

* A checkpoint or the context monitor state in a state folder (``.jerry``), or a workflow file whose
  state folder exists: every workflow file whose state folder it is, and the checkpoints of that folder.
* A task graph: the event logs of its run (a task removed from the graph makes their events unknown).
  An event log brings nothing: the M rules read the rest of its run from the disk for context, and
  report only in the logs checked (a committed line of another log cannot be changed: logs are
  append-only).

The Nexus files (``resume-context.md``, ``precompact_state.json``) need nothing added: the N rules read
the files they compare them with (the legacy ``_resume.md``, the files a manifest lists) from the disk.
"""

from __future__ import annotations

from pathlib import Path

from ctxres import agent_memory as am
from ctxres.config import Config
from ctxres.linters.checking import roots
from ctxres.linters.checking.discovery import Artifact, discover
from ctxres.state import checkpoints as cp

STATE_KINDS = frozenset({"orchestration", "checkpoint", "monitor-state"})
RUN_KINDS = frozenset({"task-graph", "event-log"})


def workflow_state_dir(path: Path, config: Config) -> Path:
    """The state folder a workflow file records the compactions of (as the A rules find it; its project
    root remembered per folder, as a check remembers it)."""
    return cp.find_state_dir(path, roots.root_of(path), config.state_dir)


def _enclosing_state_dir(path: Path, config: Config) -> Path | None:
    """The state folder a checkpoint or monitor state sits in (the nearest folder named ``state-dir``)."""
    for folder in path.resolve().parents:
        if folder.name == config.state_dir:
            return folder
    return None


def _state_dir(artifact: Artifact, config: Config) -> Path | None:
    if artifact.kind == "orchestration":
        state = workflow_state_dir(artifact.path, config)
        return state if state.is_dir() else None
    return _enclosing_state_dir(artifact.path, config)


def unit_members(explicit: list[Artifact], config: Config, cwd: Path) -> list[Artifact]:
    """The other files of the units the ``explicit`` artifacts belong to (may repeat them)."""
    roots.forget()  # the project markers as they are now, not as an earlier check in this process saw them
    states: set[Path] = set()
    runs: set[Path] = set()
    for artifact in explicit:
        if artifact.kind in STATE_KINDS:
            state = _state_dir(artifact, config)
            if state is not None:
                states.add(state)
        elif artifact.kind == "task-graph":
            runs.add(Path(am.run_directory(str(artifact.path.resolve()))))
    members: list[Artifact] = []
    if states:
        folders = sorted({state.parent for state in states})
        checkpoint_dirs = {cp.checkpoints_dir(state) for state in states}
        members += [
            artifact
            for artifact in discover(folders, config, cwd)
            if _in_state_unit(artifact, states, checkpoint_dirs, config)
        ]
    if runs:
        members += [artifact for artifact in discover(sorted(runs), config, cwd) if _run_of(artifact) in runs]
    return members


def _in_state_unit(artifact: Artifact, states: set[Path], checkpoint_dirs: set[Path], config: Config) -> bool:
    """Whether a file found near the units belongs to one: a workflow file whose state folder is one of
    ``states``, or a checkpoint in one of their ``checkpoint_dirs`` (one lookup, whatever their number:
    pre-commit may name thousands of files at once)."""
    if artifact.kind == "orchestration":
        return workflow_state_dir(artifact.path, config) in states
    if artifact.kind == "checkpoint":
        return artifact.path.resolve().parent in checkpoint_dirs
    return False


def _run_of(artifact: Artifact) -> Path | None:
    return Path(am.run_directory(str(artifact.path.resolve()))) if artifact.kind in RUN_KINDS else None
