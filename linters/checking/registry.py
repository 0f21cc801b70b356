"""The rule registry: every rule has a stable code, a default severity, a summary and a doc page.

Codes are a family letter and three digits. Families (``ctxres.config.FAMILIES``):

====== =========================================================
``P``  Parsing: the file cannot be read, or is read with a problem
``C``  Conformance: the content does not match its JSON Schema
``V``  Version compatibility of resumption sections (v1.0 / v2.0)
``A``  Checkpoint acknowledgement consistency
``S``  Staleness and cross-section consistency
``R``  L2-REINJECT markers
``L``  Enforcement layers
``T``  Template budgets
``M``  agent-memory runs
``N``  Nexus resume manifests
``X``  Security
``I``  Inline suppression comments
====== =========================================================

A rule's code and options are listed in ``ctxres.config`` too, where the configuration loader reads them
without importing the rules; :func:`register` refuses a code or an option that table does not hold. Each
check is declared beside its rules (:func:`document_check`, :func:`section_check`, :func:`workspace_check`)
with the codes it may report and the kinds it reads; the engine reads :data:`CHECKS`.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable

from ctxres.config import ALL, CODES, FAMILIES, Option
from ctxres.findings import Finding, Severity
from ctxres.linters.checking.severity_policy import Case
from ctxres.records import FrozenRecord, init_field

# `ctxres check` loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TypeVar

_CODE = re.compile(r"^[A-Z]\d{3}$")


class Rule(FrozenRecord):
    """A rule's identity and documentation.

    ``explanation`` is Markdown: why the rule exists, an example that triggers it, and how to fix
    it. ``docs/rules/<CODE>.md`` is generated from it (``python dev/generate.py --write``),
    with the rule's ``options`` (its settings in ``[tool.ctxres]``) listed at the end.
    """

    __slots__ = ("case", "code", "explanation", "name", "options", "severity", "summary", "why")

    code: str
    name: str
    summary: str
    severity: Severity
    explanation: str
    options: tuple[Option[Any], ...]
    case: Case | None
    why: str

    def __init__(
        self,
        code: str,
        name: str,
        summary: str,
        severity: Severity,
        explanation: str = "",
        options: tuple[Option[Any], ...] = (),
        case: Case | None = None,
        why: str = "",
    ) -> None:
        init_field(self, "code", code)
        init_field(self, "name", name)
        init_field(self, "summary", summary)
        init_field(self, "severity", severity)
        init_field(self, "explanation", explanation)
        init_field(self, "options", options)
        init_field(self, "case", case)
        init_field(self, "why", why)

    @property
    def family(self) -> str:
        return FAMILIES[self.code[0]]

    def doc(self) -> str:
        """The rule's documentation page (Markdown)."""
        import textwrap  # for rule pages only: not a cost of every check's start

        default = "fails the check" if self.severity is Severity.ERROR else "fails the check only under --strict"
        body = _with_example_output(textwrap.dedent(self.explanation).strip(), self.code)
        return (
            f"# {self.code}: {self.name}\n\n"
            f"*{self.family} rule; default severity **{self.severity.value}** ({default}).*\n\n"
            f"{self.summary}\n\n{body}\n{self._case_doc()}{self._options_doc()}"
        )

    def _case_doc(self) -> str:
        if self.case is None:
            return ""
        return (
            f"\n## Severity\n{'An' if self.severity is Severity.ERROR else 'A'} **{self.case.severity.value}**: "
            f"{self.case.meaning} "
            f"([severity policy](severity.md)). {self.why}\n"
        )

    def _options_doc(self) -> str:
        if not self.options:
            return ""
        lines = [f"- `{o.toml()}` ({o.expected}): {o.help}" for o in self.options]
        return "\n## Options\nIn `[tool.ctxres]`, shown with their defaults:\n\n" + "\n".join(lines) + "\n"

    def doc_url(self) -> str:
        """The rule's page on the documentation site; ``""`` while ctxres publishes none (`ctxres rule
        CODE` prints the page, and ``docs/rules/CODE.md`` holds it in a clone)."""
        return f"{DOCS_URL}/{self.code}.md" if DOCS_URL else ""


EXAMPLE_OUTPUTS = "data/rule_examples.json"
"""What `ctxres check` prints on each rule's failing fixture (in ``ctxres.linters``): the case's folder and the
lines, by code, recorded by ``python dev/generate.py --write`` (``ctxres.linters.commands.rules``)."""


_recorded: dict[str, dict[str, object]] = {}


def example_output(code: str) -> tuple[str, list[str]] | None:
    """The rule's failing case and the lines `ctxres check` prints there, as recorded; None without one."""
    if not _recorded:
        import json  # for rule pages only (a SARIF report's rules, `ctxres rule`); a plain open: no typing
        import os

        path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), EXAMPLE_OUTPUTS)
        if os.path.isfile(path):
            with open(path, encoding="utf-8") as file:
                _recorded.update(json.load(file))
    entry = _recorded.get(code)
    if entry is None:
        return None
    output = entry["output"]
    return str(entry["case"]), [str(line) for line in output] if isinstance(output, list) else []


def _with_example_output(body: str, code: str) -> str:
    """``body`` with what `ctxres check` prints on the rule's failing case at the end of its Example section."""
    example = example_output(code)
    start = body.find("## Example\n")
    if example is None or start < 0:
        return body
    case, lines = example
    shown = (
        f"\n`ctxres check` run in this rule's failing test case (`{case}` in the repository) prints:\n\n"
        "```text\n" + "\n".join(lines) + "\n```\n"
    )
    end = body.find("\n## ", start)
    return body + "\n" + shown.rstrip("\n") if end < 0 else body[:end] + shown + body[end:]


# Where the rule pages are published (no trailing slash); empty while ctxres is published nowhere, so
# that no finding links to a site that does not exist.
DOCS_URL = ""
RULES: dict[str, Rule] = {}


def register(
    code: str,
    name: str,
    summary: str,
    severity: Severity = Severity.ERROR,
    explanation: str = "",
    options: tuple[Option[Any], ...] = (),
    case: Case | None = None,
    why: str = "",
) -> Rule:
    """Add a rule to the registry, with the options it reads; codes are unique and never reused.

    ``case`` is the case of the severity policy its default severity follows, ``why`` says how.
    """
    if not _CODE.match(code) or code[0] not in FAMILIES:
        raise ValueError(f"bad rule code {code!r}")
    if code in RULES:
        raise ValueError(f"rule code {code} registered twice")
    if case is not None and case.severity is not severity:
        raise ValueError(f"rule {code} is a {severity.value} but its case {case.value} makes a {case.severity.value}")
    if code not in CODES:
        raise ValueError(f"rule code {code} is not listed in CODES of ctxres/config.py")
    rule = Rule(code, name, summary, severity, explanation, options, case, why)
    RULES[code] = rule
    return rule


class Check(FrozenRecord):
    """One check of the engine, declared beside its rules (:func:`document_check`, :func:`section_check`,
    :func:`workspace_check`): the function, the codes it may report, the artifact kinds it reads.

    ``reads`` is ``"document"`` (``function(doc, config)``, once per file of ``kinds``; every kind when
    ``kinds`` is None), ``"section"`` (``function(ctx)``, once per orchestration file with a resumption
    section, on the :class:`~ctxres.linters.checking.resumption_context.Context` the engine builds once for
    every such check) or ``"workspace"`` (``function(ws)``, once per run, after every file: the engine keeps
    the whole documents of ``kinds`` and, when given, what ``collect(doc, config) -> (fact, findings)`` keeps
    of each file it loads, for ``ws.facts_of(module)``).
    """

    __slots__ = ("codes", "collect", "function", "kinds", "reads")

    function: Callable[..., list[Finding]]
    codes: frozenset[str]
    kinds: frozenset[str] | None
    reads: str
    collect: Callable[..., tuple[object, list[Finding]]] | None

    def __init__(
        self,
        function: Callable[..., list[Finding]],
        codes: frozenset[str],
        kinds: frozenset[str] | None,
        reads: str,
        collect: Callable[..., tuple[object, list[Finding]]] | None = None,
    ) -> None:
        init_field(self, "function", function)
        init_field(self, "codes", codes)
        init_field(self, "kinds", kinds)
        init_field(self, "reads", reads)
        init_field(self, "collect", collect)

    @property
    def name(self) -> str:
        return f"{self.function.__module__}.{self.function.__qualname__}"


CHECKS: list[Check] = []
"""Every declared check, in the order the rule modules declare them."""

if TYPE_CHECKING:
    F = TypeVar("F", bound=Callable[..., list[Finding]])


def _declare(
    rules: tuple[Rule, ...], kinds: tuple[str, ...] | None, reads: str, collect: object = None
) -> Callable[[F], F]:
    if not rules:
        raise ValueError("a check declares the rules it reports")
    for rule in rules:
        if RULES.get(rule.code) is not rule:
            raise ValueError(f"a check declares {rule.code}, which is not a registered rule")

    def record(function: F) -> F:
        CHECKS.append(
            Check(
                function,
                frozenset(rule.code for rule in rules),
                None if kinds is None else frozenset(kinds),
                reads,
                collect,  # type: ignore[arg-type]
            )
        )
        return function

    return record


def document_check(*rules: Rule, kinds: tuple[str, ...] | None) -> Callable[[F], F]:
    """Declare ``function(doc, config) -> findings``, run on each file of ``kinds`` (None: every kind) when
    the configuration selects at least one of ``rules`` (the only codes it may report)."""
    return _declare(rules, kinds, "document")


def section_check(*rules: Rule) -> Callable[[F], F]:
    """Declare ``function(ctx) -> findings`` (an S rule), run on the resumption section of each orchestration
    file when the configuration selects at least one of ``rules``."""
    return _declare(rules, ("orchestration",), "section")


def workspace_check(
    *rules: Rule,
    kinds: tuple[str, ...] = (),
    collect: Callable[..., tuple[object, list[Finding]]] | None = None,
) -> Callable[[F], F]:
    """Declare ``function(ws) -> findings``, run once after every file is checked, when the configuration
    selects at least one of ``rules``; the workspace holds the whole documents of ``kinds`` and what
    ``collect(doc, config)`` kept of each file (its findings are of ``rules`` too)."""
    return _declare(rules, tuple(kinds), "workspace", collect)


def declared_checks() -> list[Check]:
    """Every check, with every rule module loaded."""
    _load_rules()
    return CHECKS


def _load_rules() -> None:
    """Import every rule module, so that every rule and check is registered."""
    importlib.import_module("ctxres.linters.rules").rule_modules()


def get(code: str) -> Rule:
    return RULES[code]


def matches(code: str, selectors: list[str] | tuple[str, ...]) -> bool:
    """ruff-style prefix selection: ``C`` selects every conformance rule, ``ALL`` everything."""
    return any(sel == ALL or code.startswith(sel) for sel in selectors)
