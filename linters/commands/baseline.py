"""``ctxres baseline``: record the current findings in the baseline file, so that they stop failing checks.

A project that adopts ctxres with findings it cannot fix at once records them (``ctxres baseline``), commits
the file, and ``ctxres check`` then fails only on new findings, while it counts the recorded ones. Run again,
it writes the findings as they are now: the fixed ones drop out, and it says how many entries were added and
removed (an entry added is a finding accepted: the review of the file's diff shows which).

A file that cannot be read (a syntax error, not UTF-8, ...) is never recorded: it hides every finding it would
have. Its entries stay as they were, the command says which file to fix, and exits 1.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

from ctxres.atomic import ChangedSinceRead, Stamp, cannot_write, stamp_before_read
from ctxres.config import load_config
from ctxres.findings import Finding
from ctxres.linters.checking import baseline, engine
from ctxres.linters.checking.discovery import find_artifacts, one_listing
from ctxres.linters.checking.finding_runs import release
from ctxres.linters.commands import EXIT_ERROR, EXIT_FINDINGS, EXIT_OK
from ctxres.linters.commands.check import default_jobs

if TYPE_CHECKING:
    from ctxres.linters.checking import baseline


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "baseline",
        help="record the current findings in the baseline file (they no longer fail `ctxres check` or "
        "`ctxres reinject`)",
        description="Check the given paths and write their findings to the baseline file "
        "(.ctxres-baseline.json at the project root, or the `baseline` setting, or --baseline): "
        "`ctxres check` and `ctxres reinject` then report them as baselined, without failing. Run it again "
        "after fixing "
        "findings to drop their entries. Entries of files outside the given paths are kept. A file that cannot be "
        "read (a syntax error, ...) is never recorded: its entries are kept and the command exits 1.",
    )
    parser.add_argument("paths", nargs="*", type=Path, metavar="PATH", help="files or folders (default: .)")
    parser.add_argument("--baseline", type=Path, metavar="FILE", help="the baseline file to write")
    parser.add_argument("--config", type=Path, help="a pyproject.toml or .ctxres.toml to use instead of the nearest")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    paths = args.paths or [Path(".")]
    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        print(f"ctxres: error: no such file or directory: {', '.join(missing)}", file=sys.stderr)
        return EXIT_ERROR
    config = load_config(paths[0], args.config)
    root = baseline.project_root(config, paths[0])
    file = baseline.baseline_file(config, root, args.baseline)
    shown = os.path.relpath(file).replace(os.sep, "/")
    stamps: list[Stamp] = []
    as_found = stamp_before_read(file)  # the file as found; when it is absent, it must stay absent until written
    try:
        old = baseline.read(file, shown, stamps) if file.exists() else []
    except baseline.BaselineError as exc:
        print(f"ctxres: error: baseline {exc} (remove it to record a new one)", file=sys.stderr)
        return EXIT_ERROR
    places = baseline.Places(root, Path.cwd())
    with one_listing():
        artifacts = find_artifacts(paths, config)
        compared = artifacts.compared.shown if artifacts.compared is not None else frozenset()
        report = engine.run(paths, config, jobs=default_jobs(), artifacts=artifacts)
    try:
        unread = baseline.unread_files(report.findings, places)
        found = [
            baseline.entry_of(finding, places)
            for finding in report.findings
            if places.in_project(finding.path) not in unread
        ]
        refused = [_refusal(finding) for finding in unread.values()]
    finally:
        release(report.findings)
    judged = baseline.judged_by(paths, places, compared, lambda path, code: engine.rule_reported(path, code, config))
    kept, unmatched = _keep_wording(old, found)
    entries = kept + [entry for entry in unmatched if not judged(entry) or entry.path in unread]
    added, removed = _difference(old, entries)
    try:
        baseline.write(file, entries, stamps[0] if stamps else as_found)
    except ChangedSinceRead:
        print(
            f"ctxres: error: {shown} changed while the baseline was computed; it was not written: run again",
            file=sys.stderr,
        )
        return EXIT_ERROR
    except OSError as exc:
        print(f"ctxres: error: {cannot_write(shown, exc)}", file=sys.stderr)
        return EXIT_ERROR
    print(
        f"Wrote {shown}: {_entries(len(entries))} ({added} added, {removed} removed) "
        f"from {report.files_checked} file{'' if report.files_checked == 1 else 's'} checked."
    )
    for line in refused:
        print(line, file=sys.stderr)
    return EXIT_FINDINGS if refused else EXIT_OK


def _refusal(finding: Finding) -> str:
    """What the command says of a file it did not record because it cannot be read."""
    where = f"{finding.path}:{finding.position.line}:{finding.position.col}"
    return (
        f"ctxres: not recorded: {where}: {finding.code} {finding.message} A file that cannot be read hides every "
        "finding it would have, so a baseline never records it (its entries are kept as they were): fix the "
        "file, then run `ctxres baseline` again."
    )


def _keep_wording(
    old: list[baseline.Entry], found: list[baseline.Entry]
) -> tuple[list[baseline.Entry], list[baseline.Entry]]:
    """``found``, each entry that matches an old one written as the old one was (its message may name a line
    that moved): a file rewritten with nothing fixed or added is the same file; and the old entries that matched
    nothing found (kept when this run did not judge them)."""
    by_key: dict[tuple[str, str, str], list[baseline.Entry]] = {}
    for entry in old:
        by_key.setdefault(entry.key, []).append(entry)
    kept = []
    for entry in found:
        same = by_key.get(entry.key)
        kept.append(same.pop(0) if same else entry)
    return kept, [entry for same in by_key.values() for entry in same]


def _difference(old: list[baseline.Entry], new: list[baseline.Entry]) -> tuple[int, int]:
    before = Counter(entry.key for entry in old)
    after = Counter(entry.key for entry in new)
    return sum((after - before).values()), sum((before - after).values())


def _entries(count: int) -> str:
    return f"{count} entry" if count == 1 else f"{count} entries"
