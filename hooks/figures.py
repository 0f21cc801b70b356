"""The client's own context figure, recorded per session by the statusline for the context monitor.

Claude Code sends its statusline command the usage of the last reply and the context window it uses
(``ctxres.hooks.statusline``); no hook receives them. The statusline records them in
``<state_dir>/sessions/<session>.figure.json`` (beside SessionStart's session records, named like them,
written atomically when the figure changed or its record is 5 minutes old, pruned by the same rule:
:func:`ctxres.hooks.deliveries.prune`), and UserPromptSubmit uses the record instead of its
transcript estimate when it is recent and from the same session (:func:`ctxres.hooks.monitor.read_figure`,
where the file's name is defined: the prompt's hook imports only that module).

Standard library only (``os``); the state file helpers and the clock are imported when used.
"""

from __future__ import annotations

import os

from ctxres.hooks.monitor import FIGURE_MAX_AGE_SECONDS, MAX_FIGURE_BYTES, figure_path

# A hook loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    import datetime as dt

REFRESH_AFTER_SECONDS = FIGURE_MAX_AGE_SECONDS // 6
"""An unchanged figure's record gets a new time once it is this old (5 minutes): the statusline, which runs
after every message, writes the file at most that often while the figure stands still, and the monitor
never drops a figure the client sent a moment ago."""


def record_figure(folder: str, session_id: str, tokens: int, window: int, moment: dt.datetime) -> None:
    """Write the client's figure for this session when it changed, or when the record of an unchanged
    figure is older than :data:`REFRESH_AFTER_SECONDS` (so that :func:`ctxres.hooks.monitor.read_figure`
    keeps trusting a figure the client goes on sending); OSError when it cannot be written."""
    from ctxres.hooks.monitor import load_json, save_json

    path = figure_path(folder, session_id)
    known = load_json(path, MAX_FIGURE_BYTES)
    if (
        known
        and known.get("session_id") == session_id
        and [known.get("tokens"), known.get("window")] == [tokens, window]
        and _recent(known.get("recorded_at"), moment)
    ):
        return
    from ctxres.hooks.context import iso

    record = {"session_id": session_id, "tokens": tokens, "window": window, "recorded_at": iso(moment)}
    new = known is None
    save_json(os.path.dirname(path), os.path.basename(path), record)
    if new:
        from ctxres.hooks.deliveries import prune

        prune(os.path.dirname(path), os.path.basename(path), moment.timestamp())


def _recent(recorded_at: object, moment: dt.datetime) -> bool:
    """Whether a record made at ``recorded_at`` is younger than :data:`REFRESH_AFTER_SECONDS` (and not
    in the future): its time need not be refreshed yet."""
    from ctxres.timestamps import parse_datetime

    recorded = parse_datetime(recorded_at)
    return recorded is not None and 0 <= (moment - recorded).total_seconds() < REFRESH_AFTER_SECONDS
