"""The checks of ``nox -s build`` that twine and check-wheel-contents do not make.

``python dev/release_check.py WHEEL [--same-as OTHER_WHEEL]`` prints the wheel's file list and fails (exit 1,
one line per problem) when:

- the wheel holds a file that is not the package and its data (``tests/``, ``bench/``, ``e2e/``,
  ``fixtures/``, ``dev/``, a stray top-level module or folder), or lacks one: the expected list is made from
  ``pyproject.toml`` (``[tool.setuptools]`` ``packages``, ``package-dir`` and ``package-data``) and the
  source tree, so a module added to a package is expected at once;
- its ``.dist-info`` holds anything but the metadata files, or names another version than the package;
- ``--same-as``: the other wheel (built from the sdist, say) differs from it in a file name or content.

``python dev/release_check.py --tag v1.2.3 [--notes FILE]`` (the release workflow, before it builds) fails unless
the tag is ``v`` and the package's version, and the changelog's top entry is that version with a date;
``--notes`` writes that entry's text to FILE (the release notes).
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import re
import sys
import zipfile
from collections.abc import Iterable, Sequence
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
# What a wheel's .dist-info holds: the metadata setuptools writes, and the license file.
DIST_INFO_FILES = frozenset({"METADATA", "WHEEL", "RECORD", "entry_points.txt", "top_level.txt", "licenses/LICENSE"})


def package_version(root: Path = ROOT) -> str:
    """``__version__`` as ``ctxres/__init__.py`` writes it (read, not imported)."""
    tree = ast.parse((root / "ctxres" / "__init__.py").read_text("utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "__version__" for t in node.targets):
            value = ast.literal_eval(node.value)
            if isinstance(value, str):
                return value
    raise ValueError("ctxres/__init__.py writes no __version__")


# A release heading of Keep a Changelog: `## [1.2.3] - 2026-11-27`.
RELEASE_HEADING = re.compile(r"^## \[(?P<version>[^\]]+)\] - (?P<date>\d{4}-\d{2}-\d{2})$")


def top_entry(changelog: str) -> tuple[str, str]:
    """The changelog's top ``## [...]`` heading and the text under it, up to the next one."""
    lines = changelog.splitlines()
    starts = [n for n, line in enumerate(lines) if line.startswith("## [")]
    if not starts:
        return "", ""
    end = starts[1] if len(starts) > 1 else len(lines)
    return lines[starts[0]], "\n".join(lines[starts[0] + 1 : end]).strip() + "\n"


def tag_problems(tag: str, version: str, changelog: str) -> list[str]:
    """What keeps ``tag`` from being released: another version than the package's, or a changelog whose top
    entry is not that version with a date."""
    problems = []
    if tag != f"v{version}":
        problems.append(f"the tag {tag} is not v{version}, the version ctxres/__init__.py writes")
    heading, _ = top_entry(changelog)
    match = RELEASE_HEADING.match(heading)
    if match is None:
        problems.append(f"the changelog's top entry is not `## [{version}] - YYYY-MM-DD`: {heading or 'no entry'}")
    elif match["version"] != version:
        problems.append(f"the changelog's top entry is {match['version']}, the package is {version}")
    return problems


def package_folder(package: str, package_dir: dict[str, str]) -> str:
    """The source folder of ``package``: its ``package-dir`` entry, else its parent's folder and its name."""
    if package in package_dir:
        return package_dir[package]
    parent, _, name = package.rpartition(".")
    return f"{package_folder(parent, package_dir)}/{name}" if parent else package


def expected_package_files(root: Path = ROOT) -> set[str]:
    """The files the wheel must hold under ``ctxres/``: each package's modules and its package data."""
    setuptools = tomllib.loads((root / "pyproject.toml").read_text("utf-8"))["tool"]["setuptools"]
    package_dir: dict[str, str] = setuptools.get("package-dir", {})
    data: dict[str, list[str]] = setuptools.get("package-data", {})
    expected: set[str] = set()
    for package in setuptools["packages"]:
        folder = root / package_folder(package, package_dir)
        installed = package.replace(".", "/")
        patterns = ["*.py", *data.get(package, [])]
        for pattern in patterns:
            expected.update(f"{installed}/{path.relative_to(folder).as_posix()}" for path in folder.glob(pattern))
    return expected


def wheel_names(wheel: Path) -> list[str]:
    with zipfile.ZipFile(wheel) as archive:
        return sorted(name for name in archive.namelist() if not name.endswith("/"))


def wheel_problems(names: Iterable[str], expected: set[str], version: str) -> list[str]:
    """What is wrong with a wheel's file list (``names``), given the package files ``expected``."""
    dist_info = f"ctxres-{version}.dist-info/"
    problems: list[str] = []
    package: set[str] = set()
    for name in names:
        if name.startswith(dist_info):
            if name[len(dist_info) :] not in DIST_INFO_FILES:
                problems.append(f"{name}: not a metadata file of the wheel")
        elif name.startswith("ctxres/"):
            package.add(name)
        else:
            problems.append(f"{name}: outside the package (only ctxres/ and {dist_info} belong in the wheel)")
    problems += [f"{name}: not a module or data file of the package" for name in sorted(package - expected)]
    problems += [f"{name}: missing from the wheel" for name in sorted(expected - package)]
    if not any(name.startswith(dist_info) for name in names):
        problems.append(f"no {dist_info} in the wheel: it is not version {version}")
    return problems


def _digests(wheel: Path) -> dict[str, str]:
    with zipfile.ZipFile(wheel) as archive:
        return {
            name: hashlib.sha256(archive.read(name)).hexdigest()
            for name in archive.namelist()
            if not name.endswith("/")
        }


def difference(first: Path, second: Path) -> list[str]:
    """The files by which two wheels differ (name or content)."""
    one, other = _digests(first), _digests(second)
    problems = [f"{name}: only in {first.name} of {first.parent}" for name in sorted(one.keys() - other.keys())]
    problems += [f"{name}: only in {second.name} of {second.parent}" for name in sorted(other.keys() - one.keys())]
    problems += [f"{name}: differs" for name in sorted(one.keys() & other.keys()) if one[name] != other[name]]
    return problems


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("wheel", type=Path, nargs="?")
    parser.add_argument("--same-as", type=Path, help="another wheel that must hold the same files, byte for byte")
    parser.add_argument("--tag", help="the release tag (vX.Y.Z) that the version and the changelog must agree with")
    parser.add_argument("--notes", type=Path, help="with --tag: write the changelog's top entry to this file")
    args = parser.parse_args(argv)
    version = package_version()
    problems: list[str] = []
    if args.tag is not None:
        changelog = (ROOT / "CHANGELOG.md").read_text("utf-8")
        problems += tag_problems(args.tag, version, changelog)
        if args.notes is not None and not problems:
            args.notes.write_text(top_entry(changelog)[1], encoding="utf-8")
    if args.wheel is not None:
        names = wheel_names(args.wheel)
        print(f"{args.wheel.name}: {len(names)} files")
        for name in names:
            print(f"  {name}")
        problems += wheel_problems(names, expected_package_files(), version)
        if args.same_as is not None:
            problems += difference(args.wheel, args.same_as)
    elif args.tag is None:
        parser.error("name a wheel, or a release tag with --tag")
    for problem in problems:
        print(f"release_check: {problem}", file=sys.stderr)
    if not problems:
        said = [f"the tag {args.tag}, the package and the changelog agree"] if args.tag else []
        if args.wheel is not None:
            said.append(f"the package and its data only, version {version}")
            said += [f"the same files as {args.same_as}"] if args.same_as else []
        print("release_check: " + "; ".join(said))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
