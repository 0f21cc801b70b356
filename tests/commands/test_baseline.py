"""Adopting ctxres on a repository with existing findings: ``ctxres baseline`` records them, ``ctxres check``
counts them without failing and fails on new ones; a check of named files (pre-commit) judges them, and reads
the other workflows of their shared state folder only to compare."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from ctxres.findings import Finding, Severity
from ctxres.linters.checking.baseline import Entry, Match, Places, entry_of, fingerprint, normalise, parse

from ..conftest import CORPUS, FIXTURES
from ..git_sandbox import Sandbox

# Older workflows of the team, each a real file with its own defects (v1 sections, keys of another shape,
# unknown keys, a resumption section behind the rest of the file...), all sharing the state folder `.jerry/`.
OLD = {
    "oss-release": "002-PROJ-001-oss-release.yaml",
    "bug002-hookfix": "003-PROJ-001-oss-release--bug002-hookfix-20260217-001.yaml",
    "quality-enforcement": "014-PROJ-001-oss-release--EPIC-002-quality-enforcement.yaml",
    "je-ne-sais-quoi": "021-PROJ-003-je-ne-sais-quoi.yaml",
    "context-resilience": "023-PROJ-004-context-resilience--feat001-impl-20260220-001.yaml",
    "agentic-security": "030-PROJ-008-agentic-security--agentic-sec-20260222-001.yaml",
    "llm-deception": "032-PROJ-009-llm-deception-research.yaml",
}
BASELINE = ".ctxres-baseline.json"
NEW = "new/ORCHESTRATION.yaml"
UNMERGED = ".jerry/checkpoints/cx-002-checkpoint.json"


@pytest.fixture
def team(tmp_path: Path) -> Sandbox:
    """The team's repository: old workflows with findings, one clean old workflow (`demo`) that merged the
    checkpoint cx-001 of the shared state folder, all committed."""
    box = Sandbox(tmp_path / "repo")
    box.write(".ctxres.toml", 'state-dir = ".jerry"\n')
    for name, corpus_file in OLD.items():
        shutil.copy(CORPUS / "orchestration" / corpus_file, _parent(box, f"projects/{name}/ORCHESTRATION.yaml"))
    a010 = FIXTURES / "rules" / "A010"
    shutil.copy(a010 / "good" / "ORCHESTRATION.yaml", _parent(box, "projects/demo/ORCHESTRATION.yaml"))
    shutil.copy(a010 / "bad" / ".jerry/checkpoints/cx-001-checkpoint.json", _parent(box, ".jerry/checkpoints/x"))
    box.git("add", ".")
    box.git("commit", "-q", "-m", "the team's workflows")
    return box


def _parent(box: Sandbox, rel: str) -> Path:
    path = box.root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    return path if path.name != "x" else path.parent


def _new_workflow(box: Sandbox) -> None:
    """A clean workflow of its own (another workflow id), under the same state folder."""
    text = (FIXTURES / "rules" / "S003" / "good" / "ORCHESTRATION.yaml").read_text("utf-8")
    box.write(NEW, text)


def _summary(stdout: str) -> str:
    return stdout.rstrip("\n").splitlines()[-1]


def _recorded(box: Sandbox) -> int:
    before = box.ctxres("check", ".")
    assert before.returncode == 1, before.stdout
    result = box.ctxres("baseline")
    assert result.returncode == 0, result.stderr
    entries = json.loads((box.root / BASELINE).read_text("utf-8"))["entries"]
    assert result.stdout.startswith(f"Wrote {BASELINE}: {len(entries)} entries ({len(entries)} added, 0 removed)")
    return len(entries)


def test_recorded_findings_no_longer_fail_and_stay_counted(team: Sandbox) -> None:
    count = _recorded(team)
    # the old workflows' findings (their own extra keys are silent, and so are the shape and convention
    # warnings of those that are COMPLETE)
    assert count >= 10
    data = json.loads((team.root / BASELINE).read_text("utf-8"))
    assert data["version"] == 1
    entries = data["entries"]
    assert entries == sorted(entries, key=lambda e: (e["path"], e["code"], e["message"], e["fingerprint"]))
    assert {e["path"] for e in entries} <= {f"projects/{name}/ORCHESTRATION.yaml" for name in OLD}
    assert all(list(e) == ["path", "code", "message", "json_path", "fingerprint"] for e in entries)
    result = team.ctxres("check", ".")
    assert result.returncode == 0, result.stdout
    assert _summary(result.stdout) == (
        f"All checks passed (9 files checked); {count} existing findings are in the baseline ({BASELINE})."
    )
    assert result.stdout.count("\n") == 1  # the baselined findings are not printed
    shown = team.ctxres("check", ".", "--show-baselined")
    assert shown.returncode == 0
    assert shown.stdout.count("[baselined]") == count
    ignored = team.ctxres("check", ".", "--no-baseline")
    assert ignored.returncode == 1
    assert "baseline" not in _summary(ignored.stdout)


def test_a_new_problem_in_a_touched_file_blocks(team: Sandbox) -> None:
    count = _recorded(team)
    path = team.root / "projects/demo/ORCHESTRATION.yaml"
    path.write_text(path.read_text("utf-8").replace('status: "ACTIVE"', 'status: "ACTIVE"\n  colour: blue', 1))
    broken = team.root / "projects/llm-deception/ORCHESTRATION.yaml"
    broken.write_text(broken.read_text("utf-8") + "\nresumption_notes: [unclosed\n")
    result = team.ctxres("check", ".")
    assert result.returncode == 1
    printed = [line for line in result.stdout.splitlines() if not line.startswith(("  help:", "Found"))]
    assert [line.split(":")[0] for line in printed] == ["projects/llm-deception/ORCHESTRATION.yaml"]
    assert ": P00" in printed[0]
    assert f"; {count - _entries_of(team, 'projects/llm-deception/ORCHESTRATION.yaml')} existing findings" in (
        _summary(result.stdout)
    )


def test_a_file_that_cannot_be_read_is_never_baselined_and_its_entries_are_not_fixed(team: Sandbox) -> None:
    """An unclosed quote hides every finding of the file: its entries are neither fixed nor new, and
    `ctxres baseline` refuses to record the P001 (the next check still fails on it)."""
    count = _recorded(team)
    before = json.loads((team.root / BASELINE).read_text("utf-8"))["entries"]
    rel = "projects/llm-deception/ORCHESTRATION.yaml"
    assert _entries_of(team, rel) >= 1
    path = team.root / rel
    path.write_text(path.read_text("utf-8").replace("resumption:", 'resumption_note: "unclosed\nresumption:', 1))
    result = team.ctxres("check", ".")
    assert result.returncode == 1
    assert "fixed" not in result.stdout
    assert f"{rel} cannot be read: fix it (a baseline never records that" in _summary(result.stdout)
    assert f"; {count - _entries_of(team, rel)} existing findings" in _summary(result.stdout)
    refused = team.ctxres("baseline")
    assert refused.returncode == 1
    assert f"{count} entries (0 added, 0 removed)" in refused.stdout
    assert f"ctxres: not recorded: {rel}:" in refused.stderr and "P001" in refused.stderr
    assert json.loads((team.root / BASELINE).read_text("utf-8"))["entries"] == before
    again = team.ctxres("check", ".")
    assert again.returncode == 1 and ": P001" in again.stdout


def _entries_of(box: Sandbox, path: str) -> int:
    entries = json.loads((box.root / BASELINE).read_text("utf-8"))["entries"]
    return sum(1 for entry in entries if entry["path"] == path)


def test_moved_lines_keep_their_findings_baselined(team: Sandbox) -> None:
    count = _recorded(team)
    team.git("add", BASELINE)
    team.git("commit", "-q", "-m", "baseline")
    for name in OLD:
        path = team.root / "projects" / name / "ORCHESTRATION.yaml"
        # Lines added at the top and in the middle of each file: every finding moves down.
        lines = path.read_text("utf-8").splitlines(keepends=True)
        middle = len(lines) // 2
        lines[middle:middle] = ["# reviewed in March\n"] * 3 if lines[middle].startswith(" ") else []
        path.write_text("# owner: the platform team\n# see the plan\n\n" + "".join(lines))
    result = team.ctxres("check", ".")
    assert result.returncode == 0, result.stdout
    assert f"{count} existing findings are in the baseline" in result.stdout
    assert "fixed" not in result.stdout
    rewritten = team.ctxres("baseline")
    assert f"{count} entries (0 added, 0 removed)" in rewritten.stdout
    assert team.git("status", "--porcelain", BASELINE) == ""  # the same file: messages kept as reviewed


def test_a_fixed_finding_drops_out_on_the_next_baseline(team: Sandbox) -> None:
    count = _recorded(team)
    entries = json.loads((team.root / BASELINE).read_text("utf-8"))["entries"]
    team.git("add", BASELINE)
    team.git("commit", "-q", "-m", "baseline")
    path = team.root / "projects/llm-deception/ORCHESTRATION.yaml"
    before = _entries_of(team, "projects/llm-deception/ORCHESTRATION.yaml")
    assert before >= 1
    path.write_text((FIXTURES / "rules" / "S003" / "good" / "ORCHESTRATION.yaml").read_text("utf-8"))
    result = team.ctxres("check", ".")
    assert result.returncode == 0, result.stdout
    fixed = "1 baseline entry is fixed" if before == 1 else f"{before} baseline entries are fixed"
    assert f"; {fixed}: run `ctxres baseline` to drop them." in result.stdout
    # A check of another folder says nothing of them.
    assert "fixed" not in team.ctxres("check", "projects/demo").stdout
    shrunk = team.ctxres("baseline")
    assert f"{count - before} entries (0 added, {before} removed)" in shrunk.stdout
    left = json.loads((team.root / BASELINE).read_text("utf-8"))["entries"]
    assert left == [e for e in entries if e["path"] != "projects/llm-deception/ORCHESTRATION.yaml"]
    diff = team.git("diff", "--stat", BASELINE)
    assert "deletions" in diff and "insertion" not in diff


def test_a_baseline_of_one_folder_keeps_the_entries_of_the_others(team: Sandbox) -> None:
    count = _recorded(team)
    again = team.ctxres("baseline", "projects/oss-release")
    assert f"{count} entries (0 added, 0 removed)" in again.stdout


# --- a check of named files (pre-commit) -------------------------------------------------------------------


def test_a_named_file_is_judged_not_the_workflows_it_is_compared_with(team: Sandbox) -> None:
    _new_workflow(team)
    assert team.ctxres("check", ".").returncode == 1  # the old workflows' findings
    result = team.ctxres("check", "--force-exclude", NEW)
    assert result.returncode == 0, result.stdout
    assert _summary(result.stdout) == "All checks passed (10 files checked)."  # every workflow of .jerry was read
    assert NEW in team.listed(NEW) and "projects/oss-release/ORCHESTRATION.yaml" in team.listed(NEW)


def test_a_finding_of_a_compared_file_about_the_named_file_blocks(team: Sandbox) -> None:
    _new_workflow(team)
    # A checkpoint of the demo workflow (its workflow id), committed without `ctxres ack`: the finding is
    # on the demo workflow, which the commit does not touch, and it is about the checkpoint it does.
    shutil.copy(FIXTURES / "rules" / "A010" / "bad" / UNMERGED, team.root / UNMERGED)
    result = team.ctxres("check", "--force-exclude", NEW, UNMERGED)
    assert result.returncode == 1, result.stdout
    assert "projects/demo/ORCHESTRATION.yaml:33:5: A010 checkpoint .jerry/checkpoints/cx-002-checkpoint.json" in (
        result.stdout
    )
    assert "Found 1 error and 0 warnings" in result.stdout
    # Committed without the checkpoint, the new workflow does not answer for it.
    assert team.ctxres("check", "--force-exclude", NEW).returncode == 0


def test_named_files_pass_with_a_baseline_and_old_findings_elsewhere(team: Sandbox) -> None:
    _recorded(team)
    _new_workflow(team)
    named = [NEW, "projects/demo/ORCHESTRATION.yaml", BASELINE]
    result = team.ctxres("check", "--force-exclude", *named)
    assert result.returncode == 0, result.stdout
    assert "fixed" not in result.stdout  # the old workflows were only compared: their entries are not judged


def test_a_named_folder_still_reports_everything_below_it(team: Sandbox) -> None:
    result = team.ctxres("check", "projects")
    assert result.returncode == 1
    assert "projects/bug002-hookfix/ORCHESTRATION.yaml" in result.stdout


# --- machine output ------------------------------------------------------------------------------------------


def test_json_and_sarif_say_which_findings_are_baselined(team: Sandbox) -> None:
    count = _recorded(team)
    path = team.root / "projects/demo/ORCHESTRATION.yaml"
    path.write_text(path.read_text("utf-8").replace("updated_at: ", "updated_at: not-a-time #", 1))
    data = json.loads(team.ctxres("check", ".", "--output-format", "json").stdout)
    flags = [(f["path"], f["baselined"]) for f in data["findings"]]
    assert sum(baselined for _, baselined in flags) == count
    new = [path for path, baselined in flags if not baselined]
    assert new and set(new) == {"projects/demo/ORCHESTRATION.yaml"}
    assert data["summary"]["baselined"] == count
    assert data["summary"]["baseline_fixed"] == 0
    assert data["summary"]["errors"] + data["summary"]["warnings"] == len(new)
    sarif = json.loads(team.ctxres("check", ".", "--output-format", "sarif").stdout)
    states = [r["baselineState"] for r in sarif["runs"][0]["results"]]
    assert states.count("unchanged") == count and states.count("new") == len(new)
    github = team.ctxres("check", ".", "--output-format", "github").stdout.splitlines()
    assert len(github) == len(new) + 1
    assert all("file=projects/demo/ORCHESTRATION.yaml" in line for line in github[:-1])
    stats = json.loads(team.ctxres("check", ".", "--statistics", "--output-format", "json").stdout)
    assert sum(row["baselined"] for row in stats) == count
    assert sum(row["count"] for row in stats) == count + len(new)


# --- where the file is, and a broken one -----------------------------------------------------------------------


def test_the_setting_and_the_option_name_the_file(team: Sandbox) -> None:
    team.write(".ctxres.toml", 'state-dir = ".jerry"\nbaseline = "ci/accepted.json"\n')
    written = team.ctxres("baseline")
    assert written.stdout.startswith("Wrote ci/accepted.json: ")
    assert not (team.root / BASELINE).exists()
    result = team.ctxres("check", ".")
    assert result.returncode == 0, result.stdout
    assert "are in the baseline (ci/accepted.json)." in result.stdout
    other = team.ctxres("baseline", "--baseline", "other.json", "projects/demo")
    assert other.stdout.startswith("Wrote other.json: 0 entries (0 added, 0 removed)")
    assert team.ctxres("check", ".", "--baseline", "other.json").returncode == 1
    team.write(".ctxres.toml", 'baseline = ""\n')
    wrong = team.ctxres("check", ".")
    assert wrong.returncode == 2
    assert "`baseline` must be the path of a file" in wrong.stderr


def test_an_unreadable_baseline_is_one_line_and_exit_2(team: Sandbox) -> None:
    team.write(BASELINE, '{"version": 1, "entries": [{"path": "x"}]}\n')
    result = team.ctxres("check", ".")
    assert result.returncode == 2
    assert result.stderr == (
        f"ctxres: error: baseline {BASELINE}: entry 1 needs `path`, `code` and `fingerprint` strings\n"
    )
    team.write(BASELINE, "{not json\n")
    result = team.ctxres("check", ".")
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "not valid JSON" in result.stderr
    missing = team.ctxres("check", ".", "--baseline", "nowhere.json")
    assert missing.returncode == 2
    assert "baseline nowhere.json: cannot be read (No such file or directory)" in missing.stderr


# --- matching, in-process ----------------------------------------------------------------------------------------


def _finding(line: int, message: str = "`x` on line 12 says 3") -> Finding:
    from ctxres.findings import Position

    return Finding("w/ORCHESTRATION.yaml", "S006", message, Severity.ERROR, Position(line, 3), "$.resumption.x")


def test_two_identical_findings_need_two_entries(tmp_path: Path) -> None:
    places = Places(tmp_path, tmp_path)
    one, two = _finding(4), _finding(9)
    entry = entry_of(one, places)
    assert entry == entry_of(two, places)  # no line in the entry
    match = Match(BASELINE, [entry], places)
    assert [baselined for _, baselined in match.marks([one, two])] == [True, False]
    match.count([one, two], [entry], lambda entry: True)
    assert (match.baselined, match.errors, match.fixed) == (1, 1, [])
    both = Match(BASELINE, [entry, entry], places)
    both.count([one], [entry, entry], lambda entry: True)
    assert (both.baselined, both.errors, both.fixed) == (1, 0, [entry])


def test_the_fingerprint_leaves_out_what_moves() -> None:
    assert normalise("`a` on line 12 and lines 3-5, see events/x/log.jsonl:14 and ORCHESTRATION.yaml:4:3") == (
        "`a` on line N and lines N, see events/x/log.jsonl:N and ORCHESTRATION.yaml:N"
    )
    future = (
        "`recovery_state.updated_at` is 2031-01-01T00:00:00Z, 4 days 2 h in the future (it is now "
        "2030-12-27T22:00:00Z): the section would look fresh until then"
    )
    later = future.replace("4 days 2 h", "3 days").replace("2030-12-27T22", "2030-12-28T23")
    assert normalise(future) == normalise(later)
    assert fingerprint(_finding(1)) == fingerprint(_finding(7, "`x` on line 40 says 3"))
    assert fingerprint(_finding(1)) != fingerprint(_finding(1, "`x` on line 12 says 4"))


def test_a_baseline_file_is_checked_when_read() -> None:
    assert parse('{"version": 1, "entries": []}', "b.json") == []
    entry = {"path": "a.yaml", "code": "C006", "fingerprint": "0123", "message": "m", "json_path": "$.a"}
    expected = [Entry("a.yaml", "C006", "0123", "m", "$.a")]
    assert parse(json.dumps({"version": 1, "entries": [entry]}), "b.json") == expected
    from ctxres.linters.checking.baseline import BaselineError

    with pytest.raises(BaselineError, match="format version 2"):
        parse('{"version": 2, "entries": []}', "b.json")
    with pytest.raises(BaselineError, match="no `entries`"):
        parse("[]", "b.json")


# --------------------------------------------------------------------------- ctxres reinject (its own pre-commit hook)

MARKER = '<!-- L2-REINJECT: rank={rank}, tokens=3, content="{content}" -->\n'
OLD_RULE = "Update the resumption section of ORCHESTRATION.yaml before any phase change, and keep it true."
NEW_RULE = "Read the checkpoint files named by the resumption section before resuming any work at all."


def _rule_file(box: Sandbox, *rules: str) -> None:
    body = "".join(MARKER.format(rank=rank, content=content) for rank, content in enumerate(rules, start=1))
    box.write("CLAUDE.md", "# Rules\n\n" + body)


@pytest.fixture
def rules_team(tmp_path: Path) -> Sandbox:
    """A repository whose rule file has an old marker defect (R003: `tokens=3` for ~24 tokens), baselined."""
    box = Sandbox(tmp_path / "repo")
    _rule_file(box, OLD_RULE)
    recorded = box.ctxres("baseline")
    assert recorded.returncode == 0, recorded.stderr
    assert [entry["code"] for entry in json.loads((box.root / BASELINE).read_text("utf-8"))["entries"]] == ["R003"]
    return box


def test_reinject_does_not_fail_on_what_the_baseline_accepts(rules_team: Sandbox) -> None:
    """The `ctxres-reinject` pre-commit hook checks every rule file on each commit that touches one: an old
    defect the team baselined must not block it, as it does not block `ctxres check`."""
    result = rules_team.ctxres("reinject")
    assert result.returncode == 0, result.stdout
    assert "R003" not in result.stdout
    assert "1 existing finding is in the baseline (.ctxres-baseline.json)" in result.stdout
    shown = rules_team.ctxres("reinject", "--show-baselined")
    assert "R003 [baselined]" in shown.stdout and shown.returncode == 0


def test_reinject_fails_on_a_new_defect_beside_a_baselined_one(rules_team: Sandbox) -> None:
    _rule_file(rules_team, OLD_RULE, NEW_RULE)
    result = rules_team.ctxres("reinject", "--output-format", "json")
    assert result.returncode == 1
    report = json.loads(result.stdout)
    assert [(f["code"], f["line"], f["baselined"]) for f in report["findings"]] == [
        ("R003", 3, True),
        ("R003", 4, False),
    ]
    assert report["summary"]["errors"] == 1 and report["summary"]["baselined"] == 1


def test_reinject_without_the_baseline_reports_every_finding(rules_team: Sandbox) -> None:
    result = rules_team.ctxres("reinject", "--no-baseline")
    assert result.returncode == 1
    assert "R003" in result.stdout and "baseline" not in result.stdout


def test_a_baseline_reinject_cannot_read_is_a_usage_error(rules_team: Sandbox) -> None:
    rules_team.write(BASELINE, "{not json")
    result = rules_team.ctxres("reinject")
    assert result.returncode == 2
    assert result.stderr.startswith("ctxres reinject: baseline ")
