"""UserPromptSubmit (L4): the context monitor, on every prompt.

1. Reads how full the context is from the end of the session transcript (``ctxres.transcript``):
   the figure Claude Code shows as ``N% context used`` (``ctxres.tiers``). A transcript that does
   not exist yet (a new session's first prompt) or has no reply yet is normal: nothing is said.
2. Rewrites ``<state_dir>/context-monitor-state.json`` (the PreCompact hook records that fill in
   its checkpoint).
3. At WARNING, CRITICAL and COMPACTION, injects ``<context-monitor>``
   (docs/formats.md, "The context-monitor injection"): the fill, tokens used and left, compaction
   events, the last checkpoint, when the resumption section was last updated and how stale it is,
   and the recommended action.
4. When a checkpoint is not acknowledged yet and the transcript shows that SessionStart's
   ``<compaction-alert>`` did not reach the model after the newest compaction, sends that alert
   here instead, once per checkpoint.

Nothing is injected at LOW, even when the resumption section is STALE or CRITICAL. The format shows
the monitor from WARNING on; at LOW the context is not at risk of compaction, a new session was
already re-oriented by SessionStart (Template 1), and every write to the workflow file is checked
by the PostToolUse hook. A staleness note at LOW would repeat on most prompts of a long discussion
(more than 30 minutes without a state transition is normal), which is the noise this layer must
avoid; it also keeps the most frequent path the cheapest (no YAML, no timestamps parsing).

Cost: a prompt usually reads two small JSON files and the end of the transcript, and writes the
monitor state. At WARNING and above the project is walked for its workflow files (when none is
live, at most every :data:`SEARCH_INTERVAL_SECONDS`) and each is ``stat``-ed: a file is parsed
only when its mtime or size changed since the cache remembered its status and update time, and
the checkpoint hooks' code is imported only when the checkpoint folder changed (see
``hooks/monitor.py`` for the cache).
"""

from __future__ import annotations

import os

from ctxres.defaults import WORKFLOW_ENV
from ctxres.hooks import monitor
from ctxres.hooks.context import (
    HookError,
    UnreadableWorkflowError,
    additional_context,
    find_workflow,
    iso,
    now,
    read_yaml,
    warn,
)
from ctxres.tiers import ALERT_TIERS, action_for, tier_for
from ctxres.transcript import read_fill

# A hook loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    import datetime as dt
    from typing import Any

    from ctxres.hooks.context import HookContext
    from ctxres.tiers import Tier
    from ctxres.transcript import FillReading

SEARCH_INTERVAL_SECONDS = 300
"""With no active workflow file found, the project is walked again at most this often."""


def _string(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def handle(ctx: HookContext) -> dict[str, Any]:
    transcript = _string(ctx.payload.get("transcript_path"))
    session = _string(ctx.payload.get("session_id")) or ""
    moment = now()
    reading = read_fill(transcript)
    problems: list[str] = []
    folder = monitor.state_folder_or_none(ctx, problems)
    reading = _client_figure(folder, session, moment, reading) or reading
    tier = tier_for(reading.fill)
    if reading.trouble:  # not a missing transcript (a new session's first prompt), nor "no reply yet"
        problems.append(f"context fill unknown: {reading.reason}")
    cache, before = monitor.load_cache_and_copy(folder) if folder else ({"version": monitor.CACHE_VERSION}, {})
    pending = _pending(ctx, folder, cache, problems)
    parts = [text for text in (_resend_alert(ctx, cache, pending, transcript, problems),) if text]
    if tier in ALERT_TIERS and reading.fill is not None and reading.tokens is not None:
        parts.append(_monitor_text(ctx, cache, reading, tier, pending, moment, session, transcript, problems))
    else:
        _recheck_workflow(ctx, cache, moment, problems)
    broken = _unreadable_text(cache)
    if broken:
        parts.insert(0, broken)
    if folder is not None and transcript is not None:
        state = monitor.monitor_state(
            session_id=session, timestamp=iso(moment), reading=reading, tier=tier.value, transcript_path=transcript
        )
        _save(ctx, folder, state, cache, before, problems)
    if problems:
        warn("; ".join(problems), ctx.event)
    return additional_context(ctx.event, "\n\n".join(parts)) if parts else {}


def _client_figure(folder: str | None, session: str, moment: dt.datetime, estimate: FillReading) -> FillReading | None:
    """The figure Claude Code sent its statusline for this session (``ctxres.hooks.figures``), when it is
    recent; None otherwise (the transcript estimate stands)."""
    if folder is None or not session:
        return None
    figure = monitor.read_figure(folder, session, moment)
    if figure is None:
        return None
    from ctxres.tiers import fill_of
    from ctxres.transcript import SOURCE_CLIENT, FillReading

    tokens, window = figure["tokens"], figure["window"]
    return FillReading(
        tokens=tokens,
        window=window,
        fill=fill_of(tokens, window),
        source=SOURCE_CLIENT,
        reason=f"Claude Code's own figure, sent to its statusline {figure['age_seconds']} s ago",
        transcript_size=estimate.transcript_size,
        window_source="client",
    )


def _save(
    ctx: HookContext,
    folder: str,
    state: dict[str, Any],
    cache: dict[str, Any],
    before: dict[str, Any],
    problems: list[str],
) -> None:
    """Write the monitor state, and the cache when it changed; a failure is one problem line."""
    try:
        monitor.save_json(folder, monitor.STATE_FILE, state)
        if cache != before:
            monitor.save_json(folder, monitor.CACHE_FILE, cache)
    except OSError as exc:
        from ctxres.atomic import write_problem

        where = os.path.join(ctx.settings.state_dir, monitor.STATE_FILE)
        what, todo = write_problem(exc, "the state directory")
        problems.append(
            f"cannot write {where}: {what}; the monitor still answers, but the PreCompact checkpoint will not "
            f"record the fill; {todo}"
        )


# --------------------------------------------------------------------------- pending checkpoints


def _workflow_stamp(ctx: HookContext, cache: dict[str, Any]) -> list[Any] | None:
    cached = cache.get("workflow")
    if not isinstance(cached, dict) or not isinstance(cached.get("path"), str):
        return None
    try:
        info = os.stat(os.path.join(ctx.project_dir, cached["path"]))
    except OSError:
        return None
    return [cached["path"], info.st_mtime_ns, info.st_size]


def _pending(ctx: HookContext, folder: str | None, cache: dict[str, Any], problems: list[str]) -> list[str]:
    """Unacknowledged checkpoint files, oldest first; recomputed only when the checkpoints changed."""
    listing = monitor.checkpoint_listing(folder) if folder else []
    if not listing:
        cache.pop("pending", None)
        return []
    signature = {"checkpoints": listing, "workflow": _workflow_stamp(ctx, cache)}
    known = cache.get("pending")
    if isinstance(known, dict) and known.get("signature") == signature and isinstance(known.get("files"), list):
        return [str(name) for name in known["files"]]
    try:
        from ctxres.hooks.alerts import pending_checkpoints

        files = [str(name) for name in pending_checkpoints(ctx)]
    except Exception as exc:  # fail-open per part: a checkpoint problem must not silence the monitor
        problems.append(f"cannot list the unacknowledged checkpoints: {exc}")
        return []
    cache["pending"] = {"signature": signature, "files": files}
    return files


def _resend_alert(
    ctx: HookContext, cache: dict[str, Any], pending: list[str], transcript: str | None, problems: list[str]
) -> str | None:
    """SessionStart's compaction alert, when the transcript shows it did not arrive (once per checkpoint)."""
    if not pending:
        return None
    newest = os.path.basename(pending[-1])
    checked = cache.get("alert")
    if isinstance(checked, dict) and checked.get("checkpoint") == newest:
        return None
    from ctxres.hooks.alerts import ALERT_MARKER, compaction_alert
    from ctxres.transcript import compaction_alert_delivered

    delivered = compaction_alert_delivered(transcript, ALERT_MARKER)
    text = None
    if delivered is False:
        try:
            text = compaction_alert(ctx)
        except Exception as exc:  # fail-open per part, as above
            problems.append(f"cannot render the compaction alert for {newest}: {exc}")
            return None
    cache["alert"] = {"checkpoint": newest, "delivered_by_session_start": delivered, "resent": bool(text)}
    return text


# --------------------------------------------------------------------------- the workflow file


def _entry(ctx: HookContext, path: str, data: Any) -> dict[str, Any]:
    """The cached facts of a workflow file: its relative path, mtime and size, and what the monitor shows."""
    info = os.stat(path)
    facts = monitor.workflow_facts(data) or {"version": None}
    return {"path": ctx.relative(path), "mtime_ns": info.st_mtime_ns, "size": info.st_size, **facts}


def _refresh(
    ctx: HookContext, path: str, cached: dict[str, Any] | None, problems: list[str], rel: str | None = None
) -> dict[str, Any] | None:
    """The facts of ``path``: from the cache when its mtime and size did not change, else parsed again.
    ``rel``: ``ctx.relative(path)`` when the caller knows it."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    rel = rel or ctx.relative(path)
    if (
        cached
        and cached.get("path") == rel
        and [cached.get("mtime_ns"), cached.get("size")]
        == [
            info.st_mtime_ns,
            info.st_size,
        ]
    ):
        return cached
    try:
        return _entry(ctx, path, read_yaml(path))
    except (HookError, OSError) as exc:
        problems.append(str(exc))
        return cached if cached and cached.get("path") == rel else None


def _searched_recently(cache: dict[str, Any], moment: dt.datetime) -> bool:
    stamp = cache.get("searched_at")
    if cache.get("workflow") is not None or cache.get("unreadable") is not None or not isinstance(stamp, str):
        return False
    from ctxres.timestamps import parse_datetime

    searched = parse_datetime(stamp)
    return searched is not None and 0 <= (moment - searched).total_seconds() < SEARCH_INTERVAL_SECONDS


def _workflow(
    ctx: HookContext, cache: dict[str, Any], moment: dt.datetime, problems: list[str]
) -> dict[str, Any] | None:
    """The live workflow file's facts, from the cache whenever possible (see the module docstring).

    A file named by ``$CTXRES_ORCHESTRATION`` or pinned by ``live-workflow`` is read directly.
    Otherwise the search runs as every command's does (the workflow files' own update times, then
    their paths), with what the cache remembers of each candidate: only their ``stat`` is paid
    while none changed."""
    from ctxres.defaults import WORKFLOW_ENV  # not ctxres.state.orchestration: a cached workflow needs no model

    named = os.environ.get(WORKFLOW_ENV)
    cached = cache.get("workflow") if isinstance(cache.get("workflow"), dict) else None
    pinned = ctx.settings.live_workflow
    if named or pinned:
        path = ctx.safe(named) if named else pinned
        facts = _refresh(ctx, str(path), cached, problems) if ctx.inside(str(path)) else None
        if facts is None and not named:
            from ctxres.hooks.context import pin_problem

            problems.append(pin_problem(ctx))
        cache["workflow"] = facts
        return facts
    if cached is None and _searched_recently(cache, moment):
        return None
    known = cache.get("candidates") if isinstance(cache.get("candidates"), dict) else {}
    try:
        found = find_workflow(ctx, known=known, load=False)
    except UnreadableWorkflowError as exc:  # named on every prompt until it is fixed; no other workflow served
        cache["candidates"] = known
        cache["workflow"] = None
        cache["unreadable"] = _stamped(ctx, exc.relpath, {"path": exc.relpath, "reason": exc.reason})
        return None
    cache.pop("unreadable", None)
    cache["candidates"] = known
    if found is None:
        entry = None
    elif found.data is not None:  # parsed by this search: its facts come from that parse
        entry = _entry(ctx, found.path, found.data)
    else:
        # The search's relative path is the resolved one (the walk enters no linked folder) unless the file
        # itself is a link: one lstat instead of resolving the path again.
        rel = None if os.path.islink(found.path) else found.relpath
        entry = _refresh(ctx, found.path, cached, problems, rel)
    cache["workflow"] = entry
    # The search's time matters only while no workflow is found (_searched_recently); kept otherwise, it
    # would change the cache, and so cost a durable write of it, on every prompt.
    if entry is None:
        cache["searched_at"] = iso(moment)
    else:
        cache.pop("searched_at", None)
    return entry


def _stamped(ctx: HookContext, relpath: str, entry: dict[str, Any]) -> dict[str, Any]:
    try:
        info = os.stat(os.path.join(ctx.project_dir, relpath))
    except OSError:
        return entry
    return {**entry, "mtime_ns": info.st_mtime_ns, "size": info.st_size}


def _recheck_workflow(ctx: HookContext, cache: dict[str, Any], moment: dt.datetime, problems: list[str]) -> None:
    """Below WARNING: when the workflow the cache last knew (or knew as unreadable) changed, search again,
    so that a live workflow that can no longer be read (or can again) is known at once. One ``stat`` when
    nothing changed; nothing at all when the cache knows no workflow."""
    known = cache.get("unreadable") or cache.get("workflow")
    if not isinstance(known, dict) or not isinstance(known.get("path"), str):
        return
    if os.environ.get(WORKFLOW_ENV) or ctx.settings.live_workflow:
        return  # a named or pinned file is read at WARNING and above, as before
    if _stamped(ctx, known["path"], {}) == {"mtime_ns": known.get("mtime_ns"), "size": known.get("size")}:
        return
    try:
        _workflow(ctx, cache, moment, problems)
    except HookError as exc:
        problems.append(str(exc))


def _unreadable_path(cache: dict[str, Any]) -> str | None:
    """The live workflow that cannot be read (relative to the project), None when there is none."""
    broken = cache.get("unreadable")
    return str(broken["path"]) if isinstance(broken, dict) and broken.get("path") else None


def _unreadable_text(cache: dict[str, Any]) -> str | None:
    broken = cache.get("unreadable")
    if not isinstance(broken, dict) or not isinstance(broken.get("path"), str):
        return None
    from ctxres.state.live import unreadable_text

    return unreadable_text(broken["path"], str(broken.get("reason") or "it does not parse"))


# --------------------------------------------------------------------------- the monitor text


def _monitor_text(
    ctx: HookContext,
    cache: dict[str, Any],
    reading: FillReading,
    tier: Tier,
    pending: list[str],
    moment: dt.datetime,
    session: str,
    transcript: str | None,
    problems: list[str],
) -> str:
    try:
        facts = _workflow(ctx, cache, moment, problems)
    except HookError as exc:
        problems.append(str(exc))
        facts = None
    actions = [action_for(tier)]
    age = staleness = None
    if facts is not None and facts.get("version") == "2.0":
        from ctxres.state.freshness import Level, classify

        verdict = classify(
            facts.get("updated_at"),
            now=moment,
            current_phase_started_at=facts.get("phase_started_at"),
            session_started_at=monitor.session_started(cache, session, transcript),
            window_minutes=ctx.settings.staleness_minutes,
        )
        staleness = monitor.staleness_text(
            level=verdict.level.value,
            reason=verdict.reason,
            window_minutes=ctx.settings.staleness_minutes,
            phase_known=bool(facts.get("phase_started_at")),
        )
        age = monitor.age_text(facts.get("updated_at"), moment) if facts.get("updated_at") else None
        if verdict.level is not Level.FRESH:
            actions.append(monitor.stale_action(str(facts["path"])))
    recorded = facts.get("compaction_count") if facts else None
    event_files = facts.get("event_files") if facts else None
    unmerged = monitor.unmerged_count(pending, event_files if isinstance(event_files, list) else [])
    return monitor.format_monitor(
        source=reading.source,
        tier=tier.value,
        fill=reading.fill or 0.0,
        tokens=reading.tokens or 0,
        window=reading.window,
        compactions=monitor.compaction_line(recorded if isinstance(recorded, int) else 0, unmerged),
        resumption=monitor.resumption_lines(
            facts=facts, updated_age=age, staleness=staleness, unreadable=_unreadable_path(cache)
        ),
        actions=actions,
    )
