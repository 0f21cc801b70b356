"""``release_check.py`` (the wheel checks of ``nox -s build``), loaded from the repository root."""

from __future__ import annotations

import importlib.util
from types import ModuleType

from ..conftest import ROOT


def release_check() -> ModuleType:
    spec = importlib.util.spec_from_file_location("ctxres_release_check", ROOT / "release_check.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
