"""``ctxres doctor``: which enforcement layers a repository has, and the command that adds each missing one."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ctxres import __version__
from ctxres.config import Config, load_config, project_folder, shadowed_warning
from ctxres.formats.versions import SETTING, unmet
from ctxres.linters.commands import elsewhere
from ctxres.linters.reporters import add_format_option, print_findings
from ctxres.linters.rules.layers import (
    MISCONFIGURED,
    MISSING,
    PRESENT,
    UNREADABLE,
    UNVERIFIED,
    Layer,
    diagnose,
    layer_findings,
    live_workflow,
)
from ctxres.linters.setup.checkpoints_tracked import check_checkpoints_tracked
from ctxres.linters.setup.hook_runs import check_hook_runs
from ctxres.linters.setup.precommit_setup import check_precommit_setup
from ctxres.linters.setup.settings_check import SETTINGS_LAYER, check_settings
from ctxres.linters.setup.statusline import statusline_note

VERSION_LAYER = "ctxres version"

SUMMARY = ((MISSING, "Not present"), (MISCONFIGURED, "Misconfigured"), (UNVERIFIED, "Warning: could not verify"))


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "doctor",
        help="report the enforcement layers (L1-L4, hooks, pre-commit) of a repository",
        description="Check that a repository has every layer that keeps its resumption section fresh: the "
        "protocol document (L1), the L2-REINJECT reminder (L2), the PostToolUse staleness hook (L3), the "
        "context monitor (L4), the checkpoint and re-orientation hooks, and the pre-commit hooks. Each "
        "missing or misconfigured layer comes with the command that fixes it. The report also names the live "
        "workflow the hooks and `ctxres ack`/`prompt` act on, or says there is none (which is not a failure). "
        "It also runs every ctxres hook command of .claude/settings.json and .claude/settings.local.json the "
        "way Claude Code does (sh -c, in the repository, with a harmless payload and CTXRES_HOOK_PROBE=1, so "
        "that no state is read or written) and fails when one does not answer; and, when "
        ".pre-commit-config.yaml uses the ctxres hooks, checks that `pre-commit install` was run and that "
        "the rev: exists (a rev that cannot be checked without the network is a warning). "
        "Exit 1 when a layer is not present or a check fails.",
    )
    parser.add_argument(
        "path",
        nargs="?",
        type=Path,
        help="the repository (default: the one holding the working folder: the folder of its configuration file, "
        "else the top of its git work tree)",
    )
    add_format_option(parser, "how to print the report (github: annotations, sarif: code scanning; L001, L002)")
    parser.set_defaults(handler=run)


def summary(rows: list[Layer]) -> list[str]:
    """The closing lines: each layer that is missing, misconfigured or unverified, named once."""

    def named(status: str) -> str:
        return ", ".join(dict.fromkeys(r.layer for r in rows if r.status == status))

    lines = [
        f"{label}{'' if label.endswith('verify') else ':'} {named(status)}."
        for status, label in SUMMARY
        if named(status)
    ]
    if not any(not r.ok for r in rows):
        lines.insert(0, "All layers present.")
    return lines


def check_required_version(config: Config) -> list[Layer]:
    """The row of the repository's ``required-version`` (none when it sets none): this ctxres satisfies it, or
    every other command refuses to run and the hooks say so once a session."""
    if config.required_version is None or config.source is None:
        return []
    where = config.source.name
    problem = unmet(__version__, config.required_version, where)
    if problem is None:
        detail = f"ctxres {__version__} satisfies {config.required_version} ({SETTING} in {where})"
        return [Layer(VERSION_LAYER, PRESENT, detail, "", where)]
    fix = problem.split(": ", 1)[1] if ": " in problem else f"install a ctxres that satisfies {SETTING}"
    detail = problem.split(": upgrade", 1)[0] + ": the other ctxres commands refuse to run"
    return [Layer(VERSION_LAYER, MISCONFIGURED, detail, fix, where)]


def run(args: argparse.Namespace) -> int:
    root: Path = args.path if args.path is not None else project_folder(Path.cwd())
    if not root.is_dir():
        print(f"ctxres: error: {root} is not a folder", file=sys.stderr)
        return 2
    config = load_config(root)
    shadowed = shadowed_warning(config)
    if shadowed:
        print(shadowed, file=sys.stderr)
    away = elsewhere(root) if args.path is None else None
    if away:  # the layers' paths are the project's: say from where (stdout stays one document for json, sarif)
        print(
            f"{away}; the paths below are relative to it",
            file=sys.stdout if args.output_format == "text" else sys.stderr,
        )
    tracked = check_checkpoints_tracked(root.resolve(), config)
    settings_rows, settings_found = check_settings(root.resolve(), config)
    rows = (
        check_required_version(config)
        + diagnose(root.resolve(), config)
        + settings_rows
        + check_hook_runs(root.resolve())
        + check_precommit_setup(root.resolve())
        + ([tracked] if tracked is not None else [])
    )
    workflow = live_workflow(root.resolve(), config)  # informative, unless it cannot be read
    statusline = statusline_note(root.resolve())  # informative too: the person's view, not a layer
    if args.output_format == "json":
        print(
            json.dumps(
                {
                    "ok": all(r.ok for r in rows) and workflow.status != UNREADABLE,
                    "layers": [{"layer": r.layer, "status": r.status, "detail": r.detail, "fix": r.fix} for r in rows],
                    "workflow": workflow.as_json(),
                    "statusline": {"status": statusline[0], "note": statusline[1]},
                },
                indent=2,
            )
        )
    elif args.output_format != "text":
        layers = [row for row in rows if row.layer != SETTINGS_LAYER]  # the settings' own findings instead
        print_findings(args.output_format, layer_findings(layers, root.resolve(), Path.cwd()) + settings_found, 1)
    else:
        width = max(len(r.layer) for r in rows)
        for row in rows:
            print(f"{row.layer:<{width}}  {row.status:<13} {row.detail}")
            if row.fix:
                print(f"{'':<{width}}  {'':<13} fix: {row.fix}")
        print(f"{'statusline':<{width}}  {statusline[0]:<13} {statusline[1]}")
        state = "unreadable" if workflow.status == UNREADABLE else "live" if workflow.path else "none"
        print(f"{'workflow':<{width}}  {state:<13} {workflow.note}")
        print()
        for line in summary(rows):
            print(line)
    return 0 if all(r.ok for r in rows) and workflow.status != UNREADABLE else 1
