"""The ``ctxres`` console script ends a check with ``os._exit`` (no interpreter teardown): what it printed
still arrives whole, with its exit code, and the findings it spilled to disk are removed."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from importlib import metadata
from pathlib import Path

import pytest

from ctxres.linters.checking import engine
from ctxres.linters.checking.finding_runs import FindingRuns, SpilledFindings
from ctxres.linters.checking.report import Report
from ctxres.linters.cli import main

ROOT = Path(__file__).resolve().parent.parent.parent

# The console script, as pip's wrapper runs it; an atexit handler tells whether the teardown ran.
# SPILL: every 10 findings go to a run on disk.
SCRIPT = """
import atexit, sys
spill = sys.argv.pop(1) == "spill"
if spill:
    from ctxres.linters.checking import finding_runs
    finding_runs.FindingRuns.__init__.__defaults__ = (10,)
    spilling = finding_runs.FindingRuns._spill
    def _spill(self):
        if self.folder is None:
            sys.stderr.write("[spilled]")
        spilling(self)
    finding_runs.FindingRuns._spill = _spill
atexit.register(lambda: sys.stderr.write("[teardown]"))
from ctxres.linters.cli import cli
sys.exit(cli())
"""


def _env(tmp: Path) -> dict[str, str]:
    env = {name: value for name, value in os.environ.items() if name != "PYTHONUNBUFFERED"}  # buffered, as usual
    env.update(TMPDIR=str(tmp), CTXRES_NOW="2026-11-25T00:00:00Z")
    return env


def _run(tmp: Path, *args: str, spill: bool = False) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-c", SCRIPT, "spill" if spill else "keep", *args]
    return subprocess.run(command, capture_output=True, text=True, cwd=ROOT, env=_env(tmp), timeout=300)


def _usual(tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The same command through ``main`` and the interpreter's usual exit."""
    command = [sys.executable, "-m", "ctxres.linters.cli", *args]
    return subprocess.run(command, capture_output=True, text=True, cwd=ROOT, env=_env(tmp), timeout=300)


def test_the_console_script_is_cli() -> None:
    scripts = {ep.name: ep.value for ep in metadata.entry_points(group="console_scripts")}
    assert scripts["ctxres"] == "ctxres.linters.cli:cli"


@pytest.mark.parametrize("fmt", ["json", "text"])
def test_a_check_prints_all_it_wrote_in_small_writes_and_its_code_without_teardown(tmp_path: Path, fmt: str) -> None:
    args = ("check", "fixtures", "--jobs", "1", "--output-format", fmt)
    quick, usual = _run(tmp_path, *args), _usual(tmp_path, *args)
    assert len(usual.stdout) > 64 * 1024  # many buffers' worth, written a finding at a time
    assert (quick.stdout, quick.stderr, quick.returncode) == (usual.stdout, usual.stderr, usual.returncode)
    assert quick.returncode == 1 and "[teardown]" not in quick.stderr


def test_a_check_that_spilled_findings_leaves_no_folder_behind(tmp_path: Path) -> None:
    args = ("check", "fixtures", "--jobs", "2", "--output-format", "json")
    quick, usual = _run(tmp_path, *args, spill=True), _usual(tmp_path, *args)
    assert (quick.stdout, quick.returncode) == (usual.stdout, usual.returncode)
    assert quick.stderr == "[spilled]"  # and no teardown
    assert not list(tmp_path.glob("ctxres-findings-*"))


def test_an_error_or_another_command_ends_as_usual(tmp_path: Path) -> None:
    error = _run(tmp_path, "check", "no-such-folder")
    assert error.returncode == 2 and error.stderr.endswith("[teardown]")
    other = _run(tmp_path, "rules")
    assert other.returncode == 0 and other.stderr.endswith("[teardown]")


def test_a_check_removes_the_findings_it_spilled_before_it_returns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Not when its report is collected: after os._exit, nothing is."""
    monkeypatch.chdir(ROOT)
    monkeypatch.setattr(FindingRuns.__init__, "__defaults__", (10,))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    reports: list[Report] = []
    checking = engine.run

    def run(*args: object, **kwargs: object) -> Report:
        reports.append(checking(*args, **kwargs))  # type: ignore[arg-type]
        return reports[-1]

    monkeypatch.setattr(engine, "run", run)
    assert main(["check", "fixtures", "--jobs", "1", "--output-format", "json"]) == 1
    assert isinstance(reports[0].findings, SpilledFindings)  # still held here
    assert not list(tmp_path.glob("ctxres-findings-*"))
    capsys.readouterr()
