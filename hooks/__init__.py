"""ctxres.hooks: the Claude Code hooks (``ctxres-hook EVENT``), one module per event (see ``main``)."""

# A hook loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").

import ctxres as _core

_mixed = _core.other_tree(__file__)
if _mixed is not None:  # another checkout's core: the hook says so in one line and does nothing (exit 0)
    import sys as _sys

    print(f"ctxres-hook: {_mixed}", file=_sys.stderr)
    raise SystemExit(0)


def cli() -> int:
    """The ``ctxres-hook`` console script: a hook process from start to exit.

    A hook process lives for tens of milliseconds and builds few reference cycles, so the cyclic
    garbage collector is switched off before the hook's modules are imported: its passes during the
    imports cost about 2 million instructions, 3% of a prompt's hook (callgrind). Memory is bounded
    by the hook's input limits and given back at exit. Defined here, in the package the console
    script imports anyway, so that starting a hook loads no module for it; code that imports
    ``ctxres.hooks.main`` in a longer-lived process keeps its collector.

    Once the hook has answered, the process ends without tearing the interpreter down: every file
    the hook wrote is already closed (and synced, ``ctxres.atomic``), stdout and stderr are flushed
    here, and no hook module registers exit handlers. The teardown (clearing every module, a last
    collection) cost about 10 million instructions, 12% of a prompt's hook (callgrind), for memory
    the operating system takes back anyway.
    """
    import gc

    gc.disable()
    from ctxres.hooks.main import main

    code = main()
    _end(code)
    return code  # pragma: no cover - _end does not return


def _end(code: int) -> None:
    """Flush what the hook printed and leave at once (``os._exit``) with ``code``."""
    import os
    import sys

    for stream in (sys.stdout, sys.stderr):
        try:  # noqa: SIM105 - contextlib is not imported by the hooks (start-up cost)
            stream.flush()
        except Exception:  # a closed pipe: the answer cannot be delivered, and the hook must not fail
            pass
    os._exit(code)
