"""Fuzz targets 3 and 4: ``ctxres check`` on mutated ORCHESTRATION files and mutated state files.

Each case writes one mutated corpus file into a small workspace (next to a valid workflow file and
checkpoint, so the cross-file rules run too) and runs ``ctxres check`` in-process with the text or
the JSON reporter.

Property: exit code 0, 1 or 2; no internal error (the CLI turns an escaping exception into
``ctxres: internal error: ...`` and exit 2: that is a bug, not a verdict); every finding line of the
text output is ``path:line:col: CODE message`` with line and column >= 1 and the line within the
file; the JSON output parses and its findings have the same shape.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from fuzzkit import (
    FINDING_LINE,
    FIXTURES,
    INTERNAL_ERROR,
    JSON_SNIPPETS,
    STATE_FILES,
    SUMMARY_LINE,
    Workspace,
    checkpoint_corpus,
    cli,
    fuzz_target,
    hang_guard,
    mutated_json,
    mutated_text,
    orchestration_corpus,
    restore,
)
from hypothesis import event, given
from hypothesis import strategies as st

ORCHESTRATIONS = orchestration_corpus()
CHECKPOINTS = checkpoint_corpus()
STATES = [path.read_bytes() for path in STATE_FILES.values()]
TEMPLATE_ORCHESTRATION = (FIXTURES / "templates" / "proj001-qg2-ORCHESTRATION.yaml").read_bytes()
TEMPLATE_CHECKPOINT = (FIXTURES / "templates" / "proj001-qg2-checkpoint.json").read_bytes()
WORKFLOW = "projects/PROJ-001/ORCHESTRATION.yaml"
CHECKPOINT = ".jerry/checkpoints/cx-001-checkpoint.json"
CODE = "C000"


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workspace]:
    root = tmp_path_factory.mktemp("lint")
    (root / WORKFLOW).parent.mkdir(parents=True)
    (root / WORKFLOW).write_bytes(TEMPLATE_ORCHESTRATION)
    (root / CHECKPOINT).parent.mkdir(parents=True)
    (root / CHECKPOINT).write_bytes(TEMPLATE_CHECKPOINT)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)
        yield Workspace(root)


def check_lint(workspace: Workspace, name: str, data: bytes, output_format: str) -> None:
    restore(workspace.root, {**workspace.files, name: data})
    try:
        with hang_guard():
            code, out, err = cli(["check", ".", "--output-format", output_format, "--color", "never"])
    finally:
        restore(workspace.root, workspace.files)
    event(f"check exit {code}")
    assert INTERNAL_ERROR not in err, err
    assert code in (0, 1, 2), (code, err)
    line_count = {WORKFLOW: lines_of(TEMPLATE_ORCHESTRATION), name: lines_of(data)}
    if output_format == "json":
        report = json.loads(out)
        for finding in report["findings"]:
            _check_finding(finding["path"], finding["line"], finding["column"], finding["code"], line_count)
        return
    for line in out.splitlines():
        if line.startswith("  help: ") or SUMMARY_LINE.match(line):
            continue
        match = FINDING_LINE.match(line)
        assert match, f"not a finding line: {line!r}"
        _check_finding(match["path"], int(match["line"]), int(match["col"]), match["code"], line_count)


def lines_of(data: bytes) -> int:
    """The lines an editor shows (every line break a YAML parser knows counts; the empty line after a
    final line break does not)."""
    return max(1, len(data.decode("utf-8", "replace").splitlines()))


def _check_finding(path: str, line: int, col: int, code: str, line_count: dict[str, int]) -> None:
    assert line >= 1 and col >= 1, (path, line, col, code)
    assert len(code) == 4 and code[0].isupper() and code[1:].isdigit(), code
    if path in line_count:
        assert line <= line_count[path], f"{path}:{line}:{col}: {code} is past the end of the file"


FORMATS = st.sampled_from(["text", "json"])


@fuzz_target()
@given(data=mutated_text(ORCHESTRATIONS), output_format=FORMATS, extra=st.booleans())
def test_check_mutated_orchestration(workspace: Workspace, data: bytes, output_format: str, extra: bool) -> None:
    """A mutated ORCHESTRATION file replaces the workspace's one, or sits next to it."""
    name = "projects/PROJ-009/ORCHESTRATION.yaml" if extra else WORKFLOW
    check_lint(workspace, name, data, output_format)


@st.composite
def state_file(draw: st.DrawFn) -> tuple[str, bytes]:
    """(where, bytes): a checkpoint of either layout, a monitor state or a Nexus state, mutated as text
    (byte flips, truncation, JSON constructs) or as data (wrong types, deleted and unknown keys)."""
    kind = draw(st.integers(0, 3))
    if kind == 3:
        source = draw(st.sampled_from(STATES))
        name = ".jerry/context-monitor-state.json" if b"tier" in source else "00-system/.cache/precompact_state.json"
    else:
        source = draw(st.sampled_from(CHECKPOINTS))
        name = draw(st.sampled_from([CHECKPOINT, ".jerry/checkpoints/cx-002-checkpoint.json", "cx-011.d933ffb7.json"]))
    if draw(st.booleans()):
        data = draw(mutated_text([source], JSON_SNIPPETS))
    else:
        value: Any = json.loads(source)
        data = json.dumps(draw(mutated_json(value)), indent=draw(st.sampled_from([None, 2]))).encode(
            "utf-8", "surrogatepass"
        )
    return name, data


@fuzz_target()
@given(state=state_file(), output_format=FORMATS)
def test_check_mutated_state_files(workspace: Workspace, state: tuple[str, bytes], output_format: str) -> None:
    name, data = state
    check_lint(workspace, name, data, output_format)
