"""Rule options: declared in ctxres.config with their types, attached to the rules that read them, checked
when the configuration loads (whatever was imported) and read typed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ctxres.config import CODES, OPTIONS, Config, ConfigError, Option, load_config, parse
from ctxres.linters.checking import registry
from ctxres.linters.checking.registry import RULES
from ctxres.linters.rules import agent_memory, all_rules, reinject
from ctxres.linters.rules.agent_memory import EVENT_TYPE_SPELLING, RUN_STALE_AFTER_DAYS
from ctxres.linters.rules.reinject import (
    ENFORCE_UPDATE_PROTOCOL,
    REINJECT_BUDGET,
    REINJECT_MAX_MARKER_TOKENS,
    REINJECT_TOKEN_TOLERANCE,
)

from ..conftest import ROOT


def _parse(table: dict[str, object], tmp_path: Path) -> Config:
    return parse(table, tmp_path, tmp_path / "pyproject.toml")


def test_every_rule_option_is_read_by_one_rule_and_defaults_to_its_declared_value() -> None:
    owners = [option.name for rule in all_rules().values() for option in rule.options]
    assert sorted(owners) == sorted(OPTIONS)  # each option is declared with exactly one rule
    assert all(Config().value(option) == option.default for option in OPTIONS.values())
    assert RULES["R006"].options == (REINJECT_BUDGET,) and REINJECT_BUDGET.default == 600


def test_the_core_config_has_no_field_per_rule_option() -> None:
    fields = set(Config.fields())
    assert not {name.replace("-", "_") for name in OPTIONS} & fields
    assert "options" in fields


def test_rule_pages_list_their_options_with_the_defaults() -> None:
    for rule in all_rules().values():
        for option in rule.options:
            assert "## Options" in rule.doc() and f"`{option.toml()}` ({option.expected})" in rule.doc()
    assert "`reinject-budget = 600` (a positive integer)" in RULES["R006"].doc()
    assert '`event-type-spelling = "any"` (one of any, underscore, hyphen)' in RULES["M010"].doc()
    assert "## Options" not in RULES["R001"].doc()


def test_readme_configuration_lists_every_rule_option_with_its_default() -> None:
    section = (ROOT / "README.md").read_text("utf-8").split("## Configuration", 1)[1].split("\n## ", 1)[0]
    for option in OPTIONS.values():
        assert option.toml() in section, option.name


def test_configured_options_are_stored_and_read(tmp_path: Path) -> None:
    table = {
        REINJECT_BUDGET.name: 800,
        REINJECT_TOKEN_TOLERANCE.name: 0,
        REINJECT_MAX_MARKER_TOKENS.name: 100,
        ENFORCE_UPDATE_PROTOCOL.name: True,
        EVENT_TYPE_SPELLING.name: "hyphen",
        RUN_STALE_AFTER_DAYS.name: 3,
    }
    config = _parse(table, tmp_path)
    assert config.options == table
    assert all(config.value(OPTIONS[key]) == value for key, value in table.items())
    assert reinject.budget(config) == 800 and reinject.tolerance(config) == 0
    assert reinject.max_marker_tokens(config) == 100 and reinject.protocol_enforced(config)
    assert agent_memory.spelling_setting(config) == "hyphen"
    # snake_case keys were accepted before; they still are
    assert _parse({"reinject_budget": 700}, tmp_path).value(REINJECT_BUDGET) == 700


def test_the_same_configuration_file_gives_the_same_values(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.ctxres]\nstate-dir = ".s"\nreinject-budget = 450\nenforce-update-protocol = true\nstrict = true\n'
    )
    config = load_config(tmp_path)
    assert (config.state_dir, config.strict) == (".s", True)
    assert (reinject.budget(config), reinject.protocol_enforced(config)) == (450, True)
    assert config.value(agent_memory.EVENT_TYPE_SPELLING) == "any"


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({"reinject-budget": 0}, "`reinject-budget` must be a positive integer"),
        ({"reinject-budget": "600"}, "`reinject-budget` must be a positive integer"),
        ({"reinject-budget": True}, "`reinject-budget` must be a positive integer"),
        ({"reinject-token-tolerance": -1}, "`reinject-token-tolerance` must be an integer >= 0"),
        ({"reinject-max-marker-tokens": 1.5}, "`reinject-max-marker-tokens` must be an integer >= 0"),
        ({"enforce-update-protocol": "yes"}, "`enforce-update-protocol` must be true or false"),
        ({"event-type-spelling": "camel"}, "`event-type-spelling` must be one of any, underscore, hyphen"),
        ({"run-stale-after-days": 0}, "`run-stale-after-days` must be a positive integer"),
        ({"reinject_budget": -5}, "`reinject_budget` must be a positive integer"),
        ({"reinject-budgt": 600}, "unknown setting `reinject-budgt` in ctxres configuration"),
        ({"options": {}}, "unknown setting `options`"),
    ],
)
def test_wrong_options_name_the_key_and_what_it_must_be(tmp_path: Path, table: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        _parse(table, tmp_path)


def test_an_option_set_directly_is_checked_when_read() -> None:
    with pytest.raises(ConfigError, match="`reinject-budget` must be a positive integer"):
        Config(options={"reinject-budget": -1}).value(REINJECT_BUDGET)
    assert Config(options={"run-stale-after-days": 3}).value(RUN_STALE_AFTER_DAYS) == 3


def test_every_option_has_a_valid_default_and_is_no_core_setting() -> None:
    core = {name.replace("_", "-") for name in Config.fields()}
    for name, option in OPTIONS.items():
        assert option.name == name and name not in core
        assert option.valid(option.default), name


def test_the_table_lists_every_registered_rule_and_option() -> None:
    assert set(all_rules()) == CODES
    assert {option.name for rule in all_rules().values() for option in rule.options} == set(OPTIONS)


def test_registering_a_code_the_table_does_not_hold_is_an_error() -> None:
    with pytest.raises(ValueError, match=r"S999 is not listed in CODES of ctxres/config\.py"):
        registry.register("S999", "not-listed", "a rule the table does not list")
    assert "S999" not in RULES


def test_the_loader_s_options_are_those_the_rule_modules_declare() -> None:
    """Each option is declared once, in its rule's module; OPTIONS of ctxres/config.py is their generated copy,
    equal to them in every field (`python dev/generate.py --check` fails when it is not)."""
    declared = {option.name: option for rule in all_rules().values() for option in rule.options}
    assert declared == OPTIONS
    assert all(declared[name].default == OPTIONS[name].default for name in OPTIONS)
    stray = Option("reinject-budget", 1, "a second declaration of the option")
    assert stray != OPTIONS["reinject-budget"]


def test_loading_a_configuration_checks_it_without_importing_a_rule(tmp_path: Path) -> None:
    """What the loader validates does not depend on what was imported: a process that imports no rule (as a
    hook does) gets the same errors as `ctxres check`, with file:line:col and "did you mean"."""
    code = (
        "import json, sys; from pathlib import Path; from ctxres.config import ConfigError, load_config\n"
        "try:\n    c = load_config(Path(sys.argv[1])); out = c.options\n"
        "except ConfigError as exc:\n    out = str(exc)\n"
        "print(json.dumps([out, sorted(m for m in sys.modules if m.startswith('ctxres.linters'))]))"
    )

    def loaded(text: str) -> list[object]:
        (tmp_path / ".ctxres.toml").write_text(text)
        out = subprocess.run(
            [sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, check=True, cwd=tmp_path
        )
        result: list[object] = json.loads(out.stdout)
        return result

    assert loaded('state-dir = ".st"\nreinject-budget = 800\n') == [{"reinject-budget": 800}, []]
    assert loaded("reinject-budgt = 1\n") == [
        f"{tmp_path / '.ctxres.toml'}: unknown setting `reinject-budgt` in ctxres configuration; "
        "did you mean `reinject-budget`?",
        [],
    ]
    assert loaded("reinject-budget = 0\n") == [
        f"{tmp_path / '.ctxres.toml'}: `reinject-budget` must be a positive integer",
        [],
    ]
    assert loaded('select = ["C003"]\nignore = ["c004"]\n') == [
        f"{tmp_path / '.ctxres.toml'}:2:12: `ignore`: unknown rule code or prefix 'c004'; did you mean 'C004'?",
        [],
    ]


@pytest.mark.parametrize("command", [["check", "."], ["runs"], ["doctor"]])
def test_commands_report_a_wrong_option_as_a_configuration_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    from ctxres.linters import cli

    monkeypatch.chdir(tmp_path)
    (tmp_path / ".ctxres.toml").write_text("reinject-budgt = 800\n")
    assert cli.main(command) == 2
    assert "unknown setting `reinject-budgt`" in capsys.readouterr().err
    (tmp_path / ".ctxres.toml").write_text("run-stale-after-days = 0\n")
    assert cli.main(command) == 2
    assert "`run-stale-after-days` must be a positive integer" in capsys.readouterr().err
