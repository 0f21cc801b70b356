"""Opening a file that must be a regular file (standard library only: the hooks use it).

A state file, a transcript or a workflow file named by a payload may be a named pipe (an ``open``
for reading would block forever), a device (``/dev/zero`` never ends) or a folder. The descriptor
is opened with ``O_NONBLOCK`` and checked with ``fstat`` (what was opened, not what the name showed
a moment before), so none of them is ever read.
"""

from __future__ import annotations

import os
import stat


class NotRegularFile(OSError):
    """The path names a named pipe, a device or a folder."""


class FileTooLarge(OSError):
    """The file is larger than the limit the caller reads."""

    def __init__(self, size: int, limit: int) -> None:
        super().__init__(0, f"{size:,} bytes, more than the limit of {limit:,}")
        self.size = size
        self.limit = limit


def open_regular(path: str | os.PathLike[str], *, nofollow: bool = False) -> int:
    """A read-only descriptor of ``path`` if it is a regular file; :class:`NotRegularFile` (an OSError)
    when it is not, OSError when it cannot be opened (ValueError: a NUL in the name). ``nofollow``
    also refuses a symbolic link (``O_NOFOLLOW`` where it exists)."""
    flags = os.O_RDONLY | getattr(os, "O_BINARY", 0) | getattr(os, "O_NONBLOCK", 0)
    if nofollow:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotRegularFile(0, "not a regular file")
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_regular(path: str | os.PathLike[str], limit: int) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes: :class:`NotRegularFile`,
    :class:`FileTooLarge` or OSError otherwise. A hostile file is never read whole."""
    with os.fdopen(open_regular(path), "rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        if size > limit:
            raise FileTooLarge(size, limit)
        data = handle.read(limit + 1)
    if len(data) > limit:  # it grew while being read
        raise FileTooLarge(len(data), limit)
    return data
