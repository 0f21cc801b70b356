"""`ctxres audit-history` over the two real histories, replayed as git commits.

Every committed version of two real ORCHESTRATION files is in fixtures/corpus/history/<project>/,
named `<commit time>-<commit>.yaml`. The fixture commits them in order (commit dates from the
names, a fixed author) into one repository; PROJ-003's file is renamed (and edited) by its third
version so that following renames is exercised.

Reviewed by hand (`diff` of each consecutive pair; see the docstring of ctxres.state.statediff):
PROJ-001, 7 transitions: each one moved phases/agents/gates/checkpoints AND rewrote
`current_state`/`next_step` (and `last_checkpoint` at each gate pass): none is stale.
PROJ-003, 3 transitions: 97b10396 started phase 1, completed its four agents and recorded the
0.925 score, and 66652b24 moved to the supplemental pass (three agents COMPLETE_SUPPLEMENTAL,
6 critic iterations, score 0.925 -> 0.953) -- both with the v1 section untouched: stale.
4a4ab9e5 completed the workflow and rewrote the section: not stale.
With the generic state (removed/added state keys, blocked_by, score lists): the
verdicts are unchanged; 66652b24 also lists `supplemental_pass.status: (absent) -> COMPLETE` (a key
added to an existing agent), and 4a4ab9e5 (not stale) also lists the phases' and groups'
`blocked_by` cleared or removed.
"""

from __future__ import annotations

import itertools
import json
import re
from datetime import datetime, timezone
from pathlib import Path

import pytest

from ctxres.formats.loading import Format, parse_text
from ctxres.state.statediff import moved_state

from ..conftest import CORPUS
from ..git_sandbox import GitRepo

HISTORY = CORPUS / "history"
P1_PATH = "projects/PROJ-001-oss-release/ORCHESTRATION.yaml"
P3_OLD_PATH = "projects/PROJ-003-je-ne-sais-quoi/ORCHESTRATION.yaml"
P3_PATH = "projects/PROJ-003-je-ne-sais-quoi/orchestration/jnsq-20260219-001/ORCHESTRATION.yaml"


def commit_date(version: Path) -> datetime:
    return datetime.strptime(version.name.split("-")[0], "%Y%m%dT%H%M%SZ").replace(tzinfo=timezone.utc)


class History:
    """The replayed repository and which commit holds which version."""

    def __init__(self, repo: GitRepo) -> None:
        self.repo = repo
        self.version_of: dict[str, str] = {}  # short hash -> version file name
        self.commit_of: dict[str, str] = {}  # version file name -> short hash

    def replay(self, project: str, path: str, rename_at: int | None = None, new_path: str = "") -> None:
        for index, version in enumerate(sorted((HISTORY / project).glob("*.yaml"))):
            if index == rename_at:
                (self.repo.root / new_path).parent.mkdir(parents=True, exist_ok=True)
                self.repo.git("mv", path, new_path)
                path = new_path
            target = self.repo.root / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(version.read_bytes())
            self.repo.git("add", path)
            stamp = int(commit_date(version).timestamp())
            short = self.repo.commit(f"{project}: {version.name}", date=f"@{stamp} +0000")
            self.version_of[short] = version.name
            self.commit_of[version.name] = short


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> History:
    replayed = History(GitRepo(tmp_path_factory.mktemp("history") / "repo"))
    replayed.replay("PROJ-001-oss-release", P1_PATH)
    replayed.replay("PROJ-003-je-ne-sais-quoi", P3_OLD_PATH, rename_at=2, new_path=P3_PATH)
    return replayed


def audit_json(history: History, *args: str) -> tuple[int, dict[str, dict[str, object]]]:
    result = history.repo.run("audit-history", *args, "--output-format", "json")
    assert result.stderr == "", result.stderr
    payload = json.loads(result.stdout)
    return result.returncode, {entry["path"]: entry for entry in payload["files"]}


def stale_versions(history: History, entry: dict[str, object]) -> list[str]:
    commits = entry["stale_commits"]
    assert isinstance(commits, list)
    return [history.version_of[commit["commit"]] for commit in commits]


def test_the_replayed_history_follows_the_rename(history: History) -> None:
    log = history.repo.git("log", "--follow", "--name-status", "--format=%h", "--", P3_PATH)
    assert re.search(rf"^R\d+\t{re.escape(P3_OLD_PATH)}\t{re.escape(P3_PATH)}$", log, re.MULTILINE), log
    assert len(history.version_of) == 12


def test_proj001_has_no_stale_commit(history: History) -> None:
    code, files = audit_json(history, P1_PATH)
    assert code == 0
    entry = files[P1_PATH]
    assert entry["commits_checked"] == 7
    assert stale_versions(history, entry) == []
    assert entry["not_compared"] == []


def test_proj003_lists_exactly_the_two_commits_where_state_moved_and_the_section_did_not(history: History) -> None:
    code, files = audit_json(history, P3_PATH)
    assert code == 1
    entry = files[P3_PATH]
    assert entry["commits_checked"] == 3  # the first version is new, so not compared
    assert stale_versions(history, entry) == ["20260219T153958Z-97b10396.yaml", "20260219T172440Z-66652b24.yaml"]
    commits = entry["stale_commits"]
    assert isinstance(commits, list)
    first, second = commits
    assert first["date"] == "2026-02-19T15:39:58+00:00"
    assert second["date"] == "2026-02-19T17:24:40+00:00"
    assert first["resumption_version"] == "1.0"
    assert [(m["unit"], m["field"], m["before"], m["after"]) for m in first["moved"]] == [
        ("pipeline jnsq", "status", "PHASE_1_PENDING", "PHASE_1_IN_PROGRESS"),
        ('phase 1 "Persona Distillation"', "status", "PENDING", "IN_PROGRESS"),
        ("agent ps-researcher-001", "status", "PENDING", "COMPLETE"),
        ("agent ps-creator-001", "status", "PENDING", "COMPLETE"),
        ("agent ps-critic-001", "status", "PENDING", "COMPLETE"),
        ("agent adv-scorer-001", "status", "PENDING", "COMPLETE"),
        ('phase 1 "Persona Distillation"', "quality_score", None, 0.925),
        ("barrier barrier-1", "score_recorded", None, 0.925),
    ]
    # The rename commit (version 2) is compared with the file under its old name.
    assert [m["field"] for m in second["moved"]][:2] == ["status", "supplemental_pass.status"]
    assert {m["line"] for m in first["moved"]} <= set(range(1, 800))


def test_several_files_in_one_run(history: History) -> None:
    code, files = audit_json(history, P1_PATH, P3_PATH)
    assert code == 1
    assert list(files) == [P1_PATH, P3_PATH]
    assert stale_versions(history, files[P1_PATH]) == []
    assert len(stale_versions(history, files[P3_PATH])) == 2


def test_a_revision_range_limits_the_walk(history: History) -> None:
    since = history.commit_of["20260219T153958Z-97b10396.yaml"]
    code, files = audit_json(history, P3_PATH, "--rev", f"{since}..HEAD")
    assert code == 1
    assert files[P3_PATH]["commits_checked"] == 2
    assert stale_versions(history, files[P3_PATH]) == ["20260219T172440Z-66652b24.yaml"]
    after = history.commit_of["20260219T172440Z-66652b24.yaml"]
    code, files = audit_json(history, P3_PATH, "--rev", f"{after}..HEAD")
    assert code == 0
    assert stale_versions(history, files[P3_PATH]) == []


def test_text_output_lists_each_stale_commit_with_its_date_and_what_moved(history: History) -> None:
    result = history.repo.run("audit-history", P3_PATH, P1_PATH)
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    first = history.commit_of["20260219T153958Z-97b10396.yaml"]
    second = history.commit_of["20260219T172440Z-66652b24.yaml"]
    assert lines[0] == f"{P3_PATH}: 2 of 3 changes would have been blocked by ctxres-stale"
    assert lines[1] == f"{first} 2026-02-19T15:39:58+00:00"
    assert lines[2] == f"  8 state-bearing values moved ({first}^ -> {first}):"
    assert lines[3] == f"    {P3_PATH}:79: pipeline jnsq status: PHASE_1_PENDING -> PHASE_1_IN_PROGRESS"
    assert lines[11].startswith(f"  stale: {P3_PATH}:731: the resumption section (v1.0) is unchanged")
    assert lines[12].startswith("  fix: update the resumption section: rewrite `resumption.current_state`")
    assert lines[13] == f"{second} 2026-02-19T17:24:40+00:00"
    assert lines[-2] == f"{P1_PATH}: no stale commit (7 changes checked)"  # named: listed, clean or not
    assert lines[-1] == "2 stale commits in 1 of 2 files (10 changes checked)."


def test_paths_are_relative_to_the_current_folder(history: History) -> None:
    folder = history.repo.root / "projects" / "PROJ-003-je-ne-sais-quoi"
    result = history.repo.run(
        "audit-history", "orchestration/jnsq-20260219-001/ORCHESTRATION.yaml", "--output-format", "json", cwd=folder
    )
    assert result.returncode == 1
    [entry] = json.loads(result.stdout)["files"]
    assert entry["path"] == "orchestration/jnsq-20260219-001/ORCHESTRATION.yaml"
    assert len(entry["stale_commits"]) == 2


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--rev", "no-such-ref..HEAD", P3_PATH], "unknown revision or range 'no-such-ref..HEAD'"),
        (["--rev=--all", P3_PATH], "invalid revision range '--all'"),
        (
            ["missing/ORCHESTRATION.yaml"],
            "missing/ORCHESTRATION.yaml: no such file, and no commit in 'HEAD' touches it",
        ),
    ],
)
def test_usage_errors_exit_2_with_one_line(history: History, args: list[str], message: str) -> None:
    result = history.repo.run("audit-history", *args)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr == f"ctxres audit-history: error: {message}\n"


def _data(version: Path) -> object:
    document = parse_text(version.name, "orchestration", Format.YAML, version.read_text("utf-8")).document
    assert document is not None
    return document.data


@pytest.mark.parametrize(
    ("project", "path", "expected"),
    [
        ("PROJ-001-oss-release", P1_PATH, []),
        ("PROJ-003-je-ne-sais-quoi", P3_PATH, ["20260219T153958Z-97b10396.yaml", "20260219T172440Z-66652b24.yaml"]),
    ],
)
def test_flagged_exactly_where_state_moved_and_the_section_was_not_rewritten(
    history: History, project: str, path: str, expected: list[str]
) -> None:
    _code, files = audit_json(history, path)
    flagged = stale_versions(history, files[path])
    assert flagged == expected
    versions = sorted((HISTORY / project).glob("*.yaml"))
    for old, new in itertools.pairwise(versions):
        old_data, new_data = _data(old), _data(new)
        assert isinstance(old_data, dict) and isinstance(new_data, dict)
        rewritten = old_data["resumption"] != new_data["resumption"]
        assert moved_state(old_data, new_data), new.name  # every real commit moved the state
        assert (new.name in flagged) is (not rewritten), new.name
