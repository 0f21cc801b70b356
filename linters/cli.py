"""The ``ctxres`` command line: one sub-command per module of :mod:`ctxres.linters.commands`."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from ctxres import __version__
from ctxres.config import ConfigError
from ctxres.linters.commands import EXIT_ERROR, EXIT_OK, command_modules


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ctxres",
        description="Keep the resumption state of long-running Claude Code workflows valid and fresh.",
        epilog="Exit status: 0 no findings, 1 findings, 2 usage or internal error.",
    )
    parser.add_argument("--version", action="version", version=f"ctxres {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in command_modules():
        module.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.handler(args))
    except ConfigError as exc:
        print(f"ctxres: configuration error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return EXIT_OK
    except Exception as exc:  # never a traceback for the user; CTXRES_DEBUG=1 shows it
        if os.environ.get("CTXRES_DEBUG"):
            raise
        print(
            f"ctxres: internal error: {type(exc).__name__}: {exc} "
            "(please report it; set CTXRES_DEBUG=1 for the traceback)",
            file=sys.stderr,
        )
        return EXIT_ERROR


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
