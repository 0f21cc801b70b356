"""The pydantic models of every artifact ctxres checks, and the generated ``*.schema.json``."""

import ctxres

_mixed = ctxres.other_tree(__file__)
if _mixed is not None:  # another checkout's core: nothing here would run as written
    raise SystemExit(f"ctxres: {_mixed}")
