"""``ctxres-hook statusline``: the line Claude Code shows above its footer, for the person at the keyboard.

Claude Code runs a statusline command in its interactive UI after each assistant message, after
``/compact`` and on mode changes (at most every 300 ms), with one JSON document on stdin, and shows
the first line the command prints (ANSI colours allowed). This one prints::

    ctx 72% WARNING │ 2× compacted 172k→3.2k │ feat015-licmig-20260217-001 P2 qg-2#1 │ FRESH 4m

- the context figure the client shows as ``N% context used``, computed from the ``current_usage``
  the client sends (``ctxres.tiers.percent_used`` against its ``context_window_size``), and its tier;
  right after ``/compact`` the client sends no usage (2.1.328: ``current_usage`` and ``used_percentage``
  are null until the next reply), so while the transcript's newest ``compact_boundary`` has no reply after
  it and the client's usage is null or that of the reply before it, the figure is its ``postTokens``'s
  (:func:`after_compaction`);
- the session's compactions (``2× compacted 172k→3.2k``: how many, and the newest one's ``preTokens`` and
  ``postTokens``), shortened to ``2× 172k→3.2k``, then ``2×``, and dropped right after a FRESH section;
- the live workflow (``ctxres.state.live.find_live_workflow``, the chooser every command uses),
  its phase number and name, the current quality gate and iteration;
- how fresh its resumption section is (``ctxres.state.freshness.classify``: FRESH, STALE with the age or
  the phase it lags, CRITICAL), and the compactions whose checkpoint is not acknowledged yet;
- in the ``nexus`` profile, the Nexus project and its phase instead of the workflow.

The line fits the row (:func:`row_width`: the client sends no width): a longer one is shortened segment by
segment, whole words only, then whole segments are dropped (:func:`compose`). The command is never in the
way: whatever goes wrong (stdin that is not JSON, no workflow, a huge or broken file, an unwritable
state folder) it prints a shorter line, at least the context figure, exits 0 and writes nothing on
stderr.

It also records the client's figure for the context monitor: ``<state_dir>/sessions/<session>.figure.json``
(written atomically when the figure changed, and every 5 minutes while it stands still), which
UserPromptSubmit prefers to its transcript estimate while it is recent (``read_figure``). The records are
pruned like SessionStart's session records (:mod:`ctxres.hooks.deliveries`).

Cost: this runs after every message, so what a run needs is remembered in
``<state_dir>/statusline-cache.json`` (private, any version mismatch ignored): each workflow
candidate's status and update time and the chosen file's facts by path, size and mtime (a file is
parsed again only when it changed), the session's start, and the unacknowledged checkpoints by the
checkpoint folder's listing. The transcript only grows: the cache keeps, for the last few transcripts
(:data:`COMPACTIONS_KEPT`), how far it was read and what it held (:func:`compactions`), and a run reads only
the bytes added since, splitting only the lines that name a boundary or a usage (:func:`read_new`).

A statusline the user had is kept: ``--beside CMD`` runs ``CMD`` (the project's own statusline that
``ctxres install-hooks`` wrapped) and shows its first line before ours; without it, a statusline in
the user's own ``~/.claude/settings.json``, which the project's entry hides, is run the same way. Beside
another statusline ours leaves the context figure out and shows only what the other cannot know.
``--segment`` prints that part alone, for a statusline made of widgets (ccstatusline's Custom Command
runs it with the client's JSON plus ``terminal_width``), and runs no other statusline.
"""

from __future__ import annotations

import json
import os
import sys

# A hook loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    import datetime as dt
    from typing import Any

    from ctxres.hooks.context import HookContext

WIDTH = 80
"""The row's width when nothing tells it (:func:`row_width`)."""
CACHE_FILE = "statusline-cache.json"
CACHE_VERSION = 1
BESIDE_SECONDS = 2.0
"""How long the statusline kept beside ours may take."""
SEPARATOR = " │ "
BESIDE_GAP = "  "
MIN_WIDTH = 20
"""The fewest columns a segment (``--segment``) is given."""
ROW_MARGIN = 2
"""Columns left free at the end of the row (the client indents it), when the width is the terminal's."""
SEGMENT_SHARE = 0.5
"""The share of the row a segment takes at most: it sits among the other statusline's widgets."""
_COLOURS = {
    "LOW": "32",
    "WARNING": "33",
    "CRITICAL": "31",
    "COMPACTION": "1;31",
    "UNKNOWN": "2",
    "FRESH": "32",
    "STALE": "33",
}


# --------------------------------------------------------------------------- the client's figure


def figure_of(payload: dict[str, Any]) -> tuple[int | None, int | None, int | None]:
    """(tokens ``T``, window, percent ``N``) from the client's ``context_window``: ``T`` is the last
    reply's input, cache and output tokens (what the client's footer counts), ``N`` the client's
    ``N% context used`` (:func:`ctxres.tiers.percent_used`). Without ``current_usage`` (before the
    first reply) only the client's ``used_percentage`` is known, if that."""
    from ctxres.tiers import percent_used

    block = payload.get("context_window")
    block = block if isinstance(block, dict) else {}
    window = _count(block.get("context_window_size"))
    usage = block.get("current_usage")
    if isinstance(usage, dict) and window:
        parts = [
            _count(usage.get(key))
            for key in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "output_tokens")
        ]
        tokens = sum(part or 0 for part in parts)
        return tokens, window, percent_used(tokens, window)
    used = block.get("used_percentage")
    if isinstance(used, (int, float)) and not isinstance(used, bool) and 0 <= used <= 100:
        return None, window, round(used)
    return None, window, None


def _count(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


# --------------------------------------------------------------------------- the session's compactions

COMPACTIONS_KEPT = 4
"""Transcripts whose compactions the cache remembers (the newest first): sessions side by side."""
READ_BLOCK = 1024 * 1024
MAX_LINE = 2 * 1024 * 1024
"""A longer line is skipped unread (a reply or a boundary line is far smaller)."""
_BOUNDARY_TAG = b"compact_boundary"
_USAGE_TAG = b'"usage"'


def _reply_tokens(line: bytes) -> int | None:
    """``T`` of a main-chain model reply line, as the monitor counts it (``ctxres.transcript``), else None."""
    from ctxres.transcript import reply_tokens

    entry = _payload(line)
    return reply_tokens(entry) if entry is not None else None


def _boundary(line: bytes) -> dict[str, Any] | None:
    """The ``compactMetadata`` of a main-chain ``compact_boundary`` line (``{}`` without one), else None."""
    from ctxres.transcript import boundary_meta

    entry = _payload(line)
    return boundary_meta(entry) if entry is not None else None


def _newest_reply(lines: list[bytes]) -> int | None:
    """``T`` of the newest reply among ``lines`` (parsed newest first, only until one is found)."""
    for line in reversed(lines):
        if _USAGE_TAG in line:
            tokens = _reply_tokens(line)
            if tokens is not None:
                return tokens
    return None


def tally(state: dict[str, Any], lines: list[bytes]) -> None:
    """Add the tagged lines of one stretch of the transcript (in file order) to ``state`` (pure):
    ``count`` boundaries, the newest one's ``pre``/``post`` tokens, ``before`` (``T`` of the last reply
    before it), ``after`` (a reply follows it) and ``last`` (``T`` of the newest reply)."""
    newest = -1
    for index, line in enumerate(lines):
        meta = _boundary(line) if _BOUNDARY_TAG in line else None
        if meta is not None:
            state["count"] = (_count(state.get("count")) or 0) + 1
            state["pre"], state["post"] = _count(meta.get("preTokens")), _count(meta.get("postTokens"))
            newest = index
    if newest >= 0:
        before = _newest_reply(lines[:newest])
        state["before"] = before if before is not None else state.get("last")
        state["after"] = False
        if before is not None:
            state["last"] = before
    reply = _newest_reply(lines[newest + 1 :])
    if reply is not None:
        state["last"] = reply
        state["after"] = True


def read_new(path: str, state: dict[str, Any]) -> None:
    """Read what the transcript gained since ``state["offset"]`` (it only grows; a shorter or another
    file is read again from its start), a block at a time, and :func:`tally` its complete lines that
    name a boundary or a usage. A last line still being written is left for the next run."""
    from ctxres.filereading import open_regular

    descriptor = open_regular(path)
    with os.fdopen(descriptor, "rb", buffering=0) as handle:
        info = os.fstat(handle.fileno())
        offset = state.get("offset")
        if state.get("inode") != info.st_ino or not isinstance(offset, int) or not 0 <= offset <= info.st_size:
            state.clear()
            state.update(inode=info.st_ino, offset=0, count=0)
            offset = 0
        handle.seek(offset)
        carry, skipping = b"", False
        while block := handle.read(READ_BLOCK):
            data = carry + block
            if skipping:  # the rest of a line too long to be a reply or a boundary
                newline = data.find(b"\n") + 1
                offset += newline if newline else len(data)
                data, skipping = (data[newline:], False) if newline else (b"", True)
            end = data.rfind(b"\n") + 1
            if end:
                _tally_block(state, data[:end])
                offset += end
            carry = data[end:]
            if len(carry) > MAX_LINE:
                offset, carry, skipping = offset + len(carry), b"", True
        state["offset"] = offset  # where the line still being written (``carry``) starts


def _tally_block(state: dict[str, Any], data: bytes) -> None:
    """:func:`tally` the lines of ``data`` (complete lines) that carry a tag; the others are not split."""
    spans: dict[int, int] = {}
    for tag in (_BOUNDARY_TAG, _USAGE_TAG):
        at = data.find(tag)
        while at >= 0:
            start = data.rfind(b"\n", 0, at) + 1
            stop = data.find(b"\n", at)
            spans[start] = stop
            at = data.find(tag, stop)
    tally(state, [data[start : spans[start]] for start in sorted(spans)])


def compactions(ctx: HookContext, cache: dict[str, Any]) -> dict[str, Any] | None:
    """The session's compactions from its transcript (``count``, ``pre``, ``post``, ``before``, ``after``,
    ``last``), read incrementally: the cache keeps, per transcript, how far it was read and the tally."""
    path = ctx.payload.get("transcript_path")
    if not isinstance(path, str) or not os.path.isabs(path):
        return None
    known = _mapping(cache.get("compactions"))
    state = dict(_mapping(known.get(path)))
    try:
        read_new(path, state)
    except (OSError, ValueError):
        return None
    kept = {path: state, **{key: value for key, value in known.items() if key != path}}
    cache["compactions"] = dict(list(kept.items())[:COMPACTIONS_KEPT])
    return state


def after_compaction(tokens: int | None, window: int | None, state: dict[str, Any] | None) -> int | None:
    """The tokens after the newest compaction when the client's figure predates it (pure): a boundary with
    ``postTokens`` and no reply after it in the transcript, and the client sent no usage (what it does just
    after ``/compact``) or the usage of the reply before the boundary; else None (the client's figure holds)."""
    if not state or not state.get("count") or state.get("after") or not window:
        return None
    post = _count(state.get("post"))
    if post is None:
        return None
    return post if tokens is None or tokens == state.get("before") else None


def short_tokens(tokens: int | None) -> str:
    """``950``, ``3.6k``, ``164k``, ``1.2M``: a token count in at most five characters."""
    if tokens is None:
        return "?"
    if tokens < 1000:
        return str(tokens)
    if tokens < 9950:
        return f"{tokens / 1000:.1f}k"
    if tokens < 999_500:
        return f"{round(tokens / 1000)}k"
    return f"{tokens / 1_000_000:.1f}M"


# --------------------------------------------------------------------------- the workflow's facts


def _text(value: object) -> str | None:
    if value is None or isinstance(value, (dict, list, bool)):
        return None
    text = value.isoformat() if hasattr(value, "isoformat") else str(value)
    text = " ".join(text.split())
    return text or None


def _mapping(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def position(data: Any) -> dict[str, Any]:
    """Where the workflow stands: its id, the phase (number and name) and the quality gate (id and
    iteration), as the state sections say, else as the resumption section says."""
    from ctxres.state.orchestration import gates, phase_number, pipelines

    workflow = _mapping(data.get("workflow"))
    section = _mapping(data.get("resumption"))
    recovery = _mapping(section.get("recovery_state")) if "recovery_state" in section else section
    trajectory = _mapping(section.get("quality_trajectory"))
    said_phase = phase_number(recovery.get("current_phase"))
    phase, name = None, None
    for pipeline in pipelines(data):
        if pipeline.current_phase is not None:
            phase = pipeline.current_phase
            found = pipeline.phase(phase)
            name = found.name if found is not None else None
            break
    if phase is None:
        phase = said_phase
    if name is None and phase == said_phase:
        name = _text(recovery.get("current_phase_name"))
    gate = _text(trajectory.get("current_gate"))
    iteration = _count(trajectory.get("current_gate_iteration"))
    if gate is None:
        running = next((g for g in gates(data) if g.is_running()), None)
        if running is not None:
            gate, iteration = running.id, running.iterations
    identity = _text(workflow.get("id")) or _text(workflow.get("name")) or _text(data.get("id"))
    return {
        "id": identity,
        "phase": phase,
        "phase_name": name,
        "section_phase": said_phase,
        "gate": gate,
        "iteration": iteration,
    }


def facts_of(ctx: HookContext, path: str, data: Any) -> dict[str, Any]:
    """What the line shows of a workflow file, with its path, size and mtime (the cache's key)."""
    from ctxres.hooks.monitor import workflow_facts
    from ctxres.redact import redact_value

    info = os.stat(path)
    facts = workflow_facts(data) or {"version": None}
    if isinstance(data, dict):
        facts.update(redact_value(position(data)))
    return {"path": ctx.relative(path), "mtime_ns": info.st_mtime_ns, "size": info.st_size, **facts}


def workflow(ctx: HookContext, cache: dict[str, Any]) -> dict[str, Any] | None:
    """The live workflow's facts: chosen by :func:`ctxres.hooks.context.find_workflow` with the
    candidates the cache remembers, parsed only when the chosen file changed."""
    from ctxres.hooks.context import UnreadableWorkflowError, find_workflow, read_yaml

    known = cache.get("candidates") if isinstance(cache.get("candidates"), dict) else {}
    try:
        found = find_workflow(ctx, known=known, load=False)
    except UnreadableWorkflowError as exc:  # named, never an older workflow nor the cached facts
        cache["candidates"] = known
        cache.pop("workflow", None)
        return {"unreadable": exc.relpath, "reason": exc.reason}
    cache["candidates"] = known
    if found is None:
        cache.pop("workflow", None)
        return None
    cached = cache.get("workflow") if isinstance(cache.get("workflow"), dict) else None
    info = os.stat(found.path)
    if (
        found.data is None
        and cached is not None
        and [cached.get("path"), cached.get("mtime_ns"), cached.get("size")]
        == [ctx.relative(found.path), info.st_mtime_ns, info.st_size]
    ):
        return dict(cached)
    data = found.data if found.data is not None else read_yaml(found.path)
    facts = facts_of(ctx, found.path, data)
    cache["workflow"] = facts
    return facts


def pending(ctx: HookContext, folder: str, cache: dict[str, Any]) -> list[str]:
    """The unacknowledged checkpoints, recomputed only when the checkpoint folder's listing or the
    workflow file changed."""
    from ctxres.hooks.monitor import checkpoint_listing

    listing = checkpoint_listing(folder)
    if not listing:
        cache.pop("pending", None)
        return []
    chosen = _mapping(cache.get("workflow"))
    signature = {"checkpoints": listing, "workflow": [chosen.get("path"), chosen.get("mtime_ns"), chosen.get("size")]}
    known = cache.get("pending")
    if isinstance(known, dict) and known.get("signature") == signature and isinstance(known.get("files"), list):
        return [str(name) for name in known["files"]]
    from ctxres.hooks.alerts import pending_checkpoints

    files = [os.path.basename(str(name)) for name in pending_checkpoints(ctx)]
    cache["pending"] = {"signature": signature, "files": files}
    return files


def freshness(
    ctx: HookContext, facts: dict[str, Any], cache: dict[str, Any], moment: dt.datetime
) -> tuple[str, str] | None:
    """(level, short detail) of the resumption section by the staleness rule (docs/formats.md, "Staleness"):
    ``("FRESH", "4 min")``, ``("STALE", "42 min")``, ``("STALE", "phase 2<3")``, ``("CRITICAL", "old session")``;
    None for a section that records no update time (v1.0)."""
    if facts.get("version") != "2.0":
        return None
    from ctxres.hooks.monitor import session_started
    from ctxres.state.freshness import Level, classify
    from ctxres.timestamps import parse_datetime

    session = ctx.payload.get("session_id")
    transcript = ctx.payload.get("transcript_path")
    verdict = classify(
        facts.get("updated_at"),
        now=moment,
        current_phase_started_at=facts.get("phase_started_at"),
        session_started_at=session_started(
            cache,
            session if isinstance(session, str) else "",
            transcript if isinstance(transcript, str) and transcript else None,
        ),
        window_minutes=ctx.settings.staleness_minutes,
    )
    said, state = facts.get("section_phase"), facts.get("phase")
    lags = isinstance(said, int) and isinstance(state, int) and said < state
    if lags:
        return "STALE", f"phase {said}<{state}"
    updated = parse_datetime(facts.get("updated_at"))
    age = _short_age(moment - updated) if updated is not None else "no time"
    if verdict.level is Level.CRITICAL:
        return "CRITICAL", "old session" if updated is not None else age
    if verdict.level is Level.STALE and "previous phase" in verdict.reason:
        return "STALE", "older than phase"
    return verdict.level.value, age


def _short_age(delta: dt.timedelta) -> str:
    """``45s``, ``12m``, ``3h05``, ``2d``; ``+5m`` for a time in the future."""
    seconds = int(delta.total_seconds())
    sign = "+" if seconds < 0 else ""
    seconds = abs(seconds)
    if seconds < 60:
        return f"{sign}{seconds}s"
    if seconds < 3600:
        return f"{sign}{seconds // 60}m"
    if seconds < 86_400:
        return f"{sign}{seconds // 3600}h{seconds % 3600 // 60:02d}"
    return f"{sign}{seconds // 86_400}d"


def nexus_position(ctx: HookContext) -> tuple[str, str | None] | None:
    """(Nexus project, its phase) from the PreCompact state and the project's resume manifest."""
    from ctxres import nexus
    from ctxres.hooks.monitor import load_json

    state = load_json(os.path.join(ctx.project_dir, *nexus.STATE_PATH), nexus.MAX_STATE_BYTES)
    project = nexus.state_project(state)
    if project is None:
        return None
    manifest = os.path.join(ctx.project_dir, nexus.PROJECTS_FOLDER, project, nexus.PLANNING_FOLDER, nexus.MANIFEST_NAME)
    phase = None
    try:
        from ctxres.hooks.context import read_bytes

        split = nexus.split_manifest(read_bytes(manifest, 256 * 1024).decode("utf-8", "replace"))
        if split is not None:
            from ctxres.formats.yamlguard import load

            front = load(split[0].encode("utf-8"))
            if isinstance(front, dict):
                phase = _text(front.get("current_phase", front.get("phase")))
    except Exception:  # a missing or broken manifest: the project alone
        phase = None
    return project, phase


# --------------------------------------------------------------------------- the line


def paint(text: str, code: str | None, colour: bool) -> str:
    return f"\x1b[{code}m{text}\x1b[0m" if colour and code else text


def visible(text: str) -> int:
    """The columns ``text`` takes (ANSI sequences are not counted)."""
    import re

    return len(re.sub(r"\x1b\[[0-9;]*m", "", text))


def _forms(*texts: str) -> list[str]:
    """A segment's forms, longest first, without repeats or empty ones."""
    forms: list[str] = []
    for text in texts:
        if text and text not in forms:
            forms.append(text)
    return forms


def _place_forms(place: dict[str, Any]) -> list[str]:
    """The workflow's position, from ``id P2 Core License Changes qg-2#1`` down to ``P2`` (whole words only)."""
    name = str(place.get("id") or os.path.basename(str(place.get("path") or "workflow")))
    phase = f"P{place['phase']}" if place.get("phase") is not None else ""
    gate = str(place["gate"]) if place.get("gate") else ""
    if gate and place.get("iteration") is not None:
        gate += f"#{place['iteration']}"
    phase_name = str(place["phase_name"]) if place.get("phase_name") else ""

    def words(*parts: str) -> str:
        return " ".join(part for part in parts if part)

    return _forms(
        words(name, phase, phase_name, gate),
        words(name, phase, gate),
        words(phase, gate) if phase or gate else name,
        phase or gate or name,
    )


# The order in which a line that does not fit is made shorter, one step at a time: (segment, form).
# Every form is made of whole words; when the last step is not enough, whole segments are dropped in
# DROP_ORDER. A FRESH section says the least, an unacknowledged compaction or a stale section the most.
LADDER = (
    ("place", 1),
    ("unacked", 1),
    ("config", 1),
    ("fresh-ok", 1),
    ("compacted", 1),
    ("place", 2),
    ("fresh", 1),
    ("figure", 1),
    ("place", 3),
    ("figure", 2),
    ("compacted", 2),
    ("broken", 1),
    ("broken", 2),
)
DROP_ORDER = ("fresh-ok", "compacted", "place", "fresh", "unacked", "config", "broken", "figure")


def _broken_forms(relpath: str, reason: str) -> tuple[str, str, str]:
    """The statusline's forms, longest first, of a live workflow that cannot be read (or whose status is
    unknown): an unresolved merge conflict is said as one, with its line, never as a YAML error."""
    from ctxres.formats.conflicts import CONFLICT
    from ctxres.state.live import UNKNOWN_STATUS

    if CONFLICT in reason:
        line = reason.split(" at line ", 1)[-1].split(" ", 1)[0]
        return (
            f"{relpath}: merge conflict at line {line}: resolve it",
            f"{relpath} CONFLICT line {line}",
            "workflow CONFLICT",
        )
    if reason.startswith(UNKNOWN_STATUS):
        status = reason[len(UNKNOWN_STATUS) :].split(",", 1)[0]
        return (f"{relpath}: unknown status {status}: fix it", f"{relpath} STATUS {status}?", "workflow STATUS?")
    at = reason.rfind(" at line ")
    where = f" at {reason[at + len(' at line ') :]}" if at >= 0 else ""
    return (f"{relpath} cannot be read{where}: fix it", f"{relpath} UNREADABLE{where}", "workflow UNREADABLE")


def compose(
    *,
    percent: int | None,
    tier: str,
    place: dict[str, Any] | None = None,
    nexus_place: tuple[str, str | None] | None = None,
    fresh: tuple[str, str] | None = None,
    unacked: int = 0,
    config_error: bool = False,
    broken: tuple[str, str] | None = None,
    colour: bool = False,
    width: int = WIDTH,
    figure: bool = True,
    compacted: tuple[int, int | None, int | None] | None = None,
) -> str:
    """The line (pure): every segment in its longest form that fits in ``width`` columns. A line that does
    not fit is shortened by :data:`LADDER`, then whole segments are dropped (:data:`DROP_ORDER`): a word
    is never cut. ``figure=False`` (beside another statusline, or as a segment of one) leaves the context
    figure out: the line shows only what the other statusline cannot know; it may then be empty. ``broken``:
    the live workflow that cannot be read, and why (its path is shown whole, or not at all)."""
    segments: dict[str, tuple[list[str], str | None]] = {}
    if figure:
        shown = "ctx --" if percent is None else f"ctx {percent}%"
        tier_word = "" if percent is None else f" {tier}"
        number = "ctx --" if percent is None else f"{percent}%"
        segments["figure"] = (_forms(shown + tier_word, number + tier_word, number), _COLOURS.get(tier))
    if compacted is not None and compacted[0] > 0:
        count, pre, post = compacted
        tokens = f"{short_tokens(pre)}→{short_tokens(post)}"
        segments["compacted"] = (_forms(f"{count}× compacted {tokens}", f"{count}× {tokens}", f"{count}×"), None)
    if nexus_place is not None:
        project, phase = nexus_place
        segments["place"] = (
            _forms(f"nexus {project} {phase or ''}".strip(), f"{project} {phase or ''}".strip(), project),
            None,
        )
    elif place is not None:
        segments["place"] = (_place_forms(place), None)
    if fresh is not None:
        level, detail = fresh
        key = "fresh-ok" if level == "FRESH" else "fresh"
        segments[key] = (_forms(f"{level} {detail}".strip(), level), _COLOURS.get(level, "31"))
    if unacked:
        noun = "compaction" if unacked == 1 else "compactions"
        segments["unacked"] = (_forms(f"{unacked} unacked {noun}", f"{unacked} unacked"), "33")
    if config_error:  # the person sees it at once: `ctxres check` says what is wrong
        segments["config"] = (_forms("config error: ctxres check", "config error"), "31")
    if broken is not None:
        segments["broken"] = (_forms(*_broken_forms(*broken)), "31")
    order = [
        key
        for key in ("figure", "compacted", "place", "broken", "fresh-ok", "fresh", "unacked", "config")
        if key in segments
    ]
    chosen: dict[str, int] = dict.fromkeys(order, 0)

    def line() -> str:
        return SEPARATOR.join(
            paint(segments[key][0][chosen[key]], segments[key][1], colour) for key in order if key in chosen
        )

    def fits() -> bool:
        return visible(line()) <= width

    for key, form in LADDER:
        if fits():
            return line()
        if key in chosen:
            chosen[key] = min(form, len(segments[key][0]) - 1)
    for key in DROP_ORDER:
        if fits():
            return line()
        chosen.pop(key, None)
    return line()


def wants_colour() -> bool:
    return not os.environ.get("NO_COLOR")


# --------------------------------------------------------------------------- the statusline beside ours


def beside_command(argv: list[str]) -> str | None:
    """The command given with ``--beside``, if any."""
    for index, arg in enumerate(argv):
        if arg == "--beside" and index + 1 < len(argv):
            return argv[index + 1]
        if arg.startswith("--beside="):
            return arg.split("=", 1)[1]
    return None


def user_statusline(home: str | None) -> str | None:
    """The command of the statusline in the user's own ``~/.claude/settings.json``, unless it is ours."""
    if not home:
        return None
    from ctxres.hooks.monitor import load_json

    settings = load_json(os.path.join(home, ".claude", "settings.json"), 256 * 1024)
    entry = settings.get("statusLine") if settings else None
    command = entry.get("command") if isinstance(entry, dict) else None
    if not isinstance(command, str) or not command.strip():
        return None
    from ctxres.claude_settings import is_ours

    return None if is_ours({"command": command}) else command


def run_beside(command: str, raw: bytes, cwd: str | None) -> str:
    """The first line the other statusline prints for the same input ("" when it fails or is slow)."""
    import subprocess

    try:
        done = subprocess.run(
            ["sh", "-c", command],
            input=raw,
            capture_output=True,
            timeout=BESIDE_SECONDS,
            cwd=cwd if cwd and os.path.isdir(cwd) else None,
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    lines = done.stdout.decode("utf-8", "replace").splitlines()
    return lines[0].rstrip() if lines else ""


# --------------------------------------------------------------------------- one run


def _payload(raw: bytes) -> dict[str, Any] | None:
    try:
        value = json.loads(raw.decode("utf-8", "replace")) if raw.strip() else None
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _project(payload: dict[str, Any]) -> str | None:
    workspace = payload.get("workspace")
    workspace = workspace if isinstance(workspace, dict) else {}
    for candidate in (workspace.get("project_dir"), os.environ.get("CLAUDE_PROJECT_DIR"), payload.get("cwd")):
        if isinstance(candidate, str) and os.path.isabs(candidate) and os.path.isdir(candidate):
            return os.path.realpath(candidate)
    return None


def line_for(payload: dict[str, Any] | None, *, colour: bool = False, width: int = WIDTH, figure: bool = True) -> str:
    """The line for one statusline document (never raises: each part that fails is left out)."""
    from ctxres.tiers import tier_for

    if payload is None:
        return compose(percent=None, tier="UNKNOWN", colour=colour, width=width, figure=figure)
    tokens, window, percent = figure_of(payload)
    project = _project(payload)
    ctx = None
    broken = False
    if project is not None:
        try:
            from ctxres.hooks.context import HookContext, load_settings

            ctx = HookContext("statusline", payload, project, load_settings(project, resolved=True))
        except Exception as exc:  # a configuration error: the figure, and the error said
            broken = True
            _say(str(exc))
        else:
            if ctx.settings.problem:
                broken = True
                _say(f"configuration error: {ctx.settings.problem}")
    tier = tier_for(None if percent is None else percent / 100).value
    from ctxres.defaults import PROBE_ENV

    if ctx is None or os.environ.get(PROBE_ENV) == "1":  # `ctxres doctor` runs it: nothing read or written
        return compose(percent=percent, tier=tier, colour=colour, width=width, config_error=broken, figure=figure)
    parts: dict[str, Any] = {"config_error": broken, "figure": figure}
    try:  # noqa: SIM105 - contextlib is not imported by the hooks (start-up cost)
        _gather(ctx, tokens, window, parts)
    except Exception:  # fail-open: what was gathered before the failure is shown
        pass
    post = parts.pop("after_compaction", None)
    if post is not None and window:  # the client's figure predates the newest compaction
        from ctxres.tiers import percent_used

        percent = percent_used(post, window)
        tier = tier_for(percent / 100).value
    return compose(percent=percent, tier=tier, colour=colour, width=width, **parts)


def _say(message: str) -> None:
    """A configuration error, as the hooks say it: one line on stderr (the only thing the statusline writes
    there; the line itself shows ``config error``)."""
    from ctxres.hooks.context import warn

    warn(message, "statusline")


def _gather(ctx: HookContext, tokens: int | None, window: int | None, parts: dict[str, Any]) -> None:
    from ctxres.hooks.context import now
    from ctxres.hooks.monitor import load_json, save_json, snapshot

    moment = now()
    folder = ctx.safe(ctx.settings.state_dir)
    session = ctx.payload.get("session_id")
    if tokens is not None and window and isinstance(session, str) and session:
        try:
            from ctxres.hooks.figures import record_figure

            record_figure(folder, session, tokens, window, moment)
        except OSError:
            pass
    cache = load_json(os.path.join(folder, CACHE_FILE))
    if cache is None or cache.get("version") != CACHE_VERSION:
        cache = {"version": CACHE_VERSION}
    before = snapshot(cache)
    try:
        state = compactions(ctx, cache)
        if state and state.get("count"):
            parts["compacted"] = (int(state["count"]), _count(state.get("pre")), _count(state.get("post")))
            parts["after_compaction"] = after_compaction(tokens, window, state)
        if ctx.settings.profile == "nexus":
            parts["nexus_place"] = nexus_position(ctx)
            return
        facts = workflow(ctx, cache)
        if facts is not None and "unreadable" in facts:
            parts["broken"] = (facts["unreadable"], facts["reason"])
        elif facts is not None:
            parts["place"] = facts
            parts["fresh"] = freshness(ctx, facts, cache, moment)
            from ctxres.hooks.monitor import unmerged_count

            listed = facts.get("event_files")
            parts["unacked"] = unmerged_count(pending(ctx, folder, cache), listed if isinstance(listed, list) else [])
    finally:
        if snapshot(cache) != before and (os.path.isdir(folder) or cache.get("workflow")):
            try:  # noqa: SIM105 - as above
                save_json(folder, CACHE_FILE, cache)
            except OSError:
                pass


def row_width(payload: dict[str, Any] | None) -> int:
    """The columns the line may take. Claude Code sends its statusline no width (its JSON has none), so:
    ``terminal_width`` when the JSON has it (ccstatusline adds it for its Custom Command widgets), else
    ``$COLUMNS`` when it is set (a shell does not export it unless asked: set it to fix the width), else
    the size of the controlling terminal (``/dev/tty``: the command's stdin and stdout are pipes), each
    less :data:`ROW_MARGIN`; else :data:`WIDTH`."""
    given = payload.get("terminal_width") if payload else None
    if isinstance(given, int) and not isinstance(given, bool) and given > 0:
        return given
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > ROW_MARGIN:
        return int(columns) - ROW_MARGIN
    try:
        descriptor = os.open("/dev/tty", os.O_RDONLY | getattr(os, "O_NOCTTY", 0))
    except OSError:
        return WIDTH
    try:
        size = os.get_terminal_size(descriptor).columns
    except OSError:
        size = 0
    finally:
        os.close(descriptor)
    return size - ROW_MARGIN if size > ROW_MARGIN else WIDTH


def main(argv: list[str], raw: bytes) -> str:
    """The text to print for one run.

    - ``--segment``: our part alone, without the context figure, in at most :data:`SEGMENT_SHARE` of the
      row (a widget of another statusline, e.g. ccstatusline's Custom Command, which shows its own
      figure); empty when there is nothing to say (the widget is then hidden). No other statusline is run.
    - beside another statusline (``--beside CMD``, else the one in the user's ``~/.claude/settings.json``):
      theirs first, as it printed it, then ours, without the context figure (theirs shows one; a
      second, computed another way, would only disagree), in the columns theirs leaves; ours is left
      out when none are left.
    - alone: our line, the context figure first, in the row's width.
    """
    payload = _payload(raw)
    colour = wants_colour()
    columns = row_width(payload)
    from ctxres.hook_events import STATUSLINE_SEGMENT

    if STATUSLINE_SEGMENT in argv:
        try:
            return line_for(payload, colour=colour, width=max(MIN_WIDTH, int(columns * SEGMENT_SHARE)), figure=False)
        except Exception:  # never in the way
            return ""
    other = beside_command(argv)
    if other is None:
        other = user_statusline(os.environ.get("HOME"))
    theirs = run_beside(other, raw, _project(payload) if payload else None) if other else ""
    if theirs:
        room = columns - visible(theirs) - len(BESIDE_GAP)
        try:
            ours = line_for(payload, colour=colour, width=room, figure=False) if room > 0 else ""
        except Exception:  # never in the way
            ours = ""
        return f"{theirs}{BESIDE_GAP}{ours}" if ours else theirs
    try:
        return line_for(payload, colour=colour, width=columns)
    except Exception:  # never in the way
        return compose(percent=None, tier="UNKNOWN", colour=colour)


def run(argv: list[str]) -> int:
    """The whole process: stdin in, one line out, exit 0, nothing on stderr."""
    try:
        raw = sys.stdin.buffer.read(8 * 1024 * 1024)
    except Exception:
        raw = b""
    try:
        text = main(argv, raw)
    except Exception:
        text = "ctx --"
    try:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()
    except Exception:
        pass
    return 0
