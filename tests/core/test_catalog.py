"""The artifact catalog (``ctxres.artifacts.CATALOG``) and what is read or generated from it: discovery,
the configuration defaults, conformance, the ``ctxres check`` help, the README table and the
``files:`` of ``.pre-commit-hooks.yaml``. A new kind without a discovery example here fails."""

from __future__ import annotations

import re
from fnmatch import fnmatchcase
from pathlib import Path

import pytest
import yaml

from ctxres import artifacts
from ctxres.artifacts import BY_KIND, CATALOG, DEFAULT_PATTERNS, KINDS, OTHER_SCHEMAS
from ctxres.config import Config
from ctxres.globs import matches_any
from ctxres.linters.checking.discovery import discover, skip_reason
from ctxres.linters.checking.engine import check_artifact
from ctxres.linters.cli import build_parser, main
from ctxres.linters.commands import catalog as cmd_catalog
from ctxres.linters.rules.conformance import targets
from ctxres.state.checkpoint_names import FILE_GLOB
from ctxres.state.live import ORCHESTRATION_PATTERNS

ROOT = Path(__file__).resolve().parent.parent.parent
SCHEMA_DIR = ROOT / "schemas"

# One file per kind (path, content) that discovery must find as that kind: a new kind needs one.
EXAMPLES: dict[str, tuple[str, str]] = {
    "orchestration": ("projects/PROJ__ORCHESTRATION.yaml", "resumption:\n  recovery_state: {}\n"),
    "checkpoint": (".jerry/checkpoints/cx-001-checkpoint.json", '{"checkpoint_id": "cx-001"}\n'),
    "monitor-state": (".jerry/context-monitor-state.json", "{}\n"),
    "precompact-state": ("nexus/00-system/.cache/precompact_state.json", "{}\n"),
    "build-manifest": ("nexus/02-builds/active/03-x/01-planning/resume-context.md", '---\nbuild_id: "03-x"\n---\n'),
    "resume-context": ("nexus/resume-context.md", '---\nresume_schema_version: "2.0"\nproject_id: 24-x\n---\n'),
    "task-graph": (".agent-memory/runs/r1/task-graph.json", '{"tasks": []}\n'),
    "event-log": (".agent-memory/runs/r1/events/executor/20260115.jsonl", '{"event_id": "e1"}\n'),
    "rule-file": (".claude/rules/resumption.md", "# Rules\n"),
    "claude-settings": (".claude/settings.json", '{"hooks": {}}\n'),
}
# Kinds also found by content, whatever their name.
SNIFFED_EXAMPLES: dict[str, tuple[str, str]] = {
    "orchestration": ("plans/state.yml", "resumption:\n  recovery_state: {}\n"),
}
# Paths each glob-derived pre-commit regex must treat exactly like discovery's patterns.
SAMPLE_PATHS = (
    "cx-001-checkpoint.json",
    "a/b/cx-001.d933ffb7.json",
    "cx-01.json",
    "cx-latest.json",
    "a/cx-001.json.bak",
    "context-monitor-state.json",
    "x/context-monitor-state.json",
    "x/context-monitor-state.json.old",
    "test_data/valid_precompact_state.json",
    "precompact_state.json",
    "a/precompact_state.jsonl",
    "resume-context.md",
    "a/my-resume-context.md",
    "task-graph.json",
    "r/task-graph.json",
    "events/executor/a.jsonl",
    "runs/r1/events/executor/20260115-1030.jsonl",
    "runs/r1/events/a.jsonl",
    "runs/r1/events/x/y/a.jsonl",
    "CLAUDE.md",
    "sub/CLAUDE.local.md",
    "XCLAUDE.md",
    ".claude/rules/a.md",
    "p/.claude/rules/deep/b.md",
    ".claude/rules.md",
    ".context/rules/x/y/z.md",
    ".context/rule/a.md",
    ".claude/settings.json",
    "sub/.claude/settings.local.json",
    "settings.json",
    ".vscode/settings.json",
    "plugin/hooks/hooks.json",
    "hooks.json",
)


def test_every_kind_has_a_discovery_example() -> None:
    assert set(EXAMPLES) == set(BY_KIND), "add an example file of the new kind to EXAMPLES"
    assert set(SNIFFED_EXAMPLES) == {entry.kind for entry in artifacts.SNIFFED}


@pytest.mark.parametrize("kind", list(EXAMPLES))
def test_discovery_finds_each_kind(tmp_path: Path, kind: str) -> None:
    relpath, content = EXAMPLES[kind]
    path = tmp_path / relpath
    path.parent.mkdir(parents=True)
    path.write_text(content, "utf-8")
    found = discover([tmp_path], Config(), tmp_path)
    assert [(a.display, a.kind) for a in found] == [(relpath, kind)]
    assert found[0].format is KINDS[kind]
    # The pre-commit hooks that handle the kind are given (or triggered by) the file.
    for hook in BY_KIND[kind].hooks:
        assert any(re.search(regex, relpath) for regex in cmd_catalog.hook_regexes(hook)), hook


# The kinds whose every file of the name is read where it is (rule files by Claude Code, workflow files by the
# hooks, which choose the live workflow among them): their name is their place. Every other kind is recognised
# by a folder or by its content, never by its name alone: a new kind adds a file named alike here.
READ_WHERE_NAMED = {"orchestration", "rule-file"}
NAMED_ALIKE: dict[str, str] = {
    "checkpoint": "evals/canary/cx-001.json",
    "monitor-state": "tools/monitor/context-monitor-state.json",
    "precompact-state": "tools/precompact_state.json",
    "build-manifest": "notes/resume-context.md",
    "resume-context": "notes/resume-context.md",
    "task-graph": "tools/nx/task-graph.json",
    "event-log": "data/events/2024-03/01.jsonl",
    "claude-settings": "tools/git/hooks/hooks.json",  # no plugin manifest beside it
}
ANOTHER_TOOLS = '{"id": "item-1", "reviewed": true, "raw_output": "42", "expected": "42"}\n'


def test_every_kind_is_recognised_by_place_and_content_not_by_name(tmp_path: Path) -> None:
    assert all(isinstance(entry.recognition, artifacts.Recognition) for entry in CATALOG)
    named = {entry.kind for entry in CATALOG if entry.recognition.place is artifacts.read_where_named}
    assert named == READ_WHERE_NAMED
    assert set(NAMED_ALIKE) == set(BY_KIND) - READ_WHERE_NAMED, "add a file named like the new kind to NAMED_ALIKE"
    for kind, relpath in NAMED_ALIKE.items():
        assert matches_any(relpath, DEFAULT_PATTERNS[kind]), kind
        root = tmp_path / kind
        (root / relpath).parent.mkdir(parents=True)
        (root / relpath).write_text(ANOTHER_TOOLS, "utf-8")
        assert discover([root], Config(root=root), root) == [], kind
        why = skip_reason(relpath, root / relpath, Config(root=root))
        assert why is not None and why.endswith("another tool's file, not checked"), kind


@pytest.mark.parametrize(
    ("content", "kind"),
    [
        ('---\nbuild_id: "03-x"\nbuild_name: X\n---\n', "build-manifest"),
        ('---\nresume_schema_version: "2.0"\n---\n\nbuild_id: in the body, not the front matter\n', "resume-context"),
        ('---\nresume_schema_version: "2.0"\nnotes:\n  build_id: nested\n---\n', "resume-context"),
        ("# no front matter\nbuild_id: x\n", None),  # outside a workspace, nothing of a manifest: not ours
    ],
)
def test_a_manifest_that_names_a_build_is_a_build_manifest_wherever_it_is(
    tmp_path: Path, content: str, kind: str | None
) -> None:
    """Both kinds are called `resume-context.md`: the front matter's `build_id` tells them apart, so a build
    checked from its own folder (`ctxres check 02-builds/active/03-x`) is still a build."""
    path = tmp_path / "01-planning" / "resume-context.md"
    path.parent.mkdir()
    path.write_text(content, "utf-8")
    found = discover([tmp_path], Config(), tmp_path)
    expected = [("01-planning/resume-context.md", kind)] if kind else []
    assert [(a.display, a.kind) for a in found] == expected
    assert [a.kind for a in discover([path], Config(), tmp_path)] == [k for _, k in expected]


@pytest.mark.parametrize(
    ("files", "found"),
    [
        (
            [".claude/settings.json", ".claude/settings.local.json"],
            [".claude/settings.json", ".claude/settings.local.json"],
        ),
        (["settings.json", ".vscode/settings.json", "config/.claude/other.json"], []),
        (["hooks/hooks.json"], []),  # no plugin manifest beside it: another tool's
        (["hooks/hooks.json", ".claude-plugin/plugin.json"], ["hooks/hooks.json"]),
        (["p/hooks/hooks.json", "p/.claude-plugin/plugin.json"], ["p/hooks/hooks.json"]),
    ],
)
def test_claude_settings_are_ours_by_place(tmp_path: Path, files: list[str], found: list[str]) -> None:
    """The settings files the client reads hooks from, and a plugin's hooks.json; no other settings.json."""
    for relpath in files:
        (tmp_path / relpath).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relpath).write_text('{"name": "p"}\n' if relpath.endswith("plugin.json") else "{}\n", "utf-8")
    discovered = discover([tmp_path], Config(), tmp_path)
    assert sorted(a.display for a in discovered if a.kind == "claude-settings") == found


@pytest.mark.parametrize("kind", list(SNIFFED_EXAMPLES))
def test_discovery_sniffs_by_content(tmp_path: Path, kind: str) -> None:
    relpath, content = SNIFFED_EXAMPLES[kind]
    path = tmp_path / relpath
    path.parent.mkdir(parents=True)
    path.write_text(content, "utf-8")
    assert [a.kind for a in discover([tmp_path], Config(), tmp_path)] == [kind]
    path.write_text("other: 1\n", "utf-8")
    assert discover([tmp_path], Config(), tmp_path) == []


@pytest.mark.parametrize("kind", list(EXAMPLES))
def test_conformance_uses_the_kinds_schemas(tmp_path: Path, kind: str) -> None:
    relpath, content = EXAMPLES[kind]
    path = tmp_path / relpath
    path.parent.mkdir(parents=True)
    path.write_text(content, "utf-8")
    [artifact] = discover([tmp_path], Config(), tmp_path)
    doc, _findings = check_artifact(artifact, Config())
    assert doc is not None
    assert {name for name, _where, _value in targets(doc)} <= set(BY_KIND[kind].schemas)


def test_the_catalog_references_the_core_definitions() -> None:
    assert BY_KIND["orchestration"].patterns is ORCHESTRATION_PATTERNS
    assert BY_KIND["checkpoint"].patterns == (FILE_GLOB,)
    assert list(KINDS) == list(DEFAULT_PATTERNS) == [entry.kind for entry in CATALOG]
    assert Config().patterns == DEFAULT_PATTERNS


def test_every_schema_of_the_catalog_is_exported_and_every_export_is_in_the_catalog() -> None:
    from ctxres.schemas.export import MODELS

    named = [name for entry in CATALOG for name in entry.schemas]
    for name in named:
        assert (SCHEMA_DIR / f"{name}.schema.json").is_file(), name
        assert name in MODELS, name
    placeholders = [name.replace("<event>", "*") for _d, _f, names in OTHER_SCHEMAS for name in names]
    exported = sorted(p.name[: -len(".schema.json")] for p in SCHEMA_DIR.glob("*.schema.json"))
    for name in exported:
        assert name in named or any(fnmatchcase(name, p) for p in placeholders), f"{name} is not in the catalog"


@pytest.mark.parametrize("entry", [e for e in CATALOG if e.precommit is None], ids=lambda e: e.kind)
def test_precommit_regex_matches_what_discovery_matches(entry: artifacts.ArtifactKind) -> None:
    regexes = cmd_catalog.precommit_regexes(entry)
    for relpath in SAMPLE_PATHS:
        by_regex = any(re.search(regex, relpath) for regex in regexes)
        assert by_regex is matches_any(relpath, entry.patterns), relpath


def test_the_generated_files_are_current() -> None:
    assert cmd_catalog.drift(ROOT) == [], "run `ctxres catalog --write`"
    assert main(["catalog", "--check", "--root", str(ROOT)]) == 0


def test_precommit_files_are_the_catalogs() -> None:
    hooks = {hook["id"]: hook for hook in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text("utf-8"))}
    for hook in cmd_catalog.hook_ids():
        files = hooks[hook]["files"]
        regexes = cmd_catalog.hook_regexes(hook)
        if len(regexes) == 1:
            assert files == regexes[0]
        else:
            assert re.compile(files).pattern.split() == [
                "(?x)(",
                regexes[0],
                *[x for r in regexes[1:] for x in ("|", r)],
                ")",
            ]


def test_the_readme_table_is_the_catalogs() -> None:
    readme = (ROOT / "README.md").read_text("utf-8")
    start = readme.index(cmd_catalog.TABLE_START) + len(cmd_catalog.TABLE_START)
    assert readme[start : readme.index(cmd_catalog.TABLE_END)] == cmd_catalog.markdown_table()
    for entry in CATALOG:
        assert f"| `{entry.kind}` |" in readme


def test_check_help_lists_every_kind() -> None:
    parser = build_parser()
    subcommands = next(a for a in parser._actions if a.dest == "command")
    description = subcommands.choices["check"].description  # type: ignore[union-attr]
    assert description == cmd_catalog.check_description()
    for entry in CATALOG:
        assert entry.found_as.replace("`", "") in description


def test_render_hooks_file_keeps_everything_but_files(tmp_path: Path) -> None:
    text = (ROOT / ".pre-commit-hooks.yaml").read_text("utf-8")
    broken = text.replace("files: \\.ya?ml$", "files: \\.json$")
    assert broken != text
    assert cmd_catalog.render_hooks_file(broken) == text
    (tmp_path / "README.md").write_text((ROOT / "README.md").read_text("utf-8"), "utf-8")
    (tmp_path / ".pre-commit-hooks.yaml").write_text(broken, "utf-8")
    assert cmd_catalog.drift(tmp_path) == [".pre-commit-hooks.yaml"]
    assert main(["catalog", "--check", "--root", str(tmp_path)]) == 1
    assert main(["catalog", "--write", "--root", str(tmp_path)]) == 0
    assert (tmp_path / ".pre-commit-hooks.yaml").read_text("utf-8") == text
