"""Finding the artifacts to check under the given paths.

Inside a git work tree the files under a folder are those git lists (``git status`` sees the same),
elsewhere those a walk finds that the ``.gitignore`` files it meets keep; the configured excludes apply
to both, and examples and templates (from the folder down) are left out (:func:`candidate_files`). A
file named on the command line is checked with its unit (:mod:`ctxres.linters.checking.units`).
"""

from __future__ import annotations

import bisect
import os
import subprocess
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

from ctxres.artifacts import BY_KIND, KINDS, SNIFFED
from ctxres.config import Config
from ctxres.filereading import read_head, read_regular
from ctxres.findings import Finding
from ctxres.formats.loading import Format
from ctxres.globs import IgnoreRule, is_ignored, matches_any, parse_ignore
from ctxres.linters.checking.path_runs import PathRun, pack
from ctxres.records import FrozenRecord, init_field
from ctxres.state.live import is_example_path

# `ctxres check` loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").


class Artifact(FrozenRecord):
    """A file to check: where it is (``fs_path``, as ``str(path)``), how to show its path, what it is. Compact:
    three strings per file, for the whole check (a ``Path`` is made when one is asked for)."""

    __slots__ = ("display", "fs_path", "kind")

    fs_path: str
    display: str
    kind: str

    def __init__(self, fs_path: str, display: str, kind: str) -> None:
        init_field(self, "fs_path", fs_path)
        init_field(self, "display", display)
        init_field(self, "kind", kind)

    @property
    def path(self) -> Path:
        return Path(self.fs_path)

    @property
    def format(self) -> Format:
        return KINDS[self.kind]


def _display(path: Path, cwd: Path) -> str:
    try:
        return path.relative_to(cwd).as_posix()
    except ValueError:
        return os.path.relpath(path, cwd).replace(os.sep, "/")


def _shown_prefix(folder: Path, cwd: Path) -> str | None:
    """What ``_display(path, cwd)`` puts before the path relative to ``folder`` (clean: no ``.`` or ``..``) of
    each of its files, where the display is that: a folder at or below ``cwd``, or one ``cwd`` is not below
    (the files are then shown in the order of their relative paths); None where it is not."""
    if ".." in folder.parts:
        return None
    try:
        base: str | None = folder.relative_to(cwd).as_posix()
    except ValueError:
        # relative_to fails for every file, but those below cwd when cwd is below the folder (each file is
        # shown by _display then); for the others _display takes os.path.relpath, which compares the
        # absolute paths: the folder's relative path, once, joined with each file's.
        real, start = os.path.abspath(folder), os.path.abspath(cwd)
        inside = real != start and os.path.commonpath([real, start]) == real  # cwd below the folder
        base = None if inside else os.path.relpath(real, start).replace(os.sep, "/")
    if base is None:
        return None
    return "" if base == "." else f"{base}/"


def _display_below(folder: Path, cwd: Path) -> Callable[[str, str], str]:
    """``_display(path, cwd)`` for the files of ``folder``, given the path (as a string) and the path relative
    to the folder: the folder's display and the relative path joined where that is what ``_display``
    computes (:func:`_shown_prefix`), else ``_display`` of each path."""
    prefix = _shown_prefix(folder, cwd)
    if prefix is not None:
        return lambda path, rel: prefix + rel
    return lambda path, rel: _display(Path(path), cwd)


def _path_prefix(folder: Path) -> str | None:
    """What ``str(folder / rel)`` puts before a clean relative path ``rel`` (``/`` between its parts), where
    that is a plain join (POSIX paths); None elsewhere."""
    if os.sep != "/":
        return None
    name = str(folder)
    return "" if name == "." else name if name.endswith("/") else f"{name}/"


def _realpath(path: str, folders: dict[str, str]) -> str:
    """``os.path.realpath(path)``, each folder resolved once (``folders``, from its parent's): the real folder
    joined with the name, unless the name is itself a link."""
    head, tail = os.path.split(path)
    if not head or tail in ("", ".", ".."):
        return os.path.realpath(path)
    joined = os.path.join(_real_folder(head, folders), tail)
    return os.path.realpath(joined) if os.path.islink(joined) else joined


def _real_folder(folder: str, folders: dict[str, str]) -> str:
    """``os.path.realpath(folder)``, remembered in ``folders`` with its parents': a folder below a known one is
    its real parent joined with its name (one ``lstat`` for the name, not one for every part of the path)."""
    below: list[tuple[str, str, str]] = []  # (folder, parent, name) from the deepest up
    top = folder
    while top not in folders:
        parent, name = os.path.split(top)
        if not parent or name in ("", ".", ".."):
            folders[top] = os.path.realpath(top)
            break
        below.append((top, parent, name))
        top = parent
    for inner, parent, name in reversed(below):
        joined = os.path.join(folders[parent], name)
        folders[inner] = os.path.realpath(joined) if os.path.islink(joined) else joined
    return folders[folder]


def kind_of(relpath: str, path: str | Path, config: Config) -> str | None:
    """The artifact kind of a file, from its name (the configured patterns; where two kinds share a name, the
    catalog's ``claims`` reads the content: a `resume-context.md` that names a `build_id` is a build's), else
    from its content (the catalog's ``sniff``: a YAML file with a top-level `resumption:` key is an
    orchestration file). A file that matches a kind's default patterns but neither sits in the kind's place
    nor has its content (the catalog's ``recognition``) is another tool's: no kind (:func:`skip_reason`)."""
    return _recognised(relpath, path, config)[0]


def skip_reason(relpath: str, path: str | Path, config: Config) -> str | None:
    """Why a file named like an artifact is not one (only the name matches), else None."""
    return _recognised(relpath, path, config)[1]


def _recognised(relpath: str, path: str | Path, config: Config) -> tuple[str | None, str | None]:
    """(kind, None) for an artifact; (None, why) for a file that only has an artifact's name; (None, None)."""
    skipped: str | None = None
    for kind, patterns in config.patterns.items():
        if matches_any(relpath, patterns):
            entry = BY_KIND.get(kind)
            claims = entry.claims if entry is not None else None
            if claims is not None and not _holds(path, claims, config.max_file_size):
                continue  # the name is shared: the content says it is another kind (a build's manifest)
            if entry is not None and patterns == entry.patterns:
                recognition = entry.recognition
                where = os.path.abspath(path).replace(os.sep, "/")
                if not recognition.place(where, config.state_dir) and not _holds(
                    path, recognition.content, config.max_file_size, recognition.head
                ):
                    skipped = skipped or recognition.skipped(entry.description)
                    continue  # only the name: another tool's file (a project's own patterns are taken as said)
            return kind, None
    suffix = os.path.splitext(path)[1].lower()
    for entry in SNIFFED:
        if entry.sniff is None or suffix not in entry.sniff[0]:
            continue
        if entry.kind == "orchestration" and not config.sniff_resumption:
            continue
        if _holds(path, entry.sniff[1], config.max_file_size):
            return entry.kind, None
        break
    return None, skipped


def _holds(path: str | Path, test: Callable[[bytes], bool], max_bytes: int, head: int | None = None) -> bool:
    """Whether a regular file of at most ``max_bytes`` passes ``test`` (never opens a FIFO); with ``head``, the
    test is given its first ``head`` bytes only."""
    try:
        return test(read_regular(path, max_bytes) if head is None else read_head(path, max_bytes, head))
    except OSError:  # not a regular file, larger than max_bytes, or unreadable
        return False


def _gitignore_rules(folder: Path) -> list[IgnoreRule]:
    try:
        return parse_ignore((folder / ".gitignore").read_text("utf-8", "replace").splitlines())
    except OSError:
        return []


@lru_cache(maxsize=32)
def _exclude_rules(patterns: tuple[str, ...]) -> list[IgnoreRule]:
    return parse_ignore(list(patterns))


def _excluded(relpath: str, is_dir: bool, config: Config) -> bool:
    return is_ignored(relpath, is_dir, _exclude_rules((*config.exclude, *config.extend_exclude)))


def _excluded_path(relpath: str, config: Config) -> bool:
    """Whether the excludes drop a file at ``relpath`` or one of the folders above it."""
    parts = relpath.split("/")
    return any(_excluded("/".join(parts[: i + 1]), i < len(parts) - 1, config) for i in range(len(parts)))


def skipped_example(relpath: str, config: Config) -> bool:
    """Whether a file found below a folder (``relpath``: from that folder) is left out as an example or a
    template: what the hooks never take for the live workflow (:func:`ctxres.state.live.is_example_path`),
    unless ``check-examples`` is set."""
    return not config.check_examples and is_example_path(relpath)


def force_excluded(path: Path, config: Config) -> bool:
    """Whether ``--force-exclude`` drops a file named on the command line: ``exclude``/``extend-exclude``, or an
    example or a template (:func:`skipped_example`).

    Both are tested on the path from the project's folder (that of the configuration file, else the top of the git
    work tree: :func:`ctxres.config.project_folder`), as they are on the paths below a checked folder, whatever the
    working folder. Only the configured excludes apply, as in ruff: a file git
    ignores but that is named explicitly is one git tracks (pre-commit passes no other).
    """
    base = Path(os.path.abspath(config.root))
    absolute = Path(os.path.abspath(path))
    try:
        relpath = absolute.relative_to(base).as_posix()
    except ValueError:
        relpath = absolute.name
    return relpath not in ("", ".") and (_excluded_path(relpath, config) or skipped_example(relpath, config))


class Compared(FrozenRecord):
    """The files a check of named files added only to compare them with (the other files of their units,
    :mod:`~ctxres.linters.checking.units`): ``shown``, their shown paths; ``judged``, the real paths of the
    files the check is about (those named, and the files under the folders named). A finding located in a
    compared file is reported only when it is about a judged file (:attr:`Finding.related`)."""

    __slots__ = ("judged", "shown")

    shown: frozenset[str]
    judged: frozenset[str]

    def __init__(self, shown: frozenset[str], judged: frozenset[str]) -> None:
        init_field(self, "shown", shown)
        init_field(self, "judged", judged)

    def involves(self, finding: Finding) -> bool:
        """Whether the check reports ``finding``: located in a judged file, or about one."""
        return finding.path not in self.shown or any(path in self.judged for path in finding.related)


class Found:
    """The artifacts a check found, in the order they are checked (by their shown path), held compactly: a
    few dozen bytes a file in a few strings (:class:`~ctxres.linters.checking.path_runs.PathRun`), not
    objects scattered among those of the check; an :class:`Artifact` is made when it is handed out."""

    __slots__ = ("_count", "_runs", "compared")

    def __init__(self, found: Iterable[tuple[str, str, str]] = (), compared: Compared | None = None) -> None:
        """``found``: (shown path, path, kind) of each artifact, in order; ``compared``: which of them were
        added only to compare files named on the command line with (None: none)."""
        self._runs = pack(found)
        self._count = sum(map(len, self._runs))
        self.compared = compared

    def __len__(self) -> int:
        """How many it holds (:meth:`drain` lets them go)."""
        return self._count

    def __iter__(self) -> Iterator[Artifact]:
        for run in self._runs:
            yield from artifacts_in(run)

    def drain(self) -> Iterator[Artifact]:
        """Each artifact, in order; each run of them let go as it is handed out (a check holds none of the
        files it is done with)."""
        for triple in self._drained():
            yield _artifact(*triple)

    def chunks(self, size: int) -> list[PathRun]:
        """All it holds as runs of at most ``size`` (a run also ends where the way its files are shown
        changes: a shorter one), each let go from here as it is packed again."""
        return pack(self._drained(), size)

    def _drained(self) -> Iterator[tuple[str, str, str]]:
        self._runs.reverse()
        while self._runs:
            run = self._runs.pop()
            self._count -= len(run)
            yield from run


def artifacts_in(run: PathRun) -> Iterator[Artifact]:
    """The artifacts a run of (shown path, path, kind) holds, in order."""
    for triple in run:
        yield _artifact(*triple)


def _artifact(display: str, fs_path: str, kind: str) -> Artifact:
    return Artifact(fs_path, fs_path if display == fs_path else display, kind)  # one string when they are equal


def find_artifacts(paths: list[Path], config: Config, cwd: Path | None = None) -> Found:
    """Every artifact under ``paths`` (see :func:`discover`), held compactly for a check of many files."""
    cwd = cwd or Path.cwd()
    if _one_folder(paths):
        return Found(_found_below(paths[0], config, cwd))
    compared: list[Compared] = []
    found = _found_anywhere(paths, config, cwd, compared)
    triples = ((artifact.display, artifact.fs_path, artifact.kind) for artifact in found)
    return Found(triples, compared[0] if compared else None)


def discover(paths: list[Path], config: Config, cwd: Path | None = None) -> list[Artifact]:
    """Every artifact under ``paths``, in the order of their shown paths.

    A file given explicitly is checked whatever the excludes, unless ``force-exclude`` is on. When one
    belongs to a workflow (:mod:`ctxres.linters.checking.units`), the other files of that unit are added,
    so that the rules comparing several files run as they do on the whole folder. A file reached twice
    (a link to another file, folders that overlap) is checked once.
    """
    cwd = cwd or Path.cwd()
    if _one_folder(paths):
        return [_artifact(*triple) for triple in _found_below(paths[0], config, cwd)]
    return _found_anywhere(paths, config, cwd)


def _one_folder(paths: list[Path]) -> bool:
    return len(paths) == 1 and not paths[0].is_file()


def _found_below(folder: Path, config: Config, cwd: Path) -> Iterator[tuple[str, str, str]]:
    """:func:`find_artifacts` for one folder, its files listed in order and each looked at once, as it is handed out:
    nothing is kept for each file (a check of ``.`` holds no more for 10,000 files than for 100).

    A listing holds no file below a link to a folder (the walk does not follow one, git lists the link), so a
    file is reached twice only through a link to a file: it is checked once, under the name that comes first
    in the order of the paths relative to the folder (the link's, or the file's own)."""
    listed = candidate_files([folder], config).get(folder)
    rels = listed.rels if listed is not None else []
    rels.sort()  # git's listing is sorted already; the walk's goes folder by folder
    prefix = _path_prefix(folder)
    shown = _shown_prefix(folder, cwd)
    found = _below(folder, config, rels, prefix, os.path.realpath(folder))
    if shown is not None:
        yield from ((shown + rel, path, kind) for rel, path, kind in found)
    else:  # a folder shown with its files' paths from elsewhere: in their order
        yield from sorted((_display(Path(path), cwd), path, kind) for rel, path, kind in found)


def _below(
    folder: Path, config: Config, rels: list[str], prefix: str | None, real_folder: str
) -> Iterator[tuple[str, str, str]]:
    """(path relative to ``folder``, path, kind) of the artifacts among ``rels`` (sorted), each once."""
    targets: set[str] = set()  # where the links met point to
    later: set[str] = set()  # files reached by a link before their turn
    for at, rel in enumerate(rels):
        if later and rel in later:
            continue
        path = prefix + rel if prefix is not None else str(folder / rel)
        kind = kind_of(rel, path, config)
        if kind is None:
            continue
        if os.path.islink(path):
            target = os.path.realpath(path)
            if target in targets:
                continue  # another link to the same file came first
            targets.add(target)
            inner = _relative_inside(target, real_folder)
            if inner is not None:
                place = bisect.bisect_left(rels, inner)
                if place < len(rels) and rels[place] == inner:
                    target_path = prefix + inner if prefix is not None else str(folder / inner)
                    if kind_of(inner, target_path, config) is not None:
                        if place < at:
                            continue  # the file itself came first
                        later.add(inner)
        yield rel, path, kind


def _relative_inside(path: str, folder: str) -> str | None:
    """``path`` relative to ``folder`` (``/`` between its parts), if it is below it (both real paths)."""
    start = folder if folder.endswith(os.sep) else folder + os.sep
    return path[len(start) :].replace(os.sep, "/") if path.startswith(start) else None


def _found_anywhere(
    paths: list[Path], config: Config, cwd: Path, compared: list[Compared] | None = None
) -> list[Artifact]:
    """:func:`find_artifacts` for several paths, or a file: each artifact under its first path, sorted. When files were
    added only as members of the units of named files, ``compared`` receives what tells them apart."""
    found: dict[str, Artifact] = {}  # by resolved path
    explicit: list[Artifact] = []
    listed = candidate_files([given for given in paths if not given.is_file()], config)
    for given in paths:
        if given.is_file():
            if config.force_exclude and force_excluded(given, config):
                continue
            kind = kind_of(_display(given, cwd), given, config)
            if kind:
                artifact = Artifact(str(given), _display(given, cwd), kind)
                explicit.append(found.setdefault(os.path.realpath(given), artifact))
            continue
        display = _display_below(given, cwd)
        real_folders: dict[str, str] = {}
        for path, rel in listed.get(given, []):
            kind = kind_of(rel, path, config)
            if kind:
                name = str(path)
                found.setdefault(_realpath(name, real_folders), _artifact(display(name, rel), name, kind))
    if explicit:
        from ctxres.linters.checking.units import unit_members

        judged = frozenset(found)
        added: set[str] = set()
        for member in unit_members(explicit, config, cwd):
            real = os.path.realpath(member.fs_path)
            if real not in found:
                found[real] = member
                added.add(member.display)
        if added and compared is not None:
            compared.append(Compared(frozenset(added), judged))
    return sorted(found.values(), key=lambda a: a.display)


def skipped_files(paths: list[Path], config: Config, cwd: Path | None = None) -> list[tuple[str, str]]:
    """(shown path, why) of each file under ``paths`` that has an artifact's name and nothing else of it
    (:func:`skip_reason`), in the order of the shown paths: what ``ctxres check --list-files`` says of them."""
    cwd = cwd or Path.cwd()
    skipped: dict[str, str] = {}
    listed = candidate_files([given for given in paths if not given.is_file()], config)
    for given in paths:
        if given.is_file():
            why = skip_reason(_display(given, cwd), given, config)
            if why is not None:
                skipped.setdefault(_display(given, cwd), why)
            continue
        display = _display_below(given, cwd)
        for path, rel in listed.get(given, []):
            why = skip_reason(rel, path, config)
            if why is not None:
                skipped.setdefault(display(str(path), rel), why)
    return sorted(skipped.items())


def find_named(paths: list[Path], config: Config, names: tuple[str, ...]) -> list[Path]:
    """The files called one of ``names`` under ``paths`` (a given file: itself), with the excludes and
    ignore rules of :func:`discover`: for files that are not an artifact kind but that a rule looks for
    wherever the check is run from (the legacy Nexus ``_resume.md``)."""
    found: dict[Path, Path] = {}
    listed = candidate_files([given for given in paths if not given.is_file()], config, lambda n: n in names)
    for given in paths:
        if given.is_file():
            if given.name in names:
                found.setdefault(given.resolve(), given)
            continue
        for path, _rel in listed.get(given, []):
            found.setdefault(path.resolve(), path)
    return sorted(found.values())


# --------------------------------------------------------------------------- which files: git or a walk


# Within one_listing: (folders, id(config)) -> (config, each folder's files as their relative paths joined by
# NUL, a character no path holds): one string per folder, not two objects per file, held for the whole check.
_LISTINGS: list[dict[tuple[tuple[str, ...], int], tuple[Config, dict[Path, str]]]] = []


@contextmanager
def one_listing() -> Iterator[None]:
    """Within it, the files under the same folders (with the same configuration) are listed once: a check
    lists them to discover the artifacts, and again for the files a rule looks for (:func:`find_named`). The
    files do not change during a check; outside of one, every call lists them afresh."""
    if _LISTINGS:
        yield
        return
    _LISTINGS.append({})
    try:
        yield
    finally:
        _LISTINGS.clear()


class Listed:
    """The files of one folder, as (path, path relative to the folder) pairs: the paths are made as the pairs
    are iterated (a ``Path`` a file at a time, not one for every file of the check at once)."""

    __slots__ = ("folder", "rels")

    def __init__(self, folder: Path, rels: list[str]) -> None:
        self.folder = folder
        self.rels = rels

    def __iter__(self) -> Iterator[tuple[Path, str]]:
        folder = self.folder
        return ((folder / rel, rel) for rel in self.rels)


def candidate_files(
    folders: list[Path], config: Config, wanted: Callable[[str], bool] | None = None
) -> dict[Path, Listed]:
    """For each folder: (path, path relative to the folder) of every file the excludes and ignore rules keep
    (and whose name ``wanted`` accepts); see :func:`_candidate_files`. Remembered within :func:`one_listing`."""
    if not _LISTINGS:
        return {folder: Listed(folder, rels) for folder, rels in _candidate_files(folders, config, wanted).items()}
    key = (tuple(map(str, folders)), id(config))
    known = _LISTINGS[0].get(key)
    if known is None or known[0] is not config:
        listed = _candidate_files(folders, config)
        known = _LISTINGS[0][key] = (config, {folder: "\0".join(rels) for folder, rels in listed.items()})
        if wanted is None:
            return {folder: Listed(folder, rels) for folder, rels in listed.items()}
    # The path of a listed file is its folder joined with its relative path (what the walk and git listing
    # give); `wanted` tests the name of a file: the files it accepts among all of them are those it would list
    # (looked at one at a time: a rule after the check asks for a few names among all the files).
    return {folder: Listed(folder, _kept(joined, wanted)) for folder, joined in known[1].items()}


def _kept(joined: str, wanted: Callable[[str], bool] | None) -> list[str]:
    if wanted is None:
        return joined.split("\0") if joined else []
    return [rel for rel in _entries(joined) if wanted(_name(rel))]


def _entries(joined: str) -> Iterator[str]:
    """The NUL-separated entries of ``joined``, one at a time."""
    start, end = 0, len(joined)
    while start < end:
        stop = joined.find("\0", start)
        if stop < 0:
            stop = end
        yield joined[start:stop]
        start = stop + 1


def _name(rel: str) -> str:
    return rel[rel.rfind("/") + 1 :]


def _candidate_files(
    folders: list[Path], config: Config, wanted: Callable[[str], bool] | None = None
) -> dict[Path, list[str]]:
    """For each folder: the path relative to the folder (the file's path is the folder joined with it) of
    every file the excludes and ignore rules keep (and whose name ``wanted`` accepts), without a ``Path``
    for each file (the listing of a large tree is held at once).

    Inside a git work tree (with ``respect-gitignore``), git says which files there are: what
    ``git ls-files --cached --others --exclude-standard`` lists, so the ``.gitignore`` files above and below
    the folder, ``.git/info/exclude`` and the global excludes file apply as they do for ``git status``; a
    tracked file is kept even where a pattern ignores it (git shows it too), one deleted from the disk is
    not. One git process per repository (and one more for a named folder that git ignores as a whole: it is
    walked, as asked). A submodule (or a nested repository) is one entry for git: its
    files are not listed (check it from inside). Outside git, or when git fails: :func:`walk_files`.
    Examples and templates below each folder are left out (:func:`skipped_example`).
    """
    listed = _listed_files(folders, config, wanted)
    if config.check_examples:
        return listed
    return {folder: [rel for rel in rels if not is_example_path(rel)] for folder, rels in listed.items()}


def _listed_files(
    folders: list[Path], config: Config, wanted: Callable[[str], bool] | None = None
) -> dict[Path, list[str]]:
    """:func:`_candidate_files`, examples and templates included."""
    result: dict[Path, list[str]] = {}
    by_repository: dict[Path, list[tuple[Path, str]]] = {}
    for folder in folders:
        top = _work_tree(folder) if config.respect_gitignore and folder.is_dir() else None
        if top is None:
            result[folder] = list(walk_files(folder, config, wanted))
        else:
            rel = os.path.relpath(os.path.realpath(folder), top).replace(os.sep, "/")
            by_repository.setdefault(top, []).append((folder, "" if rel == "." else rel))
    for top, members in by_repository.items():
        listing = _git_files(top, sorted({rel for _, rel in members}))
        ignored = _ignored_by_git(top, sorted({rel for _, rel in members if rel})) if listing is not None else set()
        for folder, rel in members:
            if listing is None:
                result[folder] = list(walk_files(folder, config, wanted))
            else:
                if rel in ignored:
                    # A folder named on the command line that git ignores (a build or temporary folder):
                    # checked as asked, by the walk, with the ignore files inside it (as ruff does).
                    result[folder] = list(walk_files(folder, config, wanted))
                else:
                    result[folder] = _under(folder, rel, listing, config, wanted)
    return result


def _ignored_by_git(top: Path, rels: list[str]) -> set[str]:
    """The folders among ``rels`` (of the work tree ``top``) that git ignores, themselves or one of their
    parents: one git process for all of them (pre-commit may name files in hundreds of workflow folders)."""
    if not rels:
        return set()
    args = ["git", "-C", str(top), "check-ignore", "--no-index", "-z", "--stdin"]  # paths, not pathspecs
    env = {key: value for key, value in os.environ.items() if key not in _GIT_LOCATION_VARIABLES}
    given = b"".join(os.fsencode(rel) + b"\0" for rel in rels)
    try:
        proc = subprocess.run(args, input=given, capture_output=True, check=False, env=env)
    except OSError:
        return set()
    if proc.returncode not in (0, 1):  # 1: none is ignored; more: git failed (none is taken as ignored)
        return set()
    return {os.fsdecode(entry) for entry in proc.stdout.split(b"\0") if entry}


def _work_tree(folder: Path) -> Path | None:
    """The top of the git work tree holding ``folder`` (the nearest folder with a ``.git`` entry), else None."""
    here = Path(os.path.realpath(folder))
    for candidate in (here, *here.parents):
        if os.path.lexists(candidate / ".git"):
            return candidate
    return None


# Variables git exports to hooks (pre-commit runs under one): they would point this listing at the
# repository of the commit, not at the one holding the checked folder.
_GIT_LOCATION_VARIABLES = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_PREFIX")


def _git_files(top: Path, folders: list[str]) -> list[str] | None:
    """The files git lists under ``folders`` (relative to ``top``; "" is all of it), relative to ``top``;
    None when git is missing or fails (not really a repository, an unsafe owner, ...)."""
    args = ["git", "-C", str(top), "--literal-pathspecs", "ls-files", "-z", "--cached", "--others"]
    args.append("--exclude-standard")
    if "" not in folders:
        args += ["--", *folders]
    env = {key: value for key, value in os.environ.items() if key not in _GIT_LOCATION_VARIABLES}
    try:
        proc = subprocess.run(args, capture_output=True, check=False, env=env, stdin=subprocess.DEVNULL)
    except OSError:
        return None
    if proc.returncode != 0:
        return None
    # A path appears once per stage in a merge conflict; sorted, so that a folder's files are together.
    return sorted({os.fsdecode(entry) for entry in proc.stdout.split(b"\0") if entry})


def _under(
    folder: Path, rel: str, listing: list[str], config: Config, wanted: Callable[[str], bool] | None
) -> list[str]:
    prefix = f"{rel}/" if rel else ""
    start = bisect.bisect_left(listing, prefix)
    kept: list[str] = []
    dropped_folders: dict[str, bool] = {}
    for entry in listing[start:]:
        if not entry.startswith(prefix):
            break
        inner = entry[len(prefix) :].rstrip("/")
        if not inner:
            continue
        name = inner.rsplit("/", 1)[-1]
        if wanted is not None and not wanted(name):
            continue
        path = folder / inner
        # Deleted but still in the index; a submodule, a nested repository or a link to a folder.
        if not os.path.lexists(path) or path.is_dir():
            continue
        if _folder_dropped(folder, inner, config, dropped_folders) or _excluded(inner, False, config):
            continue
        kept.append(inner)
    return kept


def _folder_dropped(top: Path, inner: str, config: Config, cache: dict[str, bool]) -> bool:
    """Whether the excludes drop one of the folders of ``inner`` (a path below the checked folder ``top``), or
    one is a link: a file git tracks in a folder since replaced by a link to another is deleted for git
    (``git status`` says so), and is not checked through the link."""
    parts = inner.split("/")[:-1]
    for depth in range(1, len(parts) + 1):
        folder = "/".join(parts[:depth])
        if folder not in cache:
            cache[folder] = _excluded(folder, True, config) or os.path.islink(top / folder)
        if cache[folder]:
            return True
    return False


def walk_files(top: Path, config: Config, wanted: Callable[[str], bool] | None = None) -> Iterator[str]:
    """The path relative to ``top`` of every file under ``top`` that the excludes and ``.gitignore`` rules keep
    (and whose name ``wanted`` accepts), folder by folder in name order."""
    # gitignore rules of each folder apply below it; a stack keeps (base, rules) pairs.
    ignore_stack: list[tuple[str, list[IgnoreRule]]] = []
    for dirpath, dirnames, filenames in os.walk(top):
        folder = Path(dirpath)
        rel_folder = folder.relative_to(top).as_posix()
        rel_folder = "" if rel_folder == "." else rel_folder
        while ignore_stack and not (rel_folder + "/").startswith(ignore_stack[-1][0]):
            ignore_stack.pop()
        if config.respect_gitignore:
            rules = _gitignore_rules(folder)
            if rules:
                ignore_stack.append((rel_folder + "/" if rel_folder else "", rules))

        def skipped(name: str, is_dir: bool, rel_folder: str = rel_folder) -> bool:
            rel = f"{rel_folder}/{name}" if rel_folder else name
            if _excluded(rel, is_dir, config):
                return True
            return any(is_ignored(rel[len(base) :], is_dir, rules) for base, rules in ignore_stack)

        dirnames[:] = sorted(d for d in dirnames if not skipped(d, True))
        for name in sorted(filenames):
            if (wanted is not None and not wanted(name)) or skipped(name, False):
                continue
            yield f"{rel_folder}/{name}" if rel_folder else name
