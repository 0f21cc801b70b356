"""The Nexus ``precompact_state.json`` (FLAT) and the ``resume-context.md`` front matter, of a project
(``02-projects/NN-name/``) and of a build (``02-builds/active/NN-name/``, the layout Nexus creates today).

The files are described in docs/formats.md, "Nexus state".
"""

from __future__ import annotations

from enum import Enum
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, model_validator

from ctxres.schemas.base import IsoDateTime, StrictModel

PROJECT_ID_PATTERN = r"^\d{2}-[a-z0-9]+(-[a-z0-9]+)*$"


class PrecompactState(StrictModel):
    """What the Nexus PreCompact hook saves for SessionStart. FLAT: nothing is nested; under 1 KB."""

    active_project_id: str | None = Field(
        pattern=PROJECT_ID_PATTERN,
        description="Folder name of the active project, `NN-kebab-case` (`24-project-skills`); null if none found.",
    )
    confidence: Literal["high", "medium", "low"] = Field(description="How sure the detection is.")
    detection_method: Literal["transcript", "cache", "fallback"] = Field(description="How the project was detected.")
    timestamp: IsoDateTime = Field(description="When the state was saved (ISO-8601).")
    metadata: dict[str, Any] | None = Field(None, description="Optional detection details (free form).")


class ResumePhase(str, Enum):
    """The project's lifecycle phase."""

    RESEARCH = "research"
    PLANNING = "planning"
    EXECUTION = "execution"
    READY_FOR_IMPLEMENTATION = "ready-for-implementation"
    TESTING = "testing"
    REVIEW = "review"
    COMPLETE = "complete"  # the finished project (real manifests; not in the format's original list)


# How real Nexus manifests say a project is finished (not in the original phase list): `complete`
# (an enum value), also written `COMPLETE`, `Complete`, `completed` (this pattern). A finished
# manifest may list no file to load and may name its last task in words
# (`current_task: "Project Complete"`); an unfinished one may not.
FINISHED_PHASE_PATTERN = r"^([Cc]omplete|COMPLETE)([Dd])?$"


class ResumeContext(StrictModel):
    """Front matter of a project's `resume-context.md`: a loading manifest, not a summary.

    A project is named by `project_id`/`project_name`; the version by `resume_schema_version` (or the
    legacy `resume_version`). A manifest that names a `build_id` is a build's (`BuildManifest`).
    """

    resume_schema_version: str | float | None = Field(
        None, description='Version of the manifest format, a string such as `"1.0"`.'
    )
    resume_version: str | float | None = Field(
        None,
        description="Legacy name of `resume_schema_version`; accepted, rename it.",
        json_schema_extra={"deprecated": True},
    )
    last_updated: IsoDateTime = Field(description="When the manifest was last updated (ISO-8601).")
    project_id: str | None = Field(
        None, pattern=PROJECT_ID_PATTERN, description="Project folder name, `NN-kebab-case`."
    )
    project_name: str | None = Field(None, min_length=1, description="Human-readable project name.")
    session_id: str | None = Field(None, description="Id of the session that last updated the manifest.")
    session_ids: list[str] | None = Field(None, description="Ids of every session that worked on the project.")
    current_phase: ResumePhase | Annotated[str, Field(pattern=FINISHED_PHASE_PATTERN)] = Field(
        description="Lifecycle phase of the project; `complete` once the project is finished."
    )
    next_action: str = Field(min_length=1, description="The skill to run on resume, for example `execute-project`.")
    files_to_load: list[str] = Field(
        description="Files to load on resume, relative to the project (or to the workspace root for "
        "`00-system/...`, `02-projects/...`); at least one unless the project is finished."
    )
    current_section: int | None = Field(None, ge=0, description="Current section number in steps.md.")
    current_task: int | str | None = Field(
        None, description="Current task number (a finished project may name it in words, `Project Complete`)."
    )
    total_tasks: int | None = Field(None, ge=0, description="Number of tasks in the plan.")
    tasks_completed: int | None = Field(None, ge=0, description="Number of tasks completed.")
    progress: str | None = Field(None, description="Progress in words, for example `14/40 tasks complete`.")
    rediscovery_round: int | None = Field(None, ge=0, description="How many times discovery was re-run.")
    discovery_complete: bool | None = Field(None, description="Whether discovery is finished.")

    @model_validator(mode="after")
    def _named(self) -> ResumeContext:
        if not self.project_id:
            raise ValueError("a manifest needs `project_id`")
        if self.resume_schema_version is None and self.resume_version is None:
            raise ValueError("a manifest needs `resume_schema_version`")
        if not isinstance(self.current_phase, ResumePhase) or self.current_phase is ResumePhase.COMPLETE:
            return self  # finished: no file to load is needed, the last task may be named in words
        if not self.files_to_load:
            raise ValueError("`files_to_load` needs at least one file while the project is not finished")
        if isinstance(self.current_task, str) or (self.current_task is not None and self.current_task < 0):
            raise ValueError("`current_task` is a task number (>= 0) while the project is not finished")
        return self

    model_config = StrictModel.model_config | {
        "json_schema_extra": {
            # what a resuming session reads, and the project's identity (its own required list: the
            # model's optional `project_id` and version are required by the validator above)
            "required": ["last_updated", "project_id", "project_name", "current_phase", "next_action", "files_to_load"],
            "allOf": [
                {"anyOf": [{"required": ["resume_schema_version"]}, {"required": ["resume_version"]}]},
                {
                    "if": {
                        "properties": {
                            "current_phase": {
                                "type": "string",
                                "pattern": FINISHED_PHASE_PATTERN,
                                "description": "A finished project (`complete`, `COMPLETE`, `completed`).",
                            }
                        },
                        "required": ["current_phase"],
                    },
                    "else": {
                        "properties": {
                            "files_to_load": {
                                "minItems": 1,
                                "description": "An unfinished project lists at least one file to load.",
                            },
                            "current_task": {
                                "anyOf": [{"type": "integer", "minimum": 0}, {"type": "null"}],
                                "description": "An unfinished project's current task is a number.",
                            },
                        }
                    },
                },
            ],
        }
    }


class BuildPhase(str, Enum):
    """The build's phase, as Nexus's generator writes it."""

    PLANNING = "planning"
    EXECUTION = "execution"
    COMPLETE = "complete"


class BuildManifest(StrictModel):
    """Front matter of a build's `01-planning/resume-context.md` (`02-builds/active/NN-name/`, moved to
    `02-builds/complete/NN-name/` when done): a loading manifest that Nexus's generator writes, with the
    sessions that touched the build and its position in the plan."""

    session_id: str | None = Field(None, description="Id of the session that last updated the manifest.")
    session_ids: list[str] | None = Field(
        None, description="Ids of every session that touched the build (SessionStart finds the build by them)."
    )
    resume_schema_version: str | float = Field(description='Version of the manifest format, a string such as `"2.0"`.')
    last_updated: IsoDateTime = Field(description="When the manifest was last updated (ISO-8601).")
    build_id: str = Field(pattern=PROJECT_ID_PATTERN, description="Build folder name, `NN-kebab-case`.")
    build_name: str = Field(min_length=1, description="Human-readable build name.")
    build_type: str | None = Field(None, description="Kind of build, for example `build`.")
    current_phase: BuildPhase | Annotated[str, Field(pattern=FINISHED_PHASE_PATTERN)] = Field(
        description="Phase of the build: `planning`, `execution`, or `complete` once it is finished."
    )
    next_action: str = Field(description="The skill to run on resume, for example `execute-build`.")
    continue_at: str | int | None = Field(None, description="Where to continue in the plan.")
    blockers: list[Any] | str | None = Field(None, description="What blocks the build (empty when nothing does).")
    files_to_load: list[str] = Field(
        description="Files to load on resume, relative to the build folder (or to the workspace root for "
        "`00-system/...`); at least one unless the build is finished."
    )
    rediscovery_round: int | None = Field(None, ge=0, description="How many times discovery was re-run.")
    discovery_complete: bool | None = Field(None, description="Whether discovery is finished.")
    current_section: int | None = Field(None, ge=0, description="Current section number of the steps.")
    current_task: int | str | None = Field(
        None, description="Current task number (a finished build may name it in words)."
    )
    total_tasks: int | None = Field(None, ge=0, description="Number of tasks in the plan.")
    tasks_completed: int | None = Field(None, ge=0, description="Number of tasks completed.")

    @model_validator(mode="after")
    def _unfinished(self) -> BuildManifest:
        if not isinstance(self.current_phase, BuildPhase) or self.current_phase is BuildPhase.COMPLETE:
            return self
        if not self.files_to_load:
            raise ValueError("`files_to_load` needs at least one file while the build is not finished")
        if not self.next_action:
            raise ValueError("`next_action` names the skill to run while the build is not finished")
        if isinstance(self.current_task, str) or (self.current_task is not None and self.current_task < 0):
            raise ValueError("`current_task` is a task number (>= 0) while the build is not finished")
        return self

    model_config = StrictModel.model_config | {
        "json_schema_extra": {
            "if": {
                "properties": {
                    "current_phase": {
                        "type": "string",
                        "pattern": FINISHED_PHASE_PATTERN,
                        "description": "A finished build (`complete`, `COMPLETE`, `completed`).",
                    }
                },
                "required": ["current_phase"],
            },
            "else": {
                "properties": {
                    "files_to_load": {"minItems": 1, "description": "An unfinished build lists at least one file."},
                    "next_action": {"minLength": 1, "description": "An unfinished build names the skill to run."},
                    "current_task": {
                        "anyOf": [{"type": "integer", "minimum": 0}, {"type": "null"}],
                        "description": "An unfinished build's current task is a number.",
                    },
                }
            },
        }
    }


NEXUS_SCHEMAS: dict[str, type[BaseModel]] = {
    "precompact-state": PrecompactState,
    "resume-context": ResumeContext,
    "build-manifest": BuildManifest,
}
