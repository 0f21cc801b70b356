"""Writing files so that a crash never leaves a partial file behind.

The new content goes to a temporary file in the same folder (created with ``O_EXCL``, named from
the process id and random bytes), is flushed to disk, and replaces the target with an atomic
rename. A new file can also be *claimed* with ``O_EXCL`` so that two concurrent writers never
pick the same name. Only ``os`` is imported: hooks call this on every prompt.
"""

from __future__ import annotations

import contextlib
import os

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover - typing is not imported at run time (start-up cost)
    from pathlib import Path


def write_atomic(path: Path | str, data: str | bytes, *, encoding: str = "utf-8") -> None:
    """Replace ``path`` with ``data`` atomically (the old content or the new, never a mix)."""
    target = os.fspath(path)
    folder = os.path.dirname(target) or "."
    raw = data.encode(encoding) if isinstance(data, str) else data
    try:
        mode = os.stat(target).st_mode & 0o777
    except OSError:
        mode = 0o644
    tmp = os.path.join(folder, f".{os.path.basename(target)}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        try:
            view = memoryview(raw)
            while view:
                written = os.write(fd, view)
                view = view[written:]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_dir(folder)


def claim(path: Path | str) -> bool:
    """Create ``path`` empty if nobody has; True when this caller now owns the name."""
    try:
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
    except FileExistsError:
        return False
    os.close(fd)
    return True


def _fsync_dir(folder: str) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
