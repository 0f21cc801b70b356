"""The four enforcement layers of the resumption update protocol, checked for one repository.

L1  a protocol document that explains when and how the resumption section is updated;
L2  an L2-REINJECT reminder in a rule file, re-injected into the model's context on every prompt;
L3  the PostToolUse hook that checks staleness after each write to an ORCHESTRATION file;
L4  the UserPromptSubmit hook (context monitor), which also reports staleness on every prompt.
Beside them: the PreCompact/SessionStart hooks (checkpoints and re-orientation) and pre-commit.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path

import yaml

from ctxres import ack
from ctxres.claude_settings import registrations
from ctxres.config import Config
from ctxres.findings import Finding, Severity
from ctxres.linters.checking.discovery import discover
from ctxres.linters.checking.registry import register
from ctxres.linters.checking.severity_policy import Case
from ctxres.linters.rules.reinject import budget as reinject_budget
from ctxres.project import project_root
from ctxres.records import FrozenRecord, init_field
from ctxres.reinject import resumption_reminder, scan
from ctxres.state import live
from ctxres.state.live import PROTOCOL_DOCS_FOLDER

# `ctxres check` loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

PROTOCOL_DOC = "resumption-update-protocol.md"
PROTOCOL_PATH = f"{PROTOCOL_DOCS_FOLDER}/{PROTOCOL_DOC}"
SETTINGS_FILES = (".claude/settings.json", ".claude/settings.local.json", "hooks/hooks.json")
PRECOMMIT_IDS = ("ctxres-check", "ctxres-stale", "ctxres-reinject")  # the hooks `ctxres init` adds
PRESENT, MISSING, MISCONFIGURED = "present", "missing", "misconfigured"
UNVERIFIED = "unverified"  # could not be checked (no network): a warning, not a failure

# Where each layer lives (relative to the repository): the location of its findings.
LAYER_FILES = {
    "L1": PROTOCOL_PATH,
    "L2": "CLAUDE.md",
    "L3": SETTINGS_FILES[0],
    "L4": SETTINGS_FILES[0],
    "checkpoint": SETTINGS_FILES[0],
    "re-orient": SETTINGS_FILES[0],
    "pre-commit": ".pre-commit-config.yaml",
}


class Layer(FrozenRecord):
    """One row of the doctor's table."""

    __slots__ = ("detail", "fix", "layer", "status", "where")

    layer: str
    status: str
    detail: str
    fix: str
    where: str  # the file that holds the layer, when LAYER_FILES does not say

    def __init__(self, layer: str, status: str, detail: str, fix: str = "", where: str = "") -> None:
        init_field(self, "layer", layer)
        init_field(self, "status", status)
        init_field(self, "detail", detail)
        init_field(self, "fix", fix)
        init_field(self, "where", where)

    @property
    def ok(self) -> bool:
        return self.status in (PRESENT, UNVERIFIED)


_TITLE = re.compile(r"^#\s+(the\s+)?resumption[\s-]+update[\s-]+protocol\b", re.IGNORECASE | re.MULTILINE)
_TRIGGERS = tuple(re.compile(rf"\bT{n}\b") for n in range(1, 8))
_SUB_SECTIONS = ("recovery_state", "files_to_read", "quality_trajectory", "compaction_events")


def is_protocol_document(text: str) -> bool:
    """Whether a Markdown text is the resumption update protocol itself, by what it is: a page titled so that
    defines the seven triggers (T1-T7) and the sub-sections they write. A file that merely mentions the
    protocol (an agent's deliverable, a page about another subject) is not."""
    return (
        _TITLE.search(text[:4000]) is not None
        and all(trigger.search(text) for trigger in _TRIGGERS)
        and all(name in text for name in _SUB_SECTIONS)
    )


def find_protocol(root: Path, limit: int = 20_000) -> tuple[Path | None, Path | None]:
    """(the protocol document of the project, else None; a file named like one that is not, else None): the
    usual place first, then the Markdown files whose name says ``protocol``, in a bounded walk."""
    unlike: Path | None = None
    for candidate in _protocol_candidates(root, limit):
        try:
            text = candidate.read_text("utf-8", errors="replace")
        except OSError:
            continue
        if is_protocol_document(text):
            return candidate, None
        if candidate.name == PROTOCOL_DOC and unlike is None:
            unlike = candidate
    return None, unlike


def _protocol_candidates(root: Path, limit: int) -> Iterator[Path]:
    usual = root / PROTOCOL_PATH
    if usual.is_file():
        yield usual
    seen = 0
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in {".git", "node_modules", ".venv", ".nox", "__pycache__"})
        for name in sorted(filenames):
            lowered = name.lower()
            if lowered.endswith(".md") and "protocol" in lowered and Path(dirpath) / name != usual:
                yield Path(dirpath) / name
        seen += len(filenames) + len(dirnames)
        if seen > limit:
            break


def check_l1(root: Path) -> Layer:
    found, unlike = find_protocol(root)
    if found is not None:
        return Layer("L1", PRESENT, found.relative_to(root).as_posix())
    detail = f"no protocol document ({PROTOCOL_DOC})"
    if unlike is not None:
        detail += (
            f"; {unlike.relative_to(root).as_posix()} has its name but is another document (no title "
            '"Resumption update protocol" with the triggers T1-T7)'
        )
    fix = (
        "ctxres init --only L1"
        if unlike != root / PROTOCOL_PATH
        else f"move {PROTOCOL_PATH}, then ctxres init --only L1"
    )
    return Layer("L1", MISSING, detail, fix)


class RuleFile(FrozenRecord):
    """A rule file of the project and its L2-REINJECT markers."""

    __slots__ = ("display", "markers", "path", "text")

    path: Path
    display: str
    text: str
    markers: tuple[Any, ...]  # ctxres.reinject.Marker

    def __init__(self, path: Path, display: str, text: str, markers: tuple[Any, ...]) -> None:
        init_field(self, "path", path)
        init_field(self, "display", display)
        init_field(self, "text", text)
        init_field(self, "markers", markers)


def rule_files(root: Path, config: Config) -> list[RuleFile]:
    """The rule files of this project (not those of nested projects, such as test fixtures), each with
    its markers; a file that cannot be read is left out."""
    found = []
    for artifact in discover([root], config, cwd=root):
        if artifact.kind != "rule-file" or project_root(artifact.path) != root:
            continue
        try:
            text = artifact.path.read_text("utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        found.append(RuleFile(artifact.path, artifact.display, text, tuple(scan(text).markers)))
    return found


def check_l2(root: Path, config: Config, files: list[RuleFile] | None = None) -> Layer:
    """The L2 row; ``files`` are the project's rule files when the caller has found them already."""
    files = rule_files(root, config) if files is None else files
    total = 0
    reminder = ""
    for rule_file in files:
        for marker in rule_file.markers:
            total += marker.measured
            if not reminder and resumption_reminder(marker):
                reminder = f"{rule_file.display}:{rule_file.text.count(chr(10), 0, marker.start) + 1}"
    if not reminder:
        detail = (
            f"no L2-REINJECT reminder to update the resumption section in {', '.join(a.display for a in files)}"
            if files
            else "no rule file (CLAUDE.md, .claude/rules/*.md), so no L2-REINJECT reminder to update the resumption "
            "section"
        )
        return Layer("L2", MISSING, detail, "ctxres init --only L2")
    if total > reinject_budget(config):
        return Layer(
            "L2",
            MISCONFIGURED,
            f"reminder at {reminder}, but all markers total {total} tokens, over the "
            f"{reinject_budget(config)}-token budget",
            "ctxres reinject (shorten or drop markers)",
        )
    return Layer("L2", PRESENT, f"reminder at {reminder}; all markers {total} tokens of {reinject_budget(config)}")


def _settings(root: Path) -> list[tuple[str, Any]]:
    found = []
    for name in SETTINGS_FILES:
        path = root / name
        if path.is_file():
            try:
                found.append((name, json.loads(path.read_text("utf-8"))))
            except (OSError, ValueError):
                found.append((name, None))
    return found


WRITE_TOOLS = ("Write", "Edit")
"""The tools the L3 hook must match: the ones Claude Code writes files with. ``MultiEdit`` is gone
from the client; a matcher that still names it stays valid (it selects Write and Edit too)."""


def matcher_covers(matcher: str, names: tuple[str, ...]) -> bool:
    """Whether a Claude Code matcher selects every one of ``names`` (exact lists, `*`, or a regex)."""
    if matcher in ("", "*"):
        return True
    if re.fullmatch(r"[A-Za-z0-9_ ,|-]+", matcher):
        listed = {part.strip() for part in re.split(r"[|,]", matcher)}
        return all(name in listed for name in names)
    try:
        return all(re.search(matcher, name) for name in names)
    except re.error:
        return False


def _hook_layer(root: Path, layer: str, event: str, names: tuple[str, ...], what: str) -> Layer:
    broken = []
    for name, data in _settings(root):
        if data is None:
            broken.append(name)
            continue
        registration = registrations(data)[event]
        if not registration.found:
            continue
        if all(matcher_covers(m, names) for m in registration.matchers) or not names:
            shown = "|".join(filter(None, registration.matchers))
            return Layer(layer, PRESENT, f"{what}: {event}{f' ({shown})' if shown else ''} in {name}")
        return Layer(
            layer,
            MISCONFIGURED,
            f"{event} is registered in {name} with matcher "
            f"{', '.join(repr(m) for m in registration.matchers)}, which misses some of {', '.join(names)}",
            "ctxres install-hooks",
        )
    note = f" ({', '.join(broken)} is not valid JSON)" if broken else ""
    return Layer(
        layer, MISSING, f"{what}: no ctxres {event} hook in {', '.join(SETTINGS_FILES)}{note}", "ctxres install-hooks"
    )


def check_precommit(root: Path) -> Layer:
    path = root / ".pre-commit-config.yaml"
    if not path.is_file():
        return Layer("pre-commit", MISSING, "no .pre-commit-config.yaml", "ctxres init --only pre-commit")
    try:
        data = yaml.safe_load(path.read_text("utf-8"))
    except (OSError, yaml.YAMLError):
        return Layer("pre-commit", MISCONFIGURED, ".pre-commit-config.yaml does not parse", "fix its YAML")
    ids = [
        hook.get("id")
        for repo in (data or {}).get("repos", []) or []
        if isinstance(repo, dict)
        for hook in repo.get("hooks", []) or []
        if isinstance(hook, dict)
    ]
    ours = [i for i in PRECOMMIT_IDS if i in ids]
    if not ours:
        return Layer(
            "pre-commit", MISSING, "no ctxres hook in .pre-commit-config.yaml", "ctxres init --only pre-commit"
        )
    return Layer("pre-commit", PRESENT, f"{', '.join(ours)} in .pre-commit-config.yaml")


LAYER_MISSING = register(
    "L001",
    "enforcement-layer-missing",
    "An enforcement layer of the resumption update protocol is missing (`ctxres doctor`).",
    Severity.ERROR,
    case=Case.TOOL_JOB,
    why="A layer of the resumption update protocol is missing: its hook never runs.",
    explanation="""
    ## Why
    The resumption section stays fresh only when every layer of the protocol is in place: the
    protocol document (L1), the L2-REINJECT reminder (L2), the PostToolUse staleness hook (L3),
    the context monitor (L4), the PreCompact and SessionStart hooks (checkpoint, re-orientation)
    and the pre-commit hooks. Without one of them, a stale section goes unnoticed at that step.

    It is reported by `ctxres doctor`, which checks a whole repository; `ctxres check` does not
    report it. The location is the file that would hold the layer (the protocol document,
    `CLAUDE.md`, `.claude/settings.json`, `.pre-commit-config.yaml`).

    ## Example
    A repository without `.pre-commit-config.yaml`: the `pre-commit` layer is missing.

    ## Fix
    Run the command the finding names: `ctxres init --only L1`, `ctxres init --only L2`,
    `ctxres install-hooks` or `ctxres init --only pre-commit`.
    """,
)


LAYER_MISCONFIGURED = register(
    "L002",
    "enforcement-layer-misconfigured",
    "An enforcement layer is present but misconfigured (`ctxres doctor`).",
    Severity.ERROR,
    case=Case.TOOL_JOB,
    why="A layer is present but misconfigured: its hook does not run as the protocol needs.",
    explanation="""
    ## Why
    A layer that is present but does not act is as bad as a missing one: a PostToolUse hook whose
    matcher misses `Edit`, reminders over the L2 token budget, a `.pre-commit-config.yaml` that
    does not parse. It is reported by `ctxres doctor`; `ctxres check` does not report it.

    ## Example
    `.claude/settings.json` registers the PostToolUse hook with the matcher `Write` only, so an
    `Edit` of the ORCHESTRATION file is never checked.

    ## Fix
    Run the command the finding names (`ctxres install-hooks` rewrites the hook registrations;
    `ctxres reinject` shows which markers to shorten), or fix the file it names.
    """,
)


def layer_findings(rows: list[Layer], root: Path, cwd: Path) -> list[Finding]:
    """L001 for each missing layer, L002 for each misconfigured one, at the file that holds the layer
    (relative to ``cwd``)."""
    found = []
    for row in rows:
        if row.ok:
            continue
        rule = LAYER_MISCONFIGURED if row.status == MISCONFIGURED else LAYER_MISSING
        shown = Path(os.path.relpath(root / (row.where or LAYER_FILES.get(row.layer, ".")), cwd)).as_posix()
        message = f"{row.layer} {row.status}: {row.detail}"
        found.append(Finding(shown, rule.code, message, rule.severity, fix=row.fix))
    return found


def diagnose(root: Path, config: Config) -> list[Layer]:
    """Every row, in order."""
    return [
        check_l1(root),
        check_l2(root, config),
        _hook_layer(root, "L3", "PostToolUse", WRITE_TOOLS, "staleness after writes"),
        _hook_layer(root, "L4", "UserPromptSubmit", (), "context monitor"),
        _hook_layer(root, "checkpoint", "PreCompact", (), "checkpoint before compaction"),
        _hook_layer(root, "re-orient", "SessionStart", ("startup", "resume", "compact"), "prompts after compaction"),
        check_precommit(root),
    ]


UNREADABLE = "UNREADABLE"  # the status of a live workflow that cannot be read (the doctor fails)


class LiveWorkflow(FrozenRecord):
    """The doctor's line about the workflow: the one the hooks, ``ack`` and ``prompt`` act on.

    Not a layer: a repository without a running workflow is normal, so it never fails the doctor.
    """

    __slots__ = ("note", "others", "path", "status")

    path: str | None  # relative to the repository; None when there is no live workflow
    status: str  # the workflow status ("" when there is none)
    others: tuple[str, ...]  # the other live workflows, in rank order (most recently updated first)
    note: str  # the sentence every command uses (``using X: ...``), or why there is none

    def __init__(self, path: str | None, status: str, others: tuple[str, ...], note: str) -> None:
        init_field(self, "path", path)
        init_field(self, "status", status)
        init_field(self, "others", others)
        init_field(self, "note", note)

    def as_json(self) -> dict[str, Any]:
        return {"path": self.path, "status": self.status or None, "others": list(self.others), "note": self.note}


def live_workflow(root: Path, config: Config) -> LiveWorkflow:
    """Which live workflow the hooks and commands of the repository at ``root`` act on, and why."""
    try:
        choice = ack.live_workflow(root, config)
    except live.UnreadableWorkflow as exc:
        return LiveWorkflow(exc.relpath, UNREADABLE, (), exc.sentence())
    if choice is None:
        return LiveWorkflow(None, "", (), ack.no_live_workflow(root, config))
    return LiveWorkflow(choice.relpath, choice.status, tuple(choice.others), choice.note())
