"""Fixtures of the end-to-end session: the pinned client (installed once), sessions in tmp folders.

Run with ``nox -s claude`` (or ``python -m pytest e2e`` where ``ctxres`` is installed and node/npm
are on PATH). Without node or npm the session fails and says so; nothing is skipped.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from e2e.claude_client import ClientUnavailable, ensure_client


@pytest.fixture(scope="session")
def claude_binary() -> Path:
    """The pinned Claude Code client (``CLAUDE_CODE_VERSION``), installed into the cache if needed."""
    try:
        return ensure_client()
    except ClientUnavailable as exc:
        pytest.fail(str(exc), pytrace=False)
