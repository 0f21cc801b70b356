"""Progress of a long run on stderr ("audit-history: 3,200/10,000 commits"), in a terminal only.

Nothing is written when stderr is not a terminal (a pipe, a file, CI logs), nor before the run has
taken :data:`DEFAULT_AFTER` seconds; then the line is rewritten in place (``\\r``) at most ten times
a second and erased at the end, so the output that follows is the same as without it. The
environment variable ``CTXRES_PROGRESS_AFTER`` sets the delay in seconds (``0``: from the start).
"""

from __future__ import annotations

import os
import sys
import time

# `ctxres check` loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import TracebackType
    from typing import TextIO

DEFAULT_AFTER = 2.0
INTERVAL = 0.1  # seconds between two refreshes


def _delay() -> float:
    try:
        return max(0.0, float(os.environ.get("CTXRES_PROGRESS_AFTER", DEFAULT_AFTER)))
    except ValueError:
        return DEFAULT_AFTER


class Progress:
    """``with Progress("audit-history", "commits") as progress: ... progress(done, total)``."""

    def __init__(self, label: str, unit: str, stream: TextIO | None = None) -> None:
        self.label = label
        self.unit = unit
        self.stream = stream or sys.stderr
        try:
            self.enabled = self.stream.isatty()
        except (AttributeError, ValueError):  # a closed or unusual stream
            self.enabled = False
        self.after = _delay()
        self.started = time.monotonic()
        self.last = 0.0
        self.width = 0  # of the line shown, to erase it

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self.started < self.after or (self.width and now - self.last < INTERVAL and done < total):
            return
        self.last = now
        line = f"{self.label}: {done:,}/{total:,} {self.unit}"
        self.stream.write("\r" + line.ljust(self.width))
        self.stream.flush()
        self.width = len(line)

    def close(self) -> None:
        """Erase the line, if one was shown."""
        if self.width:
            self.stream.write("\r" + " " * self.width + "\r")
            self.stream.flush()
            self.width = 0

    def __enter__(self) -> Progress:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.close()
