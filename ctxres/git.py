"""Thin wrappers around the ``git`` command (stdlib only): file contents at a revision or in the
index, the staged changes, and the commits of a range or of one file's history.

Every failure is a :class:`GitError` with a one-line message meant for the user (not a git
repository, unknown revision, git not installed; :class:`ShallowClone` when the history asked for
was not fetched, the default checkout of most CI services). Paths passed to and returned by these
functions are relative to the repository root, with ``/`` separators, as git prints them.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from ctxres.records import FrozenRecord, init_field

# `ctxres check` loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Iterable
    from typing import Any, BinaryIO

# Field and record separators of the ``git log`` format; they never occur in hashes or dates.
_RECORD, _END = "\x1e", "\x1d"
_FIELD = "\x1f"
# No %h: with it, git would abbreviate the blob hashes of --raw too (see Commit.short).
_LOG_FORMAT = f"--format={_RECORD}%H{_FIELD}%aI{_FIELD}%P{_END}"


class GitError(Exception):
    """A git command failed; ``str(error)`` is a one-line explanation."""


class ShallowClone(GitError):
    """The history a command needs is cut off: the repository is a shallow clone (``git clone --depth N``)."""


# How to fetch what a shallow clone lacks, where it is usually made.
UNSHALLOW_FIX = (
    "fetch the full history: `git fetch --unshallow` (GitHub Actions: `actions/checkout` with `fetch-depth: 0`; "
    "GitLab CI: the variable `GIT_DEPTH: 0`)"
)


class Change(FrozenRecord):
    """One file changed by a commit or staged in the index (``status`` is git's letter: A, M, R, ...)."""

    __slots__ = ("new_blob", "old_blob", "old_path", "path", "status")

    status: str
    path: str
    old_path: str
    # The blob of the file before and after the change (full hashes), from ``git log --raw --no-abbrev``.
    old_blob: str
    new_blob: str

    def __init__(self, status: str, path: str, old_path: str, old_blob: str = "", new_blob: str = "") -> None:
        init_field(self, "status", status)
        init_field(self, "path", path)
        init_field(self, "old_path", old_path)
        init_field(self, "old_blob", old_blob)
        init_field(self, "new_blob", new_blob)

    @property
    def added(self) -> bool:
        return self.status in ("A", "C")

    @property
    def deleted(self) -> bool:
        return self.status == "D"


class Abbreviations:
    """The short hashes of the commits of a repository, as git abbreviates them (``%h``: unique in the
    repository, at least ``core.abbrev`` long), asked of git for the few commits a report shows: a
    whole history's are not needed, and git's abbreviation of every commit and blob of ``git log``
    cost more than reading them by their full hashes."""

    def __init__(self, cwd: Path) -> None:
        self.cwd = cwd
        self.known: dict[str, str] = {}

    def fetch(self, shas: Iterable[str]) -> None:
        """Ask git at once for the short hashes of ``shas`` not known yet."""
        missing = [sha for sha in dict.fromkeys(shas) if sha not in self.known]
        if not missing:
            return
        # The hashes on standard input: a report of thousands of commits is no command line too long.
        stdin = "".join(f"{sha}\n" for sha in missing).encode("ascii")
        out = run(["log", "--no-walk=unsorted", "--stdin", f"--format=%H{_FIELD}%h"], self.cwd, stdin)
        for line in out.decode("ascii").splitlines():
            sha, _, short = line.partition(_FIELD)
            self.known[sha] = short

    def short(self, sha: str) -> str:
        if sha not in self.known:
            self.fetch([sha])
        return self.known.get(sha) or sha


class Commit(FrozenRecord, uncompared=("abbreviations",), unshown=("abbreviations",)):
    """A commit with the files it changed compared with its first parent."""

    __slots__ = ("abbreviations", "changes", "date", "parents", "sha")

    sha: str
    date: str
    parents: tuple[str, ...]
    changes: tuple[Change, ...]
    abbreviations: Abbreviations | None

    def __init__(
        self,
        sha: str,
        date: str,
        parents: tuple[str, ...],
        changes: tuple[Change, ...] = (),
        abbreviations: Abbreviations | None = None,
    ) -> None:
        init_field(self, "sha", sha)
        init_field(self, "date", date)
        init_field(self, "parents", parents)
        init_field(self, "changes", changes)
        init_field(self, "abbreviations", abbreviations)

    @property
    def short(self) -> str:
        """The commit's short hash, as ``git log --format=%h`` prints it (see :func:`abbreviate`)."""
        return self.abbreviations.short(self.sha) if self.abbreviations is not None else self.sha


def abbreviate(commits: Iterable[Commit]) -> None:
    """Have the short hashes of ``commits`` (from :func:`log`) asked of git at once, before they are shown."""
    wanted: dict[Abbreviations, list[str]] = {}
    for commit in commits:
        if commit.abbreviations is not None:
            wanted.setdefault(commit.abbreviations, []).append(commit.sha)
    for abbreviations, shas in wanted.items():
        abbreviations.fetch(shas)


def _first_line(stderr: bytes) -> str:
    for line in stderr.decode("utf-8", "replace").splitlines():
        line = line.strip()
        if line:
            return line.removeprefix("fatal: ").removeprefix("error: ")
    return ""


def run(args: list[str], cwd: Path, stdin: bytes | None = None) -> bytes:
    """The standard output of ``git ARGS`` run in ``cwd``; :class:`GitError` when it fails."""
    try:
        proc = subprocess.run(["git", *args], cwd=cwd, input=stdin, capture_output=True, check=False)
    except OSError as exc:
        raise _not_started(exc) from None
    if proc.returncode != 0:
        raise _failed(args, cwd, proc.returncode, proc.stderr)
    return proc.stdout


def _not_started(exc: OSError) -> GitError:
    """The error of a git process that could not be started."""
    if isinstance(exc, FileNotFoundError):
        return GitError("git is not installed (or not on PATH)")
    return GitError(f"cannot run git: {exc.strerror or exc}")


def _failed(args: list[str], cwd: Path, returncode: int, stderr: bytes) -> GitError:
    """The error of ``git ARGS`` that exited with ``returncode``: the first line git wrote on stderr."""
    message = _first_line(stderr) or f"`git {args[0]}` failed with exit status {returncode}"
    if "not a git repository" in message.lower():
        message = f"{cwd} is not inside a git repository (this command reads the git history)"
    return GitError(message)


def run_batch(args: list[str], cwd: Path, stdin: bytes) -> bytes:
    """:func:`run` for a command with a large output (``git cat-file --batch`` of a whole history):
    its standard input is read from an anonymous file and its output in one read, without the
    polling loop of :func:`subprocess.run`, which costs as much as git itself at hundreds of megabytes."""
    with _scratch_file() as given, _scratch_file() as errors:
        given.write(stdin)
        given.seek(0)
        try:
            proc = subprocess.Popen(["git", *args], cwd=cwd, stdin=given, stdout=subprocess.PIPE, stderr=errors)
        except OSError as exc:
            raise _not_started(exc) from None
        with proc:
            assert proc.stdout is not None
            out = proc.stdout.read()
            returncode = proc.wait()
        if returncode != 0:
            errors.seek(0)
            raise _failed(args, cwd, returncode, errors.read())
    return out


def _scratch_file() -> BinaryIO:
    """An anonymous file for a git process's input or errors: in memory on Linux (``memfd_create``:
    no ``tempfile`` to import, 13M instructions of a history command's start-up), else a temporary file."""
    create = getattr(os, "memfd_create", None)
    if create is not None:
        try:
            return open(create("ctxres-git"), "w+b")
        except OSError:
            pass
    import tempfile

    return tempfile.TemporaryFile()


def repo_root(cwd: Path) -> Path:
    """The top folder of the work tree that contains ``cwd``."""
    if not cwd.is_dir():
        raise GitError(f"{cwd} is not a folder")
    # Where a shallow clone lists its boundary is asked in the same process (see shallow_boundary).
    lines = run(["rev-parse", "--show-toplevel", "--git-path", "shallow"], cwd).decode("utf-8", "surrogateescape")
    top, _, where = lines.strip("\n").partition("\n")
    if not top.strip():
        raise GitError(f"{cwd} is not inside a git work tree (a bare repository has no files to check)")
    root = Path(top.strip())
    if where.strip():
        _shallow_files[root] = Path(os.path.normpath(cwd / where.strip()))
    return root


# The file that lists a shallow clone's boundary, by repository root (from repo_root).
_shallow_files: dict[Path, Path] = {}


def repo_path(path: Path, root: Path) -> str:
    """``path`` (relative to the current folder, or absolute) as a path relative to the repository root."""
    absolute = Path(os.path.abspath(path))
    # Resolve the folder only: the file itself may be missing (deleted) or a symlink.
    folder = Path(os.path.realpath(absolute.parent))
    try:
        relative = (folder / absolute.name).relative_to(Path(os.path.realpath(root)))
    except ValueError:
        raise GitError(f"{path} is outside the git repository at {root}") from None
    return relative.as_posix()


def has_commits(cwd: Path) -> bool:
    """Whether HEAD points at a commit (a new repository has none yet)."""
    try:
        run(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], cwd)
    except GitError:
        return False
    return True


def resolve_commit(rev: str, cwd: Path) -> str:
    """The full hash of ``rev``; :class:`GitError` when it names no commit (:class:`ShallowClone` when,
    in a shallow clone, it may name one that was not fetched)."""
    if not rev or rev.startswith("-"):
        raise GitError(f"invalid revision {rev!r}")
    try:
        return run(["rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}"], cwd).decode().strip()
    except GitError:
        if shallow_boundary(cwd):
            raise shallow_clone(cwd, f"{rev!r} is not among them") from None
        raise GitError(f"unknown revision {rev!r}: no such commit, branch or tag") from None


def shallow_boundary(cwd: Path) -> frozenset[str]:
    """The commits at which a shallow clone's history is cut (their parents were not fetched): the
    hashes listed in ``.git/shallow``. Empty in a complete clone."""
    shallow = _shallow_files.get(cwd)
    if shallow is None:
        shallow = cwd / run(["rev-parse", "--git-path", "shallow"], cwd).decode("utf-8", "surrogateescape").strip()
    try:
        text = shallow.read_text(encoding="ascii", errors="replace")
    except FileNotFoundError:
        return frozenset()
    except OSError as exc:
        raise GitError(f"cannot read {shallow}: {exc.strerror or exc}") from None
    return frozenset(line.strip() for line in text.splitlines() if line.strip())


def shallow_clone(cwd: Path, problem: str) -> ShallowClone:
    """The error for history that a shallow clone lacks; ``problem`` says what was asked for."""
    try:
        count = int(run(["rev-list", "--count", "HEAD"], cwd).decode().strip() or 0)
    except (GitError, ValueError):
        count = 0
    noun = "commit" if count == 1 else "commits"
    return ShallowClone(f"this is a shallow clone (only {count} {noun} of history) and {problem}; {UNSHALLOW_FIX}")


def require_full_history(commits: list[Commit], cwd: Path, walked: str) -> None:
    """:class:`ShallowClone` when one of ``commits`` (from :func:`log`) is where a shallow clone's
    history is cut: what it changed cannot be compared with its parent, which was not fetched."""
    if not commits:
        return
    boundary = shallow_boundary(cwd)
    cut = [commit for commit in commits if commit.sha in boundary]
    if cut:
        raise shallow_clone(cwd, f"{walked} reaches commit {cut[0].short}, the oldest fetched, whose parent is missing")


class Oversized(bytes):
    """Stands for a blob larger than the ``max_bytes`` of :func:`read_blobs` (empty; ``size`` says how big)."""

    size: int = 0


def _oversized(size: int) -> Oversized:
    blob = Oversized()
    blob.size = size
    return blob


def read_blobs(specs: list[str], cwd: Path, max_bytes: int | None = None) -> list[bytes | None]:
    """The contents of ``REV:path`` (or ``:path``, the index) for each spec; None when absent.

    One ``git cat-file --batch`` process reads them all. With ``max_bytes``, the sizes are asked first
    (``--batch-check``) and a larger blob is never read: it comes back as an empty :class:`Oversized`.
    :class:`BlobStream` reads them as they are asked for.
    """
    with BlobStream(specs, cwd, max_bytes) as stream:
        return [stream.get(spec) for spec in specs]


_RELEASED: Any = object()  # what BlobStream keeps of a blob it was told to forget


class BlobStream:
    """The blobs of ``specs`` (see :func:`read_blobs`) read as they are asked for, in their order: one
    ``git cat-file --batch`` writes them while the caller works on those it already has (git's reading
    and the caller's parsing overlap on two cores), and no output of a whole history is held at once.
    A context manager: leaving it early stops git; reading to the end checks how git exited."""

    def __init__(self, specs: list[str], cwd: Path, max_bytes: int | None = None) -> None:
        if any("\n" in spec for spec in specs):
            raise GitError("file names containing a newline are not supported")
        self._args = ["cat-file", "--batch"]
        self._cwd = cwd
        self._index = {spec: index for index, spec in enumerate(specs)}
        self._results: list[Any] = []
        # With max_bytes, the sizes are asked first and a larger blob is never read (an Oversized stands for it).
        found = _blob_sizes(specs, cwd) if max_bytes is not None and specs else [("", None)] * len(specs)
        self._oversized = {
            index: _oversized(size)
            for index, (_oid, size) in enumerate(found)
            if size is not None and max_bytes is not None and size > max_bytes
        }
        # A blob is read by its full hash when its size was asked, which git finds faster than a path.
        asked = [
            oid or spec
            for index, (spec, (oid, _size)) in enumerate(zip(specs, found, strict=True))
            if index not in self._oversized
        ]
        self._proc: subprocess.Popen[bytes] | None = None
        self._errors: BinaryIO | None = None
        if asked:
            with _scratch_file() as given:
                given.write("".join(f"{spec}\n" for spec in asked).encode("utf-8", "surrogateescape"))
                given.seek(0)
                self._errors = _scratch_file()
                try:
                    self._proc = subprocess.Popen(
                        ["git", *self._args],
                        cwd=cwd,
                        stdin=given,
                        stdout=subprocess.PIPE,
                        stderr=self._errors,
                        bufsize=1 << 20,
                    )
                except OSError as exc:
                    self._errors.close()
                    raise _not_started(exc) from None
                _widen(self._proc)

    def __enter__(self) -> BlobStream:
        return self

    def __exit__(self, error: type[BaseException] | None, *_: object) -> None:
        self.close(stop=error is not None)

    def get(self, spec: str) -> bytes | None:
        """The content of ``spec`` (one of the specs given), an :class:`Oversized`, or None when it is absent
        or not a file. The specs are read in order: asking for one reads those before it."""
        index = self._index[spec]
        while len(self._results) <= index:
            self._read_next()
        result: bytes | None = self._results[index]
        if result is _RELEASED:
            raise ValueError(f"{spec} was released")
        return result

    def release(self, spec: str) -> None:
        """Forget the content of ``spec``, which will not be asked for again (a whole history's versions
        are hundreds of megabytes); asking for it again is an error."""
        index = self._index[spec]
        if index < len(self._results):
            self._results[index] = _RELEASED

    def _read_next(self) -> None:
        index = len(self._results)
        if index in self._oversized:
            self._results.append(self._oversized[index])
            return
        assert self._proc is not None and self._proc.stdout is not None
        out = self._proc.stdout
        line = out.readline()
        if not line:
            self._ended_early()
        header = _object_header(line)
        if header is None:  # "<spec> missing" or "<spec> ambiguous"
            self._results.append(None)
            return
        kind, size = header
        content = out.read(size)
        if len(content) != size or out.read(1) != b"\n":
            self._ended_early()
        self._results.append(content if kind == b"blob" else None)  # a tree...: not a file

    def _ended_early(self) -> None:
        self.close(stop=False)
        raise GitError("`git cat-file --batch` ended before it wrote every version asked for")

    def close(self, *, stop: bool) -> None:
        """Wait for git and raise :class:`GitError` if it failed; with ``stop``, stop it first (an error
        is on its way), else let it write what was not asked for."""
        proc, errors = self._proc, self._errors
        if proc is None or errors is None:
            return
        self._proc = self._errors = None
        with errors, proc:
            if stop:
                proc.kill()
                proc.wait()
                return
            assert proc.stdout is not None
            proc.stdout.read()
            returncode = proc.wait()
            if returncode != 0:
                errors.seek(0)
                raise _failed(self._args, self._cwd, returncode, errors.read())


def _widen(proc: subprocess.Popen[bytes]) -> None:
    """Let git write ahead of its reader: a pipe of 1 MiB (64 KiB by default), where the system allows it
    (Linux); with the default, git and the reader take turns every few versions."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not a POSIX system
        return
    setsize = getattr(fcntl, "F_SETPIPE_SZ", None)
    if setsize is None or proc.stdout is None:
        return
    try:  # noqa: SIM105 - contextlib.suppress costs its import
        fcntl.fcntl(proc.stdout.fileno(), setsize, 1 << 20)
    except OSError:
        pass  # above /proc/sys/fs/pipe-max-size, or not a pipe


def _object_header(line: bytes) -> tuple[bytes, int] | None:
    """The kind and size of ``<oid> <kind> <size>`` (a line of ``git cat-file --batch``); None for
    ``<spec> missing`` or ``<spec> ambiguous`` (whose spec may hold spaces)."""
    fields = line.rstrip(b"\n").split(b" ")
    if len(fields) == 3 and fields[2].isdigit():
        return fields[1], int(fields[2])
    return None


def _blob_sizes(specs: list[str], cwd: Path) -> list[tuple[str, int | None]]:
    """The full hash and the size of each spec's blob; ("", None) when absent or not a blob."""
    out = run_batch(  # a line per version of a whole history
        ["cat-file", "--batch-check"],
        cwd,
        "".join(f"{spec}\n" for spec in specs).encode("utf-8", "surrogateescape"),
    )
    found: list[tuple[str, int | None]] = []
    for line in out.splitlines()[: len(specs)]:
        header = _object_header(line)
        if header is not None and header[0] == b"blob":
            found.append((line.split(b" ", 1)[0].decode("ascii"), header[1]))
        else:
            found.append(("", None))
    return found + [("", None)] * (len(specs) - len(found))


def _parse_changes(tokens: list[str]) -> list[Change]:
    changes: list[Change] = []
    index = 0
    while index < len(tokens):
        status = tokens[index]
        if not status:
            index += 1
            continue
        letter = status[0]
        if letter in ("R", "C") and index + 2 < len(tokens):
            changes.append(Change(letter, tokens[index + 2], tokens[index + 1]))
            index += 3
        elif index + 1 < len(tokens):
            changes.append(Change(letter, tokens[index + 1], tokens[index + 1]))
            index += 2
        else:
            break
    return changes


def _parse_raw_changes(tokens: list[str]) -> list[Change]:
    """``git log --raw --no-abbrev -z`` changes: ``:MODE MODE OLD NEW STATUS``, then one path (two for
    a rename or copy)."""
    changes: list[Change] = []
    index = 0
    while index < len(tokens):
        meta = tokens[index].split()
        if len(meta) != 5 or not meta[0].startswith(":"):
            index += 1
            continue
        old_blob, new_blob, letter = meta[2].rstrip("."), meta[3].rstrip("."), meta[4][:1]  # GIT_PRINT_SHA1_ELLIPSIS
        if letter in ("R", "C") and index + 2 < len(tokens):
            changes.append(Change(letter, tokens[index + 2], tokens[index + 1], old_blob, new_blob))
            index += 3
        elif index + 1 < len(tokens):
            changes.append(Change(letter, tokens[index + 1], tokens[index + 1], old_blob, new_blob))
            index += 2
        else:
            break
    return changes


def staged_changes(cwd: Path) -> list[Change]:
    """The files staged for the next commit, compared with HEAD (renames detected)."""
    out = run(["diff", "--cached", "--name-status", "-z", "-M", "--no-ext-diff"], cwd)
    return _parse_changes(out.decode("utf-8", "surrogateescape").split("\0"))


def _parse_log(out: bytes, abbreviations: Abbreviations) -> list[Commit]:
    commits: list[Commit] = []
    for record in out.decode("utf-8", "surrogateescape").split(_RECORD):
        if not record.strip("\0\n"):
            continue
        header, _, rest = record.partition(_END)
        sha, date, parents = [*header.split(_FIELD), "", "", ""][:3]
        changes = _parse_raw_changes(rest.strip("\0\n").split("\0")) if rest.strip("\0\n") else []
        commits.append(Commit(sha, date, tuple(parents.split()), tuple(changes), abbreviations))
    return commits


def log(revisions: list[str], cwd: Path, paths: list[str] | None = None, *, follow: bool = False) -> list[Commit]:
    """The commits of ``revisions`` (``git log`` syntax, e.g. ``["main..HEAD"]``), oldest first,
    each with the files it changed compared with its first parent (with the blobs before and after,
    so that each version can be read by its hash). ``follow`` tracks one file through renames
    (``git log --follow``); merge commits are left out."""
    if any(rev.startswith("-") for rev in revisions):
        raise GitError(f"invalid revision range {' '.join(revisions)!r}")
    args = ["log", _LOG_FORMAT, "--raw", "--no-abbrev", "-z", "-M", "--no-merges", "--no-ext-diff", "--no-color"]
    if follow:
        args.append("--follow")
    args += ["--end-of-options", *revisions, "--", *(paths or [])]
    try:
        out = run_batch(args, cwd, b"")  # a whole history: read at once, not polled
    except GitError as exc:
        text = str(exc)
        if "bad revision" in text or "unknown revision" in text or "ambiguous argument" in text:
            if shallow_boundary(cwd):
                raise shallow_clone(cwd, f"{' '.join(revisions)!r} is not among them") from None
            raise GitError(f"unknown revision or range {' '.join(revisions)!r}") from None
        raise
    return list(reversed(_parse_log(out, Abbreviations(cwd))))
