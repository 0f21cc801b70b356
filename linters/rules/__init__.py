"""Every rule module, loaded once; rule documentation pages; schema names."""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType

from ctxres.config import FAMILIES
from ctxres.linters.checking.registry import RULES, Rule

# `ctxres check` loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").

# Importing a rule module registers its rules.
RULE_MODULES = (
    "ctxres.linters.rules.parsing",
    "ctxres.linters.rules.conformance",
    "ctxres.linters.rules.compatibility",
    "ctxres.linters.rules.decision_ids",
    "ctxres.linters.rules.acknowledgement",
    "ctxres.linters.rules.compaction_records",
    "ctxres.linters.rules.update_times",
    "ctxres.linters.rules.checkpoint_position",
    "ctxres.linters.rules.phase_position",
    "ctxres.linters.rules.quality_trajectory",
    "ctxres.linters.rules.agent_summaries",
    "ctxres.linters.rules.prose_position",
    "ctxres.linters.rules.stale_commits",
    "ctxres.linters.rules.reinject",
    "ctxres.linters.rules.template_budgets",
    "ctxres.linters.rules.agent_memory",
    "ctxres.linters.rules.nexus",
    "ctxres.linters.rules.secrets",
    "ctxres.linters.rules.unsafe_paths",
    "ctxres.linters.rules.layers",
    "ctxres.linters.rules.merged_compactions",
    "ctxres.linters.rules.claude_settings",
    "ctxres.linters.rules.suppression_comments",
)


def rule_modules() -> list[ModuleType]:
    """The rule modules (importing one registers its rules)."""
    return [importlib.import_module(name) for name in RULE_MODULES]


def all_rules() -> dict[str, Rule]:
    """Every registered rule, by family (in the documented family order), then code."""
    rule_modules()
    order = list(FAMILIES)
    return dict(sorted(RULES.items(), key=lambda item: (order.index(item[0][0]), item[0])))


def _pages() -> dict[str, str]:
    """Every rule's page, and ``severity.md``: the severity policy with every rule under its case."""
    from ctxres.linters.checking.severity_policy import policy_page

    rules = all_rules()
    pages = {f"{code}.md": rule.doc() for code, rule in rules.items()}
    pages["severity.md"] = policy_page([(r.code, r.name, r.case, r.why) for r in rules.values() if r.case])
    return pages


def write_docs(directory: Path) -> list[Path]:
    """Write ``<CODE>.md`` per rule into ``directory``; return the files written."""
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in _pages().items():
        path = directory / name
        if not path.exists() or path.read_text("utf-8") != text:
            path.write_text(text, "utf-8")
            written.append(path)
    return written


def docs_drift(directory: Path) -> list[str]:
    """Pages that are missing, differ, or belong to no rule."""
    pages = _pages()
    stale = [
        name
        for name, text in pages.items()
        if not (directory / name).is_file() or (directory / name).read_text("utf-8") != text
    ]
    stale += sorted(p.name for p in directory.glob("*.md") if p.name not in pages and p.name != "README.md")
    return stale


def schema_names() -> list[str]:
    """Names of the checked-in schemas (``ctxres schema show NAME``)."""
    from importlib import resources  # here: a check does not list the schemas (start-up time)

    folder = resources.files("ctxres.schemas")
    return sorted(p.name[: -len(".schema.json")] for p in folder.iterdir() if p.name.endswith(".schema.json"))
