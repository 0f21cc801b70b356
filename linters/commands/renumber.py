"""``ctxres renumber``: keep both compactions that two branches recorded under one checkpoint name, and
rename the checkpoints an earlier release named ``cx-NNN-checkpoint.json`` to ``cx-NNN.json``."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from ctxres import ack, git
from ctxres.atomic import write_all_atomic
from ctxres.config import ConfigError, load_config, project_folder
from ctxres.formats.yamledit import EditError, set_key
from ctxres.linters.checking import merged_checkpoints
from ctxres.linters.commands.ack import _now, _orchestration
from ctxres.state import checkpoints as cp
from ctxres.state import live
from ctxres.state.checkpoint_names import is_seed_name

EXIT_OK, EXIT_REFUSED, EXIT_USAGE = 0, 1, 2


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "renumber",
        help="keep both compactions a merge gave one checkpoint name; rename cx-NNN-checkpoint.json files",
        description="After a merge in which two branches wrote the same checkpoint name (cx-002.json) and one "
        "side was kept: restore the other side's checkpoint from git under the next free number, with that id, "
        "and append its compaction event (from the other side's resumption section, else built from the "
        "checkpoint as `ctxres ack` builds it), updating `count`. Also rename this project's checkpoints named "
        "cx-NNN-checkpoint.json (an earlier release's name, which another writer's int() numbering cannot read) "
        "to cx-NNN.json, with the events that point to them. Refused while the workflow file has conflict markers.",
        epilog="Exit status: 0 done (or nothing to do), 1 refused (nothing changed), 2 usage error.",
    )
    parser.add_argument("--dry-run", action="store_true", help="say what would change; write nothing")
    parser.add_argument(
        "--file",
        type=Path,
        metavar="ORCHESTRATION.yaml",
        help="the workflow file whose section gets the events (default: the live workflow, as `ctxres ack` finds it)",
    )
    parser.add_argument("--now", metavar="ISO", help="the time written as `updated_at` (default: now, UTC)")
    parser.set_defaults(handler=run)


def _fail(message: str, code: int) -> int:
    print(f"ctxres renumber: {message}", file=sys.stderr)
    return code


def _seed_renames(text: str, folder: Path, root: Path) -> tuple[str, list[tuple[Path, Path]], list[str]]:
    """The section's text with its events pointing to the plain names, the renames, and what was left."""
    renames, left = [], []
    section = ack.section_of(text)
    for path in cp.list_checkpoints(folder.parent):
        number = cp.number_of_name(path.name)
        if number is None or not is_seed_name(path.name):
            continue
        target = folder / cp.file_name(number)
        if target.exists():
            left.append(f"{cp.relative_reference(path, root)} (its plain name {target.name} is taken)")
            continue
        renames.append((path, target))
        old, new = cp.relative_reference(path, root), cp.relative_reference(target, root)
        for index, event in ack.shaped_events(section):
            if event.get("checkpoint_file") == old:
                text = set_key(text, (*ack.EVENTS, index), "checkpoint_file", new)
    return text, renames, left


def _workflow(args: argparse.Namespace) -> tuple[Path, str | None]:
    """The workflow file, as ``ctxres ack`` finds it; a live one that cannot be read (conflict markers
    after a merge) is refused in this command's words."""
    try:
        return _orchestration(args)
    except ack.AckError as exc:
        cause = exc.__context__
        if isinstance(cause, live.UnreadableWorkflow):
            raise ack.AckError(f"{cause.sentence()}, then run `ctxres renumber` again") from None
        raise


def run(args: argparse.Namespace) -> int:
    try:
        now = _now(args.now)
        orchestration, chosen = _workflow(args)
        root = git.repo_root(orchestration.parent)
        state_dir = cp.find_state_dir(
            orchestration, project_folder(orchestration), load_config(orchestration).state_dir
        )
        folder = cp.checkpoints_dir(state_dir)
        items = merged_checkpoints.dropped(root, folder)
        result, restored = merged_checkpoints.plan(orchestration, root, folder, items, now)
        text, renames, left = _seed_renames(result.new_text, folder, root)
    except (ack.AckUsageError, ConfigError) as exc:
        return _fail(str(exc), EXIT_USAGE)
    except (ack.AckError, git.GitError, EditError) as exc:
        return _fail(f"refused, nothing changed: {exc}", EXIT_REFUSED)
    if chosen:
        print(chosen)
    here = Path.cwd()
    verb = "would " if args.dry_run else ""
    for item in restored:
        print(
            f"{verb}restore {item.name} of the other side as {_shown(item.path, here)} ({item.event_id}, its event "
            f"from {item.source})"
        )
    for old, new in renames:
        print(f"{verb}rename {_shown(old, here)} to {new.name}")
    for name in left:
        print(f"left as it is: {name}")
    if not restored and not renames:
        print("nothing to renumber: no compaction was dropped by a merge and no checkpoint has an old name")
        return EXIT_OK
    if args.dry_run:
        return EXIT_OK
    files: list[tuple[Path | str, str | bytes]] = []
    if text != result.old_text:
        files.append((orchestration, text))
    files += [(step.checkpoint, step.json_text) for step in result.steps]
    files += [(new, old.read_bytes()) for old, new in renames]
    try:
        write_all_atomic(files)
        for old, _ in renames:
            old.unlink()
    except OSError as exc:
        return _fail(f"cannot write: {exc.strerror or exc} ({getattr(exc, 'filename', '')})", EXIT_USAGE)
    print(f"compaction_events.count: {result.count_before} -> {result.count_after}" if restored else "")
    return EXIT_OK


def _shown(path: Path, here: Path) -> str:
    return os.path.relpath(path, here).replace(os.sep, "/")
