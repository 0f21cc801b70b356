"""Which texts cannot hold a secret, decided line by line with a memory of the lines already cleared.

The state files of a repository repeat most of their lines (the keys of every ORCHESTRATION file, the
phases of every checkpoint): scanning each whole text with every recognizer of ``ctxres/redact.py``
scans the same lines again and again. :func:`may_hold_secrets` is a pre-filter for the linter only
(the hooks scan one text each and keep using :func:`ctxres.redact.find_secrets` directly): False means
``find_secrets(text) == []``, True means "scan it" (the caller then runs ``find_secrets`` on the whole
text, so what is reported does not change).

Why a line can be cleared on its own: the recognizers that cannot cross a line break (the fixed-shape
tokens, the password of a URL, the ``password: ...`` assignments) depend only on the line they are in
(``\\b`` and the look-behinds see a line break or the start of the text alike; an assignment's name,
"keyed" test and value stop at the line break), so ``find_secrets(line) == []`` rules them out for that
line. The ones whose patterns may cross a line break (PEM blocks, ``Bearer``, ``Authorization: Basic``,
AWS secret keys) are guarded in ``find_secrets`` by a word that must be somewhere in the text
(``PRIVATE KEY``, ``bearer``, ``authorization``, ``secret``): a line holding one of those words is never
cleared. The guards of the line-local ones (a hint such as ``sk-``, ``://`` and ``@``, or a secret word)
are inside every match, except when a case-insensitive secret word is spelled with a character that
matches an ASCII letter (``ſecret``, ``apİ_key``): a line with such a character is never cleared either.
A text none of whose lines holds a guard word, a folding character or a line-local secret holds no secret.
"""

from __future__ import annotations

import itertools

from ctxres.redact import find_secrets

_CLEARED: set[str] = set()
"""Lines known to hold neither a secret nor a guard word (this process; bounded by :data:`_MAX_LINES`)."""
# About 0.8 MB of typical lines, filled by a check's first thousand files or so. Once full it is kept, not
# emptied: the lines that recur are met in the first files, a line met later is scanned each time (a check's
# memory stays the same from a thousand files to ten thousand; emptying it would scan the recurring lines again).
_MAX_LINES = 8_192
_MAX_LENGTH = 256  # longer lines are checked each time, not remembered
_GUARDS = ("secret", "bearer", "authorization")  # lowercase words of the recognizers that cross lines
# The characters that match an ASCII letter case-insensitively (İ, ı, long s, Kelvin sign): through them a
# case-insensitive pattern matches a secret word whose line lacks the plain word its guard looks for.
_FOLDING = ("\u0130", "\u0131", "\u017f", "\u212a")


def line_may_hold_secrets(lines: str) -> bool:
    """Whether one of ``lines`` (joined by line breaks) holds a secret or a word that makes ``find_secrets``
    look past its line (pure). Without such a word no secret crosses a line break, so asking for the lines
    joined is asking for each of them."""
    if "PRIVATE KEY" in lines or (not lines.isascii() and any(char in lines for char in _FOLDING)):
        return True
    lower = lines.lower()
    return any(word in lower for word in _GUARDS) or bool(find_secrets(lines, lower))


def may_hold_secrets(text: str) -> bool:
    """False when ``find_secrets(text)`` is certainly empty; True when the text must be scanned whole."""
    new = set(text.split("\n")) - _CLEARED  # (difference_update would walk all of _CLEARED: this walks the text's)
    if not new:
        return False
    if line_may_hold_secrets("\n".join(new)):  # the same answer as asking line by line (see above)
        return True
    room = _MAX_LINES - len(_CLEARED)
    if room > 0:
        _CLEARED.update(itertools.islice((line for line in new if len(line) <= _MAX_LENGTH), room))
    return False


def forget() -> None:
    """Empty the memory of cleared lines (tests)."""
    _CLEARED.clear()
