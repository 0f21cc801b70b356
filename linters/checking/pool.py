"""``ctxres check --jobs N``: the per-file checks in N worker processes.

Each worker gets chunks of artifacts and hands back one small :class:`~engine.FileResult` per file
(findings, suppression comments, the facts the checks across files need); the parent runs those
checks. Results come back in the order of the artifacts, so findings do not depend on ``N``.

Ctrl-C stops the run without a traceback from any process (the workers ignore SIGINT, the parent
cancels what has not started); a worker that dies makes the run fail with :class:`WorkerDied`.
"""

from __future__ import annotations

import multiprocessing
import signal
import sys
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from ctxres.config import Config
from ctxres.linters.checking import engine
from ctxres.linters.checking.discovery import Found, artifacts_in
from ctxres.linters.checking.engine import WorkerDied as WorkerDied  # where a caller of the pool catches it
from ctxres.linters.checking.path_runs import PathRun

_config: Config | None = None  # set in each worker by _start


def _start(config: Config) -> None:
    global _config
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent alone decides what Ctrl-C does
    if hasattr(signal, "pthread_sigmask"):  # blocked by the parent while it forked (see results_in_pool)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    _config = config


def _check_chunk(chunk: PathRun) -> list[engine.FileResult]:
    assert _config is not None
    return [engine.check_file(artifact, _config) for artifact in artifacts_in(chunk)]


def chunk_size(files: int, jobs: int, most: int) -> int:
    """About eight chunks per worker (so a slow chunk does not leave the others idle), at most ``most``."""
    return max(1, min(most, -(-files // (jobs * 8))))


def _context() -> multiprocessing.context.BaseContext:
    # fork on Linux: a worker starts with the rule modules and schemas already imported (spawn imports them
    # again, ~0.5 s a worker). Elsewhere the platform's default (fork is unsafe on macOS).
    return multiprocessing.get_context("fork" if sys.platform.startswith("linux") else None)


def results_in_pool(artifacts: Found, config: Config, jobs: int, most: int) -> Iterator[engine.FileResult]:
    """The result of each artifact, in order. Every chunk is submitted at once, as a
    :class:`~ctxres.linters.checking.path_runs.PathRun` (a string: the parent holds a few dozen bytes a file
    until a worker takes them, not an object a file)."""
    size = chunk_size(len(artifacts), jobs, most)
    chunks = artifacts.chunks(size)
    pool = ProcessPoolExecutor(
        max_workers=min(jobs, len(chunks)), mp_context=_context(), initializer=_start, initargs=(config,)
    )
    try:
        # A Ctrl-C between a fork and the worker's _start would make that worker print a traceback: SIGINT is
        # held back while the workers start (the parent gets it right after).
        masking = hasattr(signal, "pthread_sigmask")
        if masking:
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            done = pool.map(_check_chunk, chunks)  # submits every chunk, which starts the workers
            chunks.clear()  # each chunk is held by its task until it is checked, no longer
        finally:
            if masking:
                signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
        for results in done:
            yield from results
    except BrokenProcessPool as exc:
        raise WorkerDied(
            f"a worker process ended abruptly ({exc}); run `ctxres check --jobs 1` to check in one process"
        ) from None
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
