"""Where the page under test comes from: one function, so that its source can change in one place.

A session recorded from the real client (``fixtures/replay/a-feat015-single-session``: two compactions, one
automatic and one manual, their checkpoints merged by ``ctxres ack``, four phases) is replayed through the real
hooks into a folder, its transcript filed where the client keeps it, and the page is what
``ctxres timeline --html FILE`` writes there, run as its user runs it: in the project, with no argument. What
the page must show is read from the same command's ``--output-format json``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from ctxres.linters.replay.player import load_fixture, run_fixture_in
from ctxres.linters.timeline.sessions import folder_name

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "fixtures" / "replay" / "a-feat015-single-session"


class PageUnderTest:
    """The page's file and what a person should see on it."""

    def __init__(self, path: Path, compactions: int, checkpoints: int, events: int) -> None:
        self.path = path
        self.compactions = compactions
        self.checkpoints = checkpoints
        self.events = events


def _timeline(project: Path, config: Path, *args: str) -> str:
    """``ctxres timeline ARGS`` run in ``project`` with the client's folders under ``config``: its output."""
    done = subprocess.run(
        [sys.executable, "-m", "ctxres.linters.cli", "timeline", *args],
        cwd=project,
        env={**os.environ, "CLAUDE_CONFIG_DIR": str(config), "NO_COLOR": "1"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    return done.stdout


def timeline_page(folder: Path) -> PageUnderTest:
    """Write the page into ``folder`` and say how many compactions, checkpoints and events it must show."""
    run_fixture_in(load_fixture(FIXTURE), folder / "replay")
    project = folder / "replay" / "project"
    (transcript,) = (folder / "replay" / "transcripts").glob("*.jsonl")
    config = folder / "claude-config"
    sessions = config / "projects" / folder_name(str(project.resolve()))
    sessions.mkdir(parents=True)
    shutil.copy(transcript, sessions / transcript.name)
    path = folder / "timeline.html"
    _timeline(project, config, "--html", str(path))
    events = json.loads(_timeline(project, config, "--output-format", "json"))["events"]
    return PageUnderTest(
        path,
        compactions=sum(e["kind"] == "compaction" for e in events),
        checkpoints=sum(e["kind"] == "checkpoint" for e in events),
        events=len(events),
    )
