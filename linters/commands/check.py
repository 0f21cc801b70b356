"""``ctxres check``: every rule on the artifacts under the given paths (the main job)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from ctxres.config import load_config
from ctxres.findings import Finding
from ctxres.linters.commands import EXIT_ERROR, EXIT_OK


def _codes(value: str) -> tuple[str, ...]:
    return tuple(code.strip() for code in value.split(",") if code.strip())


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from ctxres.linters.commands.catalog import check_description
    from ctxres.linters.reporters import FORMATS

    check = sub.add_parser(
        "check",
        help="check resumption artifacts under the given paths",
        description=check_description(),  # the kinds of the artifact catalog (ctxres.artifacts)
    )
    check.add_argument("paths", nargs="*", type=Path, metavar="PATH", help="files or folders (default: .)")
    check.add_argument("--output-format", choices=FORMATS, default="text", help="how to print findings")
    check.add_argument("--select", type=_codes, help="comma-separated rule codes or prefixes to enable (ALL)")
    check.add_argument("--extend-select", type=_codes, help="codes or prefixes to enable in addition")
    check.add_argument("--ignore", type=_codes, help="codes or prefixes to disable")
    check.add_argument("--strict", action="store_true", default=None, help="warnings fail the run too (exit 1)")
    check.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")
    check.add_argument("--config", type=Path, help="a pyproject.toml or .ctxres.toml to use instead of the nearest")
    check.add_argument("--no-respect-gitignore", action="store_true", help="also check files .gitignore excludes")
    check.add_argument("--color", choices=("auto", "always", "never"), default="auto", help="colored text output")
    check.add_argument("--list-files", action="store_true", help="print the artifacts that would be checked and exit")
    check.add_argument(
        "--since",
        metavar="REF",
        help="also check the git history: each commit of REF..HEAD that moved the workflow state of an "
        "orchestration file without updating its resumption section is reported (S013); for CI",
    )
    check.set_defaults(handler=run)


def _use_color(choice: str) -> bool:
    if choice == "always":
        return True
    if choice == "never" or os.environ.get("NO_COLOR"):
        return False
    return sys.stdout.isatty()


def run(args: argparse.Namespace) -> int:
    from ctxres.linters.checking import engine
    from ctxres.linters.checking.discovery import discover
    from ctxres.linters.reporters import render

    paths = args.paths or [Path(".")]
    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        print(f"ctxres: error: no such file or directory: {', '.join(missing)}", file=sys.stderr)
        return EXIT_ERROR
    config = load_config(paths[0], args.config).with_overrides(
        select=args.select,
        extend_select=args.extend_select,
        ignore=args.ignore,
        strict=args.strict,
        respect_gitignore=False if args.no_respect_gitignore else None,
    )
    if args.list_files:
        for artifact in discover(paths, config):
            print(f"{artifact.display}\t{artifact.kind}")
        return EXIT_OK
    report = engine.run(paths, config)
    if args.since is not None:
        from ctxres.git import GitError
        from ctxres.linters.rules.stale_commits import range_findings

        try:
            history = range_findings(args.since, paths, config)
        except GitError as exc:
            print(f"ctxres: error: --since: {exc}", file=sys.stderr)
            return EXIT_ERROR
        # Selection and severity settings apply; suppression comments do not (the lines are of old versions).
        report.findings = sorted(report.findings + engine.apply_policy(history, {}, config), key=Finding.sort_key)
    sys.stdout.write(render(args.output_format, report, color=_use_color(args.color)))
    if report.files_checked == 0:
        print("ctxres: warning: no resumption artifacts found under " + ", ".join(map(str, paths)), file=sys.stderr)
    return EXIT_OK if args.exit_zero else engine.exit_code(report, config.strict)
