"""``ctxres audit-history``: list every commit in a file's git history that the ``ctxres-stale``
pre-commit hook would have blocked (the workflow state moved, the resumption section did not).

With FILEs, the history of each follows renames (``git log --follow``, one walk per file). Without,
every orchestration file of the history is audited in one walk (one ``git log --raw -M``, renames
followed across the whole history: :mod:`ctxres.linters.checking.file_histories`), the files picked
as ``ctxres check`` picks them (the configured patterns and excludes; examples and templates only with
``check-examples``). Each commit is compared with its parent, as ``ctxres stale --since`` does. In a
shallow clone whose history is cut, it stops with an error that says how to fetch the rest. Exit
status: 0 none found, 1 stale commits found, 2 usage error (and a shallow clone).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ctxres import git
from ctxres.artifacts import YAML_SUFFIXES
from ctxres.linters.checking.commit_comparison import (
    Comparison,
    as_json,
    compare_commits,
    is_audited,
    render_text,
)
from ctxres.linters.checking.file_histories import file_histories
from ctxres.linters.checking.progress import Progress
from ctxres.linters.reporters import add_format_option

# `audit-history FILE` loads neither the configuration nor the rules' registry: imports inside functions
# (docs/performance.md, "Start-up tricks").

EXIT_OK, EXIT_FOUND, EXIT_USAGE = 0, 1, 2


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "audit-history",
        help="list the commits of the history that left a resumption section stale",
        description="Walk the git history of each ORCHESTRATION file (following renames; without FILE, of every "
        "orchestration file the history holds, in one walk: the configured patterns and excludes, examples and "
        "templates left out as `ctxres check` leaves them out) and list every "
        "commit that the ctxres-stale pre-commit hook would have blocked: a state-bearing part of the file "
        "moved (workflow, phase, agent or group status, gate iteration or score, checkpoint) while the "
        "resumption section did not. Each commit is shown with its short hash, its date and what moved.",
        epilog="Exit status: 0 no stale commit, 1 stale commits found, 2 usage error (also: a shallow clone "
        "whose history of the file is cut; fetch the full history with `git fetch --unshallow`).",
    )
    parser.add_argument(
        "files",
        nargs="*",
        type=Path,
        metavar="FILE",
        help="orchestration files (default: every orchestration file of the history, deleted ones included)",
    )
    parser.add_argument(
        "--rev",
        metavar="REV-RANGE",
        default="HEAD",
        help="the commits to walk, in git syntax (default: HEAD, the whole history; e.g. main..HEAD, v1.0..)",
    )
    parser.add_argument(
        "--include-examples",
        action="store_true",
        default=None,
        help="without FILE, also audit examples and templates (`check-examples = true`)",
    )
    parser.add_argument(
        "--verbose",
        "-v",
        action="store_true",
        help="also list each file without a stale commit (listed by default only when named as FILE)",
    )
    add_format_option(parser, "how to print the result (github: annotations, sarif: code scanning; both S013)")
    parser.set_defaults(handler=run)


@dataclass(slots=True)
class FileAudit:
    """The verdict on every commit that changed one file."""

    path: str
    commits_checked: int = 0
    stale: list[Comparison] = field(default_factory=list)
    notes: list[Comparison] = field(default_factory=list)


def audit_file(given: Path, root: Path, rev: str) -> FileAudit:
    """Compare each commit of ``rev`` that changed the file with its parent."""
    rel = git.repo_path(given, root)
    commits = git.log([rev], root, [rel], follow=True)
    git.require_full_history(commits, root, f"the history of {rel} in {rev!r}")
    if not commits and not given.exists():
        raise git.GitError(f"{given}: no such file, and no commit in {rev!r} touches it")
    pairs = [
        (commit, change)
        for commit in commits
        if commit.parents
        for change in commit.changes[:1]
        if not change.added and not change.deleted
    ]
    with Progress(f"audit-history: {given}", "commits") as progress:
        results = compare_commits(pairs, root, str(given), progress)
    return _tally(str(given), results)


def _tally(path: str, results: list[Comparison | None]) -> FileAudit:
    audit = FileAudit(path)
    for result in results:
        if result is None:
            continue
        audit.commits_checked += 1
        if result.note:
            audit.notes.append(result)
        elif result.staleness is not None:
            audit.stale.append(result)
    return audit


def audit_repository(root: Path, rev: str, include_examples: bool | None) -> list[FileAudit]:
    """Every orchestration file of the history of ``rev`` (:func:`is_audited`), in one walk: one ``git log``
    of the YAML files, renames followed, and one comparison of all their changes (each version read once)."""
    from ctxres.config import load_config

    config = load_config(root).with_overrides(check_examples=include_examples)
    commits = git.log([rev], root, [f"*{suffix}" for suffix in YAML_SUFFIXES])
    git.require_full_history(commits, root, f"the history of {rev!r}")
    histories = file_histories(commits, lambda path: is_audited(path, config))
    shown = {history.path: Path(os.path.relpath(root / history.path)).as_posix() for history in histories}
    pairs = [pair for history in histories for pair in history.changes]
    names = [shown[history.path] for history in histories for _pair in history.changes]
    with Progress("audit-history", "commits") as progress:
        results = compare_commits(pairs, root, progress=progress, names=names)
    audits = []
    start = 0
    for history in histories:
        end = start + len(history.changes)
        audits.append(_tally(shown[history.path], results[start:end]))
        start = end
    return audits


def _file_json(audit: FileAudit) -> dict[str, Any]:
    return {
        "path": audit.path,
        "commits_checked": audit.commits_checked,
        "stale_commits": [as_json(result) for result in audit.stale],
        "not_compared": [{**as_json(result), "note": result.note} for result in audit.notes],
    }


def _print_notes(audit: FileAudit) -> None:
    for note in audit.notes:
        assert note.commit is not None
        print(f"ctxres audit-history: {audit.path}: {note.commit.short}: {note.note}", file=sys.stderr)


def _changes(count: int) -> str:
    return f"{count:,} change" if count == 1 else f"{count:,} changes"


def _print_text(audit: FileAudit, verbose: bool) -> None:
    _print_notes(audit)
    count = len(audit.stale)
    if not count:
        if verbose:
            print(f"{audit.path}: no stale commit ({_changes(audit.commits_checked)} checked)")
        return
    print(f"{audit.path}: {count} of {_changes(audit.commits_checked)} would have been blocked by ctxres-stale")
    for result in audit.stale:
        assert result.commit is not None and result.staleness is not None
        print(f"{result.commit.short} {result.commit.date}")
        print("\n".join(render_text(result, f"{result.commit.short}^ -> {result.commit.short}", "")))


def summary(audits: list[FileAudit]) -> str:
    """The closing line: ``3 stale commits in 2 of 128 files (1,204 changes checked).``"""
    files = f"{len(audits):,} file" if len(audits) == 1 else f"{len(audits):,} files"
    checked = _changes(sum(audit.commits_checked for audit in audits))
    stale = sum(len(audit.stale) for audit in audits)
    if not stale:
        return f"No stale commit in {files} ({checked} checked)."
    with_stale = sum(1 for audit in audits if audit.stale)
    commits = "1 stale commit" if stale == 1 else f"{stale:,} stale commits"
    return f"{commits} in {with_stale:,} of {files} ({checked} checked)."


def run(args: argparse.Namespace) -> int:
    try:
        root = git.repo_root(Path.cwd())
        if args.files:
            audits = [audit_file(given, root, args.rev) for given in args.files]
        else:
            audits = audit_repository(root, args.rev, args.include_examples)
    except git.GitError as exc:
        print(f"ctxres audit-history: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.output_format == "json":
        print(json.dumps({"files": [_file_json(audit) for audit in audits]}, indent=2, ensure_ascii=False))
    elif args.output_format == "text":
        for audit in audits:
            _print_text(audit, args.verbose or bool(args.files))
        if not audits:
            print(f"no orchestration file in the history of {args.rev!r}")
        elif len(audits) > 1 or not args.files:
            print(summary(audits))
    else:
        # The findings of rule S013, for github and sarif only.
        from ctxres.linters.reporters import print_findings
        from ctxres.linters.rules.stale_commits import stale_finding

        for audit in audits:
            _print_notes(audit)
        found = [stale_finding(result, audit.path) for audit in audits for result in audit.stale]
        print_findings(args.output_format, found, len(audits))
    return EXIT_FOUND if any(audit.stale for audit in audits) else EXIT_OK
