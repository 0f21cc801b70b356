"""``ctxres schema``: export, list or show the JSON Schemas."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ctxres.linters.commands import EXIT_ERROR, EXIT_FINDINGS, EXIT_OK


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    schema = sub.add_parser(
        "schema",
        help="export or show the JSON Schemas",
        description="The JSON Schemas (draft 2020-12) generated from the models.",
    )
    actions = schema.add_subparsers(dest="schema_command", required=True, metavar="ACTION")
    export = actions.add_parser("export", help="write schemas/*.schema.json from the models")
    export.add_argument("--check", action="store_true", help="write nothing; exit 1 if a file would change")
    export.add_argument("--dir", type=Path, help="target folder (default: the package's schemas folder)")
    show = actions.add_parser("show", help="print one schema")
    show.add_argument("name", help="schema name, see `ctxres schema list`")
    actions.add_parser("list", help="list the schema names")
    schema.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.schema_command == "list":
        from ctxres.linters.rules import schema_names

        for name in schema_names():
            print(name)
        return EXIT_OK
    if args.schema_command == "show":
        from ctxres.linters.rules import schema_names
        from ctxres.linters.rules.conformance import schema_text

        if args.name not in schema_names():
            print(f"ctxres: error: unknown schema {args.name!r}; `ctxres schema list` lists them", file=sys.stderr)
            return EXIT_ERROR
        sys.stdout.write(schema_text(args.name))
        return EXIT_OK
    from ctxres.schemas import export  # imports pydantic: only for this command

    if args.check:
        stale = export.drift(args.dir)
        for name in stale:
            print(f"schemas/{name}: differs from the models; run `ctxres schema export`", file=sys.stderr)
        return EXIT_FINDINGS if stale else EXIT_OK
    for path in export.export(args.dir):
        print(f"wrote {path}")
    return EXIT_OK
