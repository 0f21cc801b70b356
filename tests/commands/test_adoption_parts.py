"""The pieces `ctxres init` uses to leave a team's repository green: the local pre-commit hooks (in step
with `.pre-commit-hooks.yaml`), a setting written into the configuration file with the rest kept, and
the `.gitignore` line that ignores the whole state folder turned into one that keeps the checkpoints."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
import yaml

from ctxres.config import load_config
from ctxres.linters.commands._config_edit import option_change, set_option
from ctxres.linters.commands._precommit_hooks import BY_ID, HOOKS, local_repo
from ctxres.linters.commands.init import free_rank, plan_precommit
from ctxres.linters.rules.reinject import REINJECT_BUDGET
from ctxres.linters.setup.checkpoints_tracked import IgnoreRule, fixed_gitignore, ignoring_rule
from ctxres.linters.setup.machine import precommit_entry

from ..conftest import ROOT
from ..git_sandbox import executable

SAMPLE_PATHS = [
    "ORCHESTRATION.yaml", "a/b/x.yml", ".jerry/checkpoints/cx-001-checkpoint.json", "cx-12.json",
    ".jerry/context-monitor-state.json", "00-system/.cache/precompact_state.json", "p/resume-context.md",
    ".agent-memory/runs/r1/task-graph.json", "runs/r1/events/lead/001.jsonl", "CLAUDE.md", "CLAUDE.local.md",
    ".claude/rules/a/b.md", ".context/rules/x.md", "README.md", "data.json", "notes/CLAUDE.md.bak",
]  # fmt: skip


def test_the_local_hooks_run_what_the_shipped_hooks_run() -> None:
    shipped = {hook["id"]: hook for hook in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text("utf-8"))}
    assert [hook.id for hook in HOOKS] == list(shipped)
    for hook in HOOKS:
        local, theirs = hook.local(), shipped[hook.id]
        assert local["language"] == "system" and local["verbose"] is True
        assert hook.entry == theirs["entry"]  # the same ctxres command; the local entry finds ctxres first
        assert local["entry"] == precommit_entry(theirs["entry"].removeprefix("ctxres "), hook.id)
        for key, default in (
            ("pass_filenames", True),
            ("require_serial", False),
            ("always_run", False),
        ):
            assert local.get(key, default) == theirs.get(key, default), (hook.id, key)
        assert local["stages"] == theirs["stages"], hook.id
        for path in SAMPLE_PATHS:
            assert bool(re.search(local["files"], path)) == bool(re.search(theirs["files"], path)), (hook.id, path)


def test_the_local_repository_entry_is_one_pre_commit_accepts(tmp_path: Path) -> None:
    config = tmp_path / ".pre-commit-config.yaml"
    config.write_text(yaml.safe_dump({"repos": [local_repo()]}, sort_keys=False))
    done = subprocess.run(
        [executable("pre-commit"), "validate-config", str(config)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize(
    ("used", "rank"), [(set(), 9), ({1, 2, 3}, 9), (set(range(1, 11)), 11), ({9}, 10), ({4, 9, 20}, 21)]
)
def test_the_reminder_takes_a_rank_no_marker_uses(used: set[int], rank: int) -> None:
    assert free_rank(used) == rank and rank not in used


def test_a_setting_is_added_to_the_ctxres_table_and_the_rest_is_kept() -> None:
    text = '[project]\nname = "x"\n\n[tool.ctxres]\nstate-dir = ".state"  # ours\n\n[tool.other]\na = 1\n'
    new = set_option(text, "reinject-budget", "700", "why", in_pyproject=True)
    assert new == (
        '[project]\nname = "x"\n\n[tool.ctxres]\nstate-dir = ".state"  # ours\n# why\nreinject-budget = 700\n\n'
        "[tool.other]\na = 1\n"
    )
    assert set_option(new, "reinject-budget", "750", "why", in_pyproject=True) == new.replace("700", "750")
    assert set_option('[project]\nname = "x"\n', "reinject-budget", "700", "why", in_pyproject=True) == (
        '[project]\nname = "x"\n\n[tool.ctxres]\n# why\nreinject-budget = 700\n'
    )
    assert set_option('state-dir = ".s"\n', "reinject-budget", "700", "why", in_pyproject=False) == (
        'state-dir = ".s"\n# why\nreinject-budget = 700\n'
    )


@pytest.mark.parametrize("existing", [None, "pyproject.toml", ".ctxres.toml"])
def test_the_setting_is_read_back_from_the_file_it_went_to(tmp_path: Path, existing: str | None) -> None:
    if existing == "pyproject.toml":
        (tmp_path / existing).write_text('[project]\nname = "x"\nversion = "1"\n')
    elif existing:
        (tmp_path / existing).write_text('state-dir = ".jerry"\n')
    path, text = option_change(tmp_path, "reinject-budget", "850", "raised by ctxres init")
    path.write_text(text)
    assert path.name == (existing or ".ctxres.toml")
    assert load_config(tmp_path).value(REINJECT_BUDGET) == 850


@pytest.mark.parametrize("line", [".jerry/", "/.jerry/", ".jerry", "/.jerry", ".jerry/**"])
def test_a_line_that_ignores_the_state_folder_is_turned_into_one_that_keeps_the_checkpoints(
    tmp_path: Path, line: str
) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_text(f"*.log\n{line}\nbuild/\n")
    sample = ".jerry/checkpoints/cx-001-checkpoint.json"
    in_git, rule = ignoring_rule(tmp_path, sample)
    assert in_git and rule is not None and rule.pattern == line
    fixed = fixed_gitignore((tmp_path / ".gitignore").read_text(), rule, ".jerry")
    entries = "/.jerry/*" if "/" in line.rstrip("/") else "**/.jerry/*"  # anchored stays anchored
    assert fixed == f"*.log\n{entries}\n!/.jerry/checkpoints/\nbuild/\n"
    nested = ("src/.jerry/context-monitor-state.json", "src/.jerry/checkpoints/cx-001-checkpoint.json")
    before = {path: ignoring_rule(tmp_path, path)[1] is not None for path in nested}
    (tmp_path / ".gitignore").write_text(fixed)
    assert ignoring_rule(tmp_path, sample) == (True, None)
    assert ignoring_rule(tmp_path, ".jerry/context-monitor-state.json")[1] is not None  # the rest stays ignored
    # What the old line ignored in sub-folders stays ignored (git check-ignore says so, nested included).
    assert {path: ignoring_rule(tmp_path, path)[1] is not None for path in nested} == before


@pytest.mark.parametrize(
    "rule",
    [
        IgnoreRule(".gitignore", 1, "*.json"),  # not the folder: the user's own intent, only reported
        IgnoreRule("sub/.gitignore", 1, ".jerry/"),  # another file
        IgnoreRule(".git/info/exclude", 1, ".jerry/"),
    ],
)
def test_other_ignoring_lines_are_left_to_the_user(rule: IgnoreRule) -> None:
    assert fixed_gitignore(f"{rule.pattern}\n", rule, ".jerry") is None


def test_outside_git_nothing_is_said(tmp_path: Path) -> None:
    assert ignoring_rule(tmp_path, ".jerry/checkpoints/cx-001-checkpoint.json") == (False, None)


def test_the_readme_shows_what_init_writes() -> None:
    """The pre-commit block of the README is init's `repo: local` entry, its `files:` shortened."""
    section = (ROOT / "README.md").read_text("utf-8").split("## Use it with pre-commit\n", 1)[1]
    block = yaml.safe_load(section.split("```yaml\n", 1)[1].split("```", 1)[0])
    (shown,) = block["repos"]
    written = local_repo()
    assert shown["repo"] == written["repo"] == "local"
    assert [{k: v for k, v in h.items() if k != "files"} for h in shown["hooks"]] == [
        {k: v for k, v in h.items() if k not in ("files", "pass_filenames") or v is False} for h in written["hooks"]
    ]


OLD_LOCAL_ENTRIES = """\
# the team's hooks
repos:
  - repo: local
    hooks:
      - id: ctxres-check      # schemas
        name: ctxres check
        entry: ctxres check --force-exclude
        language: system
        files: \\.ya?ml$
      - id: team-lint
        name: team lint
        entry: ./lint.sh
        language: script
      - id: ctxres-reinject
        name: ctxres reinject
        entry: uv run ctxres reinject   # the team's own way: left alone
        language: system
        pass_filenames: false
"""


def test_init_upgrades_the_entries_an_older_init_wrote_in_place(tmp_path: Path) -> None:
    config = tmp_path / ".pre-commit-config.yaml"
    config.write_text(OLD_LOCAL_ENTRIES)
    (change,) = plan_precommit(tmp_path)
    assert "update ctxres-check in .pre-commit-config.yaml" in change.action
    hooks = yaml.safe_load(change.text)["repos"][0]["hooks"]
    assert hooks[0]["entry"] == BY_ID["ctxres-check"].local_entry() and hooks[0]["verbose"] is True
    assert hooks[1] == {"id": "team-lint", "name": "team lint", "entry": "./lint.sh", "language": "script"}
    assert hooks[2]["entry"] == "uv run ctxres reinject" and "verbose" not in hooks[2]
    assert change.text.startswith("# the team's hooks\n") and "- id: ctxres-check      # schemas\n" in change.text
    assert "# the team's own way: left alone" in change.text
    config.write_text(change.text)
    assert plan_precommit(tmp_path) == []  # idempotent
