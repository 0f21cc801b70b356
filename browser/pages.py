"""Where the page under test comes from: one function, so that its source can change in one place.

For now a timeline built by hand from the model (``tests/timeline/sample.py``: sessions, compactions,
checkpoints merged and unmerged, stale stretches, ...), drawn by ``render_page``. It can become
``ctxres timeline --html FILE`` on a recorded session without touching the test.
"""

from __future__ import annotations

from pathlib import Path

from ctxres.linters.timeline.model import CheckpointWritten, Compaction
from ctxres.linters.timeline.page import render_page
from tests.timeline.sample import busy


class PageUnderTest:
    """The page's file and what a person should see on it."""

    def __init__(self, path: Path, compactions: int, checkpoints: int, events: int) -> None:
        self.path = path
        self.compactions = compactions
        self.checkpoints = checkpoints
        self.events = events


def timeline_page(folder: Path) -> PageUnderTest:
    """Write the page into ``folder`` and say how many compactions, checkpoints and events it must show."""
    timeline = busy()
    path = folder / "timeline.html"
    path.write_text(render_page(timeline), encoding="utf-8")
    return PageUnderTest(
        path,
        compactions=sum(isinstance(e, Compaction) for e in timeline.events),
        checkpoints=sum(isinstance(e, CheckpointWritten) for e in timeline.events),
        events=len(timeline.events),
    )
