"""Every command names the same live workflow, in the same words, as the hooks do.

`ctxres ack`, `ctxres prompt` and `ctxres doctor` find the workflow through
``ctxres.state.live.find_live_workflow`` (the function the hooks use): the configured
orchestration patterns, ACTIVE or PAUSED, never an example or a template, the most recently
modified first, ``$CTXRES_ORCHESTRATION`` naming one outright. Each says which one it chose and why
with the core's sentence (``WorkflowChoice.note``). Everything runs through the real processes.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from ctxres.ack import read_workflow
from ctxres.defaults import WORKFLOW_ENV
from ctxres.state import live, orchestration
from tests.cli_process import ctxres
from tests.conftest import FIXTURES
from tests.hooks.hook_project import answer, payload

WORKSPACE = FIXTURES / "ack" / "two-unacknowledged"  # PROJ-002, ACTIVE, v2.0, two checkpoints waiting
REAL = "projects/PROJ-002/ORCHESTRATION.yaml"
OTHER = "projects/PROJ-003/ORCHESTRATION.yaml"
TEMPLATE = "docs/protocol/orchestration-template.yaml"
HOUR_AHEAD = 3600


def env(**extra: str) -> dict[str, str]:
    """The environment, at the time of the fixture's workflow (an ACTIVE workflow weeks old gets only a few
    lines from SessionStart)."""
    result = {k: v for k, v in os.environ.items() if k != WORKFLOW_ENV}
    return {**result, "CTXRES_NOW": "2026-03-02T12:00:00Z", **extra}


def run_session_start(root: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    """The real SessionStart hook process (startup) in the project ``root``."""
    stdin = payload(root, "SessionStart", source="startup", session_id="s")
    return subprocess.run(
        [sys.executable, "-m", "ctxres.hooks.main", "SessionStart"],
        input=json.dumps(stdin),
        capture_output=True,
        text=True,
        cwd=root,
        env=env(CLAUDE_PROJECT_DIR=str(root), **extra),
        timeout=60,
    )


def session_start(root: Path, **extra: str) -> str | None:
    """The additionalContext of the real SessionStart hook process (startup), None when it injects nothing."""
    result = run_session_start(root, **extra)
    output = answer(result, "SessionStart")
    if not output:
        return None
    text: str = output["hookSpecificOutput"]["additionalContext"]
    return text


def touch(path: Path, ahead: int = HOUR_AHEAD) -> None:
    later = path.stat().st_mtime + ahead
    os.utime(path, (later, later))


def core_note(root: Path) -> str:
    choice = live.find_live_workflow(str(root), read_workflow)
    assert choice is not None
    return choice.note()


def events(path: Path) -> list[str]:
    section = yaml.safe_load(path.read_text())["resumption"]
    return [event["id"] for event in section["compaction_events"]["events"]]


def doctor_json(root: Path, **extra: str) -> tuple[int, dict[str, Any]]:
    result = ctxres("doctor", "--output-format", "json", cwd=root, env=env(**extra))
    report: dict[str, Any] = json.loads(result.stdout)
    return result.returncode, report


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A fresh repository given every layer by `ctxres init` (which writes its example template), in
    which the real workflow (PROJ-002, with two pending checkpoints) is created afterwards."""
    root = tmp_path / "project"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    assert ctxres("init", cwd=root, env=env()).returncode == 0
    template = root / TEMPLATE
    assert orchestration.is_live(yaml.safe_load(template.read_text()))  # ACTIVE, as a section to copy
    shutil.copytree(WORKSPACE, root, dirs_exist_ok=True)
    return root


def second_workflow(root: Path) -> Path:
    """PROJ-003: another live workflow (PAUSED) whose resumption section was updated half an hour after
    PROJ-002's, in a file whose mtime is an hour *older* (mtimes never decide)."""
    other = root / OTHER
    other.parent.mkdir(parents=True)
    text = (root / REAL).read_text().replace('workflow_status: "ACTIVE"', 'workflow_status: "PAUSED"')
    text = text.replace('updated_at: "2026-03-02T10:00:00Z"', 'updated_at: "2026-03-02T10:30:00Z"')
    other.write_text(text.replace("proj002-docs-20260302-001", "proj003-docs-20260302-001"))
    older = (root / REAL).stat().st_mtime - HOUR_AHEAD
    os.utime(other, (older, older))
    return other


CHOSEN_NOTE = (
    f"using {OTHER}: the most recently updated of 2 live workflows (status PAUSED, updated 2026-03-02T10:30:00Z); "
    f"also live: {REAL}"
)


# --- after `ctxres init`, touching the template changes nothing ------------------------------------


def test_touching_the_init_template_leaves_every_command_on_the_real_workflow(project: Path) -> None:
    template = project / TEMPLATE
    touch(template)  # the most recently modified ACTIVE section in the project (mtimes never decide)
    template_bytes = template.read_bytes()
    note = f"using {REAL}: the only live workflow (status ACTIVE)"
    assert core_note(project) == note

    prompt = ctxres("prompt", cwd=project, env=env())
    assert prompt.returncode == 0, prompt.stderr
    assert "WORKFLOW: proj002-docs-20260302-001" in prompt.stdout
    assert f"1. [PRIORITY 1] {REAL}" in prompt.stdout
    assert prompt.stderr.splitlines()[0] == f"ctxres prompt: {note}"
    assert "orchestration-template" not in prompt.stdout + prompt.stderr

    alert = ctxres("prompt", "--template", "2", cwd=project, env=env())
    assert alert.returncode == 0, alert.stderr
    assert f"Read ORCHESTRATION.yaml resumption section: {REAL}" in alert.stdout

    hook = session_start(project)
    assert hook is not None
    assert "WORKFLOW: proj002-docs-20260302-001" in hook
    assert f"Read ORCHESTRATION.yaml resumption section: {REAL}" in hook
    assert "orchestration-template" not in hook

    doctor = ctxres("doctor", cwd=project, env=env())
    assert doctor.returncode == 0, doctor.stdout
    assert re.search(rf"^workflow +live +{re.escape(note)}$", doctor.stdout, re.MULTILINE), (
        doctor.stdout
    )  # (columns: any width)

    ack = ctxres("ack", "--all", "--now", "2026-03-02T11:30:00Z", cwd=project, env=env())
    assert ack.returncode == 0, ack.stderr
    assert ack.stdout.splitlines() == [
        note,
        f"merged .jerry/checkpoints/cx-001-checkpoint.json as CX-001 into {REAL}",
        f"merged .jerry/checkpoints/cx-002-checkpoint.json as CX-002 into {REAL}",
        "compaction_events.count: 0 -> 2; updated_at: 2026-03-02T11:30:00Z",
    ]
    assert events(project / REAL) == ["CX-001", "CX-002"]
    assert template.read_bytes() == template_bytes


# --- two live workflows: the same sentence everywhere -------------------------------------------


def test_two_live_workflows_every_command_names_the_chosen_one_and_the_other_in_the_same_words(
    project: Path,
) -> None:
    second_workflow(project)
    note = CHOSEN_NOTE
    assert core_note(project) == note

    prompt = ctxres("prompt", cwd=project, env=env())
    assert prompt.returncode == 0, prompt.stderr
    assert prompt.stderr.splitlines()[0] == f"ctxres prompt: {note}"
    assert "WORKFLOW: proj003-docs-20260302-001" in prompt.stdout

    doctor = ctxres("doctor", cwd=project, env=env())
    assert re.search(rf"^workflow +live +{re.escape(note)}$", doctor.stdout, re.MULTILINE), (
        doctor.stdout
    )  # (columns: any width)
    code, report = doctor_json(project)
    assert code == 0
    assert report["workflow"] == {"path": OTHER, "status": "PAUSED", "others": [REAL], "note": note}

    hook = session_start(project)
    assert hook is not None and "WORKFLOW: proj003-docs-20260302-001" in hook  # the hooks agree

    real_before = (project / REAL).read_bytes()
    ack = ctxres("ack", "--now", "2026-03-02T11:30:00Z", cwd=project, env=env())
    assert ack.returncode == 0, ack.stderr
    assert ack.stdout.splitlines()[:2] == [
        note,
        f"merged .jerry/checkpoints/cx-001-checkpoint.json as CX-001 into {OTHER}",
    ]
    assert events(project / OTHER) == ["CX-001"]
    assert (project / REAL).read_bytes() == real_before


def test_the_environment_variable_names_the_workflow_for_every_command(project: Path) -> None:
    second_workflow(project)  # the most recently updated, and not the one named
    named = {WORKFLOW_ENV: REAL}
    note = f"using {REAL}: named by ${WORKFLOW_ENV}"

    prompt = ctxres("prompt", cwd=project, env=env(**named))
    assert prompt.returncode == 0, prompt.stderr
    assert prompt.stderr.splitlines()[0] == f"ctxres prompt: {note}"
    assert "WORKFLOW: proj002-docs-20260302-001" in prompt.stdout

    assert doctor_json(project, **named)[1]["workflow"]["note"] == note

    hook = session_start(project, **named)
    assert hook is not None and "WORKFLOW: proj002-docs-20260302-001" in hook

    other_before = (project / OTHER).read_bytes()
    ack = ctxres("ack", "--now", "2026-03-02T11:30:00Z", cwd=project, env=env(**named))
    assert ack.returncode == 0, ack.stderr
    assert ack.stdout.splitlines()[0] == note
    assert events(project / REAL) == ["CX-001"]
    assert (project / OTHER).read_bytes() == other_before


def test_a_named_file_that_cannot_be_read_is_said_plainly(project: Path) -> None:
    named = {WORKFLOW_ENV: "projects/missing/ORCHESTRATION.yaml"}
    said = (
        f"${WORKFLOW_ENV} names projects/missing/ORCHESTRATION.yaml, which is not a readable "
        f"workflow file inside the project {project.resolve()}"
    )
    ack = ctxres("ack", cwd=project, env=env(**named))
    assert (ack.returncode, ack.stdout, ack.stderr) == (2, "", f"ctxres ack: {said}; name one with --file\n")
    prompt = ctxres("prompt", cwd=project, env=env(**named))
    assert (prompt.returncode, prompt.stdout) == (2, "")
    assert prompt.stderr == f"ctxres prompt: {said}; name one with --file\n"
    code, report = doctor_json(project, **named)
    assert code == 0 and report["workflow"] == {"path": None, "status": None, "others": [], "note": said}


def test_a_workflow_a_symlink_takes_out_of_the_project_is_skipped_as_the_hooks_skip_it(
    project: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "elsewhere" / "ORCHESTRATION.yaml"
    outside.parent.mkdir()
    outside.write_text((project / REAL).read_text())
    link = project / OTHER
    link.parent.mkdir(parents=True)
    link.symlink_to(outside)
    text = outside.read_text().replace('updated_at: "2026-03-02T10:00:00Z"', 'updated_at: "2026-03-02T10:30:00Z"')
    outside.write_text(text)  # the most recently updated live workflow, were it inside
    outside_before = outside.read_bytes()
    note = f"using {REAL}: the only live workflow (status ACTIVE)"
    prompt = ctxres("prompt", cwd=project, env=env())
    assert prompt.stderr.splitlines()[0] == f"ctxres prompt: {note}"
    assert doctor_json(project)[1]["workflow"]["note"] == note
    ack = ctxres("ack", "--now", "2026-03-02T11:30:00Z", cwd=project, env=env())
    assert ack.returncode == 0, ack.stderr
    assert ack.stdout.splitlines()[:2] == [
        note,
        f"merged .jerry/checkpoints/cx-001-checkpoint.json as CX-001 into {REAL}",
    ]
    assert outside.read_bytes() == outside_before


# --- examples and templates are never the live workflow ----------------------------------------------


@pytest.mark.parametrize(
    "example",
    [
        "examples/ORCHESTRATION.yaml",
        "docs/templates/ORCHESTRATION.yaml",
        "ORCHESTRATION-template.yaml",
        "projects/ORCHESTRATION.example.yaml",
        "docs/protocol/ORCHESTRATION.yaml",
    ],
)
def test_an_example_or_a_template_is_never_chosen_even_when_it_is_the_only_active_one(
    project: Path, example: str
) -> None:
    real = project / REAL
    path = project / example
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(real.read_text())  # ACTIVE, v2.0: live in every respect but its place or name
    real.write_text(real.read_text().replace('workflow_status: "ACTIVE"', 'workflow_status: "COMPLETE"'))
    state = {p: p.read_bytes() for p in project.rglob("*") if p.is_file() and ".git" not in p.parts}
    none = live.no_live_workflow(str(project.resolve()))

    ack = ctxres("ack", "--all", "--now", "2026-03-02T11:30:00Z", cwd=project, env=env())
    assert (ack.returncode, ack.stdout, ack.stderr) == (2, "", f"ctxres ack: {none}; name one with --file\n")
    prompt = ctxres("prompt", cwd=project, env=env())
    assert (prompt.returncode, prompt.stdout) == (2, "")
    assert prompt.stderr == f"ctxres prompt: {none}; name one with --file\n"

    doctor = ctxres("doctor", cwd=project, env=env())
    assert doctor.returncode == 0, doctor.stdout  # no running workflow is normal, not a missing layer
    assert re.search(rf"^workflow +none +{re.escape(none)}$", doctor.stdout, re.MULTILINE), (
        doctor.stdout
    )  # (columns: any width)
    code, report = doctor_json(project)
    assert code == 0 and report["ok"] is True
    assert report["workflow"] == {"path": None, "status": None, "others": [], "note": none}

    assert {p: p.read_bytes() for p in state} == state  # nothing was written


def test_a_live_v1_workflow_is_chosen_and_ack_refuses_it_with_the_migrate_hint(project: Path) -> None:
    real = project / REAL
    v1 = yaml.safe_load(real.read_text())
    v1["resumption"] = {"current_state": "Phase 2 running", "next_step": "Re-score qg-1"}  # a v1.0 section
    real.write_text(yaml.safe_dump(v1, sort_keys=False))
    before = real.read_bytes()
    note = f"using {REAL}: the only live workflow (status ACTIVE)"  # workflow.status ACTIVE: live
    ack = ctxres("ack", "--now", "2026-03-02T11:30:00Z", cwd=project, env=env())
    assert ack.returncode == 1
    assert ack.stdout.splitlines() == [note]
    assert ack.stderr == (
        f"ctxres ack: refused, nothing changed: {REAL} has a v1.0 resumption section, which cannot record "
        f"compactions; convert it first: `ctxres migrate {REAL} --write`\n"
    )
    assert real.read_bytes() == before


# T001 budgets the prompt of a live workflow only, by the core's rule: tests/rules/test_template_budgets.py.


# --- every clone names the same one; a setting pins it ----------------------------------------------


def names_of(root: Path) -> dict[str, str]:
    """What each command and the SessionStart hook say or serve about the live workflow."""
    prompt = ctxres("prompt", cwd=root, env=env())
    assert prompt.returncode == 0, prompt.stderr
    doctor = doctor_json(root)[1]["workflow"]["note"]
    hook = session_start(root)
    assert hook is not None
    ack = ctxres("ack", "--now", "2026-03-02T11:30:00Z", cwd=root, env=env())
    assert ack.returncode == 0, ack.stderr
    served = next(line for line in hook.splitlines() if line.startswith("WORKFLOW: "))
    note = next(line for line in hook.splitlines() if line.startswith("Workflow: using "))
    return {
        "prompt": prompt.stderr.splitlines()[0].removeprefix("ctxres prompt: "),
        "doctor": doctor,
        "hook": note.removeprefix("Workflow: ").removesuffix("."),
        "served": served,
        "ack": ack.stdout.splitlines()[0],
    }


def test_two_clones_with_opposite_mtimes_name_the_same_workflow_everywhere(project: Path, tmp_path: Path) -> None:
    second_workflow(project)
    clone = tmp_path / "clone"
    shutil.copytree(project, clone, symlinks=True)
    for root, (real, other) in ((project, (1_000_000, 2_000_000)), (clone, (2_000_000, 1_000_000))):
        os.utime(root / REAL, (real, real))
        os.utime(root / OTHER, (other, other))
    finished = clone / "projects" / "PROJ-001" / "ORCHESTRATION.yaml"  # touched last, but finished
    finished.parent.mkdir(parents=True)
    finished.write_text((clone / REAL).read_text().replace('workflow_status: "ACTIVE"', 'workflow_status: "COMPLETE"'))
    os.utime(finished, (3_000_000, 3_000_000))
    said = [names_of(root) for root in (project, clone)]
    expected = {"prompt": CHOSEN_NOTE, "doctor": CHOSEN_NOTE, "hook": CHOSEN_NOTE, "ack": CHOSEN_NOTE}
    for names in said:
        assert {key: value for key, value in names.items() if key != "served"} == expected
        assert names["served"] == "WORKFLOW: proj003-docs-20260302-001"
    for root in (project, clone):
        assert events(root / OTHER) == ["CX-001"] and events(root / REAL) == []


def test_a_setting_pins_the_workflow_for_every_command_and_hook(project: Path) -> None:
    second_workflow(project)  # the most recently updated, and not the one pinned
    (project / ".ctxres.toml").unlink()  # the fixture's own settings (the defaults): pyproject.toml instead
    (project / "pyproject.toml").write_text(f'[tool.ctxres]\nstate-dir = ".jerry"\nlive-workflow = "{REAL}"\n')
    note = f"using {REAL}: pinned by live-workflow in pyproject.toml"
    names = names_of(project)
    assert names == {
        "prompt": note,
        "doctor": note,
        "hook": note,
        "ack": note,
        "served": "WORKFLOW: proj002-docs-20260302-001",
    }
    assert events(project / REAL) == ["CX-001"] and events(project / OTHER) == []
    named = ctxres("prompt", cwd=project, env=env(**{WORKFLOW_ENV: OTHER}))  # the environment still wins
    assert named.stderr.splitlines()[0] == f"ctxres prompt: using {OTHER}: named by ${WORKFLOW_ENV}"


def test_a_pin_that_names_no_readable_file_is_said_and_never_replaced_by_the_search(project: Path) -> None:
    second_workflow(project)
    with (project / ".ctxres.toml").open("a") as settings:
        settings.write('live-workflow = "projects/PROJ-009/ORCHESTRATION.yaml"\n')
    said = (
        "live-workflow in .ctxres.toml names projects/PROJ-009/ORCHESTRATION.yaml, which is not a readable "
        f"workflow file inside the project {project.resolve()}"
    )
    ack = ctxres("ack", "--now", "2026-03-02T11:30:00Z", cwd=project, env=env())
    assert (ack.returncode, ack.stdout, ack.stderr) == (2, "", f"ctxres ack: {said}; name one with --file\n")
    prompt = ctxres("prompt", cwd=project, env=env())
    assert (prompt.returncode, prompt.stdout, prompt.stderr) == (
        2,
        "",
        f"ctxres prompt: {said}; name one with --file\n",
    )
    assert doctor_json(project)[1]["workflow"] == {"path": None, "status": None, "others": [], "note": said}
    result = run_session_start(project)
    assert result.returncode == 0 and answer(result, "SessionStart") == {}  # no workflow served, none guessed
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and "live-workflow in .ctxres.toml names projects/PROJ-009/ORCHESTRATION.yaml" in lines[0]
    assert "the hooks do not guess another one" in lines[0]


def test_a_broken_live_workflow_is_named_by_every_command_not_replaced(project: Path) -> None:
    """The most recently updated live workflow (by the times its text still shows) cannot be read (an
    unclosed quote): `prompt`, `ack`, `doctor` and the hooks name it with the place of the error, and none of
    them acts on the older live workflow; its file's modification time plays no part."""
    other = second_workflow(project)
    other.write_text(other.read_text().replace("resumption:", 'note: "unclosed\nresumption:', 1))
    older = (project / REAL).stat().st_mtime - HOUR_AHEAD
    os.utime(other, (older, older))
    sentence = f"the live workflow {OTHER} cannot be read: invalid YAML: "
    prompt = ctxres("prompt", cwd=project, env=env())
    assert prompt.returncode != 0 and prompt.stdout == ""
    assert sentence in prompt.stderr and " at line " in prompt.stderr and "; fix it" in prompt.stderr
    assert REAL not in prompt.stderr
    before = (project / REAL).read_text()
    acked = ctxres("ack", cwd=project, env=env())
    assert acked.returncode != 0 and sentence in acked.stderr
    assert (project / REAL).read_text() == before  # nothing merged into the other workflow
    code, report = doctor_json(project)
    assert code == 1 and report["ok"] is False
    assert report["workflow"]["path"] == OTHER and report["workflow"]["status"] == "UNREADABLE"
    assert report["workflow"]["note"].startswith(sentence)
    text = ctxres("doctor", cwd=project, env=env())
    rows = text.stdout.splitlines()
    assert any(row.startswith("workflow") and "unreadable" in row and sentence in row for row in rows)
    context = session_start(project)
    assert context is not None and sentence in context and REAL not in context


def test_a_broken_workflow_updated_before_the_live_one_is_not_the_live_one(project: Path) -> None:
    """Broken PROJ-002 (its text: ACTIVE, updated before PROJ-003): PROJ-003 stays the live workflow."""
    second_workflow(project)
    real = project / REAL
    real.write_text(real.read_text().replace("resumption:", 'note: "unclosed\nresumption:', 1))
    touch(real)
    prompt = ctxres("prompt", cwd=project, env=env())
    assert prompt.returncode == 0 and f"using {OTHER}" in prompt.stderr
