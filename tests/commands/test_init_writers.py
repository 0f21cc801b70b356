"""`ctxres init` and `install-hooks` edit files the team keeps (CLAUDE.md, .gitignore, .claude/settings.json,
.pre-commit-config.yaml): a CRLF file stays CRLF, and a file changed while the command worked is not replaced."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from ctxres.linters.cli import main
from ctxres.linters.commands import init

from ..cli_process import ctxres

BARE_LF = re.compile(rb"(?<!\r)\n")
FILES = {
    ".gitignore": "node_modules/\n*.log\n",
    "CLAUDE.md": "# Team rules\n\nBe kind to the reviewers.\n",
    ".claude/settings.json": '{\n  "permissions": {"allow": []}\n}\n',
    ".pre-commit-config.yaml": (
        "repos:\n  - repo: local\n    hooks:\n      - id: team-check\n        name: team check\n"
        '        entry: "true"\n        language: system\n'
    ),
}
STEPS = ("--only", "L2,hooks,gitignore,pre-commit")


def team_project(root: Path, newline: str) -> Path:
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    for name, text in FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(text.replace("\n", newline).encode())
    return root


def test_init_keeps_the_teams_crlf_files_crlf(tmp_path: Path) -> None:
    """The same edits as on LF files, every line of each edited file ending CRLF."""
    results = {}
    for name, newline in (("lf", "\n"), ("crlf", "\r\n")):
        root = team_project(tmp_path / name, newline)
        done = ctxres("init", *STEPS, cwd=root)
        assert done.returncode == 0, done.stderr
        results[name] = {file: (root / file).read_bytes() for file in FILES}
    for file in FILES:
        lf, crlf = results["lf"][file], results["crlf"][file]
        assert lf != FILES[file].encode(), f"init did not edit {file}"
        assert BARE_LF.findall(crlf) == [], file
        assert crlf == lf.replace(b"\n", b"\r\n"), file


def test_init_does_not_replace_a_file_edited_while_it_worked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = team_project(tmp_path / "repo", "\n")
    real_plan = init.plan
    edit = "Never push on Fridays.\n"

    def plan_then_edit(*args: object, **kwargs: object) -> list[init.Change]:
        changes = real_plan(*args, **kwargs)  # type: ignore[arg-type]
        if edit not in (root / "CLAUDE.md").read_text():
            with open(root / "CLAUDE.md", "a", encoding="utf-8") as handle:  # the session edits it meanwhile
                handle.write(edit)
        return changes

    monkeypatch.setattr(init, "plan", plan_then_edit)
    monkeypatch.chdir(root)
    assert main(["init", *STEPS]) == 2
    assert (root / "CLAUDE.md").read_text() == FILES["CLAUDE.md"] + edit  # the edit kept, ours not written
    assert capsys.readouterr().err.splitlines()[-1] == (
        "ctxres: error: CLAUDE.md changed while ctxres worked on it; it was not written: run the command again"
    )
    assert main(["init", *STEPS]) == 0  # run again: the reminder goes in beside the edit
    text = (root / "CLAUDE.md").read_text()
    assert edit in text and "L2-REINJECT" in text


def test_install_hooks_keeps_a_crlf_settings_file_crlf(tmp_path: Path) -> None:
    root = team_project(tmp_path / "repo", "\r\n")
    done = ctxres("install-hooks", cwd=root)
    assert done.returncode == 0, done.stderr
    settings = (root / ".claude" / "settings.json").read_bytes()
    assert b"ctxres-hook" in settings and BARE_LF.findall(settings) == []
