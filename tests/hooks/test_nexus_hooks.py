"""The `nexus` profile's hooks (docs/formats.md, "Nexus state") run as real `ctxres-hook` processes.

The dispatcher runs `ctxres.hooks.nexus` for PreCompact and SessionStart when the project selects the
`nexus` profile; here the process selects it by pointing the dispatcher's event table at the module,
so every test goes through the real stdin -> dispatcher -> stdout path.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from ctxres import nexus

from ..conftest import CORPUS, ROOT
from .nexus_project import (
    HEAVY,
    NOW,
    P24,
    STATE,
    edits_of_one_project,
    precompact_payload,
    read_state,
    run_hook,
    schema,
    sessionstart_payload,
    tool_line,
    transcript,
)
from .nexus_project import workspace as workspace  # the Nexus corpus project (a fixture)

# --------------------------------------------------------------------------- PreCompact


def test_precompact_writes_the_edited_project_with_high_confidence(workspace: Path, tmp_path: Path) -> None:
    path = transcript(tmp_path / "session.jsonl", edits_of_one_project(workspace))
    result = run_hook("PreCompact", precompact_payload(path), workspace)
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == ""  # PreCompact prints nothing: the client shows its stdout to the user
    state = read_state(workspace)
    assert state == {
        "active_project_id": P24,
        "confidence": "high",
        "detection_method": "transcript",
        "timestamp": NOW,
    }
    jsonschema.validate(state, schema("precompact-state"))
    assert (workspace / STATE).stat().st_size < 1024
    assert not [p for p in (workspace / STATE).parent.iterdir() if p.name.endswith(".tmp")]  # atomic: no leftovers


def test_precompact_splits_confidence_between_projects(workspace: Path, tmp_path: Path) -> None:
    lines = [
        tool_line("Read", file_path=str(workspace / "02-projects" / project / "01-planning/resume-context.md"))
        for project in (P24, "18-hook-research-upgrade", "26-test-resume-project", P24)
    ]
    path = transcript(tmp_path / "session.jsonl", lines)
    assert run_hook("PreCompact", precompact_payload(path), workspace).returncode == 0
    state = read_state(workspace)
    assert (state["active_project_id"], state["confidence"]) == (P24, "medium")


def test_precompact_ignores_projects_that_do_not_exist(workspace: Path, tmp_path: Path) -> None:
    lines = [tool_line("Edit", file_path=str(workspace / "02-projects/99-typo-project/plan.md"))] * 3
    path = transcript(tmp_path / "session.jsonl", lines)
    assert run_hook("PreCompact", precompact_payload(path), workspace).returncode == 0
    assert read_state(workspace)["active_project_id"] is None
    assert read_state(workspace)["detection_method"] == "fallback"


def test_precompact_falls_back_to_the_previous_state(workspace: Path, tmp_path: Path) -> None:
    (workspace / STATE).write_text(json.dumps({"active_project_id": "26-test-resume-project", "confidence": "high"}))
    path = transcript(tmp_path / "session.jsonl", [{"type": "user", "message": {"role": "user", "content": "hi"}}])
    result = run_hook("PreCompact", precompact_payload(path), workspace)
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")
    assert read_state(workspace) == {
        "active_project_id": "26-test-resume-project",
        "confidence": "low",
        "detection_method": "cache",
        "timestamp": NOW,
    }


def test_precompact_reads_only_the_end_of_the_transcript(workspace: Path, tmp_path: Path) -> None:
    """A project touched only before the last 2 MiB is not seen: the cost does not grow with the file."""
    old = tool_line("Edit", file_path=str(workspace / "02-projects" / P24 / "01-planning/plan.md"))
    filler = {"type": "user", "message": {"role": "user", "content": "x" * 4000}}
    path = transcript(tmp_path / "session.jsonl", [old] * 5 + [filler] * 600)
    assert path.stat().st_size > 2 * 1024 * 1024
    assert run_hook("PreCompact", precompact_payload(path), workspace).returncode == 0
    assert read_state(workspace)["active_project_id"] is None


def test_precompact_with_a_truncated_transcript_still_detects(workspace: Path, tmp_path: Path) -> None:
    path = transcript(tmp_path / "session.jsonl", edits_of_one_project(workspace), tail=b'{"type": "assistant", "mess')
    result = run_hook("PreCompact", precompact_payload(path), workspace)
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")
    assert read_state(workspace)["active_project_id"] == P24


def test_precompact_with_a_missing_transcript_answers_and_says_why(workspace: Path, tmp_path: Path) -> None:
    result = run_hook("PreCompact", precompact_payload(tmp_path / "gone.jsonl"), workspace)
    assert (result.returncode, result.stdout) == (0, "")
    assert len(result.stderr.splitlines()) == 1 and "cannot read the transcript" in result.stderr
    assert read_state(workspace)["detection_method"] == "fallback"


def test_precompact_with_garbage_stdin_answers_validly(workspace: Path) -> None:
    result = run_hook("PreCompact", b"\xff\x00 not json", workspace)
    assert (result.returncode, result.stdout) == (0, "")
    assert len(result.stderr.splitlines()) == 1


def test_precompact_cannot_write_its_state(workspace: Path, tmp_path: Path) -> None:
    """A read-only or full disk is simulated by a file where the cache folder should be (chmod has no
    effect when the tests run as root)."""
    shutil.rmtree(workspace / "00-system" / ".cache")
    (workspace / "00-system" / ".cache").write_text("not a folder")
    path = transcript(tmp_path / "session.jsonl", edits_of_one_project(workspace))
    result = run_hook("PreCompact", precompact_payload(path), workspace)
    assert (result.returncode, result.stdout) == (0, "")
    assert (
        len(result.stderr.splitlines()) == 1 and "cannot write 00-system/.cache/precompact_state.json" in result.stderr
    )


def test_precompact_refuses_a_state_folder_that_leaves_the_project(workspace: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    shutil.rmtree(workspace / "00-system" / ".cache")
    (workspace / "00-system" / ".cache").symlink_to(outside)
    path = transcript(tmp_path / "session.jsonl", edits_of_one_project(workspace))
    result = run_hook("PreCompact", precompact_payload(path), workspace)
    assert (result.returncode, result.stdout) == (0, "")
    assert len(result.stderr.splitlines()) == 1 and "outside the project directory" in result.stderr
    assert list(outside.iterdir()) == []


# --------------------------------------------------------------------------- SessionStart


def _context(result: subprocess.CompletedProcess[str]) -> str:
    output = json.loads(result.stdout)
    jsonschema.validate(output, schema("hook-sessionstart-output"))
    assert output["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    text: str = output["hookSpecificOutput"]["additionalContext"]
    return text


@pytest.mark.parametrize("source", ["compact", "resume"])
def test_sessionstart_injects_the_files_to_load_and_the_questions(workspace: Path, tmp_path: Path, source: str) -> None:
    path = transcript(tmp_path / "session.jsonl", edits_of_one_project(workspace))
    run_hook("PreCompact", precompact_payload(path), workspace)
    manifest = workspace / "02-projects" / P24 / "01-planning" / "resume-context.md"
    gate = (CORPUS / "nexus" / "02-projects" / P24 / "03-working/test_data/valid_resume_context.md").read_text()
    manifest.write_text(manifest.read_text() + "\n" + gate.split("---\n", 2)[2])
    result = run_hook("SessionStart", sessionstart_payload(source), workspace)
    assert (result.returncode, result.stderr) == (0, "")
    text = _context(result)
    folder = f"02-projects/{P24}"
    lines = text.splitlines()
    assert lines[0] == nexus.OPEN_TAG and lines[-1] == nexus.CLOSE_TAG
    assert ("compacted" if source == "compact" else "resumed") in lines[1]
    files = [line.strip()[2:] for line in lines if line.startswith("   - 02-projects/")]
    assert files == [
        f"{folder}/01-planning/overview.md",
        f"{folder}/01-planning/plan.md",
        f"{folder}/01-planning/steps.md (missing: tell the user)",
        f"{folder}/02-resources/FINAL-DESIGN.md (missing: tell the user)",
        f"{folder}/02-resources/resume-state-REVISED.md (missing: tell the user)",
    ]
    assert "   - What are the two main enhancements?" in lines
    assert "   - What must happen before implementation?" in lines
    assert "Then continue: next action: execute-project; phase: ready-for-implementation." in lines


@pytest.mark.parametrize("source", ["clear", "startup"])
def test_sessionstart_clear_and_startup_inject_nothing(workspace: Path, tmp_path: Path, source: str) -> None:
    path = transcript(tmp_path / "session.jsonl", edits_of_one_project(workspace))
    run_hook("PreCompact", precompact_payload(path), workspace)
    result = run_hook("SessionStart", sessionstart_payload(source), workspace)
    assert (result.returncode, result.stdout.strip(), result.stderr) == (0, "{}", "")


def test_sessionstart_without_a_state_injects_nothing(workspace: Path) -> None:
    result = run_hook("SessionStart", sessionstart_payload("compact"), workspace)
    assert (result.returncode, result.stdout.strip(), result.stderr) == (0, "{}", "")


def test_sessionstart_with_a_broken_state_answers_and_says_why(workspace: Path) -> None:
    (workspace / STATE).write_text('{"active_project_id": ')
    result = run_hook("SessionStart", sessionstart_payload("compact"), workspace)
    assert (result.returncode, result.stdout.strip()) == (0, "{}")
    assert len(result.stderr.splitlines()) == 1 and "not valid JSON" in result.stderr


def test_sessionstart_for_a_project_that_is_gone_injects_nothing(workspace: Path) -> None:
    (workspace / STATE).write_text(json.dumps({"active_project_id": "77-deleted-project", "confidence": "high"}))
    result = run_hook("SessionStart", sessionstart_payload("compact"), workspace)
    assert (result.returncode, result.stdout.strip()) == (0, "{}")
    assert len(result.stderr.splitlines()) == 1 and "77-deleted-project has no folder" in result.stderr


def test_sessionstart_never_lists_a_file_outside_the_workspace(workspace: Path) -> None:
    (workspace / STATE).write_text(json.dumps({"active_project_id": "18-hook-research-upgrade", "confidence": "low"}))
    manifest = workspace / "02-projects/18-hook-research-upgrade/01-planning/resume-context.md"
    text = manifest.read_text().replace('  - "01-planning/steps.md"', '  - "../../../secrets.md"\n  - "/etc/passwd"')
    manifest.write_text(text.replace("*Auto-updated", "token: sk-ant-api03-abcdefghijklmnop\n*Auto-updated"))
    context = _context(run_hook("SessionStart", sessionstart_payload("resume"), workspace))
    assert "Low confidence: confirm with the user" in context
    listed = [line for line in context.splitlines() if line.startswith("   - ")]
    assert all("secrets" not in line and "/etc/passwd" not in line for line in listed)
    assert "Not loaded (unsafe entries of files_to_load): ../../../secrets.md (it leaves the workspace)" in context
    assert "sk-ant-api03" not in context


def test_sessionstart_resolves_workspace_root_and_sibling_entries_in_the_workspace(workspace: Path) -> None:
    """A manifest lists files from the workspace root (`00-system/...`); a sibling project's file (`../`)
    is inside the workspace too. Both are listed where they really are, as the linter (N006/N007) reads them."""
    (workspace / STATE).write_text(json.dumps({"active_project_id": "18-hook-research-upgrade", "confidence": "high"}))
    (workspace / "00-system").mkdir(exist_ok=True)
    (workspace / "00-system/core.md").write_text("core\n")
    sibling = workspace / "02-projects/19-sibling/01-planning"
    sibling.mkdir(parents=True)
    (sibling / "plan.md").write_text("plan\n")
    manifest = workspace / "02-projects/18-hook-research-upgrade/01-planning/resume-context.md"
    text = manifest.read_text().replace(
        '  - "01-planning/steps.md"', '  - "00-system/core.md"\n  - "../19-sibling/01-planning/plan.md"'
    )
    manifest.write_text(text)
    context = _context(run_hook("SessionStart", sessionstart_payload("resume"), workspace))
    listed = [line.strip() for line in context.splitlines() if line.startswith("   - ")]
    assert "- 00-system/core.md" in listed
    assert "- 02-projects/19-sibling/01-planning/plan.md" in listed
    assert "Not loaded" not in context


def test_sessionstart_for_a_project_with_only_a_legacy_manifest(workspace: Path) -> None:
    project = workspace / "02-projects/10-dynamic-subagent-research"
    (project / "01-planning" / "resume-context.md").unlink()
    (workspace / STATE).write_text(json.dumps({"active_project_id": project.name, "confidence": "high"}))
    context = _context(run_hook("SessionStart", sessionstart_payload("compact"), workspace))
    # the legacy file has no files_to_load: the model is sent to it and to the planning folder
    assert f"02-projects/{project.name}/_resume.md lists no file to load" in context


def test_the_hook_path_imports_no_heavy_module(workspace: Path, tmp_path: Path) -> None:
    path = transcript(tmp_path / "session.jsonl", edits_of_one_project(workspace))
    code = (
        "import json, sys, os\n"
        "from ctxres.hooks import main\n"
        "main.MODULES.update(PreCompact='nexus', SessionStart='nexus')\n"
        f"main.dispatch('PreCompact', {precompact_payload(path)!r})\n"
        "main.dispatch('SessionStart', {'source': 'compact'})\n"
        f"print([m for m in sys.modules if m.startswith({HEAVY!r})])\n"
    )
    env = {**os.environ, "CLAUDE_PROJECT_DIR": str(workspace), "CTXRES_NOW": NOW}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True).stdout
    assert out.strip() == "[]"


# --------------------------------------------------------------------------- builds (Nexus as it ships today)

BUILDS = ROOT / "fixtures" / "replay" / "g-nexus-builds" / "workspace"
EXEC_SESSION = "9a7e4b12-58c3-4f0d-a6e1-08b2c3d4e5f6"
DONE_SESSION = "3b9d0f7a-1e2c-4d5e-8f90-04c1d2e3f4a5"


@pytest.fixture
def builds(tmp_path: Path) -> Path:
    """A workspace with a project, a planning, an executing and a complete build (the replay fixture's)."""
    root = tmp_path / "ws"
    shutil.copytree(BUILDS, root)
    return root


def _payload(source: str, session: str, transcript_path: str = "/nowhere.jsonl") -> dict[str, Any]:
    return {**sessionstart_payload(source), "session_id": session, "transcript_path": transcript_path}


@pytest.mark.parametrize(
    "folder",
    ["02-builds/active/08-search-reindex", "02-builds/08-search-reindex", "02-builds/complete/08-search-reindex"],
)
def test_precompact_records_a_build_in_each_of_its_folders(builds: Path, tmp_path: Path, folder: str) -> None:
    if folder != "02-builds/active/08-search-reindex":
        shutil.move(builds / "02-builds/active/08-search-reindex", builds / folder)
    lines = [
        tool_line(
            "Edit", file_path=str(builds / folder / "03-working/reindex-notes.md"), old_string="a", new_string="b"
        )
    ] * 3
    path = transcript(tmp_path / "session.jsonl", lines)
    result = run_hook("PreCompact", precompact_payload(path), builds)
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")
    state = read_state(builds)
    assert state["active_project_id"] == "08-search-reindex" and state["metadata"] == {"kind": "build"}
    jsonschema.validate(state, schema("precompact-state"))
    context = _context(run_hook("SessionStart", _payload("compact", "unknown-session"), builds))
    assert f"resume build 08-search-reindex ({folder}/)" in context or "is complete" in context
    if folder.startswith("02-builds/complete/"):
        assert "That build is complete: there is nothing to resume in it." in context
        assert "Read these files" not in context
    else:
        assert f"   - {folder}/03-working/reindex-notes.md" in context


def test_sessionstart_prefers_the_unfinished_build_a_session_shares_with_a_complete_one(builds: Path) -> None:
    manifest = builds / "02-builds/complete/04-auth-migration/01-planning/resume-context.md"
    manifest.write_text(manifest.read_text().replace(f'["{DONE_SESSION}"]', f'["{DONE_SESSION}", "{EXEC_SESSION}"]'))
    context = _context(run_hook("SessionStart", _payload("resume", EXEC_SESSION), builds))
    assert "resume build 08-search-reindex (02-builds/active/08-search-reindex/)" in context


def test_sessionstart_a_session_id_only_in_a_builds_body_is_no_match(builds: Path) -> None:
    manifest = builds / "02-builds/active/07-billing-export/01-planning/resume-context.md"
    manifest.write_text(manifest.read_text() + "\nmentioned: 0d0d0d0d-aaaa\n")
    result = run_hook("SessionStart", _payload("compact", "0d0d0d0d-aaaa"), builds)
    assert (result.returncode, result.stdout.strip(), result.stderr) == (0, "{}", "")


def test_sessionstart_for_a_saved_build_that_is_gone_says_so(builds: Path) -> None:
    (builds / STATE).parent.mkdir(parents=True, exist_ok=True)
    state = {"active_project_id": "66-gone-build", "confidence": "high", "metadata": {"kind": "build"}}
    (builds / STATE).write_text(json.dumps(state))
    result = run_hook("SessionStart", _payload("compact", "unknown-session"), builds)
    assert (result.returncode, result.stdout.strip()) == (0, "{}")
    assert len(result.stderr.splitlines()) == 1 and "the saved build 66-gone-build has no folder under 02-builds/" in (
        result.stderr
    )


def test_sessionstart_most_recent_active_build_reads_last_updated_not_mtimes(builds: Path) -> None:
    older = builds / "02-builds/active/07-billing-export/01-planning/resume-context.md"
    os.utime(older, (4_000_000_000, 4_000_000_000))  # the newest file on disk, the oldest last_updated
    context = _context(run_hook("SessionStart", _payload("resume", "unknown-session"), builds))
    assert "resume build 08-search-reindex" in context and "most recently updated active build" in context


def test_the_build_hook_path_imports_no_heavy_module(builds: Path) -> None:
    code = (
        "import sys\n"
        "from ctxres.hooks import main\n"
        f"one = main.dispatch('SessionStart', {{'source': 'resume', 'session_id': {EXEC_SESSION!r}}})\n"
        "two = main.dispatch('SessionStart', {'source': 'resume', 'session_id': 'nobody'})\n"
        "print('08-search-reindex' in str(one), '08-search-reindex' in str(two))\n"
        f"print([m for m in sys.modules if m.startswith({HEAVY!r})])\n"
    )
    env = {**os.environ, "CLAUDE_PROJECT_DIR": str(builds), "CTXRES_NOW": NOW}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True).stdout
    assert out.splitlines() == ["True True", "[]"]  # the workspace's profile = "nexus" selects the module
