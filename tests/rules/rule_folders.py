"""The rule fixtures' folders (``fixtures/rules/<CODE>/<case>/``), checked as `ctxres check` checks a
project: what the tests of the rules that read more than one file (the checkpoint files beside a
workflow, a workflow's own folder) share."""

from __future__ import annotations

import shutil
from pathlib import Path

from ctxres.config import load_config
from ctxres.findings import Finding
from ctxres.linters.checking import engine

from ..conftest import FIXTURES

RULES = FIXTURES / "rules"
# A rules that need a git history (a merge) rather than a folder of files: no bad fixture, a test of
# tests/rules/ triggers each (the COMMAND_RULES of test_rule_fixtures.py name it).
GIT_HISTORY_RULES = frozenset({"A013"})


def check_folder(folder: Path) -> list[Finding]:
    """Every finding of `ctxres check` run in ``folder`` on ``folder``, with the folder's configuration."""
    return engine.run([folder], load_config(folder), cwd=folder).findings


def copy_case(case: str, tmp_path: Path) -> Path:
    """A copy of the fixture folder ``case`` (e.g. ``"A001/good"``) to change in a test."""
    target = tmp_path / "repo"
    shutil.copytree(RULES / case, target)
    return target


def a_findings(findings: list[Finding]) -> list[Finding]:
    """The A rules' findings (compaction records and their acknowledgement) among ``findings``."""
    return [f for f in findings if f.code.startswith("A")]
