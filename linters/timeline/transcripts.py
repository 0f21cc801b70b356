"""One session's transcript, read in one streaming pass: its turns, compactions, what SessionStart told the
model, and the versions of the workflow files its tool calls saw.

Speed and memory: the file is read in binary one line at a time and no line is kept. A line is parsed only
when its bytes say it can matter (a model reply, a ``compact_boundary``, a SessionStart hook's output, a
tool result naming a workflow file); the others are only recognised by their entry type's tag. A line
longer than :data:`MAX_LINE_BYTES` is skipped unparsed, and read past in blocks.

Nothing in a transcript is fatal: what could not be used is counted in ``skipped`` (once per reason).
"""

from __future__ import annotations

import datetime as dt
import json
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from ctxres.linters.timeline.model import Compaction, FileVersion, Resumed, Skipped, Trigger, Turn
from ctxres.linters.timeline.sessions import TIMESTAMP_FIELD, field_time, first_time
from ctxres.linters.timeline.workflow_history import told_phase
from ctxres.tiers import DEFAULT_THRESHOLDS, fill_of, tier_for
from ctxres.timestamps import parse_datetime
from ctxres.transcript import boundary_meta, context_tokens, context_window

MAX_LINE_BYTES = 16 * 1024 * 1024
"""A longer line is skipped unparsed (a tool result of a huge file): memory stays flat."""
TAIL_BYTES = 64 * 1024
"""How much of the file's end is read to find its last timestamp."""

# Entry types the client (2.1.328 and earlier) writes. Any other is counted, never an error.
KNOWN_TYPES = (
    "user",
    "assistant",
    "attachment",
    "api-request-blob",
    "api-request",
    "queue-operation",
    "last-prompt",
    "atis-latch",
    "cost-state",
    "mode",
    "tools-used",
    "api-request-shape",
    "system",
    "summary",
    "file-history-snapshot",
    "progress",
    "custom-title",
    "agent-name",
    "tag",
    "pr-link",
)
_KNOWN_TAGS = tuple(f'"type":"{name}"'.encode() for name in KNOWN_TYPES)
_ASSISTANT = b'"type":"assistant"'
_BOUNDARY = b"compact_boundary"
_SESSION_START = b"SessionStart"
_TOOL_RESULT = b'"toolUseResult"'

UNKNOWN_TYPES = "unknown entry types (another client version?)"
INVALID = "lines that are not JSON objects"
TRUNCATED = "a truncated last line"
TOO_LONG = f"lines over {MAX_LINE_BYTES // (1024 * 1024)} MiB, skipped unparsed"
NO_USAGE = "model replies without usage figures"
EMPTY = "an empty transcript"


class TranscriptError(ValueError):
    """The transcript cannot be read at all (missing, a folder, unreadable); the message is one line."""


@dataclass(slots=True)
class SessionRecord:
    """What one transcript says: its turns (numbered from 1), compactions, what SessionStart told the model
    (``resumptions``: ``file_phase``/``matches`` left None for the caller), the workflow files' versions its
    tool calls saw, and what was skipped. ``how``: the first SessionStart source (``startup``, ``resume``,
    ``compact``, ``unknown``)."""

    session_id: str
    path: Path
    first_time: dt.datetime | None = None
    last_time: dt.datetime | None = None
    how: str = "unknown"
    turns: list[Turn] = field(default_factory=list)
    compactions: list[Compaction] = field(default_factory=list)
    resumptions: list[Resumed] = field(default_factory=list)
    versions: list[FileVersion] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)


def told_checkpoint(text: str) -> str | None:
    """The first checkpoint id (``cx-`` and digits, a word of its own) a SessionStart text named, else None."""
    start = text.find("cx-")
    while start != -1:
        end = start + 3
        while end < len(text) and text[end].isdigit():
            end += 1
        if end > start + 3 and not text[start - 1 : start].isalnum() and not text[end : end + 1].isalnum():
            return text[start:end]
        start = text.find("cx-", start + 3)
    return None


def _trigger(value: object) -> Trigger:
    return value if value in ("manual", "auto") else "unknown"


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _loads(line: bytes) -> dict[str, Any] | None:
    try:
        value = json.loads(line)
    except UnicodeDecodeError:
        try:
            value = json.loads(line.decode("utf-8", "replace"))
        except (ValueError, RecursionError):
            return None
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _session_start_texts(attachment: dict[str, Any]) -> list[str]:
    """The text a SessionStart hook gave the model, from an attachment: ``hook_additional_context``'s
    content, or the ``additionalContext`` of a ``hook_success``'s JSON stdout."""
    kind = attachment.get("type")
    if kind == "hook_additional_context":
        content = attachment.get("content")
        items = content if isinstance(content, list) else [content]
        return [item for item in items if isinstance(item, str) and item]
    if kind == "hook_success" and isinstance(attachment.get("stdout"), str):
        try:
            output = json.loads(attachment["stdout"])
        except (ValueError, RecursionError):
            return []
        specific = output.get("hookSpecificOutput") if isinstance(output, dict) else None
        context = specific.get("additionalContext") if isinstance(specific, dict) else None
        return [context] if isinstance(context, str) and context else []
    return []


def _edited_text(result: dict[str, Any]) -> str | None:
    """The file's text after an Edit, MultiEdit or Write, from its ``toolUseResult``; None when it cannot
    be told (no original file recorded)."""
    if result.get("type") in ("create", "update") and isinstance(result.get("content"), str):
        return str(result["content"])
    original = result.get("originalFile")
    if not isinstance(original, str):
        return None
    edits = result.get("edits")
    if not isinstance(edits, list):
        edits = [result]
    text = original
    for edit in edits:
        if not isinstance(edit, dict):
            return None
        old, new = edit.get("oldString", edit.get("old_string")), edit.get("newString", edit.get("new_string"))
        if not isinstance(old, str) or not isinstance(new, str) or (old and old not in text):
            return None
        every = edit.get("replaceAll", edit.get("replace_all")) is True
        text = text.replace(old, new) if every else text.replace(old, new, 1)
    return text


def _read_text(result: dict[str, Any]) -> tuple[str, str] | None:
    """(path, text) of a Read that returned a whole text file, else None (a part of a file is no version)."""
    file = result.get("file")
    if result.get("type") != "text" or not isinstance(file, dict):
        return None
    path, content = file.get("filePath"), file.get("content")
    if not isinstance(path, str) or not isinstance(content, str):
        return None
    start, lines, total = file.get("startLine"), file.get("numLines"), file.get("totalLines")
    if start not in (None, 1) or (total is not None and lines != total):
        return None
    return path, content


class _Reader:
    """The state of one pass; :meth:`line` takes the lines in order."""

    def __init__(
        self,
        path: Path,
        wanted: Callable[[str], bool],
        hints: tuple[bytes, ...] | None,
        thresholds: tuple[float, float, float],
    ) -> None:
        self.record = SessionRecord(session_id=path.stem, path=path)
        self.wanted = wanted
        self.hints = hints
        self.thresholds = thresholds
        self.turn_of: dict[str, int] = {}
        self.counts: Counter[str] = Counter()
        self.unknown: Counter[str] = Counter()
        self.source = "unknown"
        self.duplicate: str | None = None
        self.session_seen = False

    def line(self, line: bytes) -> None:
        # The key ``"toolUseResult"`` (quotes unescaped: not inside a string) is only on a tool result's line,
        # the biggest lines: tested first, such a line is scanned twice at most, never for the other tags.
        if _TOOL_RESULT in line:
            if self.hints is None or any(hint in line for hint in self.hints):
                self._parsed(line)
        elif _ASSISTANT in line or _BOUNDARY in line or _SESSION_START in line:
            self._parsed(line)
        elif not any(tag in line for tag in _KNOWN_TAGS) and line.strip():
            entry = _loads(line)
            if entry is None:
                self.counts[INVALID] += 1
            else:
                self.unknown[str(entry.get("type"))] += 1

    def _parsed(self, line: bytes) -> None:
        entry = _loads(line)
        if entry is None:
            self.counts[INVALID] += 1
            return
        if not self.session_seen and isinstance(entry.get("sessionId"), str):
            self.record.session_id = entry["sessionId"]
            self.session_seen = True
        if entry.get("isSidechain") is True:
            return
        kind = entry.get("type")
        if kind == "assistant":
            self._reply(entry)
        elif kind == "system" and (meta := boundary_meta(entry)) is not None:
            self._boundary(entry, meta)
        elif kind == "attachment" and isinstance(entry.get("attachment"), dict):
            self._attachment(entry, entry["attachment"])
        elif kind == "user" and isinstance(entry.get("toolUseResult"), dict):
            self._tool_result(entry, entry["toolUseResult"])

    def _reply(self, entry: dict[str, Any]) -> None:
        message = entry.get("message")
        if not isinstance(message, dict) or entry.get("isApiErrorMessage") is True:
            return
        model = message.get("model")
        if isinstance(model, str) and model.startswith("<"):
            return  # <synthetic>: written without a request
        tokens = context_tokens(message)
        ident = message.get("id")
        key = ident if isinstance(ident, str) else f"line-{len(self.turn_of)}"
        if tokens is None:
            if key not in self.turn_of:
                self.counts[NO_USAGE] += 1
            return
        window, _ = context_window(model=model if isinstance(model, str) else None, tokens=tokens)
        fill = fill_of(tokens, window)
        turns = self.record.turns
        index = self.turn_of.get(key)
        number = len(turns) + 1 if index is None else turns[index].number
        turn = Turn(
            number=number,
            time=parse_datetime(entry.get("timestamp")),
            session_id=self.record.session_id,
            tokens=tokens,
            window=window,
            fill=fill,
            tier=str(tier_for(fill, self.thresholds)),
        )
        if index is None:
            self.turn_of[key] = len(turns)
            turns.append(turn)
        else:
            turns[index] = turn

    @property
    def turn(self) -> int:
        return len(self.record.turns)

    def _boundary(self, entry: dict[str, Any], meta: dict[str, Any]) -> None:
        self.record.compactions.append(
            Compaction(
                turn=self.turn,
                time=parse_datetime(entry.get("timestamp")),
                session_id=self.record.session_id,
                trigger=_trigger(meta.get("trigger")),
                pre_tokens=_int(meta.get("preTokens", meta.get("pre_tokens"))),
                post_tokens=_int(meta.get("postTokens", meta.get("post_tokens"))),
                duration_ms=_int(meta.get("durationMs", meta.get("duration_ms"))),
            )
        )

    def _attachment(self, entry: dict[str, Any], attachment: dict[str, Any]) -> None:
        name = attachment.get("hookName")
        if attachment.get("hookEvent") != "SessionStart" and not (
            isinstance(name, str) and name.startswith("SessionStart")
        ):
            return
        if isinstance(name, str) and name.startswith("SessionStart:"):
            self.source = name.split(":", 1)[1] or "unknown"
            if self.record.how == "unknown":
                self.record.how = self.source
        for text in _session_start_texts(attachment):
            if attachment.get("type") == "hook_additional_context" and text == self.duplicate:
                self.duplicate = None  # the same text the hook_success line carried
                continue
            self.duplicate = text if attachment.get("type") == "hook_success" else None
            self.record.resumptions.append(
                Resumed(
                    turn=self.turn,
                    time=parse_datetime(entry.get("timestamp")),
                    session_id=self.record.session_id,
                    source=self.source,
                    told_phase=told_phase(text),
                    file_phase=None,
                    matches=None,
                    checkpoint=told_checkpoint(text),
                )
            )

    def _tool_result(self, entry: dict[str, Any], result: dict[str, Any]) -> None:
        time = parse_datetime(entry.get("timestamp"))
        read = _read_text(result)
        if read is not None:
            if self.wanted(read[0]):
                self._version(read[0], time, read[1], "read")
            return
        path = result.get("filePath")
        if not isinstance(path, str) or not self.wanted(path):
            return
        text = _edited_text(result)
        if text is not None:
            self._version(path, time, text, "edit")

    def _version(self, path: str, time: dt.datetime | None, text: str, source: str) -> None:
        self.record.versions.append(
            FileVersion(path=path, time=time, turn=self.turn, text=text, source=source)  # type: ignore[arg-type]
        )

    def finish(self, last: bytes, size: int) -> None:
        if last and not last.endswith(b"\n") and _loads(last) is None:
            self.counts[TRUNCATED] += 1
            if self.counts[INVALID]:
                self.counts[INVALID] -= 1  # the same line, if it was parsed
        if size == 0:
            self.counts[EMPTY] += 1
        source = str(self.record.path)
        skipped = [Skipped(source=source, reason=reason, count=count) for reason, count in self.counts.items() if count]
        if self.unknown:
            names = ", ".join(sorted(self.unknown))
            skipped.append(Skipped(source=source, reason=f"{UNKNOWN_TYPES}: {names}", count=sum(self.unknown.values())))
        self.record.skipped = skipped


def _lines(handle: BinaryIO, on_too_long: Callable[[], None]) -> Iterable[bytes]:
    """The lines of ``handle``; a line over :data:`MAX_LINE_BYTES` is read past in blocks, never kept."""
    readline = handle.readline
    while True:
        line = readline(MAX_LINE_BYTES)
        if not line:
            return
        if len(line) == MAX_LINE_BYTES and not line.endswith(b"\n"):
            on_too_long()
            while line and not line.endswith(b"\n"):
                line = readline(MAX_LINE_BYTES)
            continue
        yield line


def _last_time(handle: BinaryIO, size: int) -> dt.datetime | None:
    handle.seek(max(0, size - TAIL_BYTES))
    tail = handle.read(TAIL_BYTES)
    for found in reversed(list(TIMESTAMP_FIELD.finditer(tail))):
        when = field_time(found)
        if when is not None:
            return when
    return None


def read_session(
    path: Path,
    wanted: Callable[[str], bool] = lambda _path: False,
    *,
    hints: Iterable[str] | None = None,
    thresholds: tuple[float, float, float] = DEFAULT_THRESHOLDS,
) -> SessionRecord:
    """Read the transcript at ``path`` in one pass.

    ``wanted(path)`` says which files' versions to keep (the workflow files). ``hints``: strings one of which
    a wanted file's path contains (e.g. its file names), used to skip parsing the other tool results; None
    parses every tool result. :class:`TranscriptError` when the file cannot be opened; anything inside it
    that cannot be used is counted in ``skipped``."""
    reader = _Reader(path, wanted, None if hints is None else tuple(h.encode() for h in hints), thresholds)
    counts = reader.counts
    last = b""
    try:
        with path.open("rb") as handle:
            for line in _lines(handle, lambda: counts.update((TOO_LONG,))):
                reader.line(line)
                last = line
            size = handle.tell()
            reader.record.last_time = _last_time(handle, size) if size else None
    except OSError as exc:
        raise TranscriptError(f"cannot read the transcript {path}: {exc.strerror or exc}") from None
    reader.record.first_time = first_time(path)
    reader.finish(last, size)
    return reader.record
