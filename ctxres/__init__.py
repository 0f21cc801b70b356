"""ctxres: keep the resumption state of long-running Claude Code workflows valid and fresh.

The ``ctxres`` package (this folder) is the core shared by the linters and the runtime hooks.
It imports only the standard library and PyYAML so that hooks start fast.
"""

__version__ = "0.1.0"
