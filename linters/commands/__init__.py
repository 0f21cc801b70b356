"""The sub-commands of ``ctxres``, one module each (a module whose name starts with ``_`` holds what
several commands share, and is no command).

Every module here defines ``add_parser(sub)``, which adds its sub-command to the parser and sets
``handler`` (a function of the parsed arguments that returns the exit status) with
``set_defaults``. ``ctxres.linters.cli`` registers every module of this package, in the order
below (the order of ``ctxres --help``); a module that is not listed is registered after them.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType

# `ctxres check` loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").

EXIT_OK, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2

# The main job first, then the rule documentation and the schemas; the rest by name.
FIRST = ("check", "rules", "schema")
# The module of each sub-command: ``ctxres COMMAND ...`` imports that module alone, not every
# command's (their imports cost as much as the shorter commands' work). A test checks that this
# table names every sub-command the modules register, each with its own module.
COMMAND_MODULES = {
    "check": "check",
    "rule": "rules",
    "rules": "rules",
    "schema": "schema",
    "ack": "ack",
    "append-only": "append_only",
    "audit-history": "audit",
    "baseline": "baseline",
    "catalog": "catalog",
    "doctor": "doctor",
    "init": "init",
    "install-hooks": "install",
    "migrate": "migrate",
    "migrate-nexus": "migrate_nexus",
    "prompt": "prompt",
    "record": "record",
    "reinject": "reinject",
    "renumber": "renumber",
    "replay": "replay",
    "runs": "runs",
    "stale": "stale",
    "timeline": "timeline",
}


def command_modules() -> list[ModuleType]:
    """Every command module of this package (importing one costs nothing until it runs)."""
    import pkgutil  # here: a command's start-up does not list the package

    names = sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_"))
    ordered = [n for n in FIRST if n in names] + [n for n in names if n not in FIRST]
    return [importlib.import_module(f"{__name__}.{name}") for name in ordered]


def command_module(command: str) -> ModuleType | None:
    """The module of the sub-command ``command``, or None when it names none."""
    name = COMMAND_MODULES.get(command)
    return importlib.import_module(f"{__name__}.{name}") if name is not None else None


def elsewhere(root: object) -> str | None:
    """``ctxres: project at ../..`` when a command that acts on the whole project (``root``) runs from another
    folder, so that its paths are read from the right place; None when run at the project's top."""
    here = os.path.realpath(os.getcwd())
    top = os.path.realpath(str(root))
    if here == top:
        return None
    return f"ctxres: the project at {os.path.relpath(top, here)} ({top})"
