from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
# A byte-exact copy of the real-world corpus (../shared/corpus), vendored so that the tests run
# from any clone; test_corpus_copy_is_byte_exact keeps it identical to the original.
CORPUS = FIXTURES / "corpus"
SHARED_CORPUS = ROOT.parent / "shared" / "corpus"
