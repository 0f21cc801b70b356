"""Test helper run as a child process (never imported by the package): fault injection for the real code.

Two modes, both run the real ``ctxres-hook`` / ``ctxres`` code (only the interpreter start-up is shared):

``python tests/_kill_child.py server``
    A fork server. It imports the hooks and the CLI once, then reads one JSON command per line on stdin
    and answers one JSON line on stdout. Each command runs in a fresh ``fork()`` of the server, so a
    run costs milliseconds instead of a whole interpreter start. Command fields:

    - ``kind``: ``"hook"`` (``argv`` = ``[EVENT]``, ``stdin`` = the payload text) or ``"cli"``
      (``argv`` = the ``ctxres`` arguments);
    - ``cwd``, ``env`` (variables added to the environment), ``capture`` (a path prefix: the child's
      stdout and stderr go to ``<capture>.out`` / ``<capture>.err``);
    - ``kill_at``: the child sends itself SIGKILL just before its Nth call of one of :data:`WATCHED`
      (``os.open``, ``os.write``, ``os.fsync``, ``os.link``, ``os.replace``, ...: every step of
      ``ctxres.atomic``), so the kill lands inside a write with certainty; ``None`` runs to the end;
    - ``fault``: ``"ENOSPC"`` (every ``os.write`` to a file fails: a full disk) or ``"EROFS"`` (every
      ``os.open`` for writing, ``mkdir``, ``link``, ``rename``, ``replace``, ``unlink`` under
      ``fault_under`` fails: a read-only file system, which root cannot get from ``chmod``) or
      ``"NOLINK"`` (``os.link`` fails with EPERM: a file system without hard links).

    ``os.fsync`` is counted (a kill point) but not performed: the writes of a killed process survive in
    the page cache, durability across a power loss is not what these tests measure, and an fsync on a
    busy shared disk can take a second.

    The answer: ``{"killed": bool, "code": exit status or None, "calls": watched calls made, "stdout",
    "stderr"}``.

``python tests/_kill_child.py barrier EVENT``
    Imports the hook code, prints ``ready``, then runs ``ctxres-hook EVENT`` exactly as the console
    script does (it blocks reading stdin). A test starts many of these, waits until all are ready and
    only then writes their stdin: the processes really run at the same time.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import signal
import sys
from typing import Any

WATCHED = ("open", "write", "fsync", "close", "link", "replace", "rename", "unlink", "mkdir")
_REAL = {name: getattr(os, name) for name in WATCHED}
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


def _preimport() -> None:
    import ctxres.hooks.alerts
    import ctxres.hooks.main
    import ctxres.hooks.monitor
    import ctxres.hooks.posttooluse
    import ctxres.hooks.precompact
    import ctxres.hooks.sessionstart
    import ctxres.hooks.userpromptsubmit
    import ctxres.prompts
    import ctxres.redact  # noqa: F401


def _fault_error(fault: str | None, under: str, name: str, args: tuple[Any, ...]) -> OSError | None:
    """The error the simulated fault raises for this call, or None to let it through."""
    if fault == "NOLINK" and name == "link":
        return OSError(errno.EPERM, os.strerror(errno.EPERM))
    if fault == "ENOSPC" and name == "write" and args and isinstance(args[0], int) and args[0] > 2:
        return OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    if fault != "EROFS" or not args or name in ("write", "fsync", "close"):
        return None
    if name == "open" and not (len(args) > 1 and isinstance(args[1], int) and args[1] & _WRITE_FLAGS):
        return None
    paths = [os.path.abspath(os.fspath(a)) for a in args[:2] if isinstance(a, (str, bytes, os.PathLike))]
    prefix = under.rstrip(os.sep) + os.sep
    if any(p == under or p.startswith(prefix) for p in paths if isinstance(p, str)):
        return OSError(errno.EROFS, os.strerror(errno.EROFS), paths[0])
    return None


def _install(counter: list[int], kill_at: int | None, fault: str | None, under: str) -> None:
    """Wrap the watched ``os`` functions: count calls, SIGKILL before call ``kill_at``, inject ``fault``."""

    def wrap(name: str) -> Any:
        real = _REAL[name]

        def watched(*args: Any, **kwargs: Any) -> Any:
            counter[0] += 1
            if kill_at is not None and counter[0] == kill_at:
                os.kill(os.getpid(), signal.SIGKILL)
            error = _fault_error(fault, under, name, args)
            if error is not None:
                raise error
            if name == "fsync":
                return None  # a kill point, but not performed: see the module docstring
            return real(*args, **kwargs)

        return watched

    for name in WATCHED:
        setattr(os, name, wrap(name))


def _child(command: dict[str, Any]) -> int:
    os.chdir(command["cwd"])
    os.environ.update(command.get("env", {}))
    for fd, suffix in ((1, ".out"), (2, ".err")):
        handle = _REAL["open"](command["capture"] + suffix, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(handle, fd)
        _REAL["close"](handle)
    counter = [0]
    _install(counter, command.get("kill_at"), command.get("fault"), os.path.realpath(command.get("fault_under", "/")))
    code = 0
    try:
        if command["kind"] == "hook":
            from ctxres.hooks.main import run

            text = run(command["argv"], command.get("stdin", "").encode())
            sys.stdout.write(text + "\n" if text else "")  # as ctxres.hooks.main.main: PreCompact prints nothing
        else:
            from ctxres.linters.cli import main

            code = main(command["argv"])
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    with contextlib.suppress(Exception):
        sys.stdout.flush()
        sys.stderr.flush()
    with open(command["capture"] + ".calls", "w") as handle:  # builtin open: not a watched call
        handle.write(str(counter[0]))
    return code


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read()
    except OSError:
        return ""


def serve() -> None:
    _preimport()
    from ctxres.linters.cli import main

    with contextlib.redirect_stdout(sys.stderr):  # warm the CLI's sub-command discovery before forking
        main(["rules"])
    for line in sys.stdin:
        command = json.loads(line)
        for suffix in (".out", ".err", ".calls"):
            with contextlib.suppress(OSError):
                os.unlink(command["capture"] + suffix)
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                code = _child(command)
            finally:
                os._exit(code)
        _, status = os.waitpid(pid, 0)
        killed = os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
        calls = _read(command["capture"] + ".calls")
        reply = {
            "killed": killed,
            "code": None if killed else os.waitstatus_to_exitcode(status),
            "calls": int(calls) if calls else None,
            "stdout": _read(command["capture"] + ".out"),
            "stderr": _read(command["capture"] + ".err"),
        }
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


def barrier(event: str) -> int:
    _preimport()
    from ctxres.hooks.main import main

    sys.stdout.write("ready\n")
    sys.stdout.flush()
    return int(main([event]))


if __name__ == "__main__":
    if sys.argv[1:2] == ["server"]:
        serve()
    elif sys.argv[1:2] == ["barrier"] and len(sys.argv) == 3:
        sys.exit(barrier(sys.argv[2]))
    else:
        sys.exit("usage: _kill_child.py server | barrier EVENT")
