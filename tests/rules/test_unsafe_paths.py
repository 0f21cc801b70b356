"""The rules of linters/rules/unsafe_paths.py: X002, a path in the state that is absolute or leaves the
repository (beyond the rule fixtures)."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize(
    ("path", "problem"),
    [
        ("/etc/passwd", "absolute"),
        ("~/notes.md", "home folder"),
        ("C:\\work\\plan.md", "absolute"),
        ("../plan.md", "leaves the repository"),
        ("projects/a/../../../plan.md", "leaves the repository"),
        ("plan\x00.md", "NUL"),
        ("projects/a/../b/plan.md", None),
        ("..hidden/plan.md", None),
        ("./plan.md", None),
    ],
)
def test_x002_lexical_problems(path: str, problem: str | None) -> None:
    from ctxres.linters.rules.unsafe_paths import lexical_problem

    found = lexical_problem(path)
    assert (found is None) if problem is None else (found is not None and problem in found), found
