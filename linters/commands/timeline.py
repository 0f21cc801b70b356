"""``ctxres timeline [TRANSCRIPT ...]``: a session as a picture (docs/timeline.md).

Which sessions: the transcripts given; else, among the sessions the client keeps for this project (where:
:mod:`ctxres.linters.timeline.sessions`), ``--session ID``, ``--all`` of them (stitched into one timeline,
oldest first) or the latest. The workflow drawn is the live one, chosen as the hooks choose it, or
``--workflow FILE``; its checkpoints are read from its state folder.

Output: the terminal (default; colour only on a terminal, ``NO_COLOR``, ``--color``), ``--html FILE`` (one
self-contained page), ``--output-format json`` (``schemas/timeline.schema.json``).
Exit status: 0 drawn (a partial picture says what it skipped), 2 nothing to draw (no session of this project,
an unknown session id, a transcript that cannot be read) or a usage error.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

from ctxres import ack
from ctxres.atomic import cannot_write, write_atomic
from ctxres.config import ConfigError, load_config, project_folder
from ctxres.linters.reporters import REPORT_FORMATS, add_color_option, use_color
from ctxres.linters.timeline import building, sessions, transcripts
from ctxres.linters.timeline.building import WorkflowSource
from ctxres.linters.timeline.data import summary, to_data
from ctxres.linters.timeline.model import Timeline
from ctxres.linters.timeline.page import render_page
from ctxres.linters.timeline.terminal import render_terminal
from ctxres.project import inside
from ctxres.state import checkpoints as cp
from ctxres.state import live
from ctxres.state.live import matches_pattern
from ctxres.tiers import DEFAULT_THRESHOLDS

EXIT_OK, EXIT_USAGE = 0, 2


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "timeline",
        help="a session as a picture: context fill, compactions, checkpoints, the workflow's state",
        description="Draw one or more Claude Code sessions on one time axis (turn number and wall time): the "
        "context fill of each turn with the tier thresholds, each compaction (manual or auto, tokens before and "
        "after), each checkpoint and when ctxres ack merged it, the resumption section's updates and the "
        "stretches where the workflow's state moved while the section did not, the phase changes, and what "
        "SessionStart told the model after each compaction. Without TRANSCRIPT: the latest session of this "
        "project.",
        epilog="Exit status: 0 drawn (what could not be read is said), 2 nothing to draw or a usage error.",
    )
    parser.add_argument(
        "transcripts", nargs="*", type=Path, metavar="TRANSCRIPT", help="session transcripts (.jsonl) to draw"
    )
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--session", metavar="ID", help="the session of this project with this id")
    which.add_argument("--all", action="store_true", help="every session of this project, stitched, oldest first")
    parser.add_argument(
        "--workflow", type=Path, metavar="FILE", help="the workflow file to draw (default: the live workflow)"
    )
    parser.add_argument("--html", type=Path, metavar="FILE", help="write a self-contained HTML page to FILE")
    parser.add_argument("--output-format", choices=REPORT_FORMATS, default="text", help="how to print it")
    add_color_option(parser)
    parser.add_argument("--width", type=int, metavar="N", help="columns of the text output (default: the terminal's)")
    parser.set_defaults(handler=run)


class _Stop(Exception):
    """Nothing to draw: the one-line reason."""


def run(args: argparse.Namespace) -> int:
    try:
        root = project_folder(Path.cwd())
        paths = _transcripts(args, root)
        workflow = _workflow(args, root)
        wanted = _workflow_file_test(root)
        hints = [workflow.path.name] if workflow is not None else None
        records = [transcripts.read_session(path, wanted, hints=hints) for path in paths]
        timeline = building.build(records, workflow=workflow, thresholds=DEFAULT_THRESHOLDS)
    except (_Stop, sessions.SessionError, transcripts.TranscriptError, ConfigError) as exc:
        print(f"ctxres timeline: {exc}", file=sys.stderr)
        return EXIT_USAGE
    return _show(args, timeline)


def _transcripts(args: argparse.Namespace, root: Path) -> list[Path]:
    if args.transcripts:
        if args.session or args.all:
            raise _Stop("give transcripts, or --session/--all, not both")
        missing = [str(p) for p in args.transcripts if not p.is_file()]
        if missing:
            raise _Stop(f"no such transcript: {', '.join(missing)}")
        return list(args.transcripts)
    folder = sessions.find_project_folder(root, sessions.config_dir(os.environ), os.environ)
    if args.session:
        return [sessions.by_id(folder, args.session)]
    if args.all:
        return sessions.sessions(folder)
    return [sessions.latest(folder)]


def _workflow(args: argparse.Namespace, root: Path) -> WorkflowSource | None:
    if args.workflow is not None:
        if not args.workflow.is_file():
            raise _Stop(f"no such workflow file: {args.workflow}")
        path = args.workflow.resolve()
    else:
        config = load_config(root)
        try:
            choice = ack.live_workflow(root, config)
        except live.UnreadableWorkflow as exc:
            print(f"ctxres timeline: {exc.sentence()}; the workflow is left out", file=sys.stderr)
            return None
        if choice is None:
            return None
        path = Path(choice.path).resolve()
    if not inside(path, root):
        raise _Stop(f"{path} is outside the project {root}")
    state_dir = cp.find_state_dir(path, root, load_config(path).state_dir)
    return WorkflowSource(path, os.path.relpath(path, root).replace(os.sep, "/"), state_dir)


def _workflow_file_test(root: Path) -> Callable[[str], bool]:
    patterns = load_config(root).patterns["orchestration"]

    def wanted(path: str) -> bool:
        return matches_pattern(os.path.basename(path), patterns) or matches_pattern(path, patterns)

    return wanted


def _show(args: argparse.Namespace, timeline: Timeline) -> int:
    if args.html is not None:
        try:
            write_atomic(args.html, render_page(timeline).encode("utf-8"))
        except OSError as exc:
            print(f"ctxres timeline: {cannot_write(args.html, exc)}", file=sys.stderr)
            return EXIT_USAGE
        print(f"{args.html}: {summary(timeline)}")
        return EXIT_OK
    if args.output_format == "json":
        print(json.dumps(to_data(timeline), indent=2, ensure_ascii=False))
        return EXIT_OK
    width = args.width or shutil.get_terminal_size((100, 24)).columns
    sys.stdout.write(render_terminal(timeline, width=max(width, 40), color=use_color(args.color)))
    return EXIT_OK
