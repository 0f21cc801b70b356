"""The ``ctxres-hook`` console script's module: a hook process from start to exit.

A hook process lives for tens of milliseconds and builds few reference cycles, so the cyclic garbage
collector is switched off before anything else is imported: its passes during start-up and the
imports cost about 4 million instructions, 5% of a prompt's hook (callgrind). Memory is bounded by
the hook's input limits and given back at exit. Only the console script (and the plugin's entry
script) import this module; code that imports ``ctxres.hooks.main`` in a longer-lived process keeps
its collector.
"""

import gc

gc.disable()

from ctxres.hooks.main import main  # noqa: E402 - after the collector is off

__all__ = ["main"]
