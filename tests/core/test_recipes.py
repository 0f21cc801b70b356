"""Every recipe of docs/architecture.md ("Where to add…") is followed in a copy of the repository, and the
suite's relevant part passes on the result.

Each test copies the working tree (its tracked and new files, offline) and does what its recipe says: the
code a person writes is written here (a module, a row of a table, a model), in the shape the recipe gives
(the function a module defines is read from the recipe's text); every command the recipe says to run
(`Run \\`python dev/...\\``, `run \\`ctxres ...\\``) is run as written (the rule's scaffold,
``dev/new_rule.py``, under the rule's own name). Then:

- every file that changed is one the recipe's ``Files:`` line names (a recipe that forgets a file fails);
- ``python dev/generate.py --check`` passes (a recipe that forgets to regenerate fails);
- the tests of what the recipe touched pass, run in the copy with the copy's code.

The copy runs in a virtual environment that sees this environment's packages but not its ctxres
(``tests/installs.py``), with the copy on ``PYTHONPATH``: ``python -m pytest``, ``python -m
ctxres.linters.cli`` and the processes the copy's tests start import the copy's package.
"""

from __future__ import annotations

import ast
import fnmatch
import hashlib
import os
import re
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from ..conftest import ROOT
from ..installs import offline_venv, working_tree_copy

ARCHITECTURE = "docs/architecture.md"
HANG_GUARD = 600


# --- the recipes, as the page writes them ---------------------------------------------------------


def recipes(text: str) -> dict[str, str]:
    """Each recipe of the "Where to add…" section, by its title (``A rule``, ``An output format``, ...)."""
    section = text[text.index("## Where to add") :]
    found = {}
    for match in re.finditer(r"^\*\*(An? [^*]+?)\.\*\*\n(.*?)(?=^\*\*|\Z)", section, re.M | re.S):
        found[match.group(1)] = match.group(2)
    return found


def files_named(recipe: str) -> list[str]:
    """The paths of the recipe's ``Files:`` line (placeholders such as ``<event>`` kept)."""
    line = next(line for line in recipe.splitlines() if line.startswith("- Files:"))
    return re.findall(r"`([^`]+)`", line)


def commands_named(recipe: str) -> list[str]:
    """The commands the recipe says to run, in its order."""
    return re.findall(r"\b[Rr]un `((?:python dev/|ctxres )[^`]*)`", recipe)


def signature(recipe: str, step: str) -> tuple[str, str]:
    """The name and parameters of the function the recipe's step (a line that contains ``step``) says to
    define: ``def write(report, out)`` or ``write(report, out)``, in backticks."""
    line = next(line for line in recipe.splitlines() if step in line)
    match = re.search(r"`(?:def )?(\w+)\(([^`]*?)\)(?: -> [^`]+)?`", line)
    assert match, f"the step {line!r} names no function"
    return match.group(1), match.group(2)


def named_by(path: str, files: list[str]) -> bool:
    """Whether ``path`` is one of the recipe's files (a folder names what is in it; ``<x>`` is any name)."""
    for entry in files:
        pattern = re.sub(r"<[^>]+>", "*", entry)
        if pattern.endswith("/") and path.startswith(pattern):
            return True
        if fnmatch.fnmatchcase(path, pattern):
            return True
    return False


def test_the_recipe_reader_reads_the_page() -> None:
    found = recipes((ROOT / ARCHITECTURE).read_text("utf-8"))
    assert {"A rule", "An artifact kind", "A hook event", "An output format", "A command"} <= set(found)
    assert named_by("schemas/hook-subagentstop-input.schema.json", ["schemas/hook-<event>-input.schema.json"])
    assert named_by("tests/hooks/test_hook_subagentstop.py", ["tests/hooks/"])
    assert not named_by("docs/architecture.md", ["hooks/<event>.py", "README.md"])


# --- the copy ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An environment with this one's packages but not its ctxres."""
    return offline_venv(tmp_path_factory.mktemp("recipes") / "venv")


class Copy:
    """A copy of the working tree, and what was done in it."""

    def __init__(self, root: Path, python: Path) -> None:
        self.root = root
        self.python = python
        self.before = self.digests()
        self.ran: list[str] = []

    def digests(self) -> dict[str, str]:
        return {
            path.relative_to(self.root).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
            for path in self.root.rglob("*")
            if path.is_file() and "__pycache__" not in path.parts
        }

    def changed(self) -> list[str]:
        after = self.digests()
        return sorted(name for name in self.before.keys() | after.keys() if self.before.get(name) != after.get(name))

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHONPATH", "VIRTUAL_ENV", "PYTEST_"))}
        env["PYTHONPATH"] = str(self.root)  # the copy's package, also for the processes its tests start
        return subprocess.run(
            [str(self.python), *args], cwd=self.root, capture_output=True, text=True, env=env, timeout=HANG_GUARD
        )

    def command(self, line: str) -> str:
        """A command of the recipe, as written: ``python dev/...`` or ``ctxres ...``; what it printed."""
        words = line.split()
        args = words[1:] if words[0] == "python" else ["-m", "ctxres.linters.cli", *words[1:]]
        done = self.run(*args)
        assert done.returncode == 0, f"`{line}` failed:\n{done.stdout}{done.stderr}"
        self.ran.append(line)
        return done.stdout

    def edit(self, name: str, old: str, new: str) -> None:
        """``old`` (which must be there) replaced by ``new``, once, in the file ``name``."""
        path = self.root / name
        text = path.read_text("utf-8")
        assert old in text, f"{name} has no {old!r}"
        path.write_text(text.replace(old, new, 1), "utf-8")

    def append(self, name: str, table: str, entry: str) -> None:
        """``entry`` as the last element of the literal (tuple or dict) assigned to ``table`` in the module
        ``name``, found by parsing the module: the recipe names the table, not a text around it."""
        path = self.root / name
        text = path.read_text("utf-8")
        (value,) = [
            node.value
            for node in ast.parse(text).body
            if isinstance(node, (ast.Assign, ast.AnnAssign))
            and table
            in [getattr(target, "id", "") for target in getattr(node, "targets", [getattr(node, "target", None)])]
        ]
        assert value is not None and value.end_lineno is not None, f"{name}: {table} has no literal value"
        lines = text.splitlines(keepends=True)
        if value.end_lineno == value.lineno:  # one line: before its closing bracket
            line = lines[value.end_lineno - 1]
            at = value.end_col_offset - 1  # type: ignore[operator]
            lines[value.end_lineno - 1] = line[:at] + ", " + entry + line[at:]
        else:
            lines.insert(value.end_lineno - 1, "    " + entry + ",\n")
        path.write_text("".join(lines), "utf-8")

    def table_row(self, heading: str, row: str) -> None:
        """A row added to the first table under ``heading`` of docs/architecture.md."""
        path = self.root / ARCHITECTURE
        text = path.read_text("utf-8")
        end = text.index("\n", text.index("|---|", text.index(heading))) + 1
        path.write_text(text[:end] + row + "\n" + text[end:], "utf-8")

    def write(self, name: str, text: str) -> None:
        path = self.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, "utf-8")


def follow(python: Path, tmp_path: Path, title: str, steps: Callable[[Copy, str], list[str]]) -> None:
    """Follow the recipe ``title`` in a copy: ``steps`` writes what a person writes (running first the commands
    whose output it edits) and returns the tests to run; then the recipe's other commands, the check of its
    files, the generated files and those tests."""
    copy = Copy(working_tree_copy(tmp_path / "repository"), python)
    recipe = recipes((copy.root / ARCHITECTURE).read_text("utf-8"))[title]
    tests = steps(copy, recipe)
    for line in commands_named(recipe):
        if line not in copy.ran:  # the commands the steps did not run first, in the recipe's order
            copy.command(line)
    files = files_named(recipe)
    unnamed = [name for name in copy.changed() if not named_by(name, files)]
    assert not unnamed, f"{title}: the recipe's Files line does not name {unnamed}"
    stale = copy.run("dev/generate.py", "--check")
    assert stale.returncode == 0, f"{title}: generated files left stale:\n{stale.stderr}"
    done = copy.run("-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "-n", "0", *tests)
    assert done.returncode == 0, f"{title}: the tests fail in the copy:\n{done.stdout[-4000:]}{done.stderr[-2000:]}"


# --- an output format ----------------------------------------------------------------------------------

TSV_TEST = """

def test_tsv_writes_a_line_per_finding() -> None:
    lines = render("tsv", report(err(), warn())).splitlines()
    assert lines == ["a.json\\tC001\\tBad value", "b.yaml\\tC006\\tStale value"]
"""


def output_format(copy: Copy, recipe: str) -> list[str]:
    name, parameters = signature(recipe, "linters/reporters/<module>.py")
    writes = "out" in parameters
    body = "out.write(text)" if writes else "return text"
    copy.write(
        "linters/reporters/tsv.py",
        f'''"""Tab-separated values: a line per finding."""

from __future__ import annotations

# `ctxres check` loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TextIO

    from ctxres.linters.checking.report import Report


def {name}({parameters}) -> {"None" if writes else "str"}:
    text = "".join(f"{{finding.path}}\\t{{finding.code}}\\t{{finding.message}}\\n" for finding, _ in report.marked())
    {body}
''',
    )
    copy.append("linters/reporters/__init__.py", "FORMATS", '"tsv": "tsv"')
    copy.table_row("### `linters/reporters/`", "| `tsv` | tab-separated values, a line per finding |")
    readme = (copy.root / "README.md").read_text("utf-8")
    (copy.root / "README.md").write_text(re.sub(r"(--output-format\s+text(?:\|[a-z_]+)+)", r"\1|tsv", readme))
    (copy.root / "tests/commands/test_reporters.py").open("a").write(TSV_TEST)
    return [
        "tests/commands/test_reporters.py",
        "tests/core/test_architecture_doc.py",
        "tests/core/test_startup_tricks.py",
    ]


# --- a hook event ----------------------------------------------------------------------------------

STOP_ROW = """    HookEvent(
        "SubagentStop",
        "subagentstop",
        None,
        5,
        "say nothing when a subagent finishes",
        {},
        role="end of a subagent",
    ),
"""
STOP_MODELS = '''class SubagentStopInput(HookInput):
    """stdin of the SubagentStop hook, which runs when a subagent finishes."""

    hook_event_name: Literal["SubagentStop"] = Field(description="Always `SubagentStop` for this event.")
    stop_hook_active: bool = Field(description="Whether the model goes on because a Stop hook said so.")


class SubagentStopOutput(HookOutput):
    """stdout of ctxres's SubagentStop hook: nothing to say."""


'''
STOP_TEST = '''"""SubagentStop: the real hook process answers an empty object."""

from __future__ import annotations

from pathlib import Path

from .hook_project import payload, run_hook


def test_subagentstop_answers_an_empty_object(tmp_path: Path) -> None:
    done = run_hook("SubagentStop", tmp_path, payload(tmp_path, "SubagentStop"))
    assert (done.returncode, done.stdout, done.stderr) == (0, "{}\\n", "")
'''


def hook_event(copy: Copy, recipe: str) -> list[str]:
    copy.append("ctxres/hook_events.py", "HOOK_EVENTS", STOP_ROW.strip().rstrip(","))
    name, parameters = signature(recipe, "hooks/<event>.py")
    copy.write(
        "hooks/subagentstop.py",
        f'''"""SubagentStop: nothing to say when a subagent finishes."""

from __future__ import annotations

# A hook loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ctxres.hooks.context import HookContext


def {name}({parameters.replace("ctx", "ctx: HookContext")}) -> dict[str, Any]:
    return {{}}
''',
    )
    models = re.search(r"`<Event>(\w+)` and `<Event>(\w+)`", recipe)
    assert models, "the recipe does not say how the event's models are named"
    copy.edit(
        "schemas/hook_io.py",
        "# " + "-" * 98 + "\n# Registries",
        STOP_MODELS.replace("StopInput", f"Stop{models.group(1)}").replace("StopOutput", f"Stop{models.group(2)}")
        + "# "
        + "-" * 98
        + "\n# Registries",
    )
    copy.edit(
        "tests/hooks/test_schema_models_hooks.py",
        "EXAMPLE_INPUTS: dict[str, str] = {\n",
        'EXAMPLE_INPUTS: dict[str, str] = {\n    "SubagentStop": \'{"session_id":"abc123","transcript_path":"...",'
        '"cwd":"/","hook_event_name":"SubagentStop","stop_hook_active":false}\',\n',
    )
    copy.table_row("### `hooks/`", "| `subagentstop` | SubagentStop: nothing to say when a subagent finishes |")
    copy.write("tests/hooks/test_hook_subagentstop.py", STOP_TEST)
    return [
        "tests/hooks/test_hook_subagentstop.py",
        "tests/core/test_one_definition.py",
        "tests/hooks/test_schema_models_hooks.py",
        "tests/commands/test_install_hooks.py",
        "tests/core/test_architecture_doc.py",
        "tests/core/test_startup_tricks.py",
    ]


# --- a command ---------------------------------------------------------------------------------------

HELLO_TEST = '''"""ctxres hello."""

from __future__ import annotations

import pytest

from ctxres.linters.cli import main


def test_hello_greets(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["hello"]) == 0
    assert capsys.readouterr().out == "hello\\n"
'''


def command(copy: Copy, recipe: str) -> list[str]:
    adds, _ = signature(recipe, "linters/commands/<name>.py")
    handler = re.search(r"`set_defaults\(handler=(\w+)\)`", recipe)
    assert handler, "the recipe does not say how the command's handler is set"
    copy.write(
        "linters/commands/hello.py",
        f'''"""``ctxres hello``: a greeting."""

from __future__ import annotations

import argparse


def {adds}(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("hello", help="print a greeting", description="Print a greeting.")
    parser.set_defaults(handler={handler.group(1)})


def {handler.group(1)}(args: argparse.Namespace) -> int:
    print("hello")
    return 0
''',
    )
    copy.append("linters/commands/__init__.py", "COMMAND_MODULES", '"hello": "hello"')
    copy.edit(
        "README.md",
        "ctxres init / doctor / install-hooks",
        "ctxres hello                       print a greeting\nctxres init / doctor / install-hooks",
    )
    copy.table_row("### `linters/commands/`", "| `hello` | `ctxres hello`: a greeting |")
    copy.write("tests/commands/test_hello.py", HELLO_TEST)
    return [
        "tests/commands/test_hello.py",
        "tests/commands/test_cli.py::test_a_sub_command_is_parsed_by_its_module_alone",
        "tests/core/test_architecture_doc.py",
    ]


# --- an artifact kind ----------------------------------------------------------------------------------

HANDOFF_KIND = """    ArtifactKind(
        "handoff-note",
        Format.JSON,
        ("handoff-note.json",),
        schemas=("handoff-note",),
        description="hand-off note",
        found_as="`handoff-note.json` in `notes/`, or carrying `next_step`",
        recognition=Recognition(
            lambda path, state_dir: path.rpartition("/")[0].endswith("/notes"),
            "`notes/`",
            lambda raw: b'"next_step"' in raw,
            "`next_step`",
        ),
    ),
"""
HANDOFF_MODEL = '''"""The hand-off note a session leaves for the next one."""

from __future__ import annotations

from pydantic import BaseModel, Field

from ctxres.schemas.base import StrictModel


class HandoffNote(StrictModel):
    """What a session leaves for the next one."""

    next_step: str = Field(description="What the next session does first.")


HANDOFF_SCHEMAS: dict[str, type[BaseModel]] = {"handoff-note": HandoffNote}
'''


def artifact_kind(copy: Copy, recipe: str) -> list[str]:
    copy.append("ctxres/artifacts.py", "CATALOG", HANDOFF_KIND.strip().rstrip(","))
    copy.write("schemas/handoff.py", HANDOFF_MODEL)
    if "schemas/export.py" in recipe:
        copy.edit(
            "schemas/export.py",
            "from ctxres.schemas.checkpoint import CHECKPOINT_SCHEMAS\n",
            "from ctxres.schemas.checkpoint import CHECKPOINT_SCHEMAS\n"
            "from ctxres.schemas.handoff import HANDOFF_SCHEMAS\n",
        )
        copy.edit("schemas/export.py", "    **HOOK_SCHEMAS,\n", "    **HOOK_SCHEMAS,\n    **HANDOFF_SCHEMAS,\n")
    copy.table_row("### `schemas/`", "| `handoff` | the hand-off note a session leaves for the next one |")
    copy.edit(
        "tests/core/test_catalog.py",
        '    "rule-file": (',
        '    "handoff-note": ("notes/handoff-note.json", \'{"next_step": "QG-2"}\\n\'),\n    "rule-file": (',
    )
    copy.edit(
        "tests/core/test_catalog.py",
        '    "event-log": "data/events/',
        '    "handoff-note": "docs/handoff-note.json",\n    "event-log": "data/events/',
    )
    return ["tests/core/test_catalog.py", "tests/core/test_architecture_doc.py"]


# --- a rule ---------------------------------------------------------------------------------------------

RULE_TEXT = {
    "TODO: what is wrong, in one sentence (the summary `ctxres rules` lists).": "`next_step` says TBD.",
    "TODO: why this case of the severity policy (docs/rules/severity.md), in one sentence.": (
        "A resuming session reads `next_step` first; TBD tells it nothing."
    ),
    "TODO: what goes wrong when a file has this defect.": "A resuming session does not know what to do next.",
    "TODO: the smallest file that has it (the bad fixture, fixtures/rules/{code}/bad/).": (
        'resumption: {recovery_state: {next_step: "TBD"}}'
    ),
    "TODO: what to change.": "Write the next step.",
}
RULE_CHECK = """    path = ("resumption", "recovery_state", "FIELD")
    if doc.get(path) != "TBD":
        return []
    return [Finding(doc.path, CONSTANT.code, "`FIELD` is TBD", CONSTANT.severity, doc.locate(path))]
"""
RULE_FIELDS = {"next_step": "Run the next agent of the phase.", "current_phase_name": "Audit"}
"""The field each rule written here finds TBD in, and its value in the scaffold's fixtures."""


def rule(copy: Copy, recipe: str, module: str = "", field: str = "next_step") -> list[str]:
    """The rule recipe, in the module its command names (or a new ``module``): a rule that finds ``field`` TBD."""
    (line,) = [line for line in commands_named(recipe) if line.startswith("python dev/new_rule.py")]
    named = line.split("--module ")[1].split()[0]
    module = module or named
    name = field.replace("_", "-") + "-tbd"
    own = line.replace(line.split("--name ")[1].split()[0], name).replace(f"--module {named}", f"--module {module}")
    printed = copy.command(own)
    copy.ran.append(line)
    found = re.search(r"^wrote fixtures/rules/([A-Z]\d{3})/", printed, re.M)
    assert found, f"the scaffold names no code:\n{printed}"
    code = found.group(1)
    source = (copy.root / f"linters/rules/{module}.py").read_text("utf-8")
    for todo, text in RULE_TEXT.items():
        source = source.replace(todo.replace("{code}", code), text.replace("next_step", field))
    check = RULE_CHECK.replace("FIELD", field).replace("CONSTANT", name.upper().replace("-", "_"))
    source = source.replace("    findings: list[Finding] = []\n    return findings\n", check)
    source = re.sub(rf'"""{code}: TODO: .*?"""', f'"""{code}: `{field}` is TBD."""', source, flags=re.S)
    assert "TODO" not in source.split(f'"{code}"')[1], "the scaffold writes other placeholders: fill them here"
    if "TODO" in source:  # a new module's docstring, and its row of the architecture page
        source = source.replace(f"{code}: TODO: what this family of rules checks.", f"{code}: fields left TBD.")
        copy.edit(ARCHITECTURE, f"| `{module}` | {code}: TODO |", f"| `{module}` | {code}: `{field}` left TBD |")
    assert "TODO" not in source, "the scaffold writes other placeholders: fill them here"
    (copy.root / f"linters/rules/{module}.py").write_text(source, "utf-8")
    bad = copy.root / "fixtures" / "rules" / code / "bad" / "ORCHESTRATION.yaml"
    marked = bad.read_text("utf-8").replace(f"  # expect: {code}", "")
    value = RULE_FIELDS[field]
    bad.write_text(marked.replace(f'{field}: "{value}"', f'{field}: "TBD"  # expect: {code}'))
    return [
        "-k",
        f"{code} or not fixture and not page",  # this rule's fixtures and page, and the map of the modules
        "tests/rules/test_rule_fixtures.py",
        "tests/rules/test_rule_pages.py",
        "tests/core/test_architecture_doc.py",
    ]


def rules_in_new_modules(copy: Copy, recipe: str) -> list[str]:
    """The rule recipe twice, each time in a new module: the second new module is listed after the first."""
    first = rule(copy, recipe, "tbd_steps", "next_step")
    second = rule(copy, recipe, "tbd_phases", "current_phase_name")
    codes = f"{first[1].split()[0]} or {second[1].split()[0]} or not fixture and not page"
    return [
        "-k",
        codes,
        *first[2:],
        "tests/rules/test_tbd_steps.py",
        "tests/rules/test_tbd_phases.py",
        "tests/test_test_layout.py",
    ]


# --- a rule option ----------------------------------------------------------------------------------------

OPTION = """CHECK_OLD_LOG = Option("check-old-decision-log", True, "also check the ids of the old `decisions` log")


"""
OPTION_TEST = """

def test_the_old_log_is_left_alone_when_configured(tmp_path: Path) -> None:
    entries = '    - id: "DL-001"\\n      decision: "d"\\n    - id: "RD-002"\\n      decision: "d"\\n'
    (tmp_path / "ORCHESTRATION.yaml").write_text(SECTION.replace("decision_log:", "decisions:") + entries)
    assert "C009" in {f.code for f in engine.run([tmp_path], load_config(tmp_path), cwd=tmp_path).findings}
    (tmp_path / ".ctxres.toml").write_text("check-old-decision-log = false\\n")
    assert "C009" not in {f.code for f in engine.run([tmp_path], load_config(tmp_path), cwd=tmp_path).findings}
"""


def rule_option(copy: Copy, recipe: str) -> list[str]:
    """An option of C009, declared in its module as the recipe says, read by its check, tested."""
    module = "linters/rules/decision_ids.py"
    assert "options=(NAME,)" in recipe and "config.value(NAME)" in recipe, "the recipe no longer says how"
    copy.edit(module, "from ctxres.findings import", "from ctxres.config import Option\nfrom ctxres.findings import")
    copy.edit(module, "MIXED_PREFIXES = register(", OPTION + "MIXED_PREFIXES = register(")
    copy.edit(module, "    case=Case.CONVENTION,\n", "    case=Case.CONVENTION,\n    options=(CHECK_OLD_LOG,),\n")
    copy.edit(
        module,
        "def check_document(doc: Document, _config: Config) -> list[Finding]:",
        "def check_document(doc: Document, config: Config) -> list[Finding]:",
    )
    copy.edit(
        module, "for name in LOGS for f in", "for name in (LOGS if config.value(CHECK_OLD_LOG) else LOGS[:1]) for f in"
    )
    with (copy.root / "tests/rules/test_decision_ids.py").open("a", encoding="utf-8") as test:
        test.write(OPTION_TEST)
    return [
        "tests/rules/test_decision_ids.py",
        "tests/rules/test_rule_options.py",
        "tests/core/test_readme_config.py",
        "tests/rules/test_rule_pages.py",
        "tests/core/test_no_second_lists.py",
    ]


# --- a message's wording ------------------------------------------------------------------------------------


def message_wording(copy: Copy, recipe: str) -> list[str]:
    """C009's message says what to do: `... and RD-003 does not` becomes `... and RD-003 does not use it`."""
    copy.edit(
        "linters/rules/decision_ids.py",
        "f\"{'does' if len(odd) == 1 else 'do'} not\"",
        "f\"{'does' if len(odd) == 1 else 'do'} not use it\"",
    )
    assert "`grep -rn`" in recipe, "the recipe no longer says how to find what quotes the message"
    old, new = 'RD-005 do not")', 'RD-005 do not use it")'
    quoting = [
        path
        for folder in ("tests", "fixtures/rules")
        for path in (copy.root / folder).rglob("*")
        if path.is_file() and "__pycache__" not in path.parts and old in path.read_text("utf-8", errors="replace")
    ]
    assert quoting, "no test quotes the message"
    for path in quoting:
        path.write_text(path.read_text("utf-8").replace(old, new), "utf-8")
    return ["-k", "C009 or prefix", "tests/rules/test_decision_ids.py", "tests/rules/test_rule_fixtures.py"]


# --- the recipes, followed ------------------------------------------------------------------------------

FOLLOWED: dict[str, tuple[str, Callable[[Copy, str], list[str]]]] = {
    "A rule": ("A rule", rule),
    "A rule, twice, each in a new module": ("A rule", rules_in_new_modules),
    "An output format": ("An output format", output_format),
    "A rule option": ("A rule option", rule_option),
    "A message's wording": ("A message's wording", message_wording),
    "A hook event": ("A hook event", hook_event),
    "A command": ("A command", command),
    "An artifact kind": ("An artifact kind", artifact_kind),
}
"""Each change a maintainer makes, by the recipe it follows and what is written by hand."""


@pytest.mark.parametrize("change", FOLLOWED)
def test_the_recipe_is_true(python: Path, tmp_path: Path, change: str) -> None:
    title, steps = FOLLOWED[change]
    follow(python, tmp_path, title, steps)
