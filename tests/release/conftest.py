"""The wheel the release tests install: ``CTXRES_TEST_WHEEL`` (the release workflow names the wheel it built in
``dist/``), else the working tree's, built once for the whole run (``tests/installs.py``, ``shared_wheel``)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ..installs import shared_wheel


@pytest.fixture(scope="session")
def built_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    given = os.environ.get("CTXRES_TEST_WHEEL")
    if given:
        return Path(given).resolve(strict=True)
    return shared_wheel(tmp_path_factory)
