"""`ctxres baseline`, `reinject --fix` and `migrate-nexus` rewrite files the team commits and edits: a change
made to one while the command worked (a teammate's merge pulled in, an editor, the session) is never replaced."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from ctxres.findings import Finding
from ctxres.linters.checking import engine
from ctxres.linters.cli import main
from ctxres.linters.commands import migrate_nexus, reinject

from ..conftest import CORPUS, FIXTURES

WORKSPACE = FIXTURES / "ack" / "two-unacknowledged"  # one finding: two checkpoints not merged (A010)
BASELINE = ".ctxres-baseline.json"
MERGED = '{"version": 1, "tool": "ctxres", "note": "from the merge", "entries": []}\n'


@pytest.mark.parametrize("before", ["absent", "present"])
def test_a_baseline_changed_while_the_project_was_checked_is_not_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], before: str
) -> None:
    root = tmp_path / "repo"
    shutil.copytree(WORKSPACE, root)
    (root / ".git").mkdir()
    monkeypatch.chdir(root)
    if before == "present":
        assert main(["baseline"]) == 0
    real_run = engine.run

    def run_then_merge(*args: object, **kwargs: object) -> engine.Report:
        report = real_run(*args, **kwargs)  # type: ignore[arg-type]
        (root / BASELINE).write_text(MERGED)  # the teammate's baseline arrives meanwhile
        return report

    monkeypatch.setattr(engine, "run", run_then_merge)
    capsys.readouterr()
    assert main(["baseline"]) == 2
    assert (root / BASELINE).read_text() == MERGED
    assert capsys.readouterr().err == (
        f"ctxres: error: {BASELINE} changed while the baseline was computed; it was not written: run again\n"
    )
    monkeypatch.setattr(engine, "run", real_run)
    assert main(["baseline"]) == 0  # run again: recorded over the merged file
    assert "A010" in (root / BASELINE).read_text()


def test_reinject_fix_does_not_replace_a_rule_file_edited_while_it_worked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`ctxres reinject --fix` rewrites the team's CLAUDE.md: an edit made meanwhile is kept, the fix not written."""
    copy = tmp_path / "CLAUDE.md"
    shutil.copyfile(CORPUS / "reinject" / "CLAUDE.md", copy)
    copy.chmod(0o644)
    edit = "\nA rule the session added meanwhile.\n"
    real_check = reinject.check

    def check_then_edit(*args: object, **kwargs: object) -> list[Finding]:
        found = real_check(*args, **kwargs)  # type: ignore[arg-type]
        if edit not in copy.read_text():
            with open(copy, "a", encoding="utf-8") as handle:
                handle.write(edit)
        return found

    before = copy.read_text()
    monkeypatch.setattr(reinject, "check", check_then_edit)
    monkeypatch.chdir(tmp_path)
    assert main(["reinject", "--fix", "CLAUDE.md"]) == 2
    assert copy.read_text() == before + edit
    assert (
        capsys.readouterr()
        .err.splitlines()[-1]
        .endswith("CLAUDE.md changed while ctxres reinject worked on it; it was not written: run it again")
    )


def test_migrate_nexus_does_not_replace_a_manifest_edited_while_it_worked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`ctxres migrate-nexus` normalises the project's resume-context.md: an edit made meanwhile is kept, and
    nothing of the project is written or moved."""
    root = tmp_path / "nexus"
    shutil.copytree(CORPUS / "nexus", root)
    for path in root.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    project = "02-projects/26-test-resume-project"
    manifest = root / project / "01-planning" / "resume-context.md"
    edit = "\nA note the session added meanwhile.\n"
    real_plan = migrate_nexus.plan_project

    def plan_then_edit(*args: Any, **kwargs: Any) -> migrate_nexus.Plan:
        plan = real_plan(*args, **kwargs)
        with open(manifest, "a", encoding="utf-8") as handle:
            handle.write(edit)
        return plan

    before = manifest.read_text()
    listing = sorted(p.name for p in manifest.parent.iterdir())
    monkeypatch.setattr(migrate_nexus, "plan_project", plan_then_edit)
    monkeypatch.chdir(root)
    assert main(["migrate-nexus", project]) == 1
    assert manifest.read_text() == before + edit
    assert sorted(p.name for p in manifest.parent.iterdir()) == listing  # no backup made, nothing moved
    assert capsys.readouterr().err == (
        f"{project}: not migrated: {project}/01-planning/resume-context.md changed while it was migrated; nothing "
        "was written: run again\n"
    )
