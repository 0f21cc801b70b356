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

__version__ = "0.3.0"

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


def other_tree(room_file: str) -> "str | None":
    """One line when the room whose module is ``room_file`` comes from another tree than this package;
    None when both are one tree (installed: the room inside this folder; a clone: the folder beside it).

    One environment's editable install of a checkout, run from a second checkout's folder (``python -m``
    puts it first on ``sys.path``), imports ``ctxres`` from the second and its rooms from the first,
    through the install's finder: every room's ``__init__`` asks this before anything else is imported.
    """
    above = _os.path.dirname(_os.path.dirname(room_file))
    if above in (_here, _root) or _os.path.realpath(above) in (_os.path.realpath(_here), _os.path.realpath(_root)):
        return None
    room = _os.path.basename(_os.path.dirname(room_file))
    return (
        f"ctxres is imported from {_here} but ctxres.{room} from {_os.path.dirname(room_file)}: two checkouts mixed "
        "in one environment; run it from another folder, or install this folder's checkout (pip install -e .)"
    )


_CLONE = not _os.path.isdir(_os.path.join(_here, "hooks")) and _os.path.isfile(_os.path.join(_root, "hooks", "main.py"))
if _CLONE:
    _sys.meta_path.append(_CloneRooms())


def clone_whole() -> None:
    """In a plain clone, its own rooms before any other finder: the plugin's ``hooks/plugin_entry.py`` runs the
    clone it sits in, whatever checkout the ``python3`` it is given has installed."""
    if _CLONE:
        _sys.meta_path[:] = [_CloneRooms(), *(f for f in _sys.meta_path if not isinstance(f, _CloneRooms))]
