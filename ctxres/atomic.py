"""Writing files so that a crash never leaves a partial file behind.

The new content goes to a temporary file in the same folder, is flushed to disk, and replaces
the target with an atomic rename. A new file can also be *claimed* with ``O_EXCL`` so that two
concurrent writers never pick the same name.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


def write_atomic(path: Path | str, data: str | bytes, *, encoding: str = "utf-8") -> None:
    """Replace ``path`` with ``data`` atomically (the old content or the new, never a mix)."""
    target = Path(path)
    raw = data.encode(encoding) if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(raw)
            handle.flush()
            os.fsync(handle.fileno())
        with contextlib.suppress(OSError):
            os.chmod(tmp, target.stat().st_mode & 0o777 if target.exists() else 0o644)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_dir(target.parent)


def claim(path: Path | str) -> bool:
    """Create ``path`` empty if nobody has; True when this caller now owns the name."""
    try:
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
    except FileExistsError:
        return False
    os.close(fd)
    return True


def _fsync_dir(folder: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
