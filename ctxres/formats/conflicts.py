"""Unresolved merge conflicts: git's markers (``<<<<<<< ``, ``=======``, ``>>>>>>> `` at the start of a line)
left in a YAML or JSON file that then fails to parse. Every reader of such a file (``ctxres check``, the hooks,
``ack``, ``prompt``, the statusline, the baseline) says this, at the marker's line, instead of the parser's
error (which blames the indentation or a missing ``:``). Standard library only, no import at all: the hooks
call it when a file they read does not parse.
"""

from __future__ import annotations

CONFLICT = "unresolved merge conflict"
RESOLVE = "resolve it (keep one side, remove the markers)"
FIX = f"{RESOLVE} and run again"  # what a command that reads the file again says
_OPENING = "<<<<<<<"
_CLOSING = ">>>>>>>"
_MARKERS = (_OPENING, "|||||||", "=======", _CLOSING)  # "|||||||": the base of a diff3-style conflict
_SHOWN = 40  # characters of the marker line quoted


def _marker(line: str) -> bool:
    for marker in _MARKERS:
        if line.startswith(marker):
            rest = line[len(marker) :]
            return not rest.strip() if marker == "=======" else (not rest.strip() or rest[0] in " \t")
    return False


def first_marker(text: str) -> tuple[int, str] | None:
    """(1-based line, the line) of the first conflict marker of ``text``; None when there is none. ``=======``
    alone is no conflict (it is text in YAML): an opening or a closing marker must be there too."""
    if _OPENING not in text and _CLOSING not in text:
        return None
    found: tuple[int, str] | None = None
    paired = False
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.rstrip("\r")
        if not _marker(line):
            continue
        if found is None:
            found = (number, line)
        paired = paired or line.startswith((_OPENING, _CLOSING))
        if paired:
            return found
    return None


def conflict_reason(text: str, line_offset: int = 0) -> str | None:
    """``unresolved merge conflict at line 12 (<<<<<<< HEAD)``, or None when ``text`` has no conflict marker;
    ``line_offset``: the lines before ``text`` in its file (a Markdown file's front matter)."""
    found = first_marker(text)
    if found is None:
        return None
    number, line = found
    shown = line if len(line) <= _SHOWN else line[: _SHOWN - 3] + "..."
    return f"{CONFLICT} at line {number + line_offset} ({shown})"


def conflict_line(text: str, line_offset: int = 0) -> int | None:
    """The line of the first conflict marker (with ``line_offset``), None when there is none."""
    found = first_marker(text)
    return None if found is None else found[0] + line_offset


def conflict_problem(text: str, *, again: bool = True) -> str | None:
    """``unresolved merge conflict at line 12 (<<<<<<< HEAD): resolve it (keep one side, remove the markers)
    and run again`` (without ``and run again`` when ``again`` is false: the caller says what to run next);
    None when ``text`` has no conflict marker."""
    reason = conflict_reason(text)
    return None if reason is None else f"{reason}: {FIX if again else RESOLVE}"


def is_conflict(reason: str) -> bool:
    """Whether a reason a reader gave is an unresolved merge conflict (it says how to fix it already)."""
    return CONFLICT in reason


def ours(text: str) -> str:
    """``text`` with each conflict replaced by its first side (the checked-out branch's, ``HEAD`` in a merge):
    what can still be read of a file while the conflict waits; the text unchanged when it holds none."""
    if first_marker(text) is None:
        return text
    kept: list[str] = []
    side = 0  # 0: outside a conflict, 1: the first side, 2: the base or the other side
    for line in text.splitlines(keepends=True):
        bare = line.rstrip("\r\n")
        if bare.startswith(_OPENING) and _marker(bare):
            side = 1
        elif side and _marker(bare) and not bare.startswith(_OPENING):
            side = 0 if bare.startswith(_CLOSING) else 2
        elif side != 2:
            kept.append(line)
    return "".join(kept)
