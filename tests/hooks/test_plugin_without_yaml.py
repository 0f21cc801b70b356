"""The plugin's hooks run with the ``python3`` on the client's PATH, which may lack PyYAML: each hook that
needs it then says so in one line on stderr (which interpreter, what to install), exits 0 and answers
validly, so the session goes on without ctxres rather than with an error."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ..conftest import ROOT
from ..team_repository import NEW, new_workflow

PAYLOADS = {
    "SessionStart": {"source": "startup"},
    "UserPromptSubmit": {"prompt": "Go on."},
    "PreCompact": {"trigger": "manual", "custom_instructions": ""},
}


@pytest.fixture(scope="module")
def bare_python(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A virtual environment with nothing installed: a python3 without PyYAML."""
    folder = tmp_path_factory.mktemp("bare-python") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True, capture_output=True)
    python = str(folder / "bin" / "python")
    assert subprocess.run([python, "-c", "import yaml"], capture_output=True).returncode != 0
    return python


@pytest.mark.parametrize("event", sorted(PAYLOADS))
def test_one_line_and_a_valid_answer(event: str, bare_python: str, tmp_path: Path) -> None:
    (tmp_path / NEW).parent.mkdir(parents=True)
    (tmp_path / NEW).write_text(new_workflow("2026-11-26T10:00:00Z"), encoding="utf-8")
    payload = {"hook_event_name": event, "session_id": "s1", "cwd": str(tmp_path), **PAYLOADS[event]}
    done = subprocess.run(
        [bare_python, str(ROOT / "hooks" / "plugin_entry.py"), event],
        input=json.dumps(payload),
        env={"PATH": "/usr/bin:/bin", "CLAUDE_PLUGIN_ROOT": str(ROOT), "CLAUDE_PROJECT_DIR": str(tmp_path)},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() in ("", "{}"), done.stdout
    lines = done.stderr.splitlines()
    # SessionStart and PreCompact read the workflow; a prompt below the WARNING tier reads none of it.
    assert len(lines) == (0 if event == "UserPromptSubmit" else 1), done.stderr
    if not lines:
        return
    assert lines[0].startswith(f"ctxres-hook: {event}: PyYAML is not installed for {bare_python}"), lines[0]
    assert f"`{bare_python} -m pip install pyyaml`, or the system's python3-yaml package" in lines[0]
    assert not (tmp_path / ".jerry").exists() or not list((tmp_path / ".jerry").rglob("cx-*"))
