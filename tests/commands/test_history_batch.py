"""The history commands read each distinct version once, in one `git cat-file` process, and parse
each version section by section without changing what they report.

* `audit-history`, `stale --since` and `check --since` run git through a logging shim on PATH: one
  `git cat-file --batch` reads every version, each distinct blob named once (a history that reverts
  to an earlier version asks for it once), and no `git show`.
* A history with reverts, an invalid version and a stale commit that restores an older state is
  reported as the comparison defines it (verdicts, notes and lines of the version in that commit).
* `SectionParser` (the section-by-section parse) gives exactly the data of `ctxres.formats.yamlpos.parse_yaml`
  on every YAML file of the fixtures and on thousands of mutations of them, or says to parse whole.
"""

from __future__ import annotations

import json
import random
import shutil
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxres.formats.yamlpos import YamlPosError, parse_yaml
from ctxres.linters.checking.yaml_sections import WHOLE, SectionParser

from ..git_sandbox import GitRepo
from .demo_workflow import ADVANCED, ORCH, UPDATED, line_of

ROOT = Path(__file__).resolve().parent.parent.parent
PATH = "ORCHESTRATION.yaml"
BROKEN = ORCH + "  bad: [unclosed\n"


def _shim(repo: GitRepo, tmp: Path) -> Path:
    """Put a `git` first on PATH that logs its arguments (and the stdin of cat-file) to files."""
    real = shutil.which("git")
    assert real is not None
    bin_dir = tmp / "shim-bin"
    bin_dir.mkdir()
    log = tmp / "git-calls.log"
    script = bin_dir / "git"
    script.write_text(
        "#!/bin/sh\n"
        f'echo "$*" >> "{log}"\n'
        'if [ "$1" = cat-file ]; then\n'
        f'  tee -a "{log}.stdin-$2" | "{real}" "$@"\n'
        "else\n"
        f'  exec "{real}" "$@"\n'
        "fi\n",
        encoding="utf-8",
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    repo.env["PATH"] = f"{bin_dir}:{repo.env.get('PATH', '')}"
    return log


@pytest.fixture
def history(tmp_path: Path) -> tuple[GitRepo, dict[str, str]]:
    """ORCH -> ADVANCED (stale) -> ORCH (revert: stale again, the state moved back) -> ADVANCED
    (stale, a version seen before) -> BROKEN (not valid YAML) -> ORCH -> UPDATED (clean)."""
    repo = GitRepo(tmp_path / "repo")
    commits: dict[str, str] = {}
    versions = [("start", ORCH), ("advance", ADVANCED), ("revert", ORCH), ("again", ADVANCED)]
    versions += [("broken", BROKEN), ("fixed", ORCH), ("updated", UPDATED)]
    for index, (name, text) in enumerate(versions):
        repo.stage(PATH, text)
        commits[name] = repo.commit(name, date=f"2026-02-20T1{index}:00:00Z")
    return repo, commits


def test_every_distinct_version_is_read_once_by_one_cat_file(
    history: tuple[GitRepo, dict[str, str]], tmp_path: Path
) -> None:
    repo, commits = history
    log = _shim(repo, tmp_path)
    blobs = {repo.git("rev-parse", f"{sha}:{PATH}").strip() for sha in commits.values()}
    assert len(blobs) == 4  # ORCH, ADVANCED, BROKEN, UPDATED
    for args in (["audit-history", PATH], ["stale", "--since", commits["start"]]):
        for stale_log in tmp_path.glob("git-calls.log*"):
            stale_log.unlink()
        result = repo.run(*args)
        assert result.returncode == 1, result.stderr
        calls = log.read_text("utf-8").splitlines()
        assert not [call for call in calls if call.startswith("show")], calls
        assert [call for call in calls if call.startswith("cat-file")] == ["cat-file --batch-check", "cat-file --batch"]
        asked = (tmp_path / "git-calls.log.stdin---batch").read_text("utf-8").splitlines()
        assert len(asked) == len(set(asked)) == len(blobs), asked  # each distinct version once
        full = {repo.git("rev-parse", name).strip() for name in asked}
        assert full == blobs


@pytest.mark.parametrize("abbrev", [None, "12"])
def test_versions_are_asked_by_full_hash_and_shown_commits_abbreviated_by_git(
    history: tuple[GitRepo, dict[str, str]], tmp_path: Path, abbrev: str | None
) -> None:
    """git's abbreviation of every commit and blob of a history costs more than reading the versions:
    the log gives full hashes, and only the commits shown are abbreviated, by git, in one call."""
    repo, commits = history
    if abbrev is not None:
        repo.git("config", "core.abbrev", abbrev)
    log = _shim(repo, tmp_path)
    for args in (
        ["audit-history", PATH, "--output-format", "json"],
        ["stale", "--since", commits["start"], "--output-format", "json"],
    ):
        for stale_log in tmp_path.glob("git-calls.log*"):
            stale_log.unlink()
        result = repo.run(*args)
        assert result.returncode == 1, result.stderr
        asked = (tmp_path / "git-calls.log.stdin---batch-check").read_text("utf-8").splitlines()
        assert asked and all(len(name) == 40 for name in asked), asked
        calls = log.read_text("utf-8").splitlines()
        assert len([call for call in calls if "--no-walk" in call]) == 1, calls  # one call for all
        # The root and the shallow clone's file asked in one process, as the short hashes are.
        assert [call for call in calls if call.startswith("rev-parse --show-toplevel")] == [
            "rev-parse --show-toplevel --git-path shallow"
        ], calls
        assert not [call for call in calls if call.startswith("rev-parse --git-path")], calls
        report = json.loads(result.stdout)
        shown = [entry for file in report.get("files", []) for entry in file["stale_commits"]]
        shown += report.get("blocked", [])
        assert shown, report
        for entry in shown:
            assert entry["commit"] == repo.git("log", "-1", "--format=%h", entry["sha"]).strip()
            assert len(entry["commit"]) == int(abbrev or 7)


def test_reverts_and_an_invalid_version_are_reported_as_before(history: tuple[GitRepo, dict[str, str]]) -> None:
    repo, commits = history
    result = repo.run("audit-history", PATH, "--output-format", "json")
    assert result.returncode == 1, result.stderr
    (report,) = json.loads(result.stdout)["files"]
    assert report["commits_checked"] == 6
    stale = {entry["commit"]: entry for entry in report["stale_commits"]}
    assert list(stale) == [commits["advance"], commits["revert"], commits["again"]]
    assert [(entry["commit"], entry["note"]) for entry in report["not_compared"]] == [
        (commits["broken"], "not compared: this version is not valid YAML (`ctxres check` says why)"),
        (commits["fixed"], "not compared: the previous version is not valid YAML"),
    ]
    # Lines are those of the version in the commit: ADVANCED for two commits, ORCH for the revert.
    for name, text in (("advance", ADVANCED), ("revert", ORCH), ("again", ADVANCED)):
        entry = stale[commits[name]]
        assert entry["stale_line"] == line_of(text, "updated_at:")
        moved = {move["path"]: move["line"] for move in entry["moved"]}
        assert moved["$.pipelines.main.status"] == line_of(text, "_IN_PROGRESS")
        assert moved["$.pipelines.main.phases[1].status"] == line_of(text, 'name: "Ship"') + 1
    assert stale[commits["revert"]]["moved"][0]["before"] == "PHASE_2_IN_PROGRESS"
    assert stale[commits["revert"]]["moved"][0]["after"] == "PHASE_1_IN_PROGRESS"


def _fixture_texts() -> list[tuple[str, str]]:
    texts = []
    for path in sorted([*ROOT.glob("fixtures/**/*.yaml"), *ROOT.glob("fixtures/**/*.yml")]):
        try:
            texts.append((str(path.relative_to(ROOT)), path.read_text("utf-8")))
        except (UnicodeDecodeError, OSError):
            continue
    return texts


def _mutations(texts: list[tuple[str, str]], count: int, seed: int) -> list[tuple[str, str]]:
    """Lines deleted, repeated, indented, dedented, turned into `key: x...` or swapped."""
    rng = random.Random(seed)
    out = []
    for number in range(count):
        name, text = rng.choice(texts)
        lines = text.split("\n")
        for _ in range(rng.randint(1, 3)):
            op, at = rng.randrange(6), rng.randrange(len(lines))
            if op == 0:
                del lines[at]
            elif op == 1:
                lines.insert(at, lines[rng.randrange(len(lines))])
            elif op == 2:
                lines[at] = " " + lines[at]
            elif op == 3:
                lines[at] = lines[at][1:]
            elif op == 4:
                lines[at] = lines[at].replace(":", ": x", 1)
            else:
                other = rng.randrange(len(lines))
                lines[at], lines[other] = lines[other], lines[at]
            if not lines:
                lines = [""]
        out.append((f"{name} (mutation {number})", "\n".join(lines)))
    return out


@pytest.mark.parametrize("leaf_chars", [0, 400])
def test_section_parse_is_the_whole_parse(monkeypatch: pytest.MonkeyPatch, leaf_chars: int) -> None:
    from ctxres.linters.checking import yaml_sections

    monkeypatch.setattr(yaml_sections, "LEAF_CHARS", leaf_chars)  # 0: cut everything that can be cut
    texts = _fixture_texts()
    assert len(texts) > 100
    parser = SectionParser()
    cut = 0
    for name, text in [*texts, *_mutations(texts, 1500, seed=leaf_chars)]:
        got = parser.parse(text)
        if got is WHOLE:
            continue
        try:
            expected = parse_yaml(text).data
        except YamlPosError as exc:
            raise AssertionError(f"{name}: read in sections, but not valid YAML: {exc.message}") from None
        assert got == expected and repr(got) == repr(expected), name
        cut += 1
    assert cut > 500  # most of the corpus is plain block YAML


@pytest.mark.parametrize(
    "text",
    [
        "a: &x 1\nb: *x\n",  # an alias of an anchor in another section
        "---\na: 1\n",
        "a: 1\n\tb: 2\n",
        "a: 1\r\nb: 2\r\n",
        '"quoted": 1\nb: 2\n',
        "- 1\n- 2\n",
        "a: [1,\n2]\n",
    ],
)
def test_what_sections_cannot_say_is_parsed_whole(text: str) -> None:
    assert SectionParser().parse(text) is WHOLE


_LINE = st.text(alphabet="ab: -\r#", max_size=6)


@settings(max_examples=400, deadline=None)
@given(
    old=st.lists(_LINE, min_size=1, max_size=70),
    edits=st.lists(st.tuples(st.integers(0, 69), _LINE | st.just("x\ny")), max_size=4),
    drop=st.integers(0, 2),
)
def test_lines_against_is_a_split_and_a_comparison(old: list[str], edits: list[tuple[int, str]], drop: int) -> None:
    """`lines_against` (runs of lines compared at once) gives what splitting the new text and comparing
    it line by line gives, or None exactly when the line counts differ; and the runs of the new text."""
    from ctxres.linters.checking.yaml_sections import lines_against, run_starts

    new = list(old)
    for at, line in edits:
        if at < len(new):
            new[at] = line  # "x\ny" adds a line
    new = new[: len(new) - drop] or [""]
    old_text, text = "\n".join(old), "\n".join(new)
    got = lines_against(text, old_text, old, run_starts(old))
    lines = text.split("\n")
    if len(lines) != len(old):
        assert got is None
        return
    assert got is not None
    assert got[0] == lines
    assert got[1] == [i for i, (was, now) in enumerate(zip(old, lines, strict=True)) if was != now]
    assert got[2] == run_starts(lines)
    assert all(text.startswith(lines[i], at) for i, at in zip(range(0, len(lines), 16), got[2], strict=False))


def _edited(text: str, rng: random.Random) -> str:
    """``text`` with one to three lines edited in place (as many lines): a value changed or lengthened
    (past ``LEAF_CHARS`` too), a line indented, dedented, commented out, emptied, opened as a flow
    list, an item's dash moved or its first key changed: edits that keep the cut, and edits that move it."""
    lines = text.split("\n")
    for _ in range(rng.randint(1, 3)):
        at = rng.randrange(len(lines))
        line, op = lines[at], rng.randrange(11)
        if op == 0:
            lines[at] = line + "x"
        elif op == 1:
            lines[at] = " " + line
        elif op == 2:
            lines[at] = line[1:]
        elif op == 3:
            lines[at] = "# " + line
        elif op == 4:
            lines[at] = line.replace(":", ": [1,", 1)
        elif op == 5 and ": " in line:
            lines[at] = line.replace(": ", ': "' + "y" * rng.randint(0, 500) + '" #', 1)
        elif op == 6:
            lines[at] = ""
        elif op == 7:
            lines[at] = line.replace("- ", "  ", 1)
        elif op == 8:
            lines[at] = line.replace("  ", "- ", 1)
        elif op == 9:
            lines[at] = line.replace(": ", ": z", 1)
        else:
            lines[at] = line.replace("- ", "- k: ", 1)
    return "\n".join(lines)


@pytest.mark.parametrize("leaf_chars", [0, 60, 400])
def test_a_version_cut_as_the_previous_one_is_cut_anew(monkeypatch: pytest.MonkeyPatch, leaf_chars: int) -> None:
    """A version with as many lines as the one before is cut as that one was, where the edited lines
    allow it: the data (and WHOLE) is exactly that of a parser that never saw the earlier versions,
    along chains of edits that sometimes return to a text seen before."""
    from ctxres.linters.checking import yaml_sections

    monkeypatch.setattr(yaml_sections, "LEAF_CHARS", leaf_chars)
    rng = random.Random(leaf_chars)
    texts = [text for _name, text in _fixture_texts()]
    compared = cut = cut_as_before = 0
    for base in rng.sample(texts, min(len(texts), 60)):
        parser = SectionParser()
        current = base
        for _ in range(12):
            current = _edited(current, rng) if rng.random() < 0.8 else base
            got, fresh = parser.parse(current), SectionParser().parse(current)
            compared += 1
            if fresh is WHOLE:
                assert got is WHOLE
                continue
            assert got is not WHOLE and got == fresh and repr(got) == repr(fresh)
            assert got == parse_yaml(current).data
            cut += 1
        cut_as_before += parser.cut_as_before
    assert cut > compared // 8 and cut_as_before >= 20  # both ways were taken, many times


# Values a scalar edit writes: simple ones (read without the parser) and their near misses.
_SCALARS = [
    "7", "0", "07", "010", "123456", "-3", "+3", "1_000", "0x1f", "1.5", ".inf", "PENDING", "in_progress", "_x",
    "true", "False", "yes", "No", "on", "null", "Null", "~", "y", "n", "2026-02-17", "2026-02-17T00:00:00Z",
    '"quoted"', '""', "''", "'single'", '"with # and : inside"', '"a \\" b"', '"back\\\\slash"', "'it''s'",
    '"unclosed', "'unclosed", '"é accent"', "é", '"tab\there"', "a b", "a #c", '"x" #c', '"x"  ', "word  ",
    "[1, 2]", "{a: 1}", "|", ">", "&a x", "*a", "!tag x", "%x", "@x", "`x", "- x", "-", "? x", ": x", "#",
]  # fmt: skip


def _scalar_edited(text: str, rng: random.Random) -> str:
    """``text`` with the value of one to three ``key: value`` lines (or ``- value`` items) replaced by
    one of :data:`_SCALARS`: as a workflow's history edits a status, a count or a time."""
    lines = text.split("\n")
    candidates = [i for i, line in enumerate(lines) if ": " in line or line.lstrip().startswith("- ")]
    for at in rng.sample(candidates, min(len(candidates), rng.randint(1, 3))):
        line = lines[at]
        mark = ": " if ": " in line else "- "
        head = line[: line.index(mark) + len(mark)]
        lines[at] = head + rng.choice(_SCALARS)
    return "\n".join(lines)


@pytest.mark.parametrize("leaf_chars", [0, 400])
def test_scalar_edits_along_a_history_read_as_a_fresh_parse(monkeypatch: pytest.MonkeyPatch, leaf_chars: int) -> None:
    """Long chains of scalar edits (the pieces that change are cut further, and a one-line piece with
    a simple value is read without the parser) give exactly the data of a parser that never saw the
    earlier versions, and of `parse_yaml` on the whole text."""
    from ctxres.linters.checking import yaml_sections

    monkeypatch.setattr(yaml_sections, "LEAF_CHARS", leaf_chars)
    rng = random.Random(1000 + leaf_chars)

    def edit(valid: str, rng: random.Random) -> str:
        return _scalar_edited(valid, rng) if rng.random() < 0.9 else _edited(valid, rng)

    compared, cut = _read_along_edits(rng, bases=40, steps=25, edit=edit)
    assert cut > compared // 4


def _read_along_edits(
    rng: random.Random, *, bases: int, steps: int, edit: Callable[[str, random.Random], str]
) -> tuple[int, int]:
    """Chains of ``steps`` versions from ``bases`` fixture texts, each ``edit`` of the last version read in
    sections, read by one parser: each version is read as a parser that never saw the earlier ones reads
    it (WHOLE alike), and as `parse_yaml` reads the whole text. The versions compared and those cut."""
    texts = [text for _name, text in _fixture_texts()]
    compared = cut = 0
    for base in rng.sample(texts, min(len(texts), bases)):
        parser = SectionParser()
        valid = base
        for _ in range(steps):
            current = edit(valid, rng)
            got, fresh = parser.parse(current), SectionParser().parse(current)
            compared += 1
            if fresh is WHOLE:
                assert got is WHOLE
                continue  # the next edit starts from the last version read in sections
            valid = current
            assert got is not WHOLE and got == fresh and repr(got) == repr(fresh)
            assert got == parse_yaml(current).data
            cut += 1
    return compared, cut


@pytest.mark.parametrize("indent", ["", "    "])
@pytest.mark.parametrize("value", _SCALARS)
def test_a_one_line_piece_reads_as_the_parser_reads_it(indent: str, value: str) -> None:
    """`_simple_entry` and `_simple_item` read a one-line piece as `parse_yaml` does, or leave it to it."""
    from ctxres.linters.checking.yaml_sections import _NOT_SIMPLE, _simple_entry, _simple_item

    for key in ("status", "iterations_complete", "a.b-c", "true", "null", "x"):
        for end in ("", "\n", "  \n"):
            text = f"{indent}{key}: {value}{end}"
            entry = _simple_entry(text)
            if entry is not None:
                assert parse_yaml(text).data == dict([entry]), text
                assert repr(parse_yaml(text).data) == repr(dict([entry])), text
    for end in ("", "\n", "  \n"):
        text = f"{indent}  {value}{end}"
        item = _simple_item(text)
        if item is not _NOT_SIMPLE:
            assert repr(parse_yaml(text).data) == repr(item), text


def test_a_one_line_piece_with_a_simple_value_is_read_without_the_parser() -> None:
    """The pieces a history changes again and again (a count, a status, a time, a plan item) are cut
    down to their lines once they change, and those lines are then read without the parser."""
    from ctxres.linters.checking import yaml_sections

    template = (
        "workflow:\n  id: w\n  status: ACTIVE\nagents:\n"
        "  - id: a1\n    status: {status}\n    iterations_complete: {count}\n    note: >\n      text\n"
        '  - id: a2\n    status: PENDING\nnext_actions:\n  - "Continue: {count}"\n  - "Then gate"\n'
        'resumption:\n  recovery_state:\n    updated_at: "2026-02-17T00:{count:02d}:00Z"\n'
        "    next_step: 'step {count}'\n"
    )
    parser = SectionParser()
    for count in range(6):
        text = template.format(status="IN_PROGRESS" if count else "PENDING", count=count)
        assert parser.parse(text) == parse_yaml(text).data
        if count == 2:  # each change cuts the changed pieces one level further: now down to their lines
            parsed = parser.pieces_parsed
    assert parser.cut_as_before == 5
    assert parser.pieces_parsed == parsed  # the last three versions: no piece for the parser
    assert yaml_sections._simple_entry("    iterations_complete: 5\n") == ("iterations_complete", 5)


def _reshaped(text: str, rng: random.Random) -> str:
    """``text`` with one to three lines inserted (a copy of another line, a blank, a comment, a new
    key or item at some indentation), deleted, or moved: edits that change the number of lines."""
    lines = text.split("\n")
    for _ in range(rng.randint(1, 3)):
        at, op = rng.randrange(len(lines)), rng.randrange(5)
        if op == 0:
            lines.insert(at, rng.choice(lines))
        elif op == 1:
            lines.insert(at, rng.choice(["", "# note", " " * rng.randrange(8) + "# note"]))
        elif op == 2:
            indent = " " * rng.choice([0, 2, 4, 6, 8])
            lines.insert(at, indent + rng.choice(["new_key: 1", "- new item", "new_key:", "- k: v"]))
        elif op == 3 and len(lines) > 1:
            del lines[at]
        else:
            lines.insert(rng.randrange(len(lines)), lines.pop(at))
    return "\n".join(lines)


@pytest.mark.parametrize("leaf_chars", [0, 60, 400])
def test_versions_with_lines_added_or_removed_read_as_a_fresh_parse(
    monkeypatch: pytest.MonkeyPatch, leaf_chars: int
) -> None:
    """Along chains of edits that add, remove and move lines as well as change them (a version
    with as many lines as the one before is cut as it was where the changed lines allow it, and
    changed pieces are cut further), the data (and WHOLE) is exactly that of a parser that never
    saw the earlier versions."""
    from ctxres.linters.checking import yaml_sections

    monkeypatch.setattr(yaml_sections, "LEAF_CHARS", leaf_chars)
    rng = random.Random(2000 + leaf_chars)

    def edit(valid: str, rng: random.Random) -> str:
        return rng.choice([_reshaped, _reshaped, _edited, _scalar_edited])(valid, rng)

    compared, cut = _read_along_edits(rng, bases=50, steps=16, edit=edit)
    assert cut > compared // 4


@pytest.mark.parametrize(
    "edited",
    [
        "  b: &x 1",  # an anchor
        "  b: *x",  # an alias
        "  b: 1\r",  # a YAML line break other than \n
        "  b:\t1",  # a tab
        "  b: [" + ", ".join(["[]"] * 600) + "]",  # brackets past yamlguard's bound, with those elsewhere
    ],
)
def test_a_changed_line_that_forbids_the_cut_makes_the_version_whole(edited: str) -> None:
    before = "a:\n  b: 1\n  c: [" + ", ".join(["[]"] * 450) + "]\nd: 2\n"
    after = before.replace("  b: 1", edited)
    parser = SectionParser()
    assert parser.parse(before) == parse_yaml(before).data
    assert parser.parse(after) is WHOLE is SectionParser().parse(after)


@pytest.mark.parametrize(
    "line",
    ["", "   ", "# c", "  # c", "a: 1", "  a: 1", "    a:", "  - x", "  -", "  -x", "    - a: 1", "  'a': 1", "  a:b"],
)
def test_a_line_column_says_what_the_line_does_to_a_cut(line: str) -> None:
    """`_column` decides as the definitions: blank, a comment or deeper than the block; or starts a piece."""
    from ctxres.linters.checking.yaml_sections import _ITEM, _KEY, _column

    for indent in range(6):
        content = line.lstrip(" ")
        below = not content or content[0] == "#" or len(line) - len(content) > indent
        assert (_column(line) > indent) is below
        for cut in (_KEY, _ITEM):
            starts = line[:indent].strip(" ") == "" and cut.match(line, indent) is not None
            assert bool(_column(line) == indent and cut.match(line, indent)) is starts


def _extraction_as_data(extraction: Any) -> tuple[Any, ...]:
    """Everything an extraction holds, its units' roots and keys included (Unit equality omits them)."""
    facts = [
        (key, fact.path, fact.field, fact.value, fact.line, _unit_fields(fact.unit))
        for key, fact in extraction.facts.items()
    ]
    return facts, list(extraction.units.items())


def _unit_fields(unit: Any) -> tuple[Any, ...]:
    return unit.kind, unit.name, unit.root, unit.key, unit.within


def test_entries_remembered_across_versions_extract_as_a_fresh_walk() -> None:
    """`extract` with the sections and entries of earlier versions remembered (their values shared by
    `SectionParser`) gives exactly what a fresh extraction of the version gives, facts in the same order."""
    from ctxres.state.statediff import extract

    rng = random.Random(7)
    texts = [text for name, text in _fixture_texts() if "resumption:" in text]
    checked = remembered = 0
    for base in rng.sample(texts, min(len(texts), 40)):
        parser, sections, entries = SectionParser(), {}, {}  # type: ignore[var-annotated]
        current = base
        for _ in range(10):
            current = _edited(current, rng) if rng.random() < 0.85 else base
            data = parser.parse(current)
            if data is WHOLE:
                continue
            got = extract(data, sections=sections, entries=entries)
            assert _extraction_as_data(got) == _extraction_as_data(extract(data))
            checked += 1
        remembered += len(entries)
    assert checked > 50 and remembered > 0


def test_a_blob_stream_reads_each_spec_as_it_is_asked(tmp_path: Path) -> None:
    """`BlobStream` (and `read_blobs`, which reads through it) gives each spec its bytes, an Oversized past
    `max_bytes`, None for a missing file, a missing name with spaces and a commit, reading forward as it is
    asked; a released spec is forgotten; leaving it early stops git; a git that fails is a GitError."""
    from ctxres import git

    repo = GitRepo(tmp_path / "repo")
    repo.write("a.yaml", "a: 1\n")
    repo.write("b.yaml", "b: " + "x" * 300 + "\n")
    repo.git("add", ".")
    repo.git("commit", "-qm", "one")
    specs = ["HEAD:a.yaml", "HEAD:missing.yaml", "HEAD:b.yaml", "HEAD:no such file.yaml", "HEAD", "HEAD:a.yaml"]
    b_yaml = b"b: " + b"x" * 300 + b"\n"
    for max_bytes in (None, 100):
        want = [b"a: 1\n", None, b"" if max_bytes else b_yaml, None, None, b"a: 1\n"]
        with git.BlobStream(specs, repo.root, max_bytes=max_bytes) as stream:
            got = [stream.get(spec) for spec in reversed(specs)][::-1]  # the last asked first: all read up to it
        assert got == want == git.read_blobs(specs, repo.root, max_bytes=max_bytes)
        assert all(type(value) is bytes for value in got if value is not None and not max_bytes)
        assert (type(got[2]) is git.Oversized and got[2].size == 304) == bool(max_bytes)
    with git.BlobStream(specs, repo.root) as stream:
        stream.release("HEAD:b.yaml")  # not read yet: nothing to forget
        assert stream.get("HEAD:b.yaml") == b_yaml
        stream.release("HEAD:b.yaml")
        with pytest.raises(ValueError, match="released"):
            stream.get("HEAD:b.yaml")
        assert stream.get("HEAD:a.yaml") == b"a: 1\n"  # the others are kept

    many = [*specs, *(f"HEAD:{number}.yaml" for number in range(80_000))]  # ~2 MB of answers: more than a pipe holds
    stream = git.BlobStream(many, repo.root)
    with pytest.raises(KeyError), stream:
        assert stream.get("HEAD:a.yaml") == b"a: 1\n"
        stream.get("not asked")
    assert stream._proc is None  # git stopped and waited for, though it had more to write

    with pytest.raises(git.GitError, match="not inside a git repository"), git.BlobStream(specs, tmp_path) as failing:
        failing.get("HEAD:a.yaml")


def test_the_resumption_key_is_found_wherever_it_is() -> None:
    """The tail of a version searched first: the same answer as RESUMPTION_KEY.search, for a key
    anywhere (across the tail's first byte too), a near miss, bytes and views."""
    from ctxres.artifacts import _TAIL_BYTES, RESUMPTION_KEY, has_resumption_key

    rng = random.Random(3)
    lines = [b"a: 1", b"resumption:", b"resumption :", b"resumption\t:", b" resumption:", b"resumptionx:", b"# x"]
    checked = found = 0
    for size in (0, 1, 2, 50, _TAIL_BYTES // 5 - 2, _TAIL_BYTES // 5, _TAIL_BYTES // 5 + 2, 2000):
        for _ in range(40):
            body = [b"abcd"] * size
            for _ in range(rng.randint(0, 2)):
                body.insert(rng.randint(0, len(body)), rng.choice(lines))
            raw = b"\n".join(body) + rng.choice([b"", b"\n"])
            expected = RESUMPTION_KEY.search(raw) is not None
            assert has_resumption_key(raw) is expected
            assert has_resumption_key(memoryview(b"resumption:\n" + raw)[12:]) is expected
            checked += 1
            found += expected
    assert 0 < found < checked
