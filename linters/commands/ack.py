"""``ctxres ack``: merge checkpoint files into the resumption section after a compaction."""

from __future__ import annotations

import argparse
import os
import sys
from datetime import datetime, timezone
from pathlib import Path

from ctxres import ack
from ctxres.atomic import cannot_write
from ctxres.config import ConfigError, load_config, project_folder
from ctxres.project import inside, project_root
from ctxres.state import checkpoints as cp
from ctxres.state import live

EXIT_OK, EXIT_REFUSED, EXIT_USAGE = 0, 1, 2


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "ack",
        help="merge checkpoint files into the resumption section (after a compaction)",
        description="Merge an unacknowledged checkpoint (written by the PreCompact hook into "
        "<state-dir>/checkpoints/) into the v2.0 resumption section of an ORCHESTRATION file: append "
        "its compaction event, update `count` and `recovery_state.updated_at`, and mark the checkpoint "
        "acknowledged. Only those lines change; nothing is written when the merge is refused.",
        epilog="Exit status: 0 merged (or nothing to merge), 1 refused (nothing changed), 2 usage error.",
    )
    parser.add_argument(
        "checkpoint",
        nargs="?",
        metavar="CHECKPOINT",
        help="the checkpoint to merge: a path or an id such as cx-002 (default: the oldest unacknowledged)",
    )
    parser.add_argument("--all", action="store_true", help="merge every unacknowledged checkpoint, oldest first")
    parser.add_argument(
        "--file",
        type=Path,
        metavar="ORCHESTRATION.yaml",
        help="the file to merge into (default: the live workflow under the project root, as the hooks choose "
        "it: $CTXRES_ORCHESTRATION, else the file the live-workflow setting pins, else the most recently updated "
        "ORCHESTRATION file (by its own update times, then its path) whose workflow is ACTIVE or PAUSED, examples "
        "and templates aside); it needs a v2.0 section",
    )
    parser.add_argument(
        "--now",
        metavar="ISO",
        help="the acknowledgement time, ISO-8601 (default: the current time in UTC); for tests and replays",
    )
    parser.set_defaults(handler=run)


def _fail(message: str, code: int) -> int:
    print(f"ctxres ack: {message}", file=sys.stderr)
    return code


def _now(value: str | None) -> str:
    if value is None:
        return cp.format_time(datetime.now(timezone.utc))
    moment = cp.parse_time(value)
    if moment is None:
        raise ack.AckUsageError(f"--now {value!r} is not an ISO-8601 time such as 2026-02-17T11:50:00Z")
    return cp.format_time(moment)


def _orchestration(args: argparse.Namespace) -> tuple[Path, str | None]:
    if args.file is not None:
        if not args.file.is_file():
            raise ack.AckUsageError(f"no such file: {args.file}")
        given = args.file.absolute()
        _refuse_outside(given, project_root(given.parent))
        return given.resolve(), None
    root = project_folder(Path.cwd())
    config = load_config(root)
    try:
        choice = ack.live_workflow(root, config)
    except live.UnreadableWorkflow as exc:
        raise ack.AckError(f"{exc.sentence()}, then run `ctxres ack` again (nothing was merged)") from None
    if choice is None:
        for skipped in ack.workflows_outside(root, config):
            _refuse_outside(skipped, root)  # say why that file was not used, rather than "none found"
        raise ack.AckUsageError(f"{ack.no_live_workflow(root, config)}; name one with --file")
    found = Path(choice.path)
    _refuse_outside(found, root)
    return found.resolve(), choice.note(os.getcwd())


def _refuse_outside(path: Path, root: Path) -> None:
    """A workflow file that is a symlink out of its project is never read nor written through."""
    if not inside(path, root):
        raise ack.AckError(
            f"{path} resolves to {path.resolve()}, outside the project {root}: ack only writes inside the "
            "project; replace the symlink with the file itself"
        )


def _candidates(args: argparse.Namespace, state_dir: Path, root: Path) -> tuple[list[ack.Candidate], list[Path], str]:
    """(checkpoints to merge, every checkpoint waiting, a note for when there is nothing to merge)."""
    waiting, skipped = ack.pending(state_dir)
    where = os.path.relpath(cp.checkpoints_dir(state_dir), os.getcwd()).replace(os.sep, "/")
    if args.checkpoint is not None:
        path = ack.find_checkpoint(args.checkpoint, state_dir, root, Path.cwd())
        return [ack.read_candidate(path)], [c.path for c in waiting], ""
    chosen = waiting if args.all else waiting[:1]
    note = f"nothing to merge: every checkpoint in {where}/ is acknowledged"
    if not cp.list_checkpoints(state_dir):
        note = f"nothing to merge: there is no checkpoint in {where}/"
    if skipped:
        note += f" ({skipped} in another tool's layout skipped)"
    return chosen, [c.path for c in waiting], note


def run(args: argparse.Namespace) -> int:
    if args.all and args.checkpoint is not None:
        return _fail("give either CHECKPOINT or --all, not both", EXIT_USAGE)
    shown = str(args.file or "")
    try:
        now = _now(args.now)
        orchestration, chosen_note = _orchestration(args)
        root = project_folder(orchestration)
        state_dir = cp.find_state_dir(orchestration, root, load_config(orchestration).state_dir)
        shown = os.path.relpath(orchestration, os.getcwd()).replace(os.sep, "/")
        if chosen_note:
            print(chosen_note)
        candidates, _, note = _candidates(args, state_dir, root)
        if not candidates:
            ack.section_of(ack.read_orchestration(orchestration))  # still refuse a v1 or broken file
            print(note)
            return EXIT_OK

        def make_plan() -> ack.Plan:  # everything read afresh on each try: a file may have changed meanwhile
            chosen, pending, _ = _candidates(args, state_dir, root)
            return ack.plan(orchestration, chosen, root, now, pending)

        result = ack.merge(make_plan)
    except ack.AckUsageError as exc:
        return _fail(str(exc), EXIT_USAGE)
    except ack.SectionError as exc:
        message = f"{shown} {exc}"
        if "v1.0 resumption section" in message:
            message += f"; convert it first: `ctxres migrate {args.file or shown} --write`"
        return _fail(f"refused, nothing changed: {message}", EXIT_REFUSED)
    except ack.AckError as exc:
        return _fail(f"refused, nothing changed: {exc}", EXIT_REFUSED)
    except ConfigError as exc:
        return _fail(str(exc), EXIT_USAGE)
    except OSError as exc:
        where = os.path.relpath(exc.filename, os.getcwd()).replace(os.sep, "/") if exc.filename else shown
        return _fail(cannot_write(where, exc), EXIT_USAGE)
    for step in result.steps:
        verb = "merged" if step.appended else "acknowledged"
        where = os.path.relpath(step.checkpoint, os.getcwd()).replace(os.sep, "/")  # as the user reads it from here
        print(f"{verb} {where} as {step.event_id} into {shown}")
    if result.count_before != result.count_after:
        print(f"compaction_events.count: {result.count_before} -> {result.count_after}; updated_at: {now}")
    return EXIT_OK
