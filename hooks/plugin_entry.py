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

import ctxres  # noqa: E402

ctxres.clone_whole()  # this clone's hooks, even where python3 has another checkout installed

from ctxres.hooks import cli  # noqa: E402

if __name__ == "__main__":
    sys.exit(cli())  # as the console script: the collector off, then the hook
