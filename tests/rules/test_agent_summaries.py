"""The rules of linters/rules/agent_summaries.py: S011 and S012, `agent_summaries` against the agents
the pipelines mark complete."""

from __future__ import annotations

import textwrap

from ctxres.findings import Severity

from .s_families import check, codes, line_of, v2

AGENTS = textwrap.dedent(
    """\
    pipelines:
      main:
        phases:
          - id: 1
            agents:
              - {id: "audit-executor", status: "COMPLETE"}
              - {id: "license-replacer", status: "IN_PROGRESS"}
          - id: 2
            agents:
              header-applicator: {status: "PENDING"}
              header-verifier: {status: "FAILED"}
    """
)


def with_summaries(summaries: str) -> str:
    return AGENTS + v2().replace("  agent_summaries: {}\n", "  agent_summaries:" + summaries)


def test_s011_summary_for_an_agent_that_has_not_finished() -> None:
    text = with_summaries(
        '\n    audit-executor: "PASS. Done."\n    license-replacer: "DONE. Replaced."\n'
        '    header-verifier: "FAILED. Crashed."\n    someone-else: "DONE."\n'
    )
    found = check(text)
    assert [(f.code, f.position.line) for f in found] == [("S011", line_of(text, "license-replacer: "))]
    assert found[0].message == (
        "`agent_summaries.license-replacer` summarises agent license-replacer, but "
        "`pipelines.main.phases[0].agents[1].status` on line 7 is IN_PROGRESS"
    )


def test_s012_completed_agents_without_summaries() -> None:
    text = with_summaries(" {}\n")
    found = check(text)
    assert [(f.code, f.position.line, f.position.col) for f in found] == [("S012", line_of(text, "agent_summaries"), 3)]
    assert found[0].severity is Severity.WARNING
    assert found[0].message == (
        "`agent_summaries` has no entry for 1 agent(s) that `pipelines` marks complete: audit-executor (line 6)"
    )
    assert codes(with_summaries('\n    AUDIT-EXECUTOR: "PASS. Done."\n')) == []


def test_s012_lists_a_few_agents_and_counts_the_rest() -> None:
    agents = "".join(f'      - {{id: "agent-{n}", status: "DONE"}}\n' for n in range(1, 6))
    text = "pipelines:\n  main:\n    phases:\n    - id: 1\n      agents:\n" + agents + v2()
    found = check(text)
    assert [f.code for f in found] == ["S012"]
    assert "5 agent(s)" in found[0].message and "agent-3 (line 8) and 2 more" in found[0].message
