"""The README's install section says what the release makes true: the tool installs (marked "once
published"), the remote pre-commit form with the current tag and every hook the repository declares,
the plugin's marketplace and name, and how a release is cut."""

from __future__ import annotations

import json
import re

import yaml

import ctxres

from ..conftest import ROOT

README = (ROOT / "README.md").read_text("utf-8")


def yaml_blocks(text: str) -> list[str]:
    return re.findall(r"```yaml\n(.*?)```", text, flags=re.DOTALL)


def test_tool_installs_once_published() -> None:
    for command in ("pipx install ctxres", "uv tool install ctxres"):
        (line,) = [x for x in README.splitlines() if x.startswith(command + " ")]
        assert "once published" in line, line


def test_the_remote_pre_commit_form_names_the_current_tag_and_every_hook() -> None:
    remote = [block for block in yaml_blocks(README) if "rev:" in block]
    assert len(remote) == 1, remote
    (repo,) = yaml.safe_load(remote[0])["repos"]
    assert repo["rev"] == f"v{ctxres.__version__}"
    declared = [hook["id"] for hook in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text("utf-8"))]
    assert [hook["id"] for hook in repo["hooks"]] == declared


def test_the_plugin_route_names_the_marketplace_and_the_plugin() -> None:
    marketplace = json.loads((ROOT / ".claude-plugin" / "marketplace.json").read_text("utf-8"))
    plugin = f"{marketplace['plugins'][0]['name']}@{marketplace['name']}"
    assert "/plugin marketplace add " in README
    assert f"/plugin install {plugin}" in README
    assert f"claude plugin install {plugin}" in README
    assert "PyYAML" in README[README.index("/plugin install") :][:1500]


def test_how_to_cut_a_release() -> None:
    section = README[README.index("### Releasing") :]
    for needed in ("ctxres/__init__.py", "CHANGELOG.md", "nox -s build", "git tag vX.Y.Z", "trusted publishing"):
        assert needed in section, needed
