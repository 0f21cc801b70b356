"""The rules of linters/rules/template_budgets.py: T001 to T003, the rendered prompts within their token
budgets (beyond the rule fixtures)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxres.config import load_config
from ctxres.linters.checking import engine
from tests.conftest import FIXTURES


@pytest.mark.parametrize(
    ("recovery", "workflow", "rendered"),
    [
        ("ACTIVE", "ACTIVE", True),
        ("PAUSED", "PAUSED", True),
        ("IN_PROGRESS", "ACTIVE", True),  # a synonym the core reads as ACTIVE
        ("COMPLETE", "ACTIVE", False),  # recovery_state.workflow_status is what counts
        (None, "RUNNING", True),  # no workflow_status in the section: workflow.status
        (None, "COMPLETE", False),
    ],
)
def test_t001_checks_the_prompt_of_a_live_workflow_only(
    tmp_path: Path, recovery: str | None, workflow: str, rendered: bool
) -> None:
    text = (FIXTURES / "rules" / "T001" / "bad" / "ORCHESTRATION.yaml").read_text()
    text = text.replace('  status: "ACTIVE"', f'  status: "{workflow}"', 1)
    line = '    workflow_status: "ACTIVE"\n'
    assert line in text
    text = text.replace(line, f'    workflow_status: "{recovery}"\n' if recovery else "")
    (tmp_path / ".git").mkdir()
    (tmp_path / "ORCHESTRATION.yaml").write_text(text)
    report = engine.run([tmp_path], load_config(tmp_path), cwd=tmp_path)
    assert ("T001" in {f.code for f in report.findings}) is rendered
