"""A check keeps what the cross-file rules need of each file, not the file: memory does not grow with the
size of the documents (the bench measures it on a 10,000-file tree).

``engine.check_file`` is what a worker process hands back for one file; it must stay small whatever the
file holds. That the findings stay the same is checked through the command (test_check_jobs.py) and by
every rule's fixture tests.
"""

from __future__ import annotations

import pickle
import shutil
from pathlib import Path

import pytest

from ctxres.config import Config
from ctxres.findings import Position
from ctxres.formats.document import Document
from ctxres.formats.loading import Format, Limits, load_file
from ctxres.linters.checking import engine
from ctxres.linters.checking.discovery import Artifact, discover, find_artifacts
from ctxres.linters.rules import acknowledgement

ROOT = Path(__file__).resolve().parent.parent.parent
CORPUS = ROOT / "fixtures" / "corpus"
ACK = ROOT / "fixtures" / "ack"


def _results(folder: Path) -> list[engine.FileResult]:
    config = Config(root=folder)
    return [engine.check_file(artifact, config) for artifact in discover([folder], config, folder)]


def test_a_checked_file_leaves_a_stub_not_its_document() -> None:
    results = _results(CORPUS)
    orchestration = [r for r in results if r.document is not None and r.document.kind == "orchestration"]
    assert len(orchestration) >= 10
    for result in orchestration:
        assert result.document is not None
        assert (result.document.text, result.document.data, result.document.value_pos) == ("", None, {})
        assert result.document.fs_path and result.document.path == result.display
    largest = max(CORPUS.rglob("*.yaml"), key=lambda path: path.stat().st_size)
    (kept,) = [r for r in results if r.display.endswith(largest.name)]
    # findings included: a few kB for a 110 kB file
    assert len(pickle.dumps(kept)) < largest.stat().st_size / 4


def test_the_acknowledgement_rule_keeps_a_slim_section(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    shutil.copytree(ACK / "two-unacknowledged", workspace)
    results = _results(workspace)
    sections = [r.facts[acknowledgement.__name__] for r in results if acknowledgement.__name__ in r.facts]
    assert len(sections) == 1
    (section,) = sections
    # No document: where an unmerged checkpoint is reported, found while the file was loaded.
    assert not any(isinstance(getattr(section, name), Document) for name in section.__slots__)
    (path,) = [r.document.fs_path for r in results if r.document and r.document.kind == "orchestration"]
    whole = load_file(Path(path), "orchestration", Format.YAML, Limits(), section.path).document
    assert whole is not None and section.where == acknowledgement.EVENTS
    assert section.position == whole.locate(acknowledgement.EVENTS, key=True) != Position(1, 1)


def test_the_workspace_keeps_the_stubs_of_a_folder_compactly() -> None:
    config = Config(root=CORPUS)
    artifacts = discover([CORPUS], config, CORPUS)
    kept = engine.LoadedDocuments()
    expected = []
    for artifact in artifacts:
        result = engine.check_file(artifact, config)
        if result.document is not None:
            kept.add(result.document)
            expected.append(result.document)
    loose = Document("x.yaml", "orchestration", "text", {"a": 1}, fs_path="x.yaml")
    kept.add(loose)
    expected.append(loose)
    assert not any(isinstance(entry, Artifact) for entry in kept._entries)
    stubs = [doc for doc in expected if doc == doc.stub()]
    assert len(stubs) >= len(expected) // 2
    assert len(kept._entries) <= len(expected) - len(stubs) + 2  # the stubs of a run share one entry
    assert list(kept) == expected and len(kept) == len(expected) and kept[-1] is loose and kept[:2] == expected[:2]
    assert list(kept.paths()) == [doc.path for doc in expected]
    more = Document("x/y.md", "nexus", "", None, fs_path="/abs/x/y.md")
    kept.add(more)
    assert list(kept)[-2:] == [loose, more]


def test_the_stubs_of_a_folder_shown_with_dots_are_kept_compactly_too() -> None:
    """A folder outside the working folder is shown with ``..``: its files' paths do not end their places on
    disk, but share their tails with them (``../repo/w1/a.json`` and ``/tmp/repo/w1/a.json``)."""
    kept = engine.LoadedDocuments()
    expected = [
        Document(f"../repo/w{index}/{name}", kind, "", None, fs_path=f"/tmp/repo/w{index}/{name}")
        for index in range(40)
        for name, kind in (("ORCHESTRATION.yaml", "orchestration"), ("cx-001-checkpoint.json", "checkpoint"))
    ]
    odd = Document("b/f.md", "nexus", "", None, fs_path="/elsewhere/ab/f.md")  # a tail that cuts a folder name
    whole = Document("q.md", "nexus", "", None, fs_path="/x/q.mdx")  # nothing in common: kept whole
    for doc in [*expected, odd, whole]:
        kept.add(doc)
    assert list(kept) == [*expected, odd, whole] and len(kept) == len(expected) + 2
    assert len(kept._entries) == 3 and kept._entries[-1] is whole
    assert [(e.shown, e.on_disk) for e in kept._entries[:2]] == [("..", "/tmp"), ("", "/elsewhere/a")]


def test_a_check_lets_go_of_the_artifacts_it_is_given(monkeypatch: pytest.MonkeyPatch) -> None:
    config = Config(root=CORPUS)
    monkeypatch.setattr(engine, "POOL_MIN_FILES", 8)  # in the pool too
    for jobs in (1, 2):
        artifacts = find_artifacts([CORPUS], config, CORPUS)
        total = len(artifacts)
        assert total >= engine.POOL_MIN_FILES and len(list(artifacts)) == total
        report = engine.run([CORPUS], config, CORPUS, jobs=jobs, artifacts=artifacts)
        assert len(artifacts) == 0 and list(artifacts) == [] and report.files_checked == total
