"""The artifacts a check finds, held compactly, and handed out as the files are checked.

``ctxres check .`` lists the folder's files in order and looks at each once, as it is checked: what the
check holds for each file found is a few dozen bytes in a few strings, not objects. A file reached twice
through a link is checked once. With ``--jobs``, the parent hands the files to the workers in chunks that are
strings too.
"""

from __future__ import annotations

import os
import pickle
import shutil
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import pytest

from ctxres.config import Config
from ctxres.linters.checking import engine
from ctxres.linters.checking.discovery import (
    Artifact,
    Found,
    artifacts_in,
    discover,
    find_artifacts,
    find_named,
    one_listing,
)
from ctxres.linters.checking.path_runs import PathRun

from ..conftest import ROOT
from ..git_sandbox import Sandbox

CORPUS = ROOT / "fixtures" / "corpus"


def _tree(root: Path, workflows: int) -> Path:
    for number in range(workflows):
        folder = root / "workflows" / f"team-{number % 7}" / f"wf-{number:05d}"
        (folder / ".jerry" / "checkpoints").mkdir(parents=True)
        (folder / "ORCHESTRATION.yaml").write_text("resumption:\n  updated_at: x\n")
        (folder / ".jerry" / "checkpoints" / "cx-001-checkpoint.json").write_text("{}\n")
        (folder / "notes.md").write_text("not an artifact\n")
    return root


def test_the_found_artifacts_are_those_discover_lists_in_its_order(monkeypatch: pytest.MonkeyPatch) -> None:
    for cwd, folder in ((CORPUS, Path(".")), (ROOT, Path("fixtures")), (CORPUS / "nexus", Path("..")), (ROOT, CORPUS)):
        monkeypatch.chdir(cwd)
        listed = discover([folder], Config(root=CORPUS), cwd)
        found = find_artifacts([folder], Config(root=CORPUS), cwd)
        assert len(listed) > 40 and len(found) == len(listed), folder
        assert list(found) == list(found) == listed, folder
        assert [a.display for a in listed] == sorted(a.display for a in listed), folder
        for artifact in found:  # one string when the path and its display are equal
            assert artifact.fs_path is artifact.display or artifact.fs_path != artifact.display


def test_drain_hands_out_the_artifacts_in_order_and_lets_go_of_them() -> None:
    triples = [(f"w{n:04d}/O.yaml", f"/abs/w{n:04d}/O.yaml", "orchestration") for n in range(700)]
    triples += [("../x/cx.json", "/elsewhere/x/cx.json", "checkpoint"), ("a.md", "/q/b.md", "nexus")]
    found = Found(triples)
    assert len(found) == len(triples)
    seen = []
    for artifact in found.drain():
        seen.append((artifact.display, artifact.fs_path, artifact.kind))
        assert len(found) < len(triples) - len(seen) + 256  # at most one run still held past what was handed out
    assert seen == triples and len(found) == 0 and list(found) == []


def _held_bytes(make: Callable[[], object]) -> int:
    """The memory what ``make`` returns holds (made once before, so that the caches and free lists it fills
    are not counted)."""
    make()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        kept = make()
        held = tracemalloc.get_traced_memory()[0] - before
        del kept
        return held
    finally:
        tracemalloc.stop()


def test_a_check_of_a_folder_holds_a_few_dozen_bytes_for_each_file_found(tmp_path: Path) -> None:
    """What the check keeps between finding the files and checking them: the artifacts themselves, as a list,
    held several times as much (a ``str`` and an object a file)."""
    root = _tree(tmp_path / "tree", 1500)
    config = Config(root=root)
    with one_listing():
        listed = discover([root], config, root)  # lists the folder (kept for the check) before measuring
        assert len(listed) == 3000
        found = _held_bytes(lambda: find_artifacts([root], config, root))
        as_list = _held_bytes(lambda: discover([root], config, root))
    assert found < 40 * 3000, found
    assert as_list > 4 * found, (as_list, found)


LINKED = '{"checkpoint_id": "cx-002"}\n'  # a checkpoint by its content, wherever the links put it


def _links(root: Path) -> None:
    for name in ("a", "b", "c"):
        (root / name).mkdir(parents=True)
    (root / "b" / "cx-002-checkpoint.json").write_text(LINKED)
    (root / "b" / "cx-003-checkpoint.json").write_text(LINKED)
    (root / "a" / "cx-010-checkpoint.json").symlink_to("../b/cx-002-checkpoint.json")  # shown first: kept
    (root / "c" / "cx-011-checkpoint.json").symlink_to("../b/cx-003-checkpoint.json")  # after the file: dropped
    (root / "c" / "cx-012-checkpoint.json").symlink_to("../b/cx-002-checkpoint.json")  # a second link: dropped
    (root / "c" / "cx-013-checkpoint.json").symlink_to("../b/notes.txt")  # to a file that is no artifact
    (root / "b" / "notes.txt").write_text(LINKED)
    outside = root.parent / "outside.json"
    outside.write_text(LINKED)
    (root / "c" / "cx-014-checkpoint.json").symlink_to(outside)
    (root / "c" / "cx-015-checkpoint.json").symlink_to(outside)  # the same file outside: dropped
    (root / "alias").symlink_to("b", target_is_directory=True)  # a link to a folder is not followed


EXPECTED_WITH_LINKS = [
    "a/cx-010-checkpoint.json",
    "b/cx-003-checkpoint.json",
    "c/cx-013-checkpoint.json",
    "c/cx-014-checkpoint.json",
]


@pytest.mark.skipif(os.name != "posix", reason="symbolic links")
@pytest.mark.parametrize("git", [False, True])
def test_a_file_reached_through_a_link_is_checked_once_under_the_name_shown_first(
    tmp_path: Path, git: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    box = Sandbox(tmp_path / "repo", git=git)
    _links(box.root)
    if git:
        box.git("add", ".")
    for cwd, folder in ((box.root, Path(".")), (tmp_path, box.root), (box.root / "a", Path(".."))):
        monkeypatch.chdir(cwd)
        found = [a.fs_path for a in find_artifacts([folder], Config(root=box.root), cwd)]
        # (from a/, the files are shown as cx-010... and ../b/...: in that order)
        assert sorted(os.path.relpath(path, folder) for path in found) == EXPECTED_WITH_LINKS, (folder, cwd)
    # Several folders: each file under the first folder that reaches it, the same files.
    several = discover([box.root / "c", box.root / "a", box.root / "b"], Config(root=box.root), box.root)
    assert sorted(os.path.realpath(a.fs_path) for a in several) == sorted(
        os.path.realpath(box.root / rel) for rel in EXPECTED_WITH_LINKS
    )


@pytest.mark.skipif(os.name != "posix", reason="symbolic links")
def test_a_tracked_file_in_a_folder_replaced_by_a_link_is_not_checked_as_git_status_says(tmp_path: Path) -> None:
    box = Sandbox(tmp_path / "repo")
    box.write("w/.jerry/checkpoints/cx-001-checkpoint.json", "{}\n")
    box.write("elsewhere/.jerry/checkpoints/cx-001-checkpoint.json", "{}\n")
    box.git("add", ".")
    box.git("commit", "-q", "-m", "state")
    shutil.rmtree(box.root / "w" / ".jerry")
    (box.root / "w" / ".jerry").symlink_to("../elsewhere/.jerry", target_is_directory=True)
    status = box.git("status", "--porcelain")
    assert " D w/.jerry/checkpoints/cx-001-checkpoint.json" in status, status
    assert box.listed() == ["elsewhere/.jerry/checkpoints/cx-001-checkpoint.json"]


def test_the_pool_hands_out_its_chunks_as_strings_of_at_most_the_chunk_size(tmp_path: Path) -> None:
    root = _tree(tmp_path / "tree", 150)
    config = Config(root=root)
    expected = list(find_artifacts([root], config, root))
    chunks = find_artifacts([root], config, root).chunks(7)
    assert all(isinstance(chunk, PathRun) and 0 < len(chunk) <= 7 for chunk in chunks)
    assert len(chunks) == -(-len(expected) // 7)  # one way of showing the files: full chunks but the last
    assert [artifact for chunk in chunks for artifact in artifacts_in(chunk)] == expected
    assert [pickle.loads(pickle.dumps(chunk)).joined for chunk in chunks] == [chunk.joined for chunk in chunks]


def test_a_check_by_the_pool_finds_what_a_check_in_one_process_finds(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engine, "POOL_MIN_FILES", 8)
    monkeypatch.setattr(engine, "CHUNK_MAX", 3)
    config = Config(root=CORPUS)
    one = engine.run([CORPUS], config, CORPUS, jobs=1)
    two = engine.run([CORPUS], config, CORPUS, jobs=2)
    assert one.files_checked == two.files_checked > 40
    assert list(one.findings) == list(two.findings) and len(one.findings) > 20


def test_an_artifact_is_what_it_was_found_as() -> None:
    [artifact] = list(Found([("w/a.json", "/abs/w/a.json", "checkpoint")]))
    assert artifact == Artifact("/abs/w/a.json", "w/a.json", "checkpoint")


def test_files_asked_for_by_name_after_the_check_are_looked_for_one_at_a_time(tmp_path: Path) -> None:
    """A rule that looks for a few names among all the files listed for the check (the Nexus rules' legacy
    ``_resume.md``) does not make a string of every file at once."""
    root = _tree(tmp_path / "tree", 1500)
    (root / "workflows" / "team-3" / "_resume.md").write_text("x\n")
    config = Config(root=root)
    with one_listing():
        assert len(find_artifacts([root], config, root)) == 3000  # lists the folder, kept for the check
        named = find_named([root], config, ("_resume.md",))
        assert named == [root / "workflows" / "team-3" / "_resume.md"]
        tracemalloc.start()
        try:
            find_named([root], config, ("_resume.md",))
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert peak < 60_000, peak  # the 4,501 listed paths as strings: over 400 kB
