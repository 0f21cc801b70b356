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

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover - typing is not imported at run time (hooks' start-up cost)
    from typing import Any

PROFILES = ("jerry", "nexus")


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
    """Whether the file could hold a ``ctxres`` key: its bytes hold the name, or a ``\\u`` escape that could
    spell it in a quoted key. Most ``pyproject.toml`` files have no ctxres table and are not parsed at all
    (importing the TOML parser costs a few milliseconds of every check); an unreadable one is parsed, and
    reported as such."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return True
    return b"ctxres" in data or b"\\u" in data or b"\\U" in data


def find_table(start: str) -> tuple[dict[str, Any], str, str] | None:
    """The nearest ctxres table upwards from ``start`` (a folder or a file): (table, folder, file).

    ``.ctxres.toml`` wins over ``pyproject.toml`` in the same folder; a ``pyproject.toml`` without a
    ``[tool.ctxres]`` table does not count, and one that does not name ctxres at all is not parsed (so its
    TOML errors are not ours to report).
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


def state_dir(value: Any, where: object) -> str:
    if not isinstance(value, str) or not value:
        raise ConfigError(f"{where}: `state-dir` must be a non-empty string")
    return value
