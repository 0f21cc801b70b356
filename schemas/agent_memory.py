"""The ``.agent-memory/runs/<run-id>/`` layout: task graph and per-actor event logs (docs/formats.md, "Layout")."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from ctxres.schemas.base import IsoDateTime, OpenModel, StrictModel


class Task(OpenModel):
    """One task of the plan. Other keys (description, files, estimates, ...) are allowed."""

    id: str = Field(min_length=1, description="Task id, unique in the graph, for example `T003`.")
    title: str = Field(min_length=1, description="One-line title of the task.")
    dependencies: list[str] = Field(description="Ids of the tasks that must be done before this one.")
    phase: int | str | None = Field(None, description="Phase of the run the task belongs to (0-4).")


class TaskGraph(OpenModel):
    """`task-graph.json`: the tasks of a run and their dependencies."""

    metadata: dict[str, Any] | None = Field(None, description="Run id, author, counts (free form).")
    tasks: list[Task] = Field(description="Every task of the run.")


class Event(StrictModel):
    """One line of an append-only event log `events/<actor>/<YYYYMMDD-HHMM>.jsonl`."""

    event_type: str = Field(
        pattern=r"^[a-z]+([_-][a-z]+)*$",
        description="What happened: `task_started`, `task_completed`, `task_failed`, `task_blocked`, ... "
        "(`task-started` spellings are read too).",
    )
    task_id: str | None = Field(None, description="The task the event is about; absent for run-level events.")
    timestamp: IsoDateTime = Field(description="When it happened (ISO-8601).")
    actor: str = Field(min_length=1, description="Who wrote the event; equals the folder name under `events/`.")
    details: dict[str, Any] | None = Field(None, description="Event-specific details (free form).")


AGENT_MEMORY_SCHEMAS: dict[str, type[BaseModel]] = {"task-graph": TaskGraph, "event": Event}
