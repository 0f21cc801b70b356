"""``ctxres append-only [FILES...]``: block a commit that rewrites history in an agent-memory event log.

Event logs (``events/<actor>/*.jsonl``) are append-only (docs/formats.md, "Layout"): the staged version of a
committed log must begin with the committed version, byte for byte. A changed, deleted or
inserted line is reported with its line number in the committed file; deleting or moving a
committed log is blocked too. New logs and appended lines always pass.

FILES (what pre-commit passes) limits the modified logs that are checked; staged deletions and
moves of event logs are checked in any case, because pre-commit never passes a deleted file.
Without FILES every staged file matching the ``event-log`` pattern (default
``**/events/*/*.jsonl``) is checked. This is the pre-commit hook ``ctxres-append-only``.
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
from ctxres.agent_memory import LineChange, append_only_violations
from ctxres.artifacts import BY_KIND
from ctxres.config import Config, ConfigError, load_config
from ctxres.findings import Finding, Position
from ctxres.globs import matches_any
from ctxres.linters.reporters import add_format_option, print_findings
from ctxres.linters.rules.agent_memory import REWRITTEN

EXIT_OK, EXIT_BLOCKED, EXIT_USAGE = 0, 1, 2
MAX_LINES_SHOWN = 10
MAX_TEXT = 100


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "append-only",
        help="block commits that change or delete committed lines of agent-memory event logs",
        description="Compare each staged agent-memory event log (events/<actor>/*.jsonl) with HEAD: the staged "
        "file must keep the committed file as its beginning (events are append-only). Changed, deleted or "
        "inserted lines are listed with their line numbers; deleting or moving a committed log is blocked. "
        "This is the pre-commit hook `ctxres-append-only`.",
        epilog="Exit status: 0 only appends, 1 blocked, 2 usage error (not a git repository).",
    )
    parser.add_argument(
        "files",
        nargs="*",
        type=Path,
        metavar="FILE",
        help="event logs to check (default: every staged event log); staged deletions and moves are always checked",
    )
    add_format_option(parser, "how to print the result (github: annotations, sarif: code scanning; both M012)")
    parser.set_defaults(handler=run)


@dataclass(slots=True)
class Verdict:
    """One staged event log: what it does to the committed lines (nothing when it only appends)."""

    path: str
    note: str = ""  # deleted / moved
    changes: list[LineChange] = field(default_factory=list)

    @property
    def blocked(self) -> bool:
        return bool(self.note or self.changes)


def is_event_log(path: str, config: Config) -> bool:
    return matches_any(path, config.patterns.get("event-log", ()))


def _targets(files: list[Path], root: Path, config: Config) -> list[git.Change]:
    staged = git.staged_changes(root)
    removed = [c for c in staged if (c.deleted or c.status == "R") and is_event_log(c.old_path, config)]
    if files:
        by_path = {change.path: change for change in staged}
        given = [by_path.get(rel, git.Change("M", rel, rel)) for rel in (git.repo_path(f, root) for f in files)]
        chosen = [change for change in given if change.status == "M"]
    else:
        chosen = [change for change in staged if change.status == "M" and is_event_log(change.path, config)]
    return [*chosen, *(change for change in removed if change not in chosen)]


def _ours(targets: list[git.Change], root: Path, config: Config) -> list[git.Change]:
    """The targets that are event logs of a run, not files that only share the name (a dated ``events/``
    data set): in their place, or whose committed lines carry an event's own keys (the catalog's
    recognition; a project's own ``event-log`` patterns are taken as said). A file not committed yet is
    kept: it is new, and passes."""
    entry = BY_KIND["event-log"]
    if not targets or config.patterns.get("event-log") != entry.patterns:
        return targets
    recognition, top = entry.recognition, os.path.abspath(root)

    here = [recognition.place(os.path.join(top, c.old_path).replace(os.sep, "/"), config.state_dir) for c in targets]
    elsewhere = [change for change, placed in zip(targets, here, strict=True) if not placed]
    blobs = iter(git.read_blobs([f"HEAD:{change.old_path}" for change in elsewhere], root) if elsewhere else [])
    ours = []
    for change, placed in zip(targets, here, strict=True):
        committed = None if placed else next(blobs)
        if placed or committed is None or recognition.content(committed[: recognition.head or len(committed)]):
            ours.append(change)
    return ours


def _shown(root: Path, rel: str) -> str:
    return Path(os.path.relpath(root / rel)).as_posix()


def check(root: Path, files: list[Path], config: Config) -> list[Verdict]:
    """The verdict on every staged event log that has a committed version."""
    if not git.has_commits(root):
        return []  # the first commit: every log is new
    targets = _ours(_targets(files, root, config), root, config)
    modified = [change for change in targets if change.status == "M"]
    specs = [spec for change in modified for spec in (f"HEAD:{change.path}", f":{change.path}")]
    blobs = git.read_blobs(specs, root)
    verdicts = []
    for index, change in enumerate(modified):
        old, new = blobs[2 * index], blobs[2 * index + 1]
        if old is None:
            continue  # not committed yet: new
        if new is None:
            verdicts.append(Verdict(_shown(root, change.path), "the committed event log is deleted"))
            continue
        verdicts.append(Verdict(_shown(root, change.path), changes=append_only_violations(old, new)))
    for change in targets:
        if change.deleted:
            verdicts.append(Verdict(_shown(root, change.old_path), "the committed event log is deleted"))
        elif change.status == "R":
            where = _shown(root, change.path)
            verdicts.append(Verdict(_shown(root, change.old_path), f"the committed event log is moved to {where}"))
    return verdicts


def _clip(text: str) -> str:
    text = text.rstrip("\r")
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 3] + "..."


def _describe(change: LineChange) -> list[str]:
    if change.kind == "changed":
        return [
            f"    line {change.line}: changed",
            f"      was: {_clip(change.old)}",
            f"      now: {_clip(change.new)}",
        ]
    if change.kind == "deleted":
        return [f"    line {change.line}: deleted", f"      was: {_clip(change.old)}"]
    return [f"    line {change.line}: a new line was inserted before it: {_clip(change.new)}"]


def _print_text(verdicts: list[Verdict]) -> None:
    blocked = [verdict for verdict in verdicts if verdict.blocked]
    for verdict in blocked:
        if verdict.note:
            print(f"{verdict.path}: blocked: {verdict.note}; event logs are append-only")
            print(
                f"  fix: keep the file where it is (`git restore --staged --worktree -- {verdict.path}` brings it "
                "back) and record what changed as new events"
            )
            continue
        count = len(verdict.changes)
        noun = "line" if count == 1 else "lines"
        print(f"{verdict.path}: blocked: {count} committed {noun} of an append-only event log would change")
        for change in verdict.changes[:MAX_LINES_SHOWN]:
            print("\n".join(_describe(change)))
        if count > MAX_LINES_SHOWN:
            print(f"    ... and {count - MAX_LINES_SHOWN} more")
        print(
            f"  fix: put the committed lines back unchanged (`git show HEAD:./{verdict.path}` prints them), add "
            f"any correction as a new event at the end of the file, then `git add {verdict.path}`"
        )
    checked = f"{len(verdicts)} staged event log{'s' if len(verdicts) != 1 else ''}"
    if blocked:
        verb = "rewrites" if len(blocked) == 1 else "rewrite"
        print(f"ctxres append-only: {len(blocked)} of {checked} {verb} committed events.")
    else:
        print(f"ctxres append-only: only appended lines ({checked} checked).")


def _change_message(change: LineChange) -> str:
    if change.kind == "changed":
        return f"committed line changed (was: {_clip(change.old)}; now: {_clip(change.new)})"
    if change.kind == "deleted":
        return f"committed line deleted (was: {_clip(change.old)})"
    return f"a new line was inserted before this committed line: {_clip(change.new)}"


def findings(verdicts: list[Verdict]) -> list[Finding]:
    """M012 for every deleted or moved log (line 1) and every rewritten committed line."""
    found = []
    for verdict in verdicts:
        if verdict.note:
            fix = f"keep the file where it is (`git restore --staged --worktree -- {verdict.path}` brings it back)"
            message = f"{verdict.note}; event logs are append-only"
            found.append(Finding(verdict.path, REWRITTEN.code, message, REWRITTEN.severity, fix=fix))
            continue
        fix = (
            f"put the committed line back unchanged (`git show HEAD:./{verdict.path}` prints it) and add any "
            "correction as a new event at the end of the file"
        )
        found += [
            Finding(
                verdict.path,
                REWRITTEN.code,
                _change_message(change),
                REWRITTEN.severity,
                Position(change.line, 1),
                fix=fix,
            )
            for change in verdict.changes
        ]
    return found


def _as_json(verdict: Verdict) -> dict[str, Any]:
    return {
        "path": verdict.path,
        "blocked": verdict.blocked,
        "note": verdict.note,
        "lines": [{"line": c.line, "kind": c.kind, "old": c.old, "new": c.new} for c in verdict.changes],
    }


def run(args: argparse.Namespace) -> int:
    try:
        root = git.repo_root(Path.cwd())
        verdicts = check(root, args.files, load_config(root))
    except (git.GitError, ConfigError) as exc:
        print(f"ctxres append-only: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.output_format == "json":
        print(json.dumps({"checked": len(verdicts), "logs": [_as_json(v) for v in verdicts]}, indent=2))
    elif args.output_format == "text":
        _print_text(verdicts)
    else:
        print_findings(args.output_format, findings(verdicts), len(verdicts))
    return EXIT_BLOCKED if any(verdict.blocked for verdict in verdicts) else EXIT_OK
