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

VERSION = ctxres.__version__
# A release heading of Keep a Changelog: `## [1.2.3] - 2026-11-27`.
RELEASE_HEADING = re.compile(r"^## \[(?P<version>[^\]]+)\] - (?P<date>\d{4}-\d{2}-\d{2})$")


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
    heading = next(line for line in text.splitlines() if line.startswith("## ["))
    assert RELEASE_HEADING.match(heading), f"not a release heading (## [X.Y.Z] - YYYY-MM-DD): {heading}"
    assert len(versions) == len(set(versions)), f"an entry is repeated: {versions}"


def test_the_built_wheel_carries_the_version(built_wheel: Path) -> None:
    wheel = built_wheel
    assert wheel.name == f"ctxres-{VERSION}-py3-none-any.whl"
    with zipfile.ZipFile(wheel) as archive:
        metadata = archive.read(f"ctxres-{VERSION}.dist-info/METADATA").decode("utf-8")
    assert f"\nVersion: {VERSION}\n" in metadata
