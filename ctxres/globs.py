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
    to match the configured file patterns, and ``dataclasses`` costs ~15 ms of start-up."""

    __slots__ = ("anchored", "dir_only", "negate", "regex")

    def __init__(self, regex: re.Pattern[str], negate: bool, dir_only: bool, anchored: bool) -> None:
        self.regex = regex
        self.negate = negate
        self.dir_only = dir_only
        self.anchored = anchored


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
        rules.append(IgnoreRule(glob_to_regex(line), negate, dir_only, anchored))
    return rules


def is_ignored(relpath: str, is_dir: bool, rules: list[IgnoreRule]) -> bool:
    """Whether a ``/``-separated path relative to the rules' base is ignored (last match wins)."""
    ignored = False
    name = relpath.rsplit("/", 1)[-1]
    for rule in rules:
        if rule.dir_only and not is_dir:
            continue
        target = relpath if rule.anchored else name
        if rule.regex.match(target):
            ignored = not rule.negate
    return ignored


def matches_any(relpath: str, patterns: tuple[str, ...]) -> bool:
    """A pattern without ``/`` matches the file name; with ``/`` it matches the path (at any depth
    when it starts with ``**/``)."""
    name = relpath.rsplit("/", 1)[-1]
    for pattern in patterns:
        if "/" not in pattern and "**" not in pattern and _PLAIN.isdisjoint(pattern):
            if _star_match(name, pattern):
                return True
            continue
        target = relpath if "/" in pattern else name
        if glob_to_regex(pattern).match(target):
            return True
    return False


_PLAIN = frozenset("?[")
"""The characters that make a pattern other than literal text and ``*``: such a pattern (and one with
``**``) is matched with its regular expression (:func:`glob_to_regex`)."""


def _star_match(name: str, pattern: str) -> bool:
    """What ``glob_to_regex(pattern).match(name)`` says, for a pattern of literal text and single ``*``
    (no ``/``, no ``**``) and a file name: without compiling an expression, which
    the hooks would pay for on every start (the default patterns, ``*ORCHESTRATION*.yaml``, are such)."""
    parts = pattern.split("*")
    if len(parts) == 1:
        return name == pattern
    first, *middle, last = parts
    if len(name) < len(first) + len(last) or not name.startswith(first) or not name.endswith(last):
        return False
    position, end = len(first), len(name) - len(last)
    for part in middle:
        found = name.find(part, position, end)
        if found < 0:
            return False
        position = found + len(part)
    return True
