"""Finished work: the shape, convention and migration warnings of a workflow or a Nexus project that is complete.

Nobody resumes a COMPLETE workflow, a complete Nexus project or an archived one again: a warning about the
shape its sections were written in, about a convention it did not follow, or an old version to migrate
(V001, N009) asks for work that changes nothing. Errors are still reported: a file that cannot be read, or
a state that contradicts itself, is wrong whether or not the work is finished.
"""

from __future__ import annotations

import os

from ctxres import nexus
from ctxres.findings import Finding, Severity
from ctxres.formats.document import Document
from ctxres.state.orchestration import workflow_status_of

QUIET_WHEN_FINISHED = frozenset({"C006", "C007", "S003", "S004", "S012", "S015", "N002", "N008", "N009", "V001"})
"""The rules whose warnings are noise on finished work."""


def is_finished(doc: Document) -> bool:
    """Whether a loaded artifact is finished work: anything in a Nexus archive (``05-archived/``); a workflow
    file whose status is COMPLETE wherever it states one (``workflow.status`` and
    ``recovery_state.workflow_status``: a file that says ACTIVE in one and COMPLETE in the other contradicts
    itself, and is not taken as finished); or a Nexus manifest that says its project or build is complete (or
    a build in ``02-builds/complete/``), or whose body its generator wrote on project completion."""
    if nexus.is_archived(os.path.abspath(doc.fs_path) if doc.fs_path else doc.path):
        return True
    folder = (doc.fs_path or doc.path).replace("\\", "/")
    if doc.kind == "orchestration":
        return _says_complete(doc.data)
    if doc.kind in ("resume-context", "build-manifest") and isinstance(doc.data, dict):
        at = folder.find(nexus.BUILDS_FOLDER + "/")
        return nexus.is_finished(folder[at:] if at >= 0 else "", doc.data) or _finished_body(doc.text)
    return False


def _finished_body(text: str) -> bool:
    split = nexus.split_manifest(text)
    return split is not None and nexus.finished_body(split[1])


def _says_complete(data: object) -> bool:
    if not isinstance(data, dict):
        return False
    statuses = [workflow_status_of({key: data[key]}) for key in ("workflow", "resumption") if key in data]
    stated = [status for status in statuses if status is not None]
    return bool(stated) and all(status == "COMPLETE" for status in stated)


def quieted(findings: list[Finding], doc: Document) -> list[Finding]:
    """``findings`` without the warnings of :data:`QUIET_WHEN_FINISHED` located in ``doc`` when it is finished."""
    if not any(f.code in QUIET_WHEN_FINISHED and f.severity is Severity.WARNING for f in findings):
        return findings
    if not is_finished(doc):
        return findings
    return [
        f
        for f in findings
        if not (f.path == doc.path and f.code in QUIET_WHEN_FINISHED and f.severity is Severity.WARNING)
    ]
