"""Examples and templates: `ctxres check` (its walk of a folder, `--force-exclude`), `ctxres stale` and
`check --since` leave out the files that the hooks never take for the live workflow
(`ctxres.state.live.is_example_path`), tested on the path from the folder named on the command line;
`--include-examples` or `check-examples = true` checks them too."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ctxres.config import Config
from ctxres.linters.checking.discovery import discover
from ctxres.state.live import is_example_path

from ..conftest import FIXTURES, ROOT
from ..git_sandbox import Sandbox

# A template as a project keeps one: placeholders where the values go (C004 on `updated_at`).
TEMPLATE = """\
pipelines:
  main:
    current_phase: 1
    phases:
      - {id: 1, name: "Setup", status: "IN_PROGRESS"}
workflow:
  id: "{WORKFLOW_ID}"
  status: "ACTIVE"
resumption:
  recovery_state:
    last_checkpoint: null
    current_phase: 1
    current_phase_name: "{PHASE_NAME}"
    workflow_status: "ACTIVE"
    current_activity: "phase-1"
    next_step: "{NEXT_STEP}"
    updated_at: "{UPDATED_TIMESTAMP}"
  files_to_read: ["ORCHESTRATION.yaml"]
  quality_trajectory: {gates_completed: [], gates_remaining: [], score_history: {}}
  defect_summary: {total_defects_found: 0, total_defects_resolved: 0, unresolved_defects: []}
  agent_summaries: {}
  compaction_events: {count: 0, events: []}
"""
WORKFLOW = (FIXTURES / "rules/A010/bad/ORCHESTRATION.yaml").read_text("utf-8")
MOVED = WORKFLOW.replace('  status: "ACTIVE"', '  status: "PAUSED"', 1)  # the state moves, the section does not
assert MOVED != WORKFLOW

# (path, is it an example or a template): the near misses decided by the rules of is_example_path.
PATHS = [
    ("ORCHESTRATION.template.yaml", True),
    ("orchestration-template.yaml", True),
    ("ORCHESTRATION.sample.yaml", True),
    ("OrchestrationExample.yaml", True),
    ("templates_report_ORCHESTRATION.yaml", True),  # the word `templates` in the name
    ("templates/ORCHESTRATION.yaml", True),
    ("proj/examples/ORCHESTRATION.yaml", True),
    ("docs/protocol/ORCHESTRATION.yaml", True),
    ("exemplary-ORCHESTRATION.yaml", False),  # a word that is not `example`
    ("contemplate/ORCHESTRATION.yaml", False),  # a folder whose name merely contains `template`
    ("my-templates/ORCHESTRATION.yaml", False),  # a folder named otherwise
    ("templated-ORCHESTRATION.yaml", False),
    ("docs/ORCHESTRATION.yaml", False),
    ("proj/ORCHESTRATION.yaml", False),
]


def _tree(root: Path, rels: list[str], text: str = TEMPLATE) -> None:
    for rel in rels:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def _found(root: Path, config: Config, *paths: Path) -> list[str]:
    return [a.display for a in discover(list(paths) or [root], config, cwd=root)]


def test_a_walk_leaves_out_exactly_what_the_hooks_never_take_for_live(tmp_path: Path) -> None:
    _tree(tmp_path, [rel for rel, _ in PATHS])
    config = Config(root=tmp_path)
    assert _found(tmp_path, config) == sorted(rel for rel, example in PATHS if not example)
    assert sorted(rel for rel, _ in PATHS if is_example_path(rel)) == sorted(rel for rel, ex in PATHS if ex)
    # check-examples = true: every one of them.
    assert _found(tmp_path, config.replace(check_examples=True)) == sorted(rel for rel, _ in PATHS)


def test_the_same_outside_git_and_inside(tmp_path: Path) -> None:
    box = Sandbox(tmp_path / "repo")
    _tree(box.root, [rel for rel, _ in PATHS])
    box.git("add", ".")
    assert box.listed(".") == sorted(rel for rel, example in PATHS if not example)
    assert box.listed("--no-respect-gitignore", ".") == box.listed(".")
    assert box.listed("--include-examples", ".") == sorted(rel for rel, _ in PATHS)


def test_the_path_is_tested_from_the_folder_named_on_the_command_line(tmp_path: Path) -> None:
    """`ctxres check fixtures/example` (a folder literally named `example`) checks what it holds; a folder
    named so below the named folder counts."""
    _tree(tmp_path, ["fixtures/example/ORCHESTRATION.yaml", "fixtures/example/templates/ORCHESTRATION.yaml"])
    config = Config(root=tmp_path)
    assert _found(tmp_path, config, tmp_path / "fixtures/example") == ["fixtures/example/ORCHESTRATION.yaml"]
    assert _found(tmp_path, config, tmp_path / "fixtures") == []
    assert _found(tmp_path, config) == []
    inside = tmp_path / "fixtures/example/templates"
    assert _found(tmp_path, config, inside) == ["fixtures/example/templates/ORCHESTRATION.yaml"]


def test_the_readme_example_is_still_checked() -> None:
    box_listing = [a.display for a in discover([FIXTURES / "example"], Config(root=ROOT), cwd=ROOT)]
    assert "fixtures/example/ORCHESTRATION.yaml" in box_listing


def test_a_template_is_reported_only_when_asked(tmp_path: Path) -> None:
    box = Sandbox(tmp_path / "repo")
    box.write("ORCHESTRATION.template.yaml", TEMPLATE)
    box.git("add", ".")
    default = box.ctxres("check", ".")
    assert default.returncode == 0, default.stdout
    assert "0 files checked" in default.stdout
    flagged = box.ctxres("check", "--include-examples", ".")
    assert flagged.returncode == 1
    assert re.search(r"ORCHESTRATION\.template\.yaml:\d+:\d+: C004 .*\{UPDATED_TIMESTAMP\}", flagged.stdout)
    box.write(".ctxres.toml", "check-examples = true\n")
    configured = box.ctxres("check", ".")
    assert configured.returncode == 1 and configured.stdout == flagged.stdout
    # --list-files leaves it out, as it leaves out the excluded files.
    box.write(".ctxres.toml", "check-examples = false\n")
    assert box.listed(".") == []


def test_a_file_named_is_checked_unless_force_exclude(tmp_path: Path) -> None:
    box = Sandbox(tmp_path / "repo")
    box.write("templates/ORCHESTRATION.yaml", TEMPLATE)
    box.write("proj/ORCHESTRATION.yaml", TEMPLATE)
    box.git("add", ".")
    assert box.listed("templates/ORCHESTRATION.yaml") == ["templates/ORCHESTRATION.yaml"]
    assert box.ctxres("check", "templates/ORCHESTRATION.yaml").returncode == 1
    forced = ["--force-exclude", "templates/ORCHESTRATION.yaml", "proj/ORCHESTRATION.yaml"]
    assert box.listed(*forced) == ["proj/ORCHESTRATION.yaml"]
    # From the project root, wherever ctxres runs: from inside `templates/` the file is still a template.
    box.write(".ctxres.toml", "")
    assert box.listed("--force-exclude", "ORCHESTRATION.yaml", cwd=box.root / "templates") == []
    assert box.listed("ORCHESTRATION.yaml", cwd=box.root / "templates") == ["ORCHESTRATION.yaml"]
    assert box.listed("--force-exclude", "--include-examples", "templates/ORCHESTRATION.yaml") == [
        "templates/ORCHESTRATION.yaml"
    ]


def test_stale_leaves_out_a_template_as_check_does(tmp_path: Path) -> None:
    box = Sandbox(tmp_path / "repo")
    box.write("templates/ORCHESTRATION.yaml", WORKFLOW)
    box.git("add", ".")
    box.git("commit", "-q", "-m", "template")
    box.write("templates/ORCHESTRATION.yaml", MOVED)
    box.git("add", ".")
    assert box.ctxres("stale").returncode == 0
    assert box.ctxres("stale", "--force-exclude", "templates/ORCHESTRATION.yaml").returncode == 0
    assert box.ctxres("stale", "templates/ORCHESTRATION.yaml").returncode == 1  # named: compared
    assert box.ctxres("stale", "--include-examples").returncode == 1
    box.git("commit", "-q", "-m", "moved")
    # --since: from the top, or from the folder named.
    assert box.ctxres("stale", "--since", "HEAD~1").returncode == 0
    assert box.ctxres("check", "--since", "HEAD~1", ".").returncode == 0
    assert box.ctxres("stale", "--since", "HEAD~1", "templates").returncode == 1
    since = box.ctxres("check", "--since", "HEAD~1", "--include-examples", ".")
    assert since.returncode == 1 and "S013" in since.stdout


@pytest.fixture
def hooked(tmp_path: Path) -> Sandbox:
    box = Sandbox(tmp_path / "repo")
    box.use_shipped_hooks("ctxres-check", "ctxres-stale")
    installed = box.pre_commit("install")
    assert installed.returncode == 0, installed.stderr
    return box


def test_a_template_is_committed_past_the_hooks(hooked: Sandbox) -> None:
    hooked.write("ORCHESTRATION.template.yaml", TEMPLATE)
    hooked.write("proj/ORCHESTRATION.yaml", TEMPLATE)  # the same file, not a template: blocked
    hooked.git("add", ".")
    blocked = hooked.commit("a template and a workflow")
    output = blocked.stdout + blocked.stderr
    assert blocked.returncode == 1
    assert "proj/ORCHESTRATION.yaml:" in output and "ORCHESTRATION.template.yaml:" not in output
    hooked.git("rm", "-q", "--cached", "proj/ORCHESTRATION.yaml")
    done = hooked.commit("a template")
    assert done.returncode == 0, done.stdout + done.stderr
