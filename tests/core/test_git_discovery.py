"""Which files `ctxres check` looks at inside a git repository: those `git status` sees.

Every ignore source of git applies wherever the check starts (the repository root, a sub-folder, a
folder given on the command line): the `.gitignore` files above and below the start folder,
`.git/info/exclude` and the global excludes file. Tracked files are kept even where a pattern ignores
them; files deleted from the disk are not checked; the configured excludes still apply; a nested
repository is left to a check run inside it. Outside git, the walk reads the `.gitignore` files itself.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from ..git_sandbox import Sandbox

CHECKPOINT = '{"checkpoint_id": "cx-001"}\n'  # ours by its content, in whichever folder it is listed
KEPT = [
    "projects/a/.jerry/checkpoints/cx-001-checkpoint.json",
    "projects/a/spaced name/cx-007 é.json",  # spaces and non-ASCII: listed with -z
    "projects/scratch/cx-005-checkpoint.json",  # in an ignored folder, but tracked
]
IGNORED = {
    "projects/scratch/cx-002-checkpoint.json": "the root .gitignore (scratch/)",
    "projects/a/cx-009-draft.json": "projects/.gitignore (cx-009*)",
    "projects/local-only/cx-003-checkpoint.json": ".git/info/exclude (local-only/)",
    "projects/personal/cx-004-checkpoint.json": "the global excludes file (personal/)",
    "projects/archive/cx-008-checkpoint.json": "extend-exclude (archive/), tracked",
}


def _tree(box: Sandbox) -> None:
    box.write(".ctxres.toml", 'extend-exclude = ["archive/"]\n')
    box.write(".gitignore", "scratch/\n")
    box.write("projects/.gitignore", "cx-009*\n")
    for rel in [*KEPT, *IGNORED]:
        box.write(rel, CHECKPOINT)


@pytest.fixture
def box(tmp_path: Path) -> Sandbox:
    box = Sandbox(tmp_path / "repo")
    _tree(box)
    box.write(".git/info/exclude", "local-only/\n")
    box.write("../repo-home/.config/git/ignore", "personal/\n")
    box.git("add", ".")
    box.git("add", "-f", "projects/scratch/cx-005-checkpoint.json", "projects/archive/cx-008-checkpoint.json")
    box.write("projects/deleted/cx-006-checkpoint.json", CHECKPOINT)
    box.git("add", "projects/deleted/cx-006-checkpoint.json")
    box.git("commit", "-q", "-m", "state")
    (box.root / "projects/deleted/cx-006-checkpoint.json").unlink()  # still in the index
    return box


def test_git_lists_the_files_from_the_repository_root(box: Sandbox) -> None:
    assert box.listed() == KEPT
    assert box.listed(".") == KEPT


def test_git_lists_the_files_of_a_folder_given_from_the_root(box: Sandbox) -> None:
    # The root .gitignore, .git/info/exclude and the global file sit above `projects/`.
    assert box.listed("projects") == KEPT
    assert box.listed("projects/a") == KEPT[:2]


def test_git_lists_the_files_from_a_sub_folder(box: Sandbox) -> None:
    shown = [rel.removeprefix("projects/") for rel in KEPT]
    assert box.listed(cwd=box.root / "projects") == shown
    assert box.listed("a", cwd=box.root / "projects") == shown[:2]


def test_a_folder_named_on_the_command_line_that_git_ignores_is_checked_as_asked(box: Sandbox) -> None:
    # A build or temporary folder inside the repository: git lists nothing (or only its tracked files)
    # there, but the user named it, so it is walked (as ruff does), with the ignore files inside it.
    box.write("projects/scratch/.gitignore", "cx-099*\n")
    box.write("projects/scratch/cx-099-local.json", CHECKPOINT)
    scratch = ["projects/scratch/cx-002-checkpoint.json", "projects/scratch/cx-005-checkpoint.json"]
    assert box.listed("projects/scratch") == scratch
    assert box.listed("scratch", cwd=box.root / "projects") == [rel.removeprefix("projects/") for rel in scratch]
    box.write(".nox/tmp/tree/cx-001-checkpoint.json", CHECKPOINT)  # wholly ignored by the parent's pattern
    box.write(".gitignore", "scratch/\n.nox/\n")
    assert box.listed(".nox/tmp/tree") == [".nox/tmp/tree/cx-001-checkpoint.json"]
    assert box.listed() == KEPT  # walked from the root, what git ignores stays out


def test_folders_named_together_are_asked_of_git_in_one_process(box: Sandbox, monkeypatch: pytest.MonkeyPatch) -> None:
    """Which of the named folders git ignores is asked once for all of them (pre-commit may name files in
    hundreds of workflow folders, each a folder of a unit): each is listed as it is when named alone."""
    box.write(".nox/tmp/tree/cx-001-checkpoint.json", CHECKPOINT)
    box.write(".gitignore", "scratch/\n.nox/\n")
    folders = ["projects/a", "projects/scratch", ".nox/tmp/tree", "projects"]
    alone = sorted({rel for folder in folders for rel in box.listed(folder)})
    assert box.listed(*folders) == alone
    assert ".nox/tmp/tree/cx-001-checkpoint.json" in alone and "projects/scratch/cx-002-checkpoint.json" in alone

    from ctxres.config import load_config
    from ctxres.linters.checking import discovery

    asked: list[list[str]] = []
    run = subprocess.run

    def counting(args: list[str], **kwargs: Any) -> Any:
        asked.append(args)
        return run(args, **kwargs)

    monkeypatch.setattr(discovery.subprocess, "run", counting)
    for key in ("HOME", "XDG_CONFIG_HOME"):  # the box's global excludes file
        monkeypatch.setenv(key, box.env[key])
    found = discovery.discover([box.root / folder for folder in folders], load_config(box.root), box.root)
    assert sorted(artifact.display for artifact in found) == alone
    assert [args[3] for args in asked] == ["--literal-pathspecs", "check-ignore"]  # ls-files, check-ignore


def test_the_check_itself_skips_what_git_ignores(box: Sandbox) -> None:
    # An ignored checkpoint that is not even JSON: checked, it would be a parse error.
    box.write("projects/scratch/cx-002-checkpoint.json", "{not json\n")
    result = box.ctxres("check", "projects", "--select", "P")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "(3 files checked)" in result.stdout


def test_no_respect_gitignore_walks_the_folder(box: Sandbox) -> None:
    listed = box.listed("projects", "--no-respect-gitignore")
    # Everything on the disk but what the configured excludes drop (archive/).
    assert listed == sorted([*KEPT, *IGNORED][:-1])


def test_a_nested_repository_is_checked_from_inside(box: Sandbox) -> None:
    nested = Sandbox(box.root / "projects" / "vendor")
    nested.write("cx-010-checkpoint.json", CHECKPOINT)
    assert box.listed("projects") == KEPT
    assert box.listed("projects/vendor") == ["projects/vendor/cx-010-checkpoint.json"]


def test_outside_git_the_walk_reads_the_gitignore_files(tmp_path: Path) -> None:
    box = Sandbox(tmp_path / "plain", git=False)
    _tree(box)
    # Without git there is no index (cx-005 is ignored) and no info/exclude or global file.
    expected = sorted(
        [KEPT[0], KEPT[1], "projects/local-only/cx-003-checkpoint.json", "projects/personal/cx-004-checkpoint.json"]
    )
    assert box.listed() == expected


def test_within_one_listing_the_files_are_listed_once_and_filtered_alike(tmp_path: Path) -> None:
    from unittest import mock

    from ctxres.config import load_config
    from ctxres.linters.checking import discovery

    (tmp_path / "a" / "b").mkdir(parents=True)
    for name in ("ORCHESTRATION.yaml", "a/_resume.md", "a/b/_resume.md", "a/b/other.md", ".gitignore"):
        (tmp_path / name).write_text("x: 1\n")
    (tmp_path / "a" / "b" / "ignored.md").write_text("")
    (tmp_path / ".gitignore").write_text("ignored.md\n")
    config = load_config(tmp_path, None)
    plain = (discovery.discover([tmp_path], config), discovery.find_named([tmp_path], config, ("_resume.md",)))
    with discovery.one_listing(), mock.patch.object(discovery, "walk_files", wraps=discovery.walk_files) as walk:
        within = (discovery.discover([tmp_path], config), discovery.find_named([tmp_path], config, ("_resume.md",)))
        assert walk.call_count == 1
    assert within == plain and [p.name for p in plain[1]] == ["_resume.md", "_resume.md"]
    with mock.patch.object(discovery, "walk_files", wraps=discovery.walk_files) as walk:
        discovery.find_named([tmp_path], config, ("_resume.md",))
        discovery.find_named([tmp_path], config, ("_resume.md",))
        assert walk.call_count == 2  # outside of one: listed afresh


def test_the_display_and_real_path_of_a_listed_file_are_computed_per_folder_alike(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    from ctxres.linters.checking import discovery

    (tmp_path / "w" / "a" / "b").mkdir(parents=True)
    (tmp_path / "w" / "a" / "b" / "f.yaml").write_text("x: 1\n")
    (tmp_path / "w" / "target.yaml").write_text("x: 1\n")
    (tmp_path / "w" / "a" / "link.yaml").symlink_to(tmp_path / "w" / "target.yaml")
    (tmp_path / "w" / "alias").symlink_to(tmp_path / "w" / "a", target_is_directory=True)
    monkeypatch.chdir(tmp_path / "w" / "a")
    rels = ["b/f.yaml", "link.yaml", "missing.yaml", "b/missing/g.yaml"]
    folders = [".", "..", "../a", "b", str(tmp_path / "w" / "a"), str(tmp_path / "w"), "../alias", str(tmp_path)]
    cwds = [Path.cwd(), tmp_path, tmp_path / "w" / "a" / "b", tmp_path / "elsewhere", Path("rel")]
    for folder in map(Path, folders):
        for cwd in cwds:
            display = discovery._display_below(folder, cwd)
            real_folders: dict[str, str] = {}
            for rel in rels:
                path = folder / rel
                assert display(path, rel) == discovery._display(path, cwd), (folder, cwd, rel)
                assert discovery._realpath(str(path), real_folders) == os.path.realpath(path), (folder, rel)


def test_real_paths_resolved_from_the_parent_folders_are_realpaths(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Folders through links (to a folder, to a parent, relative and absolute), '.' and '..' at any depth: one memory
    of real folders for every path, in any order, answers os.path.realpath."""
    import itertools
    import os

    from ctxres.linters.checking import discovery

    (tmp_path / "a" / "b" / "c").mkdir(parents=True)
    (tmp_path / "a" / "b" / "c" / "f.yaml").write_text("x: 1\n")
    (tmp_path / "l").symlink_to("a/b", target_is_directory=True)
    (tmp_path / "a" / "b" / "up").symlink_to("..", target_is_directory=True)
    (tmp_path / "a" / "abs").symlink_to(tmp_path / "a" / "b" / "c", target_is_directory=True)
    (tmp_path / "a" / "b" / "c" / "g.yaml").symlink_to("../../../l/c/f.yaml")
    monkeypatch.chdir(tmp_path)
    names = ["a", "b", "c", "l", "up", "abs", ".", ".."]
    paths = [
        os.path.join(*parts, leaf)
        for depth in range(4)
        for parts in itertools.product(names, repeat=depth)
        for leaf in ("f.yaml", "g.yaml")
    ]
    for base in ("", str(tmp_path)):
        folders: dict[str, str] = {}
        for path in (os.path.join(base, p) if base else p for p in [*paths, *reversed(paths)]):
            assert discovery._realpath(path, folders) == os.path.realpath(path), path


@pytest.mark.parametrize("within", [False, True])
def test_a_listing_makes_the_paths_of_the_walk_as_it_is_iterated(tmp_path: Path, within: bool) -> None:
    """`candidate_files` keeps each folder's files as relative paths: iterated (twice alike), the pairs are the
    (path, relative path) pairs of the walk, in its order, with and without a listing kept for the check."""
    from contextlib import nullcontext

    from ctxres.config import load_config
    from ctxres.linters.checking import discovery

    for rel in ("b/x.yaml", "a/ORCHESTRATION.yaml", "a/c/d.json", "top.md", "a/ignored.md"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x: 1\n")
    (tmp_path / ".gitignore").write_text("ignored.md\n")
    config = load_config(tmp_path, None)
    walked = list(discovery.walk_files(tmp_path, config))
    assert walked == [".gitignore", "top.md", "a/ORCHESTRATION.yaml", "a/c/d.json", "b/x.yaml"]
    with discovery.one_listing() if within else nullcontext():
        listed = discovery.candidate_files([tmp_path], config)[tmp_path]
        again = discovery.candidate_files([tmp_path], config, lambda name: name.endswith(".yaml"))[tmp_path]
    assert list(listed) == list(listed) == [(tmp_path / rel, rel) for rel in walked]
    assert [rel for _, rel in again] == ["a/ORCHESTRATION.yaml", "b/x.yaml"]
    assert all(isinstance(path, Path) and path == tmp_path / rel for path, rel in again)
