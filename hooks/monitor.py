"""The context monitor's files and texts, shared by the UserPromptSubmit and PostToolUse hooks.

Two files live in the state directory (``.jerry/`` by default):

- ``context-monitor-state.json``: the latest context-fill reading (``schemas/monitor-state.schema.json``),
  rewritten on every prompt; the PreCompact hook reads it for the checkpoint it writes.
- ``context-monitor-cache.json``: private to the hooks (its format may change; a file that does not
  match :data:`CACHE_VERSION` is ignored). It remembers what would otherwise cost YAML parsing or a
  walk of the project on every prompt: the workflow file (path, mtime, size and the few fields the
  monitor shows), every workflow file's status and update time (``candidates``, by path, size and
  mtime: the live workflow is chosen from them, ``ctxres.state.live.find_live_workflow``), the
  unacknowledged checkpoints (keyed on the checkpoint folder's listing), when
  the session started, and what was already said once (the re-sent compaction alert, the hint to
  migrate a v1.0 section). The monitor state's schema admits no extra keys, hence a second file.

Everything here is either a pure function (texts, facts taken from loaded data) or a small read or
write of those files. Start-up cost matters (this runs on every prompt): only ``json``, ``os``,
``sys`` and ``contextlib`` (which the dispatcher imports anyway) are imported up front;
``ctxres.atomic`` when a file is written, ``ctxres.state.resumption`` and ``ctxres.timestamps`` only on
the rarer paths that need them.
"""

from __future__ import annotations

import json
import os

# A hook loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    import datetime as dt
    from typing import Any

    from ctxres.hooks.context import HookContext
    from ctxres.transcript import FillReading

STATE_FILE = "context-monitor-state.json"
CACHE_FILE = "context-monitor-cache.json"
STATE_SCHEMA_VERSION = "1.0"
CACHE_VERSION = 1
QG_ITERATION_TOKENS = 29_000
"""Tokens one quality-gate iteration costs, the unit of "remaining".

docs/formats.md, "Tokens per quality-gate iteration".
"""
MAX_HEAD_BYTES = 64 * 1024
"""Bytes read from the start of a transcript to find when the session started."""
_MAX_VALUE_CHARS = 40


# --------------------------------------------------------------------------- files


def state_folder(ctx: HookContext) -> str:
    """The state directory (it need not exist yet); HookError when it leads out of the project."""
    return ctx.safe(ctx.settings.state_dir)


def state_folder_or_none(ctx: HookContext, problems: list[str]) -> str | None:
    """The state directory; None when it leads out of the project (the reason added to ``problems``)."""
    from ctxres.hooks.context import HookError

    try:
        return state_folder(ctx)
    except HookError as exc:
        problems.append(str(exc))
        return None


def load_json(path: str, limit: int = 1024 * 1024) -> dict[str, Any] | None:
    """A small JSON object file, or None when it is missing, too large, not an object, not a regular file
    (a FIFO or a device) or a symbolic link
    (which may lead out of the project; the next write replaces the link with a regular file)."""
    text = _small_text(path, limit)
    return _object(text) if text is not None else None


def _small_text(path: str, limit: int) -> str | None:
    """The text of a regular file of at most ``limit`` bytes (not through a symbolic link); None otherwise."""
    from ctxres.filereading import open_regular

    try:
        with open(open_regular(path, nofollow=True), "rb") as handle:
            raw = handle.read(limit + 1)
    except OSError:
        return None
    return raw.decode("utf-8", "replace") if len(raw) <= limit else None


def _object(text: str) -> dict[str, Any] | None:
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def load_cache(folder: str) -> dict[str, Any]:
    """The hooks' cache, or a new empty one (missing, damaged or from another version)."""
    cache = load_json(os.path.join(folder, CACHE_FILE))
    if cache is None or cache.get("version") != CACHE_VERSION:
        return {"version": CACHE_VERSION}
    return cache


def load_cache_and_copy(folder: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The hooks' cache (:func:`load_cache`) and a second copy of it, parsed from the same bytes, that
    the caller leaves untouched: ``cache != copy`` at the end says whether the cache changed and must be
    written, for the price of one more parse instead of two :func:`snapshot` serializations (the
    cache remembers every workflow file of the project). Values the hooks put in the cache are JSON
    types (lists, not tuples), so equality is the equality of what would be written."""
    text = _small_text(os.path.join(folder, CACHE_FILE), 1024 * 1024)
    cache = _object(text) if text is not None else None
    if text is None or cache is None or cache.get("version") != CACHE_VERSION:
        return {"version": CACHE_VERSION}, {"version": CACHE_VERSION}
    return cache, json.loads(text)


def save_json(folder: str, name: str, data: dict[str, Any]) -> None:
    """Write ``data`` to ``folder/name`` atomically (creating the folder); OSError on failure."""
    from ctxres.atomic import write_atomic

    try:
        os.makedirs(folder, exist_ok=True)
    except FileExistsError:  # a file stands where the folder should be: say that, not "File exists"
        import errno

        raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), folder) from None
    write_atomic(os.path.join(folder, name), json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def snapshot(data: dict[str, Any]) -> str:
    """A comparable copy of a cache, to tell whether it changed and must be written."""
    return json.dumps(data, sort_keys=True, default=str)


# --------------------------------------------------------------------------- session files

SESSIONS_FOLDER = "sessions"
"""``<state_dir>/sessions/``: one small file per session (SessionStart's records,
:mod:`ctxres.hooks.deliveries`; the statusline's figures, below), so two sessions never write one file."""
_SAFE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_")
FIGURE_SUFFIX = ".figure.json"
FIGURE_MAX_AGE_SECONDS = 1800
"""A recorded figure older than this is not used by the monitor (the client runs the statusline after
every assistant message, and it refreshes an unchanged figure's record: :mod:`ctxres.hooks.figures`)."""
MAX_FIGURE_BYTES = 4096


def session_file_name(session_id: str) -> str:
    """``<session_id>.json`` for the ids Claude Code uses (UUIDs); a digest of any other id."""
    if 0 < len(session_id) <= 128 and set(session_id) <= _SAFE:
        return f"{session_id}.json"
    import hashlib

    return f"id-{hashlib.sha256(session_id.encode('utf-8', 'replace')).hexdigest()[:32]}.json"


def figure_path(folder: str, session_id: str) -> str:
    """``<state folder>/sessions/<session>.figure.json``: the client's figure the statusline records
    (:mod:`ctxres.hooks.figures`), beside SessionStart's record of the same session."""
    return os.path.join(folder, SESSIONS_FOLDER, session_file_name(session_id).removesuffix(".json") + FIGURE_SUFFIX)


def _count(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def read_figure(folder: str, session_id: str, moment: dt.datetime) -> dict[str, Any] | None:
    """The figure the statusline recorded for ``session_id``, when it is recent (at most
    :data:`FIGURE_MAX_AGE_SECONDS` old, not in the future); None otherwise."""
    if not session_id:
        return None
    record = load_json(figure_path(folder, session_id), MAX_FIGURE_BYTES)
    if not record or record.get("session_id") != session_id:
        return None
    tokens, window = _count(record.get("tokens")), _count(record.get("window"))
    if tokens is None or not window:
        return None
    from ctxres.timestamps import parse_datetime

    recorded = parse_datetime(record.get("recorded_at"))
    if recorded is None:
        return None
    age = (moment - recorded).total_seconds()
    if not -60 <= age <= FIGURE_MAX_AGE_SECONDS:
        return None
    return {"tokens": tokens, "window": window, "age_seconds": max(0, int(age))}


# --------------------------------------------------------------------------- monitor state


def monitor_state(
    *, session_id: str, timestamp: str, reading: FillReading, tier: str, transcript_path: str | None
) -> dict[str, Any]:
    """The monitor state document for one reading (``schemas/monitor-state.schema.json``)."""
    return {
        "schema_version": STATE_SCHEMA_VERSION,
        "session_id": session_id,
        "timestamp": timestamp,
        "fill": None if reading.fill is None else round(reading.fill, 4),
        "tokens": reading.tokens,
        "window": reading.window,
        "tier": tier,
        "transcript_path": transcript_path,
        "transcript_offset": reading.transcript_size,
        "source": reading.source,
    }


def replace_reading(ctx: HookContext, reading: FillReading | None) -> None:
    """Replace the monitor state's reading with ``reading`` (None: unknown): after a compaction,
    which made the reading wrong (PreCompact, SessionStart ``compact``), and when the client sends
    a figure (SessionStart ``resume``). Only an existing state of this session is rewritten (no
    state folder is created); a failure is said on stderr, never raised."""
    from ctxres.tiers import tier_for

    session = ctx.payload.get("session_id")
    session = session if isinstance(session, str) else ""
    transcript = ctx.payload.get("transcript_path")
    transcript = transcript if isinstance(transcript, str) and transcript else None
    try:
        folder = state_folder(ctx)
    except Exception:  # HookError: the state directory leads out of the project; nothing to reset there
        return
    current = load_json(os.path.join(folder, STATE_FILE))
    if current is None or current.get("session_id") not in (session, None, ""):
        return
    if reading is None:
        from ctxres.transcript import SOURCE_UNKNOWN, FillReading, context_window

        size, _ = context_window()
        reading = FillReading(tokens=None, window=size, fill=None, source=SOURCE_UNKNOWN, reason="")
    from ctxres.hooks.context import iso, now, warn

    tier = tier_for(reading.fill)
    state = monitor_state(
        session_id=session, timestamp=iso(now()), reading=reading, tier=tier.value, transcript_path=transcript
    )
    try:
        save_json(folder, STATE_FILE, state)
    except OSError as exc:
        warn(f"cannot reset {STATE_FILE} after the compaction: {exc.strerror or exc}", ctx.event)


# --------------------------------------------------------------------------- facts of a workflow file


def _text(value: Any) -> str | None:
    """A scalar as JSON-safe text (YAML turns unquoted times into datetime objects)."""
    if value is None or isinstance(value, (dict, list)):
        return None
    if hasattr(value, "isoformat"):
        text: str = value.isoformat()
        return text
    return str(value)


def phase_started_at(data: Any, current_phase: Any = None) -> str | None:
    """``started_at`` of the phase the workflow is in, to tell a section written in a previous phase
    (docs/formats.md, "From a previous phase": STALE). In each pipeline (``ctxres.state.orchestration.pipelines``)
    the phase the *state* says is current wins: the pipeline's ``current_phase``, else its running phases; only when the
    state does not say is ``current_phase`` (the section's, which may be the stale part itself) used.
    The earliest start when pipelines disagree (fewer false STALE)."""
    if not isinstance(data, dict):
        return None
    from ctxres.state.orchestration import phase_number, pipelines

    named = phase_number(current_phase)
    starts = []
    for pipeline in pipelines(data):
        if pipeline.current_phase is not None:
            phases = [pipeline.phase(pipeline.current_phase)]
        else:
            phases = [phase for phase in pipeline.phases if phase.status and phase.status in _running()]
            if not phases and named is not None:
                phases = [pipeline.phase(named)]
        starts += [_text(phase.data.get("started_at")) for phase in phases if phase is not None]
    if not any(starts):
        return None
    from ctxres.timestamps import parse_datetime

    dated = [(moment, text) for text in starts if text and (moment := parse_datetime(text)) is not None]
    return min(dated)[1] if dated else None


def _running() -> frozenset[str]:
    from ctxres.state.orchestration import RUNNING_WORDS

    return RUNNING_WORDS


def workflow_facts(data: Any) -> dict[str, Any] | None:
    """What the hooks need from an ORCHESTRATION file's data; None without a ``resumption`` mapping."""
    if not isinstance(data, dict) or not isinstance(data.get("resumption"), dict):
        return None
    from ctxres.state.orchestration import is_live, workflow_status_of
    from ctxres.state.resumption import detect_version

    section = data["resumption"]
    version = detect_version(section)
    state = section.get("recovery_state") if version == "2.0" else section
    state = state if isinstance(state, dict) else {}
    events = section.get("compaction_events")
    events = events if isinstance(events, dict) else {}
    listed = events.get("events")
    entries = [e for e in listed if isinstance(e, dict)] if isinstance(listed, list) else []
    count = events.get("count")
    if isinstance(count, bool) or not isinstance(count, int):
        count = len(entries)
    files = [os.path.basename(str(e["checkpoint_file"])) for e in entries if e.get("checkpoint_file")]
    facts = {
        "status": workflow_status_of(data),
        "live": is_live(data),
        "version": version,
        "updated_at": _text(state.get("updated_at")) if version == "2.0" else None,
        "last_checkpoint": _text(state.get("last_checkpoint")),
        "compaction_count": count,
        "event_files": files,
        "phase_started_at": phase_started_at(data, state.get("current_phase")),
    }
    from ctxres.redact import redact_value

    return dict(redact_value(facts))  # cached in a file and shown by the monitor: no credential in them


def is_active(facts: dict[str, Any]) -> bool:
    """Whether the workflow is live (ACTIVE, PAUSED: ``ctxres.state.orchestration.LIVE_STATUSES``) or its
    status is not recorded at all. ``live`` is decided when the file is parsed, so the cached facts of
    every prompt need no workflow model."""
    status = facts.get("status")
    if status is None:
        return True
    if isinstance(facts.get("live"), bool):
        return bool(facts["live"])
    from ctxres.state.orchestration import LIVE_STATUSES, workflow_meaning

    return (workflow_meaning(status) or status) in LIVE_STATUSES


# --------------------------------------------------------------------------- transcript and checkpoints


def _first_timestamp(path: str | None) -> tuple[str | None, bool]:
    """(the first ``timestamp`` within the transcript's first 64 KiB, whether that answer is final).

    The answer is final when a time was found, or when none is in a full 64 KiB head: a transcript
    only grows at its end, so its head never changes. A shorter transcript may still get one.
    """
    if not path:
        return None, False
    from ctxres.filereading import open_regular

    try:  # never a FIFO or a device: Claude Code's transcript is a regular file
        with os.fdopen(open_regular(path), "rb") as handle:
            head = handle.read(MAX_HEAD_BYTES)
    except (OSError, ValueError):
        return None, False
    full = len(head) == MAX_HEAD_BYTES
    for line in head.split(b"\n")[:-1] if full else head.split(b"\n"):
        if b'"timestamp"' not in line:
            continue
        try:
            entry = json.loads(line.decode("utf-8", "replace"))
        except (ValueError, RecursionError):
            continue
        stamp = entry.get("timestamp") if isinstance(entry, dict) else None
        if isinstance(stamp, str) and stamp:
            return stamp, True
    return None, full


def session_started(cache: dict[str, Any], session_id: str, transcript_path: str | None) -> str | None:
    """When the session started (its transcript's first timestamp), remembered in ``cache`` per session,
    and so is a full 64 KiB head without any time (``started_at`` null): it is not read again."""
    known = cache.get("session")
    if isinstance(known, dict) and known.get("id") == session_id and "started_at" in known:
        started = known["started_at"]
        return started if isinstance(started, str) and started else None
    started, final = _first_timestamp(transcript_path)
    if final:  # not found in a short transcript: nothing to remember, it is read again next time
        cache["session"] = {"id": session_id, "started_at": started}
    return started


def checkpoint_listing(folder: str) -> list[list[Any]]:
    """``[name, mtime_ns, size]`` of each checkpoint file in the checkpoints folder of the state folder
    ``folder``, by name ([] when none): the signature that tells whether the checkpoints changed."""
    from ctxres.state.checkpoint_names import CHECKPOINTS_FOLDER, number_of_name

    try:
        with os.scandir(os.path.join(folder, CHECKPOINTS_FOLDER)) as entries:
            found = []
            for entry in entries:
                if number_of_name(entry.name) is not None:
                    info = entry.stat()
                    found.append([entry.name, info.st_mtime_ns, info.st_size])
    except OSError:
        return []
    return sorted(found)


# --------------------------------------------------------------------------- texts


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def short_reason(reason: str) -> str:
    """A staleness reason without its leading "`updated_at` <time> is", which the monitor shows already."""
    head = "`updated_at` "
    if reason.startswith(head) and " is " in reason:
        return reason.split(" is ", 1)[1]
    return reason


def compaction_line(recorded: int, unmerged: int) -> str:
    """``Compaction events: N``: those the section records plus checkpoints not merged into it yet."""
    line = f"Compaction events: {recorded + unmerged}"
    if unmerged:
        noun = "checkpoint is" if unmerged == 1 else "checkpoints are"
        line += f" ({unmerged} {noun} not yet acknowledged: `ctxres ack` merges it)"
    return line


def unmerged_count(pending: list[str], event_files: list[str]) -> int:
    """Pending checkpoints the resumption section does not list yet (no double counting)."""
    listed = set(event_files)
    return sum(1 for name in pending if os.path.basename(name) not in listed)


SOURCE_NOTES = {"client": "from the client", "transcript": "from the transcript"}
"""How the monitor says where its figure comes from (``FillReading.source``)."""


def format_monitor(
    *,
    source: str = "transcript",
    tier: str,
    fill: float,
    tokens: int,
    window: int,
    compactions: str,
    resumption: list[str],
    actions: list[str],
) -> str:
    """The ``<context-monitor>`` text (docs/formats.md, "The context-monitor injection"). The fill is the
    client's ``N% context used`` (``ctxres.tiers``): tokens against the usable window."""
    from ctxres.tiers import usable_window

    usable = usable_window(window)
    remaining = max(usable - tokens, 0)
    lines = [
        "<context-monitor>",
        f"CONTEXT STATUS: {tier} ({fill * 100:.0f}% context used)",
        f"Tokens used: {tokens:,} / {usable:,} usable ({SOURCE_NOTES.get(source, source.replace('_', ' '))})",
        f"Estimated remaining: {remaining:,} tokens (~{remaining / QG_ITERATION_TOKENS:.1f} QG iterations)",
        compactions,
        *resumption,
        "",
        "ACTION RECOMMENDED:",
        *(f"- {action}" for action in actions),
        "</context-monitor>",
    ]
    return "\n".join(lines)


def staleness_text(*, level: str, reason: str, window_minutes: int, phase_known: bool) -> str:
    """``FRESH (updated within the last 30 minutes)`` / ``STALE (45 min old, more than 30 minutes)``."""
    if level == "FRESH":
        scope = " and the current phase" if phase_known else ""
        return f"FRESH (updated within the last {window_minutes} minutes{scope})"
    return f"{level} ({_clip(short_reason(reason), 110)})"


def resumption_lines(
    *, facts: dict[str, Any] | None, updated_age: str | None, staleness: str | None, unreadable: str | None = None
) -> list[str]:
    """The monitor's lines about the resumption section of the workflow file (``facts``); ``unreadable``: the
    live workflow that cannot be read (said above the monitor), when there is one."""
    if facts is None and unreadable:
        return [f"Resumption: unknown until {unreadable} can be read (see above)"]
    if facts is None:
        return ["Resumption: no ACTIVE or PAUSED ORCHESTRATION file found in the project"]
    shown = str(facts.get("path"))  # whole: it stands in a command the model runs
    if facts.get("version") is None:
        return [f"Resumption: {shown} has no resumption section"]
    lines = [f"Last checkpoint: {_clip(facts.get('last_checkpoint') or 'none recorded', _MAX_VALUE_CHARS)}"]
    if facts.get("version") != "2.0":
        lines.append(
            f"Resumption staleness: unknown ({shown} has a v1.0 section, which records no update time; "
            f"`ctxres migrate {shown} --write` converts it)"
        )
        return lines
    updated = facts.get("updated_at")
    if updated:
        lines.append(f"Resumption last updated: {_clip(updated, _MAX_VALUE_CHARS)} ({updated_age})")
    else:
        lines.append("Resumption last updated: never (recovery_state.updated_at is not set)")
    lines.append(f"Resumption staleness: {staleness}")
    return lines


def stale_action(path: str) -> str:
    """The extra recommended action when the resumption section is STALE or CRITICAL."""
    return f"In {path}: set recovery_state.updated_at and the fields that changed."


def age_text(updated_at: str | None, now: Any) -> str:
    """``23 min ago`` / ``5 min in the future`` / ``unreadable`` for a recorded update time."""
    from ctxres.timestamps import format_duration, parse_datetime

    moment = parse_datetime(updated_at)
    if moment is None:
        return "not a valid ISO-8601 time"
    delta = now - moment
    if delta.total_seconds() < 0:
        return f"{format_duration(delta)} in the future"
    return f"{format_duration(delta)} ago"


def stale_write_text(*, path: str, level: str, reason: str, now: str, critical: bool) -> str:
    """PostToolUse's warning after a write left the resumption section STALE or CRITICAL."""
    first = f"Resumption staleness after this write to {path}: {level}. {reason[:1].upper()}{reason[1:]}."
    if critical:
        then = (
            "Nothing in the section shows it was updated in this session, so a session resuming from it "
            "would start from old state. Bring the whole resumption section up to date before continuing: "
        )
    else:
        then = "The file changed, but its resumption section still carries the old update time. "
    then += (
        f"Set resumption.recovery_state.updated_at to the current time ({now}) and update, in the same "
        "file, the fields that changed (current_phase, current_activity, next_step, last_checkpoint, "
        "quality_trajectory, defect_summary, agent_summaries)."
    )
    return f"{first}\n{then}"


def migrate_hint_text(path: str) -> str:
    """PostToolUse's one-line hint (once per session and file) for a v1.0 resumption section."""
    return (
        f"{path} has a v1.0 resumption section, which records no update time, so its staleness cannot be "
        f"checked. `ctxres migrate {path} --write` converts it to v2.0 (recovery_state with updated_at, "
        "and the other sub-sections); nothing outside the section changes."
    )
