"""The ``nexus`` profile (seed 004): PreCompact saves the active project, SessionStart loads its manifest.

- :func:`precompact`: reads the end of the transcript backwards (at most :data:`TAIL_BYTES`, stopping
  at :data:`ENOUGH_CALLS`: the same cost for 1 MB and 1 GB), counts the Read/Write/Edit/MultiEdit/
  NotebookEdit paths and Bash commands under ``02-projects/NN-name/`` of projects that exist, and
  writes ``00-system/.cache/precompact_state.json``
  (FLAT: ``active_project_id``, ``confidence`` high/medium/low, ``detection_method``
  transcript/cache/fallback, ``timestamp``; under 1 KB; atomically). With no project in the
  transcript the previous state's project is kept (``cache``, confidence low); with none at all the
  project is null (``fallback``). Answers ``{}``: PreCompact cannot add context.
- :func:`sessionstart`: on ``resume`` and ``compact`` only (never ``clear``; not ``startup``), reads
  that state and injects, through ``additionalContext``, the project's
  ``01-planning/resume-context.md``: its ``files_to_load`` in order and its validation questions.

Both are fail-open: a problem is a :class:`HookError` (one stderr line, answer ``{}``). Nothing is
read or written outside the project (the transcript excepted); the state holds only validated
values (a ``NN-kebab-case`` id, enums, a timestamp), so no secret can reach it, and the injected
text is redacted. ``handle(ctx)`` dispatches on ``ctx.event``, so the dispatcher can run this module
for both events.
"""

from __future__ import annotations

import json
import os

from ctxres import nexus
from ctxres.hooks.context import HookContext, HookError, additional_context, iso, now, read_bytes

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover - typing is not imported at run time (start-up cost)
    from typing import Any

EVENTS = ("PreCompact", "SessionStart")
RESUME_SOURCES = ("resume", "compact")
TAIL_BYTES = 2 * 1024 * 1024
"""Bytes read at most from the end of the transcript: recent tool calls are all the detection needs."""
BLOCK_BYTES = 128 * 1024
ENOUGH_CALLS = 20
"""Project-touching tool calls after which reading stops (enough for a clear majority)."""
MAX_PARSED_LINES = 300
"""Tool-call lines parsed at most (each may carry a whole file written by the Write tool)."""
MAX_STATE_BYTES = 64 * 1024
MAX_MANIFEST_BYTES = 256 * 1024
_TOOL_TAG = b'"tool_use"'


def transcript_calls(path: str) -> list[tuple[str, str]]:
    """(tool, project id) of the newest project-touching tool calls of the transcript, newest first;
    reading stops once :data:`ENOUGH_CALLS` are found."""
    from ctxres.transcript import read_backwards

    calls: list[tuple[str, str]] = []
    parsed = 0
    for line in read_backwards(path, budget=TAIL_BYTES, max_line=TAIL_BYTES, tags=(_TOOL_TAG,), block=BLOCK_BYTES):
        parsed += 1
        if parsed > MAX_PARSED_LINES:
            break
        try:
            entry = json.loads(line.decode("utf-8", "replace"))
        except (ValueError, RecursionError):
            continue  # a truncated or broken line: skipped
        if isinstance(entry, dict):
            calls += nexus.tool_calls(entry)
        if len(calls) >= ENOUGH_CALLS:
            break
    return calls


def _existing(ctx: HookContext, calls: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The calls whose project folder exists under ``02-projects/`` (a typo in a path wins nothing)."""
    known: dict[str, bool] = {}
    kept = []
    for tool, project in calls:
        if project not in known:
            known[project] = os.path.isdir(os.path.join(ctx.project_dir, nexus.PROJECTS_FOLDER, project))
        if known[project]:
            kept.append((tool, project))
    return kept


def state_path(ctx: HookContext) -> str:
    """``00-system/.cache/precompact_state.json`` of the project (HookError if it resolves outside)."""
    return ctx.safe(os.path.join(*nexus.STATE_PATH))


def _read_state(path: str) -> Any:
    try:
        return json.loads(read_bytes(path, MAX_STATE_BYTES).decode("utf-8", "replace"))
    except ValueError:
        raise HookError(f"{os.path.basename(path)} is not valid JSON; it is ignored") from None


def _cached(ctx: HookContext, path: str) -> str | None:
    """The project of the previous state, if it names one that still exists."""
    if not os.path.isfile(path):
        return None
    try:
        project = nexus.state_project(_read_state(path))
    except HookError:
        return None
    if project and os.path.isdir(os.path.join(ctx.project_dir, nexus.PROJECTS_FOLDER, project)):
        return project
    return None


def detect(ctx: HookContext, path: str) -> nexus.Detection:
    """The active project from the transcript, else the previous state's, else none."""
    transcript = ctx.payload.get("transcript_path")
    calls: list[tuple[str, str]] = []
    if isinstance(transcript, str) and transcript:
        try:
            calls = _existing(ctx, transcript_calls(transcript))
        except (OSError, ValueError) as exc:  # ValueError: a NUL byte in the path
            _warn(ctx, f"cannot read the transcript ({getattr(exc, 'strerror', None) or exc}); using the cache")
    detection = nexus.detect(calls)
    if detection.project is None:
        cached = _cached(ctx, path)
        if cached:
            return nexus.Detection(cached, "low", "cache", 0, 0, 0)
    return detection


def precompact(ctx: HookContext) -> dict[str, Any]:
    """Save the active project for SessionStart; always ``{}``."""
    path = state_path(ctx)
    detection = detect(ctx, path)
    text = nexus.encode_state(nexus.state_record(detection, iso(now())))
    try:
        from ctxres.atomic import write_atomic

        os.makedirs(os.path.dirname(path), exist_ok=True)
        write_atomic(path, text)
    except OSError as exc:
        raise HookError(f"cannot write {ctx.relative(path)}: {exc.strerror or exc}") from None
    return {}


# --------------------------------------------------------------------------- SessionStart


def _front(text: str) -> tuple[dict[str, Any] | None, str]:
    """The manifest's front matter (None when unreadable) and body."""
    split = nexus.split_manifest(text)
    if split is None:
        return None, text
    import yaml

    from ctxres.yamlguard import load

    try:
        data = load(split[0])  # never crashes on deep nesting; refuses alias bombs
    except (yaml.YAMLError, ValueError, RecursionError):
        return None, split[1]
    return (data if isinstance(data, dict) else None), split[1]


def _manifest(ctx: HookContext, project: str) -> str:
    """The project's manifest (``resume-context.md``, else a legacy ``_resume.md``) relative to the
    workspace, or "" when it has none."""
    folder = os.path.join(nexus.PROJECTS_FOLDER, project)
    for candidate in (
        os.path.join(folder, nexus.PLANNING_FOLDER, nexus.MANIFEST_NAME),
        os.path.join(folder, nexus.PLANNING_FOLDER, nexus.LEGACY_NAME),
        os.path.join(folder, nexus.LEGACY_NAME),
    ):
        if os.path.isfile(ctx.safe(candidate)):
            return candidate.replace(os.sep, "/")
    return ""


def _exists(ctx: HookContext, rel: str) -> bool:
    path = os.path.join(ctx.project_dir, rel)
    return os.path.isfile(path) and ctx.inside(path)


def sessionstart(ctx: HookContext) -> dict[str, Any]:
    """Inject the resume instructions of the saved project on ``resume``/``compact``; else ``{}``."""
    source = ctx.payload.get("source")
    if source not in RESUME_SOURCES:
        return {}  # clear: a clean slate was asked for; startup: no compaction happened
    path = state_path(ctx)
    if not os.path.isfile(path):
        return {}
    data = _read_state(path)
    project = nexus.state_project(data)
    if project is None:
        return {}
    if not os.path.isdir(ctx.safe(os.path.join(nexus.PROJECTS_FOLDER, project))):
        raise HookError(f"the saved project {project} has no folder under {nexus.PROJECTS_FOLDER}/; nothing injected")
    confidence = data.get("confidence") if isinstance(data, dict) else None
    manifest = _manifest(ctx, project)
    front: dict[str, Any] | None = None
    body = ""
    if manifest:
        text = read_bytes(ctx.safe(manifest), MAX_MANIFEST_BYTES).decode("utf-8-sig", "replace")
        front, body = _front(text)
        if front is None:
            _warn(ctx, f"{manifest}: the front matter cannot be read; injecting the file name only")
    text = nexus.resume_instructions(
        project=project,
        confidence=confidence if confidence in nexus.CONFIDENCES else "low",
        source=str(source),
        manifest=manifest,
        front=front,
        body=body,
        exists=lambda rel: _exists(ctx, rel),
    )
    from ctxres.redact import redact

    return additional_context(ctx.event, redact(text))


def handle(ctx: HookContext) -> dict[str, Any]:
    """The dispatcher's entry point: PreCompact or SessionStart of the ``nexus`` profile."""
    if ctx.event == "PreCompact":
        return precompact(ctx)
    if ctx.event == "SessionStart":
        return sessionstart(ctx)
    return {}


def _warn(ctx: HookContext, message: str) -> None:
    from ctxres.hooks.context import warn

    warn(f"{ctx.event}: {message}")
