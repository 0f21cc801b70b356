"""Many files' (shown path, place on disk, kind), held in a few strings.

A check holds such a triple for every file it found (:class:`~ctxres.linters.checking.discovery.Found`)
and for every file it loaded (:class:`~ctxres.linters.checking.engine.LoadedDocuments`). As objects they
cost a few hundred bytes a file, scattered among the check's other objects; here a run of up to
:data:`RUN` of them is one string: files listed in order share their folders, and a path and its place
on disk share their ends.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator

RUN = 256  # triples joined in one string (a few kB)


class PathRun:
    """Triples added one after the other, in one string: for each, the index of its kind in ``kinds``, how
    many leading characters its tail shares with the previous one's, and the rest of that tail, NUL between
    them (no path holds one). Its path is ``shown`` followed by its tail, its place on disk ``on_disk``
    followed by the same tail: the tail is what the two end with alike (the whole path, but for a folder
    shown with ``..``, or a path given in another form than its place on disk)."""

    __slots__ = ("count", "joined", "kinds", "on_disk", "shown")

    def __init__(self, shown: str, on_disk: str, kinds: tuple[str, ...], joined: str, count: int) -> None:
        self.shown = shown
        self.on_disk = on_disk
        self.kinds = kinds
        self.joined = joined
        self.count = count

    def __len__(self) -> int:
        return self.count

    def __iter__(self) -> Iterator[tuple[str, str, str]]:
        """(path, place on disk, kind) of each, in order."""
        parts = self.joined.split("\0")
        shown, on_disk, kinds = self.shown, self.on_disk, self.kinds
        tail = ""
        for at in range(0, len(parts), 3):
            tail = tail[: int(parts[at + 1])] + parts[at + 2]
            yield shown + tail, on_disk + tail, kinds[int(parts[at])]


class RunWriter:
    """Packs triples into :class:`PathRun` objects, each handed to ``keep`` when it is full or closed (a
    caller that keeps other entries between them closes the run first, to keep its order)."""

    __slots__ = ("_kinds", "_last", "_on_disk", "_open", "_shown", "keep", "size")

    def __init__(self, keep: Callable[[PathRun], object], size: int = RUN) -> None:
        self.keep = keep
        self.size = size  # triples a run holds at most
        self._open: list[str] = []  # the triples not joined yet: kind, shared, rest, kind...
        self._kinds: dict[str, int] = {}
        self._shown = ""
        self._on_disk = ""
        self._last = ""  # the tail of the last of them

    def add(self, path: str, on_disk: str, kind: str) -> None:
        common = len(path) if on_disk.endswith(path) else common_tail(path, on_disk)
        tail, shown, on_disk = path[len(path) - common :], path[: len(path) - common], on_disk[: len(on_disk) - common]
        if on_disk != self._on_disk or shown != self._shown or len(self._open) >= 3 * self.size:
            self.close()
            self._shown, self._on_disk = shown, on_disk
        shared = len(os.path.commonprefix((self._last, tail)))  # noqa: RUF071 - characters, not folders
        self._open += (str(self._kinds.setdefault(kind, len(self._kinds))), str(shared), tail[shared:])
        self._last = tail

    def close(self) -> None:
        """Ends the open run (the next triple starts another)."""
        if self._open:
            joined = "\0".join(self._open)
            self.keep(PathRun(self._shown, self._on_disk, tuple(self._kinds), joined, len(self._open) // 3))
            self._open = []
            self._kinds = {}
        self._last = ""


def common_tail(path: str, on_disk: str) -> int:
    """How many characters ``path`` and ``on_disk`` end with alike."""
    return len(os.path.commonprefix((path[::-1], on_disk[::-1])))  # noqa: RUF071 - characters, not folders


def pack(triples: Iterable[tuple[str, str, str]], size: int = RUN) -> list[PathRun]:
    """(path, place on disk, kind) triples, in order, as runs of at most ``size``."""
    runs: list[PathRun] = []
    writer = RunWriter(runs.append, size)
    for path, on_disk, kind in triples:
        writer.add(path, on_disk, kind)
    writer.close()
    return runs
