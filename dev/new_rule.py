"""Add a rule: ``python dev/new_rule.py LETTER --module MODULE --name kebab-name`` (or a code for LETTER).

It takes the family's first free code, finds where each thing goes by parsing the files (``RULE_MODULES``,
``CODES``, ``FAMILIES``), and writes nothing unless every step succeeds.

It writes what every rule has, so that what is left to write by hand is the rule itself:

- the code in ``CODES`` of ``ctxres/config.py`` (and, for a new letter given ``--family NAME``, the family in
  ``FAMILIES``);
- the registration (``register(...)``, with Why / Example / Fix headings to fill in) and a declared check that
  finds nothing yet, at the end of ``linters/rules/MODULE.py``; a new module is created, added to
  ``RULE_MODULES`` of ``linters/rules/__init__.py`` and to the ``linters/rules/`` table of
  ``docs/architecture.md``, with its test module ``tests/rules/test_MODULE.py``;
- ``fixtures/rules/CODE/bad/``, ``good/`` and ``good-near-miss/``, in the form
  ``tests/rules/test_rule_fixtures.py`` reads (an ``expect: CODE`` marker on the line of the finding);
- the rule's page, ``docs/rules/severity.md`` and the README rule table, by ``python dev/generate.py --write``
  (the code ``ctxres rules --write-docs`` and the README writer use).

The check it writes reports nothing, so the bad fixture's expected finding is missing and
``pytest tests/rules/test_rule_fixtures.py -k CODE`` fails until the check is written. It runs on the
repository it sits in (its parent folder); like ``dev/generate.py`` it is a maintainer's tool, not part of the
package (``dev/`` is not in the wheel).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # the package of this repository, not another installed one
    sys.path.insert(0, str(ROOT))

CODE = re.compile(r"^[A-Z]\d{3}$")
FAMILY = re.compile(r"^[A-Z]$")
NAME = re.compile(r"^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$")
MODULE = re.compile(r"^[a-z][a-z0-9_]*$")
KINDS = ("orchestration",)
"""The artifact kinds the scaffold writes fixtures for (a check of another kind is declared the same way; its
fixtures are written by hand, as those of fixtures/rules/ for that kind)."""

CASES = {"error": "CONTRADICTION", "warning": "ADVICE"}
"""The case of the severity policy the stub starts from, by severity (docs/rules/severity.md lists them all)."""

# A live v2.0 workflow that every rule passes: the good fixture, and the start of the other two.
WORKFLOW = """workflow:
  id: "demo-20260217-001"
  status: "ACTIVE"
resumption:
  recovery_state:
    last_checkpoint: null
    current_phase: 1
    current_phase_name: "Audit"
    workflow_status: "ACTIVE"
    current_activity: "phase-1-agent-execution"
    next_step: "Run the next agent of the phase."
    updated_at: "2026-02-17T10:00:00Z"
  files_to_read: ["ORCHESTRATION.yaml"]
  quality_trajectory: {gates_completed: [], gates_remaining: ["qg-1"], score_history: {}}
  defect_summary: {total_defects_found: 0, total_defects_resolved: 0, unresolved_defects: []}
  agent_summaries: {}
  compaction_events: {count: 0, events: []}
"""

IMPORTS = """from ctxres.config import Config
from ctxres.findings import Finding, Severity
from ctxres.formats.document import Document
from ctxres.linters.checking.registry import document_check, register
from ctxres.linters.checking.severity_policy import Case
"""


class ScaffoldError(Exception):
    """The rule cannot be added as asked: the message says why."""


def constant(name: str) -> str:
    return name.upper().replace("-", "_")


def registration(code: str, name: str, severity: str, kind: str) -> str:
    """The registration and the check that finds nothing yet, at the end of the rule's module."""
    const = constant(name)
    function = "check_" + name.replace("-", "_")
    level = "ERROR" if severity == "error" else "WARNING"
    return f'''

# --- {code}: {name} {"-" * max(3, 100 - len(code) - len(name) - 9)}

{const} = register(
    "{code}",
    "{name}",
    "TODO: what is wrong, in one sentence (the summary `ctxres rules` lists).",
    Severity.{level},
    case=Case.{CASES[severity]},
    why="TODO: why this case of the severity policy (docs/rules/severity.md), in one sentence.",
    explanation="""
    ## Why
    TODO: what goes wrong when a file has this defect.

    ## Example
    ```yaml
    TODO: the smallest file that has it (the bad fixture, fixtures/rules/{code}/bad/).
    ```

    ## Fix
    TODO: what to change.
    """,
)


@document_check({const}, kinds=("{kind}",))
def {function}(doc: Document, _config: Config) -> list[Finding]:
    """{code}: TODO: what the check looks for.

    It finds nothing yet: the bad fixture (fixtures/rules/{code}/bad/) fails tests/rules/test_rule_fixtures.py
    until this check reports the defect there, as ``Finding(doc.path, rule.code, message, rule.severity,
    doc.locate(path), format_json_path(path), fix)`` with ``rule = {const}``.
    """
    findings: list[Finding] = []
    return findings
'''


def new_module(module: str, code: str) -> str:
    return f'''"""{code}: TODO: what this family of rules checks."""

from __future__ import annotations

{IMPORTS}'''


def test_module(module: str, code: str, name: str) -> str:
    return f'''"""{code} ({name}): its fixtures (fixtures/rules/{code}/) run in test_rule_fixtures.py; the tests of the
module's own functions go here."""

from __future__ import annotations

from ctxres.linters.checking.registry import RULES
from ctxres.linters.rules import {module}


def test_the_rule_is_registered_with_its_check() -> None:
    assert RULES["{code}"] is {module}.{constant(name)}
'''


class Edits:
    """The files the scaffold writes, held in memory until every step has succeeded: nothing is written when
    a step fails, and the files are put back as they were when the regeneration fails."""

    def __init__(self) -> None:
        self.texts: dict[Path, str] = {}

    def read(self, path: Path) -> str:
        return self.texts[path] if path in self.texts else path.read_text("utf-8")

    def write(self, path: Path, text: str) -> None:
        self.texts[path] = text

    def apply(self) -> dict[Path, str | None]:
        """Write every file; the former text of each (None: it did not exist), to put back."""
        former = {path: path.read_text("utf-8") if path.exists() else None for path in self.texts}
        for path, text in self.texts.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, "utf-8")
        return former


def restore(former: dict[Path, str | None]) -> None:
    for path, text in former.items():
        if text is None:
            path.unlink(missing_ok=True)
        else:
            path.write_text(text, "utf-8")


def append_to(text: str, name: str, entry: str, where: str) -> str:
    """``text`` (a module) with ``entry`` as the last element of the literal assigned to ``name`` (a tuple, a
    dict, or the string a call such as ``CODES = _listed(...)`` reads), found by parsing the module, not by its
    text: a line of its own before the closing line."""
    import ast

    for node in ast.parse(text).body:
        targets = (
            node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        )
        if any(isinstance(target, ast.Name) and target.id == name for target in targets):
            value = node.value
            if isinstance(value, ast.Call) and value.args:
                value = value.args[0]
            if value is None or value.end_lineno is None or value.end_lineno == value.lineno:
                break
            lines = text.splitlines(keepends=True)
            lines.insert(value.end_lineno - 1, entry + "\n")
            return "".join(lines)
    raise ScaffoldError(f"{where}: no multi-line `{name} = ...` to add to")


def first_free(letter: str) -> str:
    """The first code of family ``letter`` that no rule has."""
    from ctxres.config import CODES

    return next(f"{letter}{number:03d}" for number in range(1, 1000) if f"{letter}{number:03d}" not in CODES)


def add_code(edits: Edits, code: str, family: str | None) -> None:
    """The code in CODES of ctxres/config.py, on its family's line (a new line for a new family)."""
    from ctxres.config import CODES, FAMILIES

    config = ROOT / "ctxres" / "config.py"
    if code in CODES:
        raise ScaffoldError(f"{code} is a rule already (`ctxres rule {code}`)")
    letter = code[0]
    if letter not in FAMILIES:
        if not family:
            known = ", ".join(FAMILIES)
            raise ScaffoldError(f"{letter} is no family ({known}): give the new family's name with --family")
        text = append_to(edits.read(config), "FAMILIES", f'    "{letter}": "{family}",', "ctxres/config.py")
        edits.write(config, append_to(text, "CODES", f"    {code}", "ctxres/config.py"))
        return
    text = edits.read(config)
    line = re.search(rf"^    ({letter}\d{{3}}(?: {letter}\d{{3}})*)$", text, re.MULTILINE)
    if line is None:
        raise ScaffoldError(f"ctxres/config.py: no line of {letter} codes in CODES")
    codes = " ".join(sorted([*line.group(1).split(), code]))
    edits.write(config, text[: line.start(1)] + codes + text[line.end(1) :])


def add_rule(edits: Edits, module: str, code: str, name: str, severity: str, kind: str) -> list[str]:
    """The registration and check in the module (a new module: listed, documented, with its test module)."""
    path = ROOT / "linters" / "rules" / f"{module}.py"
    written = [f"linters/rules/{module}.py"]
    if path.exists():
        text = path.read_text("utf-8")
        if re.search(rf"^{constant(name)} = ", text, re.MULTILINE):
            raise ScaffoldError(f"linters/rules/{module}.py defines {constant(name)} already")
        text = with_imports(text, IMPORTS)
        edits.write(path, text.rstrip("\n") + "\n" + registration(code, name, severity, kind))
        return written
    edits.write(path, new_module(module, code) + registration(code, name, severity, kind)[1:])
    listing = ROOT / "linters" / "rules" / "__init__.py"
    entry = f'    "ctxres.linters.rules.{module}",'
    edits.write(listing, append_to(edits.read(listing), "RULE_MODULES", entry, "linters/rules/__init__.py"))
    architecture = ROOT / "docs" / "architecture.md"
    row = f"| `{module}` | {code}: TODO |"
    edits.write(architecture, _add_table_row(edits.read(architecture), "### `linters/rules/`", row))
    test = ROOT / "tests" / "rules" / f"test_{module}.py"
    edits.write(test, test_module(module, code, name))
    return [*written, "linters/rules/__init__.py", "docs/architecture.md", f"tests/rules/test_{module}.py"]


def with_imports(text: str, imports: str) -> str:
    """``text`` (a module) importing the names of ``imports`` too (``from X import a, b`` lines), as ruff's isort
    writes them: a name added to the module's ``from X import`` line, or a new line in sorted place; a name the
    module imports already (for the type checker too) is left out."""
    import ast

    for line in imports.splitlines():
        source, names = line[len("from ") :].split(" import ")
        tree = ast.parse(text)
        bound = {
            alias.asname or alias.name
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom)
            for alias in node.names
        }
        wanted = [name for name in names.split(", ") if name not in bound]
        if not wanted:
            continue
        top = [node for node in tree.body if isinstance(node, ast.ImportFrom) and node.module and not node.level]
        lines = text.splitlines(keepends=True)
        same = next((node for node in top if node.module == source), None)
        if same is not None:
            merged = [alias.name for alias in same.names] + wanted
            lines[same.lineno - 1 : same.end_lineno] = [_from_import(source, merged)]
        else:
            after = next(
                (node for node in top if node.module and node.module > source and node.module.startswith("ctxres")),
                None,
            )
            at = after.lineno - 1 if after is not None else max(node.end_lineno or node.lineno for node in top)
            lines.insert(at, _from_import(source, wanted))
        text = "".join(lines)
    return text


def _from_import(source: str, names: list[str]) -> str:
    """One ``from source import ...`` statement, its names in isort's order (constants, classes, the rest)."""
    ordered = sorted(
        set(names), key=lambda name: (0 if name.isupper() and len(name) > 1 else 1 if name[0].isupper() else 2, name)
    )
    line = f"from {source} import {', '.join(ordered)}\n"
    if len(line) <= 121:
        return line
    return f"from {source} import (\n" + "".join(f"    {name},\n" for name in ordered) + ")\n"


def _add_table_row(text: str, heading: str, row: str) -> str:
    """``text`` with ``row`` at the end of the first table after ``heading``."""
    lines = text.splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if line.strip() == heading), None)
    if start is None:
        raise ScaffoldError(f"docs/architecture.md: no heading {heading}")
    first = next(i for i in range(start, len(lines)) if lines[i].startswith("|"))
    end = next((i for i in range(first, len(lines)) if not lines[i].startswith("|")), len(lines))
    lines.insert(end, row + "\n")
    return "".join(lines)


def add_fixtures(edits: Edits, code: str, name: str) -> list[str]:
    """bad/, good/ and good-near-miss/ of fixtures/rules/CODE/, each a workflow every rule passes; the bad one
    carries the marker of the finding its check must report."""
    folder = ROOT / "fixtures" / "rules" / code
    if folder.exists():
        raise ScaffoldError(f"fixtures/rules/{code}/ exists already")
    lines = WORKFLOW.splitlines(keepends=True)
    bad = (
        f"# {code} ({name}): TODO: give this file the defect, and put the marker on the line it is reported on.\n"
        + lines[0].rstrip("\n")
        + f"  # expect: {code}\n"
        + "".join(lines[1:])
    )
    cases = {
        "bad": bad,
        "good": f"# {code} ({name}): TODO: a workflow without the defect.\n" + WORKFLOW,
        "good-near-miss": f"# {code} ({name}): TODO: a near miss: it looks like the defect but is not one.\n"
        + WORKFLOW,
    }
    written = []
    for case, text in cases.items():
        edits.write(folder / case / "ORCHESTRATION.yaml", text)
        written.append(f"fixtures/rules/{code}/{case}/ORCHESTRATION.yaml")
    return written


def regenerate() -> list[str]:
    """The rule's page, severity.md and the README rule table (and any other generated file out of date)."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "dev" / "generate.py"), "--write"], capture_output=True, text=True, cwd=ROOT
    )
    if done.returncode != 0:
        raise ScaffoldError(f"dev/generate.py --write failed:\n{done.stdout}{done.stderr}")
    return [line.split(" ", 1)[-1] for line in done.stdout.splitlines() if line.strip()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python dev/new_rule.py", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "code", metavar="CODE", help="the new rule's family letter (its first free code is taken), or its code"
    )
    parser.add_argument("--module", required=True, help="its module in linters/rules/ (a new one is created)")
    parser.add_argument("--name", required=True, help="its name, in kebab-case (`ctxres rules` lists it)")
    parser.add_argument("--family", help="the name of a new family, when CODE's letter is none yet")
    parser.add_argument("--severity", choices=tuple(CASES), default="error", help="its default severity")
    parser.add_argument("--kind", choices=KINDS, default=KINDS[0], help="the artifact kind its check reads")
    args = parser.parse_args(argv)
    try:
        if FAMILY.match(args.code):
            args.code = first_free(args.code)
        if not CODE.match(args.code):
            raise ScaffoldError(f"{args.code!r} is not a rule code (a family letter and three digits: S018)")
        if not NAME.match(args.name):
            raise ScaffoldError(f"{args.name!r} is not a kebab-case name (e.g. stale-next-step)")
        if not MODULE.match(args.module):
            raise ScaffoldError(f"{args.module!r} is not a module name (e.g. update_times)")
        edits = Edits()
        add_code(edits, args.code, args.family)
        written = ["ctxres/config.py"]
        written += add_rule(edits, args.module, args.code, args.name, args.severity, args.kind)
        written += add_fixtures(edits, args.code, args.name)
    except ScaffoldError as exc:
        print(f"new_rule: {exc}", file=sys.stderr)
        return 2
    former = edits.apply()
    try:
        written += regenerate()
    except ScaffoldError as exc:
        restore(former)
        print(f"new_rule: {exc}\nnothing was written", file=sys.stderr)
        return 2
    for path in dict.fromkeys(written):
        print(f"wrote {path}")
    print(
        f"\nNext, by hand: the TODOs of {args.code} in linters/rules/{args.module}.py (summary, why, explanation) "
        f"and its check; the defect in fixtures/rules/{args.code}/bad/ with its `expect:` marker on the line "
        f"reported, and a near miss in good-near-miss/. Then `python dev/generate.py --write`.\n"
        f"Until the check is written, `pytest tests/rules/test_rule_fixtures.py -k {args.code}` fails: the bad "
        f"fixture's expected {args.code} finding is not reported."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
