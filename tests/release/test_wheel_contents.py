"""The wheel holds the package and its data only, as ``nox -s build`` checks it (``dev/release_check.py``)."""

from __future__ import annotations

import shutil
import zipfile
from pathlib import Path

import pytest

import ctxres

from ..conftest import ROOT
from ..dev_scripts import dev_script

CHECK = dev_script("release_check")
VERSION = ctxres.__version__


def test_the_expected_files_follow_the_source_tree() -> None:
    expected = CHECK.expected_package_files()
    assert "ctxres/__init__.py" in expected
    assert "ctxres/hooks/plugin_entry.py" in expected
    assert "ctxres/linters/rules/__init__.py" in expected
    assert "ctxres/py.typed" in expected
    schemas = {p.name for p in (ROOT / "schemas").glob("*.schema.json")}
    assert schemas and {f"ctxres/schemas/{name}" for name in schemas} <= expected
    docs = {p.name for p in (ROOT / "linters" / "data").glob("*.md")}
    assert docs and {f"ctxres/linters/data/{name}" for name in docs} <= expected
    assert not [name for name in expected if not name.startswith("ctxres/")]
    assert not [
        name for name in expected if {"tests", "bench", "e2e", "fixtures", "fuzz", "dev"} & set(name.split("/"))
    ]


def test_the_built_wheel_is_the_package_and_its_data(built_wheel: Path) -> None:
    names = CHECK.wheel_names(built_wheel)
    assert CHECK.wheel_problems(names, CHECK.expected_package_files(), VERSION) == []
    assert f"ctxres-{VERSION}.dist-info/licenses/LICENSE" in names


def test_a_stray_or_missing_file_is_named() -> None:
    expected = {"ctxres/__init__.py", "ctxres/hooks/__init__.py"}
    dist_info = f"ctxres-{VERSION}.dist-info"
    names = [
        "ctxres/__init__.py",
        "ctxres/tests/test_x.py",
        "tests/conftest.py",
        "fixtures/example/ORCHESTRATION.yaml",
        f"{dist_info}/METADATA",
        f"{dist_info}/RECORD",
        f"{dist_info}/notes.txt",
    ]
    problems = CHECK.wheel_problems(names, expected, VERSION)
    only = f"(only ctxres/ and {dist_info}/ belong in the wheel)"
    assert problems == [
        f"tests/conftest.py: outside the package {only}",
        f"fixtures/example/ORCHESTRATION.yaml: outside the package {only}",
        f"{dist_info}/notes.txt: not a metadata file of the wheel",
        "ctxres/tests/test_x.py: not a module or data file of the package",
        "ctxres/hooks/__init__.py: missing from the wheel",
    ]


def test_another_version_is_named() -> None:
    problems = CHECK.wheel_problems(["ctxres/__init__.py", "ctxres-9.9.9.dist-info/METADATA"], set(), "1.0.0")
    assert "no ctxres-1.0.0.dist-info/ in the wheel: it is not version 1.0.0" in problems


def test_two_wheels_that_differ(built_wheel: Path, tmp_path: Path) -> None:
    same = tmp_path / "same" / built_wheel.name
    same.parent.mkdir()
    shutil.copy2(built_wheel, same)
    assert CHECK.difference(built_wheel, same) == []
    other = tmp_path / "other" / built_wheel.name
    other.parent.mkdir()
    with zipfile.ZipFile(built_wheel) as source, zipfile.ZipFile(other, "w") as target:
        for item in source.infolist():
            data = source.read(item)
            if item.filename == "ctxres/tiers.py":
                data += b"\n# changed\n"
            if item.filename != "ctxres/py.typed":
                target.writestr(item, data)
    assert CHECK.difference(built_wheel, other) == [
        f"ctxres/py.typed: only in {built_wheel.name} of {built_wheel.parent}",
        "ctxres/tiers.py: differs",
    ]


def test_main_prints_the_file_list(built_wheel: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert CHECK.main([str(built_wheel), "--same-as", str(built_wheel)]) == 0
    out = capsys.readouterr().out
    assert "ctxres/hooks/plugin_entry.py" in out
    assert f"the package and its data only, version {VERSION}; the same files as" in out
