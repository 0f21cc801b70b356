"""PyYAML's pure Python reader compiles, when ``yaml`` is imported, one regular expression of every
non-printable character (``yaml.reader.Reader.NON_PRINTABLE``): 57M instructions, a sixth of what a
history command runs before its work, for a reader that reads only what libyaml cannot (see
:func:`ctxres.formats.yamlguard.loader_for`). :func:`defer_non_printable_pattern` has that pattern compiled
the first time it is used instead: ``re.compile`` returns what its cache holds for a pattern, and
the cache is given a stand-in that compiles the pattern (with the same flags) when first searched.

Only the command line calls it (``ctxres.linters``), before anything imports ``yaml``; when ``yaml``
was imported already, or ``re`` keeps no such cache, nothing changes.
"""

from __future__ import annotations

import re
import sys

# `ctxres check` loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

# As yaml/reader.py spells it (PyYAML 5.1 to 6.0.x).
NON_PRINTABLE = "[^\x09\x0a\x0d\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]"


class DeferredPattern:
    """Stands for ``re.compile(pattern)`` and compiles it when an attribute (``search``, ...) is first asked."""

    __slots__ = ("_compiled", "_pattern")

    def __init__(self, pattern: str) -> None:
        self._pattern = pattern
        self._compiled: re.Pattern[str] | None = None

    def __getattr__(self, name: str) -> Any:
        compiled = self._compiled
        if compiled is None:
            # re.UNICODE, the flag every str pattern gets: the same pattern, not this stand-in from the cache.
            compiled = self._compiled = re.compile(self._pattern, re.UNICODE)
        return getattr(compiled, name)


def defer_non_printable_pattern() -> None:
    """Give ``re``'s cache a :class:`DeferredPattern` for PyYAML's pattern of non-printable characters
    (nothing when ``yaml`` is imported already)."""
    if "yaml" in sys.modules:
        return
    cache = getattr(re, "_cache", None)
    if isinstance(cache, dict):
        cache.setdefault((str, NON_PRINTABLE, 0), DeferredPattern(NON_PRINTABLE))
