"""The defaults of the settings the hooks read too, and the folders no search enters (no imports).

``ctxres.config.Config`` uses them as its field defaults; the hooks' ``Settings`` starts from them
without importing the configuration loader (dataclasses, pathlib, tomllib) when a project has no
ctxres configuration.
"""

from __future__ import annotations

STATE_DIR = ".jerry"
"""Where the hooks keep their state (checkpoints, the context monitor's files), relative to the project."""
STALENESS_MINUTES = 30
"""A resumption section not updated for this long is STALE (docs/formats.md, "Staleness")."""
REINJECT_BUDGET = 600
"""Tokens all L2-REINJECT markers of a project may measure together (every marker is injected on every prompt)."""
REINJECT_TOLERANCE_PERCENT = 10
"""How far a marker's declared ``tokens=`` may be outside the plausible range, in percent of its bounds."""
PROFILE = "jerry"
"""Which resumption system the hooks serve: ``jerry`` or ``nexus``."""
WORKFLOW_ENV = "CTXRES_ORCHESTRATION"
"""The environment variable that names the workflow file (relative to the project) and skips the search
(``ctxres.state.live.find_live_workflow``). Here so that a hook that has its workflow file cached
can honour it without importing the workflow model."""
CONFIG_FILE = ".ctxres.toml"
PYPROJECT = "pyproject.toml"
"""The configuration files, in the order they win in one folder (``[tool.ctxres]`` in ``pyproject.toml``).
Here so that a hook can tell a configured project without importing the configuration reader."""
PROBE_ENV = "CTXRES_HOOK_PROBE"
"""Set to 1 by ``ctxres doctor`` when it runs the configured hook commands: the hook starts, loads its
event's handler and answers as if there were nothing to say, without touching the project's state."""

# Version control, virtual environments, tool caches and build output. `ctxres check` skips them
# unless the configuration's `exclude` says otherwise; the hooks never walk into them.
SKIPPED_FOLDERS = (
    ".git",
    ".hg",
    ".svn",
    ".venv",
    "venv",
    ".nox",
    ".tox",
    "node_modules",
    "__pycache__",
    ".mypy_cache",
    ".ruff_cache",
    ".pytest_cache",
    "build",
    "dist",
    "site-packages",
)

# The baseline file of accepted findings (`ctxres baseline`), relative to the configuration file.
BASELINE = ".ctxres-baseline.json"
