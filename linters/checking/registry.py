"""The rule registry: every rule has a stable code, a default severity, a summary and a doc page.

Codes are a family letter and three digits. Families:

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
====== =========================================================
"""

from __future__ import annotations

import importlib
import re
import textwrap
from dataclasses import dataclass

from ctxres import config
from ctxres.config import Option
from ctxres.findings import Severity

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
}

_CODE = re.compile(r"^[A-Z]\d{3}$")


@dataclass(frozen=True)
class Rule:
    """A rule's identity and documentation.

    ``explanation`` is Markdown: why the rule exists, an example that triggers it, and how to fix
    it. ``docs/rules/<CODE>.md`` is generated from it (``ctxres rules --write-docs docs/rules``),
    with the rule's ``options`` (its settings in ``[tool.ctxres]``) listed at the end.
    """

    code: str
    name: str
    summary: str
    severity: Severity
    explanation: str = ""
    options: tuple[Option, ...] = ()

    @property
    def family(self) -> str:
        return FAMILIES[self.code[0]]

    def doc(self) -> str:
        """The rule's documentation page (Markdown)."""
        default = "fails the check" if self.severity is Severity.ERROR else "fails the check only under --strict"
        body = textwrap.dedent(self.explanation).strip()
        return (
            f"# {self.code}: {self.name}\n\n"
            f"*{self.family} rule; default severity **{self.severity.value}** ({default}).*\n\n"
            f"{self.summary}\n\n{body}\n{self._options_doc()}"
        )

    def _options_doc(self) -> str:
        if not self.options:
            return ""
        lines = [f"- `{o.toml()}` ({o.expected}): {o.help}" for o in self.options]
        return "\n## Options\nIn `[tool.ctxres]`, shown with their defaults:\n\n" + "\n".join(lines) + "\n"

    def doc_url(self) -> str:
        return f"https://github.com/ctxres/ctxres/blob/main/docs/rules/{self.code}.md"


RULES: dict[str, Rule] = {}


def register(
    code: str,
    name: str,
    summary: str,
    severity: Severity = Severity.ERROR,
    explanation: str = "",
    options: tuple[Option, ...] = (),
) -> Rule:
    """Add a rule to the registry, with the options it reads; codes are unique and never reused."""
    if not _CODE.match(code) or code[0] not in FAMILIES:
        raise ValueError(f"bad rule code {code!r}")
    if code in RULES:
        raise ValueError(f"rule code {code} registered twice")
    rule = Rule(code, name, summary, severity, explanation, tuple(map(config.declare, options)))
    RULES[code] = rule
    return rule


def family_option(family: str, option: Option) -> Option:
    """Declare an option a rule family's module reads outside one rule (a command of the family)."""
    if family not in FAMILIES:
        raise ValueError(f"unknown rule family {family!r}")
    return config.declare(option)


def _load_rule_options() -> None:
    """Import every rule module, so that every rule option is declared."""
    importlib.import_module("ctxres.linters.rules").rule_modules()


# With the linters loaded, the configuration checks every rule option against its declaration.
config.use_rule_options(_load_rule_options)


def get(code: str) -> Rule:
    return RULES[code]


def matches(code: str, selectors: list[str] | tuple[str, ...]) -> bool:
    """ruff-style prefix selection: ``C`` selects every conformance rule, ``ALL`` everything."""
    return any(sel == "ALL" or code.startswith(sel) for sel in selectors)
