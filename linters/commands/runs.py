"""``ctxres runs [status] [RUN-ID]``: the resume report of an agent-memory run (docs/formats.md, "The resume report").

Every run folder under ``<root>/.agent-memory/runs/`` is read; each task's state is derived from
the events of every actor's log, the runnable tasks are computed, and the resume report is
printed ("RESUMING RUN: ..."). Which run:

* a RUN-ID given: that run (complete or not); exit 2 when there is no such run;
* no run, or only finished runs: "fresh start", exit 0;
* exactly one incomplete run: its report, exit 0;
* several incomplete runs: they are listed and the command asks for a run id: exit 1 (nothing
  was resumed; a script can tell this case from a report).

Unreadable event lines are skipped and reported as warnings in the report (seed: "parse what is
readable, warn user"), and so are events whose type is in neither the agent-memory format's vocabulary nor the
agent pack's (``task-claimed``, ``task-implemented``, ``task-verified``, ``phase-complete``,
``run-complete``, ...) and events without ``event_type``: they change no state. A run whose newest
event is older than ``--stale-after-days`` (default: the configuration's ``run-stale-after-days``,
else 7) gets a staleness warning. ``CTXRES_NOW``
(ISO-8601) freezes the clock.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import sys
from pathlib import Path

from ctxres import agent_memory as am
from ctxres import timestamps
from ctxres.config import ConfigError, load_config, project_folder
from ctxres.findings import Finding, Position, Severity
from ctxres.linters.reporters import REPORT_FORMATS, add_format_option, print_findings
from ctxres.linters.rules.agent_memory import MISSING_ARTIFACT, RUN_IDLE, RUN_STALE_AFTER_DAYS, UNMAPPED
from ctxres.linters.rules.conformance import MISSING
from ctxres.linters.rules.parsing import SYNTAX

EXIT_OK, EXIT_CHOOSE, EXIT_USAGE = 0, 1, 2
DEFAULT_STALE_DAYS = 7


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "runs",
        help="resume report of agent-memory runs (.agent-memory/runs/)",
        description="Derive each task's state (pending, in_progress, done, failed, blocked) from the event logs "
        "of an agent-memory run, compute the runnable tasks (dependencies done, not done, not blocked) and print "
        "the resume report: run id, phase, tasks done, last activity, last completed task, next action. "
        "Without RUN-ID: the only incomplete run; 'fresh start' when there is none; the list when there are "
        "several.",
        epilog="Exit status: 0 report printed (or fresh start), 1 several incomplete runs: give a RUN-ID, "
        "2 usage error (unknown run id, bad option).",
    )
    parser.add_argument(
        "words", nargs="*", metavar="RUN-ID", help="the run to report on (`ctxres runs status RUN-ID` works too)"
    )
    parser.add_argument(
        "--root",
        type=Path,
        help="the folder that holds .agent-memory/ (default: the nearest one above the current folder)",
    )
    parser.add_argument(
        "--stale-after-days",
        type=float,
        metavar="DAYS",
        help=f"warn when a run's newest event is older than this (default: configuration, else {DEFAULT_STALE_DAYS})",
    )
    add_format_option(
        parser, "how to print the report (github and sarif: its warnings as findings: P001, C001, M009, M011, M013)"
    )
    parser.set_defaults(handler=run)


def _now() -> dt.datetime:
    return timestamps.now()


def _stale_after(args: argparse.Namespace, root: Path) -> dt.timedelta:
    if args.stale_after_days is not None:
        if args.stale_after_days <= 0:
            raise ValueError("--stale-after-days must be a positive number")
        return dt.timedelta(days=args.stale_after_days)
    return dt.timedelta(days=load_config(root).value(RUN_STALE_AFTER_DAYS))


def _parse_words(words: list[str]) -> str | None:
    if words and words[0] == "status":
        words = words[1:]
    if len(words) > 1:
        raise ValueError(f"expected at most one RUN-ID, got {' '.join(words)!r}")
    return words[0] if words else None


def _summary_line(status: am.RunStatus) -> str:
    last = status.last_activity.timestamp if status.last_activity else "no event yet"
    done = f"{status.done}/{len(status.tasks)} tasks done"
    return f"  {status.run.run_id}  phase {status.phase}, {done}, last activity {last}"


def default_root(start: Path) -> Path:
    """The nearest folder at or above ``start`` that holds ``.agent-memory/runs/``, else the project root."""
    here = start.resolve()
    for folder in (here, *here.parents):
        if (folder / am.RUNS_FOLDER).is_dir():
            return folder
    return project_folder(here)


def run(args: argparse.Namespace) -> int:
    try:
        wanted = _parse_words(args.words)
        if args.root is not None and not args.root.is_dir():
            raise ValueError(f"--root {args.root}: no such folder")
        root = args.root.resolve() if args.root is not None else default_root(Path.cwd())
        stale_after = _stale_after(args, root)
        now = _now()
    except (ValueError, ConfigError) as exc:
        print(f"ctxres runs: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    folders = am.find_runs(str(root))
    statuses = [am.assess(am.read_run(folder), now=now, stale_after=stale_after) for folder in folders]
    runs_dir = os.path.relpath(os.path.join(root, am.RUNS_FOLDER))
    if wanted is not None:
        chosen = [status for status in statuses if status.run.run_id == wanted]
        if not chosen:
            known = ", ".join(status.run.run_id for status in statuses) or "none"
            print(f"ctxres runs: error: no run {wanted!r} in {runs_dir} (runs: {known})", file=sys.stderr)
            return EXIT_USAGE
        return _report(chosen[0], args.output_format)
    incomplete = [status for status in statuses if not status.complete]
    if not incomplete:
        return _fresh_start(statuses, runs_dir, args.output_format)
    if len(incomplete) == 1:
        return _report(incomplete[0], args.output_format)
    return _choose(incomplete, runs_dir, args.output_format)


def findings(status: am.RunStatus) -> list[Finding]:
    """The warnings of a run's resume report as findings (severity warning, as in the report): an
    unreadable line P001, an event without type C001, an unknown event type M011, an unreadable or
    missing task graph P001, C001 or M009, an idle run M013 (at its newest event)."""
    run = status.run
    graph = os.path.join(run.directory, am.TASK_GRAPH).replace(os.sep, "/")
    places = [(SYNTAX.code, item.path, item.line) for item in run.corrupted]
    places += [
        (UNMAPPED.code if event.event_type else MISSING.code, event.path, event.line)
        for event in am.in_time_order(am.unmapped_events(run.events))
    ]
    if run.graph_problem:
        places.append((MISSING.code, run.graph_path, 1) if run.graph_path else (SYNTAX.code, graph, 1))
    elif run.tasks is None and status.phase >= am.EXECUTION_PHASE:
        places.append((MISSING_ARTIFACT.code, graph, 1))
    last = status.last_activity
    if len(places) < len(status.warnings) and last is not None:
        places.append((RUN_IDLE.code, last.path, last.line))
    found = []
    for (code, path, line), warning in zip(places, status.warnings, strict=False):
        prefix = f"{path}:{line}: "
        message = warning[len(prefix) :] if warning.startswith(prefix) else warning
        found.append(Finding(path, code, message, Severity.WARNING, Position(line, 1)))
    return found


def _print_findings(statuses: list[am.RunStatus], output_format: str) -> None:
    found = [finding for status in statuses for finding in findings(status)]
    print_findings(output_format, found, sum(len(status.run.documents) for status in statuses))


def _report(status: am.RunStatus, output_format: str) -> int:
    if output_format not in REPORT_FORMATS:
        _print_findings([status], output_format)
    elif output_format == "json":
        print(json.dumps({"status": "resume", "run": am.status_json(status)}, indent=2, ensure_ascii=False))
    else:
        sys.stdout.write(am.render_report(status))
    return EXIT_OK


def _fresh_start(statuses: list[am.RunStatus], runs_dir: str, output_format: str) -> int:
    finished = [status.run.run_id for status in statuses]
    if output_format not in REPORT_FORMATS:
        _print_findings([], output_format)  # nothing to resume: no warning is shown
        return EXIT_OK
    if output_format == "json":
        print(json.dumps({"status": "fresh-start", "runs_dir": runs_dir, "finished_runs": finished}, indent=2))
        return EXIT_OK
    detail = f" ({len(finished)} finished run{'s' if len(finished) != 1 else ''})" if finished else ""
    print(f"Fresh start: no incomplete run in {runs_dir}{detail}.")
    return EXIT_OK


def _choose(incomplete: list[am.RunStatus], runs_dir: str, output_format: str) -> int:
    if output_format not in REPORT_FORMATS:
        _print_findings(incomplete, output_format)
        return EXIT_CHOOSE
    if output_format == "json":
        payload = {
            "status": "choose-run",
            "runs_dir": runs_dir,
            "runs": [
                {key: value for key, value in am.status_json(s).items() if key not in ("tasks", "warnings")}
                for s in incomplete
            ],
        }
        print(json.dumps(payload, indent=2, ensure_ascii=False))
        return EXIT_CHOOSE
    print(f"{len(incomplete)} incomplete runs in {runs_dir}:")
    for status in incomplete:
        print(_summary_line(status))
    print("Which run should be resumed? Run `ctxres runs status RUN-ID`.")
    return EXIT_CHOOSE
