"""``ctxres.globs.matches_any``: plain patterns (literal text and ``*``) are matched without a regular
expression, with the same answers as the expression :func:`ctxres.globs.glob_to_regex` compiles."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from ctxres.globs import glob_to_regex, matches_any

_NAME_CHARS = st.sampled_from(list("ORCHESTRAToinyaml.-_*x\n\\]"))
_PATTERN_CHARS = st.sampled_from(list("ORCHESTRAToinyaml.-_*x\\]"))


@given(
    name=st.text(_NAME_CHARS, max_size=12).filter(lambda n: "*" not in n), pattern=st.text(_PATTERN_CHARS, max_size=8)
)
def test_plain_pattern_matches_as_its_expression(name: str, pattern: str) -> None:
    expected = glob_to_regex(pattern).match(name) is not None
    assert matches_any(name, (pattern,)) is expected
    assert matches_any(f"some/folder/{name}", (pattern,)) is expected  # a pattern without / matches the name


def test_default_patterns() -> None:
    patterns = ("*ORCHESTRATION*.yaml", "*ORCHESTRATION*.yml")
    assert matches_any("projects/PROJ-001/ORCHESTRATION.yaml", patterns)
    assert matches_any("feat-ORCHESTRATION-v2.yml", patterns)
    assert not matches_any("ORCHESTRATION.yaml.bak", patterns)
    assert not matches_any("orchestration.yaml", patterns)
    assert not matches_any("ORCHESTRATION/notes.yaml", patterns)


def test_other_patterns_keep_their_expression() -> None:
    assert matches_any("docs/a/ORCHESTRATION.yaml", ("docs/**/ORCHESTRATION.yaml",))
    assert matches_any("ORCHESTRATION1.yaml", ("ORCHESTRATION?.yaml",))
    assert matches_any("ORCHESTRATION1.yaml", ("ORCHESTRATION[0-9].yaml",))
    assert not matches_any("ORCHESTRATIONx.yaml", ("ORCHESTRATION[0-9].yaml",))
