"""PostToolUse (L3) after a write to a YAML file inside the project: is it a workflow file, did its
state move without its resumption section, and how old is the section? (See ``hooks/posttooluse.py``
for the rules; ``hooks/statemoves.py`` for the comparison with the last state seen.)"""

from __future__ import annotations

import os

from ctxres.hooks.context import additional_context, iso, now, read_bytes, warn
from ctxres.hooks.posttooluse import has_resumption_key

# A hook loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

    from ctxres.hooks.context import HookContext


def is_workflow_file(ctx: HookContext, path: str) -> bool:
    """Whether a written YAML file is a workflow file to check (see the module docstring)."""
    from ctxres.state.live import is_example_path, matches_pattern

    rel = ctx.relative(path)
    if is_example_path(rel):
        return False
    return matches_pattern(rel, ctx.settings.orchestration_patterns) or has_resumption_key(read_bytes(path))


def check_write(ctx: HookContext, path: str) -> dict[str, Any]:
    """The answer to a write of the YAML file ``path`` (absolute, inside the project)."""
    problems: list[str] = []  # said on one stderr line at the end: the answer stays valid
    try:
        return _check(ctx, path, problems)
    finally:
        if problems:
            warn("; ".join(dict.fromkeys(problems)), ctx.event)


def _check(ctx: HookContext, path: str, problems: list[str]) -> dict[str, Any]:
    if not is_workflow_file(ctx, path):
        return {}
    from ctxres.hooks import monitor
    from ctxres.hooks.context import HookError, read_yaml

    try:
        data = read_yaml(path)
    except HookError as exc:  # just written, so the workflow being worked on: the model is told, with the place
        from ctxres.state.live import unreadable_text

        reason = str(exc).removeprefix(f"cannot read {os.path.basename(path)}: ")
        return additional_context(ctx.event, unreadable_text(ctx.relative(path), reason))
    facts = monitor.workflow_facts(data)
    if facts is None or not monitor.is_active(facts):
        return {}
    rel = ctx.relative(path)
    from ctxres.hooks import statemoves  # only for a workflow file: a Bash call never compiles it

    moved = statemoves.state_moves(ctx, rel, data, monitor.state_folder_or_none(ctx, problems), problems, path)
    if moved is not None:
        return _state_moved(ctx, rel, facts, moved, problems)
    if facts["version"] != "2.0":
        return _migrate_hint(ctx, rel, problems)
    return _staleness(ctx, rel, facts, problems)


def _verdict(ctx: HookContext, facts: dict[str, Any], moment: Any, problems: list[str]) -> Any:
    """The age classification of ``updated_at`` (``ctxres.state.freshness.classify``)."""
    from ctxres.hooks import monitor
    from ctxres.state.freshness import classify

    session = ctx.payload.get("session_id")
    transcript = ctx.payload.get("transcript_path")
    cache, before, folder = _cache(ctx, problems)
    started = monitor.session_started(
        cache, session if isinstance(session, str) else "", transcript if isinstance(transcript, str) else None
    )
    verdict = classify(
        facts.get("updated_at"),
        now=moment,
        current_phase_started_at=facts.get("phase_started_at"),
        session_started_at=started,
        window_minutes=ctx.settings.staleness_minutes,
    )
    _save_cache(ctx, folder, cache, before, problems)
    return verdict


def _staleness(ctx: HookContext, rel: str, facts: dict[str, Any], problems: list[str]) -> dict[str, Any]:
    from ctxres.hooks import monitor
    from ctxres.state.freshness import Level

    moment = now()
    verdict = _verdict(ctx, facts, moment, problems)
    if verdict.level is Level.FRESH:
        return {}
    text = monitor.stale_write_text(
        path=rel,
        level=verdict.level.value,
        reason=verdict.reason,
        now=iso(moment),
        critical=verdict.level is Level.CRITICAL,
    )
    return additional_context(ctx.event, text)


def _migrate_hint(ctx: HookContext, rel: str, problems: list[str]) -> dict[str, Any]:
    """The hint to migrate a v1.0 section, once per session and file."""
    from ctxres.hooks import monitor

    session = ctx.payload.get("session_id")
    key = session if isinstance(session, str) else ""
    cache, before, folder = _cache(ctx, problems)
    hints = cache.get("migrate_hints")
    if not isinstance(hints, dict) or hints.get("session_id") != key or not isinstance(hints.get("files"), list):
        hints = {"session_id": key, "files": []}
    if rel in hints["files"]:
        return {}
    hints["files"].append(rel)
    cache["migrate_hints"] = hints
    _save_cache(ctx, folder, cache, before, problems)
    return additional_context(ctx.event, monitor.migrate_hint_text(rel))


def _cache(ctx: HookContext, problems: list[str]) -> tuple[dict[str, Any], str, str | None]:
    """The monitor cache, its snapshot, and the state folder (None: refused, said in ``problems``)."""
    from ctxres.hooks import monitor

    folder = monitor.state_folder_or_none(ctx, problems)
    cache = monitor.load_cache(folder) if folder else {"version": monitor.CACHE_VERSION}
    return cache, monitor.snapshot(cache), folder


def _save_cache(ctx: HookContext, folder: str | None, cache: dict[str, Any], before: str, problems: list[str]) -> None:
    """Write the cache when it changed; a failure is one stderr line (the answer stays valid)."""
    from ctxres.hooks import monitor

    if folder is None or monitor.snapshot(cache) == before:
        return
    try:
        monitor.save_json(folder, monitor.CACHE_FILE, cache)
    except OSError as exc:
        where = os.path.join(ctx.settings.state_dir, monitor.CACHE_FILE)
        from ctxres.atomic import write_problem

        what, todo = write_problem(exc, "the state directory")
        problems.append(f"cannot write {where}: {what}; hints given once may be repeated; {todo}")


# --------------------------------------------------------------------------- the state moved, the section did not


def _state_moved(
    ctx: HookContext, rel: str, facts: dict[str, Any], moved: tuple[list[str], str], problems: list[str]
) -> dict[str, Any]:
    """The warning for a write that moved the state and left the resumption section behind."""
    from ctxres.hooks import statemoves

    moves, source = moved
    moment = now()
    level, age = "STALE", None
    if facts.get("version") == "2.0":
        from ctxres.state.freshness import Level

        verdict = _verdict(ctx, facts, moment, problems)
        if verdict.level is not Level.FRESH:
            level, age = verdict.level.value, verdict.reason
    text = statemoves.warning_text(
        path=rel,
        level=level,
        moves=moves,
        compared_with=source,
        version=str(facts.get("version")),
        updated_at=facts.get("updated_at"),
        now=iso(moment),
        age=age,
    )
    return additional_context(ctx.event, text)
