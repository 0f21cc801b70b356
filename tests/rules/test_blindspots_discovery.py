"""Discovery that does not depend on where the check runs from.

Legacy `_resume.md` manifests (N009) are found in every project folder under the checked paths, the
archived ones too (finished work: not reported); a rule file is one the client or the L2 engine reads,
wherever the check runs from.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ctxres.config import Config, load_config
from ctxres.linters.checking import engine
from ctxres.linters.checking.discovery import discover, find_named

from ..conftest import FIXTURES

NESTED = FIXTURES / "rules" / "N009" / "bad-beside-archived"
ENGINE_RULES = FIXTURES / "rules" / "R001" / "bad-context-rules"


@pytest.fixture
def parent(tmp_path: Path) -> Path:
    """``<tmp>/work/nexus``: a Nexus workspace (legacy files, archived projects, a rule file) one folder down."""
    workspace = tmp_path / "work" / "nexus"
    shutil.copytree(NESTED, workspace)
    (workspace / "EXPECTED").unlink()
    shutil.copytree(ENGINE_RULES / ".context", workspace / "04-workspace" / ".context")
    planning = workspace / "02-projects" / "12-onboarding" / "01-planning"
    planning.mkdir(parents=True)
    (planning / "steps.md").write_text("# Steps\n\n- [ ] Welcome mail\n")
    return tmp_path / "work"


def _found(paths: list[Path], cwd: Path) -> set[tuple[str, str]]:
    """(absolute path, code) of every finding, so that runs from different folders compare."""
    report = engine.run(paths, Config(root=cwd), cwd=cwd)
    return {(str((cwd / f.path).resolve()), f.code) for f in report.findings}


def test_the_same_findings_from_the_workspace_root_and_from_a_parent_folder(parent: Path) -> None:
    workspace = parent / "nexus"
    from_root = _found([workspace], workspace)
    from_parent = _found([parent], parent)
    from_above = _found([workspace], parent.parent)
    assert from_root == from_parent == from_above
    legacy = sorted(Path(path).relative_to(workspace).as_posix() for path, code in from_root if code == "N009")
    # (the archived projects' legacy files are found too, but archived work is finished: not reported)
    assert legacy == ["02-projects/12-onboarding/_resume.md"]
    assert (str((workspace / "04-workspace/.context/rules/guardrails.md").resolve()), "R001") in from_root


def test_a_sub_folder_finds_the_same_findings_for_what_it_holds(parent: Path) -> None:
    workspace = parent / "nexus"
    everything = _found([workspace], workspace)
    for sub in ("02-projects", "05-archived", "04-workspace", "02-projects/12-onboarding"):
        folder = (workspace / sub).resolve()
        below = {item for item in everything if Path(item[0]).is_relative_to(folder)}
        assert _found([workspace / sub], workspace / sub) == below, sub
        assert _found([workspace / sub], workspace) == below, sub


def test_legacy_files_are_found_with_the_excludes_and_gitignore(parent: Path) -> None:
    workspace = parent / "nexus"
    (workspace / ".gitignore").write_text("/05-archived/\n")
    found = find_named([workspace], load_config(workspace), ("_resume.md",))
    assert sorted(p.relative_to(workspace).as_posix() for p in found) == [
        "02-projects/05-archived/04-pricing-page/01-planning/_resume.md",  # not the top-level folder: kept
        "02-projects/12-onboarding/_resume.md",
    ]
    codes = {code for _path, code in _found([workspace], workspace)}
    assert "N009" in codes


def test_a_legacy_file_outside_any_project_folder_is_not_reported(tmp_path: Path) -> None:
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "_resume.md").write_text("---\nphase: execution\n---\n")
    assert _found([tmp_path], tmp_path) == set()


def test_a_markdown_file_is_a_rule_file_by_its_place_not_by_a_marker(tmp_path: Path) -> None:
    """A marker outside the files the client or the L2 engine reads is never re-injected: text."""
    marker = '<!-- L2-REINJECT: rank=1, tokens=6, content="Ask before deleting files." -->\n'
    for name in ("guide/rules.md", "guide/rules.markdown", ".claude/rules/team/ask.md", ".context/rules/ask.md"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("# Rules\n\n" + marker)
    (tmp_path / "CLAUDE.md").write_text("# Project\n\nNo marker here.\n")
    found = {a.display: a.kind for a in discover([tmp_path], Config(root=tmp_path), tmp_path)}
    assert found == {
        ".claude/rules/team/ask.md": "rule-file",
        ".context/rules/ask.md": "rule-file",
        "CLAUDE.md": "rule-file",
    }
