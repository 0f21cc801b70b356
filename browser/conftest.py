"""The browser: Debian's chromium (``CTXRES_CHROMIUM``, else ``/usr/bin/chromium``, else ``chromium`` on PATH).

Run with ``nox -s browser`` (which installs playwright from PyPI, never its own browser download). Without
chromium the tests fail and say how to install it; nothing is skipped.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

DEBIAN_CHROMIUM = Path("/usr/bin/chromium")


def find_chromium() -> Path | None:
    chosen = os.environ.get("CTXRES_CHROMIUM")
    if chosen:
        return Path(chosen)
    if DEBIAN_CHROMIUM.is_file():
        return DEBIAN_CHROMIUM
    found = shutil.which("chromium")
    return Path(found) if found else None


@pytest.fixture(scope="session")
def chromium() -> Path:
    found = find_chromium()
    if found is None:
        pytest.fail("chromium not found: install Debian's chromium (apt-get install chromium)", pytrace=False)
    return found
