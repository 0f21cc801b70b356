"""`ctxres audit-history` without FILE on a repository of many workflows: the stale commits and one summary line;
the files without one only with --verbose; "1 change", not "1 changes"."""

from __future__ import annotations

from pathlib import Path

from ..team_repository import WORKFLOWS, team_repository


def test_the_findings_and_a_summary_the_clean_files_with_verbose(tmp_path: Path) -> None:
    box = team_repository(tmp_path / "repo")
    edited = "projects/PROJ-002/ORCHESTRATION.yaml"
    box.write(edited, (box.root / edited).read_text() + "# reviewed\n")  # a change that moves no state: not stale
    box.git("commit", "-qam", "a comment")
    quiet = box.ctxres("audit-history")
    assert quiet.returncode == 0, quiet.stderr
    assert quiet.stdout == f"No stale commit in {len(WORKFLOWS)} files (1 change checked).\n", quiet.stdout
    verbose = box.ctxres("audit-history", "--verbose").stdout.splitlines()
    assert f"{edited}: no stale commit (1 change checked)" in verbose
    assert "projects/PROJ-001/ORCHESTRATION.yaml: no stale commit (0 changes checked)" in verbose
    assert len(verbose) == len(WORKFLOWS) + 1 and verbose[-1] == quiet.stdout.strip()
