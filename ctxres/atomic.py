"""Writing files so that a crash never leaves a partial file behind.

The new content goes to a temporary file in the same folder (created with ``O_EXCL``, named from
the process id and random bytes), is flushed to disk, and replaces the target with an atomic
rename. A new file can also be *claimed* with ``O_EXCL`` so that two concurrent writers never
pick the same name. Only ``os`` is imported: hooks call this on every prompt.

A file a person or another tool also edits is never replaced over a change this process did not see:
its writer takes a :class:`Stamp` before it reads (:func:`stamp_before_read`, then :meth:`Stamp.seen`
with the bytes read) and passes it as ``expected``; just before the rename the file's identity, size,
modification time and content are compared with the stamp, and :class:`ChangedSinceRead` is raised
(nothing written) when they differ. The caller re-reads and recomputes, or refuses.

:func:`write_problem` turns the ``OSError`` of a failed write into what happened and what to do, for
every command and hook (a full disk is not "make the folder writable").
"""

from __future__ import annotations

import os

# A hook loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Sequence
    from pathlib import Path


class Stamp:
    """What a writer saw of a file when it read it: identity, size and modification time (taken before the
    read) and the bytes read; ``key`` None when the file did not exist."""

    __slots__ = ("content", "key", "path")

    def __init__(self, path: str, key: tuple[int, int, int, int] | None, content: bytes | None = None) -> None:
        self.path = path
        self.key = key
        self.content = content

    def seen(self, content: bytes | None) -> Stamp:
        """This stamp with the bytes that were read (None: the file was absent)."""
        self.content = content
        return self


class ChangedSinceRead(Exception):
    """The file changed after it was read (by a person or another tool); nothing was written."""

    def __init__(self, path: str) -> None:
        super().__init__(f"{path} changed since it was read; nothing was written")
        self.path = path


def _key(info: os.stat_result) -> tuple[int, int, int, int]:
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)


def stamp_before_read(path: Path | str) -> Stamp:
    """A stamp of ``path`` as it is now; call it before reading, then :meth:`Stamp.seen` with the bytes."""
    target = os.fspath(path)
    try:
        return Stamp(target, _key(os.stat(target)))
    except FileNotFoundError:
        return Stamp(target, None)


def read_stamped(path: Path | str) -> tuple[bytes | None, Stamp]:
    """The bytes of ``path`` (None when it does not exist) and the stamp to write it back with."""
    stamp = stamp_before_read(path)
    if stamp.key is None:
        return None, stamp
    try:
        with open(stamp.path, "rb") as handle:
            content = handle.read()
    except FileNotFoundError:
        content = None
    return content, stamp.seen(content)


def unchanged(stamp: Stamp) -> bool:
    """Whether the file is still what ``stamp`` saw (same bytes, then same inode, size and mtime; or still
    absent). The bytes catch an edit within one clock tick; the stat, taken last, one made while they were
    read, and leaves the shortest window before the caller's rename."""
    if stamp.key is not None:
        try:
            with open(stamp.path, "rb") as handle:
                if handle.read() != stamp.content:
                    return False
        except OSError:
            return False
    try:
        now = _key(os.stat(stamp.path))
    except FileNotFoundError:
        return stamp.key is None
    return now == stamp.key


def _check(stamps: Sequence[Stamp]) -> None:
    for stamp in stamps:
        if not unchanged(stamp):
            raise ChangedSinceRead(stamp.path)


def write_atomic(
    path: Path | str, data: str | bytes, *, encoding: str = "utf-8", expected: Stamp | None = None
) -> None:
    """Replace ``path`` with ``data`` atomically (the old content or the new, never a mix).

    With ``expected`` (taken when the file was read), :class:`ChangedSinceRead` is raised and nothing is
    written when the file changed since: the comparison is made immediately before the rename."""
    write_all_atomic([(path, data)], encoding=encoding, expected=() if expected is None else (expected,))


def write_all_atomic(
    files: list[tuple[Path | str, str | bytes]], *, encoding: str = "utf-8", expected: Sequence[Stamp] = ()
) -> None:
    """Replace several files, each atomically, so that a write error changes none of them.

    Every content is written to its temporary file first; only when all are on disk are the targets
    replaced, in the order given. A full disk or a read-only folder therefore fails before any file
    changed; a crash during the renames leaves a prefix of the list replaced (plus ``.*.tmp`` files).
    Each stamp of ``expected`` is compared with its file just before the first rename: a file changed
    since it was read raises :class:`ChangedSinceRead`, and none is replaced. An ``OSError`` names the
    target (never the temporary file).
    """
    staged: list[tuple[str, str]] = []
    target = ""
    try:
        for path, data in files:
            target = os.fspath(path)
            raw = data.encode(encoding) if isinstance(data, str) else data
            try:
                mode = os.stat(target).st_mode & 0o777
            except OSError:
                mode = 0o644
            staged.append((_write_temp(target, raw, mode), target))
        _check(expected)
        for tmp, target in staged:
            os.replace(tmp, target)
            _fsync_dir(os.path.dirname(target) or ".")
    except OSError as exc:
        if exc.filename is None or str(exc.filename).endswith(".tmp"):
            exc.filename = target  # the file the user asked for, not our temporary one
        raise
    finally:
        for tmp, _ in staged:
            _remove(tmp)  # only those not renamed are still there


def write_problem(exc: OSError, folder: str = "its folder") -> tuple[str, str]:
    """(what happened, what to do) for a failed write: ``("the disk is full (No space left on device)",
    "free space")``. ``folder`` names the folder in the advice to make it writable."""
    import errno  # built in, and only needed on failure

    problems = {
        errno.ENOSPC: ("the disk is full", "free space"),
        getattr(errno, "EDQUOT", -1): ("the disk quota is used up", "free space or raise the quota"),
        errno.EROFS: ("the file system is read-only", "make it writable"),
        errno.EACCES: ("permission is denied", f"make {folder} writable"),
        errno.EPERM: ("the operation is not permitted", f"make {folder} writable"),
        errno.EFBIG: ("the file is larger than allowed", "raise the file size limit"),
    }
    reason = exc.strerror or str(exc) or type(exc).__name__
    what, todo = problems.get(exc.errno or 0, (None, "fix that"))
    return (f"{what} ({reason})" if what else reason), todo


def cannot_write(shown: str, exc: OSError, folder: str = "its folder") -> str:
    """The one-line message of a command whose write failed and that changed nothing:
    ``cannot write ORCHESTRATION.yaml: the disk is full (No space left on device); nothing was changed;
    free space and run again``."""
    what, todo = write_problem(exc, folder)
    return f"cannot write {shown}: {what}; nothing was changed; {todo} and run again"


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
