"""PostToolUse (L3): is the resumption section still fresh after a write to a workflow file?

Runs after Write, Edit and MultiEdit. A file is a workflow file when its name contains
``ORCHESTRATION`` and ends in ``.yaml``/``.yml``, or when it is any other YAML file whose top level
has a ``resumption:`` key (the rule ``ctxres check`` uses; see ``ctxres/artifacts.py``). Other
tools and files, and files outside the project, get ``{}`` before anything but ``os`` is used.

For a v2.0 section of a running workflow (ACTIVE or PAUSED, or no status recorded),
``recovery_state.updated_at`` is classified as in seed 000 "Staleness Detection" with the
configured window (30 minutes by default), the current phase's ``started_at`` when the file
records it, and the session's start (the first timestamp of its transcript). FRESH answers ``{}``;
STALE and CRITICAL answer a warning saying what is stale and what to update. A finished workflow
(COMPLETE, ...) is history: its writes are not checked here (``ctxres check`` still lints them).

A v1.0 section records no update time, so it cannot be classified: the hint to migrate it is given
once per session and file (remembered in the monitor cache), and later writes answer ``{}``.
"""

from __future__ import annotations

import os

from ctxres.hooks.context import HookError, additional_context, iso, now, read_bytes

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover - typing is not imported at run time (start-up cost)
    from typing import Any

    from ctxres.hooks.context import HookContext

WRITE_TOOLS = frozenset({"Write", "Edit", "MultiEdit"})
YAML_SUFFIXES = (".yaml", ".yml")
NAME_MARK = "ORCHESTRATION"


def written_yaml(payload: dict[str, Any]) -> str | None:
    """The YAML file a Write/Edit/MultiEdit call wrote (``tool_input.file_path``), else None."""
    tool_name = payload.get("tool_name")
    if not isinstance(tool_name, str) or tool_name not in WRITE_TOOLS:  # a list would raise TypeError
        return None
    tool_input = payload.get("tool_input")
    path = tool_input.get("file_path") if isinstance(tool_input, dict) else None
    if not isinstance(path, str) or not path.lower().endswith(YAML_SUFFIXES):
        return None
    return path


def has_resumption_key(raw: bytes) -> bool:
    """Whether a YAML text has a top-level ``resumption:`` key (``resumption :`` too)."""
    start = 0
    while True:
        at = raw.find(b"resumption", start)
        if at < 0:
            return False
        start = at + 1
        if at > 0 and raw[at - 1 : at] != b"\n":
            continue
        if raw[at + len(b"resumption") :].lstrip(b" \t")[:1] == b":":
            return True


def handle(ctx: HookContext) -> dict[str, Any]:
    path = written_yaml(ctx.payload)
    if path is None or not os.path.isabs(path) or not ctx.inside(path):
        return {}
    if NAME_MARK not in os.path.basename(path) and not has_resumption_key(read_bytes(path)):
        return {}
    from ctxres.hooks import monitor
    from ctxres.hooks.context import read_yaml

    facts = monitor.workflow_facts(read_yaml(path))
    if facts is None or not monitor.is_active(facts):
        return {}
    rel = ctx.relative(path)
    if facts["version"] != "2.0":
        return _migrate_hint(ctx, rel)
    return _staleness(ctx, rel, facts)


def _staleness(ctx: HookContext, rel: str, facts: dict[str, Any]) -> dict[str, Any]:
    from ctxres.hooks import monitor
    from ctxres.staleness import Level, classify

    moment = now()
    session = ctx.payload.get("session_id")
    transcript = ctx.payload.get("transcript_path")
    cache, before, folder = _cache(ctx)
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
    _save_cache(ctx, folder, cache, before)
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


def _migrate_hint(ctx: HookContext, rel: str) -> dict[str, Any]:
    """The hint to migrate a v1.0 section, once per session and file."""
    from ctxres.hooks import monitor

    session = ctx.payload.get("session_id")
    key = session if isinstance(session, str) else ""
    cache, before, folder = _cache(ctx)
    hints = cache.get("migrate_hints")
    if not isinstance(hints, dict) or hints.get("session_id") != key or not isinstance(hints.get("files"), list):
        hints = {"session_id": key, "files": []}
    if rel in hints["files"]:
        return {}
    hints["files"].append(rel)
    cache["migrate_hints"] = hints
    _save_cache(ctx, folder, cache, before)
    return additional_context(ctx.event, monitor.migrate_hint_text(rel))


def _cache(ctx: HookContext) -> tuple[dict[str, Any], str, str | None]:
    """The monitor cache, its snapshot, and the state folder (None: refused, already reported)."""
    from ctxres.hooks import monitor

    try:
        folder: str | None = monitor.state_folder(ctx)
    except HookError as exc:
        monitor.warn(ctx, str(exc))
        folder = None
    cache = monitor.load_cache(folder) if folder else {"version": monitor.CACHE_VERSION}
    return cache, monitor.snapshot(cache), folder


def _save_cache(ctx: HookContext, folder: str | None, cache: dict[str, Any], before: str) -> None:
    """Write the cache when it changed; a failure is one stderr line (the answer stays valid)."""
    from ctxres.hooks import monitor

    if folder is None or monitor.snapshot(cache) == before:
        return
    try:
        monitor.save_json(folder, monitor.CACHE_FILE, cache)
    except OSError as exc:
        where = os.path.join(ctx.settings.state_dir, monitor.CACHE_FILE)
        monitor.warn(ctx, f"cannot write {where} ({exc.strerror or exc}); hints given once may be repeated")
