"""Which ORCHESTRATION file is *the live workflow* of a project, one definition for the hooks, the
linters and the git checks: the walk for workflow files (:func:`workflow_files`), which of them are
examples or templates and never live (:func:`is_example_path`), and the choice among the live ones
(:func:`find_live_workflow`, with the sentence every command uses to say which one it chose and why:
:meth:`WorkflowChoice.note`).

Apart from :mod:`ctxres.state.orchestration` (the status model, which never imports this module), so that a hook whose
cache knows every candidate pays for this module only: the status model is imported when a file has to
be parsed (a new or changed candidate), and the configured patterns are matched without compiling a
regular expression when they are plain (``ctxres.globs.matches_any``). Imports ``os`` only at module level.
"""

from __future__ import annotations

import os

from ctxres.defaults import WORKFLOW_ENV

# A hook loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable, Iterable
    from typing import Any


# --- examples and templates ----------------------------------------------------------------------

# What is an example or a template, in one place: the hooks never take one for the live workflow, and
# `ctxres check` (its walk of a folder, `--force-exclude`), `ctxres stale` and `check --since` skip them
# unless `check-examples` is set. A folder name added here (a test data folder) applies to all of them.
# The folder `ctxres init` writes its protocol document and its example section into.
PROTOCOL_DOCS_FOLDER = "docs/protocol"
# Test data is an example too: a project's test inputs and its deliberately invalid files
# (`test_data/`, `testdata/`, `fixtures/`, `invalid_*`) are no state of its own.
_EXAMPLE_FOLDERS = frozenset(
    {"example", "examples", "template", "templates", "_templates", "skeleton", "skeletons"}
    | {"test_data", "testdata", "fixtures"}
)
_EXAMPLE_WORDS = frozenset({"example", "examples", "template", "templates", "sample", "skeleton"})
# A file name that starts with one of these is a deliberately invalid example.
_INVALID_PREFIXES = ("invalid_", "invalid-")
# Each of them is a substring of the lower-cased path of a file they make an example: a path that holds
# none of them is not one, found without splitting it into words (a check tests every file it lists).
_EXAMPLE_HINTS = tuple(
    sorted(_EXAMPLE_FOLDERS | _EXAMPLE_WORDS | set(_INVALID_PREFIXES) | {PROTOCOL_DOCS_FOLDER.lower()})
)


def _name_words(name: str) -> list[str]:
    """The lower-case words of a file name: runs of ASCII letters, CamelCase split
    (``OrchestrationTemplate.yaml`` -> orchestration, template, yaml). Loops, not regular
    expressions: the hooks call it for every workflow file they find."""
    split = ""
    previous = ""
    for char in name:
        if "a" <= previous <= "z" and "A" <= char <= "Z":
            split += " "
        split += char
        previous = char
    words: list[str] = []
    word = ""
    for char in split.lower():
        if "a" <= char <= "z":
            word += char
        elif word:
            words.append(word)
            word = ""
    if word:
        words.append(word)
    return words


def is_example_path(relpath: str) -> bool:
    """Whether a file (path relative to the project, ``/`` separators) is an example or a template:
    anything under the folder ``ctxres init`` writes its documents into (``docs/protocol/``), under
    a folder named ``examples``/``templates`` or holding test data (``test_data``, ``testdata``,
    ``fixtures``), whose file name starts with ``invalid_`` (a deliberately invalid example), or whose
    file name says ``template``/``example``/``sample`` (``orchestration-template.yaml``,
    ``ORCHESTRATION.example.yaml``). Such a file is never
    *the live workflow*, and ``ctxres check`` skips it unless ``check-examples`` is set (the path is
    then relative to the folder named on the command line)."""
    rel = relpath.replace(os.sep, "/")
    lowered = rel.lower()
    for hint in _EXAMPLE_HINTS:  # a loop, not any() over a generator: the hooks ask about every workflow file
        if hint in lowered:
            break
    else:
        return False
    while rel.startswith("./"):
        rel = rel[2:]
    if rel == PROTOCOL_DOCS_FOLDER or rel.startswith(PROTOCOL_DOCS_FOLDER + "/"):
        return True
    *folders, name = rel.split("/")
    if any(folder.lower() in _EXAMPLE_FOLDERS for folder in folders):
        return True
    if name.lower().startswith(_INVALID_PREFIXES):
        return True
    return any(word in _EXAMPLE_WORDS for word in _name_words(name))


# --- finding the live workflow -------------------------------------------------------------------

# The configured default (`[tool.ctxres.patterns] orchestration`); ctxres.artifacts re-exports it.
ORCHESTRATION_PATTERNS = ("*ORCHESTRATION*.yaml", "*ORCHESTRATION*.yml")
# $CTXRES_ORCHESTRATION (ctxres.defaults.WORKFLOW_ENV) names the workflow file and skips the search.
MAX_WALK_ENTRIES = 20_000  # bound on the directory entries visited to find workflow files


class WorkflowChoice:
    """The live workflow a command or hook acts on, and why it was chosen."""

    __slots__ = ("data", "named", "others", "path", "pinned", "relpath", "status", "tied", "updated")

    def __init__(
        self,
        path: str,
        relpath: str,
        data: Any,
        status: str,
        others: list[str],
        named: bool = False,
        *,
        pinned: str = "",
        updated: str | None = None,
        tied: bool = False,
    ) -> None:
        self.path = path  # absolute
        self.relpath = relpath  # relative to the project, "/" separators
        self.data = data  # the parsed document (None when the caller asked not to load it)
        self.status = status  # ACTIVE or PAUSED (or whatever a named or pinned file says)
        self.others = others  # the other live workflows (relative paths), in rank order
        self.named = named  # chosen by $CTXRES_ORCHESTRATION, not by a search
        self.pinned = pinned  # the setting that pinned it ("live-workflow in pyproject.toml"), "" if none
        self.updated = updated  # its content time (ctxres.state.workflow_times.sortable), None if it records none
        self.tied = tied  # another live workflow records the same content time (the path decided)

    def reason(self, cwd: str | None = None) -> str:
        """Why this one: the same words in every command and hook (the paths relative to ``cwd`` when given)."""
        if self.named:
            return f"named by ${WORKFLOW_ENV}"
        if self.pinned:
            return f"pinned by {self.pinned}"
        if not self.others:
            return f"the only live workflow (status {self.status})"
        others = list(dict.fromkeys(self._from(other, cwd) for other in self.others))
        shown = ", ".join(others[:5]) + (f" and {len(others) - 5} more" if len(others) > 5 else "")
        total = len(self.others) + 1
        if self.updated is None:
            return (
                f"the first by path of {total} live workflows, none of which records when it was updated "
                f"(status {self.status}); also live: {shown}"
            )
        from ctxres.state.workflow_times import shown as shown_time

        when = f"status {self.status}, updated {shown_time(self.updated)}"
        if self.tied:
            when += "; the first by path of those updated then"
        return f"the most recently updated of {total} live workflows ({when}); also live: {shown}"

    def note(self, cwd: str | None = None) -> str:
        """``using docs/ORCHESTRATION.yaml: the most recently updated of 2 live workflows (...)``; a command run
        in a subfolder passes its working folder (``cwd``): the paths are then said from there."""
        return f"using {self._from(self.relpath, cwd)}: {self.reason(cwd)}"

    def _from(self, relpath: str, cwd: str | None) -> str:
        """A path relative to the project (``relpath``), said from ``cwd`` when it lies under ``cwd``, else
        relative to the project (never climbing out of ``cwd`` with ``..``); unchanged without ``cwd``."""
        if cwd is None:
            return relpath
        root = self.path
        for _ in self.relpath.split("/"):  # the project: as many folders up from this file as its own path has
            root = os.path.dirname(root)
        here = os.path.realpath(cwd)
        path = os.path.join(root, relpath)
        shown = _relative(path, here)
        if shown == ".." or shown.startswith("../") or os.path.isabs(shown):
            return relpath
        return shown


class WorkflowReadError(Exception):
    """Raised by a ``read`` given to :func:`find_live_workflow` when a workflow file cannot be read; the
    message is the reason, with its line and column when the parser gives them."""


class UnreadableWorkflow(Exception):
    """The live workflow cannot be read: :func:`find_live_workflow` names it rather than resume another.

    A workflow file that cannot be read is the live one when the hooks' cache last knew it as live, or
    when what its text still says (:func:`ctxres.state.workflow_times.text_facts`) is a live status and an
    update time no older than every readable live workflow's (it is the one being worked on).
    Every command and hook says :meth:`sentence` instead of serving an older workflow."""

    def __init__(self, path: str, relpath: str, reason: str) -> None:
        super().__init__(unreadable_sentence(relpath, reason))
        self.path = path
        self.relpath = relpath
        self.reason = reason

    def sentence(self) -> str:
        """``the live workflow docs/ORCHESTRATION.yaml cannot be read: <reason at line:col>; fix it``."""
        return str(self)


UNKNOWN_STATUS = "has workflow_status "


def unknown_status_reason(status: str) -> str:
    """The reason given for a live workflow whose status word is none of the workflow statuses: it is
    treated as one that cannot be read (named, never replaced by another workflow)."""
    from ctxres.state.orchestration import WORKFLOW_STATUSES

    known = ", ".join(WORKFLOW_STATUSES)
    return f'{UNKNOWN_STATUS}"{status}", which is not a status ctxres knows ({known})'


def unreadable_sentence(relpath: str, reason: str) -> str:
    """What every command and hook says of a live workflow that cannot be read (or whose status is unknown)."""
    if reason.startswith(UNKNOWN_STATUS):
        return f"the live workflow {relpath} {reason}: fix it"
    from ctxres.formats.conflicts import is_conflict

    if is_conflict(reason):  # it says how to fix it
        return f"the live workflow {relpath} cannot be read: {reason}"
    return f"the live workflow {relpath} cannot be read: {reason}; fix it"


def unreadable_text(relpath: str, reason: str) -> str:
    """What a session is told instead of a resumption prompt when the live workflow cannot be read."""
    return (
        f"ctxres: {unreadable_sentence(relpath, reason)} (`ctxres check {relpath}` shows the error). No other "
        "workflow is resumed in its place until it is fixed."
    )


def _relative(path: str, root: str) -> str:
    return os.path.relpath(path, root).replace(os.sep, "/")


def matches_pattern(relpath: str, patterns: Iterable[str]) -> bool:
    """Whether a file matches one of the configured orchestration patterns (as ``ctxres check``
    matches them: a pattern without ``/`` matches the file name)."""
    from ctxres.globs import matches_any

    return matches_any(relpath, tuple(patterns))


def workflow_files(
    root: str,
    patterns: Iterable[str] = ORCHESTRATION_PATTERNS,
    *,
    skipped: Iterable[str] | None = None,
    limit: int = MAX_WALK_ENTRIES,
) -> list[str]:
    """Files under ``root`` that match the orchestration patterns and are not examples or templates,
    sorted by path. The walk skips version control, virtual environments, caches and build output,
    and stops after ``limit`` directory entries."""
    return [path for path, _rel, _link in _walk(root, patterns, skipped, limit)]


def _walk(root: str, patterns: Iterable[str], skipped: Iterable[str] | None, limit: int) -> list[tuple[str, str, bool]]:
    """:func:`workflow_files`, each with its path relative to ``root`` (``/`` separators) and whether it is a
    symbolic link, both read from the directory listing. What git ignores is not searched (the ``.gitignore``
    files of the folders walked and of those above ``root`` up to the top of its work tree, and that work
    tree's ``.git/info/exclude``), and a folder holding a ``.git`` entry below ``root`` is another work tree
    (a worktree the client makes under ``.claude/worktrees/``, a submodule, a nested repository): it is not
    entered. Its workflows are its own sessions' state."""
    from ctxres.defaults import SKIPPED_FOLDERS
    from ctxres.globs import Patterns

    skip = frozenset(SKIPPED_FOLDERS if skipped is None else skipped)
    match = Patterns(tuple(patterns)).match
    found: list[tuple[str, str, bool]] = []
    visited = 0
    # One scandir per folder, its entries' types from the directory listing (os.walk also lstat()s every
    # folder it enters): the hooks walk the project on every prompt. Symlinked folders are not entered.
    folders: list[tuple[str, str, _Ignores]] = [(root, "", _outer_ignores(root))]
    while folders and visited <= limit:
        dirpath, folder, ignores = folders.pop()
        try:
            entries = list(os.scandir(dirpath))
        except OSError:
            continue
        visited += len(entries)
        names = {entry.name for entry in entries}
        if folder and ".git" in names:
            continue  # another work tree
        if ".gitignore" in names:
            ignores = _with_ignore_file(ignores, os.path.join(dirpath, ".gitignore"), f"{folder}/" if folder else "")
        subfolders = []
        for entry in entries:
            try:
                is_folder = entry.is_dir(follow_symlinks=False)
                is_link = not is_folder and entry.is_symlink()
                if is_link and entry.is_dir():
                    continue  # a link to a folder: neither entered nor a file
            except OSError:
                continue
            name = entry.name
            rel = f"{folder}/{name}" if folder else name
            if is_folder:
                if name not in skip and not _ignored(ignores, rel, True):
                    subfolders.append((entry.path, rel, ignores))
            elif match(rel, name) and not is_example_path(rel) and not _ignored(ignores, rel, False):
                found.append((entry.path, rel, is_link))
        folders.extend(sorted(subfolders, reverse=True))  # visited in name order, as os.walk sorted would
    found.sort()
    return found


# The ignore rules in force in a folder of the walk: (stripped, prefixed, rules) for each ignore file, the
# outermost first; a path relative to the walk's root is matched as ``prefixed + path[len(stripped):]`` (a
# file's rules are relative to its own folder, which is the root's folder ``stripped`` or a folder above the
# root, from which the root is ``prefixed``).
if TYPE_CHECKING:  # pragma: no cover
    from ctxres.globs import IgnoreRule

    _Ignores = tuple[tuple[str, str, list[IgnoreRule]], ...]

MAX_IGNORE_FILE_BYTES = 256 * 1024  # a larger ignore file is not read by the walk


def _ignore_rules(path: str) -> list[IgnoreRule]:
    """The rules of an ignore file ([] when it cannot be read, or is not a small regular file)."""
    from ctxres.filereading import read_regular
    from ctxres.globs import parse_ignore

    try:
        raw = read_regular(path, MAX_IGNORE_FILE_BYTES)  # never opens a FIFO: a hook must not hang on one
    except (OSError, ValueError):  # not a regular file, larger than the limit, unreadable
        return []
    return parse_ignore(raw.decode("utf-8", "replace").splitlines())


def _with_ignore_file(ignores: _Ignores, path: str, stripped: str, prefixed: str = "") -> _Ignores:
    rules = _ignore_rules(path)
    return (*ignores, (stripped, prefixed, rules)) if rules else ignores


def _ignored(ignores: _Ignores, rel: str, is_dir: bool) -> bool:
    """Whether git ignores ``rel`` (relative to the walk's root): the last rule that matches decides, the
    rules of a deeper ignore file after those of the files above it, as in git."""
    if not ignores:
        return False
    from ctxres.globs import is_ignored

    ignored = False
    for stripped, prefixed, rules in ignores:
        if not rel.startswith(stripped):
            continue
        ignored = is_ignored(prefixed + rel[len(stripped) :], is_dir, rules, ignored)
    return ignored


def _outer_ignores(root: str) -> _Ignores:
    """The ignore rules that apply to ``root`` from above and beside it: its work tree's
    ``.git/info/exclude`` and the ``.gitignore`` files of the folders from the work tree's top down to
    ``root``'s parent. () outside a work tree. A few ``lstat`` calls: the top is usually ``root`` itself."""
    above: list[str] = []
    top = root
    while not os.path.lexists(os.path.join(top, ".git")):
        parent = os.path.dirname(top)
        if parent == top:
            return ()  # not in a git work tree: no ignore file applies above root
        above.append(os.path.basename(top))
        top = parent
    ignores: _Ignores = ()
    exclude = os.path.join(top, ".git", "info", "exclude")
    under = "/".join(reversed(above))
    prefix = f"{under}/" if under else ""
    if os.path.isfile(exclude):
        ignores = _with_ignore_file(ignores, exclude, "", prefix)
    folder = top
    for index, name in enumerate(reversed(above)):
        inner = "/".join(list(reversed(above))[index:])
        ignores = _with_ignore_file(ignores, os.path.join(folder, ".gitignore"), "", f"{inner}/")
        folder = os.path.join(folder, name)
    return ignores


# What a search remembers of a candidate file (the hooks keep it in their cache, keyed by the
# file's path relative to the project): [size, mtime_ns, status or None, live, content time or None],
# and a sixth item, the reason, for a file that cannot be read (with what was known of it before:
# whether it was live). A file whose size and mtime did not change is not parsed again.
if TYPE_CHECKING:  # pragma: no cover
    Known = dict[str, list[Any]]


class _Candidate:
    __slots__ = ("data", "path", "relpath", "status", "time")

    def __init__(self, path: str, relpath: str, status: str, time: str | None, data: Any) -> None:
        self.path = path
        self.relpath = relpath
        self.status = status
        self.time = time
        self.data = data  # None unless parsed during this search


class _Unreadable:
    __slots__ = ("path", "reason", "relpath", "status", "time", "was_live")

    def __init__(self, path: str, relpath: str, entry: list[Any]) -> None:
        self.path = path
        self.relpath = relpath
        self.status = entry[2]  # the status its text says (None when it says none)
        self.was_live = bool(entry[3])  # live when the cache last read it
        self.time = entry[4] if isinstance(entry[4], str) else None
        self.reason = str(entry[5])

    @property
    def live(self) -> bool:
        """Whether its text still says it is live: the status model is imported only when this is asked (a
        project that holds a broken workflow file would otherwise load it on every prompt)."""
        if self.status is None:
            return False  # no status word: not live (workflow_meaning(None) is "")
        from ctxres.state.orchestration import LIVE_STATUSES, workflow_meaning

        meaning = workflow_meaning(self.status)
        return meaning in LIVE_STATUSES or not meaning  # a word no status means (a typo) may be the live one


def _remembered(entry: object, info: os.stat_result) -> list[Any] | None:
    if isinstance(entry, list) and len(entry) in (5, 6) and entry[0] == info.st_size and entry[1] == info.st_mtime_ns:
        return entry
    return None


def _read_entry(path: str, read: Callable[[str], Any], info: os.stat_result, previous: object) -> tuple[list[Any], Any]:
    """A candidate's cache entry and data, read now; an unreadable file's entry carries the reason and
    whether it was live when last read."""
    from ctxres.state.workflow_times import content_time

    try:
        data = read(path)
    except WorkflowReadError as exc:
        from ctxres.state.workflow_times import TEXT_SCAN_BYTES, text_facts

        was_live = isinstance(previous, list) and len(previous) >= 5 and bool(previous[3])
        status = time = None
        if info.st_size <= TEXT_SCAN_BYTES and (info.st_mode & 0o170000) == 0o100000:  # a regular file only
            try:
                with open(path, "rb") as handle:
                    status, time = text_facts(handle.read(TEXT_SCAN_BYTES).decode("utf-8", "replace"))
            except OSError:
                pass
        return [info.st_size, info.st_mtime_ns, status, was_live, time, str(exc)], None
    from ctxres.state.orchestration import LIVE_STATUSES, WORKFLOW_STATUSES, workflow_status_of

    status = workflow_status_of(data) if data is not None else None
    entry = [info.st_size, info.st_mtime_ns, status, status in LIVE_STATUSES, content_time(data)]
    if status is not None and status not in WORKFLOW_STATUSES:  # a typo: treated as a file that cannot be read
        was_live = isinstance(previous, list) and len(previous) >= 5 and bool(previous[3])
        return [*entry[:3], was_live, entry[4], unknown_status_reason(status)], data
    return entry, data


def _live_candidates(
    root: str,
    read: Callable[[str], Any],
    patterns: Iterable[str],
    accept: Callable[[str], bool] | None,
    accept_link: Callable[[str], bool] | None,
    skipped: Iterable[str] | None,
    known: Known | None,
) -> list[_Candidate]:
    """The live workflows among the workflow files, in rank order (:func:`find_live_workflow`); and
    :class:`UnreadableWorkflow` when the live one cannot be read."""
    seen: Known = {}
    live: list[_Candidate] = []
    unreadable: list[_Unreadable] = []
    for path, rel, link in _walk(root, patterns, skipped, MAX_WALK_ENTRIES):
        if accept is not None and not accept(path):
            continue
        if link and accept_link is not None and not accept_link(path):
            continue
        try:
            info = os.stat(path)
        except OSError:
            continue
        entry = _remembered(known.get(rel), info) if known is not None else None
        data = None
        if entry is None:
            entry, data = _read_entry(path, read, info, known.get(rel) if known is not None else None)
        seen[rel] = entry
        if len(entry) == 6:
            unreadable.append(_Unreadable(path, rel, entry))
        elif entry[3]:
            live.append(_Candidate(path, rel, str(entry[2]), entry[4] if isinstance(entry[4], str) else None, data))
    if known is not None:
        known.clear()
        known.update(seen)
    _refuse_unreadable(unreadable, live)
    live.sort(key=lambda candidate: candidate.relpath)
    live.sort(key=lambda candidate: candidate.time or "", reverse=True)  # stable: the path breaks ties
    return live


def _refuse_unreadable(unreadable: list[_Unreadable], live: list[_Candidate]) -> None:
    """:class:`UnreadableWorkflow` for the first unreadable file that was live when last read, or whose text
    says it is live and was updated no earlier than every readable live workflow (it is the one being worked
    on; a text without an update time outranks only readable files without one); a search never falls back
    to an older workflow past it. What the texts say, not modification times: every clone decides alike."""
    times = [candidate.time for candidate in live]
    newest = max((time for time in times if time is not None), default=None)

    def outranks(broken: _Unreadable) -> bool:
        if not live:
            return True
        if broken.time is None:
            return newest is None
        return newest is None or broken.time >= newest

    ranked = sorted(unreadable, key=lambda item: item.relpath)
    ranked.sort(key=lambda item: item.time or "", reverse=True)  # the newest first; stable: the path breaks ties
    ranked.sort(key=lambda item: not item.was_live)
    for broken in ranked:
        if broken.was_live or (outranks(broken) and broken.live):  # outranks first: it needs no status model
            raise UnreadableWorkflow(broken.path, broken.relpath, broken.reason)


def find_live_workflow(
    root: str,
    read: Callable[[str], Any],
    *,
    patterns: Iterable[str] = ORCHESTRATION_PATTERNS,
    accept: Callable[[str], bool] | None = None,
    accept_link: Callable[[str], bool] | None = None,
    skipped: Iterable[str] | None = None,
    pinned: str | None = None,
    pinned_by: str = "the live-workflow setting",
    known: Known | None = None,
    load: bool = True,
) -> WorkflowChoice | None:
    """The live workflow of the project at ``root``; None when there is none.

    In order:

    1. ``$CTXRES_ORCHESTRATION`` (a path relative to ``root``) names it outright;
    2. ``pinned`` (the ``live-workflow`` setting, a path relative to ``root`` or absolute; ``pinned_by``
       says where it is set) pins it; a pinned file that is refused or cannot be read gives None, never
       a search (the caller says why);
    3. otherwise, among the files matching the orchestration patterns that are not examples or
       templates and whose workflow is ACTIVE or PAUSED (:func:`is_live`): the one with the newest
       content time (:func:`ctxres.state.workflow_times.content_time`: the workflow's and its resumption
       section's own update times, compared as instants), then the first by path (relative, ``/``
       separators, in code point order) among those with the same time; files that record no time
       come after those that do, by path. Modification times are never used: git does not keep
       them, and every clone of a commit must name the same workflow.

    ``read(path)`` returns a file's parsed data, None to skip the file, or raises :class:`WorkflowReadError`
    when it cannot be read: such a file is :class:`UnreadableWorkflow` (raised) when it was live when last
    read (``known``), or when its text says it is live and was updated no earlier than every readable live
    workflow (:func:`_refuse_unreadable`), and skipped otherwise.
    ``accept(path)`` may refuse a path; ``accept_link(path)`` may refuse a file the search found that is a
    symbolic link, and is asked about no other (the walk does not enter linked folders, so only such a file
    can lead out of ``root``: a hook refuses one that leads out of the project without a ``stat`` of every
    file). ``known`` (the hooks' cache) remembers each candidate's status and content time by its size and
    mtime, so that an unchanged file is not parsed again; it is updated in place.
    ``load=False``: the chosen file is not parsed only to fill :attr:`WorkflowChoice.data` (None
    unless this search parsed it).
    """
    root = os.path.realpath(root)
    named = os.environ.get(WORKFLOW_ENV) or pinned
    if named:
        path = named if os.path.isabs(named) else os.path.join(root, named)
        if accept is not None and not accept(path):
            return None
        try:
            data = read(path)
        except WorkflowReadError:
            return None
        if data is None:
            return None
        from ctxres.state.orchestration import workflow_status_of

        status = workflow_status_of(data) or ""
        from ctxres.state.orchestration import WORKFLOW_STATUSES

        if status and status not in WORKFLOW_STATUSES:
            raise UnreadableWorkflow(path, _relative(path, root), unknown_status_reason(status))
        by_env = bool(os.environ.get(WORKFLOW_ENV))
        return WorkflowChoice(path, _relative(path, root), data, status, [], by_env, pinned="" if by_env else pinned_by)
    ranked = _live_candidates(root, read, patterns, accept, accept_link, skipped, known)
    while ranked:
        best = ranked[0]
        if best.data is None and load:
            try:
                best.data = read(best.path)
            except WorkflowReadError as exc:  # changed since it was remembered, and no longer readable
                raise UnreadableWorkflow(best.path, best.relpath, str(exc)) from None
            if best.data is None:
                ranked.pop(0)
                continue
        tied = best.time is not None and len(ranked) > 1 and ranked[1].time == best.time
        others = [candidate.relpath for candidate in ranked[1:]]
        return WorkflowChoice(best.path, best.relpath, best.data, best.status, others, updated=best.time, tied=tied)
    return None


def no_live_workflow(root_shown: str) -> str:
    """The sentence every command uses when there is no live workflow."""
    return (
        f"no live workflow under {root_shown}: no ORCHESTRATION file (examples and templates aside) has "
        "workflow status ACTIVE or PAUSED"
    )
