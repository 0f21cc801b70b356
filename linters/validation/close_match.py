"""The closest of some choices to a word: ``difflib.get_close_matches(word, choices, n=1)``, cheaper.

``get_close_matches`` gives every choice to a :class:`difflib.SequenceMatcher` and keeps it when three
ratios reach the cutoff: ``real_quick_ratio`` (from the lengths), ``quick_ratio`` (from the characters
both share, counted with repeats) and ``ratio`` (from the matching blocks). The first two are upper
bounds of the third; here they are computed from the lengths and the character counts of the choices,
counted once per set of choices, and only a choice that passes both goes to a ``SequenceMatcher``, as
before. The bounds are the same floats (``2.0 * matches / total``), so the same choices pass, with the
same ``ratio``, and the same one is picked (``heapq.nlargest`` of the same ``(ratio, choice)`` pairs).
"""

from __future__ import annotations

import difflib
import heapq
from collections import Counter
from functools import lru_cache


@lru_cache(maxsize=256)
def _counted(choices: tuple[str, ...]) -> tuple[tuple[str, int, dict[str, int]], ...]:
    return tuple((choice, len(choice), dict(Counter(choice))) for choice in choices)


def _ratio(matches: int, length: int) -> float:
    """``difflib._calculate_ratio``."""
    return 2.0 * matches / length if length else 1.0


def close_match(word: str, choices: tuple[str, ...], cutoff: float = 0.6) -> str:
    """``(difflib.get_close_matches(word, choices, n=1, cutoff=cutoff) or [""])[0]``."""
    if not 0.0 <= cutoff <= 1.0:
        raise ValueError(f"cutoff must be in [0.0, 1.0]: {cutoff!r}")
    size = len(word)
    counts: dict[str, int] | None = None
    matcher: difflib.SequenceMatcher[str] | None = None
    found: list[tuple[float, str]] = []
    for choice, length, choice_counts in _counted(choices):
        total = size + length
        if _ratio(min(size, length), total) < cutoff:  # real_quick_ratio
            continue
        if counts is None:
            counts = dict(Counter(word))
        shared = 0
        for char, number in choice_counts.items():
            other = counts.get(char)
            if other is not None:
                shared += number if number < other else other
        if _ratio(shared, total) < cutoff:  # quick_ratio
            continue
        if matcher is None:
            matcher = difflib.SequenceMatcher()
            matcher.set_seq2(word)
        matcher.set_seq1(choice)
        score = matcher.ratio()
        if score >= cutoff:
            found.append((score, choice))
    best = heapq.nlargest(1, found)
    return best[0][1] if best else ""
