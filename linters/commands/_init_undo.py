"""``ctxres init --undo``: take out of a repository exactly what ``ctxres init`` (and ``ctxres baseline``) added.

Each part is recognised by what init writes, not by a record of it: the ctxres handlers and statusline of
``.claude/settings.json`` (the team's statusline, which ours wrapped, put back), ``CTXRES_HOOK`` in the
per-clone settings, the ``.gitignore`` block and the checkpoint line, the ``repo: local`` entry of the ctxres
pre-commit hooks, the L2 reminder, the ``reinject-budget`` init set (with its comment), the protocol document
and the template, the baseline. A file init created is removed when nothing else is left in it; every other
byte of a file is kept (its line endings too). A part the team changed after init is left as it is and named
(``refused``): it is no longer what init wrote, and removing it would lose the team's change.
"""

from __future__ import annotations

import difflib
import json
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from ctxres import protocol
from ctxres.claude_settings import (
    HOOK_ENV,
    LOCAL_SETTINGS_FILE,
    SETTINGS_FILE,
    render,
    uninstall,
    uninstall_statusline,
    unset_env,
)
from ctxres.config import load_config
from ctxres.formats.yamledit import EditError, remove_item
from ctxres.linters.checking.baseline import baseline_file
from ctxres.linters.commands._precommit_hooks import BY_ID, local_repo
from ctxres.linters.commands.init import (
    BUDGET_OPTION,
    BUDGET_STEP,
    EDITOR_SCHEMA_FOLDER,
    EDITOR_SCHEMAS,
    EDITOR_SETTINGS,
    GITIGNORE_HEADER,
    LOCAL_SETTINGS_IGNORED,
    PRECOMMIT_HEADER,
    RULE_FILE_HEADER,
    TEMPLATE_PATH,
    block_yaml,
    ignored_state,
    protocol_text,
    template_text,
)
from ctxres.linters.commands.install import Change, installed_script, shown_path, write_changes
from ctxres.linters.rules.conformance import schema_text
from ctxres.linters.rules.layers import PRECOMMIT_IDS, PROTOCOL_PATH, rule_files
from ctxres.linters.rules.reinject import reminder_marker
from ctxres.linters.setup.checkpoints_tracked import state_folder
from ctxres.linters.setup.machine import is_precommit_launcher
from ctxres.linters.setup.precommit_setup import is_older_remote


@dataclass(slots=True, frozen=True)
class Step:
    """One file the undo changes: its new text, or None to remove it; and what it does."""

    path: Path
    text: str | None
    action: str


@dataclass(slots=True)
class Plan:
    """What the undo does, and what it leaves because the team changed it after init (one sentence each)."""

    steps: list[Step]
    refused: list[str]


def _read(path: Path) -> str | None:
    try:
        return path.read_text("utf-8") if path.is_file() else None
    except (OSError, UnicodeDecodeError):
        return None


def undo_settings(root: Path, plan: Plan) -> None:
    """The ctxres hooks and statusline out of ``.claude/settings.json`` (the statusline ours wrapped put back),
    ``CTXRES_HOOK`` out of ``.claude/settings.local.json``; a file left empty (``{}``) removed."""
    for name, undo in ((SETTINGS_FILE, _without_ours), (LOCAL_SETTINGS_FILE, _without_hook_env)):
        path = root / ".claude" / name
        text = _read(path)
        if text is None:
            continue
        try:
            data = json.loads(text)
        except ValueError:
            plan.refused.append(f"{shown_path(path)} is not plain JSON: take the ctxres hooks out of it by hand")
            continue
        if not isinstance(data, dict):
            continue
        new, action = undo(data)
        if new == data:
            continue
        plan.steps.append(Step(path, None if not new else render(new, text), action))


def _without_ours(data: dict[str, Any]) -> tuple[dict[str, Any], str]:
    hooks, _ = uninstall(data)
    new, had_statusline = uninstall_statusline(hooks)
    return new, "remove the ctxres hooks" + (
        " and statusline (the one it showed beside kept)" if had_statusline else ""
    )


def _without_hook_env(data: dict[str, Any]) -> tuple[dict[str, Any], str]:
    new, _ = unset_env(data, HOOK_ENV)
    return new, f"remove {HOOK_ENV} (this machine's ctxres-hook)"


def undo_gitignore(root: Path, plan: Plan) -> None:
    """The block init appended to ``.gitignore`` (its header, the state files, the per-clone settings) and the
    checkpoint lines it wrote instead of the team's line that ignored the whole state folder."""
    path = root / ".gitignore"
    text = _read(path)
    if text is None:
        return
    config = load_config(root)
    ours = {GITIGNORE_HEADER, LOCAL_SETTINGS_IGNORED, *ignored_state(config)}
    lines = text.split("\n")
    if GITIGNORE_HEADER not in lines:
        return
    start = lines.index(GITIGNORE_HEADER)
    end = start + 1
    while end < len(lines) and lines[end] in ours:
        end += 1
    if start > 0 and not lines[start - 1].strip():
        start -= 1  # the blank line init put before its block
    kept = lines[:start] + lines[end:]
    folder = state_folder(config, root)
    for index in range(len(kept) - 1):
        if kept[index] in (f"**/{folder}/*", f"/{folder}/*") and kept[index + 1] == f"!/{folder}/checkpoints/":
            kept[index : index + 2] = [f"{kept[index][:-1].removeprefix('**/')}"]
            break
    new = "\n".join(kept)
    new = new if new.endswith("\n") or not new else new + "\n"
    plan.steps.append(Step(path, new or None, "remove the lines ctxres init added"))


def _is_ours(hook: Any) -> bool:
    spec = BY_ID.get(str(hook.get("id"))) if isinstance(hook, dict) else None
    if spec is None:
        return False
    entry = str(hook.get("entry", ""))
    return entry in (spec.entry, spec.local_entry()) or is_precommit_launcher(entry)


def undo_precommit(root: Path, plan: Plan) -> None:
    """The ``repo: local`` entry of the ctxres hooks (or the remote one an older init wrote); the file removed
    when init created it and nothing else is in it."""
    path = root / ".pre-commit-config.yaml"
    text = _read(path)
    if text is None:
        return
    if text in (PRECOMMIT_HEADER + block_yaml({"repos": [local_repo(PRECOMMIT_IDS)]}),):
        plan.steps.append(Step(path, None, "remove .pre-commit-config.yaml (written by ctxres init)"))
        return
    try:
        repos = (yaml.safe_load(text) or {}).get("repos") or []
    except (yaml.YAMLError, AttributeError):
        return
    new = text
    for index in reversed(range(len(repos))):
        repo = repos[index]
        hooks = repo.get("hooks") if isinstance(repo, dict) else None
        if not isinstance(hooks, list) or not any(isinstance(h, dict) and h.get("id") in BY_ID for h in hooks):
            continue
        if is_older_remote(repo) or (repo.get("repo") == "local" and all(_is_ours(h) for h in hooks)):
            try:
                new = remove_item(new, ("repos",), index)
            except EditError as exc:
                plan.refused.append(f"{shown_path(path)}: cannot take out the ctxres entry ({exc}): do it by hand")
        else:
            plan.refused.append(
                f"{shown_path(path)}: the ctxres hooks of repos[{index}] are not as ctxres init wrote them (changed "
                "after init, or the team's own): left as they are"
            )
    if new != text:
        plan.steps.append(Step(path, new, "remove the ctxres pre-commit hooks"))


def undo_reminder(root: Path, plan: Plan) -> None:
    """The L2 reminder init wrote (the protocol's content, in canonical form at its rank), with the blank line
    init put before it; a rule file init created for it removed."""
    for rule_file in rule_files(root, load_config(root)):
        text = rule_file.text
        for marker in reversed(rule_file.markers):
            if not _reads_like_the_reminder(marker.content):
                continue
            line = text.count("\n", 0, marker.start) + 1
            if marker.rank is None or marker.text != reminder_marker(marker.rank):
                plan.refused.append(
                    f"{rule_file.display}:{line}: the L2 reminder is not as ctxres init wrote it (changed after "
                    "init): left as it is; remove it by hand"
                )
                continue
            text = _without_line(text, marker.start, marker.end)
        if text == rule_file.text:
            continue
        gone = text.strip() in ("", RULE_FILE_HEADER.strip())
        plan.steps.append(Step(rule_file.path, None if gone else text, "remove the L2 reminder"))


def _reads_like_the_reminder(content: str | None) -> bool:
    """The reminder init wrote, or one edited from it (most of its text still there)."""
    wanted = protocol.RESUMPTION_MARKER_CONTENT
    return content is not None and (
        content == wanted or difflib.SequenceMatcher(None, content, wanted).ratio() >= REMINDER_LIKENESS
    )


REMINDER_LIKENESS = 0.6  # how much of the reminder's text an edited one keeps


def _without_line(text: str, start: int, end: int) -> str:
    """``text`` without ``text[start:end]``: its whole line when nothing else is on it, and one blank line
    before it (the one init added)."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end + 1
    if text[line_start:start].strip() or text[end:line_end].strip():
        return text[:start] + text[end:]
    before, after = text[:line_start], text[line_end:]
    if before.endswith("\n\n"):
        before = before[:-1]
    return before + after


_BUDGET_COMMENT = re.compile(
    r"^# the L2-REINJECT markers measured \d+ tokens before ctxres; with its reminder (\d+), over the \d+-token "
    r"budget: raised by ctxres init; shorten the markers and lower it\n" + re.escape(BUDGET_OPTION) + r" = (\d+)\n",
    re.MULTILINE,
)


def undo_budget(root: Path, plan: Plan) -> None:
    """The ``reinject-budget`` init set, with the comment it wrote above it; a ``.ctxres.toml`` or a
    ``[tool.ctxres]`` table left empty removed."""
    for name in (".ctxres.toml", "pyproject.toml"):
        path = root / name
        text = _read(path)
        match = _BUDGET_COMMENT.search(text or "")
        if text is None or match is None:
            continue
        wanted = -(-int(match[1]) // BUDGET_STEP) * BUDGET_STEP
        if int(match[2]) != wanted:
            line = text.count("\n", 0, match.start()) + 2
            plan.refused.append(
                f"{name}:{line}: reinject-budget = {match[2]} was changed after init (it set {wanted}): left as it is"
            )
            continue
        new = text[: match.start()] + text[match.end() :]
        if name == "pyproject.toml":
            new = re.sub(r"\n?\[tool\.ctxres\]\n(?=\[|\Z)", "", new)
        plan.steps.append(Step(path, new if new.strip() else None, f"remove the {BUDGET_OPTION} ctxres init set"))


def undo_documents(root: Path, plan: Plan) -> None:
    """The protocol document and the template init wrote, when they are still as it wrote them."""
    documents = (
        (PROTOCOL_PATH, lambda text: text == protocol_text(), "the protocol document (L1)"),
        (TEMPLATE_PATH, _is_template, "the resumption template"),
    )
    for relative, unchanged, what in documents:
        path = root / relative
        text = _read(path)
        if text is None:
            continue
        if unchanged(text):
            plan.steps.append(Step(path, None, f"remove {what}"))
        else:
            plan.refused.append(
                f"{relative}: not {what} as ctxres init writes it (changed after init, or the project's own): "
                "left as it is"
            )


def _is_template(text: str) -> bool:
    stamp = re.search(r'^    updated_at: "([^"]*)"$', text, re.MULTILINE)
    return stamp is not None and text == template_text(stamp[1])


def undo_editor(root: Path, plan: Plan) -> None:
    """What ``init --only editor`` wrote: the exported schemas (when unchanged) and their ``yaml.schemas``
    entries in ``.vscode/settings.json`` (the file removed when nothing else is in it)."""
    for name in EDITOR_SCHEMAS:
        path = root / EDITOR_SCHEMA_FOLDER / f"{name}.schema.json"
        text = _read(path)
        if text is None:
            continue
        if text == schema_text(name):
            plan.steps.append(Step(path, None, f"remove the {name} JSON Schema for the editor"))
        else:
            plan.refused.append(f"{shown_path(path)}: changed after init: left as it is")
    path = root / EDITOR_SETTINGS
    text = _read(path)
    try:
        data = json.loads(text) if text else None
    except ValueError:
        return
    schemas = data.get("yaml.schemas") if isinstance(data, dict) else None
    if not isinstance(data, dict) or not isinstance(schemas, dict):
        return
    ours = {f"./{EDITOR_SCHEMA_FOLDER}/{name}.schema.json" for name in EDITOR_SCHEMAS}
    kept = {key: value for key, value in schemas.items() if key not in ours}
    if kept == schemas:
        return
    new = {**data, "yaml.schemas": kept} if kept else {k: v for k, v in data.items() if k != "yaml.schemas"}
    plan.steps.append(Step(path, render(new, text or "") if new else None, "remove the ctxres schemas (yaml.schemas)"))


def undo_baseline(root: Path, plan: Plan) -> None:
    """The baseline of accepted findings (``ctxres baseline``), part of adopting ctxres."""
    path = baseline_file(load_config(root), root)
    text = _read(path)
    if text is None:
        return
    try:
        data = json.loads(text)
    except ValueError:
        return
    if (isinstance(data, dict) and "entries" in data) or isinstance(data, list):
        plan.steps.append(Step(path, None, "remove the baseline (the accepted findings)"))


PLANNERS = (
    undo_settings,
    undo_gitignore,
    undo_precommit,
    undo_reminder,
    undo_budget,
    undo_documents,
    undo_editor,
    undo_baseline,
)


def plan_undo(root: Path) -> Plan:
    plan = Plan([], [])
    for planner in PLANNERS:
        planner(root, plan)
    return plan


def apply(steps: list[Step], root: Path) -> None:
    """Write or remove each file (a written file keeps its CRLF line ends); folders left empty removed, up to
    the repository; each step said."""

    for step in steps:
        if step.text is None:
            step.path.unlink(missing_ok=True)
            print(f"{step.action}: {shown_path(step.path)}")
            folder = step.path.parent
            while folder != root and folder.is_dir() and not any(folder.iterdir()):
                folder.rmdir()
                folder = folder.parent
        else:
            write_changes([Change(step.path, step.text, step.action)])


def uninstall_precommit(root: Path, steps: list[Step], dry_run: bool) -> str | None:
    """``pre-commit uninstall`` when the undo removes the configuration file (the git hook would fail every
    commit without it)."""
    if not any(s.text is None and s.path.name == ".pre-commit-config.yaml" for s in steps):
        return None
    found = installed_script("pre-commit")
    if found is None:
        return "ctxres: warning: pre-commit is not installed here; run `pre-commit uninstall` in every clone"
    if dry_run:
        return "would run pre-commit uninstall"
    done = subprocess.run([str(found), "uninstall"], cwd=root, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    if done.returncode != 0:
        return "ctxres: warning: `pre-commit uninstall` failed; run it yourself"
    return "run pre-commit uninstall (every other clone: `pre-commit uninstall` too)"


def run_undo(root: Path, dry_run: bool) -> int:
    """Undo init (or, with ``dry_run``, say each change); exit 1 when a part was left because the team
    changed it."""
    plan = plan_undo(root)
    if dry_run:
        for step in plan.steps:
            print(f"would {step.action}: {shown_path(step.path)}")
    else:
        apply(plan.steps, root)
    said = uninstall_precommit(root, plan.steps, dry_run)
    if said:
        print(said)
    for refused in plan.refused:
        print(f"ctxres: warning: {refused}", file=sys.stderr)
    if not plan.steps and not plan.refused:
        print("Nothing to undo: no part of ctxres init is in this repository.")
    return 1 if plan.refused else 0
