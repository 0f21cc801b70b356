"""Nexus resume state: the pure core, the N rules on the real corpus, `ctxres migrate-nexus`.

docs/formats.md, "Nexus state".
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ctxres import nexus
from ctxres.config import Config, load_config
from ctxres.findings import Finding
from ctxres.linters.checking import engine
from ctxres.linters.cli import main

from ..conftest import CORPUS

NEXUS = CORPUS / "nexus"
P24 = "02-projects/24-project-skills-research-resume-expansion"
TEST_DATA = f"{P24}/03-working/test_data"


# --------------------------------------------------------------------------- pure core


@pytest.mark.parametrize(
    ("value", "ok"),
    [("24-project-x", True), ("07-a1-b2", True), ("4-x", False), ("24_x", False), ("24-X", False), ("24-", False)],
)
def test_project_ids(value: str, ok: bool) -> None:
    assert nexus.is_project_id(value) is ok


def test_project_of_a_path_and_of_a_command() -> None:
    assert nexus.project_in_path("/home/a/nexus/02-projects/24-x/01-planning/plan.md") == "24-x"
    assert nexus.project_in_path("C:\\nexus\\02-projects\\07-y\\plan.md") == "07-y"
    assert nexus.project_in_path("02-projects/24-x") == "24-x"
    assert nexus.project_in_path("/a/old-02-projects/24-x/plan.md") is None
    assert nexus.project_in_path("/a/02-projects/README.md") is None
    command = "cat 02-projects/24-x/a.md && grep -r TODO ./02-projects/25-y/ ; ls not02-projects/26-z"
    assert nexus.projects_in_text(command) == ["24-x", "25-y"]


def _tool(name: str, **args: str) -> dict[str, object]:
    return {"type": "tool_use", "id": "t", "name": name, "input": args}


def test_tool_calls_of_a_transcript_line() -> None:
    line = {
        "type": "assistant",
        "message": {
            "content": [
                {"type": "text", "text": "02-projects/99-not-a-call/x"},
                _tool("Read", file_path="/n/02-projects/24-x/a.md"),
                _tool("Bash", command="ls 02-projects/25-y"),
                _tool("NotebookEdit", notebook_path="/n/02-projects/24-x/b.ipynb"),
                _tool("Grep", pattern="x", path="/n/02-projects/26-z"),  # not a tool the detection counts
            ]
        },
    }
    assert nexus.tool_calls(line) == [("NotebookEdit", "24-x"), ("Bash", "25-y"), ("Read", "24-x")]
    assert nexus.tool_calls({"type": "user", "message": line["message"]}) == []


@pytest.mark.parametrize(
    ("calls", "expected"),
    [
        ([("Edit", "24-x")], ("24-x", "high")),
        ([("Read", "24-x")] * 3, ("24-x", "high")),
        ([("Read", "24-x")], ("24-x", "medium")),
        ([("Edit", "24-x")] * 4 + [("Read", "25-y")], ("24-x", "high")),
        ([("Edit", "24-x")] * 3 + [("Read", "25-y")] * 2, ("24-x", "medium")),
        ([("Read", "24-x"), ("Read", "25-y"), ("Read", "26-z")], ("24-x", "low")),  # a tie: the newest wins
        ([("Read", "25-y"), ("Read", "25-y"), ("Write", "24-x")], ("24-x", "low")),  # a write weighs 3 reads
        ([], (None, "low")),
    ],
)
def test_detection_confidence(calls: list[tuple[str, str]], expected: tuple[str | None, str]) -> None:
    found = nexus.detect(calls)
    assert (found.project, found.confidence) == expected
    assert found.method == ("transcript" if calls else "fallback")


def test_the_state_is_flat_and_small() -> None:
    record = nexus.state_record(nexus.detect([("Edit", "24-x")]), "2026-01-04T12:00:00Z")
    assert record == {
        "active_project_id": "24-x",
        "confidence": "high",
        "detection_method": "transcript",
        "timestamp": "2026-01-04T12:00:00Z",
    }
    assert len(nexus.encode_state(record).encode()) < nexus.MAX_STATE_BYTES
    with pytest.raises(ValueError, match="over 1 KB"):
        nexus.encode_state({**record, "timestamp": "x" * 1100})
    assert nexus.state_project({"project_detection": {"project_id": "24-x"}}) == "24-x"  # the old shape is read
    assert nexus.state_project({"active_project_id": "../../etc"}) is None


BODY = """
# Validation Gate

Before continuing, you MUST verify you understand:

1. **Project Purpose** (from [overview.md](overview.md)):
   - [ ] What problem are we solving?
   - Answer: not a question.
2. **Next** : What is the next task?

---

*Auto-updated by execute-project.*
"""


def test_validation_questions_and_the_gate() -> None:
    assert nexus.validation_questions(BODY) == ["What problem are we solving?", "Next : What is the next task?"]
    gate, other, _first = nexus.body_content(BODY)
    assert gate > 100 and other == 0
    summary = BODY + "\n# Session History\n\n" + "- did a thing that is now in the project's own files\n" * 6
    assert nexus.duplicates_content(summary) and not nexus.duplicates_content(BODY)


@pytest.mark.parametrize(
    ("entry", "problem"),
    [
        ("01-planning/plan.md", None),
        ("./a/../b.md", None),
        ("../25-y/plan.md", "it leaves the project folder (`..`)"),
        ("a/../../b.md", "it leaves the project folder (`..`)"),
        ("/etc/passwd", "it is an absolute path; entries are relative to the project folder"),
        ("C:\\x\\y.md", "it is an absolute path; entries are relative to the project folder"),
        ("~/notes.md", "it is an absolute path; entries are relative to the project folder"),
        (3, "it is not a file path"),
    ],
)
def test_files_to_load_entries_stay_in_the_project(entry: object, problem: str | None) -> None:
    assert nexus.load_problem(entry) == problem


# --------------------------------------------------------------------------- the N rules on the real corpus


@pytest.fixture(scope="module")
def corpus_findings() -> list[Finding]:
    return engine.run([NEXUS], Config(root=NEXUS), cwd=NEXUS).findings


def _of(findings: list[Finding], path: str, prefix: str = "N") -> list[tuple[int, int, str]]:
    return [(f.position.line, f.position.col, f.code) for f in findings if f.path == path and f.code.startswith(prefix)]


def test_corpus_test_data_is_skipped_unless_examples_are_checked(corpus_findings: list[Finding]) -> None:
    """`test_data/` holds the project's test inputs, some invalid on purpose: no state of its own."""
    assert [f for f in corpus_findings if f.path.startswith(TEST_DATA)] == []
    checked = engine.run([NEXUS], Config(root=NEXUS, check_examples=True), cwd=NEXUS).findings
    assert {f.path for f in checked if f.path.startswith(TEST_DATA)} == {
        f"{TEST_DATA}/invalid_nested_precompact_state.json",
        f"{TEST_DATA}/test-project/01-planning/resume-context.md",
    }


def test_corpus_nested_precompact_state_is_reported_as_such() -> None:
    path = f"{TEST_DATA}/invalid_nested_precompact_state.json"
    found = engine.run([NEXUS], Config(root=NEXUS, check_examples=True), cwd=NEXUS).findings
    assert _of(found, path) == [(2, 3, "N004")]
    [finding] = [f for f in found if f.path == path and f.code == "N004"]
    assert 'move `project_detection.project_id` to the top level as `"active_project_id"`' in finding.fix


def test_corpus_versions_written_as_numbers_and_legacy_files(corpus_findings: list[Finding]) -> None:
    path = "02-projects/26-test-resume-project/01-planning/resume-context.md"
    assert (2, 24, "N002") in _of(corpus_findings, path)
    # project 34 is complete (`current_phase: complete`), and so is project 10 (`COMPLETE`): nobody resumes
    # them again, so neither 34's version written as a number nor 10's leftover `_resume.md` is reported
    complete = "02-projects/34-subagent-validation-system/01-planning/resume-context.md"
    assert _of(corpus_findings, complete, "N002") == []
    legacy = {f.path: f.message for f in corpus_findings if f.code == "N009"}
    assert sorted(legacy) == [f"{P24}/01-planning/_resume.md"]
    assert "`resume_version: 1.6` for `resume_schema_version`" in legacy[f"{P24}/01-planning/_resume.md"]
    assert "unquoted `last_updated`" in legacy[f"{P24}/01-planning/_resume.md"]


def test_corpus_valid_test_files_have_no_finding(corpus_findings: list[Finding]) -> None:
    assert [f for f in corpus_findings if f.path == f"{TEST_DATA}/valid_precompact_state.json"] == []
    # the other state file: a null project and the fallback method are valid
    assert [f for f in corpus_findings if "03-working/00-system" in f.path] == []


def test_corpus_summary_in_a_manifest_is_reported(corpus_findings: list[Finding]) -> None:
    # project 34 carries a summary in its body, but it is complete: nobody resumes it again (the same body
    # in an unfinished project is N008: fixtures/rules/N008/bad-unfinished-project)
    path = "02-projects/34-subagent-validation-system/01-planning/resume-context.md"
    assert _of(corpus_findings, path, "N008") == []
    # the builds manifest's two status lines beside no gate are tolerated
    assert _of(corpus_findings, "02-builds/02-state-system-refactor/01-planning/resume-context.md", "N008") == []


def test_test_files_not_named_resume_context_are_checked_when_configured(tmp_path: Path) -> None:
    """`valid_resume_context.md` and `legacy_resume.md` are not discovered by default; with a pattern for
    them, the valid one is clean and the legacy one gets the normalisation warnings."""
    shutil.copytree(NEXUS / TEST_DATA, tmp_path / "test_data")
    (tmp_path / ".ctxres.toml").write_text(
        "check-examples = true\n"
        '[patterns]\nresume-context = ["resume-context.md", "valid_resume_context.md", "legacy_resume.md"]\n'
    )
    report = engine.run([tmp_path], load_config(tmp_path), cwd=tmp_path)
    assert [f for f in report.findings if f.path.endswith("valid_resume_context.md")] == []
    legacy = [f for f in report.findings if f.path.endswith("legacy_resume.md") and f.code.startswith("N")]
    assert [(f.position.line, f.code) for f in legacy] == [(2, "N001"), (8, "N003")]
    assert legacy[0].fix.startswith('write `resume_schema_version: "1.2"` instead')
    assert legacy[1].fix == 'quote it: `last_updated: "2026-01-03T17:00:00"`'


# --------------------------------------------------------------------------- ctxres migrate-nexus


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "nexus"
    shutil.copytree(NEXUS, root)
    for path in root.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    monkeypatch.chdir(root)
    return root


def _snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_migrate_normalises_in_place_retires_leftovers_and_is_idempotent(
    workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = _snapshot(workspace)
    projects = sorted(str(p.relative_to(workspace)) for p in (workspace / "02-projects").iterdir())
    assert main(["migrate-nexus", "--dry-run", *projects]) == 0
    assert _snapshot(workspace) == before
    assert main(["migrate-nexus", *projects]) == 0
    out = capsys.readouterr().out
    after = _snapshot(workspace)
    manifest26 = "02-projects/26-test-resume-project/01-planning/resume-context.md"
    assert after[manifest26] == before[manifest26].replace(
        b"resume_schema_version: 1.0", b'resume_schema_version: "1.0"'
    )
    assert after[manifest26 + ".backup.1"] == before[manifest26]  # the existing .backup is kept as it was
    assert after[manifest26 + ".backup"] == before[manifest26 + ".backup"]
    # project 10: the leftover _resume.md is identical to its existing backup, so it is removed
    assert "02-projects/10-dynamic-subagent-research/_resume.md" not in after
    # project 24: the leftover is moved to its backup, byte for byte
    legacy24 = f"{P24}/01-planning/_resume.md"
    assert legacy24 not in after and after[legacy24 + ".backup"] == before[legacy24]
    assert "up to date" in out  # project 18 had nothing to do
    assert main(["migrate-nexus", *projects]) == 0
    assert capsys.readouterr().out.count("up to date") == len(projects)
    assert _snapshot(workspace) == after
    findings = engine.run([workspace], Config(root=workspace), cwd=workspace).findings
    assert [f for f in findings if f.code in ("N001", "N002", "N003", "N009")] == []


def test_migrate_writes_the_manifest_from_a_legacy_file(workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = workspace / "02-projects" / "41-legacy-only"
    (project / "01-planning").mkdir(parents=True)
    legacy = project / "_resume.md"
    legacy.write_bytes((NEXUS / f"{TEST_DATA}/legacy_resume.md").read_bytes())
    for name in ("overview.md", "plan.md"):
        (project / "01-planning" / name).write_text(f"# {name}\n")
    assert main(["migrate-nexus", str(project)]) == 0
    out = capsys.readouterr().out
    assert "write 02-projects/41-legacy-only/01-planning/resume-context.md (written from" in out
    assert "move 02-projects/41-legacy-only/_resume.md to 02-projects/41-legacy-only/_resume.md.backup" in out
    assert "differs from the folder name '41-legacy-only'" in out
    text = (project / "01-planning" / "resume-context.md").read_text()
    assert text.startswith('---\nresume_schema_version: "1.0"\nlast_updated: "2026-01-03T17:00:00"\n')
    assert 'current_phase: "planning"' in text and 'project_name: "Legacy Only"' in text
    assert "# Validation Gate" in text and "Session History" not in text  # the summary stays in the backup
    assert (project / "_resume.md.backup").read_bytes() == (NEXUS / f"{TEST_DATA}/legacy_resume.md").read_bytes()
    report = engine.run([project], load_config(project), cwd=workspace)
    assert [(Path(f.path).name, f.code) for f in report.findings] == []
    assert main(["migrate-nexus", str(project)]) == 0
    assert capsys.readouterr().out.strip() == "02-projects/41-legacy-only: up to date"


def test_migrate_reports_a_legacy_file_it_cannot_read(workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = workspace / "02-projects" / "42-broken"
    project.mkdir()
    (project / "_resume.md").write_text("no front matter here\n")
    assert main(["migrate-nexus", str(project)]) == 1
    err = capsys.readouterr().err
    assert "42-broken: not migrated: _resume.md cannot be migrated: it has no YAML front matter" in err
    assert (project / "_resume.md").exists() and not (project / "01-planning").exists()
    assert main(["migrate-nexus", "no-such-dir"]) == 2


def test_front_matter_normalisation_keeps_every_other_byte() -> None:
    from ctxres.linters.commands.migrate_nexus import normalise_front_text

    front = 'resume_schema_version: 1.10   # the format\nresume_version: 2\nlast_updated: 2026-01-01T10:00:00\nx: "y"\n'
    text, changes = normalise_front_text(front)
    assert text == 'resume_schema_version: "1.10"   # the format\nlast_updated: "2026-01-01T10:00:00"\nx: "y"\n'
    assert len(changes) == 3
    assert normalise_front_text(text) == (text, [])


# ------------------------------------------------------------------ finished projects and path bases


def _manifest(phase: str, files: str, task: str = "4") -> str:
    return (
        '---\nresume_schema_version: "1.0"\nlast_updated: "2026-03-10T09:00:00Z"\nproject_id: "31-billing-api"\n'
        f'project_name: "Billing API"\ncurrent_phase: {phase}\nnext_action: none\nfiles_to_load: {files}\n'
        f"current_section: 2\ncurrent_task: {task}\n---\n\n# Validation Gate\n\n- [ ] What is the next task?\n"
    )


def _check_manifest(tmp_path: Path, text: str, extra: dict[str, str] | None = None) -> list[tuple[int, str, str]]:
    planning = tmp_path / "02-projects" / "31-billing-api" / "01-planning"
    planning.mkdir(parents=True, exist_ok=True)
    (planning / "resume-context.md").write_text(text)
    for name, content in (extra or {}).items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(content)
    report = engine.run([tmp_path], Config(root=tmp_path), cwd=tmp_path)
    return [(f.position.line, f.code, f.message) for f in report.findings]


@pytest.mark.parametrize("phase", ["complete", '"COMPLETE"', "Complete", "completed"])
def test_a_finished_project_with_no_file_to_load_is_the_normal_end_state(tmp_path: Path, phase: str) -> None:
    assert _check_manifest(tmp_path, _manifest(phase, "[]", '"Project Complete"')) == []


def test_an_unfinished_project_with_no_file_to_load_is_still_reported(tmp_path: Path) -> None:
    found = _check_manifest(tmp_path, _manifest("execution", "[]", '"Project Complete"'))
    assert [(line, code) for line, code, _message in found] == [(8, "C005"), (10, "C002")]


def test_a_phase_that_only_looks_finished_is_still_an_invalid_value(tmp_path: Path) -> None:
    found = _check_manifest(tmp_path, _manifest("finished", "[]"))
    assert [(line, code) for line, code, _message in found] == [(6, "C003"), (8, "C005")]
    assert "complete" in found[0][2]  # the finished form is offered


def test_corpus_finished_projects_are_not_errors(corpus_findings: list[Finding]) -> None:
    for project in ("34-subagent-validation-system", "10-dynamic-subagent-research"):
        path = f"02-projects/{project}/01-planning/resume-context.md"
        assert [f.code for f in corpus_findings if f.path == path and f.code in ("C002", "C003", "C005")] == []


def test_workspace_root_entries_are_resolved_against_the_workspace_root(tmp_path: Path) -> None:
    files = '["01-planning/steps.md", "00-system/core/orchestrator.md", "02-projects/32-ui/01-planning/plan.md"]'
    present = {
        "02-projects/31-billing-api/01-planning/steps.md": "# Steps\n",
        "00-system/core/orchestrator.md": "# Orchestrator\n",
        "02-projects/32-ui/01-planning/plan.md": "# Plan\n",
    }
    assert _check_manifest(tmp_path, _manifest("execution", files), present) == []
    del present["00-system/core/orchestrator.md"]
    shutil.rmtree(tmp_path / "00-system")
    found = _check_manifest(tmp_path, _manifest("execution", files), present)
    assert found == [
        (8, "N007", "`files_to_load` entry '00-system/core/orchestrator.md' does not exist in the workspace root")
    ]
    del present["02-projects/31-billing-api/01-planning/steps.md"]
    (tmp_path / "02-projects/31-billing-api/01-planning/steps.md").unlink()
    [(_line, code, message)] = _check_manifest(tmp_path, _manifest("execution", files), present)
    assert code == "N007" and message.startswith("2 of 3 `files_to_load` entries do not exist: ")
    assert "01-planning/steps.md (in the project folder 31-billing-api/)" in message
    assert "00-system/core/orchestrator.md (in the workspace root)" in message


def test_a_project_folder_named_like_a_workspace_folder_is_still_project_relative(tmp_path: Path) -> None:
    """`02-resources/` is a project folder, not a workspace one: it stays relative to the project."""
    found = _check_manifest(tmp_path, _manifest("execution", '["02-resources/design.md"]'))
    assert [(code, message) for _line, code, message in found] == [
        ("N007", "`files_to_load` entry '02-resources/design.md' does not exist in the project folder 31-billing-api/")
    ]


def test_a_sibling_project_file_is_inside_the_workspace_but_leaving_the_workspace_is_not(tmp_path: Path) -> None:
    sibling = {"02-projects/32-ui/01-planning/plan.md": "# Plan\n"}
    assert _check_manifest(tmp_path, _manifest("execution", '["../32-ui/01-planning/plan.md"]'), sibling) == []
    found = _check_manifest(tmp_path, _manifest("execution", '["../../../notes.md", "/etc/hosts"]'), sibling)
    assert [(code, message.split(": ", 1)[1]) for _line, code, message in found] == [
        ("N006", f"it leaves the workspace {tmp_path.name}/ (`..`)"),
        ("N006", "it is an absolute path; entries are relative to the project folder"),
    ]


def test_outside_a_workspace_the_project_folder_is_the_limit(tmp_path: Path) -> None:
    planning = tmp_path / "loose" / "31-billing-api" / "01-planning"
    planning.mkdir(parents=True)
    (planning / "resume-context.md").write_text(_manifest("execution", '["../32-ui/plan.md"]'))
    report = engine.run([tmp_path], Config(root=tmp_path), cwd=tmp_path)
    assert [(f.code, f.message.split(": ", 1)[1]) for f in report.findings] == [
        ("N006", "it leaves the project folder (`..`)")
    ]


def test_builds_in_paths_and_commands() -> None:
    assert nexus.build_in_path("/n/02-builds/active/08-x/01-planning/plan.md") == "08-x"
    assert nexus.build_in_path("C:\\n\\02-builds\\complete\\04-y\\a.md") == "04-y"
    assert nexus.build_in_path("/n/02-builds/02-flat/01-planning/a.md") == "02-flat"
    assert nexus.build_in_path("/n/02-builds/active/README.md") is None
    assert nexus.target_in_path("/n/02-builds/active/08-x/a.md") == "02-builds/08-x"
    assert nexus.target_in_path("/n/02-projects/24-x/a.md") == "24-x"
    command = "ls 02-builds/active/08-x && cat 02-projects/24-x/a.md 02-builds/02-flat/b.md; ls x02-builds/09-z"
    assert nexus.targets_in_text(command) == ["24-x", "02-builds/08-x", "02-builds/02-flat"]


def test_a_build_state_is_flat_and_names_its_kind() -> None:
    record = nexus.state_record(nexus.detect([("Edit", "02-builds/08-x")]), "2026-01-04T12:00:00Z")
    assert record["active_project_id"] == "08-x" and record["metadata"] == {"kind": "build"}
    assert nexus.state_target(record) == "02-builds/08-x"
    assert nexus.state_target({**record, "metadata": None}) == "08-x"


BUILDS = Path(__file__).resolve().parents[2] / "fixtures" / "replay" / "g-nexus-builds" / "workspace"


def run_check(root: Path) -> list[Finding]:
    return engine.run([root], load_config(root), cwd=root).findings


def test_build_manifests_are_checked_against_their_build_folder(tmp_path: Path) -> None:
    """The facts of Nexus's builds: continue_at and blockers are known keys, the generated body is not
    reported, files_to_load resolve against 02-builds/active/<build>/ (and 00-system/ against the workspace)."""
    root = tmp_path / "ws"
    shutil.copytree(BUILDS, root)
    assert run_check(root) == []
    manifest = root / "02-builds/active/08-search-reindex/01-planning/resume-context.md"
    text = manifest.read_text().replace(
        '  - "03-working/reindex-notes.md"', '  - "03-working/gone.md"\n  - "00-system/x.md"'
    )
    manifest.write_text(text.replace('build_id: "08-search-reindex"', 'build_id: "Search Reindex"'))
    found = {(f.code, f.message) for f in run_check(root)}
    assert (
        "C004",
        '`build_id` is "Search Reindex", expected a value matching `^\\d{2}-[a-z0-9]+(-[a-z0-9]+)*$`',
    ) in found
    assert (
        "N007",
        "2 of 4 `files_to_load` entries do not exist: 03-working/gone.md (in the build folder 08-search-reindex/), "
        "00-system/x.md (in the workspace root)",
    ) in found
    assert len(found) == 2
