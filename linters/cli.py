"""The ``ctxres`` command line."""

from __future__ import annotations

import argparse
import importlib
import json
import os
import pkgutil
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

from ctxres import __version__
from ctxres.config import ConfigError, load_config
from ctxres.findings import Finding

EXIT_OK, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


def _codes(value: str) -> tuple[str, ...]:
    return tuple(code.strip() for code in value.split(",") if code.strip())


def _add_check(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from ctxres.linters.cmd_catalog import check_description
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


def _add_rules(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    rule = sub.add_parser("rule", help="explain one rule", description="Print the documentation of a rule.")
    rule.add_argument("code", help="a rule code such as C001")
    rule.add_argument("--output-format", choices=("text", "json"), default="text")
    rules = sub.add_parser("rules", help="list every rule", description="List every rule with its summary.")
    rules.add_argument("--output-format", choices=("text", "json", "markdown"), default="text")
    rules.add_argument("--write-docs", type=Path, metavar="DIR", help="write one Markdown page per rule into DIR")
    rules.add_argument(
        "--check-docs", type=Path, metavar="DIR", help="exit 1 if the pages in DIR differ from the rule documentation"
    )


def _add_schema(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
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


def _command_modules() -> list[ModuleType]:
    """Extra commands live in ``linters/cmd_<name>.py``: ``add_parser(sub)`` registers the
    sub-command and sets ``handler`` (a function of the parsed arguments returning the exit code)
    with ``set_defaults``."""
    import ctxres.linters as package

    names = sorted(m.name for m in pkgutil.iter_modules(package.__path__) if m.name.startswith("cmd_"))
    return [importlib.import_module(f"ctxres.linters.{name}") for name in names]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ctxres",
        description="Keep the resumption state of long-running Claude Code workflows valid and fresh.",
        epilog="Exit status: 0 no findings, 1 findings, 2 usage or internal error.",
    )
    parser.add_argument("--version", action="version", version=f"ctxres {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _add_check(sub)
    _add_rules(sub)
    _add_schema(sub)
    for module in _command_modules():
        module.add_parser(sub)
    return parser


def _use_color(choice: str) -> bool:
    if choice == "always":
        return True
    if choice == "never" or os.environ.get("NO_COLOR"):
        return False
    return sys.stdout.isatty()


def cmd_check(args: argparse.Namespace) -> int:
    from ctxres.discovery import discover
    from ctxres.linters import engine
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
        from ctxres.linters.history import range_findings

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


def cmd_rule(args: argparse.Namespace) -> int:
    from ctxres.linters.rules import all_rules

    rules = all_rules()
    rule = rules.get(args.code.upper())
    if rule is None:
        print(f"ctxres: error: unknown rule {args.code!r}; `ctxres rules` lists them", file=sys.stderr)
        return EXIT_ERROR
    if args.output_format == "json":
        print(
            json.dumps(
                {
                    "code": rule.code,
                    "name": rule.name,
                    "family": rule.family,
                    "summary": rule.summary,
                    "severity": rule.severity.value,
                    "explanation": rule.doc(),
                },
                indent=2,
            )
        )
    else:
        sys.stdout.write(rule.doc())
    return EXIT_OK


def cmd_rules(args: argparse.Namespace) -> int:
    from ctxres.linters.rules import all_rules, docs_drift, write_docs

    rules = all_rules()
    if args.write_docs:
        for path in write_docs(args.write_docs):
            print(f"wrote {path}")
        return EXIT_OK
    if args.check_docs:
        stale = docs_drift(args.check_docs)
        for name in stale:
            print(f"{args.check_docs / name}: differs from the rule documentation", file=sys.stderr)
        if stale:
            print("run `ctxres rules --write-docs docs/rules` to regenerate", file=sys.stderr)
        return EXIT_FINDINGS if stale else EXIT_OK
    if args.output_format == "json":
        print(
            json.dumps(
                [
                    {
                        "code": r.code,
                        "name": r.name,
                        "family": r.family,
                        "summary": r.summary,
                        "severity": r.severity.value,
                    }
                    for r in rules.values()
                ],
                indent=2,
            )
        )
        return EXIT_OK
    if args.output_format == "markdown":
        print("| code | name | default | summary |\n|---|---|---|---|")
        for rule in rules.values():
            summary = rule.summary.replace("|", "\\|")
            print(f"| {rule.code} | {rule.name} | {rule.severity.value} | {summary} |")
        return EXIT_OK
    width = max(len(rule.name) for rule in rules.values())
    for rule in rules.values():
        print(f"{rule.code}  {rule.name:<{width}}  {rule.severity.value:<8} {rule.summary}")
    return EXIT_OK


def cmd_schema(args: argparse.Namespace) -> int:
    if args.schema_command == "list":
        from ctxres.linters.rules import schema_names

        for name in schema_names():
            print(name)
        return EXIT_OK
    if args.schema_command == "show":
        from ctxres.linters.conformance import schema_text
        from ctxres.linters.rules import schema_names

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


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handlers = {"check": cmd_check, "rule": cmd_rule, "rules": cmd_rules, "schema": cmd_schema}
    try:
        handler = handlers.get(args.command) or args.handler
        return int(handler(args))
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
