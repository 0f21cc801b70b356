"""The settings a hook reads from a configured project: the same values and the same errors as the full
configuration model (``ctxres.config``), read without loading it (a hook runs on every prompt)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ctxres.config import ConfigError, load_config
from ctxres.hooks.context import CONFIG_UNUSABLE, HookError, load_settings

from ..core.pyproject_tables import NOT_A_TABLE, TABLE_SPELLINGS

GOOD = [
    "",
    'state-dir = ".state"\n',
    'staleness_minutes = 10\nprofile = "nexus"\n',
    '[patterns]\norchestration = ["workflow/*.yaml", "**/PLAN.yaml"]\n',
    '[patterns]\ncheckpoint = ["cp/*.json"]\n',
    'select = ["C"]\nstaleness-minutes = 45\n',
]
BAD = [
    'state-dir = ""\n',
    "staleness-minutes = 0\n",
    "staleness-minutes = true\n",
    'profile = "other"\n',
    '[patterns]\norchestration = "workflow.yaml"\n',
    'patterns = "x"\n',
    "state-dir = \n",  # not TOML
]


def _write(folder: Path, text: str, *, pyproject: bool) -> None:
    if pyproject:
        body = "".join(
            line if not line.startswith("[") else line.replace("[", "[tool.ctxres.", 1)
            for line in text.splitlines(True)
        )
        (folder / "pyproject.toml").write_text('[project]\nname = "x"\n\n[tool.ctxres]\n' + body)
    else:
        (folder / ".ctxres.toml").write_text(text)


@pytest.mark.parametrize("pyproject", [False, True])
@pytest.mark.parametrize("text", GOOD)
def test_the_hooks_read_what_the_configuration_model_reads(tmp_path: Path, text: str, pyproject: bool) -> None:
    _write(tmp_path, text, pyproject=pyproject)
    config, settings = load_config(tmp_path), load_settings(str(tmp_path))
    assert settings.state_dir == config.state_dir
    assert settings.staleness_minutes == config.staleness_minutes
    assert settings.profile == config.profile
    assert settings.orchestration_patterns == tuple(config.patterns["orchestration"])


@pytest.mark.parametrize("pyproject", [False, True])
@pytest.mark.parametrize("text", BAD)
def test_a_wrong_setting_is_the_same_error_for_the_hooks(tmp_path: Path, text: str, pyproject: bool) -> None:
    _write(tmp_path, text, pyproject=pyproject)
    with pytest.raises(ConfigError) as expected:
        load_config(tmp_path)
    with pytest.raises(HookError) as got:
        load_settings(str(tmp_path))
    assert str(got.value) == f"configuration error: {expected.value}; {CONFIG_UNUSABLE}"


def test_a_configured_project_does_not_load_the_configuration_model(tmp_path: Path) -> None:
    """``ctxres.config`` brings dataclasses, inspect and pathlib: about 20 ms on every prompt. (pathlib is not
    asserted: the editable install the tests run from imports it to find the package.)"""
    (tmp_path / ".ctxres.toml").write_text('staleness-minutes = 45\n[patterns]\norchestration = ["wf/*.yaml"]\n')
    code = (
        "import json, sys; from ctxres.hooks.context import load_settings; "
        "s = load_settings(sys.argv[1]); "
        "print(json.dumps([s.staleness_minutes, list(s.orchestration_patterns), sorted(sys.modules)]))"
    )
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    out = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, check=True, env=env
    )
    minutes, patterns, modules = json.loads(out.stdout)
    assert (minutes, patterns) == (45, ["wf/*.yaml"])
    assert [m for m in modules if m in ("ctxres.config", "dataclasses", "inspect", "ctxres.artifacts")] == []


@pytest.mark.parametrize("text", TABLE_SPELLINGS)
def test_the_hooks_find_the_table_in_every_spelling_the_linters_read(tmp_path: Path, text: str) -> None:
    """``[tool]`` with a ``ctxres`` key, a dotted key, an inline table: a configuration the linters read is
    one the hooks read too (they once looked for the text ``[tool.ctxres`` only)."""
    (tmp_path / "pyproject.toml").write_text(text)
    assert load_settings(str(tmp_path)).state_dir == load_config(tmp_path).state_dir == ".here"


@pytest.mark.parametrize("text", NOT_A_TABLE)
def test_a_pyproject_that_only_names_ctxres_leaves_the_hooks_on_their_defaults(tmp_path: Path, text: str) -> None:
    (tmp_path / "pyproject.toml").write_text(text)
    settings, defaults = load_settings(str(tmp_path)), load_settings(str(tmp_path / "missing"))
    fields = ("state_dir", "staleness_minutes", "profile", "orchestration_patterns")
    assert [getattr(settings, name) for name in fields] == [getattr(defaults, name) for name in fields]


def test_a_project_in_a_sub_folder_of_a_configured_repository_is_configured(tmp_path: Path) -> None:
    """The linters find the configuration of the folders above (``ctxres check`` from a sub-folder); so do
    the hooks, for a Claude Code project opened in a sub-folder of the repository."""
    (tmp_path / "pyproject.toml").write_text('[tool]\nctxres.state-dir = ".above"\n')
    project = tmp_path / "services" / "api"
    project.mkdir(parents=True)
    (project / "pyproject.toml").write_text('[project]\nname = "api"\ndependencies = ["ctxres"]\n')
    assert load_settings(str(project)).state_dir == load_config(project).state_dir == ".above"
    (project / ".ctxres.toml").write_text('state-dir = ".here"\n')
    assert load_settings(str(project)).state_dir == load_config(project).state_dir == ".here"
