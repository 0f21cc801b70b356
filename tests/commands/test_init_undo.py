"""``ctxres init --undo``: one command takes out what ``ctxres init`` (and ``ctxres baseline``) added.

Real git: the team's repository (tests/team_repository.py) with a statusline of its own, CRLF files and a
``.gitignore`` of its own; ctxres adopted and committed as a team does; then ``--undo --dry-run`` lists each
change and writes nothing, ``--undo`` leaves ``git diff`` against the commit before adoption empty, with
no file left over. A part the team changed after init is left as it is and named.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..git_sandbox import Sandbox, executable
from ..team_repository import Clone, team_repository

TEAM_STATUSLINE = {"type": "command", "command": "printf team"}


def _team(base: Path) -> tuple[Clone, str]:
    """The team's repository with its statusline, CRLF rule file and ``.gitignore``, committed; and that commit."""
    box = team_repository(base / "repo")
    box.write(".claude/settings.json", json.dumps({"statusLine": TEAM_STATUSLINE}, indent=2) + "\n")
    (box.root / "CLAUDE.md").write_bytes(b"# Team rules\r\n\r\nUse the project's scripts.\r\n")
    (box.root / ".gitignore").write_bytes(b"# ours\r\n.jerry/\r\n__pycache__/\r\n")
    box.git("add", ".")
    box.git("commit", "-q", "-m", "the team's repository, CRLF")
    team = Clone(box.root, Path(executable("ctxres")).parent)
    return team, team.git("rev-parse", "HEAD").strip()


def _adopt(team: Clone) -> None:
    done = team.run("ctxres", "init")
    assert done.returncode == 0, done.stdout + done.stderr
    baseline = team.run("ctxres", "baseline")  # 1: the team's broken file cannot be recorded, and is said
    assert (team.root / ".ctxres-baseline.json").is_file(), baseline.stdout + baseline.stderr
    team.git("add", ".")
    team.git("commit", "-q", "--no-verify", "-m", "adopt ctxres")


def _left_over(team: Clone | Sandbox, before: str) -> str:
    """What differs from the commit ``before``: ``git diff`` and the files git does not ignore that it lacks."""
    diff = team.git("diff", before, "--stat")
    others = team.git("ls-files", "--others", "--exclude-standard")
    return diff + others


def test_undo_leaves_the_repository_as_it_was_before_adoption(tmp_path: Path) -> None:
    team, before = _team(tmp_path)
    _adopt(team)
    assert _left_over(team, before) != ""

    dry = team.run("ctxres", "init", "--undo", "--dry-run")
    assert dry.returncode == 0, dry.stderr
    said = dry.stdout.splitlines()
    for path in (
        ".claude/settings.json",
        ".gitignore",
        ".pre-commit-config.yaml",
        "CLAUDE.md",
        ".ctxres.toml",
        "docs/protocol/resumption-update-protocol.md",
        ".ctxres-baseline.json",
    ):
        assert any(line.startswith("would ") and line.endswith(f": {path}") for line in said), (path, dry.stdout)
    assert team.git("status", "--porcelain") == ""  # the dry run wrote nothing

    done = team.run("ctxres", "init", "--undo")
    assert done.returncode == 0, done.stdout + done.stderr
    assert _left_over(team, before) == "", team.git("diff", before)
    assert (team.root / "CLAUDE.md").read_bytes() == b"# Team rules\r\n\r\nUse the project's scripts.\r\n"
    settings = json.loads((team.root / ".claude" / "settings.json").read_text())
    assert settings == {"statusLine": TEAM_STATUSLINE}
    assert not (team.root / ".claude" / "settings.local.json").exists()
    team.write("notes.md", "a note\n")
    team.git("add", "notes.md")
    committed = team.commit("a commit after ctxres is gone")  # the git hook is gone with the configuration
    assert committed.returncode == 0, committed.stdout + committed.stderr
    assert "Nothing to undo" in team.run("ctxres", "init", "--undo").stdout


def test_undo_in_a_repository_with_a_pyproject_editor_settings_and_no_workflow(tmp_path: Path) -> None:
    box = Sandbox(tmp_path / "repo")
    box.write("pyproject.toml", '[project]\nname = "app"\n')
    box.write("CLAUDE.md", "# Rules\n")
    box.write(
        ".claude/rules/big.md", "".join(f'<!-- L2-REINJECT: rank={n}, content="{"x" * 1200}" -->\n' for n in (1, 2))
    )
    box.git("add", ".")
    box.git("commit", "-q", "-m", "an app whose rules are over the L2 budget with the reminder")
    team = Clone(box.root, Path(executable("ctxres")).parent)
    before = team.git("rev-parse", "HEAD").strip()
    assert team.run("ctxres", "init").returncode == 0
    assert team.run("ctxres", "init", "--only", "editor").returncode == 0
    assert "yaml.schemas" in (team.root / ".vscode" / "settings.json").read_text()
    assert "reinject-budget" in (team.root / "pyproject.toml").read_text()  # the budget went into the pyproject
    assert (team.root / "docs" / "protocol" / "orchestration-template.yaml").is_file()
    done = team.run("ctxres", "init", "--undo")
    assert done.returncode == 0, done.stdout + done.stderr
    assert _left_over(team, before) == "", team.git("diff", before)


def test_undo_leaves_and_names_what_the_team_changed_after_init(tmp_path: Path) -> None:
    team, before = _team(tmp_path)
    _adopt(team)
    rule = (team.root / "CLAUDE.md").read_text()
    team.write("CLAUDE.md", rule.replace("after a compaction run ctxres ack.", "after a compaction, ack it."))
    team.write(
        "docs/protocol/resumption-update-protocol.md",
        (team.root / "docs/protocol/resumption-update-protocol.md").read_text() + "\nOur own note.\n",
    )
    done = team.run("ctxres", "init", "--undo")
    assert done.returncode == 1
    assert (
        "CLAUDE.md:5: the L2 reminder is not as ctxres init wrote it (changed after init): left as it is" in done.stderr
    )
    assert "docs/protocol/resumption-update-protocol.md: not the protocol document (L1)" in done.stderr
    assert "ack it." in (team.root / "CLAUDE.md").read_text()
    assert (team.root / "docs/protocol/resumption-update-protocol.md").is_file()
    left = team.git("diff", before, "--name-only").split()
    assert sorted(left) == ["CLAUDE.md", "docs/protocol/resumption-update-protocol.md"], left
