"""PyYAML's pattern of non-printable characters is compiled when first used, not when the command
line imports ``yaml`` (ctxres.formats.yaml_startup): the pure Python reader still finds the same characters
and reports them as it did, and a history command's parse never compiles it."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from ctxres.formats.yaml_startup import NON_PRINTABLE, DeferredPattern

SAMPLES = [
    "",
    "plain: text\n",
    "bell: \x07\n",
    "nel \x85 nbsp \xa0",
    "\ud800 lone surrogate",
    "\ufffe",
    "emoji \U0001f600",
]


def _run(code: str) -> str:
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return result.stdout


@given(st.text())
def test_the_deferred_pattern_finds_what_the_compiled_one_finds(text: str) -> None:
    deferred, compiled = DeferredPattern(NON_PRINTABLE), re.compile(NON_PRINTABLE)
    found, expected = deferred.search(text), compiled.search(text)
    assert (found and (found.start(), found.group())) == (expected and (expected.start(), expected.group()))


@pytest.mark.parametrize("text", SAMPLES)
def test_the_deferred_pattern_on_samples(text: str) -> None:
    deferred, compiled = DeferredPattern(NON_PRINTABLE), re.compile(NON_PRINTABLE)
    assert [m.span() for m in deferred.finditer(text)] == [m.span() for m in compiled.finditer(text)]
    assert deferred.pattern == compiled.pattern and deferred.flags == compiled.flags


def test_pyyaml_spells_the_pattern_as_deferred() -> None:
    """If PyYAML changed its pattern, the stand-in would go unused (start-up cost back, output the same)."""
    code = "import yaml.reader; print(ascii(yaml.reader.Reader.NON_PRINTABLE.pattern))"
    assert _run(code).strip() == ascii(NON_PRINTABLE)


def test_the_pure_reader_reports_a_non_printable_character_as_before() -> None:
    code = (
        "import sys\n"
        "if sys.argv[-1] == 'deferred': import ctxres.linters\n"
        "import yaml\n"
        "for text in ['bell: \\x07\\n', 'ok: yes\\n', 'del: \\x7f']:\n"
        "    try: print(yaml.safe_load(text))\n"
        "    except yaml.YAMLError as exc: print(type(exc).__name__, exc)\n"
        "print(type(yaml.reader.Reader.NON_PRINTABLE).__name__)\n"
    )
    plain = subprocess.run([sys.executable, "-c", code, "plain"], capture_output=True, text=True, check=True).stdout
    deferred = subprocess.run(
        [sys.executable, "-c", code, "deferred"], capture_output=True, text=True, check=True
    ).stdout
    assert plain.splitlines()[:-1] == deferred.splitlines()[:-1]
    assert "ReaderError" in plain
    assert plain.splitlines()[-1] == "Pattern" and deferred.splitlines()[-1] == "DeferredPattern"


@pytest.mark.skipif(not hasattr(yaml, "CSafeLoader"), reason="PyYAML without libyaml reads with the pure reader")
def test_a_parse_by_libyaml_leaves_the_pattern_uncompiled() -> None:
    code = (
        "import ctxres.linters\n"
        "import yaml\n"
        "from ctxres.formats.yamlpos import parse_yaml\n"
        "print(parse_yaml('a: 1\\nb: [x, y]\\nc: 2026-02-20T10:00:00Z\\n').data)\n"
        "print(yaml.reader.Reader.NON_PRINTABLE._compiled)\n"
    )
    out = _run(code).splitlines()
    assert out[-1] == "None", out
