"""The wheel of the working tree, built once for the release tests (``tests/installs.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ..installs import build_wheel


@pytest.fixture(scope="session")
def built_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_wheel(tmp_path_factory.mktemp("release-wheel"))
