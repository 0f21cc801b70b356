"""``ctxres stale``: block a commit that moves the workflow state of an ORCHESTRATION file without
updating its resumption section.

* As the pre-commit hook ``ctxres-stale`` (``ctxres stale [FILES...]``): each staged
  orchestration file (the FILES pre-commit passes, else every staged YAML file with a top-level
  ``resumption:`` section) is compared with HEAD.
* In CI (``ctxres stale --since REF``): every commit of ``REF..HEAD`` that changes an
  orchestration file is compared with its parent.
* At pre-push (and ``pre-commit run --from-ref A --to-ref B``), where nothing is staged: every
  commit pushed, as pre-commit names them (:mod:`ctxres.linters.checking.pushed_commits`), as
  ``--since`` does.

What counts as "the state moved" and "the section moved" is defined (and justified) in
:mod:`ctxres.state.statediff`. A new file, a deleted file and a file without a resumption section are
never blocked. Comparing the index with HEAD needs no history, so the hook works in a shallow
clone; ``--since`` needs the commits of the range and their parents, and in a shallow clone that
lacks them it stops with an error that says how to fetch them. Exit status: 0 clean, 1 blocked,
2 usage error (not a git repository, bad ref, shallow clone).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from ctxres import git
from ctxres.artifacts import YAML_SUFFIXES
from ctxres.config import Config, load_config
from ctxres.findings import Finding
from ctxres.formats.loading import DEFAULT_MAX_BYTES
from ctxres.linters.checking import pushed_commits
from ctxres.linters.checking.commit_comparison import (
    Comparison,
    as_json,
    check_range,
    check_revisions,
    compare_versions,
    is_candidate,
    now_utc,
    render_text,
)
from ctxres.linters.checking.discovery import force_excluded
from ctxres.linters.checking.progress import Progress
from ctxres.linters.reporters import add_format_option, print_findings

EXIT_OK, EXIT_BLOCKED, EXIT_USAGE = 0, 1, 2


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "stale",
        help="block commits that move the workflow state without updating the resumption section",
        description="Compare each staged ORCHESTRATION file with HEAD (or, with --since, each commit of "
        "REF..HEAD with its parent). When a state-bearing part moved (the workflow, pipeline, phase, task, "
        "agent or execution-group status, a quality gate's iteration or score, a checkpoint; a state key added "
        "to or removed from a unit counts too) and the resumption "
        "section did not (v2.0: recovery_state.updated_at did not advance; v1.0, or v2.0 without updated_at: the "
        "section is unchanged), "
        "print what moved and how to fix it, and exit 1. Comments, whitespace, prose, metrics and "
        "next_actions never block; neither does a new file. This is the pre-commit hook `ctxres-stale`; at "
        "pre-push (pre-commit's PRE_COMMIT_FROM_REF and PRE_COMMIT_TO_REF) it compares the commits being pushed, "
        "as --since does.",
        epilog="Exit status: 0 clean, 1 blocked, 2 usage error (not a git repository, unknown revision, or "
        "--since in a shallow clone that lacks the range: fetch it with `git fetch --unshallow`).",
    )
    parser.add_argument(
        "files",
        nargs="*",
        type=Path,
        metavar="FILE",
        help="orchestration files to check (default: every staged YAML file with a resumption section)",
    )
    parser.add_argument(
        "--since",
        metavar="REF",
        help="check every commit in REF..HEAD instead of the staged changes (for CI); FILES, if given, "
        "limit it to those files",
    )
    parser.add_argument(
        "--force-exclude",
        action="store_true",
        help="drop the FILES that the configuration's exclude/extend-exclude exclude (for pre-commit)",
    )
    parser.add_argument(
        "--include-examples",
        action="store_true",
        default=None,
        help="also compare examples and templates (`check-examples = true`), which are skipped as `ctxres check` "
        "skips them",
    )
    add_format_option(parser, "how to print the result (github: annotations, sarif: code scanning; both S013)")
    parser.set_defaults(handler=run)


def _staged_targets(files: list[Path], root: Path, config: Config) -> tuple[list[git.Change], list[str]]:
    """The staged changes to compare, and the named files with nothing staged (as the user named them)."""
    staged = {change.path: change for change in git.staged_changes(root)}
    if not files:
        return [change for change in staged.values() if is_candidate(change, config)], []
    targets = []
    unstaged = []
    for given in files:
        rel = git.repo_path(given, root)
        change = staged.get(rel)
        if change is None:
            if rel.endswith(YAML_SUFFIXES):
                unstaged.append(given.as_posix())
        elif not change.added and not change.deleted and rel.endswith(YAML_SUFFIXES):
            targets.append(change)
    return targets, unstaged


def _check_index(args: argparse.Namespace, root: Path, config: Config) -> list[Comparison]:
    if not git.has_commits(root):
        return []  # the first commit: every file is new
    targets, args.unstaged = _staged_targets(args.files, root, config)
    specs = [spec for change in targets for spec in (f":{change.path}", f"HEAD:{change.old_path}")]
    blobs = git.read_blobs(specs, root, max_bytes=DEFAULT_MAX_BYTES)  # a hostile 100 MB file is not read
    now = now_utc()
    results = []
    for index, change in enumerate(targets):
        shown = Path(os.path.relpath(root / change.path)).as_posix()  # as the user would type it here
        result = compare_versions(shown, blobs[2 * index + 1], blobs[2 * index], example_time=now)
        if result is not None:
            results.append(result)
    return results


def _check_range(args: argparse.Namespace, root: Path, config: Config) -> list[Comparison]:
    with Progress("stale --since", "changes") as progress:
        return check_range(args.since, args.files, root, config, progress)


def _check_pushed(named: pushed_commits.Pushed, files: list[Path], root: Path, config: Config) -> list[Comparison]:
    revisions = pushed_commits.revisions(named, root)
    with Progress("stale", "changes") as progress:
        return check_revisions(revisions, named.described(), files, root, config, progress)


def _plural(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def _print_unstaged(unstaged: tuple[str, ...]) -> None:
    """The named files with nothing staged: one line, whatever their number."""
    if len(unstaged) == 1:
        name = unstaged[0]
        print(f"ctxres stale: {name}: nothing staged, nothing to compare (`git add {name}` stages it)")
    elif unstaged:
        print(
            f"ctxres stale: {len(unstaged)} named files have nothing staged ({unstaged[0]}, ...), nothing to compare "
            "(`git add FILE` stages one)"
        )


def _print_text(results: list[Comparison], range_mode: bool, scope: str = "", unstaged: tuple[str, ...] = ()) -> None:
    if not results and pushed_commits.run_by_pre_commit(os.environ):
        return  # nothing compared: a commit of other files, `pre-commit run --all-files` with nothing staged
    blocked = [r for r in results if r.staleness is not None]
    _print_notes(results)
    _print_unstaged(unstaged)
    skipped = [r for r in results if r.note]
    results = [r for r in results if not r.note]
    for result in blocked:
        if range_mode and result.commit is not None:
            short = result.commit.short
            head, between = f"{short} {result.commit.date} {result.path}", f"{short}^ -> {short}"
            after = f" (in commit {short} itself: `git rebase -i {short}^`, mark it `edit`, amend it)"
        else:
            head, between = result.path, "HEAD -> staged"
            after = f", then stage the file again (`git add {result.path}`)"
        print(f"{head}: blocked: the workflow state moved but the resumption section did not")
        print("\n".join(render_text(result, between, after)))
    count = len(results)
    if range_mode:
        counted = _plural(count, "change to an orchestration file", "changes to orchestration files")
    else:
        counted = _plural(count, "staged orchestration file", "staged orchestration files")
    within = f" in {scope}" if scope else ""
    not_compared = ""
    if skipped:
        what = "change to an orchestration file" if range_mode else "staged orchestration file"
        not_compared = f"{_plural(len(skipped), what, what.replace('file', 'files').replace('change ', 'changes '))}"
        not_compared += f"{within} not compared (see above)"
    if blocked:
        verb = "leaves" if len(blocked) == 1 else "leave"
        tail = f"; {not_compared}" if skipped else ""
        print(f"ctxres stale: {len(blocked)} of {counted}{within} {verb} the resumption section stale{tail}.")
    elif skipped:
        rest = f"; the other {counted} {'is' if count == 1 else 'are'} up to date" if count else ""
        print(f"ctxres stale: {not_compared}, so not known to be up to date{rest}.")
    elif not count and not range_mode:
        print("ctxres stale: no staged orchestration file to compare.")
    else:
        print(f"ctxres stale: resumption sections are up to date ({counted}{within} checked).")


# The text and json output, what pre-commit shows on every commit, do not load the rules' registry: S013's
# findings (github, sarif) import it in their function (docs/performance.md, "Start-up tricks").


def findings(results: list[Comparison], root: Path, range_mode: bool) -> list[Finding]:
    """S013 for every blocked change, at the stale part of its section (paths relative to here)."""
    from ctxres.linters.rules.stale_commits import stale_finding

    found = []
    for result in results:
        if result.staleness is None:
            continue
        shown = Path(os.path.relpath(root / result.path)).as_posix()  # git names it from the root
        if range_mode:
            found.append(stale_finding(result, shown))
        else:
            found.append(stale_finding(result, shown, f", then stage the file again (`git add {shown}`)"))
    return found


def _print_notes(results: list[Comparison]) -> None:
    for result in results:
        if result.note:
            where = f"{result.commit.short} " if result.commit else ""
            print(f"ctxres stale: {where}{result.path}: {result.note}", file=sys.stderr)


def run(args: argparse.Namespace) -> int:
    args.unstaged = []
    absent = [path for path in args.files if not path.exists()] if args.since is None else []
    if absent:
        listed = ", ".join(path.as_posix() for path in absent)
        print(f"ctxres stale: error: no such file: {listed}", file=sys.stderr)
        return EXIT_USAGE
    try:
        root = git.repo_root(Path.cwd())
        config = load_config(root).with_overrides(check_examples=args.include_examples)
        named = bool(args.files)
        if named and (args.force_exclude or config.force_exclude):
            args.files = [path for path in args.files if not force_excluded(path, config)]
        # At pre-push nothing is staged: the commits pushed are compared, as --since compares its range.
        pushing = pushed_commits.pushed(os.environ) if args.since is None else None
        if named and not args.files:
            results: list[Comparison] = []  # every file named is excluded: nothing to compare
        elif args.since is not None:
            results = _check_range(args, root, config)
        elif pushing is not None:
            results = _check_pushed(pushing, args.files, root, config)
        else:
            results = _check_index(args, root, config)
    except git.GitError as exc:
        print(f"ctxres stale: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    range_mode = args.since is not None or pushing is not None
    if args.output_format == "json":
        payload = {
            "checked": len(results),
            "blocked": [as_json(r) for r in results if r.staleness is not None],
            "not_compared": [{**as_json(r), "note": r.note} for r in results if r.note],
        }
        print(json.dumps(payload, indent=2, ensure_ascii=False))
    elif args.output_format == "text":
        _print_text(results, range_mode, pushing.described() if pushing is not None else "", tuple(args.unstaged))
    else:
        _print_notes(results)
        print_findings(args.output_format, findings(results, root, range_mode), len(results))
    return EXIT_BLOCKED if any(r.staleness is not None for r in results) else EXIT_OK
