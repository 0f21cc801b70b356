"""The stand-in Messages API on its own (no client): routes, streaming, the script, the log."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from e2e.stand_in_api import (
    TOO_LONG_MESSAGE,
    StandInAPI,
    Usage,
    classify,
    prompt_too_long,
    summary,
    text,
    tool_use,
)

TOOLS = [{"name": "Edit", "input_schema": {"type": "object"}}]


def post(api: StandInAPI, path: str, body: dict[str, Any]) -> tuple[int, str]:
    request = urllib.request.Request(
        api.base_url + path, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def turn(prompt: str, *, stream: bool = False) -> dict[str, Any]:
    return {
        "model": "m",
        "max_tokens": 1000,
        "stream": stream,
        "tools": TOOLS,
        "messages": [{"role": "user", "content": prompt}],
    }


def compaction_request() -> dict[str, Any]:
    ask = "Your task is to create a detailed summary of the conversation so far, paying close attention..."
    return {
        "model": "m",
        "max_tokens": 1000,
        "tools": TOOLS,
        "messages": [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": "hello"},
            {"role": "user", "content": [{"type": "text", "text": ask}]},
            {"role": "system", "content": "tools listed"},
        ],
    }


def events(stream: str) -> list[tuple[str, dict[str, Any]]]:
    found = []
    for block in stream.strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.splitlines())
        found.append((lines["event"], json.loads(lines["data"])))
    return found


def test_classify() -> None:
    assert classify(turn("hi")) == "conversation"
    assert classify(compaction_request()) == "summary"
    title = {
        "max_tokens": 50,
        "system": "Generate a short title for this conversation",
        "messages": [{"role": "user", "content": "x"}],
    }
    assert classify(title) == "side"
    assert classify({"max_tokens": 1, "messages": [{"role": "user", "content": "quota"}]}) == "side"


def test_script_order_summaries_and_side_requests(tmp_path: Path) -> None:
    usage = Usage(input_tokens=10, cache_creation_input_tokens=20, cache_read_input_tokens=30, output_tokens=40)
    script = [text("first", usage), summary("the summary"), tool_use("Edit", {"file_path": "/x"}), prompt_too_long()]
    log = tmp_path / "requests.jsonl"
    with StandInAPI(script, log_path=log) as api:
        assert api.base_url.startswith("http://127.0.0.1:")
        side = {"max_tokens": 1, "messages": [{"role": "user", "content": "quota"}]}
        assert post(api, "/v1/messages", side)[0] == 200  # takes no scripted turn
        status, body = post(api, "/v1/messages", turn("a"))
        assert status == 200
        answer = json.loads(body)
        assert answer["content"] == [{"type": "text", "text": "first"}]
        assert answer["usage"] == {
            "input_tokens": 10,
            "cache_creation_input_tokens": 20,
            "cache_read_input_tokens": 30,
            "output_tokens": 40,
        }
        assert usage.context_tokens == 100
        # a conversation request does not take the summary waiting at the head of the script
        assert "OK." in post(api, "/v1/messages", turn("b"))[1]
        summarised = json.loads(post(api, "/v1/messages", compaction_request())[1])
        assert "<summary>\nthe summary\n</summary>" in summarised["content"][0]["text"]
        status, body = post(api, "/v1/messages", turn("c", stream=True))
        kinds = [name for name, _ in events(body)]
        assert kinds == [
            "message_start",
            "content_block_start",
            "content_block_delta",
            "content_block_stop",
            "message_delta",
            "message_stop",
        ]
        start = events(body)[1][1]["content_block"]
        assert start["type"] == "tool_use" and start["name"] == "Edit"
        assert json.loads(events(body)[2][1]["delta"]["partial_json"]) == {"file_path": "/x"}
        assert events(body)[4][1]["delta"]["stop_reason"] == "tool_use"
        status, body = post(api, "/v1/messages", turn("d"))
        assert status == 400 and TOO_LONG_MESSAGE in body
        assert post(api, "/v1/messages/count_tokens", turn("e"))[1].startswith('{"input_tokens":')
        assert post(api, "/v1/other", {})[1] == "{}"
        # the script is exhausted: a default text
        assert "OK." in post(api, "/v1/messages", turn("f"))[1]
    kinds = [r.kind for r in api.requests]
    assert kinds == [
        "side",
        "conversation",
        "conversation",
        "summary",
        "conversation",
        "conversation",
        "count_tokens",
        "other",
        "conversation",
    ]
    logged = [json.loads(line) for line in log.read_text("utf-8").splitlines()]
    assert [entry["kind"] for entry in logged] == kinds
    assert "x-api-key" not in logged[1]["headers"]


def test_not_running() -> None:
    with pytest.raises(RuntimeError, match="not running"):
        _ = StandInAPI().base_url
