"""`ctxres prompt` and `ctxres migrate-nexus` on YAML nested deep enough to crash libyaml (a segfault,
exit 139, before they read through ctxres.formats.yamlguard): one line and a usage exit code instead."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

DEEP = 60_000  # libyaml recursed once per level and crashed the interpreter past about 20,000


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ctxres.linters.cli", *args], cwd=cwd, capture_output=True, text=True, timeout=120
    )


def test_prompt_refuses_a_workflow_file_nested_60000_deep(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    workflow = tmp_path / "ORCHESTRATION.yaml"
    workflow.write_text("workflow:\n  status: ACTIVE\nresumption: " + "[" * DEEP + "]" * DEEP + "\n")
    result = _run(["prompt", "--template", "1", "--file", str(workflow)], tmp_path)
    assert result.returncode == 2, result
    assert result.stdout == ""
    [line] = result.stderr.splitlines()
    assert "nested more than 1,000 levels deep" in line
    assert "Traceback" not in result.stderr


def test_migrate_nexus_refuses_a_legacy_manifest_nested_60000_deep(tmp_path: Path) -> None:
    project = tmp_path / "PROJ-9"
    project.mkdir()
    legacy = project / "_resume.md"
    original = "---\nresume_version: " + "[" * DEEP + "]" * DEEP + "\n---\n# body\n"
    legacy.write_text(original)
    result = _run(["migrate-nexus", str(project)], tmp_path)
    assert result.returncode != 0 and result.returncode != -11, result  # -11: SIGSEGV
    assert "nested more than 1,000 levels deep" in result.stderr
    assert "Traceback" not in result.stderr
    assert legacy.read_text() == original
    assert not (project / "01-planning").exists()
