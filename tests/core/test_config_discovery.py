"""Configuration, file discovery (patterns, sniffing, gitignore) and suppression comments."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from ctxres import config_file
from ctxres.config import Config, ConfigError, load_config, parse
from ctxres.globs import glob_to_regex, is_ignored, matches_any, parse_ignore
from ctxres.linters.checking import suppression
from ctxres.linters.checking.discovery import discover
from ctxres.linters.checking.engine import selected

from .pyproject_tables import NOT_A_TABLE, TABLE_SPELLINGS


@pytest.mark.parametrize(
    ("pattern", "path", "hit"),
    [
        ("*ORCHESTRATION*.yaml", "x/PROJ__ORCHESTRATION_EN005.yaml", True),
        ("cx-[0-9][0-9][0-9]*.json", "cx-001-checkpoint.json", True),
        ("cx-[0-9][0-9][0-9]*.json", "cx-001.d933ffb7.json", True),
        ("cx-[0-9][0-9][0-9]*.json", "cx-latest.json", False),
        ("**/events/*/*.jsonl", "runs/r1/events/executor/20260115-1030.jsonl", True),
        ("**/events/*/*.jsonl", "events/executor/a.jsonl", True),
        ("**/events/*/*.jsonl", "runs/r1/events/a.jsonl", False),
        ("*precompact_state.json", "test_data/valid_precompact_state.json", True),
    ],
)
def test_patterns(pattern: str, path: str, hit: bool) -> None:
    assert matches_any(path, (pattern,)) is hit


def test_glob_star_does_not_cross_folders() -> None:
    assert glob_to_regex("a/*.yaml").match("a/b.yaml")
    assert not glob_to_regex("a/*.yaml").match("a/b/c.yaml")
    assert glob_to_regex("a/**/c.yaml").match("a/b/x/c.yaml")


def test_gitignore_semantics() -> None:
    rules = parse_ignore(["# comment", "build/", "*.log", "!keep.log", "/top.yaml"])
    assert is_ignored("build", True, rules)
    assert not is_ignored("build", False, rules)  # `build/` only matches folders
    assert is_ignored("x/debug.log", False, rules)
    assert not is_ignored("x/keep.log", False, rules)
    assert is_ignored("top.yaml", False, rules)
    assert not is_ignored("sub/top.yaml", False, rules)


def test_parse_configuration_kebab_case_and_types(tmp_path: Path) -> None:
    config = parse(
        {
            "state-dir": ".state",
            "extend-exclude": ["old/"],
            "severity": {"C006": "error"},
            "strict": True,
            "patterns": {"checkpoint": ["ckpt-*.json"]},
        },
        tmp_path,
        tmp_path / "pyproject.toml",
    )
    assert config.state_dir == ".state" and config.extend_exclude == ("old/",) and config.strict
    assert config.patterns["checkpoint"] == ("ckpt-*.json",)
    assert config.patterns["orchestration"] == Config().patterns["orchestration"]


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({"colour": True}, "unknown setting `colour`"),
        ({"select": "C"}, "`select` must be a list of strings"),
        ({"strict": "yes"}, "`strict` must be true or false"),
        ({"max-file-size": -1}, "must be a positive integer"),
        ({"severity": {"C001": "fatal"}}, 'must be "error" or "warning"'),
        ({"patterns": {"widgets": ["*.w"]}}, "unknown artifact kind `widgets`"),
    ],
)
def test_configuration_errors_name_the_setting(tmp_path: Path, table: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse(table, tmp_path, tmp_path / "pyproject.toml")


def test_nearest_configuration_wins(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.ctxres]\nstate-dir = ".outer"\n')
    inner = tmp_path / "inner"
    inner.mkdir()
    (inner / ".ctxres.toml").write_text('state-dir = ".inner"\n')
    assert load_config(inner).state_dir == ".inner"
    assert load_config(tmp_path).state_dir == ".outer"
    (tmp_path / "pyproject.toml").write_text("[tool.ctxres\n")
    with pytest.raises(ConfigError, match="invalid TOML"):
        load_config(tmp_path)


def test_discovery_by_name_and_by_resumption_key(tmp_path: Path) -> None:
    (tmp_path / "ORCHESTRATION.yaml").write_text("a: 1\n")
    (tmp_path / "renamed.yaml").write_text("workflow: {}\nresumption:\n  next_step: x\n")
    (tmp_path / "other.yaml").write_text("workflow: {}\n  resumption: nested, not top level\n")
    (tmp_path / ".jerry" / "checkpoints").mkdir(parents=True)
    (tmp_path / ".jerry" / "checkpoints" / "cx-002-checkpoint.json").write_text("{}")
    (tmp_path / "node_modules").mkdir()
    (tmp_path / "node_modules" / "ORCHESTRATION.yaml").write_text("a: 1\n")
    found = [(a.display, a.kind) for a in discover([tmp_path], Config(), cwd=tmp_path)]
    assert found == [
        (".jerry/checkpoints/cx-002-checkpoint.json", "checkpoint"),
        ("ORCHESTRATION.yaml", "orchestration"),
        ("renamed.yaml", "orchestration"),
    ]
    no_sniff = Config(sniff_resumption=False)
    assert [a.display for a in discover([tmp_path], no_sniff, cwd=tmp_path)] == [
        ".jerry/checkpoints/cx-002-checkpoint.json",
        "ORCHESTRATION.yaml",
    ]


def test_nested_gitignore_applies_below_its_folder(tmp_path: Path) -> None:
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / ".gitignore").write_text("ORCHESTRATION.yaml\n")
    (sub / "ORCHESTRATION.yaml").write_text("a: 1\n")
    (tmp_path / "ORCHESTRATION.yaml").write_text("a: 1\n")
    assert [a.display for a in discover([tmp_path], Config(), cwd=tmp_path)] == ["ORCHESTRATION.yaml"]


def test_suppression_comments() -> None:
    text = "a: 1  # ctxres: ignore[C006, C002]\nb: 2  # ctxres: ignore\n<!-- ctxres: ignore-file[R] -->\n"
    found = suppression.parse(text)
    assert found.covering("C006", 1) and found.covering("C002", 1) and not found.covering("C001", 1)
    assert found.covering("C001", 2)
    assert found.covering("R002", 9) and not found.covering("C001", 9)
    assert not suppression.parse("note: ctxres: ignore is only a comment after #\n").covering("C001", 1)


def test_selection_prefers_the_more_specific_selector() -> None:
    assert not selected("C006", Config(ignore=("C",)))
    assert selected("C006", Config(ignore=("C",), extend_select=("C006",)))
    assert not selected("C006", Config(select=("C00",), ignore=("C006",)))
    assert not selected("P001", Config(select=("C",)))


# The TOML parser ctxres imports: the standard library's from Python 3.11, the backport on 3.10.
TOML_PARSER = "tomllib" if sys.version_info >= (3, 11) else "tomli"


def test_a_pyproject_that_does_not_name_ctxres_is_not_parsed(tmp_path: Path) -> None:
    """Most projects have a pyproject.toml without a ctxres table: it is not parsed (no TOML parser is
    imported for it), so its own mistakes are not reported as ctxres's; the search goes on upwards."""
    (tmp_path / "pyproject.toml").write_text('[tool.ctxres]\nstate-dir = ".outer"\n')
    inner = tmp_path / "inner"
    inner.mkdir()
    (inner / "pyproject.toml").write_text('[project]\nname = "x"\n[tool.ruff\n')
    assert load_config(inner).state_dir == ".outer"
    code = (
        "import sys; from ctxres.config_file import find_table; "
        f"found = find_table({str(inner)!r}); print(found and found[2], {TOML_PARSER!r} in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == [str(tmp_path / "pyproject.toml"), "True"]
    (tmp_path / "pyproject.toml").unlink()
    skipped = inner / "deeper"
    skipped.mkdir()
    code = code.replace(repr(str(inner)), repr(str(skipped)))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split()[-1] == "False", "a pyproject.toml without ctxres was parsed"


@pytest.mark.parametrize("text", TABLE_SPELLINGS)
def test_every_spelling_of_the_table_is_still_read(tmp_path: Path, text: str) -> None:
    assert tomllib.loads(text)["tool"]["ctxres"], "not a spelling of the table"
    assert config_file.may_hold_table(text.encode())
    (tmp_path / "pyproject.toml").write_text(text)
    assert load_config(tmp_path).state_dir == ".here"


@pytest.mark.parametrize("text", NOT_A_TABLE)
def test_a_pyproject_that_only_names_ctxres_as_a_value_or_other_key_is_not_parsed(text: str) -> None:
    assert "ctxres" not in tomllib.loads(text).get("tool", {})
    assert not config_file.may_hold_table(text.encode())


def test_required_version_is_read_from_the_configuration_that_applies(tmp_path: Path) -> None:
    """In-process, as every command asks before it runs: none set, one met, one unmet, one unreadable."""
    from ctxres import __version__

    project = tmp_path / "repo"
    (project / "sub").mkdir(parents=True)
    assert config_file.required(str(project / "sub")) is None  # no configuration file at all
    (project / "pyproject.toml").write_text('[tool.ctxres]\nstate-dir = ".jerry"\n')
    assert config_file.required(str(project / "sub")) is None  # a configuration without a pin
    (project / "pyproject.toml").write_text(f'[tool.ctxres]\nrequired-version = "=={__version__}"\n')
    assert config_file.required(str(project / "sub")) == (f"=={__version__}", str(project / "pyproject.toml"))
    assert config_file.problem_here(str(project / "sub")) is None
    (project / "pyproject.toml").write_text('[tool.ctxres]\nrequired-version = ">=99"\n')
    said = config_file.problem_here(str(project))
    assert said is not None and said.startswith("this repository requires ctxres >=99 (required-version in pyproject")
    (project / "pyproject.toml").write_text('[tool.ctxres]\nrequired-version = "not a version"\n')
    assert config_file.required(str(project)) is None  # the command's configuration error says it
    (project / "pyproject.toml").write_text("[tool.ctxres\nrequired-version = 1\n")
    assert config_file.required(str(project)) is None  # unreadable: the command reports it
