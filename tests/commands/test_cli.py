"""The `ctxres` command: exit codes, output formats, selection, configuration, no tracebacks."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from ctxres.linters import cli

from ..cli_process import ctxres
from ..conftest import CORPUS, FIXTURES

EXAMPLE = FIXTURES / "example"
VALID = FIXTURES / "valid"


def test_console_scripts_are_installed() -> None:
    assert shutil.which("ctxres") or (Path(sys.executable).parent / "ctxres").exists()
    assert shutil.which("ctxres-hook") or (Path(sys.executable).parent / "ctxres-hook").exists()


def test_clean_workspace_exits_zero() -> None:
    result = ctxres("check", str(VALID))
    assert result.returncode == 0, result.stdout
    assert result.stdout == "All checks passed (7 files checked).\n"


def test_example_workspace_reports_located_findings_and_exits_one() -> None:
    result = ctxres("check", ".", cwd=EXAMPLE)
    assert result.returncode == 1
    lines = [line for line in result.stdout.splitlines() if not line.startswith(" ")]
    assert lines[:6] == [
        '.jerry/checkpoints/cx-001-checkpoint.json:6:23: C003 `trigger.type` is "automatic", expected one of: '
        "auto, manual",
        "ORCHESTRATION.yaml:8:3: C007 `resumption.recovery_state` has another shape than expected: missing "
        "`updated_at`; unexpected `updated`",
        'ORCHESTRATION.yaml:10:20: C002 `resumption.recovery_state.current_phase` is a string ("PHASE-3"), '
        "expected an integer",
        'ORCHESTRATION.yaml:12:22: C003 `resumption.recovery_state.workflow_status` is "COMPLETED", expected one '
        "of: ACTIVE, PAUSED, COMPLETE, FAILED",
        "ORCHESTRATION.yaml:15:29: C005 `resumption.recovery_state.context_fill_at_update` is 64.2, must be at most 1",
        "ORCHESTRATION.yaml:41:3: C007 [warning] `resumption.compaction_events` carries its facts in another shape "
        "(compactions as a list of times): `timestamps[*]` -> `events[*].timestamp`; "
        "`recovery_notes` -> the project's own notes (no documented place)",
    ]
    assert "  help: rename `updated` to `updated_at`" in result.stdout
    assert result.stdout.endswith("Found 5 errors and 1 warning in 2 files checked.\n")


def test_corpus_runs_to_the_end_without_traceback() -> None:
    result = ctxres("check", str(CORPUS))
    assert result.returncode == 1
    assert "Traceback" not in result.stderr + result.stdout
    # 42: its two rules files with markers sit in `reinject/`, a folder neither the client nor the L2 engine
    # reads (the corpus test names it in the configuration; CLAUDE.md is read wherever it is)
    assert result.stdout.rstrip().endswith("in 42 files checked.")


def test_json_output_is_stable_and_complete() -> None:
    first = ctxres("check", ".", "--output-format", "json", cwd=EXAMPLE)
    second = ctxres("check", ".", "--output-format", "json", cwd=EXAMPLE)
    assert first.stdout == second.stdout
    data = json.loads(first.stdout)
    assert data["summary"] == {"files_checked": 2, "errors": 5, "warnings": 1}
    finding = data["findings"][0]
    assert finding["path"] == ".jerry/checkpoints/cx-001-checkpoint.json"
    assert (finding["line"], finding["column"], finding["code"]) == (6, 23, "C003")
    assert finding["json_path"] == "$.trigger.type"


def test_sarif_output_validates_against_sarif_2_1_0() -> None:
    result = ctxres("check", str(CORPUS), "--output-format", "sarif")
    sarif = json.loads(result.stdout)
    schema = json.loads((Path(__file__).parent.parent / "data" / "sarif-schema-2.1.0.json").read_text("utf-8"))
    jsonschema.validators.validator_for(schema)(schema).validate(sarif)
    results = sarif["runs"][0]["results"]
    findings = json.loads(ctxres("check", str(CORPUS), "--output-format", "json").stdout)["findings"]
    assert len(results) == len(findings) > 30
    assert [(r["ruleId"], r["locations"][0]["physicalLocation"]["region"]["startLine"]) for r in results] == [
        (f["code"], f["line"]) for f in findings
    ]


def test_github_annotations() -> None:
    # The runner resolves `file=` against the repository: paths start at the top of the git work tree.
    top = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=EXAMPLE, capture_output=True, text=True)
    root = Path(top.stdout.strip()) if top.returncode == 0 else EXAMPLE
    prefix = EXAMPLE.resolve().relative_to(root.resolve()).as_posix()
    where = f"{prefix}/.jerry" if prefix != "." else ".jerry"
    result = ctxres("check", ".", "--output-format", "github", cwd=EXAMPLE)
    assert result.stdout.startswith(
        f"::error file={where}/checkpoints/cx-001-checkpoint.json,line=6,col=23,title=C003::"
    )


def test_select_and_ignore() -> None:
    only_types = ctxres("check", ".", "--select", "C002", cwd=EXAMPLE)
    assert [line.split()[1] for line in only_types.stdout.splitlines() if ": C" in line] == ["C002"]
    no_conformance = ctxres("check", ".", "--ignore", "C", cwd=EXAMPLE)
    assert no_conformance.returncode == 0
    specific_wins = ctxres("check", ".", "--ignore", "C", "--extend-select", "C005", cwd=EXAMPLE)
    assert [line.split()[1] for line in specific_wins.stdout.splitlines() if ": C" in line] == ["C005"]


def test_warnings_fail_only_under_strict(tmp_path: Path) -> None:
    (tmp_path / "ORCHESTRATION.yaml").write_text(
        "resumption:\n  last_checkpoint: null\n  current_state: s\n  next_step: n\n  files_to_read: []\n"
        "  cross_portable: 1\n"
    )
    assert ctxres("check", str(tmp_path)).returncode == 0
    strict = ctxres("check", str(tmp_path), "--strict")
    assert strict.returncode == 1
    assert "C006 [warning] unknown key `cross_portable` in `resumption`" in strict.stdout
    assert ctxres("check", str(tmp_path), "--strict", "--exit-zero").returncode == 0


def test_configuration_is_read_and_errors_are_usage_errors(tmp_path: Path) -> None:
    (tmp_path / "ORCHESTRATION.yaml").write_text(
        "resumption:\n  last_checkpoint: null\n  current_state: 5\n  next_step: n\n  files_to_read: []\n"
        "  cross_portable: 1\n"
    )
    (tmp_path / "pyproject.toml").write_text('[tool.ctxres]\nignore = ["C002", "V001"]\nseverity = {C006 = "error"}\n')
    result = ctxres("check", str(tmp_path))
    assert result.returncode == 1
    assert [line.split()[1] for line in result.stdout.splitlines() if ": C" in line] == ["C006"]
    assert "[warning]" not in result.stdout
    (tmp_path / "pyproject.toml").write_text("[tool.ctxres]\nignroe = []\n")
    bad = ctxres("check", str(tmp_path))
    assert bad.returncode == 2
    assert "unknown setting `ignroe`" in bad.stderr and "Traceback" not in bad.stderr


def test_per_file_ignores(tmp_path: Path) -> None:
    (tmp_path / "ORCHESTRATION.yaml").write_text("resumption:\n  current_state: s\n")
    (tmp_path / ".ctxres.toml").write_text('[per-file-ignores]\n"ORCHESTRATION.yaml" = ["C001"]\n')
    assert ctxres("check", ".", cwd=tmp_path).returncode == 0


def test_usage_errors_exit_two() -> None:
    assert ctxres("check", "/no/such/path").returncode == 2
    assert ctxres("check", "--output-format", "xml").returncode == 2
    assert ctxres("rule", "Z999").returncode == 2
    assert ctxres("frobnicate").returncode == 2


def test_rule_and_rules_explain() -> None:
    rule = ctxres("rule", "C003")
    assert rule.returncode == 0
    assert rule.stdout.startswith("# C003: invalid-value")
    listing = ctxres("rules", "--output-format", "json")
    codes = [r["code"] for r in json.loads(listing.stdout)]
    assert codes[0] == "P001" and {"P001", "C001", "C007"} <= set(codes) and len(codes) == len(set(codes))


def test_rule_docs_are_generated_and_current(tmp_path: Path) -> None:
    assert ctxres("rules", "--check-docs", str(FIXTURES.parent / "docs" / "rules")).returncode == 0
    (tmp_path / "C001.md").write_text("stale")
    assert ctxres("rules", "--check-docs", str(tmp_path)).returncode == 1


def test_schema_commands() -> None:
    assert ctxres("schema", "export", "--check").returncode == 0
    names = ctxres("schema", "list").stdout.split()
    assert "resumption-v2" in names and "checkpoint" in names
    shown = json.loads(ctxres("schema", "show", "resumption-v2").stdout)
    assert shown["$id"].endswith("resumption-v2.schema.json")
    assert ctxres("schema", "show", "nope").returncode == 2


def test_list_files_and_explicit_files(tmp_path: Path) -> None:
    listing = ctxres("check", "--list-files", ".", cwd=EXAMPLE)
    assert listing.stdout.splitlines() == [
        ".jerry/checkpoints/cx-001-checkpoint.json\tcheckpoint",
        "ORCHESTRATION.yaml\torchestration",
    ]
    plain = tmp_path / "notes.yaml"
    plain.write_text("a: 1\n")
    result = ctxres("check", str(plain))
    assert result.returncode == 0 and "no resumption artifacts found" in result.stderr


def test_gitignored_files_are_skipped_unless_asked(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_text("scratch/\n")
    (tmp_path / "scratch").mkdir()
    (tmp_path / "scratch" / "ORCHESTRATION.yaml").write_text("resumption: [\n")
    assert ctxres("check", ".", cwd=tmp_path).returncode == 0
    assert ctxres("check", ".", "--no-respect-gitignore", cwd=tmp_path).returncode == 1


@pytest.mark.parametrize(
    "name",
    [
        "ORCHESTRATION.yaml",
        ".jerry/checkpoints/cx-001-checkpoint.json",
        "02-projects/24-demo/01-planning/resume-context.md",
    ],
)
def test_hostile_bytes_never_traceback(tmp_path: Path, name: str) -> None:
    (tmp_path / "00-system").mkdir()  # a Nexus workspace: the manifest's place makes it ours
    (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / name).write_bytes(b"\xff\xfe\x00\x01" * 100)
    result = ctxres("check", str(tmp_path))
    assert result.returncode == 1 and "P004" in result.stdout and "Traceback" not in result.stderr


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    action = next(action for action in parser._actions if action.dest == "command")
    assert isinstance(action.choices, dict)
    return action.choices


def test_a_sub_command_is_parsed_by_its_module_alone() -> None:
    """`ctxres COMMAND` imports the module of COMMAND only (COMMAND_MODULES): the table names every
    sub-command the modules register, and each parses and explains itself as among all of them."""
    from ctxres.linters.cli import build_parser
    from ctxres.linters.commands import COMMAND_MODULES

    every = _subcommands(build_parser())
    assert sorted(every) == sorted(COMMAND_MODULES)
    for command in COMMAND_MODULES:
        alone = _subcommands(build_parser(command))
        assert command in alone
        assert alone[command].format_help() == every[command].format_help()
    assert _subcommands(build_parser("no-such-command")).keys() == every.keys()


def test_a_history_command_does_not_import_the_other_commands() -> None:
    code = (
        "import sys; from ctxres.linters import cli; cli.build_parser('audit-history'); "
        "print(sorted(m for m in sys.modules if m.startswith('ctxres.linters.commands.')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "['ctxres.linters.commands.audit']"


def test_audit_history_imports_no_more_than_it_uses(tmp_path: Path) -> None:
    """`audit-history` (text or json) imports neither the configuration nor the rules, their registry
    or the reporters' report (start-up time: the real lineages' ratio to git is one of start-ups);
    github and sarif, which print S013 findings, do."""
    env = {"GIT_CONFIG_NOSYSTEM": "1", "HOME": str(tmp_path), "PATH": os.environ.get("PATH", "")}
    for args in (["init", "-q"], ["config", "user.email", "t@e"], ["config", "user.name", "t"]):
        subprocess.run(["git", *args], cwd=tmp_path, env=env, check=True)
    for status in ("PENDING", "COMPLETE"):
        (tmp_path / "ORCHESTRATION.yaml").write_text(f"workflow:\n  status: {status}\nresumption:\n  x: 1\n")
        subprocess.run(["git", "add", "."], cwd=tmp_path, env=env, check=True)
        subprocess.run(["git", "commit", "-q", "-m", status], cwd=tmp_path, env=env, check=True)
    # The configuration model, not ctxres.config_file (the small reader every command asks for required-version).
    heavy = ("ctxres.linters.rules", "ctxres.linters.checking.registry", "ctxres.linters.checking.report")
    code = (
        "import sys; from ctxres.linters import cli; status = cli.main(sys.argv[1:]); "
        f"print(status, sorted(m for m in sys.modules if m.startswith({heavy!r}) or m in ('ctxres.config', 'difflib')),"
        " file=sys.stderr)"
    )
    loaded = {}
    for fmt in ("text", "json", "sarif"):
        done = subprocess.run(
            [sys.executable, "-c", code, "audit-history", "ORCHESTRATION.yaml", "--output-format", fmt],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            check=True,
        )
        loaded[fmt] = done.stderr.strip()
    assert loaded["text"] == loaded["json"] == "1 []"
    assert "ctxres.linters.rules.stale_commits" in loaded["sarif"]


def test_check_imports_neither_the_migration_nor_importlib_resources() -> None:
    """Start-up: the V rules read placeholders and prose through `ctxres.migration.migration_marks`, not the
    migration itself, and the schemas are read as files, without `importlib.resources` (which imports
    tempfile, shutil and random): a check of v1.0 files and placeholders, which it reports, loads neither."""
    code = (
        "import sys; from ctxres.linters import cli; status = cli.main(sys.argv[1:]); "
        "names = ('ctxres.migration.migrate', 'importlib.resources', 'ctxres.migration.migration_marks'); "
        "loaded = [m for m in names if m in sys.modules]; "
        "print(status, loaded, file=sys.stderr)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, "check", "corpus", "rules", "--select", "V,C"],
        cwd=FIXTURES,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.stderr.strip().splitlines()[-1] == "1 ['ctxres.migration.migration_marks']"
    assert "V00" in done.stdout and "C00" in done.stdout


def test_unknown_and_misspelt_commands_are_reported_by_the_whole_parser() -> None:
    result = ctxres("audit-histry")
    assert result.returncode == 2
    assert "unknown command 'audit-histry'; did you mean `ctxres audit-history`?" in result.stderr
    unlike = ctxres("nothing-like-it")
    assert unlike.returncode == 2 and "the commands: check, rule" in unlike.stderr and "stale" in unlike.stderr


def test_a_check_of_every_kind_imports_no_dataclasses_typing_or_toml_parser() -> None:
    """Start-up: the classes a check uses are records (`ctxres.records`), whose methods are in the modules'
    bytecode; a dataclass compiles its methods at every start, and `dataclasses` brings `inspect`. `typing`
    (about 2 ms) is imported for the type checker only, and a pyproject.toml without a ctxres table (this
    repository's names ctxres as a project, not as a tool table) is not parsed. A check of the whole corpus
    (every kind of file, every rule, findings of each family) loads none of them."""
    code = (
        "import sys; from ctxres.linters import cli; status = cli.main(sys.argv[1:]); "
        "loaded = [m for m in ('dataclasses', 'inspect', 'typing', 'tomllib') if m in sys.modules]; "
        "print(status, loaded, file=sys.stderr)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, "check", "corpus", "--jobs", "1", "--output-format", "json"],
        cwd=FIXTURES,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.stderr.strip().splitlines()[-1] == "1 []"
    families = {finding["code"][0] for finding in json.loads(done.stdout)["findings"]}
    assert len(families) >= 5, families


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["chekc"], "unknown command 'chekc'; did you mean `ctxres check`?"),
        (["reinjetc", "--fix"], "did you mean `ctxres reinject`?"),
        (["check", "--fix"], "unrecognized arguments: --fix; did you mean `ctxres reinject --fix`?"),
        (["check", "--outptu-format", "json"], "did you mean --output-format?"),
    ],
)
def test_a_mistyped_command_or_an_option_of_another_command_gets_a_did_you_mean(
    args: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    try:
        code = cli.main(args)
    except SystemExit as exc:  # argparse's error
        code = int(exc.code or 0)
    assert code == 2
    assert said in capsys.readouterr().err


def test_a_misspelt_setting_gets_the_nearest_one(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.ctxres]\nreinject-budjet = 500\n")
    result = ctxres("check", str(tmp_path))
    assert result.returncode == 2
    assert "unknown setting `reinject-budjet` in ctxres configuration; did you mean `reinject-budget`?" in result.stderr
