"""The severity policy: the cases that make a finding an error or a warning, and its page.

Every rule names the case its default severity follows (``register(..., case=..., why=...)``);
``docs/rules/severity.md`` is generated from this module and the rules (``python dev/generate.py
--write``), and each rule's page cites its case.
"""

from __future__ import annotations

from enum import Enum

from ctxres.findings import Severity


class Case(str, Enum):
    """Why a rule's findings are errors or warnings."""

    WRONG_RESUMPTION = "wrong-resumption"
    TOOL_JOB = "tool-job"
    CONTRADICTION = "contradiction"
    SAME_FACTS = "same-facts"
    CONVENTION = "convention"
    OLD_VERSION = "old-version"
    ADVICE = "advice"

    @property
    def severity(self) -> Severity:
        return Severity.ERROR if self in _ERRORS else Severity.WARNING

    @property
    def meaning(self) -> str:
        return _TITLES[self]


_ERRORS = frozenset({Case.WRONG_RESUMPTION, Case.TOOL_JOB, Case.CONTRADICTION})

_TITLES: dict[Case, str] = {
    Case.WRONG_RESUMPTION: "the state makes resumption wrong or impossible",
    Case.TOOL_JOB: "a hook, `ack` or the check itself cannot do its job",
    Case.CONTRADICTION: "a contradiction inside the state",
    Case.SAME_FACTS: "a different but complete shape carrying the same facts",
    Case.CONVENTION: "a convention of the project or of the format",
    Case.OLD_VERSION: "an old version of the format",
    Case.ADVICE: "complete and consistent, but worth a look",
}

POLICY = """\
# Severity policy

Every rule's default severity follows one sentence:

- An **error** is a state that makes resumption wrong or impossible, that stops a hook, `ctxres ack`
  or the check itself from doing its job (each rule says which job), or a contradiction inside the
  state. Errors fail `ctxres check` and the pre-commit hook.
- A **warning** is a different but complete shape that carries the same facts (the rule says the
  mapping), a convention of the project or of the format (an id prefix, a canonical spelling), or an
  old version of the format. Warnings fail a check only under `--strict`. A few warnings are
  **advice**: the state is complete and consistent, but something about it is worth a look (a soft
  target, a run left idle, a suppression that silences nothing).
- A project's own extra keys are **silent**: a key the schema does not know is reported only when
  it is a near miss of a key it knows (C006).
- **Finished work** is silent about shape, convention and migration: nobody resumes a COMPLETE
  workflow, a complete Nexus project or an archived one (`05-archived/`) again, so the warnings of
  C006, C007, S003, S004, S012, S015, N002, N008, N009 and V001 are not reported there. Its errors
  still are.

A rule may report one finding below its default severity when that finding is another case (for
example S004 is an error, but `last_checkpoint` holding the *time* of the latest checkpoint instead
of its id carries the same fact: a warning). Its page says so. In `[tool.ctxres]`,
`severity = { CODE = "warning" }` changes a rule's severity for a project.
"""


def policy_page(rules: list[tuple[str, str, Case, str]]) -> str:
    """``severity.md``: the policy, then every rule grouped by its case (code, name, case, why)."""
    parts = [POLICY]
    for case in Case:
        rows = [(code, name, why) for code, name, c, why in rules if c is case]
        if not rows:
            continue
        parts.append(f"\n## {case.severity.value.capitalize()}: {case.meaning}\n\n| Rule | Why |\n|---|---|\n")
        parts.extend(f"| [{code}]({code}.md) `{name}` | {why} |\n" for code, name, why in rows)
    return "".join(parts)
