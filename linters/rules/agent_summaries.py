"""S011-S012: `agent_summaries` against the status of the agents in the pipelines."""

from __future__ import annotations

from ctxres.findings import Finding, Severity
from ctxres.formats.document import JsonPath
from ctxres.linters.checking.registry import register, section_check
from ctxres.linters.checking.resumption_context import (
    Context,
    id_key,
    key_line,
    place,
    some_of,
)
from ctxres.linters.checking.severity_policy import Case
from ctxres.records import FrozenRecord, init_field
from ctxres.state import orchestration as state
from ctxres.state.orchestration import (
    NOT_STARTED_WORDS,
    PASSED_WORDS,
    RUNNING_WORDS,
    normalize_status,
)

# `ctxres check` loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


# An agent with a summary must have finished: waiting or running ones have not.
_AGENT_UNFINISHED = NOT_STARTED_WORDS | RUNNING_WORDS


# --- S011-S012: agent_summaries ---------------------------------------------------------------


class Agent(FrozenRecord):
    __slots__ = ("id", "status", "status_path")

    id: str
    status: str
    status_path: JsonPath

    def __init__(self, id: str, status: str, status_path: JsonPath) -> None:
        init_field(self, "id", id)
        init_field(self, "status", status)
        init_field(self, "status_path", status_path)


def agents_view(data: Any) -> list[Agent]:
    """Every agent of every phase of every pipeline that has an id and a status."""
    agents = []
    for pipeline in state.pipelines(data):
        for phase in pipeline.phases:
            for path, agent, key in state.children(phase.data.get("agents"), (*phase.path, "agents")):
                agent_id = agent.get("id") if isinstance(agent.get("id"), str) else key
                if agent_id and isinstance(agent.get("status"), str):
                    agents.append(Agent(agent_id, normalize_status(agent["status"]), (*path, "status")))
    return agents


SUMMARY_UNFINISHED = register(
    "S011",
    "agent-summary-for-unfinished-agent",
    "`agent_summaries` has an entry for an agent that the pipelines mark as not finished.",
    case=Case.CONTRADICTION,
    why="A summary for an agent that the pipelines say has not finished.",
    explanation="""
    ## Why
    An agent summary is appended when the agent completes. A summary for an agent whose status in
    `pipelines` is still pending or in progress means one of the two places is out of date: a
    resuming session would either trust work that is not done or run the agent again.

    ## Example
    ```yaml
    pipelines:
      main:
        phases:
          - id: 1
            agents:
              - {id: "audit-executor", status: "PENDING"}
    resumption:
      agent_summaries:
        audit-executor: "PASS. All 25 deps compatible."
    ```

    ## Fix
    If the agent has finished, set its status in `pipelines` to `COMPLETE`; otherwise remove the
    summary until it finishes.
    """,
)


@section_check(SUMMARY_UNFINISHED)
def check_summary_unfinished(ctx: Context) -> list[Finding]:
    summaries = ctx.summaries
    if not summaries:
        return []
    by_id: dict[str, list[Agent]] = {}
    for agent in agents_view(ctx.doc.data):
        by_id.setdefault(id_key(agent.id), []).append(agent)
    findings = []
    for key in summaries:
        known = by_id.get(id_key(key), [])
        if known and all(agent.status in _AGENT_UNFINISHED for agent in known):
            agent = known[0]
            findings.append(
                ctx.finding(
                    SUMMARY_UNFINISHED,
                    ("resumption", "agent_summaries", key),
                    f"`agent_summaries.{key}` summarises agent {key}, but {place(ctx.doc, agent.status_path)} "
                    f"is {agent.status}",
                    f"If {key} has finished, set its status in pipelines to COMPLETE; otherwise remove the summary "
                    "until it finishes.",
                )
            )
    return findings


SUMMARIES_MISSING = register(
    "S012",
    "agent-summaries-missing",
    "Agents that the pipelines mark complete have no entry in `agent_summaries`.",
    Severity.WARNING,
    case=Case.ADVICE,
    why="The pipelines carry the agents' status; the summaries only add detail for the next session.",
    explanation="""
    ## Why
    `agent_summaries` holds one line per completed agent (its verdict and key output), so that a
    resuming session knows what each agent produced without reading every artifact. Agents that
    `pipelines` marks complete but that have no summary are invisible to it. This is a warning:
    the section is incomplete rather than wrong.

    ## Example
    ```yaml
    pipelines:
      main:
        phases:
          - id: 1
            agents:
              - {id: "audit-executor", status: "COMPLETE"}
    resumption:
      agent_summaries: {}
    ```

    ## Fix
    Add one entry per completed agent, keyed by its id:
    `audit-executor: "PASS. All 25 deps Apache-2.0 compatible. No blockers."`.
    """,
)


@section_check(SUMMARIES_MISSING)
def check_summaries_missing(ctx: Context) -> list[Finding]:
    summaries = ctx.summaries
    if summaries is None:
        return []
    have = {id_key(key) for key in summaries}
    missing: dict[str, Agent] = {}
    for agent in agents_view(ctx.doc.data):
        if agent.status in PASSED_WORDS and id_key(agent.id) not in have:
            missing.setdefault(id_key(agent.id), agent)
    if not missing:
        return []
    listed = some_of(list(missing.values()), lambda a: f"{a.id} (line {key_line(ctx.doc, a.status_path)})")
    return [
        ctx.finding(
            SUMMARIES_MISSING,
            ("resumption", "agent_summaries"),
            f"`agent_summaries` has no entry for {len(missing)} agent(s) that `pipelines` marks complete: {listed}",
            'Add one line per completed agent, keyed by its id: `agent-id: "DONE. Key result."`.',
            key=True,
        )
    ]
