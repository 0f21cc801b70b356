"""The README's configuration section lists every setting of the configuration model, and nothing
else, and its example is a configuration the loader accepts.

The model: the fields of :class:`ctxres.config.Config` that a file sets (every core setting), the
rule options (``ctxres.config.OPTIONS``, listed by ``ctxres rule CODE``), and the
artifact kinds of ``[tool.ctxres.patterns]``. A setting added to the model without a line in the
README (or a README line for a setting that does not exist) fails here.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10 only
    import tomli as tomllib  # type: ignore[import-not-found,unused-ignore]

from ctxres import config
from ctxres.artifacts import DEFAULT_PATTERNS
from ctxres.config import OPTIONS

from ..conftest import ROOT

README = ROOT / "README.md"
# Config fields that no file sets: where the configuration was found, and the rule options' holder.
NOT_SETTINGS = {"root", "source", "options"}
# The settings the example sets to another value than their default (the README names them, but `patterns`).
EXAMPLES = {"extend-exclude", "ignore", "severity", "per-file-ignores", "patterns", "live-workflow", "required-version"}


def section(title: str) -> str:
    text = README.read_text(encoding="utf-8")
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## )", text, re.MULTILINE | re.DOTALL)
    assert match, f"README.md has no section `## {title}`"
    return match.group(1)


def fenced(text: str, language: str) -> str:
    blocks = re.findall(rf"^```{language}\n(.*?)^```", text, re.MULTILINE | re.DOTALL)
    assert len(blocks) == 1, f"expected one {language} block, found {len(blocks)}"
    block: str = blocks[0]
    return block


def readme_example() -> str:
    return fenced(section("Configuration"), "toml")


def readme_table() -> dict[str, Any]:
    table = tomllib.loads(readme_example())["tool"]["ctxres"]
    assert isinstance(table, dict)
    return table


def core_settings() -> set[str]:
    return {f.replace("_", "-") for f in config.Config.fields()} - NOT_SETTINGS


def rule_options() -> set[str]:
    return set(OPTIONS)


def test_the_readme_lists_every_setting_of_the_model_and_no_other() -> None:
    written = set(readme_table())
    model = core_settings() | rule_options()
    assert sorted(model - written) == [], "settings of the model missing from the README's example"
    assert sorted(written - model) == [], "settings in the README's example that the model does not have"


def test_the_readme_lists_every_artifact_kind_of_patterns() -> None:
    patterns = readme_table()["patterns"]
    assert sorted(patterns) == sorted(DEFAULT_PATTERNS)
    # The comment says these are the defaults: they are.
    assert {kind: tuple(globs) for kind, globs in patterns.items()} == dict(DEFAULT_PATTERNS)


def test_the_rule_option_values_in_the_readme_are_their_defaults() -> None:
    table = readme_table()
    assert {name: table[name] for name in OPTIONS} == {name: spec.default for name, spec in OPTIONS.items()}


def test_the_core_values_in_the_readme_are_the_defaults_except_the_examples() -> None:
    table = readme_table()
    default = config.Config()
    for key in sorted(core_settings() - EXAMPLES):
        value = getattr(default, key.replace("-", "_"))
        written = table[key]
        assert (tuple(written) if isinstance(written, list) else written) == value, key


def test_the_readme_names_the_settings_its_example_sets_to_another_value() -> None:
    """The sentence above the example says which values are not the defaults: those, and they are not."""
    sentence = section("Configuration").split("the defaults except", 1)[1].split(", which are", 1)[0]
    assert set(re.findall(r"`([a-z-]+)`", sentence)) == EXAMPLES - {"patterns"}
    table, default = readme_table(), config.Config()
    for key in sorted(EXAMPLES - {"patterns", "live-workflow", "required-version"}):
        written = table[key]
        assert (tuple(written) if isinstance(written, list) else written) != getattr(default, key.replace("-", "_")), (
            key
        )


def test_the_readme_example_is_accepted_by_the_real_loader(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(readme_example(), encoding="utf-8")
    (tmp_path / "ORCHESTRATION.yaml").write_text('schema_version: "2.0.0"\n', encoding="utf-8")
    # In-process: every value parses into the model.
    rule_options()
    loaded = config.load_config(tmp_path)
    assert loaded.source == tmp_path / "pyproject.toml"
    assert loaded.extend_exclude == ("archive/",)
    assert loaded.severity == {"C006": "error"}
    assert loaded.pinned_workflow == str(tmp_path / "projects" / "PROJ-003" / "ORCHESTRATION.yaml")
    # And through the real command, which reports a configuration error with exit 2.
    result = subprocess.run(
        [sys.executable, "-m", "ctxres.linters.cli", "check", "--list-files", "."],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "configuration error" not in result.stderr
    assert result.stdout == "ORCHESTRATION.yaml\torchestration\n"


def test_a_setting_missing_from_the_readme_would_be_caught(tmp_path: Path) -> None:
    # The comparison is not vacuous: the loader rejects a key the model lacks.
    example = readme_example().replace("[tool.ctxres]\n", "[tool.ctxres]\nno-such-setting = 1\n", 1)
    (tmp_path / "pyproject.toml").write_text(example, encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "ctxres.linters.cli", "check", "--list-files", "."],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2
    assert "unknown setting `no-such-setting`" in result.stderr
