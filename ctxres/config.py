"""Configuration: ``[tool.ctxres]`` in ``pyproject.toml`` or the top level of ``.ctxres.toml``.

The nearest file upwards from the checked path wins (``.ctxres.toml`` before ``pyproject.toml``
in the same folder, as ruff does with ``ruff.toml``). Keys use kebab-case; unknown keys are an
error so a typo never silently disables a check.

The core settings (those the hooks read too) are fields of :class:`Config`. What the loader knows of the
rules, it knows without importing them, from the tables below: every rule code (:data:`CODES`), the families
(:data:`FAMILIES`) and every rule option (:data:`OPTIONS`: ``Option[int]``, ``Option[bool]``,
``Option[str]``, with default, bounds or choices and help). The rule codes a configuration names and the
rule options it sets are checked against them when it loads, whatever else was imported; a rule reads its
option typed with :meth:`Config.value`. The rules are registered beside their checks in
``ctxres.linters.rules``, and each rule's options are declared in its module: registering a code
:data:`CODES` does not list is an error (``python dev/new_rule.py`` adds a new rule's code here), and
:data:`OPTIONS` is generated from the rule modules' options (``python dev/generate.py --write``; ``--check``
fails when it differs from them).

A selector (in ``--select``, the configuration, a suppression comment) is ``ALL``, a rule code or a prefix
of one (``C``, ``C0``, ``S01``), case-sensitive: :func:`selector_problem` says what is wrong with any other,
with a "did you mean" when a code or family is close.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from ctxres import config_file, defaults
from ctxres.artifacts import DEFAULT_PATTERNS
from ctxres.defaults import SKIPPED_FOLDERS
from ctxres.project import work_tree_top
from ctxres.records import FrozenRecord, init_field

# `ctxres check` loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Generic, TypeVar

    T = TypeVar("T", bool, int, str)
else:

    class Generic:  # the type parameter of Option is for the type checker only
        __slots__ = ()

        def __class_getitem__(cls, _item: object) -> type:
            return cls

    T = None

DEFAULT_EXCLUDE = SKIPPED_FOLDERS
ConfigError = config_file.ConfigError

# --- what the loader knows of the rules without importing them -------------------------------------------

ALL = "ALL"
"""The selector of every rule: in ``select``, ``ignore``, ``--select`` and suppression comments."""

FAMILIES: dict[str, str] = {
    "P": "Parsing",
    "C": "Conformance",
    "V": "Version compatibility",
    "A": "Acknowledgement",
    "S": "Staleness",
    "R": "Reinject markers",
    "L": "Layers",
    "T": "Templates",
    "M": "agent-memory",
    "N": "Nexus",
    "X": "Security",
    "I": "Inline suppressions",
    "H": "Hook settings",
}
"""The rule families by letter, in the order the rules are documented."""


def _listed(text: str) -> frozenset[str]:
    return frozenset(text.split())


CODES = _listed(
    """
    P001 P002 P003 P004 P005 P006 P007 P008 P009
    C001 C002 C003 C004 C005 C006 C007 C008 C009
    V001 V002 V003 V004 V005 V006 V007
    A001 A002 A003 A004 A005 A006 A007 A008 A009 A010 A011 A012 A013 A014
    S001 S002 S003 S004 S005 S006 S007 S008 S009 S010 S011 S012 S013 S014 S015 S016 S017
    R001 R002 R003 R004 R005 R006 R007 R008 R009
    L001 L002
    T001 T002 T003
    M001 M002 M003 M004 M005 M006 M007 M008 M009 M010 M011 M012 M013
    N001 N002 N003 N004 N005 N006 N007 N008 N009
    X001 X002
    I001 I002
    H001 H002 H003 H004 H005 H006 H007
    """
)
"""Every rule code (a family letter and three digits), one family a line."""


class Option(FrozenRecord, Generic[T]):
    """A rule option: its key in ``[tool.ctxres]`` (kebab-case), default, allowed values and help.

    Its type is that of the default (``Option[int]``, read with ``Config.value`` as an ``int``): a bool is
    true or false, an int is an integer >= ``minimum``, a string is one of ``choices``.
    """

    __slots__ = ("choices", "default", "help", "minimum", "name")

    name: str
    default: T
    help: str
    minimum: int
    choices: tuple[str, ...]

    def __init__(self, name: str, default: T, help: str, minimum: int = 0, choices: tuple[str, ...] = ()) -> None:
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

    def check(self, value: Any, where: Path | str, key: str = "") -> T:
        """``value`` if it is allowed, else a :class:`ConfigError` naming the key (as written) and what
        it must be."""
        if not self.valid(value):
            raise ConfigError(f"{where}: `{key or self.name}` must be {self.expected}")
        result: T = value
        return result

    def toml(self) -> str:
        """The default as it is written in ``[tool.ctxres]``."""
        if isinstance(self.default, bool):
            return f"{self.name} = {'true' if self.default else 'false'}"
        if isinstance(self.default, str):
            return f'{self.name} = "{self.default}"'
        return f"{self.name} = {self.default}"


# --- the rule options: generated by `python dev/generate.py --write` from the rule modules; do not edit -----
OPTIONS: dict[str, Option[Any]] = {
    "require-resumption": Option(
        "require-resumption",
        False,
        "every orchestration file (found by its name) must have a `resumption` section (C008)",
    ),
    "reinject-token-tolerance": Option(
        "reinject-token-tolerance",
        10,
        "percent that widens the plausible range of a marker's `tokens=` (characters/6 to characters/3)",
    ),
    "reinject-budget": Option(
        "reinject-budget",
        600,
        "tokens all L2-REINJECT markers of a project may measure",
        minimum=1,
    ),
    "reinject-max-marker-tokens": Option(
        "reinject-max-marker-tokens",
        0,
        "tokens one marker may measure; 0: no per-marker cap (opt-in)",
    ),
    "enforce-update-protocol": Option(
        "enforce-update-protocol",
        False,
        "require the marker that reminds of the resumption update protocol",
    ),
    "event-type-spelling": Option(
        "event-type-spelling",
        "any",
        "the spelling every event type must use",
        choices=("any", "underscore", "hyphen"),
    ),
    "run-stale-after-days": Option(
        "run-stale-after-days",
        7,
        "`ctxres runs` warns about a run idle for longer than this",
        minimum=1,
    ),
}
# --- end of the generated rule options ----------------------------------------------------------------------
"""Every rule option, by key: a copy of the options the rule modules declare beside their rules
(``register(options=...)``), so that the loader checks a configuration without importing a rule;
``python dev/generate.py --check`` fails when it differs from them."""


# --- selectors ---------------------------------------------------------------------------------------------


def selects_any(selector: str) -> bool:
    """``ALL``, a rule code, or a prefix of at least one (case-sensitive)."""
    return selector == ALL or (bool(selector) and any(code.startswith(selector) for code in CODES))


def selector_problem(selector: str, *, exact: bool = False) -> str | None:
    """None when ``selector`` selects a rule (``exact``: when it is a rule code), else what is wrong,
    with "did you mean" when a rule code or family is close (``c003``: ``C003``)."""
    if (selector in CODES) if exact else selects_any(selector):
        return None
    if exact and selects_any(selector):
        return f"{selector!r} is a prefix, not a rule code; write each code ({_example(selector)})"
    what = "rule code" if exact else "rule code or prefix"
    hint = suggestion(selector, exact=exact)
    tail = f"; did you mean {hint!r}?" if hint else " (`ctxres rules` lists the codes)"
    return f"unknown {what} {selector!r}{tail}"


def _example(prefix: str) -> str:
    codes = sorted(code for code in CODES if code.startswith(prefix) or prefix == ALL)
    return ", ".join(codes[:3]) + (", ..." if len(codes) > 3 else "")


def suggestion(selector: str, *, exact: bool = False) -> str | None:
    """The rule code, family letter or ``ALL`` that ``selector`` was probably meant to be."""
    import difflib  # only for a selector that is wrong

    upper = selector.strip().upper()
    candidates = sorted(CODES) if exact else [*sorted(CODES), *FAMILIES, ALL]
    if upper != selector and ((upper in CODES) if exact else selects_any(upper)):
        return upper
    close = difflib.get_close_matches(upper, candidates, n=1, cutoff=0.6)
    return close[0] if close else None


# --- the configuration ---------------------------------------------------------------------------------


def _check_codes(codes: Any, key: str, where: Path, *, exact: bool = False) -> None:
    """A :class:`ConfigError` naming the file (and line, when the code is written once) and the key, for
    the first code that selects no rule."""
    for code in codes:
        problem = selector_problem(code, exact=exact)
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
        "required_version",
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
    # Examples and templates (``ctxres.state.live.is_example_path``) are checked too; by default a walk
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
    required_version: str | None  # the ctxres versions the project needs (a PEP 440 specifier set); None: any

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
        required_version: str | None = None,
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
        init_field(self, "required_version", required_version)

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

    def value(self, option: Option[T]) -> T:
        """The rule option ``option`` (one of :data:`OPTIONS`): as configured, else its default."""
        if option.name not in self.options:
            return option.default
        return option.check(self.options[option.name], self.source or "configuration")


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
        elif key == "required_version":
            values[key] = config_file.required_version(value, source)
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
    checked: dict[str, Any] = {}
    for key, (raw_key, value) in table.items():
        spec = OPTIONS.get(key)
        if spec is None:
            raise ConfigError(f"{source}: unknown setting `{raw_key}` in ctxres configuration{_nearest(key)}")
        checked[key] = spec.check(value, source, raw_key)
    return checked


def _nearest(key: str) -> str:
    """``; did you mean `reinject-budget`?`` for a misspelt setting, among the core settings and the rule options."""
    import difflib

    known = sorted({name.replace("_", "-") for name in _CORE} | set(OPTIONS))
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

    here = os.path.abspath(cwd or Path.cwd())
    used, lost = (os.path.relpath(path, here).replace(os.sep, "/") for path in (config.source, ignored))
    return (
        f"ctxres: warning: the [tool.ctxres] table of {lost} is ignored: {used} in the same folder is read "
        f"instead; move its settings into {used} (or remove {used})"
    )
