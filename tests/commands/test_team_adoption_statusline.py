"""A team adopts ctxres on a repository whose committed statusline is its own: ccstatusline, or a script.

Real git, the team's repository of several workflows (tests/team_repository.py). With ccstatusline, ``init``
leaves the committed statusline as it is and says how to add the ctxres segment as a Custom Command widget;
the doctor says the same until the widget is in the person's ccstatusline settings; the segment, run as
ccstatusline runs a widget (``sh -c`` with the client's JSON plus ``terminal_width``), names the team's live
workflow. With a script of the team's, ours is shown beside it, without a second context figure."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import yaml

from ..git_sandbox import executable
from ..team_repository import Clone, team_repository

CCSTATUSLINE = {"type": "command", "command": "npx -y ccstatusline@latest", "padding": 0}
TEAM_SCRIPT = {"type": "command", "command": "printf '[team] ctx 61%%'"}


def _clone(base: Path, statusline: dict[str, object]) -> Clone:
    work = team_repository(base / "before")
    work.write(".claude/settings.json", json.dumps({"statusLine": statusline}, indent=2) + "\n")
    work.git("add", ".")
    work.git("commit", "-q", "-m", "the team's statusline")
    clone = Clone(base / "alice" / "repo", Path(executable("ctxres")).parent)
    subprocess.run(["git", "clone", "-q", str(work.root), str(clone.root)], check=True, env=clone.env)
    return clone


def _statusline_input(clone: Clone, **extra: object) -> str:
    usage = {"input_tokens": 10, "output_tokens": 900, "cache_creation_input_tokens": 1000}
    window = {"context_window_size": 200_000, "current_usage": {**usage, "cache_read_input_tokens": 100_000}}
    root = str(clone.root)
    document = {"session_id": "team", "cwd": root, "workspace": {"project_dir": root}, "context_window": window}
    return json.dumps({**document, **extra})


def test_a_ccstatusline_team_gets_the_segment_as_a_widget(tmp_path: Path) -> None:
    alice = _clone(tmp_path, CCSTATUSLINE)
    live = alice.live_workflow()
    assert live is not None
    done = alice.run("ctxres", "init")
    assert done.returncode == 0, done.stderr
    assert "the statusline, ccstatusline, is left as it is" in done.stdout
    advice = [line for line in done.stdout.splitlines() if line.startswith("the statusline is ccstatusline")]
    assert len(advice) == 1 and "Custom Command widget" in advice[0], done.stdout
    command = advice[0].rsplit("`", 2)[-2]  # the widget's command, as init says it
    assert command.endswith("ctxres-hook statusline --segment")
    settings = json.loads((alice.root / ".claude" / "settings.json").read_text("utf-8"))
    assert settings["statusLine"] == CCSTATUSLINE  # committed as the team had it
    doctor = json.loads(alice.run("ctxres", "doctor", "--output-format", "json").stdout)["statusline"]
    assert doctor["status"] == "other" and "Custom Command widget" in doctor["note"]
    # Alice adds the widget in her ccstatusline settings (her own, not the repository's)
    config = alice.home / ".config" / "ccstatusline"
    config.mkdir(parents=True)
    widget = {"id": "9", "type": "custom-command", "commandPath": command, "timeout": 1000}
    (config / "settings.json").write_text(json.dumps({"version": 3, "lines": [[widget]]}), "utf-8")
    doctor = json.loads(alice.run("ctxres", "doctor", "--output-format", "json").stdout)["statusline"]
    assert doctor["status"] == "present"
    # ccstatusline runs the widget: sh -c, the client's JSON plus terminal_width, in the project
    shown = subprocess.run(
        ["sh", "-c", command],
        input=_statusline_input(alice, terminal_width=200),
        cwd=alice.root,
        env=alice.env,
        capture_output=True,
        text=True,
    )
    assert shown.returncode == 0 and shown.stderr == ""
    segment = re.sub(r"\x1b\[[0-9;]*m", "", shown.stdout.splitlines()[0])  # ccstatusline strips colours too
    workflow = yaml.safe_load((alice.root / live).read_text("utf-8"))["workflow"]
    assert segment.startswith(f"{workflow['id']} P"), segment  # the team's live workflow, its phase
    assert re.search(r"│ (FRESH|STALE|CRITICAL)", segment), segment  # and how fresh its section is
    assert "%" not in segment and len(segment) <= 100, segment  # half the row, no context figure


def test_a_team_script_is_kept_and_ours_sits_beside_it_without_a_second_figure(tmp_path: Path) -> None:
    alice = _clone(tmp_path, TEAM_SCRIPT)
    assert alice.run("ctxres", "init").returncode == 0
    entry = json.loads((alice.root / ".claude" / "settings.json").read_text("utf-8"))["statusLine"]
    rows = {}
    for columns in (200, 60):
        env = {**alice.env, "COLUMNS": str(columns), "NO_COLOR": "1", "CLAUDE_PROJECT_DIR": str(alice.root)}
        shown = subprocess.run(
            ["sh", "-c", entry["command"]],
            input=_statusline_input(alice),
            cwd=alice.root,
            env=env,
            capture_output=True,
            text=True,
        )
        assert shown.returncode == 0 and shown.stderr == "", shown
        rows[columns] = shown.stdout.splitlines()[0]
        assert rows[columns].startswith("[team] ctx 61%  ") and len(rows[columns]) <= columns - 2, rows
        assert rows[columns].count("%") == 1, rows  # theirs only
    wide_words = set(rows[200].replace("│", " ").split())
    assert set(rows[60].replace("│", " ").split()) <= wide_words, rows  # whole segments dropped, no word cut
    assert len(rows[60]) < len(rows[200]) and re.search(r"  P\d+ │ (FRESH|STALE|CRITICAL)", rows[60]), rows
