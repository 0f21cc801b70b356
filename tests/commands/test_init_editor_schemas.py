"""`ctxres init --only editor`: the workflow files' JSON Schema wired for the YAML language server, tested
through exactly what is written (the settings' globs, the schema file they name)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import yaml

ROOT = Path(__file__).resolve().parents[2]
GOOD = ROOT / "fixtures" / "templates" / "proj001-qg2-ORCHESTRATION.yaml"


def init(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ctxres.linters.cli", "init", *args], capture_output=True, text=True, cwd=cwd
    )


def errors_by_file(project: Path) -> dict[str, list[str]]:
    """What an editor reading the written ``yaml.schemas`` reports: each file its globs select, validated
    against the schema file the setting names (paths relative to the workspace)."""
    settings = json.loads((project / ".vscode" / "settings.json").read_text("utf-8"))
    found: dict[str, list[str]] = {}
    for schema_path, globs in settings["yaml.schemas"].items():
        schema = json.loads((project / schema_path).read_text("utf-8"))
        validator = jsonschema.validators.validator_for(schema)(schema)
        for glob in globs:
            for path in sorted(project.glob(glob)):
                data = yaml.safe_load(path.read_text("utf-8"))
                found[path.relative_to(project).as_posix()] = [e.message for e in validator.iter_errors(data)]
    return found


def test_the_editor_step_is_opt_in_and_validates_a_good_and_a_bad_workflow(tmp_path: Path) -> None:
    project = tmp_path / "repo"
    (project / "projects" / "good").mkdir(parents=True)
    (project / "projects" / "bad").mkdir(parents=True)
    shutil.copy(GOOD, project / "projects" / "good" / "ORCHESTRATION.yaml")
    bad = GOOD.read_text("utf-8").replace('updated_at: "2026-02-17T11:45:00Z"', "updated_at: [not, a, time]")
    (project / "projects" / "bad" / "ORCHESTRATION.yaml").write_text(bad, "utf-8")
    (project / ".vscode").mkdir()
    (project / ".vscode" / "settings.json").write_text('{"editor.tabSize": 2}\n', "utf-8")
    assert init("--dry-run", cwd=project).stdout.count(".vscode") == 0  # not part of a plain `ctxres init`
    done = init("--only", "editor", cwd=project)
    assert done.returncode == 0, done.stderr
    assert json.loads((project / ".vscode" / "settings.json").read_text("utf-8"))["editor.tabSize"] == 2
    errors = errors_by_file(project)
    assert errors["projects/good/ORCHESTRATION.yaml"] == []
    assert errors["projects/bad/ORCHESTRATION.yaml"], errors
    assert init("--only", "editor", cwd=project).stdout.startswith("Nothing to do")
