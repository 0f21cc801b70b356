"""Writing files so that a crash never leaves a partial file behind.

The new content goes to a temporary file in the same folder (created with ``O_EXCL``, named from
the process id and random bytes), is flushed to disk, and replaces the target with an atomic
rename. A new file can also be *claimed* with ``O_EXCL`` so that two concurrent writers never
pick the same name. Only ``os`` is imported: hooks call this on every prompt.
"""

from __future__ import annotations

import os

# A hook loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
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
    tmp = _write_temp(target, raw, mode)
    try:
        os.replace(tmp, target)
    except BaseException:
        _remove(tmp)
        raise
    _fsync_dir(folder)


def write_all_atomic(files: list[tuple[Path | str, str | bytes]], *, encoding: str = "utf-8") -> None:
    """Replace several files, each atomically, so that a write error changes none of them.

    Every content is written to its temporary file first; only when all are on disk are the targets
    replaced, in the order given. A full disk or a read-only folder therefore fails before any file
    changed; a crash during the renames leaves a prefix of the list replaced (plus ``.*.tmp`` files).
    """
    staged: list[tuple[str, str]] = []
    try:
        for path, data in files:
            target = os.fspath(path)
            raw = data.encode(encoding) if isinstance(data, str) else data
            try:
                mode = os.stat(target).st_mode & 0o777
            except OSError:
                mode = 0o644
            staged.append((_write_temp(target, raw, mode), target))
        for tmp, target in staged:
            os.replace(tmp, target)
            _fsync_dir(os.path.dirname(target) or ".")
    finally:
        for tmp, _ in staged:
            _remove(tmp)  # only those not renamed are still there


def create_atomic(path: Path | str, data: str | bytes, *, encoding: str = "utf-8") -> bool:
    """Create ``path`` with ``data`` unless a file of that name exists; False when it does.

    The content goes to a temporary file that is then hard-linked to the name (``link`` fails when the
    name is taken), so the name never exists with partial content: a crash at any point leaves at most a
    ``.<name>.<pid>.<random>.tmp`` file. Where hard links are not supported the name is claimed with
    ``O_EXCL`` and filled with :func:`write_atomic` (a crash in between leaves it empty).
    """
    target = os.fspath(path)
    raw = data.encode(encoding) if isinstance(data, str) else data
    tmp = _write_temp(target, raw, 0o644)
    try:
        os.link(tmp, target)
    except FileExistsError:
        return False
    except OSError as exc:
        import errno  # here: only a file system without hard links gets this far

        if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK, errno.ENOSYS):
            raise
        if not claim(target):
            return False
        write_atomic(target, raw)
    finally:
        _remove(tmp)
    _fsync_dir(os.path.dirname(target) or ".")
    return True


def _write_temp(target: str, raw: bytes, mode: int) -> str:
    """A new temporary file beside ``target`` holding ``raw``, flushed to disk; its path."""
    folder = os.path.dirname(target) or "."
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
    except BaseException:
        _remove(tmp)
        raise
    return tmp


def _remove(path: str) -> None:
    """Delete a temporary file if it is still there (``contextlib.suppress`` would cost every hook its
    import, about 0.4 ms)."""
    try:  # noqa: SIM105 - contextlib.suppress costs its import
        os.unlink(path)
    except OSError:
        pass


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
