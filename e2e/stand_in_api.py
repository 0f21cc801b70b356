"""A stand-in for the Anthropic Messages API, so that the real Claude Code client runs offline.

Interface (also used to record the replay fixtures)::

    from e2e.stand_in_api import StandInAPI, Usage, text, tool_use, summary, prompt_too_long

    with StandInAPI([text("Done.", usage=Usage(input_tokens=130_000))], log_path=tmp / "requests.jsonl") as api:
        env["ANTHROPIC_BASE_URL"] = api.base_url       # http://127.0.0.1:<port chosen by the OS>
        ...run the client...
    api.conversation()          # the request bodies of the conversation, in order (see Request.kind)

- ``POST /v1/messages``: answered as server-sent events when the body says ``"stream": true``
  (``message_start``, ``content_block_start``/``delta``/``stop``, ``message_delta``, ``message_stop``),
  else as one JSON message.
- ``POST /v1/messages/count_tokens``: ``{"input_tokens": N}`` (a rough count of the body).
- Anything else: ``{}``.

Answers come from a script, a queue of :class:`Turn` (:func:`text`, :func:`tool_use`,
:func:`summary`, :func:`prompt_too_long`). Each request is classified (:func:`classify`):

- ``conversation``: a turn of the session; it takes the next scripted turn that is not a summary
  (a default short text when the script is exhausted or a summary is next);
- ``summary``: the client asking for a compaction summary; it takes the next scripted turn only
  when that turn is a :func:`summary` (else a default summary);
- ``side``: what the client asks besides the conversation (a session title, a quota probe, ...);
  a default short text, never a scripted turn.

Every request is logged (:attr:`StandInAPI.requests`, and one JSON line per request in ``log_path``).
The ``usage`` of an answer (input, cache creation, cache read, output tokens) is what the client
writes in its transcript, which is how a test sets the context fill the hooks read.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any

MODEL = "claude-sonnet-4-5-20250929"
DEFAULT_TEXT = "OK."
DEFAULT_SUMMARY = "The session worked on PROJ-001 FEAT-015; the workflow state is in ORCHESTRATION.yaml."
TOO_LONG_MESSAGE = "prompt is too long: 210000 tokens > 200000 maximum"

# The client's compaction request ends with a user message asking for a summary of the conversation.
_SUMMARY_MARKERS = (
    "create a detailed summary of the conversation",
    "summary of the conversation so far",
    "your task is to create a detailed summary",
)
# Requests besides the conversation: session titles, topic detection, quota probes.
_SIDE_MARKERS = ("title", "topic", "quota")


@dataclass(frozen=True)
class Usage:
    """Token figures of one answer, as the API reports them (``message.usage`` in the transcript)."""

    input_tokens: int = 1_000
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0
    output_tokens: int = 50

    @property
    def context_tokens(self) -> int:
        """What the client counts as the context in use after this answer (reference section D)."""
        return self.input_tokens + self.cache_creation_input_tokens + self.cache_read_input_tokens + self.output_tokens


@dataclass(frozen=True)
class Turn:
    """One scripted answer. ``kind``: ``text``, ``tool_use``, ``summary`` or ``too_long`` (HTTP 400)."""

    kind: str
    text: str = ""
    tool_name: str = ""
    tool_input: dict[str, Any] = field(default_factory=dict)
    usage: Usage = Usage()


def text(content: str, usage: Usage | None = None) -> Turn:
    """A plain text answer (the end of the model's turn)."""
    return Turn("text", text=content, usage=usage or Usage())


def tool_use(name: str, tool_input: dict[str, Any], usage: Usage | None = None, preface: str = "") -> Turn:
    """An answer that calls the tool ``name`` (``Edit``, ``Write``, ...) with ``tool_input``."""
    return Turn("tool_use", text=preface, tool_name=name, tool_input=dict(tool_input), usage=usage or Usage())


def summary(content: str = DEFAULT_SUMMARY, usage: Usage | None = None) -> Turn:
    """The answer to the client's compaction request (the client wants an ``<summary>`` block in it)."""
    answer = f"<analysis>\nScripted.\n</analysis>\n<summary>\n{content}\n</summary>"
    return Turn("summary", text=answer, usage=usage or Usage(input_tokens=5_000, output_tokens=400))


def prompt_too_long() -> Turn:
    """HTTP 400 ``prompt is too long``: the client compacts and retries (reactive compaction)."""
    return Turn("too_long")


@dataclass(frozen=True)
class Request:
    """One logged request: its path, its parsed body, how it was classified and what answered it."""

    index: int
    path: str
    kind: str
    body: dict[str, Any]
    answer: str
    headers: dict[str, str] = field(default_factory=dict)

    def text(self) -> str:
        """Every text of the request's messages (and system prompt), joined; for ``in`` assertions."""
        return "\n".join(texts_of(self.body))

    def last_user_text(self) -> str:
        """The texts of the last user message (the prompt turn, or the tool-result turn)."""
        messages = self.body.get("messages") or []
        for message in reversed(messages):
            if isinstance(message, dict) and message.get("role") == "user":
                return "\n".join(texts_in(message.get("content")))
        return ""


def texts_in(value: Any) -> Iterator[str]:
    """Every string under ``text`` / ``content`` keys of a message content (blocks, tool results)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from texts_in(item)
    elif isinstance(value, dict):
        if isinstance(value.get("text"), str):
            yield value["text"]
        if "content" in value:
            yield from texts_in(value["content"])


def texts_of(body: dict[str, Any], *, system: bool = False) -> list[str]:
    """The texts of a request body's messages (and of its system prompt when ``system``)."""
    found: list[str] = []
    if system:
        found += list(texts_in(body.get("system")))
    for message in body.get("messages") or []:
        if isinstance(message, dict):
            found += list(texts_in(message.get("content")))
    return found


def classify(body: dict[str, Any]) -> str:
    """``conversation``, ``summary`` or ``side`` for a ``/v1/messages`` body (see the module doc)."""
    users = [m for m in body.get("messages") or [] if isinstance(m, dict) and m.get("role") == "user"]
    last_text = "\n".join(texts_in(users[-1].get("content"))).lower() if users else ""
    if any(marker in last_text for marker in _SUMMARY_MARKERS):
        return "summary"
    if body.get("tools"):
        return "conversation"
    system = "\n".join(texts_in(body.get("system"))).lower()
    if any(marker in system for marker in _SIDE_MARKERS) or body.get("max_tokens", 2) <= 1:
        return "side"
    return "conversation"


class StandInAPI:
    """The stand-in server; a context manager that serves from a thread on 127.0.0.1 (OS-chosen port)."""

    def __init__(self, script: Iterable[Turn] = (), *, log_path: Path | None = None) -> None:
        self._script: deque[Turn] = deque(script)
        self._lock = threading.Lock()
        self._log_path = log_path
        self.requests: list[Request] = []
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------------ script

    def add(self, *turns: Turn) -> None:
        """Append turns to the script (between two client runs, for example)."""
        with self._lock:
            self._script.extend(turns)

    @property
    def pending(self) -> list[Turn]:
        """The scripted turns not answered yet."""
        with self._lock:
            return list(self._script)

    def _next_turn(self, kind: str) -> Turn:
        with self._lock:
            head = self._script[0] if self._script else None
            if kind == "summary":
                return self._script.popleft() if head is not None and head.kind == "summary" else summary()
            if kind == "conversation" and head is not None and head.kind != "summary":
                return self._script.popleft()
        return text(DEFAULT_TEXT, Usage(input_tokens=100, output_tokens=5))

    # ------------------------------------------------------------------ log

    def _log(self, path: str, kind: str, body: dict[str, Any], answer: str, headers: dict[str, str]) -> None:
        with self._lock:
            request = Request(len(self.requests), path, kind, body, answer, headers)
            self.requests.append(request)
            if self._log_path is not None:
                with self._log_path.open("a", encoding="utf-8") as handle:
                    handle.write(json.dumps(asdict(request), ensure_ascii=False) + "\n")

    def conversation(self) -> list[Request]:
        """The logged ``/v1/messages`` requests of the conversation (no summary, no side request)."""
        with self._lock:
            return [r for r in self.requests if r.kind == "conversation"]

    def of_kind(self, kind: str) -> list[Request]:
        with self._lock:
            return [r for r in self.requests if r.kind == kind]

    # ------------------------------------------------------------------ server

    @property
    def base_url(self) -> str:
        if self._server is None:
            raise RuntimeError("the stand-in API is not running (use it as a context manager)")
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def __enter__(self) -> StandInAPI:
        api = self

        class Handler(_Handler):
            owner = api

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="stand-in-api", daemon=True)
        self._thread.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server = None


class _Handler(BaseHTTPRequestHandler):
    owner: StandInAPI
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        """Silent: the request log is the record."""

    def _headers(self) -> dict[str, str]:
        """The request headers, without the credentials."""
        return {k.lower(): v for k, v in self.headers.items() if k.lower() not in ("x-api-key", "authorization")}

    def _body(self) -> dict[str, Any]:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            data = json.loads(raw or b"{}")
        except ValueError:
            return {"_unparsed": raw.decode("utf-8", "replace")}
        return data if isinstance(data, dict) else {"_value": data}

    def _send_json(self, status: int, data: dict[str, Any]) -> None:
        payload = json.dumps(data).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.send_header("request-id", "req_standin")
        self.end_headers()
        self.wfile.write(payload)

    def do_GET(self) -> None:
        self.owner._log(self.path, "other", {}, "{}", self._headers())
        self._send_json(200, {})

    def do_HEAD(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self) -> None:
        body = self._body()
        path = self.path.split("?", 1)[0]
        if path.endswith("/v1/messages/count_tokens"):
            count = max(1, len(json.dumps(body)) // 4)
            self.owner._log(path, "count_tokens", body, str(count), self._headers())
            self._send_json(200, {"input_tokens": count})
            return
        if not path.endswith("/v1/messages"):
            self.owner._log(path, "other", body, "{}", self._headers())
            self._send_json(200, {})
            return
        kind = classify(body)
        turn = self.owner._next_turn(kind)
        self.owner._log(path, kind, body, turn.kind, self._headers())
        if turn.kind == "too_long":
            error = {"type": "error", "error": {"type": "invalid_request_error", "message": TOO_LONG_MESSAGE}}
            self._send_json(400, error)
            return
        message = _message(turn, str(body.get("model") or MODEL), len(self.owner.requests))
        if body.get("stream"):
            self._send_stream(message)
        else:
            self._send_json(200, message)

    def _send_stream(self, message: dict[str, Any]) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.send_header("request-id", "req_standin")
        self.end_headers()
        self.close_connection = True
        for event, data in _events(message):
            self.wfile.write(f"event: {event}\ndata: {json.dumps(data)}\n\n".encode())
        self.wfile.flush()


def _message(turn: Turn, model: str, number: int) -> dict[str, Any]:
    """The complete Messages API answer for a scripted turn."""
    content: list[dict[str, Any]] = []
    if turn.text:
        content.append({"type": "text", "text": turn.text})
    if turn.kind == "tool_use":
        content.append(
            {"type": "tool_use", "id": f"toolu_standin{number:04d}", "name": turn.tool_name, "input": turn.tool_input}
        )
    if not content:
        content.append({"type": "text", "text": DEFAULT_TEXT})
    return {
        "id": f"msg_standin{number:04d}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": "tool_use" if turn.kind == "tool_use" else "end_turn",
        "stop_sequence": None,
        "usage": asdict(turn.usage),
    }


def _events(message: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """The server-sent events of a streamed answer."""
    usage = message["usage"]
    start = {**message, "content": [], "stop_reason": None, "usage": {**usage, "output_tokens": 1}}
    yield "message_start", {"type": "message_start", "message": start}
    for index, block in enumerate(message["content"]):
        if block["type"] == "text":
            yield (
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": index,
                    "content_block": {"type": "text", "text": ""},
                },
            )
            delta = {"type": "text_delta", "text": block["text"]}
        else:
            yield (
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": index,
                    "content_block": {**block, "input": {}},
                },
            )
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        yield "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}
        yield "content_block_stop", {"type": "content_block_stop", "index": index}
    yield (
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
            "usage": usage,
        },
    )
    yield "message_stop", {"type": "message_stop"}
