"""T rules: the re-orientation prompts rendered from the repository's current state stay in budget.

Template 1 (the resumption prompt a new session receives) must not exceed 1,000 tokens; Template 2
(the ``<compaction-alert>`` after a compaction) should stay within 400 and never exceed 500.
Tokens are counted at four characters per token: characters / 4, rounded up (docs/formats.md,
"The two prompt templates").
"""

from __future__ import annotations

import os

from ctxres.config import Config
from ctxres.findings import Finding, Severity
from ctxres.formats.document import Document
from ctxres.linters.checking.registry import document_check, register
from ctxres.linters.checking.severity_policy import Case
from ctxres.prompts import (
    TEMPLATE1_BUDGET,
    TEMPLATE2_BUDGET,
    TEMPLATE2_CEILING,
    estimate_tokens,
    render_template1,
    render_template2,
)
from ctxres.state.orchestration import is_live
from ctxres.state.resumption import detect_version

TEMPLATE1_OVER = register(
    "T001",
    "resumption-prompt-over-budget",
    "The resumption prompt (Template 1) rendered from this section is over 1,000 tokens.",
    case=Case.TOOL_JOB,
    why="SessionStart's resumption prompt must fit its budget; over it, the prompt is cut.",
    explanation="""
    ## Why
    A new session that resumes the workflow receives a prompt rendered from the resumption
    section: recovery state, quality trajectory, decisions, agent summaries, defect patterns and
    the files to read. Its budget is 500-1,000 tokens so that re-orienting
    costs little of the fresh context. A section that renders above that has grown prose that
    belongs in the files it points to.

    ## Example
    Agent summaries of several sentences each, or a `next_step` that restates the plan.

    ## Fix
    Shorten the longest parts named in the message: one line per agent summary, one sentence per
    decision, `next_step` as a single action. `ctxres prompt --template 1` shows the prompt.
    """,
)


def _template1_findings(doc: Document) -> list[Finding]:
    data = doc.data
    section = data.get("resumption") if isinstance(data, dict) else None
    if not isinstance(section, dict) or detect_version(section) != "2.0":
        return []
    if not isinstance(section.get("recovery_state"), dict) or not is_live(data):
        return []  # the prompt is only injected for a live workflow (ACTIVE or PAUSED), one that can be resumed
    plan = os.path.join(os.path.dirname(doc.path), "ORCHESTRATION_PLAN.md").replace(os.sep, "/")
    tokens = estimate_tokens(render_template1(data, plan_path=plan))
    if tokens <= TEMPLATE1_BUDGET[1]:
        return []
    largest = sorted(
        (
            (len(str(section.get(key, ""))), key)
            for key in (
                "agent_summaries",
                "decision_log",
                "decisions",
                "defect_summary",
                "files_to_read",
                "recovery_state",
            )
        ),
        reverse=True,
    )[:2]
    where = " and ".join(f"`{key}` ({size:,} characters)" for size, key in largest if size)
    return [
        Finding(
            doc.path,
            TEMPLATE1_OVER.code,
            f"the resumption prompt rendered from this section is {tokens:,} tokens, over the "
            f"{TEMPLATE1_BUDGET[1]:,}-token budget; the largest parts are {where}",
            TEMPLATE1_OVER.severity,
            doc.locate(("resumption",), key=True),
            "$.resumption",
            "shorten them (one line per agent summary, one sentence per decision); "
            "`ctxres prompt --template 1` shows the prompt",
        )
    ]


TEMPLATE2_OVER_TARGET = register(
    "T002",
    "compaction-alert-over-target",
    "The compaction alert (Template 2) rendered from this checkpoint is over its 400-token target.",
    Severity.WARNING,
    case=Case.ADVICE,
    why="400 tokens is a target, not a ceiling: the alert is still injected whole.",
    explanation="""
    ## Why
    After a compaction the session receives a `<compaction-alert>` rendered from the newest
    checkpoint. Its target is 300-400 tokens: it is added to every first prompt after a
    compaction, when context is scarcest. Above 400 the alert still works, but costs more.

    ## Example
    A checkpoint whose `recovery_instructions` and decision summaries are long enough that the
    `<compaction-alert>` rendered from it comes to more than 400 tokens.

    ## Fix
    Shorten `recovery_instructions.critical_context` and the decision summaries in the
    resumption section (the PreCompact hook copies them into the checkpoint).
    """,
)


TEMPLATE2_OVER_CEILING = register(
    "T003",
    "compaction-alert-over-ceiling",
    "The compaction alert (Template 2) is over its 500-token hard ceiling even with its free text shortened.",
    case=Case.TOOL_JOB,
    why="Over the ceiling, the compaction alert cannot be injected whole even shortened.",
    explanation="""
    ## Why
    Above 500 tokens the alert's free text is shortened automatically. When the structured
    fields alone (checkpoint path, phase name, activity, next action) exceed the ceiling, the
    alert cannot be brought back under it.

    ## Example
    A checkpoint whose `current_phase_name`, `current_activity` and next action together are
    long enough that the alert, with every free text shortened, still comes to more than 500 tokens.

    ## Fix
    Shorten `recovery_state.next_step`, `current_phase_name` and `current_activity`: they are
    copied into every checkpoint and shown whole.
    """,
)


def _template2_findings(doc: Document) -> list[Finding]:
    data = doc.data
    if not isinstance(data, dict) or "event_id" not in data:
        return []  # only the seed layout is rendered as an alert
    text = render_template2(data, checkpoint_path=doc.path, orchestration_path="ORCHESTRATION.yaml")
    tokens = estimate_tokens(text)
    if tokens > TEMPLATE2_CEILING:
        return [
            Finding(
                doc.path,
                TEMPLATE2_OVER_CEILING.code,
                f"the compaction alert rendered from this checkpoint is {tokens:,} tokens even with its "
                f"free text shortened, over the {TEMPLATE2_CEILING}-token ceiling",
                TEMPLATE2_OVER_CEILING.severity,
                doc.locate(("recovery_instructions", "next_action")),
                "$.recovery_instructions.next_action",
                "shorten next_step, current_phase_name and current_activity in the resumption section",
            )
        ]
    if tokens > TEMPLATE2_BUDGET[1]:
        return [
            Finding(
                doc.path,
                TEMPLATE2_OVER_TARGET.code,
                f"the compaction alert rendered from this checkpoint is {tokens:,} tokens, over the "
                f"{TEMPLATE2_BUDGET[1]}-token target",
                TEMPLATE2_OVER_TARGET.severity,
                doc.locate(("recovery_instructions", "critical_context")),
                "$.recovery_instructions.critical_context",
                "shorten critical_context and the decision summaries",
            )
        ]
    return []


@document_check(TEMPLATE1_OVER, kinds=("orchestration",))
def check_template1(doc: Document, _config: Config) -> list[Finding]:
    return _template1_findings(doc)


@document_check(TEMPLATE2_OVER_TARGET, TEMPLATE2_OVER_CEILING, kinds=("checkpoint",))
def check_template2(doc: Document, _config: Config) -> list[Finding]:
    return _template2_findings(doc)
