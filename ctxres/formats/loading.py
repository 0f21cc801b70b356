"""Reading artifact files from disk into :class:`~ctxres.formats.document.Document` values.

Everything that can go wrong while reading (size, encoding, binary content, syntax, duplicate
keys, alias bombs, a missing front matter) comes back as a :class:`LoadIssue` with a position,
never as an exception: callers turn issues into findings or, in hooks, into a stderr line.
"""

from __future__ import annotations

from enum import Enum

from ctxres.filereading import FileTooLarge, NotRegularFile, read_regular
from ctxres.findings import ORIGIN, Position
from ctxres.formats.document import Document, JsonPath
from ctxres.formats.jsonpos import JsonPosError, parse_json, parse_json_quick
from ctxres.formats.yamlpos import YamlPosError, parse_yaml
from ctxres.records import FrozenRecord, Record, init_field

# `ctxres check` loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").

DEFAULT_MAX_BYTES = 10 * 1024 * 1024
DEFAULT_MAX_NODES = 50_000  # values added by alias expansion
DEFAULT_MAX_DEPTH = 200


class Format(str, Enum):
    """How an artifact is stored."""

    YAML = "yaml"
    JSON = "json"
    JSONL = "jsonl"
    FRONT_MATTER = "front-matter"
    TEXT = "text"  # read as text only (Markdown rule files); rules parse what they need


class IssueKind(str, Enum):
    """Why a file could not be read (or was read with a problem)."""

    SYNTAX = "syntax"
    DUPLICATE_KEY = "duplicate-key"
    ENCODING = "encoding"
    BINARY = "binary"
    TOO_LARGE = "too-large"
    LIMIT = "limit"
    NON_STRING_KEY = "non-string-key"
    NO_FRONT_MATTER = "no-front-matter"
    UNREADABLE = "unreadable"


class LoadIssue(FrozenRecord):
    __slots__ = ("fix", "json_path", "kind", "message", "position")

    kind: IssueKind
    message: str
    position: Position
    json_path: JsonPath
    fix: str

    def __init__(
        self,
        kind: IssueKind,
        message: str,
        position: Position = ORIGIN,
        json_path: JsonPath = (),
        fix: str = "",
    ) -> None:
        init_field(self, "kind", kind)
        init_field(self, "message", message)
        init_field(self, "position", position)
        init_field(self, "json_path", json_path)
        init_field(self, "fix", fix)


class Limits(FrozenRecord):
    __slots__ = ("max_bytes", "max_depth", "max_nodes")

    max_bytes: int
    max_nodes: int
    max_depth: int

    def __init__(
        self,
        max_bytes: int = DEFAULT_MAX_BYTES,
        max_nodes: int = DEFAULT_MAX_NODES,
        max_depth: int = DEFAULT_MAX_DEPTH,
    ) -> None:
        init_field(self, "max_bytes", max_bytes)
        init_field(self, "max_nodes", max_nodes)
        init_field(self, "max_depth", max_depth)


class LoadResult(Record):
    __slots__ = ("document", "issues")

    document: Document | None
    issues: list[LoadIssue]

    def __init__(self, document: Document | None, issues: list[LoadIssue] | None = None) -> None:
        self.document = document
        self.issues = [] if issues is None else issues


def _position_of_byte(raw: bytes, offset: int) -> Position:
    line = raw.count(b"\n", 0, offset) + 1
    line_start = raw.rfind(b"\n", 0, offset) + 1
    return Position(line, len(raw[line_start:offset].decode("utf-8", "replace")) + 1)


def decode(raw: bytes) -> tuple[str | None, LoadIssue | None]:
    """UTF-8 text (a BOM is allowed), or the issue that prevents it."""
    nul = raw.find(b"\x00", 0, 8192)
    if nul != -1:
        return None, LoadIssue(
            IssueKind.BINARY,
            "the file contains NUL bytes: it is binary, not text",
            _position_of_byte(raw, nul),
        )
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        bad = raw[exc.start : exc.start + 1].hex()
        return None, LoadIssue(
            IssueKind.ENCODING,
            f"the file is not valid UTF-8 (byte 0x{bad} at offset {exc.start}); save it as UTF-8",
            _position_of_byte(raw, exc.start),
        )
    return text, None


def split_front_matter(text: str) -> tuple[str, int] | None:
    """The YAML between the leading ``---`` lines of a Markdown file, and its first line number - 1."""
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].rstrip("\r\n").rstrip() != "---":
        return None
    for index in range(1, len(lines)):
        if lines[index].rstrip("\r\n").rstrip() in ("---", "..."):
            return "".join(lines[1:index]), 1
    return None


def _conflict(text: str, line_offset: int) -> LoadIssue | None:
    """The issue of a text that does not parse because a merge conflict was left in it (its markers), else None."""
    from ctxres.formats import conflicts

    reason = conflicts.conflict_reason(text, line_offset)
    if reason is None:
        return None
    line = conflicts.conflict_line(text, line_offset) or 1
    return LoadIssue(IssueKind.SYNTAX, reason, Position(line, 1), fix=conflicts.FIX)


def _from_yaml(doc: Document, text: str, line_offset: int, limits: Limits) -> list[LoadIssue]:
    try:
        parsed = parse_yaml(text, line_offset=line_offset, max_nodes=limits.max_nodes, max_depth=limits.max_depth)
    except YamlPosError as exc:
        if "alias" in exc.message or "nested" in exc.message:
            return [LoadIssue(IssueKind.LIMIT, exc.message, exc.position)]
        conflict = _conflict(text, line_offset)
        if conflict is not None:
            return [conflict]
        return [
            LoadIssue(
                IssueKind.SYNTAX,
                exc.message,
                exc.position,
                fix=exc.fix or "check the indentation and quoting of this line and the lines just above it",
            )
        ]
    doc.data = parsed.data
    doc.value_pos = parsed.value_pos
    doc.key_pos = parsed.key_pos
    doc.yaml_timestamps = parsed.timestamps
    issues = [
        LoadIssue(IssueKind.DUPLICATE_KEY, f"duplicate key {path[-1]!r}: the later value silently wins", pos, path)
        for path, pos in parsed.duplicates
    ]
    issues += [
        LoadIssue(
            IssueKind.NON_STRING_KEY,
            f"key {path[-1]!r} is not a string in YAML (it is read as a number, boolean or date); quote it",
            pos,
            path,
        )
        for path, pos in parsed.non_string_keys
    ]
    return issues


def _from_json(doc: Document, text: str, limits: Limits) -> list[LoadIssue]:
    try:
        parsed = parse_json_quick(text, max_depth=limits.max_depth)
    except JsonPosError as exc:
        kind = IssueKind.LIMIT if "nested" in exc.message else IssueKind.SYNTAX
        conflict = _conflict(text, 0) if kind is IssueKind.SYNTAX else None
        return [conflict or LoadIssue(kind, f"invalid JSON: {exc.message}", exc.position)]
    doc.data = parsed.data
    doc.value_pos = parsed.value_pos
    doc.key_pos = parsed.key_pos
    return [
        LoadIssue(IssueKind.DUPLICATE_KEY, f"duplicate key {path[-1]!r}: the later value silently wins", pos, path)
        for path, pos in parsed.duplicates
    ]


def _from_jsonl(doc: Document, text: str, limits: Limits) -> list[LoadIssue]:
    """Each line is one JSON value; a bad line is reported and skipped, the rest is still read."""
    issues: list[LoadIssue] = []
    items: list[object] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            parsed = parse_json(line, line_offset=number - 1, max_depth=limits.max_depth)
        except JsonPosError as exc:
            issues.append(
                LoadIssue(
                    IssueKind.SYNTAX, f"line {number} is not valid JSON and was skipped: {exc.message}", exc.position
                )
            )
            continue
        index = len(items)
        items.append(parsed.data)
        doc.line_numbers.append(number)
        for path, pos in parsed.value_pos.items():
            item_path: JsonPath = (index, *path)
            doc.value_pos[item_path] = pos
        for path, pos in parsed.key_pos.items():
            item_path = (index, *path)
            doc.key_pos[item_path] = pos
        issues += [
            LoadIssue(
                IssueKind.DUPLICATE_KEY,
                f"duplicate key {path[-1]!r}: the later value silently wins",
                pos,
                (index, *path),
            )
            for path, pos in parsed.duplicates
        ]
    doc.data = items
    return issues


def parse_text(path: str, kind: str, fmt: Format, text: str, limits: Limits | None = None) -> LoadResult:
    """Parse already-decoded text (pure: no file system access)."""
    limits = limits or Limits()
    doc = Document(path=path, kind=kind, text=text, data=None)
    if fmt is Format.TEXT:
        return LoadResult(doc)
    if fmt is Format.YAML:
        issues = _from_yaml(doc, text, 0, limits)
    elif fmt is Format.JSON:
        issues = _from_json(doc, text, limits)
    elif fmt is Format.JSONL:
        issues = _from_jsonl(doc, text, limits)
    else:
        split = split_front_matter(text)
        if split is None:
            return LoadResult(
                None,
                [
                    LoadIssue(
                        IssueKind.NO_FRONT_MATTER,
                        "no YAML front matter: the file must start with a '---' line and the manifest must end "
                        "with another '---' line",
                    )
                ],
            )
        issues = _from_yaml(doc, split[0], split[1], limits)
    if any(issue.kind in (IssueKind.SYNTAX, IssueKind.LIMIT) for issue in issues) and fmt is not Format.JSONL:
        return LoadResult(None, issues)
    return LoadResult(doc, issues)


def load_file(
    path: str, kind: str, fmt: Format, limits: Limits | None = None, display_path: str | None = None
) -> LoadResult:
    """Read, decode and parse one file, within the size limit."""
    limits = limits or Limits()
    shown = display_path or path
    try:
        raw = read_regular(path, limits.max_bytes)
    except NotRegularFile:  # a FIFO would block the read forever; a device never ends
        return LoadResult(
            None, [LoadIssue(IssueKind.UNREADABLE, "it is not a regular file (a named pipe, a device or a folder)")]
        )
    except FileTooLarge as exc:
        return LoadResult(
            None,
            [
                LoadIssue(
                    IssueKind.TOO_LARGE,
                    f"the file is {exc.size:,} bytes, more than the limit of {limits.max_bytes:,}; "
                    "raise `max-file-size` in the configuration if this is expected",
                )
            ],
        )
    except (OSError, ValueError) as exc:
        reason = getattr(exc, "strerror", None) or exc
        return LoadResult(None, [LoadIssue(IssueKind.UNREADABLE, f"cannot read the file: {reason}")])
    text, issue = decode(raw)
    if text is None:
        assert issue is not None
        return LoadResult(None, [issue])
    result = parse_text(shown, kind, fmt, text, limits)
    if result.document is not None:
        result.document.fs_path = path
    return result
