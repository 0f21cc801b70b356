"""ctxres: keep the resumption state of long-running Claude Code workflows valid and fresh.

The ``ctxres`` package (this folder) is the core shared by the linters and the runtime hooks.
It imports only the standard library and PyYAML so that hooks start fast.
"""

import os as _os
import sys as _sys

# A hook loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from importlib.machinery import ModuleSpec
    from types import ModuleType

__version__ = "0.2.0"

# Installed, the package's rooms sit inside this folder (ctxres/linters, ctxres/hooks, ctxres/schemas).
# In a plain clone of the repository they are the top-level folders beside it, which setuptools maps at
# install time (pyproject.toml, package-dir); a Claude Code plugin runs the hooks from such a clone
# without installing anything. Only those three folders import as ``ctxres.<room>`` from a clone: the
# repository's other folders (tests/, e2e/, bench/, fixtures/) are not part of the package.
ROOMS = ("linters", "hooks", "schemas")

_here = _os.path.dirname(__file__)
_root = _os.path.dirname(_here)


class _CloneRooms:
    """Finds ``ctxres.linters``, ``ctxres.hooks`` and ``ctxres.schemas`` in the folders beside this one."""

    @staticmethod
    def find_spec(
        fullname: str, path: "Sequence[str] | None" = None, target: "ModuleType | None" = None
    ) -> "ModuleSpec | None":
        package, _, room = fullname.rpartition(".")
        if package != __name__ or room not in ROOMS:
            return None
        # The path finder the interpreter already runs (importing importlib.machinery costs a hook ~1 ms).
        finder = _sys.modules["_frozen_importlib_external"].PathFinder
        spec: ModuleSpec | None = finder.find_spec(fullname, [_root])
        return spec


if not _os.path.isdir(_os.path.join(_here, "hooks")) and _os.path.isfile(_os.path.join(_root, "hooks", "main.py")):
    _sys.meta_path.append(_CloneRooms())
