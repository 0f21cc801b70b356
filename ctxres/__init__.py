"""ctxres: keep the resumption state of long-running Claude Code workflows valid and fresh.

The ``ctxres`` package (this folder) is the core shared by the linters and the runtime hooks.
It imports only the standard library and PyYAML so that hooks start fast.
"""

import os as _os

__version__ = "0.1.0"

# Installed, the sub-packages sit inside this folder (ctxres/linters, ctxres/hooks, ...). In a
# plain clone of the repository they are the top-level folders beside it (linters/, hooks/,
# schemas/), which setuptools maps at install time; make them importable from a clone too, so
# that a Claude Code plugin can run the hooks without installing anything.
_here = _os.path.dirname(__file__)
_root = _os.path.dirname(_here)
if not _os.path.isdir(_os.path.join(_here, "hooks")) and _os.path.isfile(_os.path.join(_root, "hooks", "main.py")):
    __path__.append(_root)
