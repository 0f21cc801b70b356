"""Running the checks: discover artifacts, load them, call the checks of the selected rules, filter the findings."""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Iterator, Sequence
from functools import lru_cache
from pathlib import Path

from ctxres.config import ALL, Config
from ctxres.filereading import read_at_most
from ctxres.findings import Finding, Severity
from ctxres.formats.document import Document
from ctxres.formats.loading import IssueKind, Limits, LoadIssue, load_file
from ctxres.globs import matches_any
from ctxres.linters.checking import roots, suppression
from ctxres.linters.checking.discovery import Artifact, Compared, Found, find_artifacts, one_listing
from ctxres.linters.checking.finding_runs import FindingRuns
from ctxres.linters.checking.finished_work import quieted
from ctxres.linters.checking.path_runs import PathRun, RunWriter, common_tail
from ctxres.linters.checking.registry import RULES, Check, declared_checks, matches
from ctxres.linters.checking.report import Report
from ctxres.linters.checking.resumption_context import Context, context
from ctxres.linters.rules import parsing, suppression_comments
from ctxres.linters.rules import secrets as security
from ctxres.records import Record

# `ctxres check` loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if not TYPE_CHECKING:

    def overload(function: object) -> object:  # the overloads below are for the type checker
        return function

else:
    from typing import Any, overload


Progress = Callable[[int, int], None]

# Fewer files than this are checked in this process whatever ``jobs`` says: starting and stopping a pool of
# two forked workers takes 20-50 ms, a file 1 ms (a small JSON file) to 10 ms (a large ORCHESTRATION.yaml).
POOL_MIN_FILES = 48
CHUNK_MAX = 32  # files per task sent to a worker: small enough to balance, large enough to amortize


class WorkerDied(RuntimeError):
    """A worker process ended without handing back its results (killed, out of memory, a crash)."""


class LoadedDocuments(Sequence[Document]):
    """The documents a check loaded, in order: the whole document for the kinds a rule module keeps (or any
    other document added), and of the others a stub (path, kind, place on disk), kept compactly (a few dozen
    bytes each, in a :class:`~ctxres.linters.checking.path_runs.PathRun`) and made again when it is read."""

    def __init__(self) -> None:
        self._entries: list[Document | PathRun] = []
        self._count = 0
        self._stubs = RunWriter(self._entries.append)

    def add(self, document: Document) -> None:
        self._count += 1
        path, on_disk = document.path, document.fs_path
        common = len(path) if on_disk.endswith(path) else common_tail(path, on_disk)
        if not common or document != document.stub():
            self._stubs.close()
            self._entries.append(document)
            return
        self._stubs.add(path, on_disk, document.kind)

    def paths(self) -> Iterator[str]:
        for document in self:
            yield document.path

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, index: int) -> Document: ...
    @overload
    def __getitem__(self, index: slice) -> list[Document]: ...
    def __getitem__(self, index: int | slice) -> Document | list[Document]:
        return list(self)[index]

    def __iter__(self) -> Iterator[Document]:
        self._stubs.close()
        for entry in self._entries:
            if isinstance(entry, Document):
                yield entry
                continue
            for path, on_disk, kind in entry:
                yield Document(path=path, kind=kind, text="", data=None, fs_path=on_disk)


class Workspace(Record):
    """What one run keeps of the files it checked, for rules that compare several files.

    The documents are not all held: ``documents`` has a stub (path, kind, place on disk) of each loaded
    file, and the whole document only for the kinds a selected workspace check declares
    (:func:`~ctxres.linters.checking.registry.workspace_check`). A check that needs a little of many files
    declares ``collect(doc, config) -> (fact, findings)``, run while the file is loaded (in a worker process
    with ``--jobs``); ``facts_of(module)`` lists its facts.
    """

    __slots__ = ("config", "cwd", "documents", "facts", "roots")

    config: Config
    documents: LoadedDocuments
    # The paths given to the check and the folder paths are shown relative to (empty/None: unknown), for
    # rules that look for files that are not artifacts wherever the check is run from.
    roots: list[Path]
    cwd: Path | None
    facts: dict[str, list[Any]]

    def __init__(
        self,
        config: Config,
        documents: LoadedDocuments | None = None,
        roots: list[Path] | None = None,
        cwd: Path | None = None,
        facts: dict[str, list[Any]] | None = None,
    ) -> None:
        self.config = config
        self.documents = LoadedDocuments() if documents is None else documents
        self.roots = [] if roots is None else roots
        self.cwd = cwd
        self.facts = {} if facts is None else facts

    def of_kind(self, kind: str) -> list[Document]:
        return [doc for doc in self.documents if doc.kind == kind]

    def facts_of(self, module: str) -> list[Any]:
        """What ``collect`` of the rule module named ``module`` kept, in the order the files were checked."""
        return self.facts.get(module, [])


class _Plan:
    """The checks a run calls, from their declarations (:class:`~ctxres.linters.checking.registry.Check`): those
    with at least one selected code, by the kind of document they read (computed once per kind)."""

    __slots__ = ("by_kind", "collectors", "per_document", "per_workspace", "workspace_kinds")

    per_document: list[Check]  # document and section checks, in the order they are declared
    per_workspace: list[Check]
    collectors: list[Check]  # the workspace checks that collect something of each file
    workspace_kinds: frozenset[str]
    by_kind: dict[str, list[Check]]

    def __init__(self, checks: list[Check]) -> None:
        self.per_document = [check for check in checks if check.reads != "workspace"]
        self.per_workspace = [check for check in checks if check.reads == "workspace"]
        self.collectors = [check for check in self.per_workspace if check.collect is not None]
        self.workspace_kinds = frozenset(kind for check in self.per_workspace for kind in check.kinds or ())
        self.by_kind = {}

    def of_kind(self, kind: str) -> list[Check]:
        checks = self.by_kind.get(kind)
        if checks is None:
            checks = [check for check in self.per_document if check.kinds is None or kind in check.kinds]
            self.by_kind[kind] = checks
        return checks


def _plan(config: Config) -> _Plan:
    return _plan_of(config.select, config.extend_select, config.ignore)


@lru_cache(maxsize=8)
def _plan_of(select: tuple[str, ...], extend_select: tuple[str, ...], ignore: tuple[str, ...]) -> _Plan:
    """A check runs when the configuration selects one of its codes. Auditing suppression comments (I002) needs
    every finding (a comment that silences a finding of any rule is used), so a run that selects I002 calls
    every check, and selection filters their findings afterwards."""
    checks = declared_checks()
    chosen = (*select, *extend_select)
    if _chosen(suppression_comments.UNUSED.code, chosen, ignore):
        return _Plan(checks)
    return _Plan([check for check in checks if any(_chosen(code, chosen, ignore) for code in check.codes)])


def _run_checks(checks: list[Check], document: Document, config: Config) -> list[Finding]:
    """What ``checks`` find in ``document``, in their order; the S checks share one resumption context."""
    findings: list[Finding] = []
    section: Context | bool | None = False  # False: not built yet
    for check in checks:
        if check.reads == "section":
            if section is False:
                section = context(document, config)
            if section is None:
                continue
            found = check.function(section)
        else:
            found = check.function(document, config)
        assert all(finding.code in check.codes for finding in found), _undeclared(check, found)
        findings += found
    return findings


def planned_checks(kind: str, config: Config) -> list[Check]:
    """The document and section checks a run with ``config`` calls on a file of ``kind``, in order."""
    return _plan(config).of_kind(kind)


def document_findings(document: Document, config: Config) -> list[Finding]:
    """What the document and section checks of the rules ``config`` selects find in ``document``, in the order
    they are declared: findings of other rules too (a check declares several), before suppression comments,
    per-file ignores and finished-work quieting."""
    return _run_checks(planned_checks(document.kind, config), document, config)


def _undeclared(check: Check, found: list[Finding]) -> str:
    codes = sorted({finding.code for finding in found} - check.codes)
    return f"{check.name} reported {', '.join(codes)}, which it does not declare"


def _reported_issues(doc: Document | None, issues: list[LoadIssue]) -> list[LoadIssue]:
    """The load issues to report: a key that is not a string only where the schema reads keys as text (P007)."""
    if not any(issue.kind is IssueKind.NON_STRING_KEY for issue in issues):
        return issues
    from ctxres.linters.validation.schema_keys import expects_string_key

    return [
        issue
        for issue in issues
        if issue.kind is not IssueKind.NON_STRING_KEY or (doc is not None and expects_string_key(doc, issue.json_path))
    ]


def check_artifact(artifact: Artifact, config: Config) -> tuple[Document | None, list[Finding]]:
    """Load one artifact and run the per-document checks on it."""
    limits = Limits(max_bytes=config.max_file_size)
    result = load_file(artifact.fs_path, artifact.kind, artifact.format, limits, artifact.display)
    findings = parsing.findings_for(artifact.display, _reported_issues(result.document, result.issues))
    if result.document is not None:
        findings += document_findings(result.document, config)
        findings = quieted(findings, result.document)  # finished work: no shape or convention warnings
    return result.document, findings


class FileResult(Record):
    """What the check of one file hands back (from a worker process with ``--jobs``): small, whatever the
    size of the file."""

    __slots__ = ("comments", "display", "document", "facts", "findings")

    display: str
    findings: list[Finding]
    comments: suppression.Suppressions | None  # its suppression comments, when it has any
    document: Document | None  # loaded: a stub, or the whole document for the kinds a workspace check reads
    facts: dict[str, Any]  # rule module -> what its collect kept

    def __init__(
        self,
        display: str,
        findings: list[Finding],
        comments: suppression.Suppressions | None = None,
        document: Document | None = None,
        facts: dict[str, Any] | None = None,
    ) -> None:
        self.display = display
        self.findings = findings
        self.comments = comments
        self.document = document
        self.facts = {} if facts is None else facts


def check_file(artifact: Artifact, config: Config) -> FileResult:
    """Every per-file check of one artifact, and what the checks across files need of it."""
    document, found = check_artifact(artifact, config)
    result = FileResult(artifact.display, found)
    text: str | None = None
    if document is not None:
        if artifact.format.value not in ("json", "jsonl"):  # JSON has no comments: no suppression in its text
            text = document.text
        plan = _plan(config)
        for check in plan.collectors:
            assert check.collect is not None
            fact, more = check.collect(document, config)
            assert all(finding.code in check.codes for finding in more), _undeclared(check, more)
            result.findings += more
            if fact is not None:
                result.facts[check.collect.__module__] = fact
        result.document = document.settle() if document.kind in plan.workspace_kinds else document.stub()
    elif found:
        # Not parsed (binary, not UTF-8, too large, a syntax error): its text still serves suppression
        # comments (YAML) and the secrets rule. A key is leaked whatever else is wrong with the file, so
        # every rejected file is scanned: at most `max-file-size` bytes, undecodable bytes replaced.
        raw = _read_text(artifact.path, config.max_file_size)
        if artifact.format.value in ("yaml", "front-matter"):
            text = raw
        result.findings += security.findings_in_text(artifact.display, raw)
    if text is not None:
        comments = _comments(artifact.display, text)
        result.comments = comments if comments.directives else None
    return result


def selected(code: str, config: Config) -> bool:
    return _chosen(code, (*config.select, *config.extend_select), config.ignore)


def _chosen(code: str, chosen: tuple[str, ...], ignore: tuple[str, ...]) -> bool:
    if not matches(code, chosen):
        return False
    # A more specific selector wins over a broader ignore, as in ruff.
    ignoring = [sel for sel in ignore if sel == ALL or code.startswith(sel)]
    if not ignoring:
        return True
    picking = [sel for sel in chosen if sel == ALL or code.startswith(sel)]
    return _specificity(picking) > _specificity(ignoring)


def _specificity(selectors: list[str]) -> int:
    return max(0 if sel == ALL else len(sel) for sel in selectors)


def _per_file_ignored(finding: Finding, config: Config) -> bool:
    for glob, codes in config.per_file_ignores.items():
        if matches_any(finding.path, (glob,)) and matches(finding.code, codes):
            return True
    return False


def _reported(finding: Finding, config: Config) -> bool:
    return selected(finding.code, config) and not _per_file_ignored(finding, config)


def _with_severity(finding: Finding, config: Config) -> Finding:
    override = config.severity.get(finding.code)
    return finding.replace(severity=Severity(override)) if override else finding


def apply_policy(
    findings: list[Finding], texts: dict[str, str], config: Config, loaded: Collection[str] | None = None
) -> list[Finding]:
    """Selection, suppression comments, per-file ignores and severity overrides (:class:`_Policy`, on
    findings already gathered, the comments read from ``texts``).

    With ``loaded`` (the paths of the files that were read, of a run of every rule), the suppression
    comments of ``texts`` are checked too: a code that names no rule (I001), and in a file of ``loaded``
    a comment or code that silenced nothing although the run selected its rule (I002). These findings
    follow selection, per-file ignores and severity overrides, not the comments themselves.
    """
    policy = _Policy(config)
    policy.comments = {path: _comments(path, text) for path, text in texts.items()}
    for finding in findings:
        policy.decide(finding)
    return list(policy.finish([], loaded))


def _comments(path: str, text: str) -> suppression.Suppressions:
    return suppression.parse(text, markdown=path.lower().endswith((".md", ".markdown")))


def rule_reported(path: str, code: str, config: Config) -> bool:
    """Whether a run with ``config`` reports the rule ``code`` in the file ``path`` (selection, per-file ignores)."""
    return _reported(Finding(path, code, "", Severity.ERROR), config)


def _active_in(path: str, config: Config) -> Callable[[str], bool]:
    """Whether a run with ``config`` reports the rule ``code`` in the file ``path``."""
    return lambda code: rule_reported(path, code, config)


class _Policy:
    """Which findings a run reports: selection, suppression comments, per-file ignores, severity overrides.

    A run decides one file at a time: a finding is decided as soon as the comments of its file are known, so
    it keeps the findings it reports, not the files it read (and those, past a few thousand, in sorted runs
    on disk: :class:`FindingRuns`). :func:`apply_policy` decides findings already gathered."""

    def __init__(self, config: Config, compared: Compared | None = None) -> None:
        self.config = config
        self.compared = compared  # files read only to compare named files with: their findings are not reported
        self.kept = FindingRuns()
        self.comments: dict[str, suppression.Suppressions] = {}
        self.used: dict[str, set[tuple[int, int]]] = {}
        self.pending: list[Finding] = []  # about another file than the one checked: decided at the end
        self.codes: set[str] = set()

    def add(self, result: FileResult) -> None:
        if result.comments is not None:
            self.comments[result.display] = result.comments
        for finding in result.findings:
            if finding.path == result.display:
                self.decide(finding)
            else:
                self.pending.append(finding)

    def decide(self, finding: Finding) -> None:
        self.codes.add(finding.code)
        comments = self.comments.get(finding.path)
        # A comment that silences a finding of a rule the run did not select is still needed (by a full run).
        silenced = comments.covering(finding.code, finding.position.line) if comments else []
        if silenced:
            self.used.setdefault(finding.path, set()).update(silenced)
        elif _reported(finding, self.config) and self._involved(finding):
            self.kept.append(_with_severity(finding, self.config))

    def _involved(self, finding: Finding) -> bool:
        return self.compared is None or self.compared.involves(finding)

    def finish(self, later: list[Finding], loaded: Collection[str] | None) -> Sequence[Finding]:
        """Every finding kept, sorted; with ``loaded``, the findings about the comments too (I001, I002)."""
        for finding in (*self.pending, *later):
            self.decide(finding)
        if loaded is None:
            return self.kept.sorted()
        for path, comments in self.comments.items():
            active = _active_in(path, self.config) if path in loaded else None
            audit = suppression_comments.findings_for(path, comments, self.used.get(path, set()), active)
            self.kept.extend(
                [_with_severity(f, self.config) for f in audit if _reported(f, self.config) and self._involved(f)]
            )
        return self.kept.sorted()


def run(
    paths: list[Path],
    config: Config,
    cwd: Path | None = None,
    *,
    jobs: int = 1,
    progress: Progress | None = None,
    artifacts: Found | None = None,
) -> Report:
    """Check every artifact under ``paths`` (or ``artifacts``, already found: it lets them go as the files
    are checked), in ``jobs`` processes.

    ``progress(done, total)`` is called after each file. Findings are identical whatever ``jobs`` is.
    """
    with one_listing():
        return _run(paths, config, cwd, jobs, progress, artifacts)


def _run(
    paths: list[Path],
    config: Config,
    cwd: Path | None,
    jobs: int,
    progress: Progress | None,
    artifacts: Found | None,
) -> Report:
    roots.forget()
    if artifacts is None:
        artifacts = find_artifacts(paths, config, cwd)
    workspace = Workspace(config, roots=list(paths), cwd=cwd or Path.cwd())
    policy = _Policy(config, artifacts.compared)
    total = len(artifacts)
    for done, result in enumerate(_results(artifacts, config, jobs), start=1):
        policy.add(result)
        if result.document is not None:
            workspace.documents.add(result.document)
        for module, fact in result.facts.items():
            workspace.facts.setdefault(module, []).append(fact)
        if progress is not None:
            progress(done, total)
    later: list[Finding] = []
    for check in _plan(config).per_workspace:
        found = check.function(workspace)
        assert all(finding.code in check.codes for finding in found), _undeclared(check, found)
        later += found
    # (finish asks only about the files with suppression comments: not a set of every path)
    loaded = {path for path in workspace.documents.paths() if path in policy.comments}
    findings = policy.finish(later, loaded)
    unknown = sorted(policy.codes - set(RULES))
    assert not unknown, f"findings with unregistered codes: {unknown}"
    return Report(findings, files_checked=total)


def _results(artifacts: Found, config: Config, jobs: int) -> Iterator[FileResult]:
    """The result of each artifact, in order: here, or from ``jobs`` worker processes for many files. The
    artifacts are let go as they are handed out (a check holds none it is done with)."""
    _plan(config)  # the rule modules imported before the workers start (a forked worker inherits them)
    if jobs <= 1 or len(artifacts) < POOL_MIN_FILES:
        for artifact in artifacts.drain():
            yield check_file(artifact, config)
        return
    from ctxres.linters.checking.pool import results_in_pool

    yield from results_in_pool(artifacts, config, jobs, CHUNK_MAX)


def _read_text(path: Path, max_bytes: int) -> str:
    """The text of a file that failed to load (for its suppression comments and the secrets rule): never a
    FIFO or a device, never more than ``max_bytes`` (a hostile 100 MB file is not read whole); bytes that
    are not UTF-8 are replaced, NUL bytes kept."""
    try:
        if not path.is_file():
            return ""
        with path.open("rb") as handle:
            fd = handle.fileno()
            return read_at_most(fd, max_bytes, os.fstat(fd).st_size).decode("utf-8", "replace")
    except OSError:
        return ""


def exit_code(report: Report, strict: bool) -> int:
    """0 clean, 1 findings that fail the run (errors; warnings too under ``--strict``)."""
    if report.errors or (strict and report.warnings):
        return 1
    return 0
