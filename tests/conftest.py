from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
CORPUS = ROOT.parent / "shared" / "corpus"


@pytest.fixture
def corpus() -> Path:
    """The real-world corpus beside the repository (never edited)."""
    if not CORPUS.is_dir():
        pytest.fail(f"the corpus is missing at {CORPUS}; the tests need ../shared/corpus")
    return CORPUS
