"""S001-S003: the time of the last update, ``recovery_state.updated_at``: a real time, not in the future,
not older than a change the file records elsewhere.

The time rules use the pure core in :mod:`ctxres.state.staleness` and :mod:`ctxres.state.freshness` (which
the hooks reuse); the clock is read through :func:`ctxres.state.staleness.utc_now` only.
"""

from __future__ import annotations

import json
import re
from datetime import timedelta
from functools import cache

from ctxres.findings import Finding, Severity
from ctxres.formats.document import JsonPath
from ctxres.linters.checking.registry import register, section_check
from ctxres.linters.checking.resumption_context import (
    RS,
    Context,
    key_line,
    place,
    shown,
)
from ctxres.linters.checking.severity_policy import Case
from ctxres.linters.rules.conformance import schema_text
from ctxres.state import freshness
from ctxres.state import staleness as core
from ctxres.timestamps import Timestamp, format_duration, format_utc, invalid_reason, parse_timestamp


@cache
def _updated_at_pattern() -> re.Pattern[str]:
    """The pattern the schema (C004) checks ``updated_at`` against: S001 reports only what it lets through."""
    schema = json.loads(schema_text("resumption-v2"))
    return re.compile(schema["$defs"]["RecoveryState"]["properties"]["updated_at"]["pattern"])


def _updated_at(ctx: Context) -> Timestamp | None:
    """The time of the last update; None when absent, unreadable or a bare date (C001/C004/S001 say so)."""
    stamp = parse_timestamp(ctx.recovery.get("updated_at"))
    return None if stamp is None or stamp.date_only else stamp


NOT_A_TIME = register(
    "S001",
    "updated-at-not-a-time",
    "`recovery_state.updated_at` is written like a timestamp but is not a real time.",
    case=Case.TOOL_JOB,
    why=(
        "Staleness (PostToolUse, `ctxres stale`, the monitor) is computed from this time; it cannot be "
        "computed from this value."
    ),
    explanation="""
    ## Why
    `updated_at` is how a hook or a resuming session tells whether the resumption section is
    fresh. A value with the right shape but an impossible date or hour (February 30th, 25
    o'clock) cannot be compared with anything, so the staleness checks are silently off.
    (A value that is not even shaped like a timestamp is reported by C004.)

    ## Example
    ```yaml
    resumption:
      recovery_state:
        updated_at: "2026-02-30T25:00:00Z"   # there is no February 30th, no hour 25
    ```

    ## Fix
    Write the real time of the last update of the section, in UTC:
    `updated_at: "2026-02-28T23:00:00Z"`.
    """,
)


@section_check(NOT_A_TIME)
def check_not_a_time(ctx: Context) -> list[Finding]:
    value = ctx.recovery.get("updated_at")
    if not isinstance(value, str) or not _updated_at_pattern().search(value):
        return []
    why = invalid_reason(value)
    if why is None:
        return []
    return [
        ctx.finding(
            NOT_A_TIME,
            (*RS, "updated_at"),
            f"`recovery_state.updated_at` is {shown(value)}, which is not a real time ({why}): "
            "staleness cannot be computed from it",
            "Write the real time of the last update of the section, for example 2026-02-17T12:34:56Z.",
        )
    ]


IN_FUTURE = register(
    "S002",
    "updated-at-in-future",
    "`recovery_state.updated_at` is in the future.",
    case=Case.TOOL_JOB,
    why="A time in the future hides every later change from the staleness checks.",
    explanation="""
    ## Why
    A section stamped in the future looks fresh until that time comes, so a stale section would
    never be flagged. It is usually a typo in the date, a local time written with `Z`, or a time
    without a zone that is read as UTC. Five minutes of clock skew are tolerated.

    ## Example
    ```yaml
    recovery_state:
      updated_at: "2062-02-17T12:34:56Z"   # 2026 was meant
    ```

    ## Fix
    Set `updated_at` to the time of the last update, with its time zone (`Z` for UTC, or an
    offset such as `+02:00`).
    """,
)


@section_check(IN_FUTURE)
def check_in_future(ctx: Context) -> list[Finding]:
    stamp = _updated_at(ctx)
    if stamp is None:
        return []
    now = core.utc_now()
    ahead = freshness.in_future(stamp.instant, now)
    if ahead is None:
        return []
    zone_hint = " Without a time zone the value is read as UTC: add `Z` or the offset." if stamp.assumed_utc else ""
    return [
        ctx.finding(
            IN_FUTURE,
            (*RS, "updated_at"),
            f"`recovery_state.updated_at` is {format_utc(stamp.instant)}{stamp.note()}, "
            f"{format_duration(ahead)} in the future (it is now {format_utc(now)}): "
            "the section would look fresh until then",
            "Set updated_at to the time of the last update, with its time zone." + zone_hint,
        )
    ]


def _newer_than(found: core.Found, updated: Timestamp) -> str:
    """How much later the other time is, in words."""
    if found.stamp.date_only:
        return f"the date {found.stamp.text}, a later day than updated_at in every time zone"
    lag = found.stamp.instant - updated.instant
    return f"{format_utc(found.stamp.instant)}{found.stamp.note()}, {format_duration(lag)} later"


def _newest_behind(ctx: Context, updated: Timestamp, outside: bool) -> core.Found | None:
    """The newest recorded time later than ``updated`` beyond the window: outside the resumption
    section, or anywhere in the file (the section's own entries included); None when there is none."""
    horizon = core.utc_now() + freshness.DEFAULT_CLOCK_SKEW
    # Compaction events are the acknowledgement rules' (A011 says what a merged checkpoint left behind).
    skipped: JsonPath = ("resumption",) if outside else ("resumption", "compaction_events")
    newest = core.newest_timestamp(
        ctx.doc.data, exclude=(*RS, "updated_at"), not_after=horizon, also_exclude=(skipped,)
    )
    window = timedelta(minutes=ctx.config.staleness_minutes)
    if newest is None or freshness.behind(updated.instant, core.earliest_instant(newest.stamp), window) is None:
        return None
    return newest


BEHIND_FILE = register(
    "S003",
    "updated-at-behind-file",
    "`recovery_state.updated_at` is older than a change recorded elsewhere in the file.",
    case=Case.WRONG_RESUMPTION,
    why=(
        "The section is older than a change recorded elsewhere in the file: the next session resumes from"
        " an older state. A later time inside the section itself is a warning (`updated_at` not bumped)."
    ),
    explanation="""
    ## Why
    The update protocol rewrites `recovery_state` at every state transition (phase start or end,
    quality-gate iteration, agent completion, compaction, decision). When another section
    records an event (a checkpoint, a gate iteration, an agent's `completed_at`, a decision)
    more than the staleness window (30 minutes, `staleness-minutes`) after `updated_at`, the
    resumption section was not updated for it: a session that resumes from it re-does or skips
    work. The message names the newest time in the file and its line. Planned times
    (`estimated_completion`, `deadline`, ...) and times in the future are not events and are
    not used; a bare date counts only when it is a later day in every time zone.

    ## Example
    ```yaml
    checkpoints:
      entries:
        - id: "CP-006"
          timestamp: "2026-02-23T02:00:00Z"
    resumption:
      recovery_state:
        last_checkpoint: "CP-005"
        updated_at: "2026-02-23T01:00:00Z"   # before CP-006 was recorded
    ```

    ## Fix
    Bring the resumption section up to date with what the newer entry records (the current
    phase, checkpoint, trajectory, summaries) and set `updated_at` to the time of that update.

    ## A later time inside the section itself: a warning
    When the only later time is in the resumption section itself (a `decision_log` entry logged
    after the last update, an agent summary's time), the section does hold that change: only
    `updated_at` was not bumped. That is reported as a **warning** ("updated_at not bumped"),
    not as a stale section.
    """,
)


@section_check(BEHIND_FILE)
def check_behind_file(ctx: Context) -> list[Finding]:
    """An error when another section records a later change; a warning when only the resumption
    section itself does (an entry logged in it, `updated_at` not bumped: the section holds the change)."""
    stamp = _updated_at(ctx)
    if stamp is None:
        return []
    tolerance = f"(tolerance {ctx.config.staleness_minutes} minutes)"
    newest = _newest_behind(ctx, stamp, outside=True)
    if newest is not None:
        return [
            ctx.finding(
                BEHIND_FILE,
                (*RS, "updated_at"),
                f"`recovery_state.updated_at` is {format_utc(stamp.instant)}{stamp.note()}, but "
                f"{place(ctx.doc, newest.path)} records {_newer_than(newest, stamp)}: the resumption section "
                f"was not updated after that change {tolerance}",
                f"Bring the resumption section up to date with what line {key_line(ctx.doc, newest.path)} records "
                "and set updated_at to the time of that update.",
            )
        ]
    inside = _newest_behind(ctx, stamp, outside=False)
    if inside is None:
        return []
    finding = ctx.finding(
        BEHIND_FILE,
        (*RS, "updated_at"),
        f"`recovery_state.updated_at` is {format_utc(stamp.instant)}{stamp.note()}, but "
        f"{place(ctx.doc, inside.path)}, inside the resumption section, records {_newer_than(inside, stamp)}: "
        f"updated_at was not bumped when that entry was written {tolerance}",
        f"Set updated_at to the time of the last update of the section (at least what line "
        f"{key_line(ctx.doc, inside.path)} records).",
    )
    return [finding.replace(severity=Severity.WARNING)]
