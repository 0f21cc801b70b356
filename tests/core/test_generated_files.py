"""Every generated file is what its table gives: ``python dev/generate.py --check`` (what ``nox -s schemas``
runs), and a stale file is listed, then rewritten by ``--write``."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ctxres.claude_settings import plugin_hooks_file
from ctxres.hook_events import HOOK_EVENTS

from ..conftest import ROOT
from ..dev_scripts import dev_script

# What the writers read or write, copied to make a stand-in of the repository.
GENERATED_PLACES = (
    "README.md",
    "ctxres/config.py",
    ".pre-commit-hooks.yaml",
    "hooks/hooks.json",
    "fixtures/rules",
    "linters/data",
    "docs/rules",
    "docs/protocol",
    "schemas",
)


def test_the_checked_in_generated_files_are_current() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "dev" / "generate.py"), "--check"], capture_output=True, text=True, timeout=300
    )
    assert (done.returncode, done.stderr) == (0, "")


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    for name in GENERATED_PLACES:
        source, target = ROOT / name, tmp_path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target, symlinks=True, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
        else:
            shutil.copy2(source, target)
    return tmp_path


def test_stale_files_are_listed_and_written_back(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    generate = dev_script("generate")
    (tree / "hooks" / "hooks.json").write_text("{}\n", "utf-8")
    (tree / "docs" / "rules" / "C001.md").unlink()
    (tree / "schemas" / "checkpoint.schema.json").write_text("{}\n", "utf-8")
    readme = (tree / "README.md").read_text("utf-8")
    (tree / "README.md").write_text(readme.replace("| C001 |", "| C001x |"), "utf-8")
    assert generate.main(["--check", "--root", str(tree)]) == 1
    stale = [line.split(":")[0] for line in capsys.readouterr().err.splitlines()[:-1]]
    assert stale == ["hooks/hooks.json", "docs/rules/C001.md", "README.md", "schemas/checkpoint.schema.json"]
    assert generate.main(["--write", "--root", str(tree)]) == 0
    assert generate.main(["--check", "--root", str(tree)]) == 0
    assert (tree / "README.md").read_text("utf-8") == readme
    for name in ("hooks/hooks.json", "docs/rules/C001.md", "schemas/checkpoint.schema.json"):
        assert (tree / name).read_bytes() == (ROOT / name).read_bytes(), name


def test_the_protocol_document_has_one_source(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``docs/protocol/`` holds the document the package carries (``linters/data/``, what ``ctxres init``
    writes), made from it: an edit of the copy is stale, and ``--write`` brings the source back."""
    generate = dev_script("generate")
    name = "docs/protocol/resumption-update-protocol.md"
    source = (ROOT / "linters" / "data" / "resumption-update-protocol.md").read_bytes()
    (tree / name).write_text("# edited here instead of in linters/data/\n", "utf-8")
    assert generate.main(["--check", "--root", str(tree)]) == 1
    assert capsys.readouterr().err.splitlines()[0].startswith(f"{name}: stale (the protocol document")
    assert generate.main(["--write", "--root", str(tree)]) == 0
    assert (tree / name).read_bytes() == source


def test_the_plugin_registration_has_one_group_per_event_of_the_table() -> None:
    plugin = json.loads(plugin_hooks_file())
    assert list(plugin["hooks"]) == [event.name for event in HOOK_EVENTS]
    for event in HOOK_EVENTS:
        (group,) = plugin["hooks"][event.name]
        (handler,) = group["hooks"]
        assert (group.get("matcher"), handler["timeout"], handler["args"][-1]) == (
            event.matcher,
            event.timeout,
            event.name,
        )
        assert event.role in plugin["description"]


def test_it_refuses_to_write_from_the_package_of_another_checkout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An editable install of another checkout maps the rooms to its own folders: the files would be
    generated from that checkout's tables, so the script says so and writes nothing."""
    generate = dev_script("generate")
    assert generate.elsewhere() is None
    monkeypatch.setattr(generate, "ROOT", tmp_path)
    assert generate.main(["--write", "--root", str(tmp_path)]) == 2
    assert "the package is imported from" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())
