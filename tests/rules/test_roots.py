"""The project root remembered per folder (``roots.root_of``) is ``project_root``'s."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxres.linters.checking import roots
from ctxres.project import project_root


def test_root_of_is_project_root(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    inner = repo / "a" / "b"
    inner.mkdir(parents=True)
    (inner / "f.yaml").write_text("x: 1\n")
    other = tmp_path / "other"
    (other / "c").mkdir(parents=True)
    (other / "pyproject.toml").write_text("")
    (other / "c" / "g.yaml").write_text("y: 2\n")
    (inner / "link.yaml").symlink_to(other / "c" / "g.yaml")  # resolved: the root of the target
    (tmp_path / "loose").mkdir()
    paths = [
        inner / "f.yaml",
        inner / "link.yaml",
        inner,
        repo,
        other / "c" / "g.yaml",
        inner / "missing.yaml",
        tmp_path / "loose",
        tmp_path / "loose" / "h.json",
    ]
    roots.forget()
    for _ in range(2):  # looked up, then remembered
        for path in paths:
            assert roots.root_of(path) == project_root(path), path
            assert roots.root_of(str(path)) == project_root(path), path


def test_forget_sees_a_new_marker(tmp_path: Path) -> None:
    folder = tmp_path / "w" / "x"
    folder.mkdir(parents=True)
    roots.forget()
    assert roots.root_of(folder / "f.yaml") == project_root(folder / "f.yaml")
    (tmp_path / "w" / ".ctxres.toml").write_text("")
    roots.forget()
    assert roots.root_of(folder / "f.yaml") == tmp_path / "w" == project_root(folder / "f.yaml")


def test_the_markers_of_a_folder_serve_the_folders_below(tmp_path: Path) -> None:
    """Folders are looked up from the deepest, then from others below the same marked folder, then from a
    folder above a remembered one: each answer is project_root's."""
    (tmp_path / "top" / ".claude").mkdir(parents=True)
    deep = tmp_path / "top" / "a" / "b" / "c"
    deep.mkdir(parents=True)
    (tmp_path / "top" / "a" / "x").mkdir()
    (tmp_path / "top" / "a" / "b" / ".ctxres.toml").write_text("")
    (tmp_path / "bare" / "d").mkdir(parents=True)
    order = [
        deep,
        tmp_path / "top" / "a" / "x",
        tmp_path / "top" / "a",
        tmp_path / "top" / "a" / "b",
        tmp_path / "bare" / "d",
        tmp_path / "bare",
        tmp_path / "top" / "a" / "x" / "e.yaml",
    ]
    roots.forget()
    for path in order:
        assert roots.root_of(path) == project_root(path), path


def test_the_memory_of_folders_stays_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(roots, "_MAX_FOLDERS", 3)
    roots.forget()
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    folders = [repo / f"f{n}" / "g" for n in range(10)]
    for folder in folders:
        folder.mkdir(parents=True)
        (folder / "x.yaml").write_text("a: 1\n")
    for _ in range(2):
        for folder in folders:
            assert roots.root_of(folder / "x.yaml") == project_root(folder / "x.yaml") == repo
            assert len(roots._ROOTS) <= 3
    roots.forget()
