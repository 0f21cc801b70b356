"""The ``required-version`` setting: the ctxres version a repository needs, as a PEP 440 specifier set.

Like ruff's ``required-version``: ``">=0.2"``, ``"==0.2.*"``, ``"~=0.2"``, ``">=0.1, <0.3"``; a bare version
(``"0.2.0"``) means ``==``. Standard library only (the hooks check it on their path, where importing
``packaging`` would cost their start-up): the specifiers and versions of PEP 440 that a version pin needs
(release numbers, ``aN``/``bN``/``rcN`` pre-releases, ``.postN``, ``.devN``; no epochs or local labels).
"""

from __future__ import annotations

import re
from typing import Any

SETTING = "required-version"
_VERSION = re.compile(
    r"^v?(?P<release>\d+(?:\.\d+)*)(?:[-_.]?(?P<pre>a|b|c|rc|alpha|beta|pre|preview)[-_.]?(?P<pre_n>\d*))?"
    r"(?:[-_.]?(?:post|rev|r)[-_.]?(?P<post>\d*))?(?:[-_.]?dev[-_.]?(?P<dev>\d*))?$",
    re.IGNORECASE,
)
_CLAUSE = re.compile(r"^\s*(?P<op>===|==|!=|~=|>=|<=|>|<)?\s*(?P<version>[^\s,]+)\s*$")
_PRE = {"a": 0, "alpha": 0, "b": 1, "beta": 1, "c": 2, "rc": 2, "pre": 2, "preview": 2}


class VersionError(ValueError):
    """Not a version or specifier set ctxres understands; the message says which part."""


def _key(version: str) -> tuple[Any, ...]:
    """An ordering key of a PEP 440 version (``dev`` < pre-release < release < ``post``)."""
    match = _VERSION.match(version.strip())
    if match is None:
        raise VersionError(f"{version!r} is not a version")
    release = [int(part) for part in match["release"].split(".")]
    while len(release) > 1 and release[-1] == 0:
        release.pop()
    dev = match["dev"]
    pre: tuple[int, ...]
    if match["pre"]:
        pre = (1, _PRE[match["pre"].lower()], int(match["pre_n"] or 0))
    elif dev is not None and match["post"] is None:
        pre = (0,)  # 1.0.dev0 comes before 1.0a0
    else:
        pre = (2,)
    post = -1 if match["post"] is None else int(match["post"] or 0)
    return (tuple(release), pre, post, float("inf") if dev is None else int(dev or 0))


def _release(version: str) -> list[int]:
    match = _VERSION.match(version.strip())
    if match is None:
        raise VersionError(f"{version!r} is not a version")
    return [int(part) for part in match["release"].split(".")]


def _prefix_match(installed: str, prefix: str) -> bool:
    """``==PREFIX.*``: the installed release starts with the prefix's numbers (zeros padded)."""
    wanted = _release(prefix)
    have = _release(installed) + [0] * len(wanted)
    return have[: len(wanted)] == wanted


def _clause_holds(installed: str, op: str, version: str) -> bool:
    if op == "===":
        return installed.strip() == version
    if version.endswith(".*"):
        matched = _prefix_match(installed, version[:-2])
        return matched if op == "==" else not matched
    have, want = _key(installed), _key(version)
    if op == "~=":
        parts = _release(version)
        return have >= want and _prefix_match(installed, ".".join(map(str, parts[:-1])))
    return {
        "==": have == want,
        "!=": have != want,
        ">=": have >= want,
        "<=": have <= want,
        ">": have > want,
        "<": have < want,
    }[op]


def clauses(specifier: str) -> list[tuple[str, str]]:
    """The (operator, version) clauses of a specifier set; a bare version is ``==``. :class:`VersionError`
    when one cannot be read."""
    found = []
    for part in specifier.split(","):
        match = _CLAUSE.match(part)
        if match is None:
            raise VersionError(f"{part.strip()!r} is not a version specifier (like >=0.2 or ==0.2.*)")
        op, version = match["op"] or "==", match["version"]
        (_release if version.endswith(".*") else _key)(version.removesuffix(".*"))  # readable, else VersionError
        if version.endswith(".*") and op not in ("==", "!="):
            raise VersionError(f"`{op}{version}`: a `.*` version goes only with == or !=")
        if op == "~=" and len(_release(version)) < 2:
            raise VersionError(f"`~={version}` needs at least two release numbers")
        found.append((op, version))
    return found


def satisfies(installed: str, specifier: str) -> bool:
    """Whether the installed version satisfies every clause of the specifier set."""
    return all(_clause_holds(installed, op, version) for op, version in clauses(specifier))


def check_setting(value: object, where: object) -> str:
    """The ``required-version`` value, checked: a string that reads as a specifier set; else a ValueError
    naming the setting and what it must be."""
    if not isinstance(value, str) or not value.strip():
        raise VersionError(f'{where}: `{SETTING}` must be a version specifier, like ">=0.2" or "==0.2.*"')
    try:
        clauses(value)
    except VersionError as exc:
        raise VersionError(f"{where}: `{SETTING}`: {exc}") from None
    return value.strip()


def unmet(installed: str, specifier: str, source: str) -> str | None:
    """The one sentence said when the installed ctxres does not satisfy the repository's pin, else None."""
    if satisfies(installed, specifier):
        return None
    return (
        f"this repository requires ctxres {specifier} ({SETTING} in {source}), and ctxres {installed} is "
        f"installed: upgrade it (`pip install -U 'ctxres{_pip_spec(specifier)}'`, or `uv tool upgrade ctxres`)"
    )


def _pip_spec(specifier: str) -> str:
    return ",".join(op + version for op, version in clauses(specifier))
