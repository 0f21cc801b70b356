"""The baseline file: the findings a project accepted when it adopted ctxres, so that they do not fail a check.

``ctxres baseline`` records the findings of a check in a committed JSON file (``.ctxres-baseline.json`` at the
project root by default); ``ctxres check`` reads it and reports a finding that matches an entry as baselined:
counted in the summary, not printed, not failing the run. An entry is matched without line numbers (lines move
as a file is edited): by the file's path relative to the project root, the rule code, and a fingerprint of the
finding's JSON path and message, with what moves with unrelated lines (line numbers, the clock) left out.
Matching counts: two identical findings need two entries. An entry that matches no finding of a file the check
judged is *fixed*; the next ``ctxres baseline`` drops it, so the file only shrinks as the project is cleaned.

A file that cannot be read (a P finding of :data:`~ctxres.linters.rules.parsing.UNREAD_CODES`: a syntax error,
not UTF-8, too large, ...) hides every finding it would have: such a finding is never recorded nor matched,
and the entries of that file are kept, neither fixed nor new, until it can be read again.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path

from ctxres import git
from ctxres.atomic import Stamp, stamp_before_read, write_atomic
from ctxres.config import Config
from ctxres.filereading import within
from ctxres.findings import Finding, Severity
from ctxres.formats.conflicts import conflict_problem
from ctxres.linters.rules.parsing import UNREAD_CODES
from ctxres.linters.rules.reinject import PER_PROJECT
from ctxres.records import FrozenRecord, init_field

# `ctxres check` loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").

FORMAT_VERSION = 1
_NOTE = (
    "Findings of ctxres that existed when this project adopted it: `ctxres check` and `ctxres reinject` report "
    "them as baselined, without failing. Fix them, then run `ctxres baseline` to drop their entries."
)


class BaselineError(Exception):
    """The baseline file cannot be read or is not a baseline (one line: where and what)."""


class Entry(FrozenRecord):
    """One accepted finding: matched by ``key`` (path, code, fingerprint); the message and JSON path are there
    for the person who reviews the file."""

    __slots__ = ("code", "fingerprint", "json_path", "message", "path")

    path: str  # relative to the project root, with `/`
    code: str
    fingerprint: str
    message: str
    json_path: str

    def __init__(self, path: str, code: str, fingerprint: str, message: str = "", json_path: str = "") -> None:
        init_field(self, "path", path)
        init_field(self, "code", code)
        init_field(self, "fingerprint", fingerprint)
        init_field(self, "message", message)
        init_field(self, "json_path", json_path)

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.path, self.code, self.fingerprint)

    def sort_key(self) -> tuple[str, str, str, str]:
        return (self.path, self.code, self.message, self.fingerprint)

    def as_dict(self) -> dict[str, str]:
        return {
            "path": self.path,
            "code": self.code,
            "message": self.message,
            "json_path": self.json_path,
            "fingerprint": self.fingerprint,
        }


# What changes in a message when unrelated lines move, or with the time of the run.
_MOVING: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\b(lines?|columns?|col)\s+\d+(\s*[-\u2013]\s*\d+)?"), r"\1 N"),  # on line 12, lines 3-5
    (re.compile(r"(\.[A-Za-z0-9]+):\d+(:\d+)?\b"), r"\1:N"),  # events/x/log.jsonl:12, ORCHESTRATION.yaml:4:3
    (re.compile(r", [^,]*? in the future \(it is now [^)]*\)"), ", in the future"),  # S002: the clock
)


def normalise(message: str) -> str:
    """``message`` without what moves when unrelated lines of the file move (line numbers) or as time passes."""
    for pattern, replacement in _MOVING:
        message = pattern.sub(replacement, message)
    return message


def fingerprint(finding: Finding, places: Places | None = None) -> str:
    """The fingerprint of a finding: its JSON path and normalised message (16 hex digits of SHA-256); with
    ``places``, the message as a run at the project root words it (the paths of other files it names are
    relative to the working folder: ``../../.claude/rules/team.md`` from a subfolder)."""
    message = finding.message if places is None else places.as_at_root(finding.message)
    text = f"{finding.json_path}\n{normalise(message)}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


# --------------------------------------------------------------------------- where things are


def project_root(config: Config, start: Path) -> Path:
    """The folder the entries' paths are relative to: that of the configuration file, else the top of the git
    work tree holding ``start``, else ``start``'s folder."""
    if config.source is not None:
        return Path(os.path.abspath(config.root))

    folder = start if start.is_dir() else start.parent
    try:
        return Path(os.path.abspath(git.repo_root(Path(os.path.abspath(folder)))))
    except git.GitError:
        return Path(os.path.abspath(config.root))


def baseline_file(config: Config, root: Path, explicit: Path | None = None) -> Path:
    """``--baseline FILE``, else the ``baseline`` setting (``.ctxres-baseline.json`` by default) relative to the
    project root (:func:`project_root`: the configuration file's folder when there is one)."""
    if explicit is not None:
        return explicit
    return root / config.baseline


# A word that may be a path: no blanks, quotes, brackets or commas; a `:line` after it is not part of it.
_PATH_TOKEN = re.compile(r"[^\s`'\"(),:;\[\]{}<>]+")


class Places:
    """Paths as a check shows them (relative to ``cwd``) and as the baseline holds them (relative to ``root``)."""

    def __init__(self, root: Path, cwd: Path) -> None:
        self.root = os.path.realpath(root)
        self.cwd = os.path.abspath(cwd)
        self._folders: dict[str, str] = {}

    def in_project(self, shown: str) -> str:
        """A finding's path relative to the project root (``/`` separators; ``../`` when outside it)."""
        absolute = os.path.normpath(os.path.join(self.cwd, shown))
        folder, name = os.path.split(absolute)
        real = self._folders.get(folder)
        if real is None:
            real = self._folders[folder] = os.path.realpath(folder)
        return os.path.relpath(os.path.join(real, name), self.root).replace(os.sep, "/")

    def as_at_root(self, message: str) -> str:
        """``message`` with each path it names (of a file that exists), written from the working folder, written
        from the project root instead: the same finding has the same words from any folder. Unchanged at the
        root."""
        if self.cwd == self.root or os.path.realpath(self.cwd) == self.root:
            return message
        return _PATH_TOKEN.sub(lambda m: self._from_root(m.group(0)), message)

    def _from_root(self, token: str) -> str:
        candidate = os.path.join(self.cwd, token)
        if not os.path.isfile(candidate):
            return token
        return self.in_project(token)

    def absolute(self, entry_path: str) -> str:
        return os.path.normpath(os.path.join(self.root, entry_path))

    def shown(self, entry_path: str) -> str:
        """An entry's path as the check shows it."""
        return os.path.relpath(self.absolute(entry_path), self.cwd).replace(os.sep, "/")


def unread(finding: Finding) -> bool:
    """Whether a finding says its file could not be read (it hides every other finding of the file)."""
    return finding.code in UNREAD_CODES


def unread_files(findings: Iterable[Finding], places: Places) -> dict[str, Finding]:
    """The files (relative to the project) that could not be read, each with the first finding that says so."""
    found: dict[str, Finding] = {}
    for finding in findings:
        if unread(finding):
            found.setdefault(places.in_project(finding.path), finding)
    return found


def entry_of(finding: Finding, places: Places) -> Entry:
    where = places.in_project(finding.path)
    return Entry(where, finding.code, fingerprint(finding, places), finding.message, finding.json_path)


# --------------------------------------------------------------------------- the file


def parse(text: str, source: str) -> list[Entry]:
    """The entries of a baseline file's text; :class:`BaselineError` when it is not one."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        conflict = conflict_problem(text)
        if conflict is not None:
            raise BaselineError(f"{source}: {conflict}") from None
        raise BaselineError(f"{source}: not valid JSON ({exc})") from None
    if not isinstance(data, dict) or "entries" not in data:
        raise BaselineError(f"{source}: not a ctxres baseline (no `entries`)")
    version = data.get("version")
    if version != FORMAT_VERSION:
        raise BaselineError(f"{source}: format version {version!r}; this ctxres reads version {FORMAT_VERSION}")
    entries = data["entries"]
    if not isinstance(entries, list):
        raise BaselineError(f"{source}: `entries` must be a list")
    out = []
    for index, item in enumerate(entries):
        fields = ("path", "code", "fingerprint")
        if not isinstance(item, dict) or not all(isinstance(item.get(key), str) and item[key] for key in fields):
            raise BaselineError(f"{source}: entry {index + 1} needs `path`, `code` and `fingerprint` strings")
        message, json_path = item.get("message", ""), item.get("json_path", "")
        out.append(
            Entry(
                item["path"],
                item["code"],
                item["fingerprint"],
                message if isinstance(message, str) else "",
                json_path if isinstance(json_path, str) else "",
            )
        )
    return out


def read(path: Path, shown: str, stamps: list[Stamp] | None = None) -> list[Entry]:
    """The entries of the baseline file; its stamp (to write it back only if unchanged) joins ``stamps``."""
    stamp = stamp_before_read(path)
    try:
        raw = path.read_bytes()
        text = raw.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise BaselineError(f"{shown}: cannot be read ({reason})") from None
    if stamps is not None:
        stamps.append(stamp.seen(raw))
    return parse(text, shown)


def render(entries: Iterable[Entry]) -> str:
    """The file's text: sorted entries, one per accepted finding, two-space indented."""
    document = {
        "version": FORMAT_VERSION,
        "tool": "ctxres",
        "note": _NOTE,
        "entries": [entry.as_dict() for entry in sorted(entries, key=Entry.sort_key)],
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def write(path: Path, entries: Iterable[Entry], expected: Stamp | None = None) -> None:
    """Write the baseline; :class:`~ctxres.atomic.ChangedSinceRead` (nothing written) when the file is no
    longer what ``expected`` saw (a teammate's merge, an editor)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, render(entries), expected=expected)


# --------------------------------------------------------------------------- matching a report against it


class Match:
    """A check's findings against a baseline: which are baselined, how many of each, which entries are fixed.

    The findings are gone through twice (counted, then written), each time in the same order, so the same
    ones are baselined: the first findings of each key take its entries."""

    __slots__ = ("_counts", "baselined", "errors", "file", "fixed", "places", "unread", "warnings")

    file: str  # the baseline as the check shows it
    places: Places
    errors: int  # new errors and warnings: what fails the run
    warnings: int
    baselined: int
    fixed: list[Entry]  # entries of judged files that matched nothing
    unread: list[str]  # files (relative to the project) that could not be read: their entries are kept
    _counts: Counter[tuple[str, str, str]]

    def __init__(self, file: str, entries: Sequence[Entry], places: Places) -> None:
        self.file = file
        self.places = places
        self._counts = Counter(entry.key for entry in entries)
        self.errors = self.warnings = self.baselined = 0
        self.fixed = []
        self.unread = []

    def marks(self, findings: Iterable[Finding]) -> Iterator[tuple[Finding, bool]]:
        """Each finding with whether it is baselined."""
        left = Counter(self._counts)
        for finding in findings:
            key = (self.places.in_project(finding.path), finding.code, fingerprint(finding, self.places))
            if left[key] > 0 and not unread(finding):
                left[key] -= 1
                yield finding, True
            else:
                yield finding, False

    def count(self, findings: Iterable[Finding], entries: Sequence[Entry], judged: Callable[[Entry], bool]) -> None:
        """Count the new findings and the baselined ones; list the entries of judged files left unmatched (not
        those of a file that could not be read: nothing can be said of them)."""
        used: Counter[tuple[str, str, str]] = Counter()
        unreadable: set[str] = set()
        for finding, baselined in self.marks(findings):
            if unread(finding):
                unreadable.add(self.places.in_project(finding.path))
            if baselined:
                self.baselined += 1
                used[(self.places.in_project(finding.path), finding.code, fingerprint(finding, self.places))] += 1
            elif finding.severity is Severity.ERROR:
                self.errors += 1
            else:
                self.warnings += 1
        fixed = []
        for entry in sorted(entries, key=Entry.sort_key):
            if used[entry.key] > 0:
                used[entry.key] -= 1
            elif judged(entry) and entry.path not in unreadable:
                fixed.append(entry)
        self.fixed = fixed
        self.unread = sorted(unreadable)


def judged_by(
    paths: Sequence[Path], places: Places, compared: frozenset[str], reported: Callable[[str, str], bool]
) -> Callable[[Entry], bool]:
    """Whether a check of ``paths`` judged the file and rule of an entry: the file is one of them or below one,
    was not only read to compare (``compared``: shown paths), and the check reports the entry's rule there.
    Only such an entry can be *fixed*: a check of one folder says nothing of the entries of another, nor of the
    rules that compare every rule file of the project (``PER_PROJECT``) unless it covers the project's root."""
    given = [os.path.abspath(path) for path in paths]
    whole = any(within(places.root, os.path.realpath(top)) for top in given)

    def judged(entry: Entry) -> bool:
        absolute = places.absolute(entry.path)
        if not any(absolute == top or absolute.startswith(top.rstrip(os.sep) + os.sep) for top in given):
            return False
        if entry.code in PER_PROJECT and not whole:
            return False
        shown = places.shown(entry.path)
        return shown not in compared and reported(shown, entry.code)

    return judged
