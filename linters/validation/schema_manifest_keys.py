"""The keys a Nexus manifest misses, as one problem (a manifest written before the versioned format).

A manifest written before the format had a version often misses several keys at once: the version,
the project's id, sometimes what a resuming session loads. Each is one cause, so they are one
problem listing every missing key, never "and 1 more like it". Its severity follows the keys:
without ``current_phase``, ``next_action``, ``files_to_load`` or ``last_updated`` SessionStart cannot
resume the project (an error); a missing version or project id or name is an old version of the
format, the folder still names the project (a warning).
"""

from __future__ import annotations

from ctxres.linters.validation.schema_errors import SEVERAL_MISSING, Problem

MANIFESTS = ("resume-context", "build-manifest")
VERSION_KEYS = ("resume_schema_version", "resume_version")
# Keys whose absence is an old version of the format, not a state that cannot be resumed.
IDENTITY_KEYS = frozenset({*VERSION_KEYS, "project_id", "project_name", "build_name"})
MISSING_IDENTITY = "missing-identity"  # a problem kind: C001, reported as a warning

_ADD = {
    "resume_schema_version": '`resume_schema_version: "1.0"`',
    "project_id": "`project_id` (the project folder's name, `NN-kebab-case`)",
    "project_name": "`project_name`",
    "last_updated": "`last_updated` (an ISO-8601 time)",
    "current_phase": "`current_phase`",
    "next_action": "`next_action` (the skill to run on resume)",
    "files_to_load": "`files_to_load` (the files a resuming session reads)",
}


def collapse_manifest_keys(problems: list[Problem], schema_name: str) -> list[Problem]:
    """The top-level keys a manifest misses (the version's either-or included) as one problem."""
    if schema_name not in MANIFESTS:
        return problems
    missing = [p for p in problems if p.kind == "missing" and _top_level(p)]
    names = [_name(p) for p in missing]
    identity = all(n in IDENTITY_KEYS for n in names)
    if not missing or (len(missing) == 1 and not identity):
        return problems
    kind = MISSING_IDENTITY if identity else "missing"
    listed = ", ".join(f"`{n}`" for n in names)
    lead = "this manifest was written before the versioned format" if VERSION_KEYS[0] in names else "this manifest"
    message = f"{lead}: it misses {len(names)} key{'s' if len(names) != 1 else ''}: {listed}"
    if identity:
        message += "; what a resuming session loads is there"
    else:
        blocking = [n for n in names if n not in IDENTITY_KEYS]
        quoted = [f"`{n}`" for n in blocking]
        listed_blocking = quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " or " + quoted[-1]
        message += f"; without {listed_blocking} a resuming session cannot load it"
    fix = "add " + ", ".join(_ADD.get(n, f"`{n}`") for n in names)
    combined = Problem(kind, (), message, fix=fix, group=SEVERAL_MISSING + "|".join(names))
    dropped = {id(p) for p in missing}
    return [p for p in problems if id(p) not in dropped] + [combined]


def _top_level(problem: Problem) -> bool:
    return len(problem.path) == 1 or (problem.path == () and problem.group == "anyOf-required")


def _name(problem: Problem) -> str:
    return VERSION_KEYS[0] if problem.group == "anyOf-required" else str(problem.path[-1])
