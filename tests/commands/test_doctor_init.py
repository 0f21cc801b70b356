"""`ctxres init` gives a repository every layer; `ctxres doctor` names any that is missing."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from ctxres.linters.commands.init import TEMPLATE_PATH
from ctxres.state.live import PROTOCOL_DOCS_FOLDER, no_live_workflow

from ..cli_process import ctxres
from ..conftest import ROOT


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    return tmp_path


def _doctor(repo: Path) -> tuple[int, dict[str, str]]:
    result = ctxres("doctor", "--output-format", "json", cwd=repo)
    return result.returncode, {row["layer"]: row["status"] for row in json.loads(result.stdout)["layers"]}


def test_init_then_doctor_reports_every_layer_present(repo: Path) -> None:
    assert _doctor(repo)[0] == 1
    assert ctxres("init", cwd=repo).returncode == 0
    code, rows = _doctor(repo)
    assert rows.pop("rev") == "present"  # `repo: local`: nothing to fetch, no rev to check
    assert code == 0 and set(rows.values()) == {"present"}
    assert {"hook runs", "git hook"} <= set(rows)  # every hook command answers; `pre-commit install` was run
    assert ctxres("check", ".", cwd=repo).returncode == 0  # what init wrote is itself clean
    again = ctxres("init", cwd=repo)
    assert again.returncode == 0 and "Nothing to do" in again.stdout


def test_doctor_names_the_live_workflow_and_never_fails_for_want_of_one(repo: Path) -> None:
    assert ctxres("init", cwd=repo).returncode == 0
    assert (repo / TEMPLATE_PATH).is_file() and TEMPLATE_PATH.startswith(PROTOCOL_DOCS_FOLDER + "/")
    none = no_live_workflow(str(repo.resolve()))  # the template init wrote is an example, not a workflow
    result = ctxres("doctor", cwd=repo)
    assert result.returncode == 0
    lines = result.stdout.splitlines()
    width = max(len(line.split("  ")[0]) for line in lines[: lines.index("")] if not line.startswith(" "))
    assert lines[lines.index("All layers present.") - 2 :][:3] == [
        f"{'workflow':<{width}}  {'none':<13} {none}",
        "",
        "All layers present.",
    ]
    report = json.loads(ctxres("doctor", "--output-format", "json", cwd=repo).stdout)
    assert report["ok"] is True
    assert report["workflow"] == {"path": None, "status": None, "others": [], "note": none}
    workflow = (repo / TEMPLATE_PATH).read_text().replace("resumption:", "workflow:\n  status: PAUSED\nresumption:")
    (repo / "ORCHESTRATION.yaml").write_text(workflow.replace('workflow_status: "ACTIVE"', 'workflow_status: "PAUSED"'))
    result = ctxres("doctor", cwd=repo)
    assert result.returncode == 0
    assert (
        f"{'workflow':<{width}}  live          using ORCHESTRATION.yaml: the only live workflow (status PAUSED)\n"
        in (result.stdout)
    )
    report = json.loads(ctxres("doctor", "--output-format", "json", cwd=repo).stdout)
    assert report["workflow"]["path"] == "ORCHESTRATION.yaml" and report["workflow"]["status"] == "PAUSED"


@pytest.mark.parametrize(
    ("remove", "layer"),
    [
        ("docs/protocol/resumption-update-protocol.md", "L1"),
        ("CLAUDE.md", "L2"),
        (".claude/settings.json", "L3"),
        (".pre-commit-config.yaml", "pre-commit"),
    ],
)
def test_deleting_a_layer_makes_doctor_name_it(repo: Path, remove: str, layer: str) -> None:
    ctxres("init", cwd=repo)
    (repo / remove).unlink()
    result = ctxres("doctor", cwd=repo)
    assert result.returncode == 1
    assert f"Not present: {layer}" in result.stdout


def test_a_hook_with_a_wrong_matcher_is_misconfigured(repo: Path) -> None:
    ctxres("init", cwd=repo)
    settings = repo / ".claude" / "settings.json"
    data = json.loads(settings.read_text())
    data["hooks"]["PostToolUse"][0]["matcher"] = "Write"
    settings.write_text(json.dumps(data))
    code, rows = _doctor(repo)
    assert code == 1 and rows["L3"] == "misconfigured"
    assert "ctxres install-hooks" in ctxres("doctor", cwd=repo).stdout


def test_doctor_reports_the_findings_check_reports_on_the_settings(repo: Path) -> None:
    """A hook of ours the client would skip (a string timeout: H004) misconfigures the settings row; another
    tool's matcher the client ignores (H005) is a warning that fails nothing. The same findings as check's."""
    ctxres("init", cwd=repo)
    code, rows = _doctor(repo)
    assert code == 0 and rows["settings"] == "present"
    settings = repo / ".claude" / "settings.json"
    data = json.loads(settings.read_text())
    data["hooks"]["Stop"] = [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]
    settings.write_text(json.dumps(data, indent=2))
    code, rows = _doctor(repo)
    assert code == 0 and rows["settings"] == "present"
    assert "H005 (warning) Stop takes no matcher" in ctxres("doctor", cwd=repo).stdout
    data["hooks"]["UserPromptSubmit"][0]["hooks"][0]["timeout"] = "5"
    settings.write_text(json.dumps(data, indent=2))
    result = ctxres("doctor", "--output-format", "json", cwd=repo)
    settings_rows = [row["status"] for row in json.loads(result.stdout)["layers"] if row["layer"] == "settings"]
    assert result.returncode == 1 and sorted(settings_rows) == ["misconfigured", "present"]
    checked = ctxres("check", "--output-format", "github", ".claude/settings.json", cwd=repo).stdout
    doctor = ctxres("doctor", "--output-format", "github", cwd=repo).stdout
    expected = [line for line in checked.splitlines() if line.startswith("::")]
    assert {"H004", "H005"} == {re.search(r"title=(H00\d)", line).group(1) for line in expected}  # type: ignore[union-attr]
    assert all(line in doctor.splitlines() for line in expected)


def test_init_keeps_the_users_files(repo: Path) -> None:
    (repo / ".pre-commit-config.yaml").write_text(
        "# my hooks\nrepos:\n  - repo: https://github.com/astral-sh/ruff-pre-commit\n    rev: v0.6.0\n"
        "    hooks:\n      - id: ruff\n"
    )
    (repo / "CLAUDE.md").write_text("# House rules\n\nUse uv.\n")
    (repo / ".claude").mkdir()
    (repo / ".claude" / "settings.json").write_text(json.dumps({"permissions": {"allow": ["Bash(ls)"]}}))
    assert ctxres("init", cwd=repo).returncode == 0
    precommit = (repo / ".pre-commit-config.yaml").read_text()
    assert precommit.startswith(
        "# my hooks\nrepos:\n  - repo: https://github.com/astral-sh/ruff-pre-commit\n    rev: v0.6.0\n"
        "    hooks:\n      - id: ruff\n  - repo: "
    )
    repos = yaml.safe_load(precommit)["repos"]
    assert [r["repo"] for r in repos] == ["https://github.com/astral-sh/ruff-pre-commit", "local"]
    assert [h["id"] for h in repos[1]["hooks"]] == ["ctxres-check", "ctxres-stale", "ctxres-reinject"]
    assert {h["language"] for h in repos[1]["hooks"]} == {"system"}
    assert [re.findall(r'exec "\$c" (\w+)', h["entry"]) for h in repos[1]["hooks"]] == [
        ["check"],
        ["stale"],
        ["reinject"],
    ]
    assert all(h["entry"].startswith("sh -c 'c=.venv/bin/ctxres;") and h["verbose"] for h in repos[1]["hooks"])
    assert (repo / "CLAUDE.md").read_text().startswith("# House rules\n\nUse uv.\n\n<!-- L2-REINJECT: rank=9,")
    assert json.loads((repo / ".claude" / "settings.json").read_text())["permissions"] == {"allow": ["Bash(ls)"]}
    assert _doctor(repo)[0] == 0


def test_dry_run_writes_nothing(repo: Path) -> None:
    result = ctxres("init", "--dry-run", cwd=repo)
    assert result.returncode == 0 and "would write the protocol document (L1)" in result.stdout
    assert sorted(p.name for p in repo.iterdir()) == [".git"]


def test_protocol_document_is_never_overwritten_without_force(repo: Path) -> None:
    target = repo / "docs" / "protocol" / "resumption-update-protocol.md"
    target.parent.mkdir(parents=True)
    target.write_text("our own protocol\n")
    ctxres("init", "--only", "L1", cwd=repo)
    assert target.read_text() == "our own protocol\n"
    ctxres("init", "--only", "L1", "--force", cwd=repo)
    assert target.read_text() != "our own protocol\n"


def test_packaged_protocol_document_is_the_documented_one() -> None:
    packaged = ROOT / "linters" / "data" / "resumption-update-protocol.md"
    assert packaged.read_bytes() == (ROOT / "docs" / "protocol" / "resumption-update-protocol.md").read_bytes()


def test_unknown_step_is_a_usage_error(repo: Path) -> None:
    assert ctxres("init", "--only", "L9", cwd=repo).returncode == 2


def test_shutil_which_git_is_available() -> None:
    assert shutil.which("git"), "the doctor/init tests need git"


def test_outside_a_git_repository_init_and_doctor_say_the_pre_commit_hooks_cannot_run(tmp_path: Path) -> None:
    init = ctxres("init", cwd=tmp_path)
    assert init.returncode == 0
    assert "not in a git repository" in init.stderr and "git init, then pre-commit install" in init.stderr
    doctor = ctxres("doctor", cwd=tmp_path)
    assert doctor.returncode == 1
    assert doctor.stdout.rstrip().endswith("Not present: git hook.")
    assert "reminder at CLAUDE.md:" in doctor.stdout  # the reminder init wrote is found outside git too


def test_the_summary_names_each_layer_once(repo: Path) -> None:
    assert ctxres("init", cwd=repo).returncode == 0
    settings = repo / ".claude" / "settings.json"
    settings.write_text(settings.read_text().replace('exec \\"$h\\"', 'exec \\"$h-nowhere\\"'))  # status 127
    (repo / ".claude" / "settings.local.json").unlink()
    (repo / "CLAUDE.md").write_text("# Rules\n")
    lines = ctxres("doctor", cwd=repo).stdout.splitlines()
    assert lines[-2:] == ["Not present: L2.", "Misconfigured: hook runs."]
