"""R rules: the L2-REINJECT markers of Markdown rule files.

An L2 marker is an HTML comment in a rule file (``CLAUDE.md``, ``.claude/rules/*.md``,
``.context/rules/*.md``) whose ``content`` is re-injected into the model's context on every
prompt, in ``rank`` order, within a per-prompt token budget::

    <!-- L2-REINJECT: rank=3, tokens=25, content="UV only for Python (H-05). NEVER use pip." -->

The grammar, what counts as a marker and how tokens are measured (characters / 4, rounded up)
are documented in :mod:`ctxres.reinject`. Per file: malformed markers (R001), markers not in the
canonical form (R002), declared ``tokens=`` outside the range the content can cost (R003) or
missing (R004), content too long for one marker (R007, opt-in) or holding HTML markup (R008). Per
project (all rule files under one project root): repeated ranks (R005), the total over the
budget (R006), and, where the configuration enforces the resumption update protocol, the
protocol's reminder missing (R009).

Settings (``[tool.ctxres]``; until they exist in the configuration the defaults below apply):
``reinject-budget`` (600), ``reinject-token-tolerance`` (percent, 10), ``reinject-max-marker-tokens``
(0: no per-marker cap), ``enforce-update-protocol`` (false).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from ctxres import defaults, protocol
from ctxres.config import Config, Option
from ctxres.findings import Finding, Position, Severity
from ctxres.formats.document import Document
from ctxres.linters.checking.registry import Rule, register, workspace_check
from ctxres.linters.checking.severity_policy import Case
from ctxres.project import inside, project_root
from ctxres.records import FrozenRecord, init_field
from ctxres.reinject import (
    CHARS_PER_TOKEN_DENSE,
    CHARS_PER_TOKEN_PROSE,
    FAR_FACTOR,
    KEYWORD,
    RULE_FILE_KIND,
    Lines,
    Marker,
    Scan,
    markup,
    measure_tokens,
    resumption_reminder,
    scan,
    token_range,
)

# The options of this module's rules, read with `config.value(...)`: the loader checks a configuration against
# their copy, OPTIONS of ctxres/config.py, which `python dev/generate.py --write` makes from them.
REINJECT_BUDGET = Option(
    "reinject-budget", defaults.REINJECT_BUDGET, "tokens all L2-REINJECT markers of a project may measure", 1
)
REINJECT_TOKEN_TOLERANCE = Option(
    "reinject-token-tolerance",
    defaults.REINJECT_TOLERANCE_PERCENT,
    "percent that widens the plausible range of a marker's `tokens=` (characters/6 to characters/3)",
)
REINJECT_MAX_MARKER_TOKENS = Option(
    "reinject-max-marker-tokens", 0, "tokens one marker may measure; 0: no per-marker cap (opt-in)"
)
ENFORCE_UPDATE_PROTOCOL = Option(
    "enforce-update-protocol", False, "require the marker that reminds of the resumption update protocol"
)

# `ctxres check` loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:
    from ctxres.linters.checking.engine import Workspace

# --- options (declared with the rules that read them below) -------------------------------------


def reminder_marker(rank: int = protocol.RESUMPTION_MARKER_RANK) -> str:
    """The protocol's L2 reminder, in canonical form, with its measured size."""
    content = protocol.RESUMPTION_MARKER_CONTENT
    return f'<!-- {KEYWORD}: rank={rank}, tokens={measure_tokens(content)}, content="{content}" -->'


# --- settings ---------------------------------------------------------------------------------


def budget(config: Config) -> int:
    return config.value(REINJECT_BUDGET)


def tolerance(config: Config) -> int:
    return config.value(REINJECT_TOKEN_TOLERANCE)


def max_marker_tokens(config: Config) -> int:
    return config.value(REINJECT_MAX_MARKER_TOKENS)


def protocol_enforced(config: Config) -> bool:
    return config.value(ENFORCE_UPDATE_PROTOCOL)


# --- per file ---------------------------------------------------------------------------------


class RuleFile(FrozenRecord):
    """A rule file with its markers, and where its positions are."""

    __slots__ = ("doc", "lines", "scan")

    doc: Document
    scan: Scan
    lines: Lines

    def __init__(self, doc: Document, scan: Scan, lines: Lines) -> None:
        init_field(self, "doc", doc)
        init_field(self, "scan", scan)
        init_field(self, "lines", lines)

    @classmethod
    def of(cls, doc: Document) -> RuleFile:
        return cls(doc, scan(doc.text), Lines(doc.text))

    def finding(self, rule: Rule, offset: int, message: str, fix: str = "", end: int | None = None) -> Finding:
        line, col = self.lines.position(offset)
        end_position = Position(*self.lines.position(end)) if end is not None else None
        return Finding(self.doc.path, rule.code, message, rule.severity, Position(line, col), "", fix, end_position)

    def where(self, marker: Marker) -> str:
        line, _ = self.lines.position(marker.start)
        return f"{self.doc.path}:{line}"


def fix_offset(marker: Marker) -> int:
    """Where the R003/R004 finding of a marker is: its ``tokens`` value, or the marker when there is none."""
    declared = marker.attribute("tokens")
    return declared.value_start if declared is not None else marker.start


def _excerpt(marker: Marker, limit: int = 40) -> str:
    content = marker.content or ""
    return content if len(content) <= limit else content[: limit - 3].rstrip() + "..."


MALFORMED = register(
    "R001",
    "malformed-marker",
    "An L2-REINJECT marker cannot be read.",
    case=Case.TOOL_JOB,
    why="The L2 hook cannot read the marker, so it injects nothing from it.",
    explanation="""
    ## Why
    Rule files carry reminders that are re-injected into the model's context on every prompt,
    written as HTML comments such as
    `<!-- L2-REINJECT: rank=3, tokens=5, content="UV only for Python." -->`. A marker that cannot
    be read (no `rank` or `content`, an unknown or repeated attribute, a value that is not a whole
    number, an unclosed quote or comment) is skipped or misread by whatever injects it: the rule
    it carries is silently no longer enforced. A marker swallowed by an earlier comment that is
    never closed is reported too, because HTML reads it as part of that comment.

    A marker is an HTML comment whose text starts with `L2-REINJECT` and a colon. Mentions of
    `L2-REINJECT` in prose, in tables, in code spans and in fenced code blocks are not markers
    and are never reported.

    ## Example
    ```markdown
    <!-- L2-REINJECT: rank=high, content="Self-review REQUIRED (H-15)." -->
    <!-- L2-REINJECT: rank=5, content="Quality gate --> 0.92" -->
    ```
    The first rank is not a number; the second content contains `-->`, which ends the comment in
    the middle of the content.

    ## What is normal
    Prose that mentions the opener (`"<!--"` in a sentence or a table, or in inline or fenced
    code) opens no comment: as in Markdown, a `<!--` inside a line is a comment only when it is
    closed within its paragraph. A `<!--` that starts a line runs to the line that closes it.

    ## Fix
    Write the marker in the canonical form, on one line:
    `<!-- L2-REINJECT: rank=N, tokens=N, content="..." -->`. `rank` and `tokens` are whole
    numbers from 1; the content is in double quotes (a `"` inside it is written `\\"`) and cannot
    contain `-->`. The message says what is wrong and where.
    """,
)


def check_file(rule_file: RuleFile, config: Config) -> list[Finding]:
    """R001-R004, R007, R008 for the markers of one rule file."""
    findings = [rule_file.finding(MALFORMED, p.offset, p.message, p.fix) for p in rule_file.scan.stray]
    for marker in rule_file.scan.markers:
        if not marker.valid:
            findings += [
                rule_file.finding(MALFORMED, p.offset, f"malformed {KEYWORD} marker: {p.message}", p.fix)
                for p in marker.errors
            ]
            continue
        findings += _style(rule_file, marker)
        findings += _tokens(rule_file, marker, config)
        findings += _content(rule_file, marker, config)
    return findings


NON_CANONICAL = register(
    "R002",
    "non-canonical-marker",
    "An L2-REINJECT marker is readable but not written in the canonical form.",
    Severity.WARNING,
    case=Case.SAME_FACTS,
    why="The marker is read; only its spelling differs from the canonical form.",
    explanation="""
    ## Why
    ctxres reads markers leniently (another case of the keyword, no colon, attributes in another
    order or separated by spaces only, single quotes, quoted numbers, a marker spread over
    several lines), but the tools that inject markers match the canonical form. A marker they
    do not match is never injected, and nothing tells you.

    ## Example
    ```markdown
    <!-- l2-reinject: content="Self-review REQUIRED (H-15).", rank=5 -->
    ```

    ## Fix
    Rewrite it exactly as the message shows:
    `<!-- L2-REINJECT: rank=5, content="Self-review REQUIRED (H-15)." -->` (one line, attributes
    in the order rank, tokens, content, separated by `, `).
    """,
)


def _style(rule_file: RuleFile, marker: Marker) -> list[Finding]:
    if not marker.style:
        return []
    return [
        rule_file.finding(
            NON_CANONICAL,
            marker.start,
            f"the marker is not in the canonical form ({'; '.join(marker.style)}); tools that inject markers "
            "may not recognise it",
            f"write it as `{marker.canonical()}`",
        )
    ]


TOKEN_MISMATCH = register(
    "R003",
    "token-count-mismatch",
    "A marker's declared `tokens=` is outside the range of what its content can cost.",
    Severity.WARNING,
    case=Case.CONVENTION,
    why=(
        "The declared count is a convention of the format; the budget is measured from the content. Far "
        "outside what the content can cost, it is an error."
    ),
    explanation="""
    ## Why
    Every marker is injected on every prompt, so the markers of a project share a per-prompt
    token budget, and `tokens=` is how a reader of the rule file keeps count. A figure far from
    what the content costs makes the budget look smaller than it is (under-declared) or larger
    (over-declared).

    ## What is normal
    ctxres does not have the model's tokenizer. Its estimate is characters / 4,
    but real tokenizers give about 3 characters per token for dense rule text (ids like `H-13`,
    punctuation, numbers) and up to about 6 for plain prose with long common words. So a
    declared figure between characters / 6 (rounded down) and characters / 3 (rounded up) cannot
    be called wrong, and the tolerance (`reinject-token-tolerance`, 10% by default) widens that
    range further. A marker written with a rounded figure, `rank=9, tokens=25` with a content
    of 123 characters (estimate 31, range 20 to 41), passes.

    Outside the range, the figure is probably stale or guessed: a **warning**. Far outside it
    (below half the lowest plausible figure, or above twice the highest) it cannot be right for
    any tokenizer: an **error**, whatever the default severity says.

    ## Example
    ```markdown
    <!-- L2-REINJECT: rank=5, tokens=7, content="Self-review REQUIRED before presenting any deliverable (H-15)." -->
    <!-- L2-REINJECT: rank=6, tokens=40, content="UV only for Python (H-05)." -->
    ```
    The first content has 62 characters (10 to 21 tokens, 9 to 24 with the tolerance): `tokens=7`
    is a warning. The second has 26 characters (4 to 9 tokens, 3 to 10 with the tolerance):
    `tokens=40` is four times the highest plausible figure, an error.

    ## Fix
    Write the figure your tokenizer gives, or the estimate (characters / 4) that the message
    names (`tokens=16`). `ctxres reinject --fix` writes the estimate in place of every figure
    outside the range and changes nothing else.
    """,
    options=(REINJECT_TOKEN_TOLERANCE,),
)


MISSING_TOKENS = register(
    "R004",
    "missing-token-count",
    "A marker does not declare `tokens=`.",
    Severity.WARNING,
    case=Case.CONVENTION,
    why="The declared count is a convention of the format; the budget is measured from the content.",
    explanation="""
    ## Why
    The canonical marker declares the size of its content
    (`<!-- L2-REINJECT: rank=N, tokens=N, content="..." -->`) so that a person editing the rule
    file sees what the marker costs on every prompt and whether the budget still holds. Without
    it the cost of a reminder is invisible until the budget is exceeded.

    ## Example
    ```markdown
    <!-- L2-REINJECT: rank=5, content="Self-review REQUIRED before presenting any deliverable (H-15, S-010)." -->
    ```

    ## Fix
    Add the measured figure before `content`: `rank=5, tokens=18, content="..."`.
    `ctxres reinject --fix` adds it (and changes nothing else).

    ## Not reported
    A project whose markers all leave `tokens=` out (two or more markers, none with it) follows a
    convention of its own (its L2 engine counts the tokens itself): that is not a finding per
    marker. The budget (R006) is measured from the content either way. One marker without it
    among markers that declare it is reported.
    """,
)


def _tokens(rule_file: RuleFile, marker: Marker, config: Config) -> list[Finding]:
    measured = marker.measured
    content = marker.content or ""
    size = f"{len(content)} characters / 4, rounded up"
    declared = marker.tokens
    if declared is None:
        return [
            rule_file.finding(
                MISSING_TOKENS,
                fix_offset(marker),
                f"the marker (rank {marker.rank}) declares no `tokens=`; its content measures {measured} tokens "
                f"({size})",
                f"add `tokens={measured}, ` before `content=` (`ctxres reinject --fix` does it)",
            )
        ]
    percent = tolerance(config)
    plausible = token_range(content, percent)
    verdict = plausible.verdict(declared)
    if verdict == "ok":
        return []
    side = "under-declared" if declared < plausible.lowest else "over-declared"
    attribute = marker.attribute("tokens")
    assert attribute is not None
    far = (
        f", less than 1/{FAR_FACTOR} of the lowest"
        if declared < plausible.lowest
        else f", more than {FAR_FACTOR} times the highest"
    )
    finding = rule_file.finding(
        TOKEN_MISMATCH,
        fix_offset(marker),
        f"`tokens={declared}` is {side}{far if verdict == 'far' else ''}: the content ({len(content)} characters) "
        f"costs {plausible.low} to {plausible.high} tokens ({CHARS_PER_TOKEN_DENSE} to {CHARS_PER_TOKEN_PROSE} "
        f"characters per token; {plausible.lowest} to {plausible.highest} with the tolerance of {percent}%); "
        f"the estimate at four characters per token is {measured} ({size})",
        f"change it to `tokens={measured}`, or to the figure your tokenizer gives (`ctxres reinject --fix` "
        "writes the estimate)",
        end=attribute.value_end,
    )
    return [finding.replace(severity=Severity.ERROR) if verdict == "far" else finding]


TOO_LONG = register(
    "R007",
    "marker-too-long",
    "One marker's content is longer than a marker may be.",
    case=Case.TOOL_JOB,
    why="The L2 hook cannot inject a marker this long.",
    explanation="""
    ## Why
    A marker is a one-line reminder of a rule, not the rule itself: the rule file already holds
    the full text, which is loaded at session start. A single very long marker takes a large
    share of the per-prompt budget on its own.

    ## What is normal
    No specification sets a limit per marker: only the project's total budget (R006) is part of
    the format. So this rule is **opt-in**: it is off by default (`reinject-max-marker-tokens =
    0`) and checks only when a project sets its own cap, for example
    `reinject-max-marker-tokens = 100` in `[tool.ctxres]`.

    ## Example
    With `reinject-max-marker-tokens = 100`: a marker whose content is a whole paragraph of 450
    characters (113 tokens).

    ## Fix
    Shorten the content to the essential instruction, or split it into two markers with ranks of
    their own.
    """,
    options=(REINJECT_MAX_MARKER_TOKENS,),
)


MARKUP = register(
    "R008",
    "markup-in-content",
    "A marker's content holds HTML markup or a character reference.",
    case=Case.TOOL_JOB,
    why="The L2 hook injects the content as text: markup reaches the model as noise or hides the rule.",
    explanation="""
    ## Why
    The content is injected as it is, inside the model's context. A tag such as `<b>` is shown
    to the model as a literal tag, and a closing tag of the block the reminders are injected in
    (for example `</system-reminder>`) can end that block early. A character reference such as
    `&amp;` is not decoded: the model reads `&amp;`, not `&`.

    ## Example
    ```markdown
    <!-- L2-REINJECT: rank=4, content="Scores <b>must</b> be strict &amp; honest." -->
    ```

    ## Fix
    Write the content as plain text: `content="Scores MUST be strict and honest."`. Comparison
    signs such as `>=` are fine.
    """,
)


def _content(rule_file: RuleFile, marker: Marker, config: Config) -> list[Finding]:
    findings: list[Finding] = []
    content = marker.attribute("content")
    assert content is not None
    limit = max_marker_tokens(config)
    if limit and marker.measured > limit:  # 0: no per-marker cap (the default)
        findings.append(
            rule_file.finding(
                TOO_LONG,
                content.value_start,
                f"the content of this marker (rank {marker.rank}) measures {marker.measured} tokens, more than the "
                f"{limit} one marker may carry",
                f"shorten it to at most {limit * 4} characters, or split it into two markers with ranks of their own",
            )
        )
    for offset, text in markup(marker):
        if text.startswith("&"):
            message = f"the content contains the character reference `{text}`, which is injected as it is, not decoded"
            fix = "write the character itself"
        else:
            message = f"the content contains HTML markup `{text}`, which is injected as it is into the model's context"
            fix = "write the content as plain text, without tags"
        findings.append(rule_file.finding(MARKUP, offset, message, fix, end=offset + len(text)))
    return findings


# --- per project --------------------------------------------------------------------------------


def _project(doc: Document, config: Config) -> Path:
    """The project a rule file belongs to: its project root, or the configuration root when that is nearer."""
    path = Path(doc.fs_path or doc.path)
    root = project_root(path)
    configured = config.root.resolve()
    if configured != root and inside(configured, root) and inside(path, configured):
        return configured
    return root


def _groups(files: list[RuleFile], config: Config) -> Iterator[list[RuleFile]]:
    by_project: dict[Path, list[RuleFile]] = {}
    for rule_file in files:
        by_project.setdefault(_project(rule_file.doc, config), []).append(rule_file)
    for _, group in sorted(by_project.items()):
        yield sorted(group, key=lambda f: f.doc.path)


def _valid(group: list[RuleFile]) -> list[tuple[RuleFile, Marker]]:
    return [(f, m) for f in group for m in f.scan.markers if m.valid]


def check_project(group: list[RuleFile], config: Config) -> list[Finding]:
    """R005, R006, R009 for the rule files of one project."""
    return _duplicate_ranks(group) + _over_budget(group, config) + _missing_reminder(group, config)


DUPLICATE_RANK = register(
    "R005",
    "duplicate-rank",
    "Two markers of the same project have the same rank.",
    Severity.WARNING,
    case=Case.CONVENTION,
    why="Ranks order the injection; equal ranks fall back to file order.",
    explanation="""
    ## Why
    The rank orders the markers of a project: rank 1 is injected first and, when the budget is
    short, the highest ranks are the first to be dropped. Two markers with the same rank have no
    order between them, so which one comes first, or is dropped, depends on the order in which
    files happen to be read. Markers in different rule files of one project share one ranking.

    ## Example
    ```markdown
    <!-- L2-REINJECT: rank=2, content="Quality gate >= 0.92 (H-13)." -->
    <!-- L2-REINJECT: rank=2, content="Ask when requirements are ambiguous (H-31)." -->
    ```

    ## What is normal
    Some projects use ranks as tiers (every constitutional rule rank 1, every quality rule rank
    2): the order inside a tier does not matter to them. That is why this is a warning: the
    markers are all injected while the budget holds, and only the order of dropping is left to
    chance. A project that ranks by tiers on purpose can ignore R005.

    ## Fix
    Give each marker a rank of its own, in the order of importance. The message names the marker
    that already has the rank.
    """,
)


def _duplicate_ranks(group: list[RuleFile]) -> list[Finding]:
    findings: list[Finding] = []
    first: dict[int, tuple[RuleFile, Marker]] = {}
    used = sorted({marker.rank for _, marker in _valid(group) if marker.rank is not None})
    for rule_file, marker in _valid(group):
        rank = marker.rank
        assert rank is not None
        if rank not in first:
            first[rank] = (rule_file, marker)
            continue
        other_file, other = first[rank]
        attribute = marker.attribute("rank")
        assert attribute is not None
        findings.append(
            rule_file.finding(
                DUPLICATE_RANK,
                attribute.value_start,
                f'rank {rank} is also the rank of the marker at {other_file.where(other)} ("{_excerpt(other)}"): '
                "markers with the same rank have no order between them",
                _rank_fix(used),
                end=attribute.value_end,
            )
        )
    return findings


def _rank_fix(used: list[int]) -> str:
    """How to give a marker a rank of its own: a free rank where one is left among those in use; else (every
    rank from 1 up is taken) renumbering, since a rank above them all would make the marker the last one."""
    free = [rank for rank in range(1, used[-1]) if rank not in set(used)]
    if free:
        return (
            f"give this marker a free rank where it belongs in the order of importance (free: {_ranges(free)}; "
            f"in use: {_ranges(used)})"
        )
    return (
        f"renumber the project's markers so that each has a rank of its own, in order of importance: ranks "
        f"{_ranges(used)} are all taken, and a rank above them would make this marker the last injected and "
        "the first dropped"
    )


def _ranges(numbers: list[int]) -> str:
    """``[1, 2, 3, 5]`` as ``1-3, 5``."""
    parts: list[str] = []
    start = previous = numbers[0]
    for number in [*numbers[1:], None]:
        if number is not None and number == previous + 1:
            previous = number
            continue
        parts.append(str(start) if start == previous else f"{start}-{previous}")
        if number is not None:
            start = previous = number
    return ", ".join(parts)


OVER_BUDGET = register(
    "R006",
    "budget-exceeded",
    "The markers of a project together measure more than the L2 token budget.",
    case=Case.TOOL_JOB,
    why="The L2 hook cannot inject every marker within its budget.",
    explanation="""
    ## Why
    Every marker is injected on every prompt, so the sum of their sizes is paid again with each
    prompt and crowds out the work in the context window. The default budget is 600 tokens for
    all markers of a project (`reinject-budget`). Over the budget, the markers with the highest
    ranks are the ones that no longer fit.

    ## Example
    Twelve markers in three rule files measuring 652 tokens together, with a budget of 600: the
    finding is placed on the first marker, in rank order, that does not fit.

    ## Fix
    Shorten or merge markers, or remove the least important ones. If a larger per-prompt cost is
    intended, raise `reinject-budget` in `[tool.ctxres]`.
    """,
    options=(REINJECT_BUDGET,),
)


def _over_budget(group: list[RuleFile], config: Config) -> list[Finding]:
    markers = _valid(group)
    total = sum(marker.measured for _, marker in markers)
    limit = budget(config)
    if total <= limit:
        return []
    ordered = sorted(markers, key=lambda item: (item[1].rank or 0, item[0].doc.path, item[1].start))
    running = 0
    for rule_file, marker in ordered:
        running += marker.measured
        if running > limit:
            files = len({f.doc.path for f, _ in markers})
            return [
                rule_file.finding(
                    OVER_BUDGET,
                    marker.start,
                    f"the {len(markers)} {KEYWORD} markers of this project ({files} rule "
                    f"file{'s' if files != 1 else ''}) measure {total} tokens together, {total - limit} over the "
                    f"{_budget_origin(config, limit)} injected on every prompt; in rank order this marker (rank "
                    f"{marker.rank}, {marker.measured} tokens) is the first that does not fit",
                    "shorten, merge or remove markers, or raise `reinject-budget` in "
                    f"{config.source.name if config.source else '`[tool.ctxres]` of pyproject.toml'} if a larger "
                    "per-prompt cost is intended",
                )
            ]
    raise AssertionError("the running total must pass the budget")  # pragma: no cover


def _budget_origin(config: Config, limit: int) -> str:
    """``default budget of 600 tokens (`reinject-budget`)`` or where the project set it (pure)."""
    if REINJECT_BUDGET.name not in config.options:
        return f"default budget of {limit} tokens (setting `reinject-budget`)"
    where = f" in {config.source.name}" if config.source else ""
    return f"budget of {limit} tokens (`reinject-budget`{where})"


MISSING_REMINDER = register(
    "R009",
    "missing-resumption-reminder",
    "The resumption update protocol is enforced, but no marker reminds the model of it.",
    case=Case.TOOL_JOB,
    why="The L2 layer of the protocol has nothing to remind the model with.",
    explanation="""
    ## Why
    Where the project enforces the resumption update protocol (`enforce-update-protocol = true`
    in `[tool.ctxres]`), the model is reminded on every prompt to keep the `resumption:` section
    of its ORCHESTRATION.yaml current. The full protocol (the L1 document) is read once and fades
    as the context fills; the per-prompt L2 reminder is what keeps it in view. A marker counts as
    the reminder when its content speaks of updating the resumption section.

    ## Example
    A project with `enforce-update-protocol = true` whose rule files have markers about quality
    gates and coding standards, but none about the resumption section.

    ## Fix
    Add the reminder to a rule file (the protocol puts it in `quality-enforcement.md`, rank 9):
    ```markdown
    {reminder}
    ```
    """.replace("{reminder}", reminder_marker()),
    options=(ENFORCE_UPDATE_PROTOCOL,),
)


def _missing_reminder(group: list[RuleFile], config: Config) -> list[Finding]:
    if not protocol_enforced(config) or any(resumption_reminder(m) for _, m in _valid(group)):
        return []
    home = next((f for f in group if Path(f.doc.path).name == "quality-enforcement.md"), group[0])
    used = {m.rank for _, m in _valid(group)}
    rank = protocol.RESUMPTION_MARKER_RANK
    if rank in used:
        rank = max(r for r in used if r is not None) + 1
    return [
        home.finding(
            MISSING_REMINDER,
            0,
            "the resumption update protocol is enforced (`enforce-update-protocol = true`) but no L2 marker of this "
            "project reminds the model to update the resumption section of ORCHESTRATION.yaml",
            f"add the reminder to this file (rank {rank} is free): `{reminder_marker(rank)}`",
        )
    ]


# --- entry points ---------------------------------------------------------------------------------


def check_rule_files(docs: list[Document], config: Config) -> list[Finding]:
    """Every R finding for these rule files (grouped by project for the cross-file rules)."""
    files = [RuleFile.of(doc) for doc in docs]
    groups = list(_groups(files, config))
    # a project that leaves `tokens=` out of every marker does so on purpose: its convention, not a finding each
    countless = {id(f) for group in groups if counts_no_tokens(group) for f in group}
    findings: list[Finding] = []
    for rule_file in files:
        found = check_file(rule_file, config)
        if id(rule_file) in countless:
            found = [f for f in found if f.code != MISSING_TOKENS.code]
        findings += found
    for group in groups:
        findings += check_project(group, config)
    return findings


def counts_no_tokens(group: list[RuleFile]) -> bool:
    """Whether a project's convention is markers without ``tokens=``: two or more markers, none declaring it."""
    markers = _valid(group)
    return len(markers) >= CONVENTION_MARKERS and all(marker.tokens is None for _f, marker in markers)


CONVENTION_MARKERS = 2
"""How many markers make leaving ``tokens=`` out a project's convention rather than one marker's omission."""


@workspace_check(
    MALFORMED,
    NON_CANONICAL,
    TOKEN_MISMATCH,
    MISSING_TOKENS,
    TOO_LONG,
    MARKUP,
    DUPLICATE_RANK,
    OVER_BUDGET,
    MISSING_REMINDER,
    kinds=(RULE_FILE_KIND,),
)
def check_workspace(ws: Workspace) -> list[Finding]:
    return check_rule_files(ws.of_kind(RULE_FILE_KIND), ws.config)


PER_PROJECT = frozenset({MISSING_TOKENS.code, DUPLICATE_RANK.code, OVER_BUDGET.code, MISSING_REMINDER.code})
"""The rules whose finding in one rule file depends on every rule file of its project: a check of a subfolder,
which reads only some of them, cannot judge them (its baseline entries are neither matched nor fixed there)."""
