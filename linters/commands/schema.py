"""``ctxres schema``: export, list or show the JSON Schemas.

Only ``export`` imports the pydantic models, inside its function: ``list`` and ``show`` read the exported
files (docs/performance.md, "Start-up tricks")."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ctxres.linters.commands import EXIT_ERROR, EXIT_FINDINGS, EXIT_OK
from ctxres.linters.rules import schema_names
from ctxres.linters.rules.conformance import schema_text

DEFAULT_DIR = "schemas"
"""Where ``export`` writes without ``--dir``: ``./schemas`` in the current folder (never the
installed package; in a clone of ctxres, run from its root, it is the package's schemas folder)."""


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    schema = sub.add_parser(
        "schema",
        help="export or show the JSON Schemas",
        description="The JSON Schemas (draft 2020-12) generated from the models.",
    )
    actions = schema.add_subparsers(dest="schema_command", required=True, metavar="ACTION")
    export = actions.add_parser(
        "export",
        help=f"write the *.schema.json files from the models (into ./{DEFAULT_DIR}, or --dir)",
        description="Write one *.schema.json file per model into the folder (created when missing) and say "
        "where; `ctxres schema show` and the checks read the schemas installed with ctxres, not these files.",
    )
    export.add_argument("--check", action="store_true", help="write nothing; exit 1 if a file would change")
    export.add_argument(
        "--dir",
        type=Path,
        default=Path(DEFAULT_DIR),
        help=f"the folder to write to (created when missing) or compare with (default: ./{DEFAULT_DIR}, "
        "which in a clone of ctxres is the package's own schemas folder)",
    )
    show = actions.add_parser("show", help="print one schema")
    show.add_argument("name", help="schema name, see `ctxres schema list`")
    actions.add_parser("list", help="list the schema names")
    schema.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.schema_command == "list":
        for name in schema_names():
            print(name)
        return EXIT_OK
    if args.schema_command == "show":
        if args.name not in schema_names():
            print(f"ctxres: error: unknown schema {args.name!r}; `ctxres schema list` lists them", file=sys.stderr)
            return EXIT_ERROR
        sys.stdout.write(schema_text(args.name))
        return EXIT_OK
    return _export(args.dir, check=args.check)


def _target(directory: Path) -> str | None:
    """Why ``directory`` cannot hold the schemas, or None (it is, or now is, a folder)."""
    if directory.exists() and not directory.is_dir():
        return f"{directory} exists and is not a folder; give --dir a folder"
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return f"cannot create the folder {directory}: {exc.strerror or exc}"
    return None


def _export(directory: Path, *, check: bool) -> int:
    from ctxres.schemas import export

    if check:
        if not directory.is_dir():
            what = "is not a folder" if directory.exists() else "does not exist"
            print(f"ctxres schema export: error: {directory} {what}; give --dir the schemas folder", file=sys.stderr)
            return EXIT_ERROR
        stale = export.drift(directory)
        command = "ctxres schema export" + ("" if directory == Path(DEFAULT_DIR) else f" --dir {directory}")
        for name in stale:
            print(f"{directory / name}: differs from the models; run `{command}`", file=sys.stderr)
        if not stale:
            print(f"the schema files in {directory} match the models")
        return EXIT_FINDINGS if stale else EXIT_OK
    problem = _target(directory)
    if problem is not None:
        print(f"ctxres schema export: error: {problem}", file=sys.stderr)
        return EXIT_ERROR
    try:
        written = export.export(directory)
    except OSError as exc:
        print(f"ctxres schema export: error: cannot write to {directory}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_ERROR
    for path in written:
        print(f"wrote {path}")
    count = len(export.MODELS)
    if written:
        print(f"{len(written)} of {count} schema files written to {directory.resolve()}")
    else:
        print(f"the {count} schema files in {directory.resolve()} are up to date")
    return EXIT_OK
