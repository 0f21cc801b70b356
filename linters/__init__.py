"""The linters: ``ctxres`` and its sub-commands (``ctxres.linters.cli``)."""

import ctxres

_mixed = ctxres.other_tree(__file__)
if _mixed is not None:  # another checkout's core: nothing here would run as written
    raise SystemExit(f"ctxres: {_mixed}")

from ctxres.formats.yaml_startup import defer_non_printable_pattern  # noqa: E402 - after the check above

defer_non_printable_pattern()
