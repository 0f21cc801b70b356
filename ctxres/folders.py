"""Folders no search for state files ever enters (no imports: the hooks read it when they walk)."""

from __future__ import annotations

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
