"""V rules: resumption sections in v1.0 and v2.0, and the move from one to the other.

The version of a section is detected from its shape (``ctxres.state.resumption.detect_version``), never
from the file's ``schema_version``, which real files set to unrelated values. Schema problems
(a missing key, a wrong type) are the conformance rules' business; these rules report what only
makes sense across the two versions.
"""

from __future__ import annotations

import json

from ctxres.findings import Finding, Severity
from ctxres.formats.document import Document, JsonPath, format_json_path
from ctxres.formats.yamlemit import scalar
from ctxres.linters.checking.registry import Rule, document_check, register
from ctxres.linters.checking.severity_policy import Case
from ctxres.linters.validation.schema_errors import dotted
from ctxres.migration.migration_marks import phases_in_prose, placeholders, status_from_prose
from ctxres.state.orchestration import WORKFLOW_STATUSES, pipelines
from ctxres.state.resumption import MOVED_TO_RECOVERY_STATE, detect_version, v1_leftovers, v1_view, v1_view_paths

# `ctxres check` loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ctxres.config import Config

SECTION = "resumption"


_WHAT_IT_HOLDS = {
    "updated_at": "the ISO-8601 time the section was last brought up to date, for example 2026-02-17T12:34:56Z",
    "current_phase": "the number of the phase in progress (the last phase when the workflow is complete)",
    "current_phase_name": "the name of the phase in progress",
    "workflow_status": "one of " + ", ".join(WORKFLOW_STATUSES),
    "current_activity": "what was happening, for example phase-3-agent-execution or qg-2-iteration-1",
}


def _finding(doc: Document, rule: Rule, path: JsonPath, message: str, fix: str, *, key: bool = False) -> Finding:
    return Finding(doc.path, rule.code, message, rule.severity, doc.locate(path, key=key), format_json_path(path), fix)


def _quote(value: Any) -> str:
    text = scalar(value) if not isinstance(value, (dict, list)) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else text[:58] + "…"


V1_SECTION = register(
    "V001",
    "v1-section",
    "The resumption section is still in the v1.0 format.",
    Severity.WARNING,
    case=Case.OLD_VERSION,
    why="A v1.0 section is still read by every hook; it only records less.",
    explanation="""
    ## Why
    A v1.0 section (`last_checkpoint`, `current_state`, `next_step`, `files_to_read` and two
    flags) says where the workflow is, in prose. It records nothing of what happened: no quality
    trajectory, no defects, no decisions, no agent summaries, no compactions, and no
    `updated_at`, so nobody can tell whether it is stale. The v2.0 format keeps all of that in
    seven sub-sections, and v1.0 readers still find `last_checkpoint`, `next_step` and
    `files_to_read` in it. v1.0 is accepted, so this is a warning (it fails under `--strict`).

    The version is recognised from the section's keys, not from the file's `schema_version`. A
    finished workflow (`workflow.status` COMPLETE) or an archived one (in `05-archived/`) is not
    reported: nobody resumes it again, so migrating its section gains nothing. Nor is a v1.0 section
    that lacks a v1.0 key (`files_to_read`, say): C001 or C007 reports the missing keys on the same
    line as an error, and that is the fix to make first.

    ## Example
    ```yaml
    resumption:
      last_checkpoint: "CP-003"
      current_state: "WORKFLOW COMPLETE. All 4 phases done."
      next_step: "Close FEAT-015 and update WORKTRACKER.md."
      files_to_read: ["ORCHESTRATION_PLAN.md"]
    ```

    ## Fix
    Run `ctxres migrate FILE` to see the change as a diff, then `ctxres migrate --write FILE`.
    It moves the v1.0 fields into `recovery_state`, keeps `current_state` as
    `recovery_state.current_activity`, infers the phase and status from the file, and lists what
    it could not infer (at least `updated_at`): set those by hand.
    """,
)


def _v1_section(doc: Document, section: dict[str, Any]) -> list[Finding]:
    from ctxres.linters.rules.conformance import schema  # (conformance imports this module)

    if any(key not in section for key in schema("resumption-v1").get("required", ())):
        return []  # C001 or C007 reports the missing keys on the same line, as an error: no second finding
    records = "it records no update time, quality trajectory, defects, decisions, agent summaries or compactions"
    message = f"`resumption` is a v1.0 section: it is still read, but {records}"
    fix = f"run `ctxres migrate --write {doc.path}` (`ctxres migrate {doc.path}` shows the diff first)"
    return [_finding(doc, V1_SECTION, (SECTION,), message, fix, key=True)]


def _conflict(name: str, top: Any, state: dict[str, Any]) -> str:
    """Why the top-level v1.0 field ``name`` contradicts ``recovery_state`` ("" when it does not)."""
    if name in MOVED_TO_RECOVERY_STATE:
        if name in state and state[name] != top:
            return (
                f"`resumption.{name}` is {_quote(top)} but `resumption.recovery_state.{name}` is "
                f"{_quote(state[name])}: v1.0 and v2.0 readers would resume from different states"
            )
        return ""
    status, current = status_from_prose(top), state.get("workflow_status")
    if status and current in WORKFLOW_STATUSES and status != current:
        return (
            f"`resumption.current_state` says the workflow is {status} "
            f"but `recovery_state.workflow_status` is {current}"
        )
    phase, mentioned = state.get("current_phase"), phases_in_prose(top)
    if isinstance(phase, int) and not isinstance(phase, bool) and mentioned and phase not in mentioned:
        said = ", ".join(map(str, sorted(mentioned)))
        return f"`resumption.current_state` is about phase {said} but `recovery_state.current_phase` is {phase}"
    return ""


def _leftovers(doc: Document, section: dict[str, Any]) -> list[Finding]:
    state = section.get("recovery_state")
    state = state if isinstance(state, dict) else {}
    return [_leftover(doc, name, section[name], state) for name in v1_leftovers(section)]


LEFTOVER = register(
    "V002",
    "v1-field-in-v2",
    "A v2.0 section still carries a v1.0 top-level field.",
    Severity.WARNING,
    case=Case.OLD_VERSION,
    why=(
        "A copy of a v1.0 field next to its v2.0 location is an old-version leftover; when the two "
        "disagree, V003 is the error."
    ),
    explanation="""
    ## Why
    In v2.0, `last_checkpoint`, `next_step`, `cross_session_portable` and
    `ephemeral_references` live inside `recovery_state`, and `current_state` is replaced by
    `current_phase`, `current_phase_name`, `workflow_status` and `current_activity`. A copy left
    at the top level is no longer updated by the protocol, but a v1.0 reader still reads it: it
    resumes from stale data.

    ## Example
    ```yaml
    resumption:
      current_state: "Phase 2 in progress"   # left over from v1.0
      recovery_state:
        current_phase: 3
        ...
    ```

    ## Fix
    Move the value into `recovery_state` if it is not there yet, then delete the top-level key.
    For `current_state`, make sure `recovery_state.current_activity` (and the phase and status
    fields) say what it said, then delete it.
    """,
)


CONFLICT = register(
    "V003",
    "v1-v2-conflict",
    "A v1.0 top-level field contradicts its v2.0 location.",
    case=Case.CONTRADICTION,
    why="The v1.0 copy and its v2.0 location say different things: v1.0 and v2.0 readers resume from different states.",
    explanation="""
    ## Why
    When a section has both the v1.0 field and its v2.0 counterpart with different values, a
    v1.0 reader and a v2.0 reader resume from different places. One of the two is stale, and
    nothing in the file says which.

    ## Example
    ```yaml
    resumption:
      last_checkpoint: "CP-002"        # v1.0 location
      recovery_state:
        last_checkpoint: "CP-003"      # v2.0 location: which one is true?
    ```
    `current_state: "WORKFLOW COMPLETE"` beside `recovery_state.workflow_status: "ACTIVE"`, or a
    `current_state` that names other phases than `recovery_state.current_phase`, is the same
    problem.

    ## Fix
    Put the correct value in `recovery_state` and delete the top-level v1.0 field.
    """,
)


def _leftover(doc: Document, name: str, value: Any, state: dict[str, Any]) -> Finding:
    """V003 when the v1.0 field contradicts ``recovery_state``, else V002."""
    path = (SECTION, name)
    contradiction = _conflict(name, value, state)
    if contradiction:
        fix = f"keep the correct value in `recovery_state` and delete the top-level `{name}`"
        return _finding(doc, CONFLICT, path, contradiction, fix)
    if name == "current_state":
        message = (
            "`resumption.current_state` is a v1.0 field left in a v2.0 section: v1.0 readers still show it, "
            "and the update protocol no longer keeps it current"
        )
        fix = "check that recovery_state (current_phase, workflow_status, current_activity) says the same; delete it"
        return _finding(doc, LEFTOVER, path, message, fix, key=True)
    if name in state:
        message = f"`resumption.{name}` repeats `resumption.recovery_state.{name}`: a v1.0 copy that will go stale"
        return _finding(doc, LEFTOVER, path, message, f"delete the top-level `{name}`", key=True)
    message = f"`resumption.{name}` is at the top level; in a v2.0 section it belongs in `recovery_state`"
    return _finding(doc, LEFTOVER, path, message, f"move `{name}` into `recovery_state`", key=True)


ALIAS = register(
    "V004",
    "decisions-alias",
    "`decisions` is the old name of `decision_log`.",
    Severity.WARNING,
    case=Case.OLD_VERSION,
    why="`decisions` is the v1.0 name of `decision_log`, still read.",
    explanation="""
    ## Why
    The first v2.0 draft named the decision log `decisions`; the update protocol (2026-02-20)
    names it `decision_log`, and that is what hooks and resuming sessions look for first. The
    old name is still read, so this is a warning.

    ## Example
    ```yaml
    resumption:
      decisions:
        - id: "RD-001"
          decision: "Align the copyright holder across NOTICE and headers"
    ```

    ## Fix
    Rename the key `decisions` to `decision_log`; the entries stay as they are.
    """,
)


BOTH = register(
    "V005",
    "decisions-and-decision-log",
    "A section has both `decisions` and `decision_log`.",
    case=Case.CONTRADICTION,
    why="Two lists of decisions: readers take one and ignore the other.",
    explanation="""
    ## Why
    `decisions` is the old name of `decision_log`. With both present, a reader picks one list
    and never sees the entries of the other: decisions that affect later phases get lost.

    ## Example
    ```yaml
    resumption:
      decisions: [{id: "RD-001", decision: "..."}]
      decision_log: [{id: "RD-002", decision: "..."}]
    ```

    ## Fix
    Move the entries of `decisions` into `decision_log` (keep the ids sequential) and delete
    `decisions`.
    """,
)


def _decisions(doc: Document, section: dict[str, Any]) -> list[Finding]:
    if "decisions" not in section:
        return []
    path = (SECTION, "decisions")
    if "decision_log" in section:
        message = "`resumption` has both `decisions` and `decision_log`: a reader uses one list and misses the other"
        fix = "move the entries of `decisions` into `decision_log` and delete `decisions`"
        return [_finding(doc, BOTH, path, message, fix, key=True)]
    message = "`resumption.decisions` is the old name of `decision_log` (renamed on 2026-02-20)"
    return [_finding(doc, ALIAS, path, message, "rename `decisions` to `decision_log`", key=True)]


def _empty_view(doc: Document, section: dict[str, Any]) -> list[Finding]:
    """Blank values where a v1.0 reader looks in a v2.0 section (a missing key is C001's)."""
    view = v1_view(section)
    return _blank_fields(doc, view) + _blank_files(doc, view.get("files_to_read"))


EMPTY_VIEW = register(
    "V006",
    "v1-view-incomplete",
    "In a v2.0 section, a value a v1.0 reader relies on (`last_checkpoint`, `next_step`, a file to read) is blank.",
    case=Case.WRONG_RESUMPTION,
    why="A v1.0 reader resumes from this value; blank, it has nothing to resume from.",
    explanation="""
    ## Why
    A v1.0 reader, and every resuming session, re-orients from three fields: the last
    checkpoint, the next step, and the files to read. In a v2.0 section the first two are in
    `recovery_state` and `files_to_read` stays at the top level, so that old readers keep
    working. A blank `next_step`, a blank `last_checkpoint` or a blank path in `files_to_read`
    is valid YAML and passes the schema, but leaves the session with nothing to resume from, no
    next action, or a file it cannot open. (A key that is missing altogether is reported by
    C001.)

    ## Example
    ```yaml
    resumption:
      recovery_state:
        last_checkpoint: ""    # "no checkpoint yet" is null
        next_step: " "         # nothing to resume with
      files_to_read:
        - "ORCHESTRATION.yaml"
        - ""                   # a path that leads nowhere
    ```

    ## Fix
    Write the next action as one clear sentence; write `last_checkpoint: null` before the first
    checkpoint; give every entry of `files_to_read` its path, or delete it.
    """,
)


def _blank_fields(doc: Document, view: dict[str, Any]) -> list[Finding]:
    findings = []
    paths = v1_view_paths("2.0")
    for name, what in (("last_checkpoint", "null before the first checkpoint"), ("next_step", "the next action")):
        value = view.get(name)
        if isinstance(value, str) and not value.strip():
            path: JsonPath = (SECTION, *paths[name])
            message = f"`{dotted(path)}` is empty: a resuming session has no {name.replace('_', ' ')} to go on"
            findings.append(_finding(doc, EMPTY_VIEW, path, message, f"write {what}"))
    return findings


def _blank_files(doc: Document, files: Any) -> list[Finding]:
    findings = []
    for index, entry in enumerate(files if isinstance(files, list) else []):
        if isinstance(entry, str) and not entry.strip():
            path: JsonPath = (SECTION, "files_to_read", index)
            message = f"`{dotted(path)}` is an empty path: a resuming session cannot read it"
            findings.append(_finding(doc, EMPTY_VIEW, path, message, "write the path, or delete the entry"))
    return findings


PLACEHOLDER = register(
    "V007",
    "migrate-placeholder",
    "A value is still the placeholder that `ctxres migrate` wrote.",
    case=Case.WRONG_RESUMPTION,
    why="A placeholder is not state: the resuming session reads a value nobody wrote.",
    explanation="""
    ## Why
    `ctxres migrate` never invents a value: what it cannot infer from the file (always
    `updated_at`, sometimes the phase or the workflow status) it writes as
    `"<ctxres migrate: not inferred; set this>"`. Until it is replaced, hooks and resuming
    sessions read a placeholder instead of the state of the workflow.

    ## Example
    ```yaml
    resumption:
      recovery_state:
        updated_at: "<ctxres migrate: not inferred; set this>"
    ```

    ## Fix
    Replace the placeholder with the real value (the message says what the field holds).
    `ctxres migrate` printed the list when it ran.
    """,
)


def _placeholders(doc: Document, section: dict[str, Any]) -> list[Finding]:
    findings = []
    for path in placeholders(section, (SECTION,)):
        name = next((str(part) for part in reversed(path) if isinstance(part, str)), "value")
        holds = _phase_hint(doc.data) if name == "current_phase" else _WHAT_IT_HOLDS.get(name, "the real value")
        message = f"`{dotted(path)}` still holds the placeholder written by `ctxres migrate`"
        findings.append(_finding(doc, PLACEHOLDER, path, message, f"replace it with {holds}"))
    return findings


def _phase_hint(data: Any) -> str:
    """What ``current_phase`` holds, in the workflow's own phase ids: a number when its phases are numbered, else
    one of the ids its phases have (``research``, ``PH-A``)."""
    ids = list(
        dict.fromkeys(
            str(phase.data.get("id", phase.key))
            for pipeline in pipelines(data)
            for phase in pipeline.phases
            if phase.data.get("id", phase.key) is not None
        )
    )
    numbered = all(
        isinstance(phase.data.get("id", phase.key), int) for pipeline in pipelines(data) for phase in pipeline.phases
    )
    if not ids or numbered:
        return _WHAT_IT_HOLDS["current_phase"]
    shown = ", ".join(ids[:8]) + (", ..." if len(ids) > 8 else "")
    return (
        f"the id of the phase in progress, as the workflow's phases write it: one of {shown} "
        "(the last phase when the workflow is complete)"
    )


def owned_paths(data: Any) -> frozenset[JsonPath]:
    """Where a V rule reports a problem that the schema would also flag, with a more precise message.

    Placeholder values (V007), v1.0 leftovers of a v2.0 section (V002/V003) and the
    ``recovery_state`` keys a leftover stands in for. The conformance rules can skip schema
    problems at these paths so that each problem is reported once.
    """
    section = data.get(SECTION) if isinstance(data, dict) else None
    if not isinstance(section, dict):
        return frozenset()
    owned: set[JsonPath] = set(placeholders(section, (SECTION,)))
    state = section.get("recovery_state")
    for name in v1_leftovers(section):
        owned.add((SECTION, name))
        if name in MOVED_TO_RECOVERY_STATE and not (isinstance(state, dict) and name in state):
            owned.add((SECTION, "recovery_state", name))
    return frozenset(owned)


@document_check(V1_SECTION, LEFTOVER, CONFLICT, ALIAS, BOTH, EMPTY_VIEW, PLACEHOLDER, kinds=("orchestration",))
def check_document(doc: Document, _config: Config) -> list[Finding]:
    if not isinstance(doc.data, dict):
        return []
    section = doc.data.get(SECTION)
    if not isinstance(section, dict) or not section:
        return []
    if detect_version(section) == "1.0":
        # (finished or archived work is never resumed again: the engine drops the migration hint there)
        return _v1_section(doc, section) + _placeholders(doc, section)
    return _leftovers(doc, section) + _decisions(doc, section) + _empty_view(doc, section) + _placeholders(doc, section)
