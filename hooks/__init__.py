"""ctxres.hooks: the Claude Code hooks (``ctxres-hook EVENT``), one module per event (see ``main``)."""


def cli() -> int:
    """The ``ctxres-hook`` console script: a hook process from start to exit.

    A hook process lives for tens of milliseconds and builds few reference cycles, so the cyclic
    garbage collector is switched off before the hook's modules are imported: its passes during the
    imports cost about 2 million instructions, 3% of a prompt's hook (callgrind). Memory is bounded
    by the hook's input limits and given back at exit. Defined here, in the package the console
    script imports anyway, so that starting a hook loads no module for it; code that imports
    ``ctxres.hooks.main`` in a longer-lived process keeps its collector.
    """
    import gc

    gc.disable()
    from ctxres.hooks.main import main

    return main()
