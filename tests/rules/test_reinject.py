"""L2-REINJECT markers: the parser on the real rule files and on every variant, the R rules, `ctxres reinject --fix`."""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

import pytest

from ctxres.config import Config, load_config, parse
from ctxres.findings import Finding, Severity
from ctxres.formats.document import Document
from ctxres.linters import cli
from ctxres.linters.checking import engine
from ctxres.linters.checking.registry import RULES
from ctxres.linters.commands.reinject import load as load_rule_file
from ctxres.linters.commands.reinject import rule_files
from ctxres.linters.rules import reinject as rules
from ctxres.linters.rules.reinject import REINJECT_MAX_MARKER_TOKENS
from ctxres.reinject import (
    Marker,
    apply_edits,
    comments,
    measure_tokens,
    scan,
    token_fix,
    token_range,
)

from ..conftest import CORPUS, FIXTURES, ROOT

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

RULE_FILES = CORPUS / "reinject"
NAMES = ("CLAUDE.md", "coding-standards.md", "quality-enforcement.md")
# Independent of the parser: the exact shape every marker of the real rule files has.
CORPUS_MARKER = re.compile(r'^<!-- L2-REINJECT: rank=(\d+), (?:tokens=(\d+), )?content="([^"]*)" -->$')


def settings(root: Path, **ours: object) -> Config:
    """The configuration of ``root`` (its ``.ctxres.toml`` if any) with the R settings overridden."""
    source = root / ".ctxres.toml"
    table = tomllib.loads(source.read_text("utf-8")) if source.exists() else {}
    config = parse(table, root, source)
    return config.replace(options={**config.options, **{k.replace("_", "-"): v for k, v in ours.items()}})


def documents(root: Path, config: Config, paths: list[Path] | None = None) -> list[Document]:
    docs = []
    for artifact in rule_files(paths or [root], config, cwd=root):
        doc, _, problems = load_rule_file(artifact, config)
        assert doc is not None and not problems
        docs.append(doc)
    return docs


def run(root: Path, paths: list[Path] | None = None, **ours: object) -> list[Finding]:
    config = settings(root, **ours)
    return sorted(rules.check_rule_files(documents(root, config, paths), config), key=Finding.sort_key)


def run_corpus(**ours: object) -> list[Finding]:
    """The three real rule files (their folder is not a `.claude/rules`: they are named explicitly)."""
    return run(RULE_FILES, [RULE_FILES / name for name in NAMES], **ours)


def located(findings: list[Finding], code: str | None = None) -> list[tuple[str, int, int, str]]:
    return [(f.path, f.position.line, f.position.col, f.code) for f in findings if code in (None, f.code)]


def only(text: str) -> Marker:
    (marker,) = scan(text).markers
    return marker


# --- the real rule files ------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_every_corpus_marker_is_read_exactly_as_its_text_reads(name: str) -> None:
    text = (RULE_FILES / name).read_text("utf-8")
    expected = [
        (number, int(m.group(1)), int(m.group(2)) if m.group(2) else None, m.group(3))
        for number, line in enumerate(text.splitlines(), start=1)
        if (m := CORPUS_MARKER.match(line))
    ]
    found = scan(text)
    lines = rules.Lines(text)
    parsed = [(lines.position(m.start)[0], m.rank, m.tokens, m.content) for m in found.markers]
    assert parsed == expected
    assert all(m.valid and not m.style for m in found.markers)
    assert found.stray == []


def test_the_corpus_has_twelve_markers_and_prose_mentions_are_not_markers() -> None:
    counts = {}
    for name in NAMES:
        text = (RULE_FILES / name).read_text("utf-8")
        markers = scan(text).markers
        counts[name] = len(markers)
        marker_lines = {rules.Lines(text).position(m.start)[0] for m in markers}
        mentions = {n for n, line in enumerate(text.splitlines(), start=1) if "L2-REINJECT" in line}
        if name == "quality-enforcement.md":
            # "... consume 559/850 tokens (65.8%) via 16 L2-REINJECT markers." is prose.
            assert mentions - marker_lines == {211}
        else:
            assert mentions == marker_lines
    assert counts == {"CLAUDE.md": 1, "coding-standards.md": 1, "quality-enforcement.md": 10}


@pytest.fixture(scope="module")
def corpus_findings() -> list[Finding]:
    return run_corpus()


def test_corpus_figures_from_a_real_tokenizer_are_inside_the_plausible_range(corpus_findings: list[Finding]) -> None:
    """`tokens=40` for 194 characters and `tokens=30` for 175 are below characters / 4 (49, 44), but a
    tokenizer that reads 5 to 6 characters per token gives them: nothing to call wrong."""
    assert [f for f in corpus_findings if f.code == "R003"] == []
    text = (RULE_FILES / "quality-enforcement.md").read_text("utf-8")
    declared = {m.tokens: len(m.content or "") for m in scan(text).markers if m.tokens in (30, 40)}
    assert declared == {40: 194, 30: 175}
    assert token_range("x" * 194).low <= 40 and token_range("x" * 175).low <= 30


SEED_000_MARKER = (
    '<!-- L2-REINJECT: rank=9, tokens=25, content="Resumption update: MUST update ORCHESTRATION.yaml resumption '
    'section at every state transition (phase/QG/agent/compaction)." -->'
)


def test_the_seed_canonical_marker_passes_and_its_range_is_documented() -> None:
    marker = only(SEED_000_MARKER)
    assert len(marker.content or "") == 123 and marker.measured == 31
    plausible = token_range(marker.content or "", 10)
    assert (plausible.low, plausible.high, plausible.lowest, plausible.highest) == (20, 41, 18, 46)
    assert plausible.verdict(25) == "ok"
    assert token_range(marker.content or "", 0).verdict(25) == "ok"  # inside the range itself, no tolerance needed
    assert token_fix(marker, 10) is None and token_fix(marker, 0) is None
    assert rules.check_file(rules.RuleFile.of(_doc(SEED_000_MARKER)), Config(root=Path("."))) == []


def _doc(text: str) -> Document:
    return Document(path="quality-enforcement.md", kind="rule-file", text=text, data=None)


@pytest.mark.parametrize(
    ("declared", "severity"),
    [
        (16, None),
        (9, None),
        (24, None),
        (7, Severity.WARNING),
        (30, Severity.WARNING),
        (4, Severity.ERROR),
        (49, Severity.ERROR),
    ],
)
def test_r003_is_a_warning_outside_the_range_and_an_error_far_outside(declared: int, severity: Severity | None) -> None:
    """62 characters: 10 to 21 tokens, 9 to 24 with the default tolerance; far: below 4.5 or above 48."""
    content = "Self-review REQUIRED before presenting any deliverable (H-15)."
    text = f'<!-- L2-REINJECT: rank=1, tokens={declared}, content="{content}" -->'
    found = rules.check_file(rules.RuleFile.of(_doc(text)), Config(root=Path(".")))
    assert [f.severity for f in found] == ([] if severity is None else [severity])
    if found:
        assert (
            found[0].code == "R003"
            and "costs 10 to 21 tokens (3 to 6 characters per token; 9 to 24" in found[0].message
        )
        assert "the estimate at four characters per token is 16" in found[0].message and "`tokens=16`" in found[0].fix
        assert ("times the highest" in found[0].message or "of the lowest" in found[0].message) == (
            severity is Severity.ERROR
        )


def test_r007_is_opt_in() -> None:
    text = '<!-- L2-REINJECT: rank=1, tokens=113, content="' + "x" * 450 + '" -->'
    doc = _doc(text)
    assert Config(root=Path(".")).value(REINJECT_MAX_MARKER_TOKENS) == 0
    assert rules.check_file(rules.RuleFile.of(doc), Config(root=Path("."))) == []
    capped = rules.check_file(
        rules.RuleFile.of(doc), Config(root=Path("."), options={"reinject-max-marker-tokens": 100})
    )
    assert [f.code for f in capped] == ["R007"]


def test_corpus_repeated_ranks_are_reported_at_the_later_marker(corpus_findings: list[Finding]) -> None:
    found = [f for f in corpus_findings if f.code == "R005"]
    assert located(found) == [("quality-enforcement.md", 31, 24, "R005"), ("quality-enforcement.md", 35, 24, "R005")]
    assert "rank 1 is also the rank of the marker at CLAUDE.md:5" in found[0].message
    assert "rank 2 is also the rank of the marker at quality-enforcement.md:33" in found[1].message
    assert "ranks 1-10 are all taken" in found[0].fix


def test_corpus_markers_without_tokens_are_warnings_with_the_figure_to_add(corpus_findings: list[Finding]) -> None:
    found = [f for f in corpus_findings if f.code == "R004"]
    assert len(found) == 10 and all(f.severity is Severity.WARNING for f in found)
    first = found[0]
    assert (first.path, first.position.line) == ("CLAUDE.md", 5)
    assert first.fix.startswith("add `tokens=42, ` before `content=`")


def test_corpus_has_nothing_else_to_report(corpus_findings: list[Finding]) -> None:
    assert {f.code for f in corpus_findings} == {"R004", "R005"}
    assert all(f.severity is Severity.WARNING for f in corpus_findings)


def test_corpus_total_is_measured_and_reported_with_the_number_when_over_the_budget() -> None:
    # All twelve markers measure 493 tokens: within the default budget of 600 ...
    assert not [f for f in run_corpus() if f.code == "R006"]
    # ... and reported, with the total and the excess, on the first marker (in rank order) that does not fit.
    (finding,) = [f for f in run_corpus(reinject_budget=450) if f.code == "R006"]
    assert located([finding]) == [("quality-enforcement.md", 47, 1, "R006")]
    assert "the 12 L2-REINJECT markers of this project (3 rule files) measure 493 tokens together" in finding.message
    assert "43 over the budget of 450 tokens (`reinject-budget` in" in finding.message
    assert "default" not in finding.message
    assert "(rank 10, 44 tokens)" in finding.message
    assert run_corpus(reinject_budget=493) == run_corpus()


def test_over_the_default_budget_says_it_is_the_default_and_names_the_setting() -> None:
    case = FIXTURES / "rules" / "R006" / "bad"
    (finding,) = [f for f in engine.run([case], load_config(case), cwd=case).findings if f.code == "R006"]
    assert "over the default budget of 600 tokens (setting `reinject-budget`)" in finding.message
    assert "raise `reinject-budget` in `[tool.ctxres]` of pyproject.toml" in finding.fix


def test_over_a_budget_set_in_pyproject_names_the_file(tmp_path: Path) -> None:
    shutil.copytree(FIXTURES / "rules" / "R006" / "bad", tmp_path, dirs_exist_ok=True)
    (tmp_path / "pyproject.toml").write_text("[tool.ctxres]\nreinject-budget = 500\n")
    (finding,) = [f for f in engine.run([tmp_path], load_config(tmp_path), cwd=tmp_path).findings if f.code == "R006"]
    assert "over the budget of 500 tokens (`reinject-budget` in pyproject.toml)" in finding.message
    assert "raise `reinject-budget` in pyproject.toml" in finding.fix


# --- the grammar ---------------------------------------------------------------------------------


def test_measured_tokens_are_characters_over_four_rounded_up() -> None:
    assert [measure_tokens("x" * n) for n in (0, 1, 4, 5, 8, 9)] == [0, 1, 1, 2, 2, 3]
    assert only('<!-- L2-REINJECT: rank=1, content="say \\"hi\\"" -->').measured == measure_tokens('say "hi"')


def test_escapes_inside_content() -> None:
    marker = only('<!-- L2-REINJECT: rank=1, tokens=3, content="a \\"b\\" c\\\\d \\n" -->')
    assert marker.content == 'a "b" c\\d \\n'
    assert marker.valid and not marker.style


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ('<!-- l2-reinject: rank=1, content="x" -->', "the keyword is written `l2-reinject`"),
        ('<!-- L2_REINJECT: rank=1, content="x" -->', "the keyword is written `L2_REINJECT`"),
        ('<!-- L2-REINJECT rank=1, content="x" -->', "there is no colon"),
        ('<!-- L2-REINJECT: content="x", rank=1 -->', "the attributes are in the order content, rank"),
        ('<!-- L2-REINJECT: rank=1 content="x" -->', "separated by white space only"),
        ("<!-- L2-REINJECT: rank=1, content='x' -->", "single quotes"),
        ('<!-- L2-REINJECT: rank="1", content="x" -->', "the value of `rank` is quoted"),
        ('<!-- L2-REINJECT: RANK=1, content="x" -->', "`RANK` is not in lower case"),
        ('<!-- L2-REINJECT: rank=1,\n  content="x" -->', "spread over several lines"),
        ('<!-- L2-REINJECT: rank=1, content="x", -->', "a comma after the last attribute"),
        ('<!--L2-REINJECT: rank = 1, content="x"-->', "the spacing differs"),
    ],
)
def test_readable_variants_are_read_and_their_difference_recorded(text: str, reason: str) -> None:
    marker = only(text)
    assert marker.valid
    assert (marker.rank, marker.content) == (1, "x")
    assert any(reason in r for r in marker.style), marker.style
    assert marker.canonical() == '<!-- L2-REINJECT: rank=1, content="x" -->'


def test_single_quoted_content_with_a_double_quote_is_canonicalised_with_an_escape() -> None:
    marker = only("<!-- L2-REINJECT: rank=2, content='it\\'s \"x\"' -->")
    assert marker.content == 'it\'s "x"'
    assert marker.canonical(tokens=3) == '<!-- L2-REINJECT: rank=2, tokens=3, content="it\'s \\"x\\"" -->'


@pytest.mark.parametrize(
    ("text", "message", "column"),
    [
        ('<!-- L2-REINJECT: rank=high, content="x" -->', "`rank` must be a whole number of 1 or more, not `high`", 24),
        ('<!-- L2-REINJECT: rank=0, content="x" -->', "`rank` must be a whole number", 24),
        ('<!-- L2-REINJECT: rank=1, tokens=~25, content="x" -->', "`tokens` must be a whole number", 34),
        ("<!-- L2-REINJECT: rank=1, content=x -->", "`content` must be in double quotes", 35),
        ('<!-- L2-REINJECT: rank=1, content="  " -->', "`content` is empty", 36),
        ('<!-- L2-REINJECT: content="x" -->', "`rank` is missing", 1),
        ("<!-- L2-REINJECT: rank=1 -->", "`content` is missing", 1),
        ('<!-- L2-REINJECT: rank=1, rank=2, content="x" -->', "`rank` is given twice", 27),
        ('<!-- L2-REINJECT: rank=1, priority=2, content="x" -->', "unknown attribute `priority`", 27),
        ('<!-- L2-REINJECT: rank=1, content="a --> b" -->', "it contains `-->`, which ends the comment", 35),
        ('<!-- L2-REINJECT: rank=1, content="abc -->', "is not closed", 35),
        ('<!-- L2-REINJECT: rank=1,, content="x" -->', "two commas in a row", 26),
        ('<!-- L2-REINJECT: rank, content="x" -->', "`rank` has no value", 19),
        ('<!-- L2-REINJECT: rank=1, content="x"y -->', "unexpected text `y`", 38),
        ('<!-- L2-REINJECT: rank=1, "x" -->', 'expected an attribute such as `rank=1`, found `"x"`', 27),
        ('<!-- L2-REINJECT: rank=1, content="x"', "the marker's comment is never closed", 1),
    ],
)
def test_malformed_markers_say_what_is_wrong_and_where(text: str, message: str, column: int) -> None:
    marker = only(text)
    assert not marker.valid
    assert (marker.rank, marker.tokens, marker.content, marker.measured) == (None, None, None, 0)
    assert any(message in p.message for p in marker.errors), marker.errors
    assert [p.offset + 1 for p in marker.errors if message in p.message] == [column]


def test_a_marker_not_closed_before_the_next_runs_into_it() -> None:
    found = scan('<!-- L2-REINJECT: rank=1, content="a"\n<!-- L2-REINJECT: rank=2, content="b" -->\n')
    assert len(found.markers) == 1
    assert "not closed before another comment starts at line 2" in found.markers[0].errors[0].message


def test_a_marker_inside_an_unclosed_earlier_comment_is_a_stray_problem() -> None:
    text = '<!-- VERSION: 1.0\n\n<!-- L2-REINJECT: rank=1, content="a" -->\n<!-- L2-REINJECT: rank=2, content="b" -->\n'
    found = scan(text)
    assert [m.rank for m in found.markers] == [2]
    (stray,) = found.stray
    assert rules.Lines(text).position(stray.offset) == (3, 1)
    assert "opened at line 1, column 1" in stray.message


@pytest.mark.parametrize(
    "prose",
    [
        'Markers open with "<!--" and close later.\n\n',
        "Markers open with <!-- and close later.\n",
        'A table: | opener | "<!--" |\n',
        "  Say `<!--` or '<!--' freely.\n\n",
    ],
)
def test_an_opener_written_inside_a_line_and_left_open_in_its_paragraph_is_text(prose: str) -> None:
    text = prose + '<!-- L2-REINJECT: rank=1, content="a" -->\n'
    found = scan(text)
    assert [m.rank for m in found.markers] == [1]
    assert not found.markers[0].errors and not found.stray


def test_an_opener_inside_a_line_closed_in_its_paragraph_is_a_comment() -> None:
    text = 'A <!-- draft\nnote --> then\n\n<!-- L2-REINJECT: rank=1, content="a" -->\n'
    assert comments(text)[0] == (2, text.index("-->") + 3)
    assert [m.rank for m in scan(text).markers] == [1]


def test_an_opener_starting_a_line_still_runs_across_blank_lines() -> None:
    text = ' <!-- open\n\n<!-- L2-REINJECT: rank=1, content="a" -->\n'
    assert len(scan(text).stray) == 1


@pytest.mark.parametrize(
    "text",
    [
        "The L2-REINJECT markers are injected on every prompt.\n",
        "| L2-REINJECT | rank 1 |\n|---|---|\n",
        'Write `<!-- L2-REINJECT: rank=1, content="x" -->` in a rule file.\n',
        'Write ``<!-- L2-REINJECT: rank=1, content="`x`" -->`` in a rule file.\n',
        "```markdown\n<!-- L2-REINJECT: rank=high -->\n```\n",
        '~~~~\n<!-- L2-REINJECT: rank=1, content="x" -->\n```\nstill code\n~~~~\n',
        '---\nnote: "<!-- L2-REINJECT: rank=1, content=\\"x\\" -->"\n---\n# Title\n',
        "<!-- This comment mentions L2-REINJECT markers. -->\n",
        "<!-- L2-REINJECT markers are listed below -->\n",
        "<!-- ctxres: ignore[R004] -->\n",
    ],
)
def test_mentions_examples_and_other_comments_are_not_markers(text: str) -> None:
    assert scan(text) == scan("")


def test_markers_after_code_and_around_comments_are_found_at_their_offsets() -> None:
    text = (
        '```\n<!-- L2-REINJECT: rank=1, content="in code" -->\n```\n'
        'a `code` span <!-- note --> then <!-- L2-REINJECT: rank=2, content="x" --> and '
        '<!-- L2-REINJECT: rank=3, content="y" -->\r\n'
        '<!-- multi\nline --> <!-- L2-REINJECT: rank=4, content="z" -->\n'
    )
    lines = rules.Lines(text)
    assert [(m.rank, lines.position(m.start)) for m in scan(text).markers] == [
        (2, (4, 34)),
        (3, (4, 80)),
        (4, (6, 10)),
    ]


def test_a_backtick_line_with_a_backtick_in_its_info_string_opens_no_code_block() -> None:
    # CommonMark: "```a`b" is not a fence (a backtick fence's info string has no backtick).
    text = '```a`b\n<!-- L2-REINJECT: rank=1, content="x" -->\n'
    assert [m.rank for m in scan(text).markers] == [1]
    assert scan('```a b\n<!-- L2-REINJECT: rank=1, content="x" -->\n').markers == []


def test_markup_and_character_references_are_found_but_comparison_signs_are_not() -> None:
    from ctxres.reinject import markup

    marker = only('<!-- L2-REINJECT: rank=1, content="a <b>x</b> &amp; <br/> >= 0.9, a < b, R&D, -> y" -->')
    assert [text for _, text in markup(marker)] == ["<b>", "</b>", "&amp;", "<br/>"]
    assert markup(only('<!-- L2-REINJECT: rank=1, content="x >= 0.92 and y < 3 -> z; R&D" -->')) == []


# --- fixing tokens= -------------------------------------------------------------------------------


def test_token_fix_replaces_only_the_digits_or_inserts_before_content() -> None:
    text = '<!-- L2-REINJECT: rank=1, tokens=20, content="abcdefghij" -->'
    assert apply_edits(text, [token_fix(only(text), 10)]) == text.replace("tokens=20", "tokens=3")  # type: ignore[list-item]
    missing = '<!-- L2-REINJECT: content="abcdefghij", rank=1 -->'
    fixed = apply_edits(missing, [token_fix(only(missing), 10)])  # type: ignore[list-item]
    assert fixed == '<!-- L2-REINJECT: tokens=3, content="abcdefghij", rank=1 -->'
    quoted = "<!-- L2-REINJECT: rank=1, tokens='9', content=\"abcdefghij\" -->"
    assert apply_edits(quoted, [token_fix(only(quoted), 10)]) == quoted.replace("'9'", "'3'")  # type: ignore[list-item]
    # 84 characters: 14 to 28 tokens, 12 to 31 with a tolerance of 10%.
    close_enough = '<!-- L2-REINJECT: rank=1, tokens=30, content="' + "x" * 84 + '" -->'
    assert token_fix(only(close_enough), 10) is None
    assert token_fix(only(close_enough), 0) is not None
    assert token_fix(only('<!-- L2-REINJECT: rank=x, content="a" -->'), 10) is None


def _without_tokens(line: str) -> str:
    return re.sub(r"tokens=\d+, ", "", line)


@pytest.mark.parametrize("name", NAMES)
def test_fix_on_a_copy_of_a_corpus_rule_file_changes_only_tokens_values(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = tmp_path / name
    shutil.copyfile(RULE_FILES / name, copy)
    copy.chmod(0o644)
    before = copy.read_bytes()
    monkeypatch.chdir(tmp_path)
    assert cli.main(["reinject", "--fix", name]) == 0
    after = copy.read_bytes()
    old, new = before.decode().splitlines(keepends=True), after.decode().splitlines(keepends=True)
    assert len(old) == len(new)
    changed = [(o, n) for o, n in zip(old, new, strict=True) if o != n]
    assert changed, "every corpus file has a marker to fix"
    for o, n in changed:
        assert _without_tokens(o) == _without_tokens(n), (o, n)
        # A declared figure keeps its place: only its digits change.
        if "tokens=" in o:
            assert re.sub(r"tokens=\d+", "tokens=N", o) == re.sub(r"tokens=\d+", "tokens=N", n)
    out = capsys.readouterr()
    assert "R003" not in out.out and "R004" not in out.out
    assert f"fixed {len(changed)} tokens= figure" in out.err
    # Fixed markers declare a figure inside the plausible range; a second run changes nothing.
    for marker in scan(after.decode()).markers:
        assert marker.tokens is not None and token_range(marker.content or "").verdict(marker.tokens) == "ok"
    assert cli.main(["reinject", "--fix", name]) == 0
    assert copy.read_bytes() == after


def test_fix_keeps_a_byte_order_mark_and_crlf_line_ends(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rules_dir = tmp_path / ".claude" / "rules"
    rules_dir.mkdir(parents=True)
    path = rules_dir / "a.md"
    path.write_bytes(b'\xef\xbb\xbf# A\r\n<!-- L2-REINJECT: rank=1, content="abcd" -->\r\nend\r\n')
    monkeypatch.chdir(tmp_path)
    assert cli.main(["reinject", "--fix"]) == 0
    assert path.read_bytes() == b'\xef\xbb\xbf# A\r\n<!-- L2-REINJECT: rank=1, tokens=1, content="abcd" -->\r\nend\r\n'


def test_fix_respects_ignored_rules_and_suppression_comments(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rules_dir = tmp_path / ".claude" / "rules"
    rules_dir.mkdir(parents=True)
    text = (
        '<!-- L2-REINJECT: rank=1, content="abcd" -->\n'
        '<!-- L2-REINJECT: rank=2, tokens=9, content="abcd" --> <!-- ctxres: ignore[R003] -->\n'
    )
    (rules_dir / "a.md").write_text(text)
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".ctxres.toml").write_text('ignore = ["R004"]\n')
    assert cli.main(["reinject", "--fix"]) == 0
    assert (rules_dir / "a.md").read_text() == text


def test_diff_shows_the_fix_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copyfile(RULE_FILES / "CLAUDE.md", tmp_path / "CLAUDE.md")
    before = (tmp_path / "CLAUDE.md").read_bytes()
    monkeypatch.chdir(tmp_path)
    assert cli.main(["reinject", "--diff"]) == 1
    out = capsys.readouterr().out
    assert out.startswith("--- CLAUDE.md\n+++ CLAUDE.md\n")
    assert '+<!-- L2-REINJECT: rank=1, tokens=42, content="P-003:' in out
    assert (tmp_path / "CLAUDE.md").read_bytes() == before


# --- the command ----------------------------------------------------------------------------------


def test_command_reports_the_corpus_with_exit_one(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(RULE_FILES)
    assert cli.main(["reinject", *NAMES]) == 0  # warnings only: markers without tokens= (R004), tiers (R005)
    out = capsys.readouterr().out
    assert "R003" not in out
    assert out.endswith("Found 0 errors and 12 warnings in 3 files checked.\n")


def test_command_exit_codes_and_json(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    monkeypatch.chdir(tmp_path)
    assert cli.main(["reinject", "missing.md"]) == 2
    assert "no such file or directory: missing.md" in capsys.readouterr().err
    assert cli.main(["reinject"]) == 0
    assert "no rule files found" in capsys.readouterr().err
    (tmp_path / "CLAUDE.md").write_text('<!-- L2-REINJECT: rank=1, content="abcd" -->\n')
    assert cli.main(["reinject"]) == 0  # a warning only
    assert cli.main(["reinject", "--strict"]) == 1
    capsys.readouterr()
    assert cli.main(["reinject", "--output-format", "json", "CLAUDE.md"]) == 0
    assert [f["code"] for f in json.loads(capsys.readouterr().out)["findings"]] == ["R004"]
    (tmp_path / "bad.md").write_bytes(b"\xff\xfe")
    assert cli.main(["reinject", "bad.md"]) == 1
    assert "P003" in capsys.readouterr().out


def test_folders_are_searched_with_the_rule_file_patterns(tmp_path: Path) -> None:
    for rel in ("CLAUDE.md", "sub/CLAUDE.md", ".claude/rules/a.md", ".context/rules/deep/b.md", "docs/c.md"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("# x\n")
    found = [a.display for a in rule_files([tmp_path], Config(root=tmp_path), cwd=tmp_path)]
    assert found == [".claude/rules/a.md", ".context/rules/deep/b.md", "CLAUDE.md", "sub/CLAUDE.md"]
    explicit = [a.display for a in rule_files([tmp_path / "docs" / "c.md"], Config(root=tmp_path), cwd=tmp_path)]
    assert explicit == ["docs/c.md"]


# --- the project rules ----------------------------------------------------------------------------


def test_rule_files_of_different_projects_do_not_share_ranks_or_a_budget(tmp_path: Path) -> None:
    for project in ("a", "b"):
        folder = tmp_path / project / ".claude" / "rules"
        folder.mkdir(parents=True)
        (folder / "r.md").write_text('<!-- L2-REINJECT: rank=1, tokens=100, content="' + "x" * 400 + '" -->\n')
    assert run(tmp_path, reinject_budget=100) == []
    merged = tmp_path / "a" / ".claude" / "rules" / "s.md"
    merged.write_text('<!-- L2-REINJECT: rank=1, tokens=1, content="x" -->\n')
    assert located(run(tmp_path, reinject_budget=100)) == [
        ("a/.claude/rules/s.md", 1, 1, "R006"),
        ("a/.claude/rules/s.md", 1, 24, "R005"),
    ]


def test_the_resumption_reminder_is_required_only_where_the_protocol_is_enforced(tmp_path: Path) -> None:
    folder = tmp_path / ".claude" / "rules"
    folder.mkdir(parents=True)
    (folder / "a.md").write_text('<!-- L2-REINJECT: rank=9, tokens=1, content="x" -->\n')
    (folder / "quality-enforcement.md").write_text("# Quality\n")
    assert run(tmp_path) == []
    (finding,) = run(tmp_path, enforce_update_protocol=True)
    assert located([finding]) == [(".claude/rules/quality-enforcement.md", 1, 1, "R009")]
    assert "(rank 10 is free)" in finding.fix and rules.reminder_marker(10) in finding.fix
    (folder / "quality-enforcement.md").write_text(rules.reminder_marker(10) + "\n")
    assert run(tmp_path, enforce_update_protocol=True) == []


# --- fixtures and rule documentation --------------------------------------------------------------

EXPECTED_LINE = re.compile(r"^(?P<file>[^:]+):(?P<line>\d+):(?P<col>\d+|\*):\s*(?P<code>R\d{3})$")
CASES = sorted(p for p in (FIXTURES / "rules").glob("R0*/*") if p.is_dir())


@pytest.mark.parametrize("case", CASES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_rule_fixture_gives_exactly_its_expected_findings(case: Path) -> None:
    """The same contract as tests/rules/test_rule_fixtures.py, run on the R rules directly (`*`: any column)."""
    listing = case / "EXPECTED"
    expected = []
    if case.name.startswith("bad"):
        for line in listing.read_text().splitlines():
            match = EXPECTED_LINE.match(line.strip())
            assert match, line
            col = None if match["col"] == "*" else int(match["col"])
            expected.append((match["file"], int(match["line"]), col, match["code"]))
        assert {e[3] for e in expected} == {case.parent.name}
    found = located(run(case))
    wildcards = {e[:2] + e[3:] for e in expected if e[2] is None}
    assert [f for f in found if f[:2] + f[3:] not in wildcards] == sorted(e for e in expected if e[2] is not None)
    assert {f[:2] + f[3:] for f in found} >= wildcards


def test_every_r_rule_has_fixtures_and_a_documentation_page() -> None:
    codes = sorted(code for code in RULES if code.startswith("R"))
    assert codes
    for code in codes:
        assert list((FIXTURES / "rules" / code).glob("bad*")), code
        assert list((FIXTURES / "rules" / code).glob("good*")), code
        page = ROOT / "docs" / "rules" / f"{code}.md"
        assert page.read_text("utf-8") == RULES[code].doc(), f"regenerate docs/rules ({code})"
    assert rules.reminder_marker() in RULES["R009"].doc()
