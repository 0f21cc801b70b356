"""``ctxres prompt``: print Template 1 (resumption prompt) or Template 2 (compaction alert) to paste.

The same text the SessionStart hook injects, for an operator who starts the session by hand or
wants to see what the model will be told. The token estimate goes to stderr, so stdout can be
piped or copied as it is.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

import yaml

from ctxres import ack, prompt_data
from ctxres.config import ConfigError, load_config, project_folder
from ctxres.formats import yamlguard
from ctxres.project import inside
from ctxres.prompts import (
    TEMPLATE1_BUDGET,
    TEMPLATE2_BUDGET,
    TEMPLATE2_CEILING,
    estimate_tokens,
    render_template1,
    render_template2,
)
from ctxres.redact import redact, redact_value
from ctxres.state import checkpoint_text, live
from ctxres.state import checkpoints as cp

EXIT_OK, EXIT_NOTHING, EXIT_USAGE = 0, 1, 2


class PromptError(Exception):
    """A usage problem; the message is one line for the user."""


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "prompt",
        help="print the resumption prompt (Template 1) or the compaction alert (Template 2) to paste",
        description="Render the re-orientation prompts the SessionStart hook injects. Template 1, the "
        "resumption prompt, comes from the resumption section of the live (ACTIVE or PAUSED) ORCHESTRATION file; "
        "Template 2, the <compaction-alert>, from a checkpoint file written by the PreCompact hook. The text "
        "goes to stdout (credentials redacted), its token estimate (characters / 4) to stderr.",
        epilog="Exit status: 0 printed, 1 nothing to print (no unacknowledged checkpoint), 2 usage error.",
    )
    parser.add_argument(
        "--template",
        choices=("1", "2"),
        help="1: resumption prompt; 2: compaction alert (default: 2 with --checkpoint, else 1)",
    )
    parser.add_argument(
        "--file",
        type=Path,
        metavar="ORCHESTRATION.yaml",
        help="the workflow file (default: the live workflow under the project root, as the hooks choose it: "
        "$CTXRES_ORCHESTRATION, else the file the live-workflow setting pins, else the most recently updated "
        "ORCHESTRATION file (by its own update times, then its path) whose workflow is ACTIVE or PAUSED, examples "
        "and templates aside)",
    )
    parser.add_argument(
        "--checkpoint",
        type=Path,
        metavar="CHECKPOINT",
        help="the checkpoint for Template 2, a path or an id such as cx-001 (default: the newest unacknowledged one "
        "in <state-dir>/checkpoints/)",
    )
    parser.set_defaults(handler=run)


def _fail(message: str, code: int) -> int:
    print(f"ctxres prompt: {message}", file=sys.stderr)
    return code


def _checkpoints_folder(root: Path, state_dir: Path) -> str | None:
    """The checkpoints folder as the hooks see it (None when it leads out of the project)."""
    project_dir = str(root.resolve())
    return prompt_data.checkpoints_folder(os.path.join(project_dir, os.path.relpath(state_dir, root)), project_dir)


def _workflow(args: argparse.Namespace) -> Path:
    named: Path | None = args.file
    if named is not None:
        if not named.is_file():
            raise PromptError(f"no such file: {named}")
        return named.resolve()
    root = _root()
    config = load_config(root)
    try:
        choice = ack.live_workflow(root, config)
    except live.UnreadableWorkflow as exc:
        raise PromptError(f"{exc.sentence()} (or name another workflow with --file)") from None
    if choice is None:
        raise PromptError(f"{ack.no_live_workflow(root, config)}; name one with --file")
    _note(choice.note(os.getcwd()))
    return Path(choice.path).resolve()


def _note(message: str) -> None:
    """A line for the operator, on stderr: stdout is the prompt itself, piped or pasted as it is."""
    print(f"ctxres prompt: {message}", file=sys.stderr)


def _read_yaml(path: Path) -> dict[str, Any]:
    try:
        data = yamlguard.load(path.read_bytes())  # no crash on deep nesting, no alias bomb
    except (OSError, yaml.YAMLError, UnicodeDecodeError, yamlguard.YamlGuardError) as exc:
        first = (str(exc).splitlines() or [type(exc).__name__])[0]
        raise PromptError(f"cannot read {path}: {first}") from None
    if not isinstance(data, dict):
        raise PromptError(f"{path} is not a YAML mapping")
    return data


def template1(args: argparse.Namespace) -> str:
    """Template 1 as the SessionStart hook renders it (``files_to_read`` entries outside the project left out)."""
    workflow = _workflow(args)
    root = _root(workflow)
    load_config(workflow)  # a configuration error is a usage error, as for every command
    data = _read_yaml(workflow)
    project_dir = str(root.resolve())
    view, left_out = prompt_data.files_inside(prompt_data.template1_input(data), project_dir)
    if left_out:  # the line the SessionStart hook writes for the same prompt
        print(f"ctxres-hook: SessionStart: {prompt_data.left_out_note(left_out)}", file=sys.stderr)
    return render_template1(
        redact_value(view),
        plan_path=prompt_data.plan_reference(str(workflow), project_dir),
        project_id=prompt_data.project_name(data, str(workflow), project_dir),
    )


def _checkpoint(args: argparse.Namespace, folder: str | None, state_dir: Path, root: Path) -> tuple[str, list[str]]:
    """(the checkpoint to render, every unacknowledged checkpoint). ``--checkpoint`` is a path or an id
    (``cx-001``, ``CX-001``, ``1``), as `ctxres ack` takes it."""
    pending = prompt_data.pending_checkpoints(folder)
    if args.checkpoint is not None:
        try:
            found = ack.find_checkpoint(str(args.checkpoint), state_dir, root, Path.cwd())
        except ack.AckUsageError as exc:
            raise PromptError(str(exc)) from None
        return str(found), pending
    if not pending:
        return "", pending
    return pending[-1], pending


def _root(*paths: Path | None) -> Path:
    """The project root of the working directory, unless a given file lies outside it."""
    root = project_folder(Path.cwd())
    for path in paths:
        if path is not None and not inside(path, root):
            return project_folder(path.resolve())
    return root


def template2(args: argparse.Namespace) -> str | None:
    root = _root(args.checkpoint, args.file)
    start = (args.file or args.checkpoint or root).resolve()
    config = load_config(start)
    state_dir = cp.find_state_dir(args.file.resolve() if args.file else start, root, config.state_dir)
    path, pending = _checkpoint(args, _checkpoints_folder(root, state_dir), state_dir, root)
    if not path:
        return None
    try:
        data = checkpoint_text.load_checkpoint(path)
    except checkpoint_text.CheckpointUnreadable as exc:
        raise PromptError(f"{path} {exc}") from None
    if args.file is not None:
        workflow = cp.relative_reference(args.file, root)
    else:
        named = prompt_data.orchestration_reference(data)
        workflow = named if named and (root / named).is_file() else ""
        if not workflow:
            try:
                choice = ack.live_workflow(root, config)
            except live.UnreadableWorkflow as exc:
                raise PromptError(f"{exc.sentence()} (or name the workflow with --file)") from None
            if choice is not None:
                _note(choice.note(os.getcwd()))
            workflow = cp.relative_reference(Path(choice.path), root) if choice else "ORCHESTRATION.yaml"
    number = pending.index(path) + 1 if path in pending else 1
    return render_template2(
        data,
        checkpoint_path=cp.relative_reference(Path(path), root),
        orchestration_path=workflow,
        event_number=number,
        event_total=max(len(pending), number),
    )


def budget_note(template: str, tokens: int) -> str:
    """The stderr line: the estimate and how it compares with the template's budget (pure)."""
    low, high = TEMPLATE1_BUDGET if template == "1" else TEMPLATE2_BUDGET
    note = f"Template {template}: ~{tokens} tokens (budget {low}-{high}"
    note += f", hard ceiling {TEMPLATE2_CEILING})" if template == "2" else ")"
    if tokens > high:
        note += "; above the budget"
    elif tokens < low:
        note += "; below the budget (little state recorded)"
    return note


def run(args: argparse.Namespace) -> int:
    template = args.template or ("2" if args.checkpoint is not None else "1")
    if template == "1" and args.checkpoint is not None:
        return _fail("--checkpoint is for Template 2; drop it or use --template 2", EXIT_USAGE)
    try:
        text = template1(args) if template == "1" else template2(args)
    except PromptError as exc:
        return _fail(str(exc), EXIT_USAGE)
    except ConfigError as exc:
        return _fail(str(exc), EXIT_USAGE)
    if text is None:
        return _fail("nothing to print: no unacknowledged checkpoint (give one with --checkpoint)", EXIT_NOTHING)
    text = redact(text)
    sys.stdout.write(text)
    print(f"ctxres prompt: {budget_note(template, estimate_tokens(text))}", file=sys.stderr)
    return EXIT_OK
