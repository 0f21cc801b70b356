"""``ctxres init``: give a repository every enforcement layer (idempotent; ``--dry-run`` shows the plan)."""

from __future__ import annotations

import argparse
import datetime as dt
import json
import subprocess
import sys
from importlib import resources
from pathlib import Path, PurePosixPath

import yaml

from ctxres.atomic import write_atomic
from ctxres.claude_settings import install, render
from ctxres.config import Config, load_config
from ctxres.linters.commands.install import hook_command, installed_script
from ctxres.linters.rules.layers import PRECOMMIT_IDS, PROTOCOL_PATH, check_l1, check_l2
from ctxres.linters.rules.precommit_setup import check_installed
from ctxres.linters.rules.reinject import reminder_marker
from ctxres.orchestration import PROTOCOL_DOCS_FOLDER
from ctxres.records import FrozenRecord, init_field
from ctxres.reinject import scan
from ctxres.yamledit import EditError, append_item

STEPS = ("L1", "L2", "hooks", "gitignore", "pre-commit", "template")
# The hooks' per-machine state (under the state folder): rewritten on every prompt or write, never committed.
# The checkpoints (<state folder>/checkpoints/cx-NNN-checkpoint.json) are the resumption record: committed.
STATE_FILES_NOT_COMMITTED = (
    "context-monitor-state.json",
    "context-monitor-cache.json",
    "orchestration-snapshot.json",
    "sessions/",  # what SessionStart delivered to each session (ctxres.hooks.deliveries)
)
NEXUS_STATE_FILE = "00-system/.cache/precompact_state.json"  # the nexus profile's PreCompact state
GITIGNORE_HEADER = "# ctxres: the hooks' per-machine state (commit the checkpoints, not these)"
# Under the documentation folder, which ctxres.orchestration never takes for a live workflow.
TEMPLATE_PATH = f"{PROTOCOL_DOCS_FOLDER}/orchestration-template.yaml"
PRECOMMIT_URL = "https://github.com/ctxres/ctxres"
PRECOMMIT_REV = "v0.1.0"
PRECOMMIT_REPO = {"repo": PRECOMMIT_URL, "rev": PRECOMMIT_REV, "hooks": [{"id": hook_id} for hook_id in PRECOMMIT_IDS]}


class Change(FrozenRecord):
    """One file init would write: its path, new text, and what it does."""

    __slots__ = ("action", "path", "text")

    path: Path
    text: str
    action: str

    def __init__(self, path: Path, text: str, action: str) -> None:
        init_field(self, "path", path)
        init_field(self, "text", text)
        init_field(self, "action", action)


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "init",
        help="add the protocol document, the L2 reminder, the hooks and the pre-commit hooks to a repository",
        description="Scaffold every enforcement layer: writes the L1 protocol document, adds the L2-REINJECT "
        "reminder to a rule file (creating it if needed), registers the Claude Code hooks in "
        ".claude/settings.json (with the absolute path of this installation's ctxres-hook, which Claude Code "
        "finds whatever its PATH), adds the hooks' per-machine state files to .gitignore, adds the ctxres hooks "
        "to .pre-commit-config.yaml and runs `pre-commit install`, and writes a v2 resumption "
        "template when the repository has no orchestration file. Running it again changes nothing; an "
        "existing file of yours is never overwritten without --force.",
    )
    parser.add_argument("path", nargs="?", type=Path, default=Path("."), help="the repository (default: .)")
    parser.add_argument(
        "--only",
        type=lambda v: tuple(s.strip() for s in v.split(",") if s.strip()),
        default=STEPS,
        help=f"comma-separated steps among {', '.join(STEPS)} (default: all)",
    )
    parser.add_argument("--rule-file", default="CLAUDE.md", help="the rule file that gets the L2 reminder")
    parser.add_argument("--dry-run", action="store_true", help="print what would change; write nothing")
    parser.add_argument("--force", action="store_true", help="overwrite the protocol document and template")
    parser.set_defaults(handler=run)


def _protocol_text() -> str:
    return (resources.files("ctxres.linters") / "data" / "resumption-update-protocol.md").read_text("utf-8")


def plan_l1(root: Path, force: bool) -> list[Change]:
    target = root / PROTOCOL_PATH
    if check_l1(root).ok and not force:
        return []
    if target.exists() and not force:
        return []
    return [Change(target, _protocol_text(), "write the protocol document (L1)")]


def plan_l2(root: Path, rule_file: str) -> list[Change]:
    if check_l2(root, load_config(root)).status != "missing":
        return []
    target = root / rule_file
    text = target.read_text("utf-8") if target.exists() else "# Rules for Claude Code\n"
    ranks = {m.rank for m in scan(text).markers if m.rank is not None}
    rank = 9 if 9 not in ranks else max(ranks) + 1
    text = text.rstrip("\n") + "\n\n" + reminder_marker(rank) + "\n"
    return [Change(target, text, f"add the resumption update reminder (L2, rank {rank})")]


def plan_hooks(root: Path, command: str) -> list[Change]:
    target = root / ".claude" / "settings.json"
    original = target.read_text("utf-8") if target.exists() else ""
    current = json.loads(original) if original.strip() else {}
    if not isinstance(current, dict):
        raise ValueError(f"{target} does not hold a JSON object")
    merged = install(current, command)
    if merged == current:
        return []
    return [
        Change(
            target,
            render(merged, original),
            f"register the Claude Code hooks (L3, L4, checkpoints) as `{command} EVENT`",
        )
    ]


def ignored_state(config: Config) -> list[str]:
    """The .gitignore lines for the hooks' per-machine state files (anchored at the repository)."""
    relative = PurePosixPath(config.state_dir.replace("\\", "/")).as_posix().strip("/")
    folder = "" if relative in ("", ".") else "/" + relative
    lines = [f"{folder}/{name}" for name in STATE_FILES_NOT_COMMITTED]
    lines.append(f"{folder}/**/.*.tmp")  # what an interrupted atomic write leaves behind
    if config.profile == "nexus":
        lines.append("/" + NEXUS_STATE_FILE)
    return lines


def plan_gitignore(root: Path) -> list[Change]:
    target = root / ".gitignore"
    text = target.read_text("utf-8") if target.exists() else ""
    present = {line.strip() for line in text.splitlines()}
    missing = [line for line in ignored_state(load_config(root)) if line not in present]
    if not missing:
        return []
    block = ([] if GITIGNORE_HEADER in present else [GITIGNORE_HEADER]) + missing
    prefix = text if not text or text.endswith("\n") else text + "\n"
    separator = "\n" if prefix.strip() else ""
    return [
        Change(target, prefix + separator + "\n".join(block) + "\n", "keep the hooks' per-machine state out of git")
    ]


def plan_precommit(root: Path) -> list[Change]:
    target = root / ".pre-commit-config.yaml"
    if not target.exists():
        text = (
            "repos:\n"
            + "\n".join(
                ["  - repo: " + PRECOMMIT_URL, f"    rev: {PRECOMMIT_REV}", "    hooks:"]
                + [f"      - id: {hook_id}" for hook_id in PRECOMMIT_IDS]
            )
            + "\n"
        )
        return [Change(target, text, "create .pre-commit-config.yaml with the ctxres hooks")]
    text = target.read_text("utf-8")
    data = yaml.safe_load(text) or {}
    if any(isinstance(r, dict) and "ctxres" in str(r.get("repo", "")) for r in data.get("repos", []) or []):
        return []
    if any(hook_id in text for hook_id in PRECOMMIT_IDS):
        return []
    try:
        new = append_item(text, ("repos",), PRECOMMIT_REPO)
    except EditError as exc:
        raise SystemExit(f"ctxres: error: cannot add the ctxres hooks to {target}: {exc}; add them by hand") from None
    return [
        Change(target, new if new.endswith("\n") else new + "\n", "add the ctxres hooks to .pre-commit-config.yaml")
    ]


def plan_template(root: Path, force: bool) -> list[Change]:
    from ctxres.linters.checking.discovery import discover

    target = root / TEMPLATE_PATH
    has_workflow = any(a.kind == "orchestration" for a in discover([root], load_config(root), cwd=root))
    if (has_workflow or target.exists()) and not force:
        return []
    now = dt.datetime.now(dt.timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")
    text = f"""# A v2.0 resumption section to copy into your ORCHESTRATION.yaml (written by `ctxres init`).
# Update it at every state transition: see {PROTOCOL_PATH}.
resumption:
  recovery_state:
    last_checkpoint: null
    current_phase: 1
    current_phase_name: "Phase 1"
    workflow_status: "ACTIVE"
    current_activity: "phase-1-agent-execution"
    next_step: "Execute the Phase 1 agents"
    context_fill_at_update: null
    updated_at: "{now}"
  files_to_read:
    - path: "ORCHESTRATION.yaml"
      priority: 1
      purpose: "Machine-readable workflow state. Read the resumption section first."
      sections: ["resumption"]
  quality_trajectory:
    gates_completed: []
    gates_remaining: []
    current_gate: null
    current_gate_iteration: null
    score_history: {{}}
  defect_summary:
    total_defects_found: 0
    total_defects_resolved: 0
    unresolved_defects: []
  decision_log: []
  agent_summaries: {{}}
  compaction_events:
    count: 0
    events: []
"""
    return [Change(target, text, "write a v2 resumption section template")]


def plan(root: Path, steps: tuple[str, ...], rule_file: str, force: bool, command: str = "ctxres-hook") -> list[Change]:
    planners = {
        "L1": lambda: plan_l1(root, force),
        "L2": lambda: plan_l2(root, rule_file),
        "hooks": lambda: plan_hooks(root, command),
        "gitignore": lambda: plan_gitignore(root),
        "pre-commit": lambda: plan_precommit(root),
        "template": lambda: plan_template(root, force),
    }
    return [change for step in steps for change in planners[step]()]


def install_precommit(root: Path, dry_run: bool) -> str | None:
    """Run ``pre-commit install`` when the configuration uses the ctxres hooks and the git hook is not
    pre-commit's yet; what was done (or what the user must do), or None when nothing was needed."""
    row = check_installed(root)
    if row is None or row.ok:
        return None
    if row.status != "missing":
        return f"ctxres: warning: {row.detail}; fix: {row.fix}"
    found = installed_script("pre-commit")
    if found is None:
        return "ctxres: warning: pre-commit is not installed here; run `pre-commit install` so that the hooks run"
    if dry_run:
        return "would run pre-commit install"
    try:
        done = subprocess.run(
            [str(found), "install"], cwd=root, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"ctxres: warning: `pre-commit install` failed ({exc}); run it yourself"
    if done.returncode != 0:
        said = (done.stderr.strip() or done.stdout.strip()).splitlines()[-1:] or ["no output"]
        return f"ctxres: warning: `pre-commit install` failed ({said[0]}); run it yourself"
    return "run pre-commit install: the ctxres hooks now run on every commit"


def run(args: argparse.Namespace) -> int:
    root: Path = args.path.resolve()
    unknown = [s for s in args.only if s not in STEPS]
    if unknown or not root.is_dir():
        why = f"unknown step {', '.join(unknown)} (steps: {', '.join(STEPS)})" if unknown else f"{root} is not a folder"
        print(f"ctxres: error: {why}", file=sys.stderr)
        return 2
    command, warning = hook_command() if "hooks" in args.only else ("ctxres-hook", None)
    try:
        changes = plan(root, args.only, args.rule_file, args.force, command)
    except (OSError, ValueError, yaml.YAMLError) as exc:
        print(f"ctxres: error: {exc}", file=sys.stderr)
        return 2
    except SystemExit as exc:
        print(exc, file=sys.stderr)
        return 2
    if warning:
        print(warning, file=sys.stderr)
    for change in changes:
        shown = change.path.relative_to(root).as_posix()
        if args.dry_run:
            print(f"would {change.action}: {shown}")
            continue
        change.path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(change.path, change.text)
        print(f"{change.action}: {shown}")
    installed = install_precommit(root, args.dry_run) if "pre-commit" in args.only else None
    if installed:
        print(installed, file=sys.stderr if installed.startswith("ctxres: warning") else sys.stdout)
    if not changes and not (installed and not installed.startswith("ctxres: warning")):
        print("Nothing to do: every requested layer is already in place.")
        return 0
    if not args.dry_run:
        print("Run `ctxres doctor` to check every layer.")
    return 0
