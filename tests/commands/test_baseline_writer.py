"""`ctxres baseline` rewrites a file the team commits and merges: a change made to it while the command checked
the project (a teammate's merge pulled in, an editor) is never replaced."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ctxres.linters.checking import engine
from ctxres.linters.cli import main

from ..conftest import FIXTURES

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
