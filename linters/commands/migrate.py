"""``ctxres migrate FILE... [--check | --write]``: convert v1.0 resumption sections to v2.0."""

from __future__ import annotations

import argparse
import difflib
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from ctxres.atomic import ChangedSinceRead, Stamp, cannot_write, stamp_before_read, write_atomic
from ctxres.filereading import FileTooLarge, NotRegularFile, read_regular
from ctxres.formats.loading import DEFAULT_MAX_BYTES, Format, decode, parse_text
from ctxres.formats.yamlemit import scalar
from ctxres.migration.migrate import Migration, Outcome, migrate_text

EXIT_OK, EXIT_PENDING, EXIT_ERROR = 0, 1, 2
BOM = "\ufeff"


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "migrate",
        help="convert v1.0 resumption sections to v2.0",
        description="Convert the `resumption:` section of each FILE from v1.0 to v2.0: last_checkpoint, "
        "next_step and the two flags move into recovery_state, current_state becomes "
        "recovery_state.current_activity, current_phase / current_phase_name / workflow_status are "
        "inferred from the file, and the other sub-sections are added. Nothing outside the section "
        "changes. What cannot be inferred is written as a visible placeholder and listed; "
        "`ctxres check` fails until it is set. By default, print the change as a unified diff.",
        epilog="Exit status: 0 done (or nothing to do), 1 a migration is pending (--check), 2 a file cannot be "
        "read or migrated.",
    )
    parser.add_argument("files", nargs="+", type=Path, metavar="FILE", help="ORCHESTRATION.yaml files")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="change nothing; exit 1 if a file still needs migrating")
    mode.add_argument("--write", action="store_true", help="rewrite the files in place (atomically)")
    parser.add_argument("-v", "--verbose", action="store_true", help="also say where each inferred value comes from")
    parser.set_defaults(handler=run)


@dataclass(slots=True, frozen=True)
class _Read:
    text: str = ""
    bom: bool = False
    error: str = ""
    stamp: Stamp | None = None  # the file as read: it is not replaced if it changed since


def _read(path: Path) -> _Read:
    if path.is_dir():
        return _Read(error="is a folder; pass the files (for example projects/*/ORCHESTRATION.yaml)")
    try:
        stamp = stamp_before_read(path.resolve())
        raw = read_regular(path, DEFAULT_MAX_BYTES)  # never read a hostile 100 MB file whole
    except NotRegularFile:  # a FIFO would block the read forever
        return _Read(error="is not a regular file (a named pipe or a device); not read")
    except FileTooLarge as exc:
        return _Read(error=f"the file is {exc.size:,} bytes, more than the limit of {DEFAULT_MAX_BYTES:,}; not read")
    except (OSError, ValueError) as exc:
        return _Read(error=f"cannot read it: {getattr(exc, 'strerror', None) or exc}")
    text, issue = decode(raw)
    if text is None:
        return _Read(error=issue.message if issue else "cannot decode it")
    return _Read(text, raw.startswith(BOM.encode("utf-8")), stamp=stamp.seen(raw))


def _notes(shown: str, migration: Migration, verbose: bool) -> list[str]:
    """Lines that say what the user must still do, located in the migrated text."""
    parsed = parse_text(shown, "orchestration", Format.YAML, migration.text).document
    lines = []
    for gap in migration.gaps:
        position = parsed.locate(gap.path, key=not gap.placeholder) if parsed else None
        where = f"{shown}:{position.line}:{position.col}" if position else shown
        dotted = ".".join(map(str, gap.path))
        action = "set" if gap.placeholder else "add"
        lines.append(f"{where}: {action} `{dotted}` by hand: {gap.reason}")
    lines += [f"{shown}: {note}" for note in migration.notes]
    if migration.neutral:
        lines.append(f"{shown}: written empty (nothing in the file to infer them from): {', '.join(migration.neutral)}")
    if verbose:
        lines += [f"{shown}: {i.name} = {scalar(i.value)} ({i.source})" for i in migration.inferred if i.ok]
    return lines


def _diff(shown: str, before: str, after: str) -> str:
    return "".join(
        difflib.unified_diff(
            before.splitlines(keepends=True), after.splitlines(keepends=True), f"a/{shown}", f"b/{shown}"
        )
    )


def _one(path: Path, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    shown = str(path)
    read = _read(path)
    if read.error:
        print(f"{shown}: error: {read.error}", file=err)
        return EXIT_ERROR
    migration = migrate_text(read.text)
    if migration.outcome is Outcome.REFUSED:
        print(f"{shown}: error: {migration.message}", file=err)
        return EXIT_ERROR
    if not migration.changed:
        print(f"{shown}: {migration.message}, nothing to do", file=err)
        return EXIT_OK
    if args.check:
        print(f"{shown}: v1.0 resumption section; run `ctxres migrate --write {shown}`", file=out)
        return EXIT_PENDING
    notes = _notes(shown, migration, args.verbose)
    if args.write:
        try:
            write_atomic(path.resolve(), (BOM if read.bom else "") + migration.text, expected=read.stamp)
        except ChangedSinceRead:
            print(f"{shown}: error: it changed while it was migrated; nothing was written; run again", file=err)
            return EXIT_ERROR
        except OSError as exc:
            print(f"{shown}: error: {cannot_write('it', exc)}", file=err)
            return EXIT_ERROR
        print(f"{shown}: migrated to v2.0", file=out)
        for line in notes:
            print(f"  {line}", file=out)
        return EXIT_OK
    out.write(_diff(shown, read.text, migration.text))
    for line in notes:
        print(line, file=err)
    return EXIT_OK


def run(args: argparse.Namespace) -> int:
    codes = [_one(path, args, sys.stdout, sys.stderr) for path in args.files]
    if EXIT_ERROR in codes:
        return EXIT_ERROR
    return EXIT_PENDING if EXIT_PENDING in codes else EXIT_OK
