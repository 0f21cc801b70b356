"""gitignore-style patterns: ``*``, ``?``, ``[...]``, ``**``, a leading ``/`` anchors, a trailing ``/``
matches directories only, ``!`` negates."""

from __future__ import annotations

import re
from functools import lru_cache


@lru_cache(maxsize=512)
def glob_to_regex(pattern: str) -> re.Pattern[str]:
    """Translate a glob over ``/``-separated paths; ``*`` never crosses ``/``, ``**`` does."""
    out = ""
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if pattern.startswith("**/", i):
            out += "(?:.*/)?"
            i += 3
            continue
        if pattern.startswith("**", i):
            out += ".*"
            i += 2
            continue
        if char == "*":
            out += "[^/]*"
        elif char == "?":
            out += "[^/]"
        elif char == "[":
            end = pattern.find("]", i + 1)
            if end == -1:
                out += re.escape(char)
            else:
                body = pattern[i + 1 : end]
                if body.startswith("!"):
                    body = "^" + body[1:]
                out += f"[{body}]"
                i = end
        else:
            out += re.escape(char)
        i += 1
    return re.compile(out + r"\Z")


class IgnoreRule:
    """One line of an ignore file. A plain class, not a dataclass: the hooks import this module
    to match the configured file patterns, and ``dataclasses`` costs ~15 ms of start-up. A rule that is
    literal text, or a file-name pattern of text and single ``*``, is matched without a regular expression;
    any other compiles its expression when it is first matched (the hooks' walk for workflow files reads
    the project's ``.gitignore`` files on every prompt)."""

    __slots__ = ("_parts", "_regex", "anchored", "dir_only", "negate", "pattern")

    def __init__(self, pattern: str, negate: bool, dir_only: bool, anchored: bool) -> None:
        self.pattern = pattern
        self.negate = negate
        self.dir_only = dir_only
        self.anchored = anchored
        self._regex: re.Pattern[str] | None = None
        if _PLAIN.isdisjoint(pattern) and "*" not in pattern:
            self._parts: tuple[str, tuple[str, ...], str, int] | None = (pattern, (), pattern, -1)  # literal
        elif not anchored and _is_plain(pattern):
            self._parts = _star_parts(pattern)
        else:
            self._parts = None

    @property
    def regex(self) -> re.Pattern[str]:
        """The rule's regular expression (:func:`glob_to_regex`), compiled when first asked for."""
        if self._regex is None:
            self._regex = glob_to_regex(self.pattern)
        return self._regex

    def matches(self, target: str) -> bool:
        """Whether the rule's pattern matches ``target`` (the path for an anchored rule, else the name)."""
        if self._parts is not None:
            return _parts_match(target, self._parts)
        return self.regex.match(target) is not None


def parse_ignore(lines: list[str]) -> list[IgnoreRule]:
    """Rules from the lines of a ``.gitignore``-style file (comments and blanks skipped)."""
    rules = []
    for raw in lines:
        line = raw.rstrip("\n").rstrip()
        if not line or line.startswith("#"):
            continue
        negate = line.startswith("!")
        if negate:
            line = line[1:]
        dir_only = line.endswith("/")
        line = line.rstrip("/")
        anchored = "/" in line
        line = line.lstrip("/")
        if not line:
            continue
        rules.append(IgnoreRule(line, negate, dir_only, anchored))
    return rules


def is_ignored(relpath: str, is_dir: bool, rules: list[IgnoreRule], ignored: bool = False) -> bool:
    """Whether a ``/``-separated path relative to the rules' base is ignored (last match wins); ``ignored``:
    what the rules of the ignore files above this one said (a deeper file's rules come after theirs)."""
    name = relpath.rsplit("/", 1)[-1]
    for rule in rules:
        if rule.dir_only and not is_dir:
            continue
        if rule.negate is not ignored:
            continue  # the rule cannot change the answer (an ignore while ignored, a negation while kept)
        if rule.matches(relpath if rule.anchored else name):
            ignored = not rule.negate
    return ignored


def matches_any(relpath: str, patterns: tuple[str, ...]) -> bool:
    """A pattern without ``/`` matches the file name; with ``/`` it matches the path (at any depth
    when it starts with ``**/``)."""
    name = relpath.rsplit("/", 1)[-1]
    for pattern in patterns:
        if _is_plain(pattern):
            if _parts_match(name, _star_parts(pattern)):
                return True
            continue
        target = relpath if "/" in pattern else name
        if glob_to_regex(pattern).match(target):
            return True
    return False


class Patterns:
    """:func:`matches_any` for many paths: the patterns are taken apart once, not for every path (a walk of a
    project for its workflow files asks about every file it lists)."""

    __slots__ = ("_globs", "_plain")

    def __init__(self, patterns: tuple[str, ...]) -> None:
        self._plain = tuple(_star_parts(pattern) for pattern in patterns if _is_plain(pattern))
        self._globs = tuple(pattern for pattern in patterns if not _is_plain(pattern))

    def match(self, relpath: str, name: str) -> bool:
        """What ``matches_any(relpath, patterns)`` says; ``name`` is the last part of ``relpath``."""
        for parts in self._plain:
            if _parts_match(name, parts):
                return True
        return any(glob_to_regex(pattern).match(relpath if "/" in pattern else name) for pattern in self._globs)


_PLAIN = frozenset("?[")
"""The characters that make a pattern other than literal text and ``*``: such a pattern (and one with
``**``) is matched with its regular expression (:func:`glob_to_regex`)."""


def _is_plain(pattern: str) -> bool:
    """Whether ``pattern`` is literal text and single ``*`` matching a file name (no ``/``, no ``**``)."""
    return "/" not in pattern and "**" not in pattern and _PLAIN.isdisjoint(pattern)


def _star_parts(pattern: str) -> tuple[str, tuple[str, ...], str, int]:
    """A plain pattern taken apart for :func:`_parts_match`: the text before its first ``*``, the texts
    between its ``*``, the text after its last one, and the shortest length a matching name has; a pattern
    without ``*`` is its own first and last part."""
    parts = pattern.split("*")
    if len(parts) == 1:
        return pattern, (), pattern, -1
    first, *middle, last = parts
    return first, tuple(middle), last, len(first) + len(last)


def _parts_match(name: str, parts: tuple[str, tuple[str, ...], str, int]) -> bool:
    """What ``glob_to_regex(pattern).match(name)`` says, for a plain pattern (:func:`_is_plain`, taken apart
    by :func:`_star_parts`) and a file name: without compiling an expression, which the hooks would pay for
    on every start (the default patterns, ``*ORCHESTRATION*.yaml``, are plain)."""
    first, middle, last, shortest = parts
    if shortest < 0:
        return name == first
    if len(name) < shortest or not name.startswith(first) or not name.endswith(last):
        return False
    position, end = len(first), len(name) - len(last)
    for part in middle:
        found = name.find(part, position, end)
        if found < 0:
            return False
        position = found + len(part)
    return True
