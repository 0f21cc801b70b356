"""How full the context window is, read from the end of a Claude Code transcript.

Claude Code gives most hooks no context figures (SessionStart ``resume`` is the exception: its
``context_tokens``, read by :func:`payload_fill`), but every model reply in the session transcript
(a JSON Lines file that only grows) records its usage:
``message.usage.input_tokens + cache_creation_input_tokens + cache_read_input_tokens +
output_tokens`` is the size of the context after that reply, the ``T`` the client itself counts.
The newest such figure of the main conversation gives the fill (``ctxres.tiers.fill_of``: the
client's ``N% context used``); a compaction recorded after it
(``{"type": "system", "subtype": "compact_boundary"}``) means the figure no longer holds, and then
only the boundary's ``compactMetadata.postTokens`` (when present) tells the new size.

The file is read backwards from its end in blocks, newest line first, and reading stops at
the first line that settles the question or after ``max_scan_bytes``: the cost is the same for
a 1 MB and a 1 GB transcript. Lines longer than ``max_line_bytes`` are skipped without being
kept in memory or parsed. No problem with the file (missing, unreadable, truncated last line,
binary junk, invalid UTF-8) raises: the reading says "unknown" and why.

Standard library only (``json``, ``os``; ``ctxres.filereading``): the UserPromptSubmit and PreCompact hooks
import this module on every prompt.
"""

from __future__ import annotations

import json
import os

from ctxres.filereading import open_regular
from ctxres.tiers import fill_of

# A hook loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any, BinaryIO

DEFAULT_WINDOW = 200_000
"""Context window of a model without the extended context, in tokens."""
EXTENDED_WINDOW = 1_000_000
"""Context window of the 1M variants (model ids ending in ``[1m]``, such as ``opus[1m]``)."""
EXTENDED_HINT = "[1m]"
"""The suffix Claude Code uses for the 1M-context variant of a model (``/model opus[1m]``)."""

MAX_SCAN_BYTES = 8 * 1024 * 1024
"""Bytes read from the end of the transcript before giving up on finding a figure."""
MAX_LINE_BYTES = 2 * 1024 * 1024
"""Longer lines are skipped unread (a model reply line is far smaller; huge lines are tool output)."""
BLOCK_BYTES = 64 * 1024
"""Size of one backwards read."""

SOURCE_TRANSCRIPT = "transcript"
SOURCE_COMPACT_BOUNDARY = "compact_boundary"
SOURCE_UNKNOWN = "unknown"
SOURCE_CLIENT = "client"
"""The figure came from the hook's payload (SessionStart ``resume``: ``context_tokens``)."""

_INPUT_FIELDS = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
_USAGE_KEY = b'"usage"'
_BOUNDARY_TAG = b"compact_boundary"
_ATTACHMENT_KEY = b'"attachment"'
_HOOK_KINDS = (b'"hook_additional_context"', b'"hook_success"')


class FillReading:
    """One estimate of the context fill, and where it came from.

    ``tokens``: tokens in the context (``T``), None when unknown. ``window``: the context window
    used. ``fill``: ``ctxres.tiers.fill_of(tokens, window)`` (the client's ``N% context used`` as a
    fraction), None when unknown. ``source``: ``"transcript"`` (usage of the newest model reply),
    ``"compact_boundary"`` (the count a compaction recorded), ``"client"`` (a figure of the hook's
    payload) or ``"unknown"``. ``reason``: one sentence saying where the figure comes from or why
    there is none. ``trouble``: True when the figure is unknown because of a problem worth
    reporting (the transcript cannot be read, the scan budget ran out), False in the normal cases
    (no transcript yet, no reply yet, a compaction not measured yet). ``model``: the model of the
    newest model reply read, if any. ``message_id``: the ``message.id`` the figure comes from.
    ``transcript_size``: byte size of the transcript when it was read (0 when it could not be).
    ``bytes_scanned``: bytes actually read.
    ``window_source``: ``"config"``, ``"model"`` (a ``[1m]`` model id), ``"usage"`` (more tokens
    than the default window can hold, so the window must be the 1M one) or ``"default"``.
    """

    __slots__ = (
        "bytes_scanned",
        "fill",
        "message_id",
        "model",
        "reason",
        "source",
        "tokens",
        "transcript_size",
        "trouble",
        "window",
        "window_source",
    )

    def __init__(
        self,
        *,
        tokens: int | None,
        window: int,
        fill: float | None,
        source: str,
        reason: str,
        model: str | None = None,
        message_id: str | None = None,
        transcript_size: int = 0,
        bytes_scanned: int = 0,
        window_source: str = "default",
        trouble: bool = False,
    ) -> None:
        self.tokens = tokens
        self.window = window
        self.fill = fill
        self.source = source
        self.reason = reason
        self.model = model
        self.message_id = message_id
        self.transcript_size = transcript_size
        self.bytes_scanned = bytes_scanned
        self.window_source = window_source
        self.trouble = trouble

    def _fields(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, FillReading):
            return NotImplemented
        return self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"FillReading({inner})"


# --------------------------------------------------------------------------- reading the tail


class _Tail:
    """Lines of a file, newest first, read backwards in blocks within a byte budget.

    With ``tags``, only the lines that contain one of them are produced, and a block is split
    into lines only around the places where a tag occurs: skipping megabytes of unrelated lines
    costs a few substring searches per block. Lines longer than ``max_line`` are dropped (and
    counted in ``skipped``) without being kept in memory.
    """

    def __init__(
        self,
        handle: BinaryIO,
        size: int,
        *,
        budget: int,
        max_line: int,
        tags: tuple[bytes, ...] = (),
        block: int = BLOCK_BYTES,
    ) -> None:
        self.handle = handle
        self.size = size
        self.budget = budget
        self.max_line = max_line
        self.tags = tags
        self.block = block
        self.scanned = 0
        self.skipped = 0  # lines longer than max_line, dropped unread
        self.exhausted = False  # the budget ran out before the start of the file
        self._pieces: list[bytes] = []  # the line being assembled across blocks, newest piece first
        self._length = 0
        self._skipping = False  # that line is already too long: its bytes are dropped

    def _read(self, start: int, count: int) -> bytes:
        self.handle.seek(start)
        data = self.handle.read(count)
        self.scanned += len(data)
        if len(data) != count:  # the file shrank under us: treat what is left as unreadable
            raise OSError("the transcript changed while it was being read")
        return data

    def _carry(self, chunk: bytes) -> None:
        """Put ``chunk`` in front of the line being assembled (or drop it: too long)."""
        if self._skipping or not chunk:
            return
        self._length += len(chunk)
        if self._length > self.max_line:
            self._pieces, self._skipping = [], True
        else:
            self._pieces.append(chunk)

    def _complete(self, head: bytes) -> bytes | None:
        """The line made of ``head`` and the assembled pieces when it is wanted; starts a new line."""
        pieces, length, skipping = self._pieces, self._length + len(head), self._skipping
        self._pieces, self._length, self._skipping = [], 0, False
        if skipping or length > self.max_line:
            self.skipped += 1
            return None
        pieces.append(head)
        pieces.reverse()
        line = b"".join(pieces)
        return line if line and self._wanted(line) else None

    def _wanted(self, line: bytes) -> bool:
        return not self.tags or any(tag in line for tag in self.tags)

    def _sized(self, line: bytes) -> bool:
        if len(line) > self.max_line:
            self.skipped += 1
            return False
        return bool(line)

    def _inner(self, data: bytes, first: int, last: int) -> Iterator[bytes]:
        """The wanted lines between the newlines at ``first`` and ``last`` of ``data``, newest first."""
        end = last
        while end > first:
            if self.tags:
                hit = max(data.rfind(tag, first + 1, end) for tag in self.tags)
                if hit < 0:
                    return
                newline = data.rfind(b"\n", first, hit)
                stop = data.find(b"\n", hit, end)
                line = data[newline + 1 : end if stop < 0 else stop]
            else:
                newline = data.rfind(b"\n", first, end)
                line = data[newline + 1 : end]
            if self._sized(line):
                yield line
            end = newline

    def lines(self) -> Iterator[bytes]:
        pos = self.size
        while pos > 0:
            count = min(self.block, pos, self.budget - self.scanned)
            if count <= 0:
                self.exhausted = True
                return
            pos -= count
            data = self._read(pos, count)
            last = data.rfind(b"\n")
            if last < 0:
                self._carry(data)
                continue
            line = self._complete(data[last + 1 :])
            if line is not None:
                yield line
            first = data.find(b"\n", 0, last + 1)
            yield from self._inner(data, first, last)
            self._carry(data[:first])
        line = self._complete(b"")
        if line is not None:
            yield line


def _open_regular(path: str | os.PathLike[str]) -> tuple[BinaryIO, int]:
    """The file opened for binary reading and its size; OSError when it is not a regular file
    (``ctxres.filereading.open_regular``: a named pipe or a device is never read)."""
    fd = open_regular(path)
    try:
        size = os.fstat(fd).st_size
        handle: BinaryIO = os.fdopen(fd, "rb", buffering=0)
    except BaseException:
        os.close(fd)
        raise
    return handle, size


def read_backwards(
    path: str | os.PathLike[str],
    *,
    budget: int = MAX_SCAN_BYTES,
    max_line: int = MAX_LINE_BYTES,
    tags: tuple[bytes, ...] = (),
    block: int = BLOCK_BYTES,
) -> Iterator[bytes]:
    """The complete lines of the last ``budget`` bytes of a file, newest first, read backwards in
    blocks (a caller that stops early reads little). With ``tags``, only the lines that contain one
    of them. A line cut at the budget's edge, and a line longer than ``max_line``, are dropped.
    OSError (ValueError: a NUL in the name) when the file cannot be read or is not a regular file."""
    handle, size = _open_regular(path)
    with handle:
        yield from _Tail(handle, size, budget=budget, max_line=max_line, tags=tags, block=block).lines()


def _parse(line: bytes) -> dict[str, Any] | None:
    """The JSON object on ``line``, or None (invalid UTF-8 is replaced, not fatal)."""
    try:
        value = json.loads(line.decode("utf-8", "replace"))
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _count(value: object) -> int | None:
    """A token count: a non-negative int (bool excluded), else None."""
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    return None


def _main_chain(entry: dict[str, Any]) -> bool:
    return entry.get("isSidechain") is not True


def boundary_meta(entry: dict[str, Any]) -> dict[str, Any] | None:
    """The metadata of a main-chain compaction boundary (``{}`` when it has none), else None."""
    if entry.get("type") != "system" or entry.get("subtype") != "compact_boundary" or not _main_chain(entry):
        return None
    meta = entry.get("compactMetadata", entry.get("compact_metadata"))
    return meta if isinstance(meta, dict) else {}


def _reply(entry: dict[str, Any]) -> dict[str, Any] | None:
    """The ``message`` of a main-chain model reply, else None."""
    if entry.get("type") != "assistant" or not _main_chain(entry):
        return None
    message = entry.get("message")
    return message if isinstance(message, dict) else None


def reply_tokens(entry: dict[str, Any]) -> int | None:
    """``T`` of a main-chain model reply entry (:func:`context_tokens` of its message), else None."""
    message = _reply(entry)
    return context_tokens(message) if message is not None else None


def _real_model(message: dict[str, Any]) -> str | None:
    """The model id, unless absent or a placeholder such as ``<synthetic>``."""
    model = message.get("model")
    return model if isinstance(model, str) and model and not model.startswith("<") else None


def context_tokens(message: dict[str, Any]) -> int | None:
    """``T`` of a reply: input + cache creation + cache read + output tokens, as the client counts
    them; None when it carries no real figure.

    Error replies (``isApiErrorMessage``) and placeholders written without a request (model
    ``<synthetic>``) carry no input figures; a real request always has at least one input token.
    """
    usage = message.get("usage")
    if not isinstance(usage, dict):
        return None
    sent = sum(_count(usage.get(name)) or 0 for name in _INPUT_FIELDS)
    if sent == 0:
        return None
    return sent + (_count(usage.get("output_tokens")) or 0)


# --------------------------------------------------------------------------- the window


def context_window(
    *, window: int | None = None, model: str | None = None, tokens: int | None = None
) -> tuple[int, str]:
    """The context window and why: configured, a ``[1m]`` model id, inferred from usage, default.

    More than :data:`DEFAULT_WINDOW` tokens in use (``tokens``) is only possible on the 1M window.
    """
    if window is not None:
        if _count(window) is None or window == 0:
            raise ValueError(f"the context window must be a positive number of tokens, not {window!r}")
        return window, "config"
    if model and EXTENDED_HINT in model.lower():
        return EXTENDED_WINDOW, "model"
    if tokens is not None and tokens > DEFAULT_WINDOW:
        return EXTENDED_WINDOW, "usage"
    return DEFAULT_WINDOW, "default"


def _mib(size: int) -> str:
    """``size`` bytes for a person: 8 MiB, 64 KiB, 100 bytes."""
    for unit, scale in (("MiB", 1024 * 1024), ("KiB", 1024)):
        if size >= scale:
            return f"{size / scale:.3g} {unit}"
    return f"{size} bytes"


# --------------------------------------------------------------------------- read_fill


class _Found:
    """What the backwards scan settled on (all None: nothing found)."""

    __slots__ = ("boundary", "message_id", "model", "tokens")

    def __init__(self) -> None:
        self.tokens: int | None = None
        self.message_id: str | None = None
        self.model: str | None = None
        self.boundary: dict[str, Any] | None = None


def _scan_fill(tail: _Tail) -> _Found:
    """The newest main-chain usage, or the newest compaction boundary if that comes first.

    Several lines of one reply share ``message.id``; the newest stands for the reply (its
    ``output_tokens`` are the final ones, as in the client's own count)."""
    found = _Found()
    for line in tail.lines():
        has_usage = _USAGE_KEY in line
        if not has_usage and _BOUNDARY_TAG not in line:
            continue
        entry = _parse(line)
        if entry is None:
            continue
        boundary = boundary_meta(entry)
        if boundary is not None:
            found.boundary = boundary
            return found
        message = _reply(entry) if has_usage else None
        if message is None:
            continue
        if found.model is None:
            found.model = _real_model(message)
        tokens = context_tokens(message)
        if tokens is not None:
            found.tokens = tokens
            message_id = message.get("id")
            found.message_id = message_id if isinstance(message_id, str) else None
            return found
    return found


def _explain(found: _Found, tail: _Tail, compacted: bool) -> tuple[int | None, str, str, int | None]:
    """(tokens, source, reason, tokens that hint at the window) for what the scan found."""
    if found.tokens is not None and compacted:
        reason = (
            "the compaction that just happened is not in the transcript yet (the client writes it after "
            "the hooks run); the next reply will tell"
        )
        return None, SOURCE_UNKNOWN, reason, found.tokens
    if found.tokens is not None:
        what = f"reply {found.message_id}" if found.message_id else "reply"
        reason = f"token usage of the newest model {what} in the transcript"
        return found.tokens, SOURCE_TRANSCRIPT, reason, found.tokens
    if found.boundary is not None:
        post = _count(found.boundary.get("postTokens"))
        pre = _count(found.boundary.get("preTokens"))
        if post is not None:
            reason = "token count recorded by the newest compaction (no model reply since)"
            return post, SOURCE_COMPACT_BOUNDARY, reason, max(post, pre or 0)
        reason = (
            "a compaction happened after the newest model reply and did not record the new token count; "
            "the next reply will tell"
        )
        return None, SOURCE_UNKNOWN, reason, pre
    if tail.exhausted:
        reason = (
            f"no model reply with token usage in the last {_mib(tail.budget)} of the transcript "
            "(reading stops there so that the cost does not grow with the file)"
        )
        return None, SOURCE_UNKNOWN, reason, None
    return None, SOURCE_UNKNOWN, "no model reply with token usage in the transcript yet", None


def _unknown(
    reason: str, window: int | None, model: str | None, size: int = 0, scanned: int = 0, *, trouble: bool = False
) -> FillReading:
    size_window, window_source = context_window(window=window, model=model)
    return FillReading(
        tokens=None,
        window=size_window,
        fill=None,
        source=SOURCE_UNKNOWN,
        reason=reason,
        transcript_size=size,
        bytes_scanned=scanned,
        window_source=window_source,
        trouble=trouble,
    )


def _open_failure(path: str | os.PathLike[str], exc: OSError | ValueError) -> str:
    if isinstance(exc, FileNotFoundError):
        return f"transcript {os.fspath(path)} does not exist (yet)"
    detail = (exc.strerror if isinstance(exc, OSError) else None) or str(exc)
    return f"cannot read transcript {os.fspath(path)}: {detail}"


def read_fill(
    path: str | os.PathLike[str] | None,
    *,
    window: int | None = None,
    model: str | None = None,
    max_scan_bytes: int = MAX_SCAN_BYTES,
    max_line_bytes: int = MAX_LINE_BYTES,
    compacted: bool = False,
) -> FillReading:
    """The context fill of the session whose transcript is ``path``; never raises on file problems.

    ``window``: the context window from the configuration (wins over everything). ``model``: a
    model id known to the caller (for example SessionStart's ``model``); a ``[1m]`` in it or in
    the transcript's model selects the 1M window. ``compacted``: the caller knows a compaction has
    just happened (SessionStart ``compact``), so a reply newer than every compaction boundary
    predates it (the client had not written the boundary yet) and says nothing about the context
    now. ``ValueError`` only for a non-positive ``window``.
    """
    if window is not None:
        context_window(window=window)  # validate before any I/O
    if not path:
        return _unknown("no transcript path was given", window, model)
    try:
        handle, size = _open_regular(path)
    except (OSError, ValueError) as exc:  # ValueError: a NUL byte in the path
        # A missing transcript is normal: the client creates it after a new session's first prompt.
        return _unknown(_open_failure(path, exc), window, model, trouble=not isinstance(exc, FileNotFoundError))
    with handle:
        if size == 0:
            return _unknown("the transcript is empty", window, model)
        tail = _Tail(handle, size, budget=max_scan_bytes, max_line=max_line_bytes, tags=(_USAGE_KEY, _BOUNDARY_TAG))
        try:
            found = _scan_fill(tail)
        except OSError as exc:
            return _unknown(_open_failure(path, exc), window, model, size, tail.scanned, trouble=True)
    tokens, source, reason, window_hint = _explain(found, tail, compacted)
    if tail.skipped:
        reason += f"; {tail.skipped} line(s) over {_mib(max_line_bytes)} skipped unread"
    hint = model if model and EXTENDED_HINT in model.lower() else found.model
    size_window, window_source = context_window(window=window, model=hint, tokens=window_hint)
    fill = None
    if tokens is not None:
        fill = fill_of(tokens, size_window)
        if tokens > size_window:
            reason += f"; {tokens:,} tokens exceed the {size_window:,}-token window, so the fill is capped at 100%"
    return FillReading(
        tokens=tokens,
        window=size_window,
        fill=fill,
        source=source,
        reason=reason,
        model=found.model,
        message_id=found.message_id if source == SOURCE_TRANSCRIPT else None,
        transcript_size=size,
        bytes_scanned=tail.scanned,
        window_source=window_source,
        trouble=tokens is None and tail.exhausted,
    )


def payload_fill(payload: dict[str, Any], *, window: int | None = None) -> FillReading | None:
    """The fill from the figures the client put in a hook's payload, None when there are none.

    SessionStart ``resume`` carries ``context_tokens`` (the same ``T`` as a reply's usage), and
    SessionStart payloads may carry ``model`` (a ``[1m]`` id selects the 1M window). A figure
    sent by the client wins over the transcript, which may lag the conversation.
    """
    tokens = _count(payload.get("context_tokens"))
    if tokens is None:
        return None
    model = payload.get("model")
    model = model if isinstance(model, str) and model else None
    size_window, window_source = context_window(window=window, model=model, tokens=tokens)
    return FillReading(
        tokens=tokens,
        window=size_window,
        fill=fill_of(tokens, size_window),
        source=SOURCE_CLIENT,
        reason="context_tokens sent by Claude Code in the hook's payload",
        model=model,
        window_source=window_source,
    )


# --------------------------------------------------------------------------- compaction alert delivery


def _hook_texts(entry: dict[str, Any]) -> list[str]:
    """Text a hook put into the conversation, from a main-chain attachment line."""
    attachment = entry.get("attachment")
    if entry.get("type") != "attachment" or not isinstance(attachment, dict) or not _main_chain(entry):
        return []
    kind = attachment.get("type")
    if kind == "hook_additional_context":
        content = attachment.get("content")
        items = content if isinstance(content, list) else [content]
        return [item for item in items if isinstance(item, str)]
    if kind == "hook_success":
        stdout = attachment.get("stdout")
        return [stdout] if isinstance(stdout, str) else []
    return []


def _marker_tags(marker: str) -> tuple[bytes, ...]:
    """Byte strings one of which every line carrying ``marker`` in a hook attachment contains.

    No JSON writer escapes ASCII letters, digits, spaces or ``-_.:``, so the longest run of
    those characters in the marker (``compaction-alert`` in ``<compaction-alert>``) appears
    verbatim in such a line, and only the lines containing it need parsing. A marker without
    such a run of at least 4 characters falls back to the attachment types.
    """
    longest = run = ""
    for char in marker:
        run = run + char if char.isascii() and (char.isalnum() or char in " -_.:") else ""
        longest = max(longest, run, key=len)
    return (longest.encode("ascii"),) if len(longest) >= 4 else _HOOK_KINDS


def _scan_delivery(tail: _Tail, marker: str) -> bool | None:
    delivered = False
    for line in tail.lines():
        is_attachment = not delivered and _ATTACHMENT_KEY in line
        if not is_attachment and _BOUNDARY_TAG not in line:
            continue
        entry = _parse(line)
        if entry is None:
            continue
        if boundary_meta(entry) is not None:
            return delivered
        if is_attachment and any(marker in text for text in _hook_texts(entry)):
            delivered = True
    return None


def compaction_alert_delivered(
    path: str | os.PathLike[str] | None,
    marker: str,
    *,
    max_scan_bytes: int = MAX_SCAN_BYTES,
    max_line_bytes: int = MAX_LINE_BYTES,
) -> bool | None:
    """Whether a hook's text containing ``marker`` reached the model after the newest compaction.

    Looks, newest line first, for a ``hook_additional_context`` attachment (or the ``stdout`` of a
    ``hook_success`` attachment) containing ``marker`` recorded after the newest main-chain
    ``compact_boundary``. True/False once that boundary is found; None when there is none in
    the scanned tail, or the transcript cannot be read. Never raises on file problems.
    """
    if not path or not marker:
        return None
    try:
        handle, size = _open_regular(path)
    except (OSError, ValueError):
        return None
    with handle:
        tags = (*_marker_tags(marker), _BOUNDARY_TAG)
        tail = _Tail(handle, size, budget=max_scan_bytes, max_line=max_line_bytes, tags=tags)
        try:
            return _scan_delivery(tail, marker)
        except OSError:
            return None
