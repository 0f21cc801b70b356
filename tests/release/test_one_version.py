"""One version everywhere a user reads it: ``ctxres --version``, the built wheel's metadata, SARIF's
``tool.driver.version``, the plugin manifest and its marketplace entry, and the top entry of the changelog.
``ctxres/__init__.py`` is where it is written (pyproject.toml reads it from there)."""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path

import pytest

import ctxres
from ctxres.linters.cli import main

from ..conftest import FIXTURES, ROOT
from ..dev_scripts import dev_script

CHECK = dev_script("release_check")
VERSION = ctxres.__version__


def changelog_versions(text: str) -> list[str]:
    """The versions of the changelog's `## [...]` entries, top first (`Unreleased` included, as written)."""
    return [line[4 : line.index("]")] for line in text.splitlines() if line.startswith("## [")]


def test_the_version_is_a_release_version() -> None:
    assert re.fullmatch(r"\d+\.\d+\.\d+", VERSION), VERSION


def test_pyproject_reads_the_version_from_the_package() -> None:
    text = (ROOT / "pyproject.toml").read_text("utf-8")
    assert 'dynamic = ["version"]' in text
    assert 'version = { attr = "ctxres.__version__" }' in text
    assert not re.search(r'(?m)^version = "', text), "a second version is written in pyproject.toml"


def test_ctxres_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out.strip() == f"ctxres {VERSION}"


def test_sarif_driver_version(capsys: pytest.CaptureFixture[str]) -> None:
    main(["check", "--output-format", "sarif", str(FIXTURES / "example")])
    (run,) = json.loads(capsys.readouterr().out)["runs"]
    assert run["tool"]["driver"]["name"] == "ctxres"
    assert run["tool"]["driver"]["version"] == VERSION


def test_plugin_manifest_and_marketplace() -> None:
    plugin = json.loads((ROOT / ".claude-plugin" / "plugin.json").read_text("utf-8"))
    assert plugin["version"] == VERSION
    marketplace = json.loads((ROOT / ".claude-plugin" / "marketplace.json").read_text("utf-8"))
    assert marketplace["metadata"]["version"] == VERSION
    (entry,) = (p for p in marketplace["plugins"] if p["name"] == plugin["name"])
    assert entry["version"] == VERSION


def test_changelog_top_entry_is_the_version() -> None:
    text = (ROOT / "CHANGELOG.md").read_text("utf-8")
    assert text.startswith("# Changelog\n")
    versions = changelog_versions(text)
    assert versions, "the changelog has no entry"
    assert versions[0] == VERSION, f"the changelog's top entry is {versions[0]}, the package is {VERSION}"
    assert CHECK.tag_problems(f"v{VERSION}", VERSION, text) == []
    assert len(versions) == len(set(versions)), f"an entry is repeated: {versions}"


def test_the_built_wheel_carries_the_version(built_wheel: Path) -> None:
    wheel = built_wheel
    assert wheel.name == f"ctxres-{VERSION}-py3-none-any.whl"
    with zipfile.ZipFile(wheel) as archive:
        metadata = archive.read(f"ctxres-{VERSION}.dist-info/METADATA").decode("utf-8")
    assert f"\nVersion: {VERSION}\n" in metadata


def test_a_tag_or_a_changelog_that_disagrees() -> None:
    changelog = "# Changelog\n\n## [1.2.0] - 2026-12-01\n\n### Fixed\n\n- a thing\n\n## [1.1.0] - 2026-11-01\n"
    assert CHECK.tag_problems("v1.2.0", "1.2.0", changelog) == []
    assert CHECK.top_entry(changelog) == ("## [1.2.0] - 2026-12-01", "### Fixed\n\n- a thing\n")
    assert CHECK.tag_problems("1.2.0", "1.2.0", changelog) == [
        "the tag 1.2.0 is not v1.2.0, the version ctxres/__init__.py writes"
    ]
    assert CHECK.tag_problems("v1.3.0", "1.3.0", changelog) == [
        "the changelog's top entry is 1.2.0, the package is 1.3.0"
    ]
    unreleased = "# Changelog\n\n## [Unreleased]\n\n## [1.2.0] - 2026-12-01\n"
    assert CHECK.tag_problems("v1.2.0", "1.2.0", unreleased) == [
        "the changelog's top entry is not `## [1.2.0] - YYYY-MM-DD`: ## [Unreleased]"
    ]
