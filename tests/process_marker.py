"""The `processes` marker: which tests start processes (subprocess, fork, a process pool).

CI runs the whole suite on one interpreter and, on the other supported interpreters, the tests that
run in-process only (``-m "not processes"``): starting the real ``ctxres``/``ctxres-hook``, git and
pre-commit is where the suite's time goes, and it checks the same code on every interpreter.

Nobody has to remember the marker. At collection a test is marked when its code can start a process:
the test function, the fixtures it uses, and the helpers of this test suite they call (followed
through functions, classes and modules under ``tests/``) refer to ``subprocess``, ``multiprocessing``,
a process pool or a process function of ``os``. A test that reaches a process only through the
package (in-process code that runs git, say) carries ``@pytest.mark.processes`` explicitly.

While the tests run, every process start is counted: a test that starts one without the marker
fails and says so, so the marker cannot drift from what the tests do, and the in-process selection
stays in-process.
"""

from __future__ import annotations

import builtins
import os
import subprocess
import sys
import sysconfig
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

MARKER = "processes"
MARKER_HELP = (
    f"{MARKER}: the test starts processes (the real ctxres or ctxres-hook, git, pre-commit, a process pool); "
    "set at collection from the test's code, or written by hand when only the package starts them"
)
# The pytest selection of the tests that run in-process only (what CI runs on the other interpreters).
IN_PROCESS_SELECTION = f"not {MARKER}"

TESTS_DIR = Path(__file__).resolve().parent
# Modules whose use means starting a process.
PROCESS_MODULES = ("subprocess", "multiprocessing", "concurrent.futures.process", "pty")
# Names that start a process wherever they come from (a local `import subprocess` is one of the code's names).
PROCESS_NAMES = frozenset({"subprocess", "multiprocessing", "pty", "ProcessPoolExecutor"})
# Names of `os` that start a process.
OS_PROCESS_NAMES = frozenset(
    {"fork", "forkpty", "posix_spawn", "posix_spawnp", "system", "popen", "spawnv", "spawnve", "spawnl", "spawnle"}
    | {"spawnvp", "spawnvpe", "spawnlp", "spawnlpe", "execv", "execve", "execvp", "execvpe", "execl", "execle"}
    | {"execlp", "execlpe"}
)


def _is_process_module(name: str) -> bool:
    return any(name == module or name.startswith(module + ".") for module in PROCESS_MODULES)


def _in_tests(code: types.CodeType) -> bool:
    return Path(code.co_filename).resolve().is_relative_to(TESTS_DIR)


class ProcessReach:
    """Whether code of the test suite can start a process, memoised per code object."""

    def __init__(self) -> None:
        self._known: dict[types.CodeType, bool] = {}

    def function(self, func: Callable[..., Any]) -> bool:
        func = getattr(func, "__wrapped__", func)
        code = getattr(func, "__code__", None)
        if not isinstance(code, types.CodeType) or not _in_tests(code):
            return False
        return self._code(code, getattr(func, "__globals__", {}))

    def _code(self, code: types.CodeType, namespace: dict[str, Any]) -> bool:
        if code in self._known:
            return self._known[code]
        self._known[code] = False  # a recursive helper does not loop
        found = self._names(code, namespace) or any(
            isinstance(const, types.CodeType) and self._code(const, namespace) for const in code.co_consts
        )
        self._known[code] = found
        return found

    def _names(self, code: types.CodeType, namespace: dict[str, Any]) -> bool:
        names = set(code.co_names)
        if names & PROCESS_NAMES:  # `import subprocess` in the function, `ProcessPoolExecutor` of a module
            return True
        for name in names:
            value = namespace.get(name, getattr(builtins, name, None))
            if value is os and names & OS_PROCESS_NAMES:
                return True
            if self._value(value):
                return True
        return False

    def _value(self, value: Any) -> bool:
        if isinstance(value, types.ModuleType):
            if _is_process_module(value.__name__):
                return True
            location = getattr(value, "__file__", None)
            if location and Path(location).resolve().is_relative_to(TESTS_DIR):
                return any(self._value(member) for member in vars(value).values() if _defined_in(member, value))
            return False
        if isinstance(value, type):  # its methods and those it inherits
            classes = value.__mro__[:-1]  # `object` left out
            if any(_is_process_module(cls.__module__) for cls in classes):
                return True
            return any(self.function(member) for cls in classes for member in _methods(cls))
        if callable(value):
            if _is_process_module(getattr(value, "__module__", None) or ""):
                return True
            return self.function(value)
        return False


def _defined_in(member: Any, module: types.ModuleType) -> bool:
    return getattr(member, "__module__", None) == module.__name__


def _methods(cls: type) -> Iterator[Callable[..., Any]]:
    for member in vars(cls).values():
        if isinstance(member, (staticmethod, classmethod)):
            yield member.__func__
        elif isinstance(member, property):
            yield from (accessor for accessor in (member.fget, member.fset, member.fdel) if accessor is not None)
        elif isinstance(member, types.FunctionType):
            yield member


def item_starts_processes(item: pytest.Item, reach: ProcessReach) -> bool:
    """The test's function or one of its fixtures (defined in the test suite) can start a process."""
    function = getattr(item, "function", None)
    if function is not None and reach.function(function):
        return True
    info = getattr(item, "_fixtureinfo", None)
    definitions = getattr(info, "name2fixturedefs", {}) if info is not None else {}
    return any(reach.function(fixture.func) for name in item.fixturenames for fixture in definitions.get(name, ()))


# --- the hooks (conftest.py imports them) ---


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", MARKER_HELP)
    _ProcessCounter.install()


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects by markers
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    reach = ProcessReach()
    for item in items:
        if item.get_closest_marker(MARKER) is None and item_starts_processes(item, reach):
            item.add_marker(MARKER)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Iterator[None]:
    _ProcessCounter.started.clear()
    return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    result = yield
    started = list(_ProcessCounter.started)
    if started and item.get_closest_marker(MARKER) is None:
        pytest.fail(
            f"this test started {len(started)} process(es) ({started[0]}) but is not marked `{MARKER}`, so it "
            f"would run on every interpreter CI uses; add @pytest.mark.{MARKER} (see tests/process_marker.py)",
            pytrace=False,
        )
    return result


class _ProcessCounter:
    """Counts the processes the tests start, in each test's setup and call.

    A process counts when the code that asked for it (the first caller outside the standard library)
    is not the package: the test, a fixture or a helper of the suite, the bench it loads. Processes
    the package starts while a test runs it in-process (``git ls-files`` when it discovers the files,
    the workers of its process pool) are part of the code under test on every interpreter.
    """

    started: list[str] = []  # noqa: RUF012 (one list per test process, cleared before each test)
    installed = False

    @classmethod
    def install(cls) -> None:
        if cls.installed:
            return
        cls.installed = True
        execute_child = subprocess.Popen._execute_child  # type: ignore[attr-defined]

        def counted_execute_child(popen: subprocess.Popen[Any], args: Any, *rest: Any, **kwargs: Any) -> Any:
            if _started_by_the_tests():
                cls.started.append(f"subprocess: {_argv_text(args)}")
            return execute_child(popen, args, *rest, **kwargs)

        subprocess.Popen._execute_child = counted_execute_child  # type: ignore[attr-defined]
        # os.fork and os.forkpty call this first (wrapping them would make the warnings a fork gives
        # in a multi-threaded process name the wrapper instead of the code that forks).
        os.register_at_fork(before=cls._counted_fork)
        for name in ("posix_spawn", "posix_spawnp", "system"):
            original = getattr(os, name, None)
            if original is not None:
                setattr(os, name, cls._counted(f"os.{name}", original))

    @classmethod
    def _counted_fork(cls) -> None:
        if _started_by_the_tests():
            cls.started.append("os.fork")

    @classmethod
    def _counted(cls, label: str, original: Callable[..., Any]) -> Callable[..., Any]:
        def counted(*args: Any, **kwargs: Any) -> Any:
            if _started_by_the_tests():
                cls.started.append(label)
            return original(*args, **kwargs)

        return counted


def _argv_text(args: Any) -> str:
    if isinstance(args, (str, bytes, os.PathLike)):
        return os.fsdecode(args)
    return " ".join(os.fsdecode(arg) for arg in args)[:120]


_STDLIB_DIRS = {str(Path(sysconfig.get_paths()[key]).resolve()) + os.sep for key in ("stdlib", "platstdlib")}
_STDLIB = (*sorted(_STDLIB_DIRS), str(Path(__file__).resolve()))


def _started_by_the_tests() -> bool:
    """The first caller outside the standard library (and this module) is not the package."""
    frame: types.FrameType | None = sys._getframe(1)  # this module's frames are skipped below
    while frame is not None:
        filename = frame.f_code.co_filename
        if not filename.startswith(_STDLIB) and not str(Path(filename).resolve()).startswith(_STDLIB):
            module = str(frame.f_globals.get("__name__", ""))
            return not (module == "ctxres" or module.startswith("ctxres."))
        frame = frame.f_back
    return False  # a thread of the standard library (a process pool's): not the test's own code
