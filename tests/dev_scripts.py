"""The maintainer's scripts of ``dev/`` (not part of the package), loaded from the repository root."""

from __future__ import annotations

import importlib.util
from types import ModuleType

from .conftest import ROOT


def dev_script(name: str) -> ModuleType:
    """``dev/<name>.py`` as a module (its ``main(argv)`` runs it in this process)."""
    spec = importlib.util.spec_from_file_location(f"ctxres_dev_{name}", ROOT / "dev" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
