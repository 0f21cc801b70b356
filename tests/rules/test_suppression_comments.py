"""Suppression comments that name no rule (I001) or silence nothing (I002), through the real `ctxres check`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

HEAD = """\
resumption:
  last_checkpoint: "CP-005"
  current_state: "Workflow COMPLETE."
  next_step: "None: workflow finished."
  files_to_read: []
"""


def check(folder: Path, *args: str) -> tuple[int, list[dict[str, Any]]]:
    result = subprocess.run(
        [sys.executable, "-m", "ctxres.linters.cli", "check", "--output-format", "json", *args, "."],
        capture_output=True,
        text=True,
        cwd=folder,
        timeout=120,
    )
    assert "Traceback" not in result.stderr
    return result.returncode, json.loads(result.stdout)["findings"]


def where(findings: list[dict[str, Any]], code: str) -> list[tuple[int, int]]:
    return [(f["line"], f["column"]) for f in findings if f["code"] == code]


def workflow(folder: Path, body: str, config: str = 'ignore = ["V001"]\n') -> Path:
    (folder / "ORCHESTRATION.yaml").write_text(HEAD + body)
    (folder / ".ctxres.toml").write_text(config)
    return folder


def test_an_unknown_code_in_a_comment_is_an_error_and_silences_nothing(tmp_path: Path) -> None:
    # Before, `ignore[c006]` did not parse as codes and silenced every rule of the line: "All checks passed".
    workflow(
        tmp_path,
        '  cross_session_portabel: "x"  # ctxres: ignore[c006]\n  ephemeral_refs: "y"  # ctxres: ignore[C0006, C006]\n',
    )
    status, findings = check(tmp_path)
    assert status == 1
    assert where(findings, "I001") == [(6, 49), (7, 41)]
    assert where(findings, "C006") == [(6, 3)], "the mistyped code silenced nothing; C006 on line 7 did"
    messages = [f["message"] for f in findings if f["code"] == "I001"]
    assert all("did you mean 'C006'?" in m for m in messages), messages


def test_a_comment_that_silences_nothing_is_reported_with_what_to_remove(tmp_path: Path) -> None:
    workflow(
        tmp_path,
        '  cross_session_portabel: "x"  # ctxres: ignore[C006, C002]\n'  # line 6: C002 unused
        "  # ctxres: ignore\n"  # line 7: blanket, nothing on its line
        "# ctxres: ignore-file[A001]\n",  # line 8: no A001 in the file
    )
    status, findings = check(tmp_path)
    assert status == 0, "I002 is a warning"
    unused = {f["line"]: f for f in findings if f["code"] == "I002"}
    assert sorted(unused) == [6, 7, 8]
    assert "`C002`" in unused[6]["message"] and unused[6]["fix"].startswith("remove `C002` from the comment")
    assert unused[7]["fix"].startswith("remove the comment") and unused[8]["fix"] == "remove the comment"
    assert check(tmp_path, "--strict")[0] == 1


def test_only_codes_the_run_selected_can_be_unused(tmp_path: Path) -> None:
    workflow(
        tmp_path,
        '  ephemeral_refs: "y"  # ctxres: ignore[X001]\n  cross_session_portabel: "x"  # ctxres: ignore[C006]\n',
    )
    assert where(check(tmp_path)[1], "I002") == [(6, 41)]
    # X is not selected: its comment is not "unused"; C006 is silenced, even with only C006 and I selected.
    assert where(check(tmp_path, "--select", "C006,I")[1], "I002") == []
    # With --select C003 the C006 finding is not reported, but the comment is still needed by a full run.
    assert check(tmp_path, "--select", "C003,I") == (0, [])


def test_the_new_findings_follow_select_ignore_and_per_file_ignores(tmp_path: Path) -> None:
    workflow(tmp_path, '  ephemeral_refs: "y"  # ctxres: ignore[C006, C0001, C002]\n')
    assert {f["code"] for f in check(tmp_path)[1]} == {"I001", "I002"}
    assert {f["code"] for f in check(tmp_path, "--ignore", "V001", "--ignore", "I")[1]} == set()
    assert {f["code"] for f in check(tmp_path, "--select", "C,I001")[1]} == {"I001"}
    (tmp_path / ".ctxres.toml").write_text('ignore = ["V001"]\n[per-file-ignores]\n"*.yaml" = ["I002"]\n')
    assert {f["code"] for f in check(tmp_path)[1]} == {"I001"}


def test_a_file_that_does_not_load_gets_no_unused_report(tmp_path: Path) -> None:
    workflow(tmp_path, '  ephemeral_refs: "y"  # ctxres: ignore[C006]\n  broken: [\n')
    codes = {f["code"] for f in check(tmp_path)[1]}
    assert "P001" in codes and "I002" not in codes


def test_markdown_comments_are_checked_and_json_text_is_not_a_comment(tmp_path: Path) -> None:
    (tmp_path / "CLAUDE.md").write_text(
        "# Rules\n\n"
        '<!-- L2-REINJECT: rank=1, tokens=4, content="Update the resumption section." -->\n'
        "<!-- ctxres: ignore[R00X] -->\n"
        "Silence a warning with `# ctxres: ignore[C006]` on its line (prose: a Markdown `#` is no comment).\n"
    )
    (tmp_path / "cx-001-checkpoint.json").write_text('{"note": "# ctxres: ignore[Q1] and ctxres: ignore"}\n')
    findings = check(tmp_path, "--select", "I")[1]
    assert [(f["path"], f["code"], f["line"]) for f in findings] == [("CLAUDE.md", "I001", 4)]
