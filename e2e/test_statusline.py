"""The statusline in the real client's interactive UI (tmux drives it; the client runs a statusline
only there, never with ``-p``).

The project is set up as a team adopts ctxres: ``ctxres install-hooks`` writes the portable commands
(``"${CTXRES_HOOK:-ctxres-hook}" statusline`` among them) into ``.claude/settings.json`` and this
machine's ``ctxres-hook`` into the ``env`` of ``.claude/settings.local.json``; the client's PATH has
no virtual environment, so the line shows only if the client passes the settings' ``env`` to the
statusline command as it does to hooks.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from ctxres.tiers import percent_used
from e2e.claude_client import ClaudeClient
from e2e.scenario import COMPACTION_USAGE, LOW_USAGE, WORKFLOW_ID, client_percent, copy_workspace, ctxres, tool
from e2e.stand_in_api import StandInAPI, summary, text

MODEL = "claude-sonnet-4-5-20250929"  # a 200,000-token window (the interactive default model has 1M)
WAIT_SECONDS = 60.0


class Pane:
    """One interactive client in a tmux session of its own server (``-L``)."""

    def __init__(self, socket: str) -> None:
        self.socket = socket

    def tmux(self, *args: str) -> str:
        done = subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True, check=False)
        return done.stdout

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", "claude")

    def type(self, line: str) -> None:
        self.tmux("send-keys", "-t", "claude", "-l", line)
        time.sleep(0.3)
        self.tmux("send-keys", "-t", "claude", "Enter")

    def wait_for(self, found: Callable[[str], bool], what: str) -> str:
        deadline = time.monotonic() + WAIT_SECONDS
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if found(screen):
                return screen
            time.sleep(0.5)
        raise AssertionError(f"the client's screen never showed {what}:\n{screen}")


def test_footer_shows_our_line_with_the_clients_figure_and_the_monitor_uses_it(
    tmp_path: Path, claude_binary: Path
) -> None:
    if shutil.which("tmux") is None:
        pytest.fail("tmux is not installed: it drives the interactive client, the only one that runs a statusline")
    project = copy_workspace(tmp_path / "project")
    ctxres("install-hooks", cwd=project)  # portable commands + CTXRES_HOOK in settings.local.json
    percent = client_percent(COMPACTION_USAGE)  # 95
    with StandInAPI([text("Started.", COMPACTION_USAGE), text("Going on.", COMPACTION_USAGE)]) as api:
        client = ClaudeClient(claude_binary, home=tmp_path / "home", project=project, base_url=api.base_url)
        env = [f"{key}={value}" for key, value in {**client.env(), "TERM": "xterm-256color", "NO_COLOR": "1"}.items()]
        pane = Pane(f"ctxres-e2e-{tmp_path.name}")
        command = [str(claude_binary), "--model", MODEL, "--debug-file", str(tmp_path / "debug.log")]
        pane.tmux(
            "new-session",
            "-d",
            "-x",
            "120",
            "-y",
            "40",
            "-s",
            "claude",
            "-c",
            str(project),
            "env",
            "-i",
            *env,
            *command,
        )
        try:
            pane.wait_for(lambda s: "ctx --" in s, "our line before the first reply")
            pane.type("Start FEAT-015")
            screen = pane.wait_for(
                lambda s: f"{percent}% context used" in s and f"ctx {percent}%" in s, "the client's figure and ours"
            )
            ours = next(line for line in screen.splitlines() if f"ctx {percent}%" in line).strip()
            assert re.match(rf"ctx {percent}% COMPACTION │ {re.escape(WORKFLOW_ID)} P\d", ours), ours
            pane.type("Go on")
            pane.wait_for(lambda s: "Going on." in s, "the second reply")
        finally:
            pane.tmux("kill-server")
    prompts = [r for r in api.conversation() if "Go on" in r.last_user_text()]
    assert prompts, [r.last_user_text() for r in api.conversation()]
    monitor = prompts[0].text()
    assert f"CONTEXT STATUS: COMPACTION ({percent}% context used)" in monitor
    assert "usable (from the client)" in monitor
    figures = list((project / ".jerry" / "sessions").glob("*.figure.json"))
    assert len(figures) == 1


TEAM_LINE = "[team line] ctx 61% | $0.42"


@pytest.mark.parametrize("columns", [160, 72])
def test_beside_the_team_statusline_ours_fits_the_real_terminal_with_whole_words(
    tmp_path: Path, claude_binary: Path, columns: int
) -> None:
    """The team's statusline, kept by install-hooks, then ours in the columns the terminal has left (the
    client sends no width: ours reads the terminal it runs in), without a second context figure and
    without a word cut: at 160 columns the workflow's id and phase are there, at 72 what fits of them."""
    if shutil.which("tmux") is None:
        pytest.fail("tmux is not installed: it drives the interactive client, the only one that runs a statusline")
    project = copy_workspace(tmp_path / "project")
    (project / ".claude").mkdir(exist_ok=True)
    team = {"statusLine": {"type": "command", "command": f"printf '{TEAM_LINE.replace('%', '%%')}'"}}
    settings = project / ".claude" / "settings.json"
    if settings.exists():
        team = {**json.loads(settings.read_text("utf-8")), **team}
    settings.write_text(json.dumps(team, indent=2) + "\n", "utf-8")
    ctxres("install-hooks", cwd=project)
    with StandInAPI([text("Started.", COMPACTION_USAGE), text("Going on.", COMPACTION_USAGE)]) as api:
        client = ClaudeClient(claude_binary, home=tmp_path / "home", project=project, base_url=api.base_url)
        env = [f"{key}={value}" for key, value in {**client.env(), "TERM": "xterm-256color", "NO_COLOR": "1"}.items()]
        env = [item for item in env if not item.startswith("COLUMNS=")]
        pane = Pane(f"ctxres-e2e-beside-{tmp_path.name}")
        command = [str(claude_binary), "--model", MODEL]
        pane.tmux(
            "new-session", "-d", "-x", str(columns), "-y", "40", "-s", "claude", "-c", str(project),
            "env", "-i", *env, *command,
        )  # fmt: skip
        try:
            pane.wait_for(lambda s: TEAM_LINE in s, "the team's line")
            pane.type("Start FEAT-015")
            screen = pane.wait_for(lambda s: "context used" in s and TEAM_LINE in s, "the reply, and the lines")
        finally:
            pane.tmux("kill-server")
    row = next(line for line in screen.splitlines() if TEAM_LINE in line).strip()
    ours = row[row.index(TEAM_LINE) + len(TEAM_LINE) :]
    assert len(row) <= columns, row
    assert ours.strip(), row  # there is room for some of ours at both widths
    assert "%" not in ours and "ctx" not in ours, row  # no second context figure beside the team's
    # Whole words only: each is a word of the workflow file (its id, a phase's name, a gate), a level, or a
    # number of ours; a word cut in the middle ("CRITI", "Depend") is none of them.
    workflow = next(project.rglob("ORCHESTRATION.yaml")).read_text("utf-8")
    vocabulary = set(re.split(r"[\s\"':,\[\]{}]+", workflow)) | {"FRESH", "STALE", "CRITICAL", "old", "session"}
    vocabulary |= {"unacked", "compaction", "compactions", "phase", "│"}
    for word in ours.split():
        assert word in vocabulary or re.fullmatch(r"P\d+|\+?\d+[smhd]|\d+h\d\d|\d+|\d+<\d+|\S+#\d+", word), (word, row)
    if columns >= 160:
        assert f"{WORKFLOW_ID} P" in ours, row  # the workflow's id and phase in a wide terminal


AFTER_COMPACT_USAGE = LOW_USAGE  # the reply after the compaction: 8%, unlike the 95% before it


def _boundaries(home: Path) -> list[dict[str, int]]:
    """The ``compactMetadata`` of every ``compact_boundary`` in the session's transcript."""
    found = []
    for transcript in (home / ".claude" / "projects").rglob("*.jsonl"):
        for line in transcript.read_text("utf-8").splitlines():
            entry = json.loads(line)
            if entry.get("subtype") == "compact_boundary":
                found.append(entry["compactMetadata"])
    return found


def _short(tokens: int) -> str:
    """A token count as the statusline shows it (``3.2k``, ``172k``)."""
    return f"{tokens / 1000:.1f}k" if tokens < 9950 else f"{round(tokens / 1000)}k"


@pytest.mark.parametrize("segment", [False, True])
def test_after_compact_the_footer_counts_the_compaction_and_shows_the_figure_after_it(
    tmp_path: Path, claude_binary: Path, segment: bool
) -> None:
    """Right after ``/compact`` the client sends its statusline no usage (``current_usage`` null): ours shows
    the compaction count with the tokens before and after it (the transcript's ``compact_boundary``) and the
    figure ``postTokens`` gives, not ``ctx --`` nor the 95% before it; the next reply's figure then. As a
    ``--segment`` (a widget of another statusline) the count is there too, without a figure."""
    if shutil.which("tmux") is None:
        pytest.fail("tmux is not installed: it drives the interactive client, the only one that runs a statusline")
    project = copy_workspace(tmp_path / "project")
    ctxres("install-hooks", cwd=project)
    settings = project / ".claude" / "settings.json"
    if segment:  # the widget form: the team's line, then our segment
        data = json.loads(settings.read_text("utf-8"))
        data["statusLine"]["command"] = f"printf 'WIDGETS '; {shlex.quote(tool('ctxres-hook'))} statusline --segment"
        settings.write_text(json.dumps(data, indent=2) + "\n", "utf-8")
    before = client_percent(COMPACTION_USAGE)  # 95
    turns = [text("Started.", COMPACTION_USAGE), summary(), text("Going on.", AFTER_COMPACT_USAGE)]
    home = tmp_path / "home"
    with StandInAPI(turns) as api:
        client = ClaudeClient(claude_binary, home=home, project=project, base_url=api.base_url)
        env = [f"{key}={value}" for key, value in {**client.env(), "TERM": "xterm-256color", "NO_COLOR": "1"}.items()]
        pane = Pane(f"ctxres-e2e-compact-{tmp_path.name}")
        command = [str(claude_binary), "--model", MODEL]
        pane.tmux(
            "new-session", "-d", "-x", "160", "-y", "40", "-s", "claude", "-c", str(project),
            "env", "-i", *env, *command,
        )  # fmt: skip
        try:
            pane.wait_for(lambda s: "context used" not in s and "❯" in s, "the prompt")
            pane.type("Start FEAT-015")
            pane.wait_for(lambda s: f"{before}% context used" in s, "the first reply")
            pane.type("/compact")
            compacted = pane.wait_for(lambda s: "1× " in s and "→" in s, "the compaction count")
            (boundary,) = _boundaries(home)
            pane.type("Go on")
            replied = pane.wait_for(
                lambda s: "Going on." in s and (segment or f"ctx {client_percent(AFTER_COMPACT_USAGE)}%" in s),
                "the reply after it, and its figure",
            )
        finally:
            pane.tmux("kill-server")
    counted = f"1× compacted {_short(boundary['preTokens'])}→{_short(boundary['postTokens'])}"
    row = next(line for line in compacted.splitlines() if "1× " in line).strip()
    if segment:  # half the row: the shorter form of the count
        assert row.startswith(f"WIDGETS {counted.replace(' compacted', '')} │ "), (counted, row)
        assert "ctx" not in row and "%" not in row, row
        return
    shown = percent_used(boundary["postTokens"], 200_000)  # what postTokens gives, as the client computes it
    assert row.startswith(f"ctx {shown}% LOW │ {counted}"), (shown, row)
    assert f"ctx {before}%" not in row, row
    after = next(line for line in replied.splitlines() if "1× compacted" in line).strip()
    assert after.startswith(f"ctx {client_percent(AFTER_COMPACT_USAGE)}% LOW │ {counted}"), after
    # ctxres timeline draws the same session with the footer's figures: the fill of the reply the footer showed
    # as "95% context used", and the compaction's tokens as the client recorded them
    done = subprocess.run(
        [tool("ctxres"), "timeline", "--output-format", "json"],
        cwd=project,
        env={**os.environ, "HOME": str(home)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    drawn = json.loads(done.stdout)
    (compaction,) = [e for e in drawn["events"] if e["kind"] == "compaction"]
    assert (compaction["trigger"], compaction["pre_tokens"], compaction["post_tokens"]) == (
        "manual",
        boundary["preTokens"],
        boundary["postTokens"],
    )
    footer = [round(t["fill"] * 100) for t in drawn["turns"] if t["number"] <= compaction["turn"]]
    assert abs(footer[-1] - before) <= 1, (footer, before)
