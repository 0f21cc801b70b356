"""Every output sample of the README is what its command prints today.

An output sample is a fenced block of ``text``, ``console`` or no language. One that starts with a
``$ ctxres ...`` line is run: each ``$`` line is a command, run in-process from the repository's root
(as a reader runs it after the README's first command), and the lines up to the next ``$`` line are
what it prints, compared exactly. A sample that cannot run (typed in the Claude Code client, a message
quoted from a project that is not in the repository) says so on the line above its fence, with
``<!-- not run: why -->``; :data:`NOT_RUN` lists them, so a new one is a visible decision.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

import pytest

from ctxres.linters.cli import main

from ..conftest import ROOT

README = ROOT / "README.md"
SAMPLE_LANGUAGES = ("text", "console", "")
FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.M | re.S)
NOT_RUN_MARK = re.compile(r"<!-- not run: (.+?) -->\n$")

# The samples that do not run: the start of their first line, and why (the README says it above each).
NOT_RUN = (
    ("/plugin marketplace add /path/to/a/clone", "typed in the Claude Code client"),
    ("the live workflow projects/PROJ-003/ORCH", "a message quoted from a project of two workflows"),
    ("using projects/PROJ-003/ORCHESTRATION.ya", "messages quoted from a project of two workflows"),
    ("ctx 95% COMPACTION │ feat015-licmig-2026", "the statusline as the client shows it"),
    ("[Sonnet 4.5] ctx 61% | $0.42  feat015-li", "the statusline as the client shows it"),
    ("ctxres check [PATH ...]            check", "a summary of the commands, not an output"),
)


@dataclass(frozen=True)
class Sample:
    line: int
    language: str
    text: str
    not_run: str | None

    def runs(self) -> list[tuple[str, str]]:
        """Each ``$`` command of the sample and the output shown after it."""
        runs: list[tuple[str, str]] = []
        for chunk in re.split(r"^\$ ", self.text, flags=re.M)[1:]:
            command, _, output = chunk.partition("\n")
            runs.append((command, output))
        return runs


def samples(text: str) -> list[Sample]:
    """The output samples of a Markdown text, in order."""
    found = []
    for fence in FENCE.finditer(text):
        if fence[1] not in SAMPLE_LANGUAGES:
            continue
        mark = NOT_RUN_MARK.search(text, 0, fence.start())
        above = mark[1] if mark and mark.end() == fence.start() else None
        found.append(Sample(text.count("\n", 0, fence.start()) + 1, fence[1], fence[2], above))
    return found


def run_samples() -> list[Sample]:
    return [sample for sample in samples(README.read_text("utf-8")) if sample.runs()]


def test_every_sample_runs_or_says_why_not() -> None:
    silent = [s.line for s in samples(README.read_text("utf-8")) if not s.runs() and s.not_run is None]
    assert silent == [], "README.md: output samples with no `$ command` line and no `<!-- not run: why -->`"


def test_the_samples_not_run_are_these() -> None:
    skipped = [(s.text[:40], s.not_run) for s in samples(README.read_text("utf-8")) if s.not_run is not None]
    assert skipped == list(NOT_RUN)


def test_the_readme_has_samples_that_run() -> None:
    assert [command.split(" ", 2)[:2] for sample in run_samples() for command, _ in sample.runs()] == [
        ["ctxres", "check"],
        ["ctxres", "timeline"],
    ]


def printed_by(command: str, capsys: pytest.CaptureFixture[str]) -> str:
    """What ``command`` (a ``ctxres`` command line) prints on stdout then stderr, run in-process."""
    argv = shlex.split(command)
    assert argv[0] == "ctxres", command
    capsys.readouterr()
    main(argv[1:])
    printed = capsys.readouterr()
    return printed.out + printed.err


@pytest.mark.parametrize("sample", run_samples(), ids=lambda sample: f"README.md:{sample.line}")
def test_the_sample_is_what_its_command_prints(
    sample: Sample, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(ROOT)
    for command, shown in sample.runs():
        assert printed_by(command, capsys) == shown, command


def test_a_sample_whose_output_changed_fails(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The comparison is not vacuous: a sample with one word changed is not what its command prints."""
    (command, shown), *_ = run_samples()[0].runs()
    changed = shown.replace("expected", "wanted", 1)
    monkeypatch.chdir(ROOT)
    assert changed != shown
    assert printed_by(command, capsys) != changed
