"""L2-REINJECT markers in Markdown rule files: finding, parsing and measuring them, fixing ``tokens=``.

An L2 marker is an HTML comment in a rule file (``CLAUDE.md``, ``.claude/rules/*.md``,
``.context/rules/*.md``) whose text is re-injected into the model's context on every prompt::

    <!-- L2-REINJECT: rank=3, tokens=25, content="UV only for Python (H-05). NEVER use pip." -->

Grammar (``ws`` is any white space)::

    marker     = "<!--" ws keyword ws ":" ws attribute { ws "," ws attribute } [ws ","] ws "-->"
    keyword    = "L2-REINJECT"
    attribute  = name ws "=" ws value
    name       = "rank" | "tokens" | "content"
    value      = '"' { any character but '"' and '\\' | '\\' any character } '"'  |  bare
    bare       = one or more characters other than white space and ","

- ``rank`` (required) is a whole number from 1; lower ranks are injected first.
- ``tokens`` (expected) is the size of ``content`` in tokens, a whole number from 1.
- ``content`` (required) is in double quotes and not empty. Inside it ``\\"`` stands for ``"`` and
  ``\\\\`` for ``\\``; any other backslash is kept as written. The content cannot contain ``-->``,
  which would end the comment.

The *canonical* form is ``<!-- L2-REINJECT: rank=N, tokens=N, content="..." -->`` on one line:
one space after ``<!--`` and before ``-->``, the attributes in the order rank, tokens, content,
separated by ``", "``, no space around ``=``, rank and tokens unquoted. The parser is lenient and
reads other spellings too, recording how they differ (:attr:`Marker.style`): the keyword in
another case or as ``L2_REINJECT``/``L2 REINJECT``, no colon, other white space, the attributes in
another order, separated by white space only, ``content`` in single quotes (``\\'`` escapes),
quoted numbers, a marker spread over several lines. What the parser cannot read is recorded as
an error (:attr:`Marker.errors`) with its offset: an unknown or repeated attribute, a missing
rank or content, a value that is not a whole number, unquoted or empty content, an unclosed
quote, an unclosed comment.

What is a marker: an HTML comment whose text starts with the keyword followed by a colon (or,
without the colon, by something that looks like ``name=value``). ``L2-REINJECT`` anywhere else
(prose, tables, a comment that merely mentions it) is not a marker, and neither is a comment
inside a fenced code block, an inline code span or the YAML front matter: Markdown shows those
literally, they are examples. A marker swallowed by an earlier comment that is never closed is
reported (:func:`scan` returns it as a stray problem).

Tokens are measured as the characters of the content (after escapes are resolved) divided by 4,
rounded up: the estimate every budget uses (docs/formats.md, "The two prompt templates"). That estimate is not what a
tokenizer counts, so a declared ``tokens=`` is judged against the range real tokenizers give
(:func:`token_range`: 3 to 6 characters per token), not against the point estimate.

Pure functions only: :func:`scan` reads text, :func:`plan_token_fixes` and :func:`apply_edits`
compute the text ``ctxres reinject --fix`` writes.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_right
from collections.abc import Iterable, Sequence

from ctxres.defaults import REINJECT_TOLERANCE_PERCENT
from ctxres.records import FrozenRecord, init_field
from ctxres.tokens import estimate_tokens

# `ctxres check` loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").

KEYWORD = "L2-REINJECT"
ATTRIBUTES: tuple[str, ...] = ("rank", "tokens", "content")
"""The attribute names, in canonical order."""

RULE_FILE_KIND = "rule-file"
RULE_FILE_PATTERNS: tuple[str, ...] = (
    "CLAUDE.md",
    "CLAUDE.local.md",
    "**/.claude/rules/**/*.md",
    "**/.context/rules/**/*.md",
)
"""Default file patterns of rule files (Markdown that Claude Code loads and that may hold markers)."""

DEFAULT_TOLERANCE_PERCENT = REINJECT_TOLERANCE_PERCENT
CHARS_PER_TOKEN_DENSE = 3
"""Characters per token of dense rule text (ids like ``H-13``, punctuation, numbers, code): the most tokens."""
CHARS_PER_TOKEN_PROSE = 6
"""Characters per token of plain English prose with long common words: the fewest tokens."""
FAR_FACTOR = 2
"""A declared figure below half the range, or above twice it, is far outside: an error, not a warning."""

_KEYWORD = re.compile(r"[ \t\r\n]*(L2[-_ ]?RE-?INJECT)\b", re.IGNORECASE)
_HIDDEN = re.compile(r"<!--[ \t\r\n]*L2[-_ ]?RE-?INJECT\b", re.IGNORECASE)
_WS = " \t\r\n"
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
_BARE = re.compile(r"[^ \t\r\n,]+")
_NUMBER = re.compile(r"[0-9]+")
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})(.*)")
_BACKTICKS = re.compile(r"`+")
_MARKUP = re.compile(
    r"</?[A-Za-z][A-Za-z0-9:_-]*(?:[ \t\r\n/][^<>]*)?>|<!\[CDATA\[|<\?[A-Za-z]"
    r"|&(?:[A-Za-z][A-Za-z0-9]*|#[0-9]+|#[xX][0-9A-Fa-f]+);"
)


measure_tokens = estimate_tokens  # the budgets' estimate: characters / 4, rounded up


class TokenRange(FrozenRecord):
    """What a content of ``characters`` characters may honestly be said to cost.

    ``estimate`` is the budgets' characters / 4; ``low``..``high`` the figures real
    tokenizers give (``CHARS_PER_TOKEN_PROSE`` down to ``CHARS_PER_TOKEN_DENSE`` characters per
    token); ``lowest``..``highest`` that range widened by the configured tolerance. A declared
    figure inside ``lowest``..``highest`` cannot be called wrong without the model's tokenizer.
    """

    __slots__ = ("characters", "estimate", "high", "highest", "low", "lowest")

    characters: int
    estimate: int
    low: int
    high: int
    lowest: int
    highest: int

    def __init__(self, characters: int, estimate: int, low: int, high: int, lowest: int, highest: int) -> None:
        init_field(self, "characters", characters)
        init_field(self, "estimate", estimate)
        init_field(self, "low", low)
        init_field(self, "high", high)
        init_field(self, "lowest", lowest)
        init_field(self, "highest", highest)

    def verdict(self, declared: int) -> str:
        """``"ok"`` inside the widened range, ``"far"`` below half of it or above twice it, else ``"off"``."""
        if self.lowest <= declared <= self.highest:
            return "ok"
        if declared * FAR_FACTOR < self.lowest or declared > self.highest * FAR_FACTOR:
            return "far"
        return "off"


def token_range(content: str, tolerance_percent: int = DEFAULT_TOLERANCE_PERCENT) -> TokenRange:
    """The plausible token figures of ``content`` (see :class:`TokenRange`)."""
    characters = len(content)
    low = characters // CHARS_PER_TOKEN_PROSE
    high = -(-characters // CHARS_PER_TOKEN_DENSE)
    lowest = max(0, low - math.ceil(low * tolerance_percent / 100))
    highest = high + math.ceil(high * tolerance_percent / 100)
    return TokenRange(characters, measure_tokens(content), low, high, lowest, highest)


class Problem(FrozenRecord):
    """Something wrong at ``offset`` of the text; ``fix`` says what to change."""

    __slots__ = ("fix", "message", "offset")

    offset: int
    message: str
    fix: str

    def __init__(self, offset: int, message: str, fix: str = "") -> None:
        init_field(self, "offset", offset)
        init_field(self, "message", message)
        init_field(self, "fix", fix)


class Attribute(FrozenRecord):
    """One ``name=value`` of a marker, as written."""

    __slots__ = ("name", "quote", "raw", "start", "value", "value_end", "value_start", "written_name")

    name: str
    """The name in lower case."""
    written_name: str
    value: str
    """The value: quotes removed, escapes resolved."""
    raw: str
    """The value exactly as written between its quotes (or the bare value)."""
    start: int
    """Offset of the name."""
    value_start: int
    """Offset of the first character of ``raw``."""
    value_end: int
    quote: str
    """``"``, ``'`` or empty (bare)."""

    def __init__(
        self,
        name: str,
        written_name: str,
        value: str,
        raw: str,
        start: int,
        value_start: int,
        value_end: int,
        quote: str,
    ) -> None:
        init_field(self, "name", name)
        init_field(self, "written_name", written_name)
        init_field(self, "value", value)
        init_field(self, "raw", raw)
        init_field(self, "start", start)
        init_field(self, "value_start", value_start)
        init_field(self, "value_end", value_end)
        init_field(self, "quote", quote)


class Marker(FrozenRecord):
    """One L2-REINJECT comment: where it is, what it says, and what is wrong with its form."""

    __slots__ = ("attributes", "end", "errors", "start", "style", "text")

    start: int
    """Offset of ``<!--``."""
    end: int
    """Offset just after ``-->`` (end of the line when the comment is never closed)."""
    text: str
    """The comment as written."""
    attributes: tuple[Attribute, ...]
    errors: tuple[Problem, ...]
    """Why the marker cannot be read (it is then neither measured nor injected)."""
    style: tuple[str, ...]
    """How a readable marker differs from the canonical form (empty: it is canonical)."""

    def __init__(
        self,
        start: int,
        end: int,
        text: str,
        attributes: tuple[Attribute, ...] = (),
        errors: tuple[Problem, ...] = (),
        style: tuple[str, ...] = (),
    ) -> None:
        init_field(self, "start", start)
        init_field(self, "end", end)
        init_field(self, "text", text)
        init_field(self, "attributes", attributes)
        init_field(self, "errors", errors)
        init_field(self, "style", style)

    def attribute(self, name: str) -> Attribute | None:
        return next((a for a in self.attributes if a.name == name), None)

    @property
    def valid(self) -> bool:
        return not self.errors

    @property
    def rank(self) -> int | None:
        return _number(self.attribute("rank")) if self.valid else None

    @property
    def tokens(self) -> int | None:
        """The declared token count (None when not declared or the marker is malformed)."""
        return _number(self.attribute("tokens")) if self.valid else None

    @property
    def content(self) -> str | None:
        found = self.attribute("content")
        return found.value if found is not None and self.valid else None

    @property
    def measured(self) -> int:
        """The content's size in tokens (0 for a malformed marker)."""
        content = self.content
        return measure_tokens(content) if content is not None else 0

    def canonical(self, tokens: int | None = None) -> str:
        """The marker in canonical form, with ``tokens`` (default: as declared, omitted when absent)."""
        rank = self.attribute("rank")
        content = self.attribute("content")
        declared = self.attribute("tokens")
        figure = str(tokens) if tokens is not None else (declared.value if declared is not None else None)
        parts = [f"rank={rank.value if rank else '?'}"]
        if figure is not None:
            parts.append(f"tokens={figure}")
        parts.append(f'content="{_as_double_quoted(content) if content else ""}"')
        return f"<!-- {KEYWORD}: {', '.join(parts)} -->"


def _number(attribute: Attribute | None) -> int | None:
    if attribute is None or not _NUMBER.fullmatch(attribute.value):
        return None
    return int(attribute.value)


def _as_double_quoted(attribute: Attribute) -> str:
    if attribute.quote == '"':
        return attribute.raw
    return attribute.value.replace("\\", "\\\\").replace('"', '\\"')


class Scan(FrozenRecord):
    """Every marker of a text, and markers that a never-closed earlier comment swallowed."""

    __slots__ = ("markers", "stray")

    markers: list[Marker]
    stray: list[Problem]

    def __init__(self, markers: list[Marker] | None = None, stray: list[Problem] | None = None) -> None:
        init_field(self, "markers", [] if markers is None else markers)
        init_field(self, "stray", [] if stray is None else stray)


class Lines:
    """Offsets to 1-based (line, column) positions of one text."""

    def __init__(self, text: str) -> None:
        self._starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def position(self, offset: int) -> tuple[int, int]:
        index = bisect_right(self._starts, offset) - 1
        return index + 1, offset - self._starts[index] + 1

    def line_end(self, offset: int, text: str) -> int:
        newline = text.find("\n", offset)
        return len(text) if newline == -1 else newline


# --- finding the HTML comments outside code --------------------------------------------------


def _front_matter_end(lines: list[str]) -> int:
    """Number of lines of a leading YAML front matter block (0 when there is none)."""
    if not lines or lines[0].rstrip() != "---":
        return 0
    for index in range(1, len(lines)):
        if lines[index].rstrip() in ("---", "..."):
            return index + 1
    return 0


def _closes_fence(line: str, fence: str) -> bool:
    stripped = line.rstrip()
    indent = len(stripped) - len(stripped.lstrip(" "))
    body = stripped.lstrip(" ")
    return indent <= 3 and len(body) >= len(fence) and body == fence[0] * len(body)


def _opens_fence(line: str) -> str | None:
    match = _FENCE.fullmatch(line.rstrip("\r\n"))
    if match is None:
        return None
    fence, info = match.group(1), match.group(2)
    if fence[0] == "`" and "`" in info:
        return None
    return fence


def comments(text: str) -> list[tuple[int, int | None]]:
    """(start, end) of each HTML comment outside code blocks, code spans and front matter.

    ``end`` is the offset after ``-->``, or None when the comment is never closed (it then runs to
    the end of the text, and is the last one).
    """
    found: list[tuple[int, int | None]] = []
    lines = text.splitlines(keepends=True)
    skipped = _front_matter_end(lines)
    offset = sum(len(line) for line in lines[:skipped])
    resume = offset
    fence: str | None = None
    for line in lines[skipped:]:
        start, end = offset, offset + len(line)
        offset = end
        if resume >= end:
            continue
        if fence is not None:
            if _closes_fence(line, fence):
                fence = None
            continue
        if resume <= start:
            fence = _opens_fence(line)
            if fence is not None:
                continue
        position = max(resume, start)
        while position < end:
            comment = _next_comment(text, position, end)
            if comment is None:
                break
            found.append(comment)
            if comment[1] is None:
                return found
            position = comment[1]
        resume = max(position, end)
    return found


def _next_comment(text: str, position: int, line_end: int) -> tuple[int, int | None] | None:
    """The next comment that starts on this line at or after ``position`` (code spans skipped)."""
    while position < line_end:
        opening = text.find("<!--", position, line_end)
        tick = text.find("`", position, line_end)
        if opening == -1 and tick == -1:
            return None
        if tick != -1 and (opening == -1 or tick < opening):
            position = _after_code_span(text, tick, line_end)
            continue
        close = text.find("-->", opening + 4)
        if _is_literal_text(text, opening, close):
            position = opening + 4
            continue
        return (opening, None) if close == -1 else (opening, close + 3)
    return None


# A paragraph ends at a blank line, or where a line starts a comment (an HTML block interrupts it).
_PARAGRAPH_END = re.compile(r"\n(?:[ \t]*\r?\n| {0,3}<!--)")


def _is_literal_text(text: str, opening: int, close: int) -> bool:
    """Whether this ``<!--`` is text, not a comment: written inside a line (prose such as ``"<!--"``),
    not followed by the marker keyword, and not closed before its paragraph ends.

    As in Markdown, a comment that starts a line (up to three spaces in) runs to the line that
    closes it, blank lines included; one inside a line is a comment only when it closes within its
    paragraph, otherwise it is the four characters themselves.
    """
    line_start = text.rfind("\n", 0, opening) + 1
    before = text[line_start:opening]
    if len(before) <= 3 and not before.strip(" "):
        return False
    if _KEYWORD.match(text, opening + 4):
        return False
    paragraph = _PARAGRAPH_END.search(text, opening)
    paragraph_end = paragraph.start() if paragraph else len(text)
    return close == -1 or close >= paragraph_end


def _after_code_span(text: str, tick: int, line_end: int) -> int:
    """Where scanning resumes after a backtick run: after the matching run, or after the run itself."""
    run = _BACKTICKS.match(text, tick)
    assert run is not None
    width = len(run.group())
    for candidate in _BACKTICKS.finditer(text, run.end(), line_end):
        if len(candidate.group()) == width:
            return candidate.end()
    return run.end()


# --- parsing one marker ---------------------------------------------------------------------------


def scan(text: str) -> Scan:
    """Every L2-REINJECT marker of a Markdown text, in order."""
    result = Scan()
    lines = Lines(text)
    for start, end in comments(text):
        stop = end if end is not None else lines.line_end(start, text)
        body_start = start + 4
        body_end = stop - 3 if end is not None else stop
        keyword = _KEYWORD.match(text, body_start, body_end)
        if keyword is None or not _is_marker(text, keyword.end(), body_end):
            hidden = _HIDDEN.search(text, body_start, body_end)
            if hidden is not None:
                result.stray.append(_swallowed(hidden.start(), start, lines))
            continue
        result.markers.append(_parse_marker(text, start, end, stop, keyword, lines))
    return result


def _is_marker(text: str, after_keyword: int, body_end: int) -> bool:
    rest = text[after_keyword:body_end].lstrip(_WS)
    return rest.startswith(":") or re.match(r"[A-Za-z_]\w*\s*=", rest) is not None


def _swallowed(offset: int, opened: int, lines: Lines) -> Problem:
    line, col = lines.position(opened)
    return Problem(
        offset,
        f"this marker is inside the HTML comment opened at line {line}, column {col}, which is not closed before "
        "it: the marker is part of that comment and is never injected",
        f"close the comment at line {line} with `-->`",
    )


def _parse_marker(text: str, start: int, end: int | None, stop: int, keyword: re.Match[str], lines: Lines) -> Marker:
    written = text[start:stop]
    if end is None:
        return Marker(
            start,
            stop,
            written,
            errors=(Problem(start, "the marker's comment is never closed", "end the marker with ` -->`"),),
        )
    body_end = end - 3
    nested = text.find("<!--", start + 4, body_end)
    if nested != -1:
        line, _ = lines.position(nested)
        return Marker(
            start,
            end,
            written,
            errors=(
                Problem(
                    start,
                    f"the marker's comment is not closed before another comment starts at line {line}: "
                    "both run together and neither is injected",
                    "end the marker with ` -->` on its own line",
                ),
            ),
        )
    style: list[str] = []
    if keyword.group(1) != KEYWORD:
        style.append(f"the keyword is written `{keyword.group(1)}`, not `{KEYWORD}`")
    position = _skip_ws(text, keyword.end(), body_end)
    if position < body_end and text[position] == ":":
        position += 1
    else:
        style.append(f"there is no colon after `{keyword.group(1)}`")
    attributes, errors = _parse_attributes(text, position, body_end, style, lines)
    if not errors:
        errors = _check_attributes(attributes, start)
    marker = Marker(start, end, written, tuple(attributes), tuple(errors))
    if errors:
        return marker
    return Marker(start, end, written, tuple(attributes), (), tuple(_style(marker, style)))


def _skip_ws(text: str, position: int, end: int) -> int:
    while position < end and text[position] in _WS:
        position += 1
    return position


def _parse_attributes(
    text: str, position: int, end: int, style: list[str], lines: Lines
) -> tuple[list[Attribute], list[Problem]]:
    attributes: list[Attribute] = []
    separated = True
    while True:
        position = _skip_ws(text, position, end)
        if position >= end:
            if attributes and separated:
                style.append("there is a comma after the last attribute")
            return attributes, []
        if text[position] == ",":
            if separated and attributes:
                return attributes, [Problem(position, "two commas in a row", "remove one of the commas")]
            if not attributes:
                style.append("there is a comma before the first attribute")
            separated = True
            position += 1
            continue
        if not separated:
            style.append("the attributes are separated by white space only, not by `, `")
        name = _NAME.match(text, position, end)
        if name is None:
            found = text[position:end].split()[0] if text[position:end].split() else text[position]
            return attributes, [
                Problem(
                    position,
                    f"expected an attribute such as `rank=1`, found `{_shorten(found)}`",
                    'write the marker as `<!-- L2-REINJECT: rank=N, tokens=N, content="..." -->`',
                )
            ]
        equals = _skip_ws(text, name.end(), end)
        if equals >= end or text[equals] != "=":
            return attributes, [
                Problem(position, f"`{name.group()}` has no value", f"write `{name.group().lower()}=...`")
            ]
        parsed = _parse_value(text, name, _skip_ws(text, equals + 1, end), end, lines)
        if isinstance(parsed, Problem):
            return attributes, [parsed]
        attributes.append(parsed)
        position = parsed.value_end + (1 if parsed.quote else 0)
        if position < end and text[position] not in _WS + ",":
            return attributes, [
                Problem(
                    position,
                    f"unexpected text `{_shorten(text[position:end].split()[0])}` right after the value of "
                    f"`{parsed.name}`",
                    "separate attributes with `, `",
                )
            ]
        separated = False


def _parse_value(text: str, name: re.Match[str], position: int, end: int, lines: Lines) -> Attribute | Problem:
    written_name = name.group()
    if position >= end:
        return Problem(name.start(), f"`{written_name}` has no value", f"write `{written_name.lower()}=...`")
    quote = text[position]
    if quote not in "\"'":
        bare = _BARE.match(text, position, end)
        assert bare is not None
        raw = bare.group()
        return Attribute(written_name.lower(), written_name, raw, raw, name.start(), position, bare.end(), "")
    index = position + 1
    while index < end:
        char = text[index]
        if char == "\\" and index + 1 < end:
            index += 2
            continue
        if char == quote:
            raw = text[position + 1 : index]
            value = re.sub(r"\\([\\" + quote + "])", r"\1", raw)
            return Attribute(written_name.lower(), written_name, value, raw, name.start(), position + 1, index, quote)
        index += 1
    line_end = lines.line_end(end, text)
    early = text.find(quote, end + 3, line_end) != -1
    return Problem(
        position,
        f"the quoted value of `{written_name}` is not closed"
        + (": it contains `-->`, which ends the comment early" if early else ""),
        "reword the content without `-->`" if early else f"close the value with {quote}",
    )


def _check_attributes(attributes: Sequence[Attribute], start: int) -> list[Problem]:
    problems: list[Problem] = []
    seen: set[str] = set()
    for attribute in attributes:
        if attribute.name not in ATTRIBUTES:
            problems.append(
                Problem(
                    attribute.start,
                    f"unknown attribute `{attribute.written_name}`: a marker has only rank, tokens and content",
                    f"remove `{attribute.written_name}=...`",
                )
            )
        elif attribute.name in seen:
            problems.append(
                Problem(attribute.start, f"`{attribute.name}` is given twice", "keep one of the two values")
            )
        elif attribute.name in ("rank", "tokens") and (
            not _NUMBER.fullmatch(attribute.value) or int(attribute.value) == 0
        ):
            problems.append(
                Problem(
                    attribute.value_start,
                    f"`{attribute.name}` must be a whole number of 1 or more, not `{_shorten(attribute.raw)}`",
                    f"write `{attribute.name}=N` with digits only",
                )
            )
        elif attribute.name == "content" and not attribute.quote:
            problems.append(
                Problem(
                    attribute.value_start,
                    "`content` must be in double quotes",
                    'write `content="..."` (a `"` inside the content is written `\\"`)',
                )
            )
        elif attribute.name == "content" and not attribute.value.strip():
            problems.append(Problem(attribute.value_start, "`content` is empty", "write the reminder to inject"))
        seen.add(attribute.name)
    for required in ("rank", "content"):
        if required not in seen:
            problems.append(
                Problem(start, f"`{required}` is missing", f"add `{required}=...` (see the canonical form)")
            )
    return problems


def _style(marker: Marker, reasons: list[str]) -> list[str]:
    names = [a.name for a in marker.attributes]
    if names != sorted(names, key=ATTRIBUTES.index):
        reasons.append(f"the attributes are in the order {', '.join(names)}, not {', '.join(ATTRIBUTES)}")
    for attribute in marker.attributes:
        if attribute.name != attribute.written_name:
            reasons.append(f"`{attribute.written_name}` is not in lower case")
        if attribute.name in ("rank", "tokens") and attribute.quote:
            reasons.append(f"the value of `{attribute.name}` is quoted")
        if attribute.name == "content" and attribute.quote == "'":
            reasons.append("`content` is in single quotes, not double quotes")
    if "\n" in marker.text:
        reasons.append("the marker is spread over several lines")
    if not reasons and marker.text != marker.canonical():
        reasons.append("the spacing differs")
    return list(dict.fromkeys(reasons))


def _shorten(text: str, limit: int = 30) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


# --- content checks -----------------------------------------------------------------------------


def markup(marker: Marker) -> list[tuple[int, str]]:
    """(offset, text) of each HTML/XML tag or character entity inside the marker's content."""
    content = marker.attribute("content")
    if content is None or not marker.valid:
        return []
    return [(content.value_start + m.start(), m.group()) for m in _MARKUP.finditer(content.raw)]


def resumption_reminder(marker: Marker) -> bool:
    """Whether the marker is the update protocol's reminder (its content speaks of updating the resumption section)."""
    content = (marker.content or "").lower()
    return "resumption" in content and "updat" in content


# --- fixing tokens= -------------------------------------------------------------------------------


class Edit(FrozenRecord):
    """Replace ``text[start:end]`` with ``replacement``."""

    __slots__ = ("end", "replacement", "start")

    start: int
    end: int
    replacement: str

    def __init__(self, start: int, end: int, replacement: str) -> None:
        init_field(self, "start", start)
        init_field(self, "end", end)
        init_field(self, "replacement", replacement)


def token_fix(marker: Marker, tolerance_percent: int) -> Edit | None:
    """The edit that makes the marker's ``tokens=`` right: a wrong value replaced, a missing one added.

    Only the digits of a wrong value change (to the budgets' estimate, characters / 4); a missing
    ``tokens=N, `` is inserted before ``content``. None when the declared figure is inside the
    plausible range widened by the tolerance (:func:`token_range`), or the marker is malformed.
    """
    if not marker.valid:
        return None
    measured = marker.measured
    declared = marker.attribute("tokens")
    if declared is None:
        content = marker.attribute("content")
        assert content is not None
        return Edit(content.start, content.start, f"tokens={measured}, ")
    figure = marker.tokens
    assert figure is not None
    if token_range(marker.content or "", tolerance_percent).verdict(figure) == "ok":
        return None
    return Edit(declared.value_start, declared.value_end, str(measured))


def apply_edits(text: str, edits: Iterable[Edit]) -> str:
    """``text`` with every edit applied (edits must not overlap)."""
    out = text
    previous = len(text) + 1
    for edit in sorted(edits, key=lambda e: (e.start, e.end), reverse=True):
        if edit.end > previous:
            raise ValueError("overlapping edits")
        out = out[: edit.start] + edit.replacement + out[edit.end :]
        previous = edit.start
    return out
