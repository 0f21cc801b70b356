"""Comparing versions of an orchestration file across git: which commits moved the workflow state
without updating the resumption section (the comparison itself is :mod:`ctxres.state.statediff`).

Shared by ``ctxres stale`` (staged changes and ``--since``), ``ctxres audit-history`` and rule S013
(``ctxres check --since``).

A history is read near the cost of git's own I/O: the versions are named by the blob hashes of one
``git log --raw`` and read by one ``git cat-file --batch``, each distinct version once; each is
parsed once, section by section without positions (:mod:`ctxres.linters.checking.yaml_sections`:
a version is cut where the one before it was, and only its changed pieces are read); its state is
extracted only when the resumption section did not move (else nothing can be blocked), each
top-level section once (versions share their unchanged sections); and only the version of a
blocked change is parsed again with positions, for its lines.
"""

from __future__ import annotations

import gc
from pathlib import Path

from ctxres import git
from ctxres.artifacts import YAML_SUFFIXES, has_resumption_key
from ctxres.formats.document import Document, JsonPath
from ctxres.formats.loading import DEFAULT_MAX_BYTES, Format, decode, parse_text
from ctxres.globs import is_ignored, matches_any, parse_ignore
from ctxres.linters.checking.yaml_sections import WHOLE, SectionParser
from ctxres.records import FrozenRecord, Record, init_field
from ctxres.state.staleness import utc_now
from ctxres.state.statediff import Extraction, Move, Staleness, assess, extract

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from ctxres.config import Config
    from ctxres.state.statediff import EntryExtractions, SectionExtractions

# `ctxres stale` runs on every commit: records, not dataclasses, typing for the type checker only, and the
# discovery of files (which brings the configuration, not needed by `audit-history`) imported inside a
# function (docs/performance.md, "Start-up tricks").
MAX_MOVES_SHOWN = 10


class Comparison(FrozenRecord):
    """The verdict on one version of one file compared with the previous one."""

    __slots__ = ("commit", "document", "note", "path", "staleness")

    path: str
    staleness: Staleness | None
    document: Document | None  # the new version with positions: for a blocked change only
    commit: git.Commit | None
    note: str

    def __init__(
        self,
        path: str,
        staleness: Staleness | None,
        document: Document | None,
        commit: git.Commit | None = None,
        note: str = "",
    ) -> None:
        init_field(self, "path", path)
        init_field(self, "staleness", staleness)
        init_field(self, "document", document)
        init_field(self, "commit", commit)
        init_field(self, "note", note)


def now_utc() -> str:
    return utc_now().strftime("%Y-%m-%dT%H:%M:%SZ")


_INVALID: Any = object()  # a version that is not valid YAML


class Versions(Record):
    """The versions of files read so far, each distinct version (by its blob hash, else its bytes)
    parsed once, without positions, and its state extracted once when a comparison needs it.
    Histories repeat versions: each is the new side of one comparison and the old side of the next,
    and a revert brings an old one back. The data is shared and only read."""

    __slots__ = ("data", "entry_extractions", "extractions", "section_extractions", "sections")

    sections: SectionParser
    data: dict[str | bytes, Any]
    extractions: dict[str | bytes, Extraction]
    # Each top-level section extracted once: consecutive versions share their unchanged sections.
    section_extractions: SectionExtractions
    # And each entry (a phase, an agent...) of a changed section: most are the previous version's.
    entry_extractions: EntryExtractions

    def __init__(
        self,
        sections: SectionParser | None = None,
        data: dict[str | bytes, Any] | None = None,
        extractions: dict[str | bytes, Extraction] | None = None,
        section_extractions: SectionExtractions | None = None,
        entry_extractions: EntryExtractions | None = None,
    ) -> None:
        self.sections = SectionParser() if sections is None else sections
        self.data = {} if data is None else data
        self.extractions = {} if extractions is None else extractions
        self.section_extractions = {} if section_extractions is None else section_extractions
        self.entry_extractions = {} if entry_extractions is None else entry_extractions

    def parsed(self, key: str | bytes, raw: bytes) -> Any:
        """The data of a version, or ``_INVALID`` when it is not valid YAML (``ctxres check`` says why)."""
        try:
            return self.data[key]
        except KeyError:
            pass
        text = decode(raw)[0]
        if text is None:
            data = _INVALID
        else:
            data = self.sections.parse(text)
            if data is WHOLE:
                document = parse_text("", "orchestration", Format.YAML, text).document
                data = _INVALID if document is None else document.data
        self.data[key] = data
        return data

    def extracted(self, key: str | bytes, data: Any) -> Extraction:
        found = self.extractions.get(key)
        if found is None:
            found = self.extractions[key] = extract(
                data, sections=self.section_extractions, entries=self.entry_extractions
            )
        return found


def compare_versions(
    path: str,
    old: bytes | None,
    new: bytes | None,
    *,
    example_time: str = "",
    commit: git.Commit | None = None,
    versions: Versions | None = None,
    keys: tuple[str, str] = ("", ""),
) -> Comparison | None:
    """Compare two versions of a file; None when there is nothing to compare (a new or deleted file,
    or no top-level ``resumption:`` section in the new version). ``versions`` keeps the versions
    read so far, by ``keys`` (their blob hashes; by default their bytes). Positions are computed
    for a blocked change only: its new version is parsed again, with them."""
    if isinstance(new, git.Oversized) and old is not None:
        return Comparison(
            path, None, None, commit, f"not compared: this version is {new.size:,} bytes, too large to read"
        )
    if old is None or new is None or not has_resumption_key(new):
        return None
    known = versions or Versions()
    old_key, new_key = keys[0] or old, keys[1] or new
    new_data = known.parsed(new_key, new)
    if new_data is _INVALID:
        return Comparison(
            path, None, None, commit, "not compared: this version is not valid YAML (`ctxres check` says why)"
        )
    old_data = known.parsed(old_key, old)
    if old_data is _INVALID:
        return Comparison(path, None, None, commit, "not compared: the previous version is not valid YAML")

    def extracted() -> tuple[Extraction, Extraction]:
        return known.extracted(old_key, old_data), known.extracted(new_key, new_data)

    staleness = assess(old_data, new_data, example_time=example_time, extracted=extracted)
    if staleness is None:
        return Comparison(path, None, None, commit)
    text = decode(new)[0]
    new_doc = parse_text(path, "orchestration", Format.YAML, text or "").document
    assert new_doc is not None  # parsed above
    # The same comparison (the data parsed with positions is the data parsed in sections), its moves
    # located in the version with positions.
    staleness = assess(old_data, new_doc.data, example_time=example_time, locate=_locator(new_doc), extracted=extracted)
    return Comparison(path, staleness, new_doc, commit)


def _locator(doc: Document) -> Callable[[JsonPath], int]:
    """The line of a path in ``doc`` (of its key; the nearest ancestor when it is absent)."""
    return lambda path: doc.locate(path, key=True).line


def _line(doc: Document | None, path: JsonPath, *, key: bool = False) -> int:
    return doc.locate(path, key=key).line if doc is not None else 1


def move_line(comparison: Comparison, move: Move) -> int:
    """The line of a move in the new version (for a removed key, of its unit, else of its nearest ancestor)."""
    return move.line if move.line is not None else _line(comparison.document, move.path)


def _stale_path(staleness: Staleness) -> JsonPath:
    return ("resumption", "recovery_state", "updated_at") if staleness.version == "2.0" else ("resumption",)


def stale_line(comparison: Comparison) -> int:
    """The line of the stale part of the section (``updated_at``, or the section for v1.0)."""
    assert comparison.staleness is not None
    return _line(comparison.document, _stale_path(comparison.staleness), key=True)


def render_text(comparison: Comparison, moved_between: str, after_fix: str) -> list[str]:
    """The lines that explain one blocked change (``moved_between`` is e.g. "HEAD -> staged")."""
    staleness = comparison.staleness
    assert staleness is not None
    path = comparison.path
    count = len(staleness.moves)
    noun = "value" if count == 1 else "values"
    lines = [f"  {count} state-bearing {noun} moved ({moved_between}):"]
    for move in staleness.moves[:MAX_MOVES_SHOWN]:
        lines.append(f"    {path}:{move_line(comparison, move)}: {move.describe()}")
    if count > MAX_MOVES_SHOWN:
        lines.append(f"    ... and {count - MAX_MOVES_SHOWN} more")
    lines.append(f"  stale: {path}:{stale_line(comparison)}: {staleness.stale}")
    lines.append(f"  fix: {staleness.fix}{after_fix}")
    return lines


def as_json(comparison: Comparison) -> dict[str, Any]:
    staleness = comparison.staleness
    out: dict[str, Any] = {"path": comparison.path}
    if comparison.commit is not None:
        out.update(commit=comparison.commit.short, sha=comparison.commit.sha, date=comparison.commit.date)
    if staleness is None:
        return out
    out["resumption_version"] = staleness.version
    out["moved"] = [{**move.as_json(), "line": move_line(comparison, move)} for move in staleness.moves]
    out["stale"] = staleness.stale
    out["stale_line"] = stale_line(comparison)
    out["fix"] = staleness.fix
    return out


def _excluded(path: str, config: Config, folders: list[str] | None = None) -> bool:
    """Whether a file (``path`` from the top of the repository) is left out as ``ctxres check`` leaves it out of
    a folder: by the excludes, or as an example or a template below every one of ``folders`` that holds it
    (folders named on the command line, from the top; none: the top itself)."""
    from ctxres.linters.checking.discovery import skipped_example

    rules = parse_ignore([*config.exclude, *config.extend_exclude])
    parts = path.split("/")
    if any(is_ignored("/".join(parts[: i + 1]), i < len(parts) - 1, rules) for i in range(len(parts))):
        return True

    below = [path[len(folder) + 1 :] for folder in folders or () if path.startswith(folder + "/")]
    return all(skipped_example(rel, config) for rel in below or [path])


def is_audited(path: str, config: Config) -> bool:
    """Whether the audit of a whole repository takes a file (``path`` from the top of the repository): an
    orchestration file by the configured patterns, not excluded, and not an example or a template unless
    ``check-examples`` is set (as ``ctxres check`` picks the files of a folder)."""
    return matches_any(path, config.patterns.get("orchestration", ())) and not _excluded(path, config)


def is_candidate(change: git.Change, config: Config) -> bool:
    return (
        not change.added
        and not change.deleted
        and change.path.endswith(YAML_SUFFIXES)
        and not _excluded(change.path, config)
    )


def check_range(
    since: str, files: list[Path], root: Path, config: Config, progress: Callable[[int, int], None] | None = None
) -> list[Comparison]:
    """Each change to an orchestration file in the commits of ``since..HEAD`` (limited to ``files``
    when given: files or folders), compared with the version before it. :class:`git.GitError` when
    ``since`` names no commit, :class:`git.ShallowClone` when the range reaches past the history a
    shallow clone fetched. ``progress``: see :func:`compare_commits`."""
    git.resolve_commit(since, root)
    return check_revisions([f"{since}..HEAD"], f"the range {since}..HEAD", files, root, config, progress)


def check_revisions(
    revisions: list[str],
    described: str,
    files: list[Path],
    root: Path,
    config: Config,
    progress: Callable[[int, int], None] | None = None,
) -> list[Comparison]:
    """:func:`check_range` for the commits of ``revisions`` (``git log`` syntax: ``["A..B"]``, or
    ``["B", "^A"]``); ``described`` names them in an error (``the range A..B``)."""
    only = [git.repo_path(given, root) for given in files]
    folders = [rel for rel, given in zip(only, files, strict=True) if not given.is_file()]
    only = [] if "" in only or "." in only else only  # the repository's top folder: everything
    folders = folders if only else []
    commits = git.log(revisions, root, only or None)
    git.require_full_history(commits, root, described)
    excluded: dict[str, bool] = {}  # by path: a history changes the same files again and again

    def wanted(change: git.Change) -> bool:
        if change.added or change.deleted:
            return False
        if only and change.path in only:
            return True
        if not change.path.endswith(YAML_SUFFIXES):
            return False
        if change.path not in excluded:
            excluded[change.path] = _excluded(change.path, config, folders)
        return not excluded[change.path]

    pairs = [(commit, change) for commit in commits if commit.parents for change in commit.changes if wanted(change)]
    return [result for result in compare_commits(pairs, root, progress=progress) if result is not None]


def compare_commits(
    pairs: list[tuple[git.Commit, git.Change]],
    root: Path,
    shown: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    names: list[str] | None = None,
) -> list[Comparison | None]:
    """Each change of each commit compared with the version before it (in the commit's first parent,
    under the file's old name when it was renamed); the one comparison behind ``stale --since``,
    ``check --since`` (S013) and ``audit-history``. ``shown`` is the path to print (default: the
    path in the commit; ``names``: one for each pair). Each distinct version is read once (one
    ``git cat-file`` for all, by the blob hashes of ``git log --raw``) and parsed once; a version
    larger than ``DEFAULT_MAX_BYTES`` is not read. ``progress(done, total)`` is called as the comparisons advance."""
    sides = [
        (change.old_blob or f"{commit.parents[0]}:{change.old_path}", change.new_blob or f"{commit.sha}:{change.path}")
        for commit, change in pairs
    ]
    specs = list(dict.fromkeys(spec for side in sides for spec in side))
    last_use = {spec: index for index, side in enumerate(sides) for spec in side}  # then its bytes are let go
    versions = Versions()
    results: list[Comparison | None] = []
    collecting = gc.isenabled()
    gc.disable()  # the parsed versions are kept to the end: the collector would only walk them again and again
    try:
        # The versions are read as the comparisons need them, in the order they first appear: git reads the
        # next ones while these are parsed.
        with git.BlobStream(specs, root, max_bytes=DEFAULT_MAX_BYTES) as blobs:
            for index, ((commit, change), (old, new)) in enumerate(zip(pairs, sides, strict=True)):
                if progress is not None:
                    progress(index, len(pairs))
                results.append(
                    compare_versions(
                        names[index] if names is not None else shown or change.path,
                        blobs.get(old),
                        blobs.get(new),
                        example_time=commit.date,
                        commit=commit,
                        versions=versions,
                        keys=(old, new),
                    )
                )
                for spec in (old, new):
                    if last_use[spec] == index:
                        blobs.release(spec)  # its data stays in `versions`, for the versions that repeat it
    finally:
        if collecting:
            gc.enable()
    if progress is not None:
        progress(len(pairs), len(pairs))
    # The commits a report shows (stale or not compared): their short hashes, asked of git at once.
    git.abbreviate(
        result.commit
        for result in results
        if result is not None and result.commit is not None and (result.staleness is not None or result.note)
    )
    return results
