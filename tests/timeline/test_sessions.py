"""Where the client keeps a project's transcripts (the rule of Claude Code 2.1.328) and which are sessions."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ctxres.linters.timeline.sessions import (
    SessionError,
    by_id,
    config_dir,
    find_project_folder,
    folder_name,
    latest,
    project_folder,
    sessions,
)


def test_every_character_but_ascii_letters_and_digits_becomes_a_dash() -> None:
    assert folder_name("/home/ana/my_app.v2") == "-home-ana-my-app-v2"
    # JavaScript replaces per UTF-16 code unit: an emoji is two dashes, ü one
    assert folder_name("/a/ü😀b") == "-a----b"


def test_a_long_name_is_cut_at_200_and_followed_by_the_clients_hash() -> None:
    project = "/a/" + "x" * 250 + "/ü😀"
    # computed by the client's own function in node:
    # (e=0; for each code unit e=(e<<5)-e+unit|0; Math.abs(e).toString(36))
    assert folder_name(project) == "-a-" + "x" * 197 + "-o7cy99"


def test_config_dir_is_claude_config_dir_else_home_dot_claude(tmp_path: Path) -> None:
    assert config_dir({"CLAUDE_CONFIG_DIR": str(tmp_path / "c")}, tmp_path) == tmp_path / "c"
    assert config_dir({"CLAUDE_CONFIG_DIR": ""}, tmp_path) == tmp_path / ".claude"
    assert config_dir({}, tmp_path) == tmp_path / ".claude"


def test_project_folder_resolves_links_and_honours_the_dir_name_override(tmp_path: Path) -> None:
    real = tmp_path / "real_project"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real)
    config = tmp_path / "cfg"
    expected = config / "projects" / folder_name(str(real.resolve()))
    assert project_folder(link, config) == expected
    override = {"CLAUDE_CONFIG_DIR": str(config), "CLAUDE_CODE_PROJECT_DIR_NAME": "mine"}
    assert project_folder(real, config, override) == config / "projects" / "mine"
    # only with CLAUDE_CONFIG_DIR set, and only a valid name
    assert project_folder(real, config, {"CLAUDE_CODE_PROJECT_DIR_NAME": "mine"}) == expected
    assert project_folder(real, config, {**override, "CLAUDE_CODE_PROJECT_DIR_NAME": "../x"}) == expected
    assert project_folder(real, config, {**override, "CLAUDE_CODE_PROJECT_DIR_NAME": "NUL"}) == expected


def test_a_missing_project_folder_names_the_path_looked_for(tmp_path: Path) -> None:
    with pytest.raises(SessionError) as info:
        find_project_folder(tmp_path, tmp_path / "cfg")
    assert str(info.value) == (
        f"no Claude Code transcripts for {tmp_path}: {project_folder(tmp_path, tmp_path / 'cfg')} does not exist"
    )


def line(time: str) -> bytes:
    return b'{"type":"queue-operation"}\n{"type":"user","timestamp":"' + time.encode() + b'"}\n'


def test_sessions_are_top_level_transcripts_by_first_time(tmp_path: Path) -> None:
    (tmp_path / "bbb.jsonl").write_bytes(line("2026-02-17T09:00:00Z"))
    (tmp_path / "aaa.jsonl").write_bytes(line("2026-02-17T10:00:00Z"))
    no_time = tmp_path / "ccc.jsonl"
    no_time.write_bytes(b'{"type":"mode"}\n')
    os.utime(no_time, (1, 1))  # 1970: oldest by its modification time
    (tmp_path / "aaa" / "subagents").mkdir(parents=True)
    (tmp_path / "aaa" / "subagents" / "agent-1.jsonl").write_bytes(line("2030-01-01T00:00:00Z"))
    (tmp_path / "notes.txt").write_text("x")
    assert [p.name for p in sessions(tmp_path)] == ["ccc.jsonl", "bbb.jsonl", "aaa.jsonl"]
    assert latest(tmp_path).name == "aaa.jsonl"
    assert by_id(tmp_path, "bbb").name == "bbb.jsonl"
    assert by_id(tmp_path, "cc").name == "ccc.jsonl"


def test_no_session_and_an_unknown_id_are_one_line_errors(tmp_path: Path) -> None:
    with pytest.raises(SessionError, match=r"^no session transcript \(\*\.jsonl\) in "):
        latest(tmp_path)
    (tmp_path / "abc1.jsonl").write_bytes(line("2026-02-17T09:00:00Z"))
    (tmp_path / "abc2.jsonl").write_bytes(line("2026-02-17T09:00:00Z"))
    with pytest.raises(SessionError, match=r"^no session zzz in "):
        by_id(tmp_path, "zzz")
    with pytest.raises(SessionError, match=r"^session id abc is ambiguous in .*: 2 sessions start with it$"):
        by_id(tmp_path, "abc")
