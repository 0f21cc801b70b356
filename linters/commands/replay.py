"""``ctxres replay FIXTURE... [--update]``: re-run recorded hook sessions and compare with their goldens.

Each FIXTURE is a fixture directory (``steps.yaml``, ``workspace/``, ``expected/``; see
``fixtures/README.md``) or a folder holding fixture directories at any depth (``ctxres replay
fixtures`` runs every one under ``fixtures/``, sorted by path). Every step runs the real ``ctxres-hook``
process in a temporary copy of the workspace with the clock frozen. Exit status: 0 every output
matches, 1 a difference (each shown as a unified diff naming fixture, step and file; with
``--update`` the goldens are rewritten and the changes shown, exit 0), 2 usage error.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ctxres.linters.replay.player import FixtureError, find_fixtures, replay

EXIT_OK, EXIT_DIFFERENT, EXIT_USAGE = 0, 1, 2


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "replay",
        help="replay recorded hook sessions (golden fixtures) and diff the outputs",
        description="Run every step of each fixture (a recorded session: steps.yaml, workspace/, expected/) "
        "against a temporary copy of its workspace, invoking the real ctxres-hook process with the clock "
        "frozen, and compare each hook's output and every file written with expected/.",
        epilog="Exit status: 0 all outputs match, 1 differences (or goldens updated: 0), 2 usage error.",
    )
    parser.add_argument(
        "fixtures",
        nargs="+",
        type=Path,
        metavar="FIXTURE",
        help="a fixture directory, or a folder holding fixture directories at any depth",
    )
    parser.add_argument("--update", action="store_true", help="rewrite expected/ and print what changed")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    try:
        fixtures = find_fixtures(args.fixtures)
        failed = 0
        for root in fixtures:
            differences = replay(root, update=args.update)
            for block in differences:
                sys.stdout.write(block if block.endswith("\n") else block + "\n")
            if differences and args.update:
                print(f"{root}: expected/ rewritten ({len(differences)} golden file(s) changed)")
            elif differences:
                failed += 1
            else:
                print(f"{root}: ok")
    except FixtureError as exc:
        print(f"ctxres replay: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as exc:
        print(f"ctxres replay: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if failed:
        print(f"ctxres replay: {failed} of {len(fixtures)} fixture(s) differ from expected/", file=sys.stderr)
        return EXIT_DIFFERENT
    return EXIT_OK
