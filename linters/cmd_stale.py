"""``ctxres stale``: block a commit that moves the workflow state of an ORCHESTRATION file without
updating its resumption section.

* As the pre-commit hook ``ctxres-stale`` (``ctxres stale [FILES...]``): each staged
  orchestration file (the FILES pre-commit passes, else every staged YAML file with a top-level
  ``resumption:`` section) is compared with HEAD.
* In CI (``ctxres stale --since REF``): every commit of ``REF..HEAD`` that changes an
  orchestration file is compared with its parent.

What counts as "the state moved" and "the section moved" is defined (and justified) in
:mod:`ctxres.statediff`. A new file, a deleted file and a file without a resumption section are
never blocked. Exit status: 0 clean, 1 blocked, 2 usage error (not a git repository, bad ref).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ctxres import git
from ctxres.artifacts import RESUMPTION_KEY, YAML_SUFFIXES
from ctxres.config import Config, load_config
from ctxres.document import Document, JsonPath
from ctxres.findings import Finding
from ctxres.globs import is_ignored, parse_ignore
from ctxres.linters.reporters import add_format_option, print_findings
from ctxres.loading import DEFAULT_MAX_BYTES, Format, decode, parse_text
from ctxres.staleness import utc_now
from ctxres.statediff import Move, Staleness, assess

if TYPE_CHECKING:
    from collections.abc import Callable

EXIT_OK, EXIT_BLOCKED, EXIT_USAGE = 0, 1, 2
MAX_MOVES_SHOWN = 10


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "stale",
        help="block commits that move the workflow state without updating the resumption section",
        description="Compare each staged ORCHESTRATION file with HEAD (or, with --since, each commit of "
        "REF..HEAD with its parent). When a state-bearing part moved (the workflow, pipeline, phase, task, "
        "agent or execution-group status, a quality gate's iteration or score, a checkpoint; a state key added "
        "to or removed from a unit counts too) and the resumption "
        "section did not (v2.0: recovery_state.updated_at did not advance; v1.0, or v2.0 without updated_at: the "
        "section is unchanged), "
        "print what moved and how to fix it, and exit 1. Comments, whitespace, prose, metrics and "
        "next_actions never block; neither does a new file. This is the pre-commit hook `ctxres-stale`.",
        epilog="Exit status: 0 clean, 1 blocked, 2 usage error (not a git repository, unknown revision).",
    )
    parser.add_argument(
        "files",
        nargs="*",
        type=Path,
        metavar="FILE",
        help="orchestration files to check (default: every staged YAML file with a resumption section)",
    )
    parser.add_argument(
        "--since",
        metavar="REF",
        help="check every commit in REF..HEAD instead of the staged changes (for CI); FILES, if given, "
        "limit it to those files",
    )
    add_format_option(parser, "how to print the result (github: annotations, sarif: code scanning; both S013)")
    parser.set_defaults(handler=run)


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


def _candidate(change: git.Change, config: Config) -> bool:
    return (
        not change.added
        and not change.deleted
        and change.path.endswith(YAML_SUFFIXES)
        and not _excluded(change.path, config)
    )


def _staged_targets(files: list[Path], root: Path, config: Config) -> list[git.Change]:
    staged = {change.path: change for change in git.staged_changes(root)}
    if not files:
        return [change for change in staged.values() if _candidate(change, config)]
    targets = []
    for given in files:
        rel = git.repo_path(given, root)
        change = staged.get(rel, git.Change("M", rel, rel))
        if not change.added and not change.deleted and rel.endswith(YAML_SUFFIXES):
            targets.append(change)
    return targets


def _check_index(args: argparse.Namespace, root: Path, config: Config) -> list[Comparison]:
    if not git.has_commits(root):
        return []  # the first commit: every file is new
    targets = _staged_targets(args.files, root, config)
    specs = [spec for change in targets for spec in (f":{change.path}", f"HEAD:{change.old_path}")]
    blobs = git.read_blobs(specs, root, max_bytes=DEFAULT_MAX_BYTES)  # a hostile 100 MB file is not read
    now = now_utc()
    results = []
    for index, change in enumerate(targets):
        shown = Path(os.path.relpath(root / change.path)).as_posix()  # as the user would type it here
        result = compare_versions(shown, blobs[2 * index + 1], blobs[2 * index], example_time=now)
        if result is not None:
            results.append(result)
    return results


def _check_range(args: argparse.Namespace, root: Path, config: Config) -> list[Comparison]:
    return check_range(args.since, args.files, root, config)


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
        if _candidate(change, config) or (only and change.path in only and not change.added and not change.deleted)
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


def _print_text(results: list[Comparison], range_mode: bool) -> None:
    blocked = [r for r in results if r.staleness is not None]
    _print_notes(results)
    for result in blocked:
        if range_mode and result.commit is not None:
            short = result.commit.short
            head, between = f"{short} {result.commit.date} {result.path}", f"{short}^ -> {short}"
            after = f" (in commit {short} itself: `git rebase -i {short}^`, mark it `edit`, amend it)"
        else:
            head, between = result.path, "HEAD -> staged"
            after = f", then stage the file again (`git add {result.path}`)"
        print(f"{head}: blocked: the workflow state moved but the resumption section did not")
        print("\n".join(render_text(result, between, after)))
    count = len(results)
    if range_mode:
        counted = "1 change to an orchestration file" if count == 1 else f"{count} changes to orchestration files"
    else:
        counted = "1 staged orchestration file" if count == 1 else f"{count} staged orchestration files"
    if blocked:
        verb = "leaves" if len(blocked) == 1 else "leave"
        print(f"ctxres stale: {len(blocked)} of {counted} {verb} the resumption section stale.")
    else:
        print(f"ctxres stale: resumption sections are up to date ({counted} checked).")


def findings(results: list[Comparison], root: Path, range_mode: bool) -> list[Finding]:
    """S013 for every blocked change, at the stale part of its section (paths relative to here)."""
    from ctxres.linters.history import stale_finding  # history (the S013 rule) imports this module

    found = []
    for result in results:
        if result.staleness is None:
            continue
        if range_mode:
            shown = Path(os.path.relpath(root / result.path)).as_posix()
            found.append(stale_finding(result, shown))
        else:
            found.append(stale_finding(result, result.path, f", then stage the file again (`git add {result.path}`)"))
    return found


def _print_notes(results: list[Comparison]) -> None:
    for result in results:
        if result.note:
            where = f"{result.commit.short} " if result.commit else ""
            print(f"ctxres stale: {where}{result.path}: {result.note}", file=sys.stderr)


def run(args: argparse.Namespace) -> int:
    try:
        root = git.repo_root(Path.cwd())
        config = load_config(root)
        results = _check_range(args, root, config) if args.since is not None else _check_index(args, root, config)
    except git.GitError as exc:
        print(f"ctxres stale: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.output_format == "json":
        payload = {
            "checked": len(results),
            "blocked": [as_json(r) for r in results if r.staleness is not None],
            "not_compared": [{**as_json(r), "note": r.note} for r in results if r.note],
        }
        print(json.dumps(payload, indent=2, ensure_ascii=False))
    elif args.output_format == "text":
        _print_text(results, args.since is not None)
    else:
        _print_notes(results)
        print_findings(args.output_format, findings(results, root, args.since is not None), len(results))
    return EXIT_BLOCKED if any(r.staleness is not None for r in results) else EXIT_OK
