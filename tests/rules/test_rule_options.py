"""Rule options: declared beside their rules, checked generically by the configuration loader."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ctxres import config as config_module
from ctxres.config import OPTIONS, Config, ConfigError, Option, load_config, parse
from ctxres.linters.checking.registry import RULES
from ctxres.linters.rules import agent_memory, all_rules, reinject

from ..conftest import ROOT

# The rule options and their defaults before they moved out of the core ``Config``: unchanged.
DEFAULTS = {
    "reinject-budget": 600,
    "reinject-token-tolerance": 10,
    "reinject-max-marker-tokens": 0,
    "enforce-update-protocol": False,
    "event-type-spelling": "any",
    "run-stale-after-days": 7,
    # A core setting until C008 read it: a rule option since, with the same default.
    "require-resumption": False,
}


def _parse(table: dict[str, object], tmp_path: Path) -> Config:
    return parse(table, tmp_path, tmp_path / "pyproject.toml")


def test_every_rule_option_is_declared_with_its_former_default() -> None:
    all_rules()
    assert {name: spec.default for name, spec in OPTIONS.items()} == DEFAULTS
    assert all(Config().option(name) == default for name, default in DEFAULTS.items())


def test_options_are_declared_with_the_rules_that_read_them() -> None:
    owners = {o.name: code for code, rule in all_rules().items() for o in rule.options}
    assert owners == {
        "reinject-token-tolerance": "R003",
        "reinject-budget": "R006",
        "reinject-max-marker-tokens": "R007",
        "enforce-update-protocol": "R009",
        "event-type-spelling": "M010",
        "require-resumption": "C008",
    }
    assert agent_memory.RUN_STALE_AFTER_DAYS.name == "run-stale-after-days"  # `ctxres runs` (a family option)


def test_the_core_config_has_no_field_per_rule_option() -> None:
    fields = set(Config.fields())
    assert not {name.replace("-", "_") for name in DEFAULTS} & fields
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
    all_rules()
    for option in OPTIONS.values():
        assert option.toml() in section, option.name


def test_configured_options_are_stored_and_read(tmp_path: Path) -> None:
    table = {
        "reinject-budget": 800,
        "reinject-token-tolerance": 0,
        "reinject-max-marker-tokens": 100,
        "enforce-update-protocol": True,
        "event-type-spelling": "hyphen",
        "run-stale-after-days": 3,
    }
    config = _parse(table, tmp_path)
    assert config.options == table
    assert all(config.option(key) == value for key, value in table.items())
    assert reinject.budget(config) == 800 and reinject.tolerance(config) == 0
    assert reinject.max_marker_tokens(config) == 100 and reinject.protocol_enforced(config)
    assert agent_memory.spelling_setting(config) == "hyphen"
    # snake_case keys were accepted before; they still are
    assert _parse({"reinject_budget": 700}, tmp_path).option("reinject-budget") == 700


def test_the_same_configuration_file_gives_the_same_values(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.ctxres]\nstate-dir = ".s"\nreinject-budget = 450\nenforce-update-protocol = true\nstrict = true\n'
    )
    config = load_config(tmp_path)
    assert (config.state_dir, config.strict) == (".s", True)
    assert (reinject.budget(config), reinject.protocol_enforced(config)) == (450, True)
    assert config.option("event-type-spelling") == "any"


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
        Config(options={"reinject-budget": -1}).option("reinject-budget")
    with pytest.raises(KeyError, match="no rule declares the option `no-such-option`"):
        Config().option("no-such-option")


def test_declarations_are_checked() -> None:
    with pytest.raises(ValueError, match="is a core setting"):
        config_module.declare(Option("state-dir", 1, "x"))
    with pytest.raises(ValueError, match="declared twice, differently"):
        config_module.declare(Option("reinject-budget", 1, "x"))
    with pytest.raises(ValueError, match="is not an integer >= 0"):
        config_module.declare(Option("test-only-option", -1, "x"))
    assert "test-only-option" not in OPTIONS
    assert config_module.declare(reinject.BUDGET) is reinject.BUDGET  # the same declaration again is fine


def test_loading_a_configuration_without_the_linters_imports_no_rule(tmp_path: Path) -> None:
    """The hooks load the configuration without the linters: the rule options stay as written."""
    (tmp_path / ".ctxres.toml").write_text('state-dir = ".st"\nreinject-budget = 800\nreinject-budgt = 1\n')
    code = (
        "import json, sys; from pathlib import Path; from ctxres.hooks.context import load_settings; "
        "from ctxres.config import load_config; s = load_settings(sys.argv[1]); c = load_config(Path(sys.argv[1])); "
        "print(json.dumps([s.state_dir, c.options, sorted(m for m in sys.modules if m.startswith('ctxres.linters'))]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, check=True, cwd=tmp_path
    )
    assert json.loads(out.stdout) == [".st", {"reinject-budget": 800, "reinject-budgt": 1}, []]


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
