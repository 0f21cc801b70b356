"""``ctxres reinject``: check the L2-REINJECT markers of rule files, and fix their ``tokens=`` figures."""

from __future__ import annotations

import argparse
import difflib
import os
import sys
from collections.abc import Callable
from pathlib import Path

from ctxres.atomic import ChangedSinceRead, Stamp, cannot_write, stamp_before_read, write_atomic
from ctxres.config import Config, ConfigError, load_config, project_folder
from ctxres.findings import Finding, Position
from ctxres.formats.document import Document
from ctxres.formats.loading import IssueKind, LoadIssue, decode
from ctxres.linters.checking import engine
from ctxres.linters.checking.baseline import BaselineError
from ctxres.linters.checking.discovery import Artifact, discover
from ctxres.linters.checking.report import Report
from ctxres.linters.commands._baseline_options import add_baseline_options, match, read_baseline
from ctxres.linters.reporters import add_format_option, render
from ctxres.linters.rules import parsing
from ctxres.linters.rules import reinject as rules
from ctxres.reinject import RULE_FILE_KIND, RULE_FILE_PATTERNS, Edit, apply_edits, scan, token_fix

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2
_BOM = "\ufeff"
_FIXABLE = (rules.TOKEN_MISMATCH.code, rules.MISSING_TOKENS.code)


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "reinject",
        help="check the L2-REINJECT markers of rule files (and fix their tokens= figures)",
        description="Check the L2-REINJECT markers of Markdown rule files: the marker grammar, declared "
        "tokens= against the measured size (characters / 4, rounded up), repeated ranks, the per-prompt "
        "budget of all markers of a project, and the content. Folders are searched for rule files "
        f"({', '.join(RULE_FILE_PATTERNS)}, or the `rule-file` patterns of the configuration); files "
        "given by name are checked whatever their name. With --fix, every wrong tokens= figure is "
        "replaced by the measured one and a missing one is added before content=; nothing else changes.",
        epilog="Exit status: 0 no findings (or only warnings), 1 findings that fail the check, 2 usage error.",
    )
    parser.add_argument("paths", nargs="*", type=Path, metavar="PATH", help="rule files or folders (default: .)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--fix", action="store_true", help="rewrite wrong or missing tokens= figures in place")
    mode.add_argument("--diff", action="store_true", help="print what --fix would change as a diff; write nothing")
    add_format_option(parser, help="how to print findings")
    parser.add_argument("--strict", action="store_true", default=None, help="warnings fail the run too (exit 1)")
    parser.add_argument("--config", type=Path, help="a pyproject.toml or .ctxres.toml to use instead of the nearest")
    add_baseline_options(parser)
    parser.set_defaults(handler=run)


def _patterns(config: Config) -> tuple[str, ...]:
    return config.patterns.get(RULE_FILE_KIND, RULE_FILE_PATTERNS)


def rule_files(paths: list[Path], config: Config, cwd: Path | None = None) -> list[Artifact]:
    """Files named on the command line, and the rule files found in the folders (paths shown relative to ``cwd``)."""
    cwd = cwd or Path.cwd()
    searching = config.replace(patterns={RULE_FILE_KIND: _patterns(config)}, sniff_resumption=False)
    found = {a.path.resolve(): a for a in discover([p for p in paths if p.is_dir()], searching, cwd)}
    for path in paths:
        if path.is_file():
            found.setdefault(path.resolve(), Artifact(str(path), _display(path, cwd), RULE_FILE_KIND))
    return sorted(found.values(), key=lambda a: a.display)


def _display(path: Path, cwd: Path) -> str:
    try:
        return path.resolve().relative_to(cwd.resolve()).as_posix()
    except ValueError:
        return os.path.relpath(path.resolve(), cwd.resolve()).replace(os.sep, "/")


def load(
    artifact: Artifact, config: Config, stamps: dict[str, Stamp] | None = None
) -> tuple[Document | None, bool, list[Finding]]:
    """The document (its text without a byte-order mark), whether the file had one, and read problems. The
    file's stamp (for writing it back only if unchanged) goes into ``stamps`` under its shown path."""
    stamp = stamp_before_read(artifact.path)
    try:
        size = artifact.path.stat().st_size
        if size > config.max_file_size:
            issue = LoadIssue(
                IssueKind.TOO_LARGE,
                f"the file is {size:,} bytes, more than the limit of {config.max_file_size:,}; "
                "raise `max-file-size` in the configuration if this is expected",
            )
            return None, False, parsing.findings_for(artifact.display, [issue])
        raw = artifact.path.read_bytes()
    except OSError as exc:
        issue = LoadIssue(IssueKind.UNREADABLE, f"cannot read the file: {exc.strerror or exc}")
        return None, False, parsing.findings_for(artifact.display, [issue])
    text, problem = decode(raw)
    if text is None:
        assert problem is not None
        return None, False, parsing.findings_for(artifact.display, [problem])
    doc = Document(artifact.display, RULE_FILE_KIND, text, None, fs_path=str(artifact.path))
    if stamps is not None:
        stamps[artifact.display] = stamp.seen(raw)
    return doc, raw.startswith(_BOM.encode()), []


def check(docs: list[Document], read_problems: list[Finding], config: Config) -> list[Finding]:
    """The R findings (and read problems), after selection, suppression comments and severity overrides."""
    findings = read_problems + rules.check_rule_files(docs, config)
    return engine.apply_policy(findings, {doc.path: doc.text for doc in docs}, config)


def token_edits(doc: Document, findings: list[Finding], config: Config) -> list[Edit]:
    """The ``tokens=`` edits of one file, for the markers whose R003/R004 finding was reported."""
    wanted = {f.position for f in findings if f.path == doc.path and f.code in _FIXABLE}
    lines = rules.RuleFile.of(doc).lines
    edits = []
    for marker in scan(doc.text).markers:
        edit = token_fix(marker, rules.tolerance(config))
        if edit is not None and Position(*lines.position(rules.fix_offset(marker))) in wanted:
            edits.append(edit)
    return edits


def _fail(message: str) -> int:
    print(f"ctxres reinject: {message}", file=sys.stderr)
    return EXIT_USAGE


def run(args: argparse.Namespace) -> int:
    # Without a path: every rule file of the project (the L2 budget is the whole project's), from any subfolder.
    paths: list[Path] = args.paths or [project_folder(Path.cwd())]
    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        return _fail(f"no such file or directory: {', '.join(missing)}")
    try:
        config = load_config(paths[0], args.config).with_overrides(strict=args.strict)
    except ConfigError as exc:
        return _fail(str(exc))
    try:
        baseline = read_baseline(args, paths, config)
    except BaselineError as exc:
        return _fail(f"baseline {exc}")
    artifacts = rule_files(paths, config)
    if not artifacts:
        print(f"ctxres reinject: warning: no rule files found under {', '.join(map(str, paths))}", file=sys.stderr)
    stamps: dict[str, Stamp] = {}
    loaded = [load(artifact, config, stamps) for artifact in artifacts]
    docs = [doc for doc, _, _ in loaded if doc is not None]
    problems = [finding for _, _, found in loaded for finding in found]
    findings = check(docs, problems, config)
    if args.fix or args.diff:
        boms = {doc.path: bom for doc, bom, _ in loaded if doc is not None}
        try:
            changed = _apply(docs, findings, config, boms, write=args.fix, stamps=stamps)
        except ChangedSinceRead as exc:
            return _fail(f"{exc.path} changed while ctxres reinject worked on it; it was not written: run it again")
        except OSError as exc:
            return _fail(cannot_write(str(exc.filename), exc))
        if args.diff:
            sys.stdout.write("".join(changed))
            return EXIT_FINDINGS if changed else EXIT_OK
        findings = check(docs, problems, config)
    report = Report(findings, files_checked=len(artifacts))
    if baseline is not None:  # the findings `ctxres baseline` recorded do not fail the run
        checked = {artifact.display for artifact in artifacts}
        report.baseline = match(baseline, paths, config, report, frozenset(), ran=_ran(checked))
        report.show_baselined = args.show_baselined
    sys.stdout.write(render(args.output_format, report))
    return engine.exit_code(report, config.strict)


def _ran(checked: set[str]) -> Callable[[str, str], bool]:
    """Whether this command ran a rule on a file (shown path): the R rules, and the read problems (P), of the rule
    files it checked; a baseline entry of any other file or rule is not its to call fixed."""
    return lambda shown, code: shown in checked and code[:1] in ("R", "P")


def _apply(
    docs: list[Document],
    findings: list[Finding],
    config: Config,
    boms: dict[str, bool],
    write: bool,
    stamps: dict[str, Stamp] | None = None,
) -> list[str]:
    """Apply (``write``) or describe the ``tokens=`` fixes; the diff lines of what changes."""
    diff: list[str] = []
    fixed = files = 0
    for index, doc in enumerate(docs):
        edits = token_edits(doc, findings, config)
        if not edits:
            continue
        text = apply_edits(doc.text, edits)
        diff += [
            line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
            for line in difflib.unified_diff(
                doc.text.splitlines(keepends=True), text.splitlines(keepends=True), doc.path, doc.path
            )
        ]
        if write:
            expected = (stamps or {}).get(doc.path)
            write_atomic(doc.fs_path, (_BOM if boms[doc.path] else "") + text, expected=expected)
            docs[index] = doc.replace(text=text)
        fixed += len(edits)
        files += 1
    if write and fixed:
        print(
            f"ctxres reinject: fixed {fixed} tokens= figure{'s' if fixed != 1 else ''} in {files} "
            f"file{'s' if files != 1 else ''}",
            file=sys.stderr,
        )
    return diff
