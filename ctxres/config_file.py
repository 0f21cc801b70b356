"""The ctxres configuration file: finding it, reading it, and checking the values of the core settings
(standard library only; no ``pathlib`` or ``dataclasses``).

A configured project's hooks read their settings (``state-dir``, ``staleness-minutes``, ``profile``, the
``orchestration`` patterns) on every event through this module, without the full configuration model
of :mod:`ctxres.config` (its imports cost a hook about 100 million instructions, 20 ms). That model is
built on this module: the same file is found, and each setting is checked by the same function.
"""

from __future__ import annotations

import os

from ctxres.defaults import CONFIG_FILE, PYPROJECT

# A hook loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

PROFILES = ("jerry", "nexus")
# Every setting a configuration may hold (kebab-case): the core settings of ``ctxres.config.Config`` and the
# options the rules declare. The hooks read a few of them and must still tell a misspelt one without importing
# the rules (each costs a hook's start-up); a test keeps this list equal to the model's and the rules' own.
SETTING_NAMES = frozenset(
    {
        "baseline",
        "check-examples",
        "exclude",
        "extend-exclude",
        "extend-select",
        "force-exclude",
        "ignore",
        "live-workflow",
        "max-file-size",
        "patterns",
        "per-file-ignores",
        "profile",
        "required-version",
        "respect-gitignore",
        "select",
        "severity",
        "sniff-resumption",
        "staleness-minutes",
        "state-dir",
        "strict",
        # rule options
        "enforce-update-protocol",
        "event-type-spelling",
        "reinject-budget",
        "reinject-max-marker-tokens",
        "reinject-token-tolerance",
        "require-resumption",
        "run-stale-after-days",
    }
)


def unknown_setting(table: dict[str, Any], source: object) -> str | None:
    """The error ``ctxres check`` reports for the first key of ``table`` that is no setting, or None."""
    for raw_key in table:
        if raw_key.replace("_", "-") not in SETTING_NAMES:
            return f"{source}: unknown setting `{raw_key}` in ctxres configuration"
    return None


class ConfigError(ValueError):
    """The configuration file is wrong; the message says where and what."""


def read_toml(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The TOML document at ``path``; :class:`ConfigError` when it cannot be read or parsed."""
    import sys

    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on Python 3.10 only
        import tomli as tomllib  # type: ignore[import-not-found,unused-ignore]
    try:
        with open(path, "rb") as handle:
            data: dict[str, Any] = tomllib.load(handle)
            return data
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror}") from None


def _may_name_ctxres(path: str) -> bool:
    """Whether the file could hold a ``[tool.ctxres]`` table (:func:`may_hold_table`); an unreadable one
    could, and is parsed (and reported as such)."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return True
    return may_hold_table(data)


def may_hold_table(data: bytes) -> bool:
    """Whether a ``pyproject.toml`` could define ``tool.ctxres``, in any of the ways TOML allows: a table header
    (``[tool.ctxres]``, ``[tool.ctxres.patterns]``, quoted names, spaces around the dot), a dotted key
    (``tool.ctxres.state-dir = ...``), an inline table (``tool = {ctxres = ...}``, one line in TOML), or a
    ``[tool]`` table with a ``ctxres`` key; or a ``\\u`` escape, which could spell either name in a quoted key.

    Most ``pyproject.toml`` files have no ctxres table (a project that lists ctxres among its dependencies or
    scripts names it as a value or another table's key): they are not parsed at all, and so neither the TOML
    parser nor ``typing`` (which it imports) is loaded, a few milliseconds of every check."""
    if b"\\u" in data or b"\\U" in data:
        return True
    if b"ctxres" not in data:
        return False
    import re

    # (a header left unclosed, `[tool.ctxres`, counts: it is parsed, and reported as invalid TOML)
    tool, ctxres, blank, end = rb"""["']?tool["']?""", rb"""["']?ctxres["']?""", rb"[ \t]*", rb"(?![\w-])"
    forms = (
        rb"^" + blank + rb"\[" + blank + tool + blank + rb"\." + blank + ctxres + end,  # header
        rb"^" + blank + tool + blank + rb"\." + blank + ctxres + end,  # dotted key
        rb"^" + blank + tool + blank + rb"=" + blank + rb"\{[^\n]*ctxres",  # inline table
    )
    if re.search(b"|".join(forms), data, re.MULTILINE):
        return True
    tool_table = rb"^" + blank + rb"\[" + blank + tool + blank + rb"\]"
    ctxres_key = rb"^" + blank + ctxres + end
    return bool(re.search(tool_table, data, re.MULTILINE) and re.search(ctxres_key, data, re.MULTILINE))


def find_table(start: str) -> tuple[dict[str, Any], str, str] | None:
    """The nearest ctxres table upwards from ``start`` (a folder or a file): (table, folder, file).

    ``.ctxres.toml`` wins over ``pyproject.toml`` in the same folder; a ``pyproject.toml`` without a
    ``[tool.ctxres]`` table does not count, and one that could not define it (:func:`may_hold_table`) is not
    parsed (so its TOML errors are not ours to report).
    """
    folder = os.path.realpath(start)
    if os.path.isfile(folder):
        folder = os.path.dirname(folder)
    while True:
        dedicated = os.path.join(folder, CONFIG_FILE)
        if os.path.isfile(dedicated):
            return read_toml(dedicated), folder, dedicated
        pyproject = os.path.join(folder, PYPROJECT)
        if os.path.isfile(pyproject) and _may_name_ctxres(pyproject):
            table = read_toml(pyproject).get("tool", {}).get("ctxres")
            if isinstance(table, dict):
                return table, folder, pyproject
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def string_list(value: Any, key: str, where: object) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: `{key}` must be a list of strings")
    return tuple(value)


def table(value: Any, key: str, where: object) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: `{key}` must be a table")
    return value


def positive_int(value: Any, key: str, where: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ConfigError(f"{where}: `{key}` must be a positive integer")
    return value


def choice(value: Any, key: str, where: object, choices: tuple[str, ...]) -> str:
    if value not in choices:
        raise ConfigError(f"{where}: `{key}` must be one of {', '.join(choices)}")
    return str(value)


def live_workflow(value: Any, key: str, where: object) -> str:
    """The ``live-workflow`` setting: a non-empty path relative to the configuration file's folder
    (an absolute path would name one machine's checkout in a committed file)."""
    if not isinstance(value, str) or not value.strip() or "\x00" in value:
        raise ConfigError(f"{where}: `{key}` must be a non-empty path, relative to the folder of this file")
    if os.path.isabs(value) or value.startswith(("/", "\\")) or (len(value) > 1 and value[1] == ":"):
        raise ConfigError(f"{where}: `{key}` must be relative to the folder of this file, not an absolute path")
    return value


def required_version(value: Any, where: object) -> str:
    """The ``required-version`` setting: a PEP 440 specifier set (:mod:`ctxres.formats.versions`)."""
    from ctxres.formats.versions import VersionError, check_setting

    try:
        return check_setting(value, where)
    except VersionError as exc:
        raise ConfigError(str(exc)) from None


def state_dir(value: Any, where: object) -> str:
    if not isinstance(value, str) or not value:
        raise ConfigError(f"{where}: `state-dir` must be a non-empty string")
    return value


# --- required-version: the ctxres versions a repository needs (ctxres.formats.versions matches them) ---


def required(start: str) -> tuple[str, str] | None:
    """The ``required-version`` of the configuration that applies to ``start`` (a folder): (specifier, the
    file's name); None when none is set, or when the configuration cannot be read (the command reports that)."""
    if not _may_be_pinned(start):
        return None
    try:
        found = find_table(start)
    except ConfigError:
        return None
    if found is None:
        return None
    table, _, source = found
    from ctxres.formats.versions import SETTING, VersionError, check_setting

    value = table.get(SETTING, table.get(SETTING.replace("-", "_")))
    if value is None:
        return None
    try:
        return check_setting(value, source), source
    except VersionError:
        return None  # the command's configuration error says it


def _may_be_pinned(start: str) -> bool:
    """Whether a configuration file from ``start`` up could set ``required-version``: most repositories set
    none, and then no TOML is parsed (every command asks, ``audit-history`` and ``check`` too)."""
    folder = os.path.realpath(start)
    while True:
        for name in (".ctxres.toml", "pyproject.toml"):
            try:
                with open(os.path.join(folder, name), "rb") as handle:
                    data = handle.read()
            except OSError:
                continue
            if b"required" in data or b"\\u" in data or b"\\U" in data:
                return True
        parent = os.path.dirname(folder)
        if parent == folder:
            return False
        folder = parent


def problem_here(start: str) -> str | None:
    """:func:`unmet` for the configuration that applies to ``start`` and this ctxres; None when it is met."""
    from ctxres import __version__

    pin = required(start)
    if pin is None:
        return None
    from ctxres.formats.versions import unmet

    return unmet(__version__, pin[0], os.path.basename(pin[1]))
