"""Configuration: ``[tool.ctxres]`` in ``pyproject.toml`` or the top level of ``.ctxres.toml``.

The nearest file upwards from the checked path wins (``.ctxres.toml`` before ``pyproject.toml``
in the same folder, as ruff does with ``ruff.toml``). Keys use kebab-case; unknown keys are an
error so a typo never silently disables a check.

The core settings (those the hooks read too) are fields of :class:`Config`. A rule's own options
are declared beside the rule (:class:`Option`, ``ctxres.linters.checking.registry.register(options=...)``),
checked here generically and read with :meth:`Config.option`. The hooks never import the rules:
without them the loader keeps the other keys as written (the hooks read none of them).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from ctxres import config_file, defaults
from ctxres.artifacts import DEFAULT_PATTERNS
from ctxres.defaults import SKIPPED_FOLDERS
from ctxres.project import work_tree_top
from ctxres.records import FrozenRecord, init_field

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is not imported at run time: about 2 ms of every start
    from typing import Any

DEFAULT_EXCLUDE = SKIPPED_FOLDERS
ALL = "ALL"
"""The selector of every rule: in ``select``, ``ignore``, ``--select`` and suppression comments."""


ConfigError = config_file.ConfigError


class Option(FrozenRecord):
    """A rule option: its key in ``[tool.ctxres]`` (kebab-case), default, allowed values and help.

    The kind follows the default: a bool is true or false, an int is an integer >= ``minimum``, a
    string is one of ``choices``.
    """

    __slots__ = ("choices", "default", "help", "minimum", "name")

    name: str
    default: bool | int | str
    help: str
    minimum: int
    choices: tuple[str, ...]

    def __init__(
        self,
        name: str,
        default: bool | int | str,
        help: str,
        minimum: int = 0,
        choices: tuple[str, ...] = (),
    ) -> None:
        init_field(self, "name", name)
        init_field(self, "default", default)
        init_field(self, "help", help)
        init_field(self, "minimum", minimum)
        init_field(self, "choices", choices)

    @property
    def expected(self) -> str:
        """What a value must be, as the error message says it."""
        if isinstance(self.default, bool):
            return "true or false"
        if isinstance(self.default, int):
            return "a positive integer" if self.minimum == 1 else f"an integer >= {self.minimum}"
        return f"one of {', '.join(self.choices)}"

    def valid(self, value: Any) -> bool:
        if isinstance(self.default, bool):
            return isinstance(value, bool)
        if isinstance(self.default, int):
            return isinstance(value, int) and not isinstance(value, bool) and value >= self.minimum
        return value in self.choices

    def check(self, value: Any, where: Path | str, key: str = "") -> Any:
        """``value`` if it is allowed, else a :class:`ConfigError` naming the key (as written) and what
        it must be."""
        if not self.valid(value):
            raise ConfigError(f"{where}: `{key or self.name}` must be {self.expected}")
        return value

    def toml(self) -> str:
        """The default as it is written in ``[tool.ctxres]``."""
        if isinstance(self.default, bool):
            return f"{self.name} = {'true' if self.default else 'false'}"
        if isinstance(self.default, str):
            return f'{self.name} = "{self.default}"'
        return f"{self.name} = {self.default}"


OPTIONS: dict[str, Option] = {}
"""Every declared rule option, by key: filled by the rule modules when they are imported."""

_rule_loader: Callable[[], object] | None = None


def declare(option: Option) -> Option:
    """Add a rule option (the rule registry does, for the options of the rules it registers)."""
    if option.name.replace("-", "_") in _CORE:
        raise ValueError(f"rule option `{option.name}` is a core setting")
    if not option.valid(option.default):
        raise ValueError(f"the default of rule option `{option.name}` is not {option.expected}")
    if OPTIONS.setdefault(option.name, option) != option:
        raise ValueError(f"rule option `{option.name}` declared twice, differently")
    return option


def use_rule_options(loader: Callable[[], object]) -> None:
    """Check rule options against the declarations; ``loader`` imports every rule module.

    The linters call this when they are imported; until then (the hooks) the loader keeps the keys it
    does not know unchecked in :attr:`Config.options`.
    """
    global _rule_loader
    _rule_loader = loader


_code_check: Callable[[str, bool], str | None] | None = None


def use_code_check(check: Callable[[str, bool], str | None]) -> None:
    """Check every rule code the configuration names: ``check(selector, exact)`` says what is wrong with
    it (``exact``: a rule code, not a prefix), or None. The linters set it; the hooks read no code."""
    global _code_check
    _code_check = check


def _check_codes(codes: Any, key: str, where: Path, *, exact: bool = False) -> None:
    """A :class:`ConfigError` naming the file (and line, when the code is written once) and the key, for
    the first code that selects no rule."""
    check = _code_check
    if check is None:
        return
    for code in codes:
        problem = check(code, exact)
        if problem:
            raise ConfigError(f"{_located(where, code)}: `{key}`: {problem}")


def _located(path: Path, token: str) -> str:
    """``path:line:col`` of ``token`` when it is written exactly once in the file, else ``path``."""
    try:
        lines = path.read_text("utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return str(path)
    pattern = re.compile(r"(?<![\w-])" + re.escape(token) + r"(?![\w-])")
    hits = [(n, m.start() + 1) for n, line in enumerate(lines, 1) for m in pattern.finditer(line.split("#")[0])]
    return f"{path}:{hits[0][0]}:{hits[0][1]}" if len(hits) == 1 else str(path)


def _declared() -> dict[str, Option] | None:
    """The declared rule options, or None when the rules are not loaded (the hooks)."""
    if _rule_loader is None:
        return None
    _rule_loader()
    return OPTIONS


class Config(FrozenRecord):
    """Every setting, with its default."""

    __slots__ = (
        "baseline",
        "check_examples",
        "exclude",
        "extend_exclude",
        "extend_select",
        "force_exclude",
        "ignore",
        "live_workflow",
        "max_file_size",
        "options",
        "patterns",
        "per_file_ignores",
        "profile",
        "respect_gitignore",
        "root",
        "select",
        "severity",
        "sniff_resumption",
        "source",
        "staleness_minutes",
        "state_dir",
        "strict",
    )

    root: Path
    source: Path | None
    state_dir: str
    exclude: tuple[str, ...]
    extend_exclude: tuple[str, ...]
    respect_gitignore: bool
    force_exclude: bool  # files named on the command line are filtered by the excludes too
    # Examples and templates (``ctxres.state.orchestration.is_example_path``) are checked too; by default a walk
    # of a folder skips them, as the hooks never take one for the live workflow.
    check_examples: bool
    select: tuple[str, ...]
    extend_select: tuple[str, ...]
    ignore: tuple[str, ...]
    severity: dict[str, str]
    per_file_ignores: dict[str, tuple[str, ...]]
    patterns: dict[str, tuple[str, ...]]
    sniff_resumption: bool
    staleness_minutes: int
    max_file_size: int
    strict: bool
    profile: str  # which resumption system the hooks serve: "jerry" or "nexus"
    live_workflow: str | None  # the workflow file every command and hook acts on, relative to `root`; None: search
    options: dict[str, Any]  # rule options set, by key (``reinject-budget``)
    baseline: str  # the baseline file, relative to the configuration file (without one: to the git root)

    def __init__(
        self,
        root: Path | None = None,
        source: Path | None = None,
        state_dir: str = defaults.STATE_DIR,
        exclude: tuple[str, ...] = DEFAULT_EXCLUDE,
        extend_exclude: tuple[str, ...] = (),
        respect_gitignore: bool = True,
        force_exclude: bool = False,
        check_examples: bool = False,
        select: tuple[str, ...] = (ALL,),
        extend_select: tuple[str, ...] = (),
        ignore: tuple[str, ...] = (),
        severity: dict[str, str] | None = None,
        per_file_ignores: dict[str, tuple[str, ...]] | None = None,
        patterns: dict[str, tuple[str, ...]] | None = None,
        sniff_resumption: bool = True,
        staleness_minutes: int = defaults.STALENESS_MINUTES,
        max_file_size: int = 10 * 1024 * 1024,
        strict: bool = False,
        profile: str = defaults.PROFILE,
        live_workflow: str | None = None,
        options: dict[str, Any] | None = None,
        baseline: str = defaults.BASELINE,
    ) -> None:
        init_field(self, "root", Path.cwd() if root is None else root)
        init_field(self, "source", source)
        init_field(self, "state_dir", state_dir)
        init_field(self, "exclude", exclude)
        init_field(self, "extend_exclude", extend_exclude)
        init_field(self, "respect_gitignore", respect_gitignore)
        init_field(self, "force_exclude", force_exclude)
        init_field(self, "check_examples", check_examples)
        init_field(self, "select", select)
        init_field(self, "extend_select", extend_select)
        init_field(self, "ignore", ignore)
        init_field(self, "severity", {} if severity is None else severity)
        init_field(self, "per_file_ignores", {} if per_file_ignores is None else per_file_ignores)
        init_field(self, "patterns", dict(DEFAULT_PATTERNS) if patterns is None else patterns)
        init_field(self, "sniff_resumption", sniff_resumption)
        init_field(self, "staleness_minutes", staleness_minutes)
        init_field(self, "max_file_size", max_file_size)
        init_field(self, "strict", strict)
        init_field(self, "profile", profile)
        init_field(self, "live_workflow", live_workflow)
        init_field(self, "options", {} if options is None else options)
        init_field(self, "baseline", baseline)

    @property
    def pinned_workflow(self) -> str | None:
        """The file ``live-workflow`` pins (absolute: relative to the configuration file's folder), or None."""
        return None if self.live_workflow is None else str(self.root / self.live_workflow)

    @property
    def pinned_by(self) -> str:
        """Where the pin is set, as every command and hook says it: ``live-workflow in pyproject.toml``."""
        return f"live-workflow in {self.source.name if self.source else 'the configuration'}"

    def with_overrides(self, **changes: Any) -> Config:
        return self.replace(**{k: v for k, v in changes.items() if v is not None})

    def option(self, name: str) -> Any:
        """The rule option ``name`` (kebab-case): as configured, else its declared default."""
        spec = OPTIONS.get(name) or (_declared() or {}).get(name)
        if spec is None:
            raise KeyError(f"no rule declares the option `{name}`")
        if name not in self.options:
            return spec.default
        return spec.check(self.options[name], self.source or "configuration")


_TUPLE_KEYS = {"exclude", "extend_exclude", "select", "extend_select", "ignore"}
_CODE_KEYS = {"select", "extend_select", "ignore"}
_BOOL_KEYS = {"respect_gitignore", "force_exclude", "check_examples", "sniff_resumption", "strict"}
_INT_KEYS = {"staleness_minutes", "max_file_size"}
_CHOICES = {"profile": config_file.PROFILES}
_CORE = set(Config.fields()) - {"root", "source", "options"}


def parse(table: dict[str, Any], root: Path, source: Path) -> Config:
    """Build a :class:`Config` from the ``[tool.ctxres]`` table (pure)."""
    values: dict[str, Any] = {"root": root, "source": source}
    rule_options: dict[str, tuple[str, Any]] = {}
    for raw_key, value in table.items():
        key = raw_key.replace("-", "_")
        if key not in _CORE:
            rule_options[raw_key.replace("_", "-")] = (raw_key, value)
        elif key in _TUPLE_KEYS:
            values[key] = config_file.string_list(value, raw_key, source)
            if key in _CODE_KEYS:
                _check_codes(values[key], raw_key, source)
        elif key in _BOOL_KEYS:
            if not isinstance(value, bool):
                raise ConfigError(f"{source}: `{raw_key}` must be true or false")
            values[key] = value
        elif key in _INT_KEYS:
            values[key] = config_file.positive_int(value, raw_key, source)
        elif key in _CHOICES:
            values[key] = config_file.choice(value, raw_key, source, _CHOICES[key])
        elif key == "state_dir":
            values[key] = config_file.state_dir(value, source)
        elif key == "baseline":
            if not isinstance(value, str) or not value.strip():
                raise ConfigError(f"{source}: `baseline` must be the path of a file, relative to this file")
            values[key] = value
        elif key == "live_workflow":
            values[key] = config_file.live_workflow(value, raw_key, source)
        elif key == "severity":
            sev = config_file.table(value, raw_key, source)
            for code, level in sev.items():
                if level not in ("error", "warning"):
                    raise ConfigError(f'{_located(source, code)}: `severity`: {code} must be "error" or "warning"')
            _check_codes(sev, raw_key, source, exact=True)
            values[key] = dict(sev)
        elif key == "per_file_ignores":
            values[key] = {
                glob: config_file.string_list(codes, f"per-file-ignores.{glob}", source)
                for glob, codes in config_file.table(value, raw_key, source).items()
            }
            for glob, codes in values[key].items():
                _check_codes(codes, f'{raw_key}."{glob}"', source)
        elif key == "patterns":
            merged = dict(DEFAULT_PATTERNS)
            for kind, globs in config_file.table(value, raw_key, source).items():
                if kind not in DEFAULT_PATTERNS:
                    raise ConfigError(
                        f"{source}: unknown artifact kind `{kind}` in patterns; known: {', '.join(DEFAULT_PATTERNS)}"
                    )
                merged[kind] = config_file.string_list(globs, f"patterns.{kind}", source)
            values[key] = merged
    values["options"] = check_options(rule_options, source)
    return Config(**values)


def check_options(table: dict[str, tuple[str, Any]], source: Path) -> dict[str, Any]:
    """The rule options of a configuration (key: (key as written, value)), checked against their
    declarations: an undeclared key is unknown, a value of the wrong kind names what it must be."""
    declared = _declared()
    if declared is None:  # the hooks: no rule is loaded, and they read no rule option
        return {key: value for key, (_, value) in table.items()}
    checked: dict[str, Any] = {}
    for key, (raw_key, value) in table.items():
        spec = declared.get(key)
        if spec is None:
            raise ConfigError(f"{source}: unknown setting `{raw_key}` in ctxres configuration{_nearest(key, declared)}")
        checked[key] = spec.check(value, source, raw_key)
    return checked


def _nearest(key: str, declared: dict[str, Option]) -> str:
    """``; did you mean `reinject-budget`?`` for a misspelt setting, among the core settings and the rule options."""
    import difflib

    known = sorted({name.replace("_", "-") for name in _CORE} | set(declared))
    close = difflib.get_close_matches(key, known, n=1, cutoff=0.7)
    return f"; did you mean `{close[0]}`?" if close else ""


def find_config(start: Path) -> tuple[dict[str, Any], Path, Path] | None:
    """The nearest ctxres table upwards from ``start``: (table, folder, file)."""
    found = config_file.find_table(str(start))
    if found is None:
        return None
    table, folder, source = found
    return table, Path(folder), Path(source)


def load_config(start: Path, explicit: Path | None = None) -> Config:
    """The configuration that applies to ``start`` (or the file given with ``--config``)."""
    if explicit is not None:
        data = config_file.read_toml(explicit)
        table = data.get("tool", {}).get("ctxres", {}) if explicit.name == defaults.PYPROJECT else data
        return parse(table, explicit.resolve().parent, explicit)
    found = find_config(start)
    if found is None:
        return Config(root=project_folder(start))
    table, folder, source = found
    return parse(table, folder, source)


def project_folder(start: Path) -> Path:
    """The folder of the project that holds ``start`` (a file or a folder), whatever the working folder: that
    of the configuration file found upwards from it, else the top of its git work tree, else ``start``'s
    folder (as ruff finds its configuration and pre-commit its repository). Every command that acts on the
    project as a whole (its settings, rule files, state folder, baseline) starts from here."""
    found = find_config(start)
    if found is not None:
        return found[1]
    here = start.resolve()
    folder = here if here.is_dir() else here.parent
    top = work_tree_top(str(folder))
    return Path(top) if top is not None else folder


def shadowed_pyproject(config: Config) -> Path | None:
    """The ``pyproject.toml`` whose ``[tool.ctxres]`` table the configuration in effect ignores: one beside the
    ``.ctxres.toml`` that is read (that file wins in its folder, as ``ruff.toml`` wins over ``pyproject.toml``);
    None when there is none. Its settings are lost without this: say so."""
    source = config.source
    if source is None or source.name != defaults.CONFIG_FILE:
        return None
    pyproject = source.parent / defaults.PYPROJECT
    if not pyproject.is_file() or not config_file.may_hold_table(pyproject.read_bytes()):
        return None
    try:
        table = config_file.read_toml(pyproject).get("tool", {}).get("ctxres")
    except ConfigError:
        return None
    return pyproject if isinstance(table, dict) else None


def shadowed_warning(config: Config, cwd: Path | None = None) -> str | None:
    """The one-line warning of :func:`shadowed_pyproject` (paths relative to ``cwd``), or None."""
    ignored = shadowed_pyproject(config)
    if ignored is None or config.source is None:
        return None
    import os

    here = os.path.abspath(cwd or Path.cwd())
    used, lost = (os.path.relpath(path, here).replace(os.sep, "/") for path in (config.source, ignored))
    return (
        f"ctxres: warning: the [tool.ctxres] table of {lost} is ignored: {used} in the same folder is read "
        f"instead; move its settings into {used} (or remove {used})"
    )
