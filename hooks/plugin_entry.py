"""Run a ctxres hook from a plain clone of the repository (the Claude Code plugin is not installed).

``python3 "${CLAUDE_PLUGIN_ROOT}/hooks/plugin_entry.py" <event>``: same contract and start-up
cost as the installed ``ctxres-hook`` (it needs only Python 3.10+ and PyYAML).
"""

import os
import sys

# Python puts this script's folder first on sys.path; replace it with the repository root so that
# `ctxres` (and its sub-packages, see ctxres/__init__.py) import from the clone and nothing in
# this folder shadows a standard module.
sys.path[0] = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

from ctxres.hooks.entry import main  # noqa: E402 - the collector off, as for the console script

if __name__ == "__main__":
    sys.exit(main())
