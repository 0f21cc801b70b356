"""The code cites documents a clone of this repository holds, by headings that exist.

A comment or docstring that points a reader somewhere must point at something they have: the
repository's own docs (``docs/formats.md``, ``docs/protocol/...``), cited by document and heading:
``(docs/formats.md, "Staleness")``. These tests fail when a tracked ``.py``, ``.md`` or ``.json`` file
outside ``fixtures/`` cites the documents the project was designed from by number (they are not in the
repository), and when a cited heading does not exist in the document it names; and when a tracked ``.py``,
``.md``, ``.toml``, ``.yaml``, ``.yml`` or ``.cfg`` file outside ``fixtures/`` and ``CHANGELOG.md`` (its
entries are history) cites what a clone does not hold: an issue of the tracker by number, a gap of the
design notes by its RG- code, the document the project was specified in, the design notes, or the
documents beside the repository. Such a text says the fact itself or cites a ``docs/`` heading.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
SUFFIXES = (".py", ".md", ".json")
# `fixtures/` holds files written by others (a real project's corpus cites its own documents).
EXCLUDED_PREFIXES = ("fixtures/",)
# "seed" and a number from 000 to 004 (any case, "seeds" too, with or without the space or a leading zero).
NUMBERED_DOCUMENT = re.compile(r"\bseeds? ?0?0[0-4]\b", re.IGNORECASE)
# What a clone of the repository cannot follow (written so that this file does not match it).
OUTSIDE_CITATION = re.compile(
    r"\bissues? #?\d+|\bRG-\d|\bthe spec[i]fication\b|(?<![\w/-])DESIGN\.md|\bseeds?/"
    r"|\.\./shared/(?:corpus|reference|seeds)|\breference/claude-code-hooks\.md",
    re.IGNORECASE,
)
OUTSIDE_SUFFIXES = (".py", ".md", ".toml", ".yaml", ".yml", ".cfg")
# The changelog's entries are history: they name the issues they closed.
OUTSIDE_EXCLUDED = ("CHANGELOG.md",)
# A document of this repository, a comma, and one of its headings in double quotes.
CITATION = re.compile(r"\b(docs/[\w./-]+\.md), \"([^\"\n]+)\"")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$")
FENCE = re.compile(r"^\s*(```|~~~)")


def repository_files(root: Path) -> list[str]:
    """The files a clone has (tracked, and new files not ignored), ``/``-separated, that the checks read."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=root,
        capture_output=True,
        check=True,
    ).stdout.decode("utf-8")
    return sorted(
        name
        for name in filter(None, listed.split("\0"))
        if name.endswith(SUFFIXES) and not name.startswith(EXCLUDED_PREFIXES) and (root / name).is_file()
    )


def numbered_document_citations(root: Path, files: list[str]) -> list[str]:
    """``path:line: text`` of every line that cites a specification document by number."""
    found = []
    for name in files:
        for number, line in enumerate((root / name).read_text("utf-8", errors="replace").splitlines(), start=1):
            if NUMBERED_DOCUMENT.search(line):
                found.append(f"{name}:{number}: {line.strip()}")
    return found


def outside_citations(root: Path) -> list[str]:
    """``path:line: text`` of every line that cites what a clone does not hold."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=root,
        capture_output=True,
        check=True,
    ).stdout.decode("utf-8")
    found = []
    for name in sorted(filter(None, listed.split("\0"))):
        if not name.endswith(OUTSIDE_SUFFIXES) or name.startswith(EXCLUDED_PREFIXES) or name in OUTSIDE_EXCLUDED:
            continue
        if not (root / name).is_file():
            continue
        for number, line in enumerate((root / name).read_text("utf-8", errors="replace").splitlines(), start=1):
            if OUTSIDE_CITATION.search(line):
                found.append(f"{name}:{number}: {line.strip()}")
    return found


def headings(document: Path) -> set[str]:
    """The Markdown headings of ``document`` (outside fenced code blocks)."""
    found: set[str] = set()
    fenced = False
    for line in document.read_text("utf-8").splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        match = None if fenced else HEADING.match(line)
        if match:
            found.add(match.group(1))
    return found


def citations(root: Path, files: list[str]) -> list[tuple[str, str, str]]:
    """(where, document, heading) of every ``docs/<name>.md, "Heading"`` citation in ``files``."""
    found = []
    for name in files:
        for number, line in enumerate((root / name).read_text("utf-8", errors="replace").splitlines(), start=1):
            found += [(f"{name}:{number}", doc, heading) for doc, heading in CITATION.findall(line)]
    return found


def broken_citations(root: Path, files: list[str]) -> list[str]:
    """The citations whose document does not exist or has no such heading."""
    known: dict[str, set[str] | None] = {}
    broken = []
    for where, doc, heading in citations(root, files):
        if doc not in known:
            known[doc] = headings(root / doc) if (root / doc).is_file() else None
        present = known[doc]
        if present is None:
            broken.append(f'{where}: {doc} does not exist (cited for "{heading}")')
        elif heading not in present:
            broken.append(f'{where}: {doc} has no heading "{heading}"')
    return broken


# --------------------------------------------------------------------------- the repository


def test_no_file_cites_the_specification_documents_by_number() -> None:
    assert numbered_document_citations(ROOT, repository_files(ROOT)) == []


def test_no_file_cites_what_a_clone_does_not_hold() -> None:
    assert outside_citations(ROOT) == []


def test_every_cited_heading_exists() -> None:
    assert broken_citations(ROOT, repository_files(ROOT)) == []


def test_the_code_cites_the_formats_page() -> None:
    """The checks above see the citations (a pattern that matched nothing would pass them vacuously)."""
    cited = {(doc, heading) for _, doc, heading in citations(ROOT, repository_files(ROOT))}
    formats = {heading for doc, heading in cited if doc == "docs/formats.md"}
    assert {"Staleness", "Nexus state", "Agent-memory runs", "The context-monitor injection"} <= formats
    assert len(formats) >= 15


# --------------------------------------------------------------------------- planted violations


def _repository(tmp_path: Path, files: dict[str, str]) -> Path:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True, capture_output=True)
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, "utf-8")
    return tmp_path


def test_a_numbered_citation_is_found_outside_fixtures_only(tmp_path: Path) -> None:
    number = "00" + "3"  # not spelled out here, or this file would cite it
    root = _repository(
        tmp_path,
        {
            "ctxres/runs.py": f'"""Agent-memory runs (seed {number}).\n\nTask state."""\n',
            "docs/notes.md": f"# Notes\n\nAs Seeds {number} says.\n",
            "schemas/event.schema.json": '{"description": "An event (seed ' + number + ')."}\n',
            "fixtures/corpus/README.md": f"Written by a project that follows seed {number}.\n",
            "ctxres/fuzzing.py": "SEED = 0  # the seed 0 of the fuzz runs, and seed 1\n",
        },
    )
    files = repository_files(root)
    assert "fixtures/corpus/README.md" not in files
    assert numbered_document_citations(root, files) == [
        f'ctxres/runs.py:1: """Agent-memory runs (seed {number}).',
        f"docs/notes.md:3: As Seeds {number} says.",
        f'schemas/event.schema.json:1: {{"description": "An event (seed {number})."}}',
    ]


def test_a_citation_of_a_missing_heading_or_document_is_broken(tmp_path: Path) -> None:
    formats, gone = "docs/formats.md", "docs/gone.md"  # kept apart from the headings: not citations here
    root = _repository(
        tmp_path,
        {
            formats: "# Formats\n\n## Staleness\n\n```text\n## Not a heading\n```\n",
            "ctxres/staleness.py": (
                f'"""Levels ({formats}, "Staleness"); the rest ({formats}, "Freshness")."""\n'
                f'# {formats}, "Not a heading"\n'
                f'# {gone}, "Anything"\n'
            ),
        },
    )
    assert broken_citations(root, repository_files(root)) == [
        'ctxres/staleness.py:1: docs/formats.md has no heading "Freshness"',
        'ctxres/staleness.py:2: docs/formats.md has no heading "Not a heading"',
        'ctxres/staleness.py:3: docs/gone.md does not exist (cited for "Anything")',
    ]


def test_a_citation_a_clone_cannot_follow_is_found(tmp_path: Path) -> None:
    issue, gap, spec, notes = "issue " + "13", "RG" + "-6", "the spec" + "ification", "DESIGN" + ".md"
    root = _repository(
        tmp_path,
        {
            "ctxres/a.py": f"# See {issue}, item 2.\nX = 1  # {gap}: written once\n",
            "docs/b.md": f"As {spec.capitalize()} says; {notes} too.\n",
            "pyproject.toml": "# ../" + "shared/corpus holds the original\n",
            "noxfile.yaml": "# seeds" + "/ beside it\n",
            "fixtures/corpus/c.md": f"Their {issue}.\n",
            "CHANGELOG.md": f"- Fixed ({issue}).\n",
            "ctxres/fine.py": '"""FINAL-DESIGN.md, ../../shared/notes.md, an issue of size 3, docs/formats.md."""\n',
        },
    )
    assert outside_citations(root) == [
        f"ctxres/a.py:1: # See {issue}, item 2.",
        f"ctxres/a.py:2: X = 1  # {gap}: written once",
        f"docs/b.md:1: As {spec.capitalize()} says; {notes} too.",
        "noxfile.yaml:1: # seeds" + "/ beside it",
        "pyproject.toml:1: # ../" + "shared/corpus holds the original",
    ]
