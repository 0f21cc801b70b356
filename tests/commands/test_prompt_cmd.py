"""``ctxres prompt``: the templates an operator pastes, with their token estimate on stderr."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxres.linters.cli import main
from ctxres.linters.commands.prompt import budget_note
from ctxres.prompts import estimate_tokens
from tests.hooks.hook_project import (
    ALERT_HEAD,
    SECRETS,
    TEMPLATE1_HEAD,
    TEMPLATE_ORCHESTRATION,
    put_checkpoint,
    workspace,
)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = workspace(tmp_path)
    monkeypatch.chdir(root)
    return root


def test_default_is_template1_of_the_active_workflow(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["prompt"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith(TEMPLATE1_HEAD)
    assert "WORKFLOW: feat015-licmig-20260217-001" in out
    assert err == (
        "ctxres prompt: using ORCHESTRATION.yaml: the only live workflow (status ACTIVE)\n"
        f"ctxres prompt: Template 1: ~{estimate_tokens(out)} tokens (budget 500-1000)\n"
    )


def test_template1_of_a_named_file(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    other = project / "sub" / "ORCHESTRATION.yaml"
    other.parent.mkdir()
    other.write_text(TEMPLATE_ORCHESTRATION.read_text().replace("feat015-licmig-20260217-001", "wf-other"))
    (other.parent / "ORCHESTRATION_PLAN.md").write_text("# plan\n")
    assert main(["prompt", "--template", "1", "--file", "sub/ORCHESTRATION.yaml"]) == 0
    out = capsys.readouterr().out
    assert "WORKFLOW: wf-other" in out and "ORCHESTRATION PLAN: sub/ORCHESTRATION_PLAN.md" in out


def test_template2_of_the_newest_pending_checkpoint(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    put_checkpoint(project, 2)
    put_checkpoint(project, 3)
    assert main(["prompt", "--template", "2"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith(ALERT_HEAD)
    assert "COMPACTION EVENT: 2 of 2 this session" in out
    assert "CHECKPOINT: .jerry/checkpoints/cx-003-checkpoint.json" in out
    assert "2. Read ORCHESTRATION.yaml resumption section: ORCHESTRATION.yaml" in out
    assert err.startswith("ctxres prompt: Template 2: ~") and "(budget 300-400, hard ceiling 500" in err


def test_template2_of_a_named_checkpoint_is_the_default_with_checkpoint(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = put_checkpoint(project, 2)
    put_checkpoint(project, 3)
    assert main(["prompt", "--checkpoint", str(first.relative_to(project))]) == 0
    out = capsys.readouterr().out
    assert "COMPACTION EVENT: 1 of 2 this session" in out
    assert "CHECKPOINT: .jerry/checkpoints/cx-002-checkpoint.json" in out


@pytest.mark.parametrize("given", ["cx-002", "CX-002", "2"])
def test_a_named_checkpoint_may_be_an_id_as_ack_takes_it(
    project: Path, capsys: pytest.CaptureFixture[str], given: str
) -> None:
    put_checkpoint(project, 2)
    put_checkpoint(project, 3)
    assert main(["prompt", "--checkpoint", given]) == 0
    assert "CHECKPOINT: .jerry/checkpoints/cx-002-checkpoint.json" in capsys.readouterr().out


def test_nothing_pending_exits_1(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    put_checkpoint(project, 2, acknowledged=True)
    assert main(["prompt", "--template", "2"]) == 1
    out, err = capsys.readouterr()
    assert out == "" and "nothing to print: no unacknowledged checkpoint" in err


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--file", "missing.yaml"], "no such file: missing.yaml"),
        (["--checkpoint", "missing.json"], "no checkpoint 'missing.json': give a path or an id such as cx-002"),
        (["--checkpoint", "cx-009"], "no checkpoint 'cx-009'"),
        (["--template", "1", "--checkpoint", "x.json"], "--checkpoint is for Template 2"),
    ],
)
def test_usage_errors_exit_2_with_one_line(
    project: Path, capsys: pytest.CaptureFixture[str], args: list[str], said: str
) -> None:
    assert main(["prompt", *args]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1 and said in err


def test_broken_checkpoint_is_a_usage_error(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = put_checkpoint(project, 2, text="{")
    assert main(["prompt", "--checkpoint", str(broken)]) == 2
    assert "is not valid JSON" in capsys.readouterr().err


def test_no_active_workflow_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CTXRES_ORCHESTRATION", raising=False)
    assert main(["prompt"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == (
        f"ctxres prompt: no live workflow under {tmp_path.resolve()}: no ORCHESTRATION file (examples and "
        "templates aside) has workflow status ACTIVE or PAUSED; name one with --file\n"
    )


def test_output_is_redacted(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = json.loads(put_checkpoint(project, 2).read_text())
    data["recovery_instructions"]["next_action"] = f"Push with {SECRETS['github']}"
    put_checkpoint(project, 2, text=json.dumps(data))
    assert main(["prompt", "--template", "2"]) == 0
    out = capsys.readouterr().out
    assert SECRETS["github"] not in out and "4. Continue from: Push with [REDACTED]" in out


@pytest.mark.parametrize(
    ("template", "tokens", "note"),
    [
        ("1", 750, "Template 1: ~750 tokens (budget 500-1000)"),
        ("1", 1200, "Template 1: ~1200 tokens (budget 500-1000); above the budget"),
        (
            "2",
            250,
            "Template 2: ~250 tokens (budget 300-400, hard ceiling 500); below the budget (little state recorded)",
        ),
        ("2", 450, "Template 2: ~450 tokens (budget 300-400, hard ceiling 500); above the budget"),
    ],
)
def test_budget_note(template: str, tokens: int, note: str) -> None:
    assert budget_note(template, tokens) == note
