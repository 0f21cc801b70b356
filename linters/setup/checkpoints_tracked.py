"""Whether git keeps the checkpoint files: they are the resumption record, committed so that teammates
receive the checkpoints that acknowledged compaction events point at.

A repository often ignores the whole state folder (``.jerry/`` in its ``.gitignore``) before it adopts
ctxres. git cannot re-include a file whose parent folder is excluded, so ``!.jerry/checkpoints/`` after
``.jerry/`` does nothing: the line must become ``/.jerry/*`` (the folder's entries, not the folder)
followed by ``!/.jerry/checkpoints/``; a line without a leading or middle ``/`` also ignored the state
folders of sub-folders (``src/.jerry/``), so it becomes ``**/.jerry/*``, which still does. ``ctxres init``
makes that change when the ignoring line is the state folder itself in the repository's own
``.gitignore``; otherwise it, and ``ctxres doctor``, say which line ignores them and what to write instead.

A team may ignore that folder because its own tool keeps checkpoints there (``cx-NNN.json``, another
layout). Un-ignoring the folder would make git see that tool's files, which are not ours to commit: when
the ignored checkpoints folder holds a file that is not ours by content, ``init`` leaves the line as it
is, and it and the doctor say that ctxres's checkpoints then stay on each machine (and how to commit one).
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from ctxres.config import Config
from ctxres.linters.rules.layers import MISCONFIGURED, PRESENT, Layer
from ctxres.linters.setup.precommit_setup import run_git
from ctxres.state import checkpoints as cp

LAYER = "git keeps"  # the row of `ctxres doctor` (no longer than the other layers' names)
SAMPLE = "cx-001.json"  # a checkpoint name: git answers for paths that do not exist yet
_SECONDS = 10.0


@dataclass(slots=True, frozen=True)
class IgnoreRule:
    """The line that makes git ignore a path: the file it is in (as git names it), its line and pattern."""

    source: str
    line: int
    pattern: str

    def __str__(self) -> str:
        return f"{self.source}:{self.line}: {self.pattern}"


def state_folder(config: Config, root: Path) -> str:
    """The state folder relative to the repository, ``/`` separators, no leading ``./``."""
    folder = Path(config.state_dir)
    if not folder.is_absolute():
        folder = config.root / folder
    try:
        relative = os.path.relpath(folder, root)
    except ValueError:
        return PurePosixPath(config.state_dir).as_posix()
    return PurePosixPath(relative.replace(os.sep, "/")).as_posix()


def checkpoint_sample(config: Config, root: Path) -> str:
    """A checkpoint path in the state folder, relative to the repository."""
    return f"{state_folder(config, root)}/checkpoints/{SAMPLE}"


def ignoring_rule(root: Path, relpath: str) -> tuple[bool, IgnoreRule | None]:
    """Whether ``root`` is in a git work tree, and the rule that makes git ignore ``relpath`` (tracked or
    not; None when git keeps it)."""
    try:
        done = run_git(["check-ignore", "--verbose", "--no-index", "--", relpath], root, _SECONDS)
    except (OSError, subprocess.TimeoutExpired):
        return False, None
    if done.returncode not in (0, 1):  # 128: not a git repository
        return False, None
    if done.returncode == 1 or not done.stdout.strip():
        return True, None
    where, _, _ = done.stdout.strip().partition("\t")
    source, line, pattern = where.rsplit(":", 2) if where.count(":") >= 2 else (where, "0", "")
    if pattern.startswith("!"):  # a negation matched: the path is kept
        return True, None
    return True, IgnoreRule(source, int(line) if line.isdigit() else 0, pattern)


def folder_patterns(folder: str) -> set[str]:
    """The ways a ``.gitignore`` at the repository root writes "the whole folder" (``.jerry``, ``/.jerry/``,
    ``.jerry/**``, ...)."""
    forms = {folder, folder + "/", folder + "/**", folder + "/**/"}
    return forms | {"/" + form for form in forms}


def fixed_gitignore(text: str, rule: IgnoreRule, folder: str) -> str | None:
    """The root ``.gitignore`` with the line that ignores the whole state folder replaced by one that
    ignores its entries but the checkpoints; None when the rule is not such a line."""
    if rule.source != ".gitignore" or rule.pattern.strip() not in folder_patterns(folder):
        return None
    lines = text.splitlines(keepends=True)
    index = rule.line - 1
    if not 0 <= index < len(lines) or lines[index].strip() != rule.pattern.strip():
        return None
    ending = "\n" if lines[index].endswith("\n") or index + 1 < len(lines) else ""
    lines[index] = f"{_entries(rule.pattern, folder)}\n!/{folder}/checkpoints/{ending}"
    return "".join(lines)


def _entries(pattern: str, folder: str) -> str:
    """The line that ignores the entries of the state folder wherever ``pattern`` ignored the folder: a pattern
    without a leading or middle ``/`` matched it in every sub-folder too (``src/.jerry/``), and still does."""
    anchored = "/" in pattern.strip().rstrip("/") or "/" in folder.strip("/")
    return f"/{folder}/*" if anchored else f"**/{folder}/*"


def replacement(folder: str, pattern: str = "") -> str:
    """What to write instead of a line (``pattern``) that ignores the whole state folder."""
    return f"`{_entries(pattern, folder)}` followed by `!/{folder}/checkpoints/`"


def foreign_checkpoints(root: Path, config: Config) -> list[str]:
    """The checkpoint files of the state folder that are not ours by content (another tool's layout, or
    not readable as a checkpoint), as paths relative to ``root``."""
    folder = state_folder(config, root)
    found = []
    for path in cp.list_checkpoints(root / folder):
        try:
            ours = cp.read(path).layout == cp.SEED
        except cp.CheckpointError:
            ours = False
        if not ours:
            found.append(f"{folder}/checkpoints/{path.name}")
    return found


def kept_local(rule: IgnoreRule, folder: str, foreign: list[str]) -> str:
    """What it means that git ignores the checkpoints folder where another tool keeps its own files."""
    shown = ", ".join(name.rsplit("/", 1)[-1] for name in foreign[:3]) + (", ..." if len(foreign) > 3 else "")
    return (
        f"git ignores {folder}/checkpoints/ ({rule}), where another tool's checkpoints ({shown}) are kept: the "
        "line is left as it is, so ctxres's checkpoints stay on each machine too; to commit one, "
        f"`git add -f {folder}/checkpoints/cx-NNN.json` after `ctxres ack`"
    )


def check_checkpoints_tracked(root: Path, config: Config) -> Layer | None:
    """A row saying whether git keeps the checkpoints; None outside a git repository."""
    in_git, rule = ignoring_rule(root, checkpoint_sample(config, root))
    if not in_git:
        return None
    folder = state_folder(config, root)
    if rule is None:
        return Layer(LAYER, PRESENT, f"git keeps {folder}/checkpoints/ (committed: the resumption record)")
    foreign = foreign_checkpoints(root, config)
    if foreign:  # the team's choice for its own tool's files: not a failure
        return Layer(LAYER, PRESENT, kept_local(rule, folder, foreign))
    fix = (
        f"ctxres init --only gitignore (replaces `{rule.pattern}` with {replacement(folder, rule.pattern)})"
        if fixed_gitignore(_read(root / ".gitignore"), rule, folder) is not None
        else f"change {rule} so that git keeps {folder}/checkpoints/ (for a folder pattern: {replacement(folder)})"
    )
    return Layer(
        LAYER,
        MISCONFIGURED,
        f"git ignores {folder}/checkpoints/ ({rule}): teammates never receive the checkpoints that the "
        "compaction events of the workflows point at",
        fix,
        rule.source if not os.path.isabs(rule.source) else ".gitignore",
    )


def _read(path: Path) -> str:
    try:
        return path.read_text("utf-8")
    except (OSError, UnicodeDecodeError):
        return ""
