"""Comparing versions of an orchestration file across git: which commits moved the workflow state
without updating the resumption section (the comparison itself is :mod:`ctxres.statediff`).

Shared by ``ctxres stale`` (staged changes and ``--since``), ``ctxres audit-history`` and rule S013
(``ctxres check --since``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ctxres import git
from ctxres.artifacts import RESUMPTION_KEY, YAML_SUFFIXES
from ctxres.config import Config
from ctxres.document import Document, JsonPath
from ctxres.globs import is_ignored, parse_ignore
from ctxres.loading import DEFAULT_MAX_BYTES, Format, decode, parse_text
from ctxres.staleness import utc_now
from ctxres.statediff import Move, Staleness, assess

if TYPE_CHECKING:
    from collections.abc import Callable

MAX_MOVES_SHOWN = 10


@dataclass(frozen=True)
class Comparison:
    """The verdict on one version of one file compared with the previous one."""

    path: str
    staleness: Staleness | None
    document: Document | None
    commit: git.Commit | None = None
    note: str = ""


def now_utc() -> str:
    return utc_now().strftime("%Y-%m-%dT%H:%M:%SZ")


# Consecutive comparisons share a version (audit-history compares each commit with its parent, so
# every version is the new side of one pair and the old side of the next): parse it once. The
# parsed Document is only read, never modified.
@lru_cache(maxsize=8)
def _parse(path: str, raw: bytes) -> Document | None:
    text, _issue = decode(raw)
    if text is None:
        return None
    return parse_text(path, "orchestration", Format.YAML, text).document


def compare_versions(
    path: str, old: bytes | None, new: bytes | None, *, example_time: str = "", commit: git.Commit | None = None
) -> Comparison | None:
    """Compare two versions of a file; None when there is nothing to compare (a new or deleted file,
    or no top-level ``resumption:`` section in the new version)."""
    if isinstance(new, git.Oversized) and old is not None:
        return Comparison(
            path, None, None, commit, f"not compared: this version is {new.size:,} bytes, too large to read"
        )
    if old is None or new is None or not RESUMPTION_KEY.search(new):
        return None
    new_doc = _parse(path, new)
    if new_doc is None:
        return Comparison(
            path, None, None, commit, "not compared: this version is not valid YAML (`ctxres check` says why)"
        )
    old_doc = _parse(path, old)
    if old_doc is None:
        return Comparison(path, None, new_doc, commit, "not compared: the previous version is not valid YAML")
    staleness = assess(old_doc.data, new_doc.data, example_time=example_time, locate=_locator(new_doc))
    return Comparison(path, staleness, new_doc, commit)


def _locator(doc: Document) -> Callable[[JsonPath], int]:
    """The line of a path in ``doc`` (of its key; the nearest ancestor when it is absent)."""
    return lambda path: doc.locate(path, key=True).line


def _line(doc: Document | None, path: JsonPath, *, key: bool = False) -> int:
    return doc.locate(path, key=key).line if doc is not None else 1


def move_line(comparison: Comparison, move: Move) -> int:
    """The line of a move in the new version (for a removed key, of its unit, else of its nearest ancestor)."""
    return move.line if move.line is not None else _line(comparison.document, move.path)


def _stale_path(staleness: Staleness) -> JsonPath:
    return ("resumption", "recovery_state", "updated_at") if staleness.version == "2.0" else ("resumption",)


def stale_line(comparison: Comparison) -> int:
    """The line of the stale part of the section (``updated_at``, or the section for v1.0)."""
    assert comparison.staleness is not None
    return _line(comparison.document, _stale_path(comparison.staleness), key=True)


def render_text(comparison: Comparison, moved_between: str, after_fix: str) -> list[str]:
    """The lines that explain one blocked change (``moved_between`` is e.g. "HEAD -> staged")."""
    staleness = comparison.staleness
    assert staleness is not None
    path = comparison.path
    count = len(staleness.moves)
    noun = "value" if count == 1 else "values"
    lines = [f"  {count} state-bearing {noun} moved ({moved_between}):"]
    for move in staleness.moves[:MAX_MOVES_SHOWN]:
        lines.append(f"    {path}:{move_line(comparison, move)}: {move.describe()}")
    if count > MAX_MOVES_SHOWN:
        lines.append(f"    ... and {count - MAX_MOVES_SHOWN} more")
    lines.append(f"  stale: {path}:{stale_line(comparison)}: {staleness.stale}")
    lines.append(f"  fix: {staleness.fix}{after_fix}")
    return lines


def as_json(comparison: Comparison) -> dict[str, Any]:
    staleness = comparison.staleness
    out: dict[str, Any] = {"path": comparison.path}
    if comparison.commit is not None:
        out.update(commit=comparison.commit.short, sha=comparison.commit.sha, date=comparison.commit.date)
    if staleness is None:
        return out
    out["resumption_version"] = staleness.version
    out["moved"] = [{**move.as_json(), "line": move_line(comparison, move)} for move in staleness.moves]
    out["stale"] = staleness.stale
    out["stale_line"] = stale_line(comparison)
    out["fix"] = staleness.fix
    return out


def _excluded(path: str, config: Config) -> bool:
    rules = parse_ignore([*config.exclude, *config.extend_exclude])
    parts = path.split("/")
    return any(is_ignored("/".join(parts[: i + 1]), i < len(parts) - 1, rules) for i in range(len(parts)))


def is_candidate(change: git.Change, config: Config) -> bool:
    return (
        not change.added
        and not change.deleted
        and change.path.endswith(YAML_SUFFIXES)
        and not _excluded(change.path, config)
    )


def check_range(since: str, files: list[Path], root: Path, config: Config) -> list[Comparison]:
    """Each change to an orchestration file in the commits of ``since..HEAD`` (limited to ``files``
    when given: files or folders), compared with the version before it. :class:`git.GitError` when
    ``since`` names no commit."""
    git.resolve_commit(since, root)
    only = [git.repo_path(given, root) for given in files]
    only = [] if "" in only or "." in only else only  # the repository's top folder: everything
    commits = git.log([f"{since}..HEAD"], root, only or None)
    pairs: list[tuple[git.Commit, git.Change]] = [
        (commit, change)
        for commit in commits
        if commit.parents
        for change in commit.changes
        if is_candidate(change, config) or (only and change.path in only and not change.added and not change.deleted)
    ]
    return [result for result in compare_commits(pairs, root) if result is not None]


def compare_commits(
    pairs: list[tuple[git.Commit, git.Change]], root: Path, shown: str | None = None
) -> list[Comparison | None]:
    """Each change of each commit compared with the version before it (in the commit's first parent,
    under the file's old name when it was renamed); the one comparison behind ``stale --since``,
    ``check --since`` (S013) and ``audit-history``. ``shown`` is the path to print (default: the
    path in the commit). A version larger than ``DEFAULT_MAX_BYTES`` is not read."""
    specs = [
        spec
        for commit, change in pairs
        for spec in (f"{commit.parents[0]}:{change.old_path}", f"{commit.sha}:{change.path}")
    ]
    blobs = git.read_blobs(specs, root, max_bytes=DEFAULT_MAX_BYTES)
    return [
        compare_versions(
            shown or change.path, blobs[2 * index], blobs[2 * index + 1], example_time=commit.date, commit=commit
        )
        for index, (commit, change) in enumerate(pairs)
    ]
