"""``ctxres rule CODE`` and ``ctxres rules``: the rule documentation."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ctxres.linters.commands import EXIT_ERROR, EXIT_FINDINGS, EXIT_OK


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    rule = sub.add_parser("rule", help="explain one rule", description="Print the documentation of a rule.")
    rule.add_argument("code", help="a rule code such as C001")
    rule.add_argument("--output-format", choices=("text", "json"), default="text")
    rule.set_defaults(handler=run_rule)
    rules = sub.add_parser("rules", help="list every rule", description="List every rule with its summary.")
    rules.add_argument("--output-format", choices=("text", "json", "markdown"), default="text")
    rules.add_argument("--write-docs", type=Path, metavar="DIR", help="write one Markdown page per rule into DIR")
    rules.add_argument(
        "--check-docs", type=Path, metavar="DIR", help="exit 1 if the pages in DIR differ from the rule documentation"
    )
    rules.set_defaults(handler=run_rules)


def run_rule(args: argparse.Namespace) -> int:
    from ctxres.linters.checking.registry import suggestion
    from ctxres.linters.rules import all_rules

    rules = all_rules()
    rule = rules.get(args.code.upper())
    if rule is None:
        hint = suggestion(args.code, exact=True)
        tail = f"; did you mean {hint!r}?" if hint else "; `ctxres rules` lists them"
        print(f"ctxres: error: unknown rule {args.code!r}{tail}", file=sys.stderr)
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


def run_rules(args: argparse.Namespace) -> int:
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
