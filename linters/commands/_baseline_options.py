"""The baseline file as the reporting commands read it: ``--baseline FILE``, ``--no-baseline``, and a report's
findings matched against the file's entries (``ctxres check`` and ``ctxres reinject``, the two commands whose
findings ``ctxres baseline`` records)."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from pathlib import Path

from ctxres.linters.checking import engine
from ctxres.linters.checking.baseline import Match, Places, baseline_file, judged_by, project_root, read

# `ctxres check` loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:
    from ctxres.config import Config
    from ctxres.linters.checking.baseline import Entry, Match, Places
    from ctxres.linters.checking.report import Report


def add_baseline_options(parser: argparse.ArgumentParser) -> None:
    """``--baseline FILE``, ``--no-baseline`` and ``--show-baselined``."""
    parser.add_argument(
        "--baseline",
        type=Path,
        metavar="FILE",
        help="the baseline file of accepted findings (default: the `baseline` setting, else "
        ".ctxres-baseline.json at the project root, when it exists)",
    )
    parser.add_argument(
        "--no-baseline", action="store_true", help="ignore the baseline file: report every finding as new"
    )
    parser.add_argument(
        "--show-baselined",
        action="store_true",
        help="also print the findings the baseline accepts, marked [baselined] (text output)",
    )


class Baseline:
    """The baseline a command reads: its file as shown, its entries, and the project's paths."""

    def __init__(self, shown: str, entries: list[Entry], places: Places) -> None:
        self.shown = shown
        self.entries = entries
        self.places = places


def read_baseline(args: argparse.Namespace, paths: list[Path], config: Config) -> Baseline | None:
    """The baseline to apply (None: ``--no-baseline``, or no file where the default or setting says);
    :class:`~ctxres.linters.checking.baseline.BaselineError` when it cannot be read."""
    if args.no_baseline:
        return None
    root = project_root(config, paths[0])
    file = baseline_file(config, root, args.baseline)
    if args.baseline is None and not file.exists():
        return None
    shown = os.path.relpath(file).replace(os.sep, "/")
    return Baseline(shown, read(file, shown), Places(root, Path.cwd()))


def match(
    baseline: Baseline,
    paths: list[Path],
    config: Config,
    report: Report,
    compared: frozenset[str],
    ran: Callable[[str, str], bool] | None = None,
) -> Match:
    """``report``'s findings against ``baseline``: the baselined ones, the new ones, the entries now fixed
    (only of the files and rules this run judged: ``compared`` are files read only to compare with; ``ran``,
    when given, says which files (shown paths) and rules the command ran at all: ``ctxres reinject`` runs the
    R rules on rule files, and says nothing of the other entries)."""

    def reported(path: str, code: str) -> bool:
        return (ran is None or ran(path, code)) and engine.rule_reported(path, code, config)

    found = Match(baseline.shown, baseline.entries, baseline.places)
    judged = judged_by(paths, baseline.places, compared, reported)
    found.count(report.findings, baseline.entries, judged)
    return found
