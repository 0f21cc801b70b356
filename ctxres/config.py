"""Configuration: ``[tool.ctxres]`` in ``pyproject.toml`` or the top level of ``.ctxres.toml``.

The nearest file upwards from the checked path wins (``.ctxres.toml`` before ``pyproject.toml``
in the same folder, as ruff does with ``ruff.toml``). Keys use kebab-case; unknown keys are an
error so a typo never silently disables a check.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib  # type: ignore[import-not-found,unused-ignore]

from ctxres import defaults
from ctxres.artifacts import DEFAULT_PATTERNS
from ctxres.folders import SKIPPED_FOLDERS

DEFAULT_EXCLUDE = SKIPPED_FOLDERS


class ConfigError(ValueError):
    """The configuration file is wrong; the message says where and what."""


@dataclass(frozen=True)
class Config:
    """Every setting, with the seeds' defaults."""

    root: Path = field(default_factory=Path.cwd)
    source: Path | None = None
    state_dir: str = defaults.STATE_DIR
    exclude: tuple[str, ...] = DEFAULT_EXCLUDE
    extend_exclude: tuple[str, ...] = ()
    respect_gitignore: bool = True
    select: tuple[str, ...] = ("ALL",)
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    severity: dict[str, str] = field(default_factory=dict)
    per_file_ignores: dict[str, tuple[str, ...]] = field(default_factory=dict)
    patterns: dict[str, tuple[str, ...]] = field(default_factory=lambda: dict(DEFAULT_PATTERNS))
    sniff_resumption: bool = True
    require_resumption: bool = False
    staleness_minutes: int = defaults.STALENESS_MINUTES
    max_file_size: int = 10 * 1024 * 1024
    strict: bool = False
    reinject_budget: int = 600  # tokens of all L2-REINJECT markers of a project, per prompt
    reinject_token_tolerance: int = 10  # percent that widens the chars/6..chars/3 range of a marker's tokens
    reinject_max_marker_tokens: int = 0  # tokens one marker may measure (R007); 0: no per-marker cap (opt-in)
    enforce_update_protocol: bool = False  # require the resumption-update reminder marker
    event_type_spelling: str = "any"  # agent-memory event types: "any", "underscore" or "hyphen"
    run_stale_after_days: int = 7  # an agent-memory run older than this gets a staleness warning
    profile: str = defaults.PROFILE  # which resumption system the hooks serve: "jerry" or "nexus"

    def with_overrides(self, **changes: Any) -> Config:
        return replace(self, **{k: v for k, v in changes.items() if v is not None})


_TUPLE_KEYS = {"exclude", "extend_exclude", "select", "extend_select", "ignore"}
_BOOL_KEYS = {"respect_gitignore", "sniff_resumption", "require_resumption", "strict", "enforce_update_protocol"}
_INT_KEYS = {
    "staleness_minutes",
    "max_file_size",
    "reinject_budget",
    "run_stale_after_days",
}
_CHOICES = {"event_type_spelling": ("any", "underscore", "hyphen"), "profile": ("jerry", "nexus")}
_NON_NEGATIVE_INT_KEYS = {"reinject_token_tolerance", "reinject_max_marker_tokens"}


def _string_list(value: Any, key: str, where: Path) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: `{key}` must be a list of strings")
    return tuple(value)


def _table(value: Any, key: str, where: Path) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: `{key}` must be a table")
    return value


def parse(table: dict[str, Any], root: Path, source: Path) -> Config:
    """Build a :class:`Config` from the ``[tool.ctxres]`` table (pure)."""
    known = {f.name for f in fields(Config)} - {"root", "source"}
    values: dict[str, Any] = {"root": root, "source": source}
    for raw_key, value in table.items():
        key = raw_key.replace("-", "_")
        if key not in known:
            raise ConfigError(f"{source}: unknown setting `{raw_key}` in ctxres configuration")
        if key in _TUPLE_KEYS:
            values[key] = _string_list(value, raw_key, source)
        elif key in _BOOL_KEYS:
            if not isinstance(value, bool):
                raise ConfigError(f"{source}: `{raw_key}` must be true or false")
            values[key] = value
        elif key in _INT_KEYS or key in _NON_NEGATIVE_INT_KEYS:
            lowest = 0 if key in _NON_NEGATIVE_INT_KEYS else 1
            if not isinstance(value, int) or isinstance(value, bool) or value < lowest:
                kind = "a positive integer" if lowest else "an integer >= 0"
                raise ConfigError(f"{source}: `{raw_key}` must be {kind}")
            values[key] = value
        elif key in _CHOICES:
            if value not in _CHOICES[key]:
                raise ConfigError(f"{source}: `{raw_key}` must be one of {', '.join(_CHOICES[key])}")
            values[key] = value
        elif key == "state_dir":
            if not isinstance(value, str) or not value:
                raise ConfigError(f"{source}: `state-dir` must be a non-empty string")
            values[key] = value
        elif key == "severity":
            sev = _table(value, raw_key, source)
            for code, level in sev.items():
                if level not in ("error", "warning"):
                    raise ConfigError(f'{source}: severity of {code} must be "error" or "warning"')
            values[key] = dict(sev)
        elif key == "per_file_ignores":
            values[key] = {
                glob: _string_list(codes, f"per-file-ignores.{glob}", source)
                for glob, codes in _table(value, raw_key, source).items()
            }
        elif key == "patterns":
            merged = dict(DEFAULT_PATTERNS)
            for kind, globs in _table(value, raw_key, source).items():
                if kind not in DEFAULT_PATTERNS:
                    raise ConfigError(
                        f"{source}: unknown artifact kind `{kind}` in patterns; known: {', '.join(DEFAULT_PATTERNS)}"
                    )
                merged[kind] = _string_list(globs, f"patterns.{kind}", source)
            values[key] = merged
    return Config(**values)


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            data: dict[str, Any] = tomllib.load(handle)
            return data
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror}") from None


def find_config(start: Path) -> tuple[dict[str, Any], Path, Path] | None:
    """The nearest ctxres table upwards from ``start``: (table, folder, file)."""
    folder = start.resolve()
    if folder.is_file():
        folder = folder.parent
    for candidate in (folder, *folder.parents):
        dedicated = candidate / ".ctxres.toml"
        if dedicated.is_file():
            return _read_toml(dedicated), candidate, dedicated
        pyproject = candidate / "pyproject.toml"
        if pyproject.is_file():
            table = _read_toml(pyproject).get("tool", {}).get("ctxres")
            if isinstance(table, dict):
                return table, candidate, pyproject
    return None


def load_config(start: Path, explicit: Path | None = None) -> Config:
    """The configuration that applies to ``start`` (or the file given with ``--config``)."""
    if explicit is not None:
        data = _read_toml(explicit)
        table = data.get("tool", {}).get("ctxres", {}) if explicit.name == "pyproject.toml" else data
        return parse(table, explicit.resolve().parent, explicit)
    found = find_config(start)
    if found is None:
        root = start.resolve()
        return Config(root=root if root.is_dir() else root.parent)
    table, folder, source = found
    return parse(table, folder, source)
