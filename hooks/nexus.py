"""The ``nexus`` profile: PreCompact saves the active project or build, SessionStart loads its manifest.

The files are described in docs/formats.md, "Nexus state".

- :func:`precompact`: reads the end of the transcript backwards (at most :data:`TAIL_BYTES`, stopping
  at :data:`ENOUGH_CALLS`: the same cost for 1 MB and 1 GB), counts the Read/Write/Edit/MultiEdit/
  NotebookEdit paths and Bash commands under ``02-projects/NN-name/`` and ``02-builds/[active/|complete/]
  NN-name/`` of projects and builds that exist, and writes ``00-system/.cache/precompact_state.json``
  (FLAT: ``active_project_id``, ``confidence`` high/medium/low, ``detection_method``
  transcript/cache/fallback, ``timestamp``, and ``metadata: {"kind": "build"}`` for a build; under 1 KB;
  atomically). With nothing in the transcript the previous state's target is kept (``cache``, confidence
  low); with none at all the id is null (``fallback``). Answers ``{}``: PreCompact cannot add context.
- :func:`sessionstart`: on ``resume`` and ``compact`` only (never ``clear``; not ``startup``), finds what
  to resume as Nexus does (a build whose ``session_ids`` lists the session, the transcript's tool calls,
  the saved state, and on ``resume`` the most recently updated active build) and injects, through
  ``additionalContext``, its ``01-planning/resume-context.md``: its ``files_to_load`` in order, its
  validation questions and where to continue. A complete build is named as finished.

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
from ctxres.hooks.context import HookContext, HookError, additional_context, iso, now, read_bytes, warn

# A hook loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Sequence
    from typing import Any

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


def target_folder(ctx: HookContext, target: str) -> str | None:
    """The workspace-relative folder of a target that exists: ``02-projects/<id>``, or for a build the
    first of ``02-builds/active/<id>``, ``02-builds/<id>``, ``02-builds/complete/<id>``; else None."""
    ident = nexus.target_id(target)
    candidates = nexus.build_folders(ident) if nexus.is_build_target(target) else (f"{nexus.PROJECTS_FOLDER}/{ident}",)
    for folder in candidates:
        if os.path.isdir(os.path.join(ctx.project_dir, folder)):
            return folder
    return None


def _existing(ctx: HookContext, calls: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The calls whose project or build folder exists (a typo in a path wins nothing)."""
    known: dict[str, bool] = {}
    kept = []
    for tool, target in calls:
        if target not in known:
            known[target] = target_folder(ctx, target) is not None
        if known[target]:
            kept.append((tool, target))
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
    """The target of the previous state, if it names one that still exists."""
    if not os.path.isfile(path):
        return None
    try:
        target = nexus.state_target(_read_state(path))
    except HookError:
        return None
    if target and target_folder(ctx, target) is not None:
        return target
    return None


def _from_transcript(ctx: HookContext, *, quiet: bool = False) -> nexus.Detection:
    """The target of the transcript's tool calls (projects and builds that exist)."""
    transcript = ctx.payload.get("transcript_path")
    calls: list[tuple[str, str]] = []
    if isinstance(transcript, str) and transcript:
        try:
            calls = _existing(ctx, transcript_calls(transcript))
        except (OSError, ValueError) as exc:  # ValueError: a NUL byte in the path
            if not quiet:
                reason = getattr(exc, "strerror", None) or exc
                warn(f"cannot read the transcript ({reason}); using the cache", ctx.event)
    return nexus.detect(calls)


def detect(ctx: HookContext, path: str) -> nexus.Detection:
    """The active project or build from the transcript, else the previous state's, else none."""
    detection = _from_transcript(ctx)
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
        from ctxres.atomic import write_problem

        what, todo = write_problem(exc, "its folder")
        raise HookError(f"cannot write {ctx.relative(path)}: {what}; {todo}") from None
    return {}


# --------------------------------------------------------------------------- SessionStart


def _front(text: str) -> tuple[dict[str, Any] | None, str]:
    """The manifest's front matter (None when unreadable) and body."""
    split = nexus.split_manifest(text)
    if split is None:
        return None, text
    import yaml

    from ctxres.formats.yamlguard import load

    try:
        data = load(split[0])  # never crashes on deep nesting; refuses alias bombs
    except (yaml.YAMLError, ValueError, RecursionError):
        return None, split[1]
    return (data if isinstance(data, dict) else None), split[1]


def _manifest(ctx: HookContext, folder: str) -> str:
    """The manifest of the project or build at ``folder`` (``resume-context.md``, else a legacy
    ``_resume.md``) relative to the workspace, or "" when it has none."""
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


def build_manifests(ctx: HookContext, stages: tuple[str, ...] = ("active", "", "complete")) -> list[tuple[str, str]]:
    """(build folder, manifest) of the builds of the workspace, workspace-relative: ``02-builds/active/*``,
    ``02-builds/*`` (the flat layout), ``02-builds/complete/*``, each sorted by name."""
    found = []
    for stage in stages:
        base = f"{nexus.BUILDS_FOLDER}/{stage}" if stage else nexus.BUILDS_FOLDER
        try:
            names = sorted(os.listdir(os.path.join(ctx.project_dir, base)))
        except OSError:
            continue
        for name in names:
            if not nexus.is_project_id(name):
                continue  # `active`, `complete` and anything that is no build folder
            manifest = f"{base}/{name}/{nexus.PLANNING_FOLDER}/{nexus.MANIFEST_NAME}"
            if os.path.isfile(os.path.join(ctx.project_dir, manifest)) and ctx.inside(
                os.path.join(ctx.project_dir, manifest)
            ):
                found.append((f"{base}/{name}", manifest))
    return found


def _read_manifest(ctx: HookContext, manifest: str) -> tuple[dict[str, Any] | None, str]:
    text = read_bytes(ctx.safe(manifest), MAX_MANIFEST_BYTES).decode("utf-8-sig", "replace")
    return _front(text)


def _updated(front: dict[str, Any] | None) -> float:
    """The manifest's ``last_updated`` as seconds since the epoch (-inf when it has none that parses)."""
    from ctxres.timestamps import parse_datetime

    instant = parse_datetime(front.get("last_updated")) if isinstance(front, dict) else None
    return instant.timestamp() if instant is not None else float("-inf")


def _latest(candidates: Sequence[tuple[str, str, dict[str, Any] | None]]) -> tuple[str, str, dict[str, Any] | None]:
    """The unfinished build updated last (its ``last_updated``, not the file's mtime), then the first by path."""
    ranked = sorted(candidates, key=lambda c: (nexus.is_finished(c[0], c[2]), -_updated(c[2]), c[0]))
    return ranked[0]


def by_session(ctx: HookContext) -> tuple[str, str, dict[str, Any] | None] | None:
    """(build folder, manifest, front matter) of the build whose ``session_ids`` (or ``session_id``) names
    this session; several: the unfinished one updated last. A manifest is parsed only when its bytes hold
    the session id."""
    session = ctx.payload.get("session_id")
    if not isinstance(session, str) or not session.strip() or len(session) > 256:
        return None
    needle = session.encode("utf-8", "replace")
    matches = []
    for folder, manifest in build_manifests(ctx):
        try:
            raw = read_bytes(ctx.safe(manifest), MAX_MANIFEST_BYTES)
        except HookError:
            continue
        if needle not in raw:
            continue
        front, _body = _front(raw.decode("utf-8-sig", "replace"))
        if front is None:
            continue
        listed = front.get("session_ids")
        if (isinstance(listed, list) and session in listed) or front.get("session_id") == session:
            matches.append((folder, manifest, front))
    return _latest(matches) if matches else None


def most_recent_active(ctx: HookContext) -> tuple[str, str, dict[str, Any] | None] | None:
    """The active build (``02-builds/active/``, or the flat layout's unfinished builds) updated last."""
    candidates = []
    for folder, manifest in build_manifests(ctx, ("active", "")):
        try:
            front, _body = _read_manifest(ctx, manifest)
        except HookError:
            continue
        if not nexus.is_finished(folder, front):
            candidates.append((folder, manifest, front))
    return _latest(candidates) if candidates else None


def _find(ctx: HookContext, source: str) -> tuple[str, str, str, str] | None:
    """(target, folder, how it was found, confidence), as Nexus finds the build to resume: a build that lists
    the session, then the transcript's tool calls, then the state PreCompact saved, then (on ``resume``)
    the most recently updated active build."""
    session = by_session(ctx)
    if session is not None:
        return nexus.build_target(os.path.basename(session[0])), session[0], "session", "high"
    detection = _from_transcript(ctx, quiet=True)
    if detection.project is not None:
        folder = target_folder(ctx, detection.project)
        if folder is not None:
            return detection.project, folder, "transcript", detection.confidence
    path = state_path(ctx)
    if os.path.isfile(path):
        data = _read_state(path)
        target = nexus.state_target(data)
        if target is not None:
            folder = target_folder(ctx, target)
            if folder is None:
                where = nexus.BUILDS_FOLDER if nexus.is_build_target(target) else nexus.PROJECTS_FOLDER
                raise HookError(
                    f"the saved {'build' if where == nexus.BUILDS_FOLDER else 'project'} {nexus.target_id(target)} "
                    f"has no folder under {where}/; nothing injected"
                )
            confidence = data.get("confidence") if isinstance(data, dict) else None
            return target, folder, "state", confidence if confidence in nexus.CONFIDENCES else "low"
    if source == "resume":
        recent = most_recent_active(ctx)
        if recent is not None:
            return nexus.build_target(os.path.basename(recent[0])), recent[0], "recent", "low"
    return None


def sessionstart(ctx: HookContext) -> dict[str, Any]:
    """Inject the resume instructions of the project or build found (:func:`_find`) on ``resume``/``compact``;
    else ``{}``."""
    source = ctx.payload.get("source")
    if source not in RESUME_SOURCES:
        return {}  # clear: a clean slate was asked for; startup: no compaction happened
    found = _find(ctx, str(source))
    if found is None:
        return {}
    target, folder, how, confidence = found
    ctx.safe(folder)
    manifest = _manifest(ctx, folder)
    front: dict[str, Any] | None = None
    body = ""
    if manifest:
        front, body = _read_manifest(ctx, manifest)
        if front is None:
            warn(f"{manifest}: the front matter cannot be read; injecting the file name only", ctx.event)
    text = nexus.resume_instructions(
        project=target,
        confidence=confidence,
        source=str(source),
        manifest=manifest,
        front=front,
        body=body,
        exists=lambda rel: _exists(ctx, rel),
        folder=folder,
        found=how,
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
