"""What the client does with each defect of a settings file the H rules (and P001) report.

Each rule's fixture (``fixtures/rules/<CODE>/bad*/.claude/settings.json``) holds one defect beside two valid
hooks, SessionStart and UserPromptSubmit, that each touch a marker file in the project; the defect's own hook,
where it has one, touches another. The fixture is the project's settings file of one ``claude -p`` run, and the
test asserts what the client did: which hooks ran, and what it said on stderr (``docs/claude-settings.md``
records it, with the client's version). The good fixtures run clean: both hooks, no notice.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from e2e.claude_client import REPOSITORY, ClaudeClient
from e2e.stand_in_api import StandInAPI, text

RULE_FIXTURES = REPOSITORY / "fixtures" / "rules"
OURS = frozenset({"session-start", "prompt"})
FILE_DROPPED = "These settings files did not load, so nothing in them is in effect, including hooks"
ENTRY_SKIPPED = "These settings entries were skipped; the rest of each file is in effect"


@dataclass(frozen=True)
class Outcome:
    """The marker files the run leaves, and the notice the client prints on stderr ("" for none)."""

    marks: frozenset[str]
    notice: str


# What the client 2.1.328 does with each bad fixture.
BAD = {
    "P001/bad-claude-settings": Outcome(frozenset(), FILE_DROPPED),  # invalid JSON: the whole file
    "H001/bad": Outcome(OURS, ENTRY_SKIPPED),  # unknown event: that event's entries
    "H002/bad": Outcome(OURS, ENTRY_SKIPPED),  # no `hooks` list: that entry
    "H003/bad": Outcome(OURS, ENTRY_SKIPPED),  # unknown type: that hook
    "H004/bad": Outcome(OURS, ENTRY_SKIPPED),  # a string timeout: that hook
    "H005/bad": Outcome(OURS | {"bash-only"}, ""),  # matcher ignored: the hook runs on every prompt
    "H006/bad": Outcome(frozenset(), FILE_DROPPED),  # statusLine without command: the whole file
    "H007/bad": Outcome(OURS, ""),  # a number in env: turned into text, silently
}
GOOD = sorted(
    f"{folder.parent.name}/{folder.name}"
    for folder in RULE_FIXTURES.glob("H*/good*")
    if (folder / ".claude" / "settings.json").is_file()
)


def run_fixture(fixture: str, root: Path, binary: Path) -> tuple[frozenset[str], str]:
    """The fixture as the settings of a project, one ``claude -p`` run: the marker files left, the stderr."""
    project = root / "project"
    shutil.copytree(RULE_FIXTURES / fixture, project, ignore=shutil.ignore_patterns("EXPECTED"))
    with StandInAPI([text("Hi.")]) as api:
        client = ClaudeClient(binary, home=root / "home", project=project, base_url=api.base_url)
        run = client.run("hello")
    assert run.returncode == 0, f"claude -p exited {run.returncode}: {run.stderr[-2000:]}"
    return frozenset(path.stem for path in project.glob("*.mark")), run.stderr


def test_every_settings_rule_has_a_bad_fixture_tried_here() -> None:
    codes = {folder.name for folder in RULE_FIXTURES.glob("H*")}
    assert codes == {key.split("/")[0] for key in BAD if key.startswith("H")}


@pytest.mark.parametrize("fixture", sorted(BAD))
def test_what_the_client_does_with_a_defect(fixture: str, tmp_path: Path, claude_binary: Path) -> None:
    expected = BAD[fixture]
    marks, stderr = run_fixture(fixture, tmp_path, claude_binary)
    assert marks == expected.marks, f"{fixture}: the hooks that ran left {sorted(marks)}"
    if expected.notice:
        assert expected.notice in stderr, stderr
        assert ".claude/settings.json" in stderr, stderr
    else:
        assert "settings" not in stderr, stderr


@pytest.mark.parametrize("fixture", GOOD)
def test_a_good_fixture_runs_clean(fixture: str, tmp_path: Path, claude_binary: Path) -> None:
    marks, stderr = run_fixture(fixture, tmp_path, claude_binary)
    assert marks >= OURS and "settings" not in stderr, (sorted(marks), stderr)
