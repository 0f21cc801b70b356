"""Finding the artifacts to check under the given paths."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ctxres.artifacts import KINDS, SNIFFED
from ctxres.config import Config
from ctxres.globs import IgnoreRule, is_ignored, matches_any, parse_ignore
from ctxres.loading import Format


@dataclass(frozen=True)
class Artifact:
    """A file to check: where it is, how to show its path, what it is."""

    path: Path
    display: str
    kind: str

    @property
    def format(self) -> Format:
        return KINDS[self.kind]


def _display(path: Path, cwd: Path) -> str:
    try:
        return path.relative_to(cwd).as_posix()
    except ValueError:
        return os.path.relpath(path, cwd).replace(os.sep, "/")


def kind_of(relpath: str, path: Path, config: Config) -> str | None:
    """The artifact kind of a file, from its name (the configured patterns), else from its content (the
    catalog's ``sniff``: a YAML file with a top-level `resumption:` key is an orchestration file, a
    Markdown file with an L2-REINJECT marker a rule file)."""
    for kind, patterns in config.patterns.items():
        if matches_any(relpath, patterns):
            return kind
    suffix = path.suffix.lower()
    for entry in SNIFFED:
        if entry.sniff is None or suffix not in entry.sniff[0]:
            continue
        if entry.kind == "orchestration" and not config.sniff_resumption:
            continue
        return entry.kind if _holds(path, entry.sniff[1], config.max_file_size) else None
    return None


def _holds(path: Path, pattern: re.Pattern[bytes], max_bytes: int) -> bool:
    """Whether a regular file of at most ``max_bytes`` matches ``pattern`` (never opens a FIFO)."""
    try:
        if path.is_file() and path.stat().st_size <= max_bytes:
            with path.open("rb") as handle:
                return pattern.search(handle.read(max_bytes)) is not None
    except OSError:
        return False
    return False


def _gitignore_rules(folder: Path) -> list[IgnoreRule]:
    try:
        return parse_ignore((folder / ".gitignore").read_text("utf-8", "replace").splitlines())
    except OSError:
        return []


@lru_cache(maxsize=32)
def _exclude_rules(patterns: tuple[str, ...]) -> list[IgnoreRule]:
    return parse_ignore(list(patterns))


def _excluded(relpath: str, is_dir: bool, config: Config) -> bool:
    return is_ignored(relpath, is_dir, _exclude_rules((*config.exclude, *config.extend_exclude)))


def discover(paths: list[Path], config: Config, cwd: Path | None = None) -> list[Artifact]:
    """Every artifact under ``paths`` (files given explicitly are checked whatever the excludes)."""
    cwd = cwd or Path.cwd()
    found: dict[Path, Artifact] = {}
    for given in paths:
        if given.is_file():
            kind = kind_of(_display(given, cwd), given, config)
            if kind:
                found.setdefault(given.resolve(), Artifact(given, _display(given, cwd), kind))
            continue
        for path, rel in walk_files(given, config):
            kind = kind_of(rel, path, config)
            if kind:
                found.setdefault(path.resolve(), Artifact(path, _display(path, cwd), kind))
    return sorted(found.values(), key=lambda a: a.display)


def find_named(paths: list[Path], config: Config, names: tuple[str, ...]) -> list[Path]:
    """The files called one of ``names`` under ``paths`` (a given file: itself), with the excludes and
    ``.gitignore`` rules of :func:`discover`: for files that are not an artifact kind but that a rule
    looks for wherever the check is run from (the legacy Nexus ``_resume.md``)."""
    found: dict[Path, Path] = {}
    for given in paths:
        if given.is_file():
            if given.name in names:
                found.setdefault(given.resolve(), given)
            continue
        for path, _rel in walk_files(given, config, lambda name: name in names):
            found.setdefault(path.resolve(), path)
    return sorted(found.values())


def walk_files(top: Path, config: Config, wanted: Callable[[str], bool] | None = None) -> Iterator[tuple[Path, str]]:
    """(path, path relative to ``top``) of every file under ``top`` that the excludes and ``.gitignore``
    rules keep (and whose name ``wanted`` accepts), folder by folder in name order."""
    # gitignore rules of each folder apply below it; a stack keeps (base, rules) pairs.
    ignore_stack: list[tuple[str, list[IgnoreRule]]] = []
    for dirpath, dirnames, filenames in os.walk(top):
        folder = Path(dirpath)
        rel_folder = folder.relative_to(top).as_posix()
        rel_folder = "" if rel_folder == "." else rel_folder
        while ignore_stack and not (rel_folder + "/").startswith(ignore_stack[-1][0]):
            ignore_stack.pop()
        if config.respect_gitignore:
            rules = _gitignore_rules(folder)
            if rules:
                ignore_stack.append((rel_folder + "/" if rel_folder else "", rules))

        def skipped(name: str, is_dir: bool, rel_folder: str = rel_folder) -> bool:
            rel = f"{rel_folder}/{name}" if rel_folder else name
            if _excluded(rel, is_dir, config):
                return True
            return any(is_ignored(rel[len(base) :], is_dir, rules) for base, rules in ignore_stack)

        dirnames[:] = sorted(d for d in dirnames if not skipped(d, True))
        for name in sorted(filenames):
            if (wanted is not None and not wanted(name)) or skipped(name, False):
                continue
            yield folder / name, f"{rel_folder}/{name}" if rel_folder else name
