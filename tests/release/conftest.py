"""The wheel the release tests install: ``CTXRES_TEST_WHEEL`` (the release workflow names the wheel it built in
``dist/``), else the working tree's, built once (``tests/installs.py``)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ..installs import build_wheel


@pytest.fixture(scope="session")
def built_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    given = os.environ.get("CTXRES_TEST_WHEEL")
    if given:
        return Path(given).resolve(strict=True)
    return build_wheel(tmp_path_factory.mktemp("release-wheel"))
