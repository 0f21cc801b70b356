"""pytest set-up of the fuzz targets: the header that says how to reproduce a run."""

from __future__ import annotations

import pytest
from fuzzkit import EXAMPLES, SEED

REPRODUCE = f"CTXRES_FUZZ_EXAMPLES={EXAMPLES} CTXRES_FUZZ_SEED={SEED} nox -s fuzz"


def pytest_report_header(config: pytest.Config) -> list[str]:
    return [
        f"ctxres fuzz: {EXAMPLES} cases per target, seed {SEED} (CTXRES_FUZZ_EXAMPLES, CTXRES_FUZZ_SEED)",
        f"ctxres fuzz: reproduce with `{REPRODUCE}` (add `-- -k <target>` for one target)",
    ]


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, exitstatus: int) -> None:
    if terminalreporter.stats.get("failed"):
        terminalreporter.write_line(
            f"ctxres fuzz: a target failed; the same cases run again with `{REPRODUCE}` "
            "(the falsifying example above is the shrunk input)",
            red=True,
        )
