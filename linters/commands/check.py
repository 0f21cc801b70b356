"""``ctxres check``: every rule on the artifacts under the given paths (the main job)."""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
from pathlib import Path

from ctxres.config import load_config, selector_problem, shadowed_warning
from ctxres.findings import Finding
from ctxres.git import GitError
from ctxres.linters.checking import engine
from ctxres.linters.checking.baseline import BaselineError
from ctxres.linters.checking.discovery import discover, find_artifacts, one_listing, skipped_files
from ctxres.linters.checking.finding_runs import release
from ctxres.linters.checking.progress import Progress
from ctxres.linters.checking.pushed_commits import run_by_pre_commit
from ctxres.linters.checking.registry import RULES
from ctxres.linters.commands import EXIT_ERROR, EXIT_OK
from ctxres.linters.commands._baseline_options import Baseline, add_baseline_options, match, read_baseline
from ctxres.linters.commands.catalog import check_description
from ctxres.linters.reporters import REPORT_FORMATS, add_color_option, add_format_option, use_color, write
from ctxres.linters.rules.stale_commits import range_findings

# `ctxres check` loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:
    from ctxres.config import Config
    from ctxres.linters.checking.report import Report


def _codes(value: str) -> tuple[str, ...]:
    return tuple(code.strip() for code in value.split(",") if code.strip())


PROGRESS_MIN_FILES = 1000


def _jobs(value: str) -> int:
    try:
        jobs = int(value)
    except ValueError:
        jobs = 0
    if jobs < 1:
        raise argparse.ArgumentTypeError(f"expected a number of processes (1 or more), not {value!r}")
    return jobs


def default_jobs() -> int:
    """The cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not Linux
        return max(1, os.cpu_count() or 1)


def _given(codes: list[str] | None) -> tuple[str, ...] | None:
    return None if codes is None else tuple(codes)


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    check = sub.add_parser(
        "check",
        help="check resumption artifacts under the given paths",
        description=check_description(),  # the kinds of the artifact catalog (ctxres.artifacts)
    )
    check.add_argument("paths", nargs="*", type=Path, metavar="PATH", help="files or folders (default: .)")
    add_format_option(check, help="how to print findings")
    # Options that take codes accumulate: `--select C003 --select C005` is `--select C003,C005`.
    for option, what in (
        ("--select", "comma-separated rule codes or prefixes to enable (ALL)"),
        ("--extend-select", "codes or prefixes to enable in addition"),
        ("--ignore", "codes or prefixes to disable"),
    ):
        check.add_argument(option, action="extend", type=_codes, metavar="CODES", help=f"{what}; may be repeated")
    check.add_argument("--strict", action="store_true", default=None, help="warnings fail the run too (exit 1)")
    check.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")
    check.add_argument("--config", type=Path, help="a pyproject.toml or .ctxres.toml to use instead of the nearest")
    check.add_argument("--no-respect-gitignore", action="store_true", help="also check files .gitignore excludes")
    check.add_argument(
        "--force-exclude",
        action="store_true",
        default=None,
        help="apply exclude/extend-exclude to files named on the command line too (for pre-commit)",
    )
    check.add_argument(
        "--include-examples",
        action="store_true",
        default=None,
        help="also check examples, templates and test data (`check-examples = true`): files under docs/protocol/ "
        "or a folder named examples, templates, test_data, testdata or fixtures, whose name starts with invalid_, "
        "or whose name says template, example or sample; a folder's walk "
        "skips them by default, as the hooks never take one for the live workflow",
    )
    add_color_option(check)
    check.add_argument(
        "--list-files",
        action="store_true",
        help="print the artifacts that would be checked and exit (and, on stderr, the files named like one that are "
        "another tool's)",
    )
    check.add_argument(
        "--statistics", action="store_true", help="print the number of findings of each rule instead of the findings"
    )
    check.add_argument(
        "--jobs",
        "-j",
        type=_jobs,
        default=None,
        metavar="N",
        help="check files in N processes (default: the number of cores; 1: in this process)",
    )
    add_baseline_options(check)
    check.add_argument(
        "--since",
        metavar="REF",
        help="also check the git history: each commit of REF..HEAD that moved the workflow state of an "
        "orchestration file without updating its resumption section is reported (S013); for CI",
    )
    check.set_defaults(handler=run)


def _code_problem(args: argparse.Namespace) -> str | None:
    """What is wrong with the first code of ``--select``, ``--extend-select`` or ``--ignore`` that selects no
    rule (``c003``, ``Z999``), or None."""
    for option in ("select", "extend_select", "ignore"):
        for code in getattr(args, option) or ():
            problem = selector_problem(code)
            if problem:
                return f"--{option.replace('_', '-')}: {problem}"
    return None


def _fewer_collections() -> None:
    """Make the cyclic garbage collector cheaper for the rest of this process: a check allocates millions of
    short-lived objects (parser nodes, values, positions) freed by reference counting, and makes few cycles.
    The objects alive now (the imported modules) are frozen out of every collection, and the youngest
    generation is collected when 50,000 more container objects are alive than at its last collection, not
    700: at 10,000 a large document's parser nodes (alive together) set off a collection of them every few
    files, 2-3% of the CPU time of a large check; at 50,000 a check of 10,000 files makes a few collections,
    and no more memory. Once per process: a process that runs several checks (a test suite) freezes its
    objects once."""
    if gc.get_threshold()[0] >= _YOUNG_THRESHOLD:
        return
    gc.freeze()
    gc.set_threshold(_YOUNG_THRESHOLD, 20, 20)


_YOUNG_THRESHOLD = 50_000


def run(args: argparse.Namespace) -> int:
    _fewer_collections()

    paths = args.paths or [Path(".")]
    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        print(f"ctxres: error: no such file or directory: {', '.join(missing)}", file=sys.stderr)
        return EXIT_ERROR
    problem = _code_problem(args)
    if problem:
        print(f"ctxres: error: {problem}", file=sys.stderr)
        return EXIT_ERROR
    if args.statistics and args.output_format not in REPORT_FORMATS:
        print(
            f"ctxres: error: --statistics prints {' or '.join(REPORT_FORMATS)}, not " + args.output_format,
            file=sys.stderr,
        )
        return EXIT_ERROR
    config = load_config(paths[0], args.config).with_overrides(
        select=_given(args.select),
        extend_select=_given(args.extend_select),
        ignore=_given(args.ignore),
        strict=args.strict,
        respect_gitignore=False if args.no_respect_gitignore else None,
        force_exclude=args.force_exclude,
        check_examples=args.include_examples,
    )
    shadowed = shadowed_warning(config)
    if shadowed:
        print(shadowed, file=sys.stderr)

    try:
        baseline = read_baseline(args, paths, config)
    except BaselineError as exc:
        print(f"ctxres: error: baseline {exc}", file=sys.stderr)
        return EXIT_ERROR
    if args.list_files:
        for artifact in discover(paths, config):
            print(f"{artifact.display}\t{artifact.kind}")
        for skipped, why in skipped_files(paths, config):  # on stderr: stdout lists what is checked
            print(f"ctxres: skipped {skipped}: {why}", file=sys.stderr)
        return EXIT_OK

    jobs = args.jobs or default_jobs()
    try:
        with one_listing():  # the files are listed once, for discovery and for the rules that look for others
            artifacts = find_artifacts(paths, config)
            compared = artifacts.compared.shown if artifacts.compared is not None else frozenset()
            with Progress("ctxres check", "files") as progress:
                # On thousands of files, in a terminal (and after the shared delay): nothing for a small check.
                shown = progress if len(artifacts) >= PROGRESS_MIN_FILES else None
                report = engine.run(paths, config, jobs=jobs, progress=shown, artifacts=artifacts)
    except engine.WorkerDied as exc:  # (the pool is imported only for --jobs 2 or more)
        print(f"ctxres: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    try:
        return _report(args, paths, config, report, baseline, compared)
    finally:  # the findings spilled to disk, removed now: the console script ends with os._exit
        release(report.findings)


def _report(
    args: argparse.Namespace,
    paths: list[Path],
    config: Config,
    report: Report,
    baseline: Baseline | None = None,
    compared: frozenset[str] = frozenset(),
) -> int:
    """Write ``report`` (with the findings of ``--since``, matched against ``baseline``) as asked; the exit
    code."""
    if args.since is not None:
        try:
            history = range_findings(args.since, paths, config)
        except GitError as exc:
            print(f"ctxres: error: --since: {exc}", file=sys.stderr)
            return EXIT_ERROR
        # Selection and severity settings apply; suppression comments do not (the lines are of old versions).
        findings = report.findings
        report.findings = sorted([*findings, *engine.apply_policy(history, {}, config)], key=Finding.sort_key)
        release(findings)
    if baseline is not None:
        report.baseline = match(baseline, paths, config, report, compared)
        report.show_baselined = args.show_baselined
    if _nothing_to_say(args, report):
        return EXIT_OK  # pre-commit named only files that are no resumption artifact: it shows "Passed" alone
    if args.statistics:
        sys.stdout.write(_statistics(report, args.output_format))
    else:
        write(args.output_format, report, sys.stdout, color=use_color(args.color))
    if report.files_checked == 0:
        print("ctxres: warning: no resumption artifacts found under " + ", ".join(map(str, paths)), file=sys.stderr)
    return EXIT_OK if args.exit_zero else engine.exit_code(report, config.strict)


def _nothing_to_say(args: argparse.Namespace, report: Report) -> bool:
    """A text report of no file and no finding for the files pre-commit named (a commit of ``mkdocs.yml``)."""
    return (
        args.output_format == "text"
        and bool(args.paths)
        and report.files_checked == 0
        and not report.findings
        and run_by_pre_commit(os.environ)
    )


def _statistics(report: Report, output_format: str) -> str:
    """``--statistics``: the number of findings of each rule, most frequent first."""
    from ctxres.linters.reporters.text import render_statistics, statistics

    names = {code: rule.name for code, rule in RULES.items()}
    if output_format == "json":
        rows: list[dict[str, object]] = []
        for count, code, name, baselined in statistics(report, names):
            row: dict[str, object] = {"code": code, "name": name, "count": count}
            if report.baseline is not None:  # how many of them the baseline accepts
                row["baselined"] = baselined
            rows.append(row)
        return json.dumps(rows, indent=2) + "\n"
    return render_statistics(report, names)
