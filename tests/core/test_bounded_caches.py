"""The memories a check keeps across files are bounded, and a full one answers as the computation it saves."""

from __future__ import annotations

import yaml

from ctxres.formats.yamlpos import _composer
from ctxres.linters.validation.close_match import close_match
from ctxres.linters.validation.schema_errors import _closest

_IMPLICIT = (True, False)


def test_the_tag_memory_stays_bounded_and_resolves_as_pyyaml() -> None:
    resolve = _composer().resolve
    uncached = yaml.CSafeLoader("").resolve
    bound = resolve.cache_info().maxsize
    assert bound is not None
    for n in range(bound + 100):
        resolve(yaml.ScalarNode, f"id-{n}", _IMPLICIT)
    assert resolve.cache_info().currsize <= bound
    for value in ("1", "1.5", "true", "null", "~", "2026-11-25", "id-0", "text"):
        assert resolve(yaml.ScalarNode, value, _IMPLICIT) == uncached(yaml.ScalarNode, value, _IMPLICIT)


def test_the_suggestion_memory_stays_bounded_and_suggests_as_close_match() -> None:
    choices = ("status", "phase", "workflow_id", "updated_at")
    bound = _closest.cache_info().maxsize
    assert bound is not None
    for n in range(bound + 50):
        _closest(f"stray_{n}", choices)
    assert _closest.cache_info().currsize <= bound
    for word in ("statsu", "phse", "workflow", "stray_0", "nothing"):
        assert _closest(word, choices) == close_match(word, choices, 0.6)
