"""The rule protocol (docs/architecture.md, "Where to add…", "A rule"): each check is declared with the codes it
may report and the kinds it reads, and the engine calls a check only when the run selects one of its codes,
only on the kinds it declares."""

from __future__ import annotations

import pytest

from ctxres.artifacts import DEFAULT_PATTERNS
from ctxres.config import Config
from ctxres.findings import Finding, Severity
from ctxres.formats.document import Document
from ctxres.linters.checking import engine, registry
from ctxres.linters.checking.registry import Check, declared_checks
from ctxres.linters.rules import all_rules

from ..conftest import CORPUS

RUN_BY_COMMANDS = {"S013", "M012", "M013", "L001", "L002"}
"""Rules reported by a command (`audit-history`, `runs`, `doctor`), not by a check of `ctxres check`."""
RUN_BY_ENGINE = {"I001", "I002"}
"""Rules the engine reports itself: the P rules (loading a file), X001 on a file that did not load, and the
suppression-comment rules (after it applies the comments)."""


def test_every_check_declares_registered_codes_and_known_kinds() -> None:
    rules = all_rules()
    for check in declared_checks():
        assert check.codes and check.codes <= set(rules), check.name
        assert check.kinds is None or check.kinds <= set(DEFAULT_PATTERNS), check.name
        assert check.reads in ("document", "section", "workspace"), check.name


def test_every_rule_has_a_check_or_says_who_reports_it() -> None:
    declared = {code for check in declared_checks() for code in check.codes}
    parsing = {code for code in all_rules() if code.startswith("P")}
    assert set(all_rules()) - declared == parsing | RUN_BY_COMMANDS | RUN_BY_ENGINE


def _names(checks: list[Check]) -> set[str]:
    return {check.name.rsplit(".", 1)[-1] for check in checks}


def test_a_run_calls_only_the_checks_of_its_selected_rules() -> None:
    only_s001 = engine.planned_checks("orchestration", Config(select=("S001",)))
    assert [check.name for check in only_s001] == ["ctxres.linters.rules.update_times.check_not_a_time"]
    families = engine.planned_checks("orchestration", Config(select=("S00",), ignore=("S002", "S003", "S004")))
    assert "check_in_future" not in _names(families) and "check_not_a_time" in _names(families)
    assert engine.planned_checks("orchestration", Config(select=("T002",))) == []  # a checkpoint rule


def test_a_check_is_called_only_on_the_kinds_it_declares() -> None:
    everything = Config(select=("ALL",))
    for kind in DEFAULT_PATTERNS:
        for check in engine.planned_checks(kind, everything):
            assert check.kinds is None or kind in check.kinds, (kind, check.name)
    assert "check_template2" in _names(engine.planned_checks("checkpoint", everything))
    assert "check_template2" not in _names(engine.planned_checks("orchestration", everything))


def test_auditing_suppression_comments_calls_every_check() -> None:
    # I002 needs every finding: a comment that silences a finding of any rule is used.
    every = engine.planned_checks("orchestration", Config(select=("ALL",)))
    assert engine.planned_checks("orchestration", Config(select=("C001", "I002"))) == every
    assert engine.planned_checks("orchestration", Config(select=("C001", "I"))) == every
    assert len(engine.planned_checks("orchestration", Config(select=("C001", "I001")))) < len(every)


def _found(config: Config) -> list[tuple[str, int, int, str, str]]:
    return [finding.sort_key() for finding in engine.run([CORPUS], config, cwd=CORPUS.parent).findings]


@pytest.mark.parametrize(
    ("select", "ignore"),
    [(("S004",), ()), (("C",), ()), (("A", "R"), ()), (("S",), ("S01",)), (("N", "P", "X"), ()), (("V001",), ())],
)
def test_a_selective_run_finds_what_a_full_run_finds_of_its_rules(
    select: tuple[str, ...], ignore: tuple[str, ...]
) -> None:
    full = Config(root=CORPUS)
    chosen = full.replace(select=select, ignore=ignore)
    expected = [key for key in _found(full) if engine.selected(key[3], chosen)]
    assert expected, "the corpus has findings of these rules"
    assert _found(chosen) == expected


def test_a_finding_of_a_code_its_check_does_not_declare_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    def reports_s002(doc: Document, _config: Config) -> list[Finding]:
        return [Finding(doc.path, "S002", "wrong code", Severity.ERROR)]

    check = Check(reports_s002, frozenset({"S001"}), frozenset({"orchestration"}), "document")
    monkeypatch.setattr(registry, "CHECKS", [check])
    engine._plan_of.cache_clear()
    try:
        doc = Document(path="ORCHESTRATION.yaml", kind="orchestration", text="", data={}, fs_path="")
        with pytest.raises(AssertionError, match="reports_s002 reported S002, which it does not declare"):
            engine.document_findings(doc, Config(select=("S001",)))
    finally:
        monkeypatch.undo()
        engine._plan_of.cache_clear()


def test_declaring_an_unregistered_rule_is_an_error() -> None:
    stranger = registry.Rule("S999", "not-registered", "never registered", Severity.ERROR)
    with pytest.raises(ValueError, match="S999, which is not a registered rule"):
        registry.document_check(stranger, kinds=None)
