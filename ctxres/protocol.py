"""The resumption update protocol as data: triggers, the trigger x sub-section matrix, the L2 reminder.

The protocol says WHEN the ``resumption:`` section of an ORCHESTRATION.yaml file is rewritten
(the seven triggers), WHICH of its seven v2.0 sub-sections each trigger touches and HOW (the
matrix), and what the per-prompt L2 reminder says. The L1 document
(``docs/protocol/resumption-update-protocol.md``) explains it in prose; a test keeps the two in
step, so that neither can drift from this module or from the schema's sub-section list.

Standard library only: the linters, ``ctxres doctor`` and the hooks may all read it.
"""

from __future__ import annotations

from enum import Enum

from ctxres.records import FrozenRecord, init_field

# `ctxres check` loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").


class Urgency(str, Enum):
    """How binding a trigger is: NORMAL and URGENT must be followed; ADVISORY should be."""

    NORMAL = "normal"
    URGENT = "urgent"
    ADVISORY = "advisory"


class Trigger(FrozenRecord):
    """One lifecycle event at which the resumption section is rewritten."""

    __slots__ = ("event", "id", "name", "urgency")

    id: str
    name: str
    event: str
    urgency: Urgency

    def __init__(self, id: str, name: str, event: str, urgency: Urgency) -> None:
        init_field(self, "id", id)
        init_field(self, "name", name)
        init_field(self, "event", event)
        init_field(self, "urgency", urgency)


TRIGGERS: tuple[Trigger, ...] = (
    Trigger("T1", "Phase start", "a new phase begins", Urgency.NORMAL),
    Trigger("T2", "Phase complete", "every agent of a phase has finished", Urgency.NORMAL),
    Trigger("T3", "Quality-gate iteration", "a quality gate finishes one scoring iteration", Urgency.NORMAL),
    Trigger("T4", "Agent completion", "one agent finishes its work", Urgency.NORMAL),
    Trigger("T5", "Compaction", "the PreCompact hook fires: the context is about to be compacted", Urgency.URGENT),
    Trigger("T6", "Cross-phase decision", "a decision is taken that changes later phases", Urgency.NORMAL),
    Trigger("T7", "Fill threshold crossed", "the context monitor moves to another fill tier", Urgency.ADVISORY),
)
"""The seven triggers, in order. T1-T6 are mandatory; T7 is advisory."""


class Action(str, Enum):
    """What a trigger does to a sub-section (the letters of the matrix)."""

    OVERWRITE = "W"
    APPEND = "A"
    UPDATE = "U"
    CONDITIONAL = "C"


MATRIX: dict[str, dict[str, Action]] = {
    "T1": {"recovery_state": Action.OVERWRITE, "files_to_read": Action.UPDATE},
    "T2": {"recovery_state": Action.OVERWRITE, "files_to_read": Action.UPDATE},
    "T3": {
        "recovery_state": Action.OVERWRITE,
        "quality_trajectory": Action.OVERWRITE,
        "defect_summary": Action.OVERWRITE,
        "decision_log": Action.CONDITIONAL,
    },
    "T4": {"recovery_state": Action.OVERWRITE, "agent_summaries": Action.APPEND},
    "T5": {"recovery_state": Action.OVERWRITE, "compaction_events": Action.APPEND},
    "T6": {"recovery_state": Action.OVERWRITE, "decision_log": Action.APPEND},
    "T7": {"recovery_state": Action.OVERWRITE},
}
"""Trigger id -> sub-section -> action; a sub-section a trigger does not touch is absent.

``files_to_read`` is updated at both phase boundaries (T1 and T2): its ``sections`` hints point at
the phase being worked on, so they move when a phase starts as well as when one ends.
"""


def action(trigger_id: str, subsection: str) -> Action | None:
    """What ``trigger_id`` does to ``subsection`` (None: nothing)."""
    return MATRIX[trigger_id].get(subsection)


RESUMPTION_MARKER_RANK = 9
"""The rank the protocol gives its L2 reminder: after the existing reminders."""

RESUMPTION_MARKER_CONTENT = (
    "Resumption update: MUST update ORCHESTRATION.yaml resumption section at every state transition "
    "(phase/QG/agent/compaction); after a compaction run ctxres ack."
)
"""The text of the L2 reminder of the protocol (what ``ctxres reinject`` suggests when it is missing)."""
