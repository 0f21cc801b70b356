"""``ctxres record``: record a real session as a replay fixture (the recorder is in
:mod:`ctxres.linters.replay.recorder`)."""

from __future__ import annotations

from ctxres.linters.replay.recorder import add_parser as add_parser
