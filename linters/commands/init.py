"""``ctxres init``: give a repository every enforcement layer (idempotent; ``--dry-run`` shows the plan)."""

from __future__ import annotations

import argparse
import datetime as dt
import json
import subprocess
import sys
from collections.abc import Callable
from importlib import resources
from pathlib import Path, PurePosixPath
from typing import Any

import yaml

from ctxres import protocol
from ctxres.claude_settings import LOCAL_SETTINGS_FILE, SETTINGS_FILE, render
from ctxres.config import Config, load_config, project_folder, shadowed_warning
from ctxres.formats.yamledit import EditError, append_item, replace_item, replace_value, set_key
from ctxres.linters.checking.discovery import discover
from ctxres.linters.commands import elsewhere
from ctxres.linters.commands._config_edit import option_change
from ctxres.linters.commands._precommit_hooks import BY_ID, local_repo, migrated
from ctxres.linters.commands.install import (
    BARE_COMMAND,
    Change,
    WriteRefused,
    add_user_env_option,
    ccstatusline_note,
    installed_script,
    no_script_warning,
    plan_local,
    plan_shared,
    read_for_change,
    shown_path,
    write_changes,
)
from ctxres.linters.rules.conformance import schema_text
from ctxres.linters.rules.layers import (
    PRECOMMIT_IDS,
    PROTOCOL_PATH,
    RuleFile,
    check_l1,
    check_l2,
    find_protocol,
    rule_files,
)
from ctxres.linters.rules.reinject import REINJECT_BUDGET, reminder_marker
from ctxres.linters.rules.reinject import budget as reinject_budget
from ctxres.linters.setup.checkpoints_tracked import (
    check_checkpoints_tracked,
    checkpoint_sample,
    fixed_gitignore,
    foreign_checkpoints,
    ignoring_rule,
    kept_local,
    state_folder,
)
from ctxres.linters.setup.machine import is_precommit_launcher, is_tracked
from ctxres.linters.setup.precommit_setup import check_installed, is_older_remote
from ctxres.reinject import scan
from ctxres.state.live import ORCHESTRATION_PATTERNS, PROTOCOL_DOCS_FOLDER

BUDGET_OPTION = REINJECT_BUDGET.name
RULE_FILE_HEADER = "# Rules for Claude Code\n"  # a rule file init creates for the reminder
BUDGET_STEP = 50  # a raised budget is rounded up to this many tokens
STEPS = ("L1", "L2", "hooks", "gitignore", "pre-commit", "template")
OPT_IN_STEPS = ("editor",)  # run only when named with --only: they write editor settings
EDITOR_SETTINGS = ".vscode/settings.json"
EDITOR_SCHEMA_FOLDER = ".vscode/ctxres"
EDITOR_SCHEMAS = ("orchestration",)  # the YAML artifacts an editor validates as they are typed
LOCAL_STEPS = ("hooks", "pre-commit")  # what `--local` does of them: nothing that is committed
# The hooks' per-machine state (under the state folder): rewritten on every prompt or write, never committed.
# The checkpoints (<state folder>/checkpoints/cx-NNN-checkpoint.json) are the resumption record: committed.
STATE_FILES_NOT_COMMITTED = (
    "context-monitor-state.json",
    "context-monitor-cache.json",
    "statusline-cache.json",  # what the statusline remembers between runs (ctxres.hooks.statusline)
    "orchestration-snapshot.json",
    "sessions/",  # what SessionStart delivered to each session (ctxres.hooks.deliveries)
)
NEXUS_STATE_FILE = "00-system/.cache/precompact_state.json"  # the nexus profile's PreCompact state
GITIGNORE_HEADER = "# ctxres: the hooks' per-machine state (commit the checkpoints, not these)"
LOCAL_SETTINGS_IGNORED = f"/.claude/{LOCAL_SETTINGS_FILE}"  # Claude Code's per-clone settings (CTXRES_HOOK)
# Under the documentation folder, which ctxres.state.orchestration never takes for a live workflow.
TEMPLATE_PATH = f"{PROTOCOL_DOCS_FOLDER}/orchestration-template.yaml"
PRECOMMIT_HEADER = (
    "# pre-commit runs these hooks on every commit (`pre-commit install` once per clone).\n"
    "# The ctxres hooks run the ctxres of the machine that commits: the project's .venv/bin/ctxres,\n"
    "# else `ctxres` on the PATH (pipx, uv tool); without one they pass and say the checks did not run.\n"
)


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "init",
        help="add the protocol document, the L2 reminder, the hooks and the pre-commit hooks to a repository",
        description="Scaffold every enforcement layer: writes the L1 protocol document, adds the L2-REINJECT "
        "reminder to a rule file (creating it if needed), registers the Claude Code hooks in "
        ".claude/settings.json (a command, the same on every machine, that finds ctxres-hook in $CTXRES_HOOK, "
        "the project's .venv or the PATH; this machine's path is recorded only in a settings file git does not "
        "track), adds the hooks' per-machine state files to .gitignore, adds the ctxres hooks to "
        ".pre-commit-config.yaml (they find ctxres the same way) and runs `pre-commit install`, and writes a v2 "
        "resumption template when the repository has no orchestration file. Running it again changes nothing; an "
        "existing file of yours is never overwritten without --force.",
    )
    parser.add_argument(
        "path",
        nargs="?",
        type=Path,
        help="the repository (default: the one holding the working folder: the folder of its configuration file, "
        "else the top of its git work tree)",
    )
    parser.add_argument(
        "--only",
        type=lambda v: tuple(s.strip() for s in v.split(",") if s.strip()),
        default=STEPS,
        help=f"comma-separated steps among {', '.join(STEPS)} (default: all), or {', '.join(OPT_IN_STEPS)}: the "
        f"JSON Schemas for the YAML language server (VS Code's yaml.schemas in {EDITOR_SETTINGS}, schemas in "
        f"{EDITOR_SCHEMA_FOLDER}/), only when named",
    )
    parser.add_argument("--rule-file", default="CLAUDE.md", help="the rule file that gets the L2 reminder")
    parser.add_argument(
        "--local",
        action="store_true",
        help="only this clone's part, for a teammate after cloning: record this machine's ctxres-hook in "
        ".claude/settings.local.json when the hooks would not find it in the project's .venv or on the PATH "
        "(only when git ignores that file), and run `pre-commit install`; no tracked file is written",
    )
    add_user_env_option(parser)
    parser.add_argument("--dry-run", action="store_true", help="print what would change; write nothing")
    parser.add_argument(
        "--undo",
        action="store_true",
        help="take out what ctxres init (and ctxres baseline) added: the hooks and statusline (the team's own put "
        "back), the .gitignore lines, the pre-commit entry, the L2 reminder, the reinject-budget it set, the "
        "protocol document, the template and the baseline; a part changed after init is left and named (exit 1). "
        "With --dry-run: each change, nothing written",
    )
    parser.add_argument("--force", action="store_true", help="overwrite the protocol document and template")
    parser.set_defaults(handler=run)


def protocol_text() -> str:
    """The protocol document (L1) init writes."""
    return (resources.files("ctxres.linters") / "data" / "resumption-update-protocol.md").read_text("utf-8")


def plan_l1(root: Path, force: bool) -> list[Change]:
    target = root / PROTOCOL_PATH
    if check_l1(root).ok and not force:
        return []
    if target.exists() and not force:
        return []
    return [Change(target, protocol_text(), "write the protocol document (L1)")]


def l1_note(root: Path, force: bool) -> str | None:
    """What init did not write for L1, and why (never silently): the project has its protocol document elsewhere,
    or another file holds the usual place."""
    if force:
        return None
    found, unlike = find_protocol(root)
    if found is not None and found != root / PROTOCOL_PATH:
        return f"keep the protocol document (L1) the project has: {shown_path(found)} (not written to {PROTOCOL_PATH})"
    if found is None and unlike == root / PROTOCOL_PATH:
        return (
            f"ctxres: warning: {shown_path(unlike)} is not the resumption update protocol (L1), and init does not "
            "overwrite it: move it, or run `ctxres init --only L1 --force` to replace it"
        )
    return None


def free_rank(used: set[int]) -> int:
    """The protocol's rank for the reminder when no rule file of the project uses it, else the rank after
    the highest one used (ranks order the reminders; two markers with one rank are R005)."""
    return protocol.RESUMPTION_MARKER_RANK if protocol.RESUMPTION_MARKER_RANK not in used else max(used) + 1


def plan_l2(root: Path, rule_file: str) -> list[Change]:
    """The reminder, at a rank no rule file of the project uses; and, when the project's markers with it
    would measure more than the L2 budget, the budget raised to what they measure (said on stdout:
    the markers are re-sent with every prompt, so a team shortens them and lowers it again). A reminder an
    earlier init wrote is brought to what this one would write (:func:`upgrade_l2`)."""
    config = load_config(root)
    files = rule_files(root, config)
    if check_l2(root, config, files).status != "missing":
        return upgrade_l2(root, config, files)
    target = root / rule_file
    text = read_for_change(target) or RULE_FILE_HEADER
    rank = free_rank({m.rank for f in files for m in f.markers if m.rank is not None})
    marker = reminder_marker(rank)
    text = text.rstrip("\n") + "\n\n" + marker + "\n"
    changes = [Change(target, text, f"add the resumption update reminder (L2, rank {rank})")]
    spent = sum(m.measured for f in files for m in f.markers)
    return changes + budget_change(root, config, spent, spent + sum(m.measured for m in scan(marker).markers))


def budget_change(root: Path, config: Config, spent: int, total: int) -> list[Change]:
    """The L2 budget raised to ``total`` (rounded up to :data:`BUDGET_STEP`) when the project's markers measure
    ``spent`` tokens without the reminder and ``total`` with it, over the budget; else nothing."""
    limit = reinject_budget(config)
    if total <= limit:
        return []
    raised = -(-total // BUDGET_STEP) * BUDGET_STEP
    why = (
        f"the L2-REINJECT markers measured {spent} tokens before ctxres; with its reminder {total}, over the "
        f"{limit}-token budget: raised by ctxres init; shorten the markers and lower it"
    )
    path, new = option_change(root, BUDGET_OPTION, str(raised), why)
    return [
        Change(
            path,
            new,
            f"set reinject-budget = {raised}: the rule files' markers measure {total} tokens with the "
            f"reminder, over the {limit}-token budget (every marker is re-sent with each prompt: shorten "
            "them, then lower it)",
        )
    ]


def upgrade_l2(root: Path, config: Config, files: list[RuleFile]) -> list[Change]:
    """The reminder an earlier init wrote (the protocol's content, in one rule file), brought to what a fresh
    init writes: moved to a free rank when another marker has its rank (R005: the team's rule files came
    after it, or an older init looked at one file only), its ``tokens=`` measured again, and the budget raised
    when the markers with it are over (R006). Nothing when the project has no such reminder, or several."""
    ours = [(f, m) for f in files for m in f.markers if m.content == protocol.RESUMPTION_MARKER_CONTENT]
    if len(ours) != 1:
        return []
    rule_file, marker = ours[0]
    others = [m for f in files for m in f.markers if m is not marker]
    used = {m.rank for m in others if m.rank is not None}
    rank = marker.rank if marker.rank is not None and marker.rank not in used else free_rank(used)
    wanted = reminder_marker(rank)
    changes = []
    if marker.text != wanted:
        text = rule_file.text[: marker.start] + wanted + rule_file.text[marker.end :]
        moved = f" (rank {marker.rank} is another marker's)" if rank != marker.rank else ""
        changes.append(Change(rule_file.path, text, f"update the resumption update reminder (L2, rank {rank}){moved}"))
    spent = sum(m.measured for m in others)
    return changes + budget_change(root, config, spent, spent + marker.measured)


def plan_hooks(
    root: Path, script: Path | None, local_only: bool = False, user_env: bool = False, will_ignore: bool = False
) -> tuple[list[Change], list[str]]:
    """The Claude Code hooks: in the committed ``.claude/settings.json`` a command that finds ctxres-hook
    itself; this machine's ``ctxres-hook`` recorded only where no repository keeps it, and only when that
    command would not find it (:func:`ctxres.linters.commands.install.plan_local`); and what was decided."""
    target = root / ".claude" / SETTINGS_FILE
    local, notes = plan_local(target, script, user_env=user_env, will_ignore=will_ignore)
    return ([] if local_only else plan_shared(target)) + local, notes


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
    """``.gitignore``: the hooks' per-machine state and ``.claude/settings.local.json`` out of git; and,
    when the repository ignores its whole state folder, the checkpoints back in (see
    :mod:`ctxres.linters.setup.checkpoints_tracked`)."""
    target = root / ".gitignore"
    text = read_for_change(target) or ""
    config = load_config(root)
    actions = []
    _, rule = ignoring_rule(root, checkpoint_sample(config, root))
    fixed = fixed_gitignore(text, rule, state_folder(config, root)) if rule is not None else None
    if fixed is not None and foreign_checkpoints(root, config):
        fixed = None  # the team ignores its own tool's checkpoints there: git must not see them (see gitignore_note)
    if fixed is not None and rule is not None:
        text = fixed
        actions.append(f"keep the checkpoints in git (`{rule.pattern}` ignored them)")
    present = {line.strip() for line in text.splitlines()}
    # A tracked settings.local.json is the team's choice: a .gitignore line would not untrack it.
    local_line = [] if is_tracked(root / ".claude" / LOCAL_SETTINGS_FILE) else [LOCAL_SETTINGS_IGNORED]
    missing = [line for line in [*ignored_state(config), *local_line] if line not in present]
    if missing:
        block = ([] if GITIGNORE_HEADER in present else [GITIGNORE_HEADER]) + missing
        prefix = text if not text or text.endswith("\n") else text + "\n"
        separator = "\n" if prefix.strip() else ""
        text = prefix + separator + "\n".join(block) + "\n"
        actions.append("keep the hooks' per-machine state out of git")
    return [Change(target, text, "; ".join(actions))] if actions else []


def plan_precommit(root: Path) -> list[Change]:
    """The ctxres hooks as a ``repo: local`` entry of ``.pre-commit-config.yaml`` (they run the installed
    ``ctxres``, found in the project's ``.venv`` or on the PATH: nothing is fetched from a hosting site or an
    index); the entries an older ``init`` wrote (``entry: ctxres ...``) brought up to date in place."""
    target = root / ".pre-commit-config.yaml"
    text = read_for_change(target)
    if text is None:
        text = PRECOMMIT_HEADER + block_yaml({"repos": [local_repo(PRECOMMIT_IDS)]})
        return [Change(target, text, "create .pre-commit-config.yaml (repo: local, the installed ctxres)")]
    data = yaml.safe_load(text) or {}
    repos = data.get("repos", []) or []
    if any(is_older_remote(r) for r in repos):
        return migrate_remote(target, text, repos)
    if any(isinstance(r, dict) and "ctxres" in str(r.get("repo", "")) for r in repos):
        return []
    if any(hook_id in text for hook_id in PRECOMMIT_IDS):
        return upgrade_precommit(target, text, repos)
    try:
        new = append_item(text, ("repos",), local_repo(PRECOMMIT_IDS))
    except EditError as exc:
        raise SystemExit(f"ctxres: error: cannot add the ctxres hooks to {target}: {exc}; add them by hand") from None
    action = "add the ctxres hooks to .pre-commit-config.yaml (repo: local, the installed ctxres)"
    return [Change(target, new if new.endswith("\n") else new + "\n", action)]


def migrate_remote(target: Path, text: str, repos: list[Any]) -> list[Change]:
    """The remote entries an older init wrote (``repo:`` of an unpublished repository, with ``rev:``, which
    pre-commit fails to fetch on every commit) replaced, where they stand, by today's ``repo: local`` entry;
    the file's other entries, comments and formatting kept."""
    new = text
    for index, repo in enumerate(repos):
        if not is_older_remote(repo):
            continue
        try:
            new = replace_item(new, ("repos",), index, block_yaml([migrated(repo)]))
        except EditError as exc:
            raise SystemExit(f"ctxres: error: cannot update the ctxres entry of {target}: {exc}") from None
    urls = ", ".join(sorted({str(r["repo"]) for r in repos if is_older_remote(r)}))
    action = (
        f"replace the ctxres entry (repo: {urls}, which cannot be fetched) in .pre-commit-config.yaml by repo: local"
    )
    return [Change(target, new, action)]


UPGRADED_KEYS = ("entry", "language", "verbose")


def upgrade_precommit(target: Path, text: str, repos: list[Any]) -> list[Change]:
    """The ctxres hooks of the ``repo: local`` entries whose ``entry:`` is one ``init`` wrote (``ctxres ARGS``,
    which only one shell's PATH finds, or an older launcher) rewritten as today's; an entry of the team's own
    is left alone."""
    new = text
    upgraded = []
    for i, repo in enumerate(repos):
        if not isinstance(repo, dict) or repo.get("repo") != "local" or not isinstance(repo.get("hooks"), list):
            continue
        for j, hook in enumerate(repo["hooks"]):
            spec = BY_ID.get(str(hook.get("id"))) if isinstance(hook, dict) else None
            if spec is None or not (hook.get("entry") == spec.entry or is_precommit_launcher(str(hook.get("entry")))):
                continue
            wanted = spec.local()
            for key in UPGRADED_KEYS:
                if hook.get(key) != wanted[key]:
                    try:
                        new = set_key(new, ("repos", i, "hooks", j), key, wanted[key])
                    except EditError as exc:
                        raise SystemExit(f"ctxres: error: cannot update {spec.id} in {target}: {exc}") from None
                    if key == "entry":
                        new = plain_entry(new, (i, j), wanted[key])
                    upgraded.append(spec.id)
    if not upgraded:
        return []
    ids = ", ".join(dict.fromkeys(upgraded))
    action = f"update {ids} in .pre-commit-config.yaml (they find ctxres in the project's .venv or on the PATH)"
    return [Change(target, new, action)]


def plain_entry(text: str, where: tuple[int, int], entry: str) -> str:
    """``entry:`` written plain, as pre-commit's examples write it, when YAML reads it back the same."""
    if yaml.safe_load(f"entry: {entry}") != {"entry": entry}:
        return text
    return replace_value(text, ("repos", where[0], "hooks", where[1], "entry"), entry)


class _IndentedDumper(yaml.SafeDumper):
    """Block YAML whose lists are indented under their key, as pre-commit's own examples are."""

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
        super().increase_indent(flow, False)


def block_yaml(data: object) -> str:
    """``data`` as block YAML: plain scalars where they read the same, keys in their order."""
    return yaml.dump(data, Dumper=_IndentedDumper, default_flow_style=False, sort_keys=False, width=10_000)


def plan_template(root: Path, force: bool) -> list[Change]:
    target = root / TEMPLATE_PATH
    has_workflow = any(a.kind == "orchestration" for a in discover([root], load_config(root), cwd=root))
    if (has_workflow or target.exists()) and not force:
        return []
    now = dt.datetime.now(dt.timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")
    return [Change(target, template_text(now), "write a v2 resumption section template")]


def template_text(now: str) -> str:
    """The resumption template init writes, its section updated at ``now``."""
    return f"""# A v2.0 resumption section to copy into your ORCHESTRATION.yaml (written by `ctxres init`).
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


def editor_globs(config: Config) -> list[str]:
    """The workflow file patterns (configured, else the default) as globs from the repository's root."""
    patterns = config.patterns.get("orchestration") or ORCHESTRATION_PATTERNS
    return [p if p.startswith("**/") or "/" in p else f"**/{p}" for p in patterns]


def plan_editor(root: Path) -> list[Change]:
    """The exported schemas in ``.vscode/ctxres/`` and ``yaml.schemas`` in ``.vscode/settings.json`` (the YAML
    language server's setting: VS Code's YAML extension), other settings kept."""
    changes = []
    mapping = {}
    for name in EDITOR_SCHEMAS:
        relative = f"{EDITOR_SCHEMA_FOLDER}/{name}.schema.json"
        target = root / relative
        text = schema_text(name)
        if not target.exists() or target.read_text("utf-8") != text:
            changes.append(Change(target, text, f"write the {name} JSON Schema for the editor"))
        mapping[f"./{relative}"] = editor_globs(load_config(root))
    settings = root / EDITOR_SETTINGS
    original = read_for_change(settings) or ""
    try:
        data = json.loads(original) if original.strip() else {}
    except ValueError:
        raise SystemExit(
            f"ctxres: error: {EDITOR_SETTINGS} is not plain JSON (comments?); add to it by hand: "
            f'"yaml.schemas": {json.dumps(mapping)}'
        ) from None
    if not isinstance(data, dict):
        raise SystemExit(f"ctxres: error: {EDITOR_SETTINGS} does not hold a JSON object")
    wanted = {**(data.get("yaml.schemas") or {}), **mapping}
    if data.get("yaml.schemas") != wanted:
        data["yaml.schemas"] = wanted
        changes.append(
            Change(settings, render(data, original), "map the workflow files to their schema (yaml.schemas)")
        )
    return changes


def plan(
    root: Path,
    steps: tuple[str, ...],
    rule_file: str,
    force: bool,
    script: Path | None = None,
    notes: list[str] | None = None,
    user_env: bool = False,
) -> list[Change]:
    """The changes of the steps, in order; ``notes`` gets what the hooks step decided about this machine."""

    def hooks() -> list[Change]:
        changes, said = plan_hooks(root, script, user_env=user_env, will_ignore="gitignore" in steps)
        if notes is not None:
            notes.extend(said)
        return changes

    planners: dict[str, Callable[[], list[Change]]] = {
        "L1": lambda: plan_l1(root, force),
        "L2": lambda: plan_l2(root, rule_file),
        "hooks": hooks,
        "gitignore": lambda: plan_gitignore(root),
        "pre-commit": lambda: plan_precommit(root),
        "template": lambda: plan_template(root, force),
        "editor": lambda: plan_editor(root),
    }
    return [change for step in steps for change in planners[step]()]


def install_precommit(root: Path, dry_run: bool) -> str | None:
    """Run ``pre-commit install`` when the configuration uses the ctxres hooks and the git hook is not
    pre-commit's yet; what was done (or what the user must do), or None when nothing was needed."""
    row = check_installed(root)
    if row is None or row.ok:
        return None
    if row.status != "missing" or row.fix.startswith("git init"):
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
    root: Path = (args.path if args.path is not None else project_folder(Path.cwd())).resolve()
    unknown = [s for s in args.only if s not in STEPS + OPT_IN_STEPS]
    if unknown or not root.is_dir():
        why = (
            f"unknown step {', '.join(unknown)} (steps: {', '.join(STEPS + OPT_IN_STEPS)})"
            if unknown
            else f"{root} is not a folder"
        )
        print(f"ctxres: error: {why}", file=sys.stderr)
        return 2
    if args.undo:  # loaded here, not at the top: it is built on this module (docs/performance.md, "Start-up tricks")
        from ctxres.linters.commands._init_undo import run_undo

        return run_undo(root, args.dry_run)
    steps = tuple(s for s in args.only if s in LOCAL_STEPS) if args.local else args.only
    if args.path is None and (note := elsewhere(root)):
        print(note)
    shadowed = shadowed_warning(load_config(root))
    if shadowed:  # the settings init writes go to the file that is read (option_change), and this says why
        print(shadowed, file=sys.stderr)
    script = installed_script(BARE_COMMAND) if "hooks" in steps else None
    notes: list[str] = []
    try:
        if args.local:
            changes, notes = (
                plan_hooks(root, script, local_only=True, user_env=args.user_env) if "hooks" in steps else ([], [])
            )
        else:
            changes = plan(root, steps, args.rule_file, args.force, script, notes, args.user_env)
    except (OSError, ValueError, yaml.YAMLError) as exc:
        print(f"ctxres: error: {exc}", file=sys.stderr)
        return 2
    except SystemExit as exc:
        print(exc, file=sys.stderr)
        return 2
    if "hooks" in steps and script is None:
        print(no_script_warning(), file=sys.stderr)
    said = l1_note(root, args.force) if "L1" in steps and not args.local else None
    if said:
        print(said, file=sys.stderr if said.startswith("ctxres: warning") else sys.stdout)
    if args.dry_run:
        for change in changes:
            print(f"would {change.action}: {shown_path(change.path)}")
    else:
        try:
            write_changes(changes)
        except WriteRefused as exc:
            print(f"ctxres: error: {exc}", file=sys.stderr)
            return 2
    hooks = "hooks" in steps and not args.local
    advice = ccstatusline_note(root / ".claude" / SETTINGS_FILE, script) if hooks else None
    for note in notes + ([advice] if advice else []):
        print(note)
    installed = install_precommit(root, args.dry_run) if "pre-commit" in steps else None
    if installed:
        print(installed, file=sys.stderr if installed.startswith("ctxres: warning") else sys.stdout)
    kept = gitignore_note(root, steps) if not args.local else None
    if kept:
        print(kept)
    for warning in remaining_warnings(root, steps, args.dry_run):
        print(warning, file=sys.stderr)
    if not changes and not (installed and not installed.startswith("ctxres: warning")):
        print("Nothing to do: every requested layer is already in place.")
        return 0
    if not args.dry_run:
        print("Run `ctxres doctor` to check every layer.")
    return 0


def remaining_warnings(root: Path, steps: tuple[str, ...], dry_run: bool) -> list[str]:
    """What init could not fix and the user must: checkpoints that git still ignores."""
    if "gitignore" not in steps or dry_run:
        return []
    row = check_checkpoints_tracked(root, load_config(root))
    if row is None or row.ok:
        return []
    return [f"ctxres: warning: {row.detail}; fix: {row.fix}"]


def gitignore_note(root: Path, steps: tuple[str, ...]) -> str | None:
    """A note when the team's ignore of the checkpoints folder is left as it is (another tool's files are
    there): ctxres's checkpoints then stay on each machine."""
    if "gitignore" not in steps:
        return None
    config = load_config(root)
    _, rule = ignoring_rule(root, checkpoint_sample(config, root))
    foreign = foreign_checkpoints(root, config) if rule is not None else []
    return kept_local(rule, state_folder(config, root), foreign) if rule is not None and foreign else None
