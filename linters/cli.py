"""The ``ctxres`` command line: one sub-command per module of :mod:`ctxres.linters.commands`."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from ctxres import __version__
from ctxres.linters.commands import (
    COMMAND_MODULES,
    EXIT_ERROR,
    EXIT_FINDINGS,
    EXIT_OK,
    command_module,
    command_modules,
)


class SubCommandParser(argparse.ArgumentParser):
    """The parser of a sub-command: an argument it does not know is its own error.

    argparse hands a sub-command's unknown arguments back to the top-level parser, which then prints
    ``usage: ctxres [-h] [--version] COMMAND ...``; here the sub-command that was typed reports them,
    with its own usage line and the nearest option it has ("did you mean --output-format?").
    Nested sub-commands (``ctxres schema export``) use this class too, so the innermost one reports.
    """

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        parsed, extras = super().parse_known_args(args, namespace)
        if extras:
            command = self.prog.split()[1] if len(self.prog.split()) == 2 else ""
            self.error(unrecognized_message(extras, self.option_strings(), command))
        return parsed, extras

    def option_strings(self) -> list[str]:
        return [option for action in self._actions for option in action.option_strings]


# A mistyped command or option imports difflib in the function that answers it: `audit-history` loads no more
# than it uses (docs/performance.md, "Start-up tricks").


def unrecognized_message(extras: Sequence[str], options: Sequence[str], command: str = "") -> str:
    """``unrecognized arguments: ...``, with, for each unknown option, the command that has it
    (``check --fix``: ``ctxres reinject --fix``), else the closest option of this command."""
    import difflib

    message = f"unrecognized arguments: {' '.join(extras)}"
    hints = []
    for extra in extras:
        if not extra.startswith("-"):
            continue
        name = extra.split("=", 1)[0]
        elsewhere = [other for other in commands_with_option(name) if other != command]
        close = difflib.get_close_matches(name, options, n=1, cutoff=0.6)
        if elsewhere:
            hint = "did you mean " + " or ".join(f"`ctxres {other} {name}`" for other in elsewhere) + "?"
        elif close:
            hint = f"did you mean {close[0]}?"
        else:
            continue
        hints.append(hint if len(extras) == 1 else f"{name}: {hint}")
    return "; ".join([message, *hints])


def commands_with_option(option: str) -> list[str]:
    """The sub-commands that accept ``option`` (every command's parser is built: an error path only)."""
    if option in ("-h", "--help"):
        return []
    found = []
    for action in build_parser()._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, parser in action.choices.items():
                if option in (o for a in parser._actions for o in a.option_strings) and name not in found:
                    found.append(name)
    return found


def unknown_command(given: str) -> str | None:
    """The error for a first argument that is no command, with the closest one ("did you mean check?")."""
    if given.startswith("-") or given in COMMAND_MODULES:
        return None
    import difflib

    close = difflib.get_close_matches(given, list(COMMAND_MODULES), n=1, cutoff=0.6)
    hint = f"; did you mean `ctxres {close[0]}`?" if close else f"; the commands: {', '.join(COMMAND_MODULES)}"
    return f"unknown command {given!r}{hint}"


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every sub-command, or of ``command`` alone when it names one (the other
    commands' modules are not imported: a sub-command parses and reports as it does among them)."""
    parser = argparse.ArgumentParser(
        prog="ctxres",
        description="Keep the resumption state of long-running Claude Code workflows valid and fresh.",
        epilog="Exit status: 0 no findings, 1 findings, 2 usage or internal error.",
    )
    parser.add_argument("--version", action="version", version=f"ctxres {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=SubCommandParser)
    only = command_module(command) if command is not None else None
    for module in [only] if only is not None else command_modules():
        module.add_parser(sub)
    return parser


# The commands that run whatever version the repository requires (`required-version`): the doctor reports it.
VERSION_UNCHECKED = frozenset({"doctor"})


def main(argv: Sequence[str] | None = None) -> int:
    given = list(sys.argv[1:] if argv is None else argv)
    unknown = unknown_command(given[0]) if given else None
    if unknown is not None:
        print(f"usage: ctxres [-h] [--version] COMMAND ...\nctxres: error: {unknown}", file=sys.stderr)
        return EXIT_ERROR
    parser = build_parser(given[0] if given and not given[0].startswith("-") else None)
    args = parser.parse_args(given)
    if args.command not in VERSION_UNCHECKED:
        from ctxres.config_file import problem_here

        pinned = problem_here(os.getcwd())
        if pinned is not None:
            print(f"ctxres: error: {pinned}", file=sys.stderr)
            return EXIT_ERROR
    try:
        return int(args.handler(args))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return EXIT_OK
    except Exception as exc:  # never a traceback for the user; CTXRES_DEBUG=1 shows it
        # A ConfigError comes from ctxres.config, so only when a command imported it (start-up time).
        config = sys.modules.get("ctxres.config")
        if config is not None and isinstance(exc, config.ConfigError):
            print(f"ctxres: configuration error: {exc}", file=sys.stderr)
            return EXIT_ERROR
        if os.environ.get("CTXRES_DEBUG"):
            raise
        print(
            f"ctxres: internal error: {type(exc).__name__}: {exc} "
            "(please report it; set CTXRES_DEBUG=1 for the traceback)",
            file=sys.stderr,
        )
        return EXIT_ERROR


# The sub-commands that release every resource they take before they return (``check``: its worker pool is shut
# down, the findings it spilled to disk removed), so that the console script may end without the interpreter's
# teardown (no atexit handler, finalizer or collection is needed after them).
_QUICK_EXIT = frozenset({"check"})


def cli() -> int:
    """The console script: :func:`main`, then, after a sub-command of ``_QUICK_EXIT`` that ended with its
    result (0 or 1, not an error or an interrupt), stdout and stderr flushed and the process ended with
    ``os._exit``: the interpreter's teardown (freeing every object of a check) is ~2% of a check's CPU."""
    given = sys.argv[1:]
    code = main(given)
    if given and given[0] in _QUICK_EXIT and code in (EXIT_OK, EXIT_FINDINGS):
        _end(code)
    return code


def _end(code: int) -> None:
    """Flush what was printed and leave at once (``os._exit``) with ``code``; the usual exit when a stream
    cannot be flushed (a closed pipe), which then reports it as it always did."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except Exception:
        return
    os._exit(code)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
