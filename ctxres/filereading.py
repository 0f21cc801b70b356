"""Opening a file that must be a regular file, and whether a resolved path stays inside a folder
(standard library only: every hook uses it).

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
    fd = open_regular(path)
    try:
        size = os.fstat(fd).st_size
        if size > limit:
            raise FileTooLarge(size, limit)
        data = read_at_most(fd, limit + 1, size)
    finally:
        os.close(fd)
    if len(data) > limit:  # it grew while being read
        raise FileTooLarge(len(data), limit)
    return data


def read_head(path: str | os.PathLike[str], limit: int, head: int) -> bytes:
    """The first ``head`` bytes of a regular file of at most ``limit`` bytes (what its first lines say),
    with the errors of :func:`read_regular`."""
    fd = open_regular(path)
    try:
        size = os.fstat(fd).st_size
        if size > limit:
            raise FileTooLarge(size, limit)
        return read_at_most(fd, head, min(size, head))
    finally:
        os.close(fd)


_CHUNK = 1 << 16  # what is read at a time past the expected size (of a file that grew)


def read_at_most(fd: int, limit: int, expected: int) -> bytes:
    """The bytes of the open file ``fd`` from where it is to its end or to ``limit`` bytes, whichever comes
    first: ``read(limit)`` of a file object, without its buffer of ``limit`` bytes (10 MB for each small file
    under the default size limit). ``expected`` (the size the file had when opened) is read at once, and one
    byte more, which the end of the file answers with nothing."""
    parts: list[bytes] = []
    total = 0
    want = expected + 1
    while total < limit:
        chunk = os.read(fd, min(want, limit - total))
        if not chunk:
            break
        parts.append(chunk)
        total += len(chunk)
        want = expected - total + 1 if total <= expected else _CHUNK
    return parts[0] if len(parts) == 1 else b"".join(parts)


def within(real_path: str, real_root: str) -> bool:
    """Whether a resolved path is ``real_root`` or below it (pure: both already resolved)."""
    return real_path == real_root or real_path.startswith(real_root.rstrip(os.sep) + os.sep)
