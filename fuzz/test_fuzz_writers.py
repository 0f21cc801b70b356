"""Fuzz target 5: the commands that write state files, ``ctxres migrate --write`` and ``ctxres ack --all``.

``migrate --write`` runs on mutated v1.0 corpus files (and some v2.0 ones); ``ack --all`` on mutated
copies of ``fixtures/ack/two-unacknowledged`` (the workflow file, a checkpoint, or both changed).

Property: exit code 0, 1 or 2 and no internal error; every file the command changed still parses
(a checkpoint as JSON; the workflow file as YAML ctxres reads, and with ``yaml.safe_load`` and
without load issues (``ctxres.formats.loading.parse_text``: duplicate key, ...) if the old one did); when
the command refused (exit code not 0) every file of the workspace is byte-identical; no file is
created or deleted. For ``migrate``, a second ``migrate --write`` of a migrated file changes nothing.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from typing import Any

import pytest
import yaml
from fuzzkit import (
    CORPUS,
    FIXTURES,
    INTERNAL_ERROR,
    JSON_SNIPPETS,
    Workspace,
    changed,
    cli,
    fuzz_target,
    hang_guard,
    mutated_json,
    mutated_text,
    orchestration_corpus,
    restore,
    snapshot,
)
from hypothesis import event, given
from hypothesis import strategies as st

from ctxres.formats.loading import Format, parse_text
from ctxres.state.resumption import detect_version

NOW = "2026-03-02T11:30:00Z"
ACK_WORKSPACE = FIXTURES / "ack" / "two-unacknowledged"
ACK_ORCHESTRATION = "projects/PROJ-002/ORCHESTRATION.yaml"
ACK_CHECKPOINTS = (".jerry/checkpoints/cx-001-checkpoint.json", ".jerry/checkpoints/cx-002-checkpoint.json")
LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _version(data: bytes) -> str | None:
    try:
        value = yaml.load(data, Loader=LOADER)
    except yaml.YAMLError:
        return None
    section = value.get("resumption") if isinstance(value, dict) else None
    return detect_version(section) if isinstance(section, dict) else None


def _v1_corpus() -> list[bytes]:
    files = [p.read_bytes() for p in sorted((CORPUS / "history").rglob("*.yaml"))]
    files += [data for data in orchestration_corpus() if _version(data) == "1.0" and data not in files]
    return files


V1 = _v1_corpus()
ALL = orchestration_corpus()


def parses_cleanly(data: bytes) -> bool:
    """Whether ``data`` is UTF-8 YAML that ``ctxres`` reads without any load issue."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return False
    result = parse_text("ORCHESTRATION.yaml", "orchestration", Format.YAML, text)
    return result.document is not None and not result.issues


def readable(data: bytes) -> bool:
    """Whether ctxres reads ``data`` as YAML at all (an unknown tag such as ``!!python/name`` is read
    as a plain value; PyYAML's safe loader refuses it)."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return False
    return parse_text("ORCHESTRATION.yaml", "orchestration", Format.YAML, text).document is not None


def safe_loads(data: bytes) -> bool:
    try:
        yaml.load(data, Loader=LOADER)
    except yaml.YAMLError:
        return False
    return True


def still_parses(before: bytes, after: bytes) -> None:
    """A changed workflow file is YAML ctxres reads, and loses none of the ways the old one parsed."""
    assert readable(after), "the written file is not YAML"
    if safe_loads(before):
        assert safe_loads(after), "the written file is no longer valid for yaml.safe_load"
    if parses_cleanly(before):
        assert parses_cleanly(after), "the written file has load issues the old one did not"


@pytest.fixture(scope="module")
def migrate_workspace(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workspace]:
    root = tmp_path_factory.mktemp("migrate")
    (root / "ORCHESTRATION.yaml").write_bytes(V1[0])
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)
        yield Workspace(root)


@fuzz_target()
@given(data=mutated_text(V1) | mutated_text(ALL))
def test_migrate_write_leaves_a_parsing_file_or_the_same_bytes(migrate_workspace: Workspace, data: bytes) -> None:
    root = migrate_workspace.root
    restore(root, {"ORCHESTRATION.yaml": data})
    before = snapshot(root)
    try:
        with hang_guard():
            code, _out, err = cli(["migrate", "--write", "ORCHESTRATION.yaml"])
            after = snapshot(root)
            again = cli(["migrate", "--write", "ORCHESTRATION.yaml"]) if code == 0 else None
            final = snapshot(root)
    finally:
        restore(root, migrate_workspace.files)
    event(f"migrate exit {code}" + (", wrote" if after != before else ""))
    assert INTERNAL_ERROR not in err, err
    assert code in (0, 1, 2), (code, err)
    assert sorted(after) == sorted(before), "migrate created or deleted a file"
    if code != 0:
        assert after == before, "migrate refused but changed the file"
        return
    written = after["ORCHESTRATION.yaml"]
    if written != data:
        still_parses(data, written)
    assert again is not None
    assert again[0] == 0 and INTERNAL_ERROR not in again[2], again
    assert final == after, "a second migrate --write changed the migrated file"


# --------------------------------------------------------------------------- ack


@pytest.fixture(scope="module")
def ack_workspace(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workspace]:
    root = tmp_path_factory.mktemp("ack") / "repo"
    shutil.copytree(ACK_WORKSPACE, root)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)
        yield Workspace(root)


ACK_SOURCES = {name: (ACK_WORKSPACE / name).read_bytes() for name in (ACK_ORCHESTRATION, *ACK_CHECKPOINTS)}


@st.composite
def ack_changes(draw: st.DrawFn) -> dict[str, bytes]:
    """The files of the ack workspace to replace: the workflow file, a checkpoint, or both."""
    which = draw(st.integers(0, 2))
    files: dict[str, bytes] = {}
    if which in (0, 2):
        files[ACK_ORCHESTRATION] = draw(mutated_text([ACK_SOURCES[ACK_ORCHESTRATION]]))
    if which in (1, 2):
        name = draw(st.sampled_from(ACK_CHECKPOINTS))
        if draw(st.booleans()):
            files[name] = draw(mutated_text([ACK_SOURCES[name]], JSON_SNIPPETS))
        else:
            value: Any = json.loads(ACK_SOURCES[name])
            files[name] = json.dumps(draw(mutated_json(value)), indent=2).encode("utf-8", "surrogatepass")
    return files


@fuzz_target()
@given(files=ack_changes(), named=st.booleans())
def test_ack_all_leaves_parsing_files_or_the_same_bytes(
    ack_workspace: Workspace, files: dict[str, bytes], named: bool
) -> None:
    root = ack_workspace.root
    restore(root, {**ack_workspace.files, **files})
    before = snapshot(root)
    args = ["ack", "--all", "--now", NOW] + (["--file", ACK_ORCHESTRATION] if named else [])
    try:
        with hang_guard():
            code, _out, err = cli(args)
        after = snapshot(root)
    finally:
        restore(root, ack_workspace.files)
        os.chdir(root)
    event(f"ack exit {code}" + (", wrote" if after != before else ""))
    assert INTERNAL_ERROR not in err, err
    assert code in (0, 1, 2), (code, err)
    assert sorted(after) == sorted(before), f"ack created or deleted files: {changed(before, after)}"
    if code != 0:
        assert after == before, f"ack refused (exit {code}) but changed {changed(before, after)}"
        return
    for name in changed(before, after):
        if name.endswith(".json"):
            json.loads(after[name])
        else:
            still_parses(before[name], after[name])
