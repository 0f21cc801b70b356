"""Bugs the fuzz targets (fuzz/, ``nox -s fuzz``) found, each reproduced deterministically."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from ctxres.findings import Finding, Position, Severity
from ctxres.formats.loading import Format, parse_text
from ctxres.hooks import posttooluse
from ctxres.hooks.main import run
from ctxres.linters.cli import main
from ctxres.linters.reporters import text as text_reporter

NOW = "2026-02-17T12:00:00Z"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(root))
    monkeypatch.setenv("CTXRES_NOW", NOW)
    monkeypatch.delenv("CTXRES_ORCHESTRATION", raising=False)
    return root


def test_posttooluse_with_a_list_as_tool_name_is_ignored(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # was: TypeError "unhashable type: 'list'" from `tool_name in frozenset`, swallowed by the fail-open
    assert posttooluse.written_yaml({"tool_name": [], "tool_input": {"file_path": "/x/ORCHESTRATION.yaml"}}) is None
    assert posttooluse.written_yaml({"tool_name": {"a": 1}}) is None
    assert run(["PostToolUse"], b'{"tool_name": []}') == "{}"
    assert "failed" not in capsys.readouterr().err


def test_stdin_nested_deeper_than_the_parser_stack_is_reported_not_raised(capsys: pytest.CaptureFixture[str]) -> None:
    # was: RecursionError escaping run() (the process printed `{}` only thanks to main()'s last resort)
    assert run(["UserPromptSubmit"], b"[" * 100_000) == "{}"
    assert run(["SessionStart"], b'{"a":' * 100_000) == "{}"
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2 and all("stdin is not JSON" in line for line in err)


def test_a_lone_surrogate_in_the_payload_does_not_break_the_state_write(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # was: UnicodeEncodeError writing the monitor state (session_id "\ud800"): no state, a "failed" line
    transcript = tmp_path / "session.jsonl"
    usage = {"input_tokens": 6, "cache_creation_input_tokens": 1000, "cache_read_input_tokens": 99_000}
    reply = {"type": "assistant", "message": {"id": "m1", "model": "claude-opus-4-7", "usage": usage}}
    transcript.write_text(json.dumps(reply) + "\n", encoding="utf-8")
    raw = json.dumps({"session_id": "s\ud800", "transcript_path": str(transcript), "prompt": "hi"}).encode()
    assert json.loads(run(["UserPromptSubmit"], raw)) == {}
    assert "failed" not in capsys.readouterr().err
    state = json.loads((project / ".jerry" / "context-monitor-state.json").read_text("utf-8"))
    assert state["session_id"] == "s?"
    assert state["tokens"] == 100_006


def test_text_output_keeps_one_finding_per_line_when_a_message_quotes_control_characters() -> None:
    # was: a checkpoint key "\r" (or "\n") quoted in a message split the finding over two lines
    finding = Finding(
        path="cx-001.json",
        code="C003",
        message="unexpected key `\r\n\x1b[31m\u2028` in the top level",
        severity=Severity.ERROR,
        position=Position(1, 1),
        fix="remove `\n`",
    )
    lines = text_reporter.format_finding(finding)
    assert lines == [
        "cx-001.json:1:1: C003 unexpected key `\\r\\n\\x1b[31m\\u2028` in the top level",
        "  help: remove `\\n`",
    ]
    assert all(len(line.splitlines()) == 1 for line in lines)


@pytest.mark.parametrize(
    ("text", "where"), [("a: 1\nb: 2\np", (3, 2)), ("a: 1\nb: 2\np\n", (3, 2)), ("a: 1\nb: 2\np\n\n\n", (5, 1))]
)
def test_a_yaml_error_at_the_end_of_the_stream_is_located_on_the_last_line(text: str, where: tuple[int, int]) -> None:
    # was: 4:1 for a file of 3 lines (the parser marks the end of the stream on the line after the last)
    result = parse_text("ORCHESTRATION.yaml", "orchestration", Format.YAML, text)
    assert [(issue.position.line, issue.position.col) for issue in result.issues] == [where]


@pytest.mark.parametrize(
    ("text", "where"), [('{\n  "a": 1,\n  "b": 2\n', (3, 9)), ("[1,\n\n", (1, 4)), ("\n\n", (1, 1))]
)
def test_a_json_error_at_the_end_of_the_text_is_located_after_its_last_character(
    text: str, where: tuple[int, int]
) -> None:
    # was: a truncated checkpoint ending with a newline got its P001 on the line after the last one
    result = parse_text("cx-001-checkpoint.json", "checkpoint", Format.JSON, text)
    assert [(issue.position.line, issue.position.col) for issue in result.issues] == [where]


def test_a_control_character_after_non_ascii_text_is_located_on_its_own_line() -> None:
    # was: libyaml's byte offset taken as a character offset put the P001 lines past the end of the file
    text = "title: caf\u00e9 \u2014 na\u00efve\nnotes: \u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\nbad: a\x00b\n"
    result = parse_text("ORCHESTRATION.yaml", "orchestration", Format.YAML, text)
    assert [(issue.position.line, issue.position.col) for issue in result.issues] == [(3, 7)]
    assert "#x0000" in result.issues[0].message


def test_ack_refuses_a_workflow_file_with_an_invalid_tagged_value(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # was: `!!int x` raised ValueError out of ack's YAML load: "internal error", exit 2
    root = tmp_path / "repo"
    shutil.copytree(Path(__file__).resolve().parent.parent.parent / "fixtures" / "ack" / "two-unacknowledged", root)
    target = root / "projects" / "PROJ-002" / "ORCHESTRATION.yaml"
    target.write_text(target.read_text("utf-8").replace("workflow:", "schema_version: !!int x\nworkflow:", 1))
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
    monkeypatch.chdir(root)
    assert main(["ack", "--all", "--now", "2026-03-02T11:30:00Z"]) == 1  # the live workflow cannot be read
    assert main(["ack", "--all", "--now", "2026-03-02T11:30:00Z", "--file", str(target)]) == 1
    err = capsys.readouterr().err
    assert "internal error" not in err
    assert "the live workflow projects/PROJ-002/ORCHESTRATION.yaml cannot be read: " in err
    assert "refused, nothing changed" in err and "a tagged value is invalid" in err
    assert {p: p.read_bytes() for p in root.rglob("*") if p.is_file()} == before
