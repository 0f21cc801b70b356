"""C rules: every artifact matches its JSON Schema (all errors, each at its line and column)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from functools import cache

from ctxres.artifacts import BY_KIND
from ctxres.config import Config, Option
from ctxres.findings import Finding, Severity
from ctxres.formats.document import Document, JsonPath, format_json_path
from ctxres.linters.checking.registry import Rule, document_check, register
from ctxres.linters.checking.severity_policy import Case
from ctxres.linters.rules.compatibility import owned_paths
from ctxres.linters.validation.richer_shapes import VARIANT, VARIANT_BLOCKING, under, variants
from ctxres.linters.validation.schema_errors import (
    SEVERAL_MISSING,
    Problem,
    classify,
    collapse_missing,
    collapse_repeats,
    collapse_shapes,
    dedupe,
    expand,
    subject,
    without_extra_keys,
)
from ctxres.linters.validation.schema_manifest_keys import MISSING_IDENTITY, collapse_manifest_keys
from ctxres.linters.validation.schema_validity import compile_validity
from ctxres.state.resumption import detect_version

# The options of this module's rules, read with `config.value(...)`: the loader checks a configuration against
# their copy, OPTIONS of ctxres/config.py, which `python dev/generate.py --write` makes from them.
REQUIRE_RESUMPTION = Option(
    "require-resumption",
    False,
    "every orchestration file (found by its name) must have a `resumption` section (C008)",
)

# `ctxres check` loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ctxres.linters.validation.schema_validity import Valid

MISSING = register(
    "C001",
    "missing-key",
    "A required key is missing.",
    case=Case.WRONG_RESUMPTION,
    why="A required key is one a resuming session or a hook reads; without it the state is partial.",
    explanation="""
    ## Why
    Every required key is something a resuming session or a hook reads. When it is missing, the
    session re-orients on partial data (for example, without `recovery_state.updated_at` nothing
    can tell whether the section is stale).

    ## Example
    ```yaml
    resumption:
      recovery_state:
        last_checkpoint: "CP-002"
        current_phase: 3
        # updated_at is missing
    ```

    ## One root cause, one error
    A mapping that misses several required keys is one finding that lists them all (a v2.0
    `resumption` section without `quality_trajectory`, `defect_summary`, `agent_summaries` and
    `compaction_events` is one error, not four): the cause is one unfinished section. A mapping
    that misses keys *and* carries unexpected ones has another shape (C007), reported once too.

    ## Nexus manifests written before the versioned format
    A `resume-context.md` whose front matter misses several keys is one finding that lists every
    one (the version's `resume_schema_version`/`resume_version` included); its own keys beside
    them are silent. It is an error when `current_phase`, `next_action`, `files_to_load` or
    `last_updated` is among them: SessionStart cannot tell what to load. A manifest that misses
    only its version or its project's id or name is an old version of the format, and the
    folder still names the project: a **warning**.

    ## Fix
    Add the key; the message says what it holds. `ctxres schema show NAME` prints the schema.
    """,
)
WRONG_TYPE = register(
    "C002",
    "wrong-type",
    "A value has the wrong type.",
    case=Case.TOOL_JOB,
    why="The hooks read these values as data; a value of another type is misread or ignored.",
    explanation="""
    ## Why
    Hooks and resuming sessions read these values as data: a phase number written as a string,
    or a list written as a mapping, is misread or ignored.

    ## Example
    ```yaml
    recovery_state:
      current_phase: "PHASE-3"   # expected the phase number: 3
    ```

    ## Fix
    Write the value with the expected type (the message names it).
    """,
)
BAD_VALUE = register(
    "C003",
    "invalid-value",
    "A value is not one of the allowed values.",
    case=Case.TOOL_JOB,
    why="Enumerated values are compared exactly; another value makes a hook take the state as unknown.",
    explanation="""
    ## Why
    Enumerated values (`workflow_status`, `trigger`, `confidence`, ...) are compared exactly. A
    near miss such as `COMPLETED` for `COMPLETE` makes a hook treat a finished workflow as
    unknown, and re-inject prompts for it.

    ## Example
    ```yaml
    resumption:
      recovery_state:
        workflow_status: "COMPLETED"   # the allowed value is COMPLETE
    ```

    ## What is normal
    A finished Nexus project or build writes `current_phase: complete` in its `resume-context.md`
    (any case, or `completed`): that is the normal end state, not an invalid phase.

    ## Fix
    Use one of the listed values; the message suggests the closest one.
    """,
)
BAD_FORMAT = register(
    "C004",
    "invalid-format",
    "A value does not have the required format.",
    case=Case.TOOL_JOB,
    why="Times are compared to find staleness and ids matched across files; another format breaks both.",
    explanation="""
    ## Why
    Timestamps must be ISO-8601 (`2026-02-17T12:34:56Z`) so that staleness can be computed, and
    ids follow fixed patterns (`CX-001`, `cx-001`) so that they can be matched across files.
    Decision ids are `PREFIX-NNN`: `RD-001` or the project's own prefix (`DL-001`), one per log
    (C009).

    ## Example
    ```yaml
    resumption:
      recovery_state:
        updated_at: "yesterday afternoon"   # not an ISO-8601 time
      decision_log:
        - id: "DEC-1"                        # not PREFIX-NNN
    ```

    ## Fix
    Rewrite the value in the expected format (the message shows an example).
    """,
)
OUT_OF_RANGE = register(
    "C005",
    "out-of-range",
    "A number or length is outside its allowed range.",
    case=Case.WRONG_RESUMPTION,
    why=(
        "A value outside its range is a unit mistake or a writer's bug: the resuming session reads a "
        "wrong fill or count."
    ),
    explanation="""
    ## Why
    Fills are fractions between 0 and 1; counts are never negative; some lists must not be
    empty. A value outside the range is a unit mistake (64.2 for 0.642) or a bug in the writer.

    ## Example
    ```yaml
    resumption:
      recovery_state:
        context_fill_at_update: 64.2   # a percentage: the fill is 0.642
      defect_summary:
        total_defects_found: -1        # a count below 0
    ```

    ## What is normal
    A finished Nexus project (`current_phase: complete`) has nothing left to load: its
    `files_to_load` may be empty. An unfinished project with an empty `files_to_load` is still
    reported, because a resuming session would have nothing to read.

    ## Fix
    Correct the value; for fills, divide a percentage by 100.
    """,
)
UNKNOWN_KEY = register(
    "C006",
    "unknown-key",
    "A key is not part of the schema.",
    Severity.WARNING,
    case=Case.SAME_FACTS,
    why=(
        "Only a near miss of a known key is reported: the same fact under another spelling, which the "
        "hooks do not read. A project's own keys are silent."
    ),
    explanation="""
    ## Why
    Keys outside the schema are ignored by the hooks and by a resuming session that follows the
    protocol. A key that is a near miss of a documented key the mapping lacks (`updated` for
    `updated_at`, `next_setp` for `next_step`) is probably that key misspelled: its value is
    never read, so it is reported, as a warning.

    ## Example
    ```yaml
    resumption:
      last_checkpoint: "CP-005"
      current_state: "Workflow COMPLETE."
      next_step: "None: workflow finished."
      files_to_read: []
      cross_session_portabel: true   # a near miss of cross_session_portable, which the section lacks
    ```

    ## What is normal
    Real files carry their own keys for their own tools and readers (`disclaimer`,
    `phase_1_summary`, `overall_progress`): a key that is no near miss of a missing documented
    key is **silent**. Beside missing required keys it still shows that the mapping has another
    shape (C007).

    ## Fix
    Rename the key to the one the message suggests; if it really is another key of your own,
    silence the warning with `# ctxres: ignore[C006]` on its line.
    """,
)
OTHER_SHAPE = register(
    "C007",
    "another-shape",
    "A mapping has another shape than its schema.",
    case=Case.WRONG_RESUMPTION,
    why=(
        "A required part is missing and replaced by something no hook reads. Sub-sections written in a "
        "richer but complete shape are warnings, with the mapping."
    ),
    explanation="""
    ## Why
    When a mapping lacks required keys *and* has keys the schema does not know, it was written to
    another layout (an older draft, another tool). Reported once, with both lists, instead of one
    finding per key.

    ## Example
    ```yaml
    resumption:
      recovery_state: {...}
      key_artifacts_to_read: ["PLAN.md"]   # the protocol lists them in `files_to_read`
    ```

    ## Fix
    Restructure the mapping to the documented keys (`ctxres schema show NAME`).

    ## Richer shapes real projects write: one warning per sub-section
    Some v2.0 sub-sections are written in a richer shape that still carries every fact. Each is
    reported once, for the sub-section, with the mapping to the documented keys, as a
    **warning**:

    - `quality_trajectory`: `gates_completed` as mappings with `id`/`score`/`iterations`
      (`gates_completed[*].id` -> `gates_completed`, their scores -> `score_history.<gate>`), or
      `score_history.<gate>` as a mapping with an `iterations` list;
    - `defect_summary`: `total_defects`/`resolved_defects`/`open_defects` for
      `total_defects_found`/`total_defects_resolved`/`unresolved_defects`;
    - `compaction_events`: `timestamps` (+ `recovery_notes`) instead of `count` and `events`
      (`ctxres ack` adds `events` beside them);
    - decision entries without an `id`.

    A compaction event written as documented but without its `id` stays an **error**:
    `ctxres ack` matches a checkpoint file to its event by id. A layout that is none of these
    (the keys of another tool) is an error too, reported as above.
    """,
)


_RULE_OF_KIND: dict[str, Rule] = {
    "missing": MISSING,
    MISSING_IDENTITY: MISSING,
    "type": WRONG_TYPE,
    "value": BAD_VALUE,
    "format": BAD_FORMAT,
    "range": OUT_OF_RANGE,
    "unknown": UNKNOWN_KEY,
    "shape": OTHER_SHAPE,
    VARIANT: OTHER_SHAPE,
    VARIANT_BLOCKING: OTHER_SHAPE,
}


def schema_text(name: str) -> str:
    """The checked-in JSON Schema file ``name.schema.json`` (the linters never import pydantic): read
    beside the package's ``__init__.py`` (``importlib.resources``, which imports ``tempfile``, ``shutil``
    and ``random``, costs every check 2 ms of start-up), through it when the package is not a folder."""
    from ctxres import schemas

    if schemas.__file__ is not None:
        try:
            with open(os.path.join(os.path.dirname(schemas.__file__), f"{name}.schema.json"), encoding="utf-8") as file:
                return file.read()
        except FileNotFoundError:
            pass
    from importlib import resources

    return (resources.files("ctxres.schemas") / f"{name}.schema.json").read_text("utf-8")


@cache
def schema(name: str) -> Any:
    return json.loads(schema_text(name))


_PARTS: dict[int, Valid] = {}  # the compiled predicate of each subschema of the schemas, by id


@cache
def validator(name: str) -> Any:
    """What explains why a value is not valid against schema ``name`` (made only for such a value): jsonschema's
    errors, found without jsonschema for the schemas ctxres ships, else by jsonschema (imported then); both skip
    the parts of a value that are valid (schema_explaining)."""
    from ctxres.linters.validation.schema_explaining import explainer, validator_class

    validity(name)  # its parts compiled first
    return explainer(schema(name), _PARTS) or validator_class(_PARTS)(schema(name))


@cache
def validity(name: str) -> Valid:
    """Whether a value is valid against schema ``name``: compiled (schema_validity), or jsonschema's answer."""
    compiled = compile_validity(schema(name), _PARTS)
    if compiled is not None:
        return compiled
    from jsonschema import Draft202012Validator

    plain = Draft202012Validator(schema(name))
    return lambda value: not any(True for _ in plain.iter_errors(value))


def targets(doc: Document) -> Iterator[tuple[str, JsonPath, Any]]:
    """(schema name, where in the file, value) for each part of a document that has a schema: the
    kind's schemas in the artifact catalog (``ctxres.artifacts.CATALOG``); a kind with several picks
    one per document (the resumption version, the checkpoint layout) or validates each line."""
    entry = BY_KIND.get(doc.kind)
    schemas = entry.schemas if entry is not None else (doc.kind,)
    if not schemas:
        return  # no schema (a Markdown rule file: the R rules read the markers)
    data = doc.data
    if doc.kind == "orchestration":
        v1, v2, whole_file = schemas
        if not isinstance(data, dict):
            yield whole_file, (), data
            return
        if "resumption" in data and data["resumption"] is not None:
            version = detect_version(data["resumption"])
            yield (v2 if version == "2.0" else v1), ("resumption",), data["resumption"]
    elif doc.kind == "checkpoint":
        seed, peer = schemas
        is_peer = isinstance(data, dict) and "checkpoint_id" in data and "event_id" not in data
        yield (peer if is_peer else seed), (), data
    elif doc.kind == "event-log":
        for index, item in enumerate(data or []):
            yield schemas[0], (index,), item
    elif doc.kind in ("resume-context", "build-manifest") and data is None:
        yield schemas[0], (), {}
    else:
        yield schemas[0], (), data


def problems(doc: Document) -> list[tuple[Problem, int]]:
    """Every schema problem of the document, shapes and repeats collapsed."""
    found: list[Problem] = []
    owned: frozenset[JsonPath] | None = None
    for name, base, value in targets(doc):
        if validity(name)(value):
            continue  # no error: jsonschema is asked only to explain a value that is not valid
        if owned is None:  # worked out for a document with a problem only
            owned = _owned(doc)
        leaves = [leaf for error in validator(name).iter_errors(value) for leaf in expand(error)]
        problems_here = [p for leaf in leaves for p in classify(leaf, base) if p.path not in owned]
        problems_here, recognised = _richer_shapes(name, value, problems_here)
        problems_here = collapse_manifest_keys(dedupe(problems_here), name)
        found += without_extra_keys(collapse_missing(collapse_shapes(problems_here, name))) + recognised
    return collapse_repeats(found)


_V2 = "resumption-v2"


def _richer_shapes(name: str, value: Any, found: list[Problem]) -> tuple[list[Problem], list[Problem]]:
    """A v2.0 sub-section in a recognised richer shape is one problem with its mapping, in place of the
    schema problems under it (one cause, one finding)."""
    if name != _V2:
        return found, []
    recognised = variants(value)
    if not recognised:
        return found, []
    kept = [p for p in found if not any(under(p.path, v.path) for v in recognised)]
    shapes = []
    for variant in recognised:
        where = subject(variant.path)
        if variant.blocking:
            message = f"{where} has another shape ({variant.what}): {variant.blocking}"
        else:
            message = f"{where} carries its facts in another shape ({variant.what}): " + "; ".join(variant.mapping)
        fix = "write it as documented: " + "; ".join(variant.mapping) + f" (`ctxres schema show {_V2}`)"
        kind = VARIANT_BLOCKING if variant.blocking else VARIANT
        shapes.append(Problem(kind, variant.path, message, fix=fix, group=variant.what))
    return kept, shapes


def _owned(doc: Document) -> frozenset[JsonPath]:
    """Where another rule reports what the schema would also flag, with the advice that fits it: keys the
    compatibility rules report (v1 fields left in a v2 section, migrate placeholders) are theirs, one
    finding per problem; a nested (non-FLAT) state is N004's."""
    if doc.kind == "orchestration":
        return owned_paths(doc.data)
    if doc.kind == "precompact-state":
        from ctxres.linters.rules.nexus import owned_paths as nexus_owned

        return nexus_owned(doc)
    return frozenset()


NO_SECTION = register(
    "C008",
    "missing-resumption-section",
    "An orchestration file has no `resumption` section (only with `require-resumption = true`).",
    case=Case.WRONG_RESUMPTION,
    why="With `require-resumption = true`, a workflow without its section cannot be resumed.",
    explanation="""
    ## Why
    A workflow file without a `resumption` section gives a session resuming after a compaction
    nothing to re-orient on: no recovery state, no last checkpoint, no next step. Projects that
    adopt the resumption protocol for every workflow can make its absence an error.

    ## What is normal
    Off by default: a workflow written before the project adopted the protocol, or a project that
    keeps resumption state elsewhere, is not reported. A file that only matched by content
    (a YAML file with a top-level `resumption:` key) always has the section.

    ## Example
    ```toml
    [tool.ctxres]
    require-resumption = true
    ```
    ```yaml
    # projects/PROJ-007/ORCHESTRATION.yaml: a workflow with phases and no `resumption:` key
    workflow:
      status: ACTIVE
    ```

    ## Fix
    Add a `resumption:` section at the top level (`ctxres schema show resumption-v2` prints its
    schema), or turn the setting off for files that should not have one
    (`per-file-ignores = { "legacy/**" = ["C008"] }`).
    """,
    options=(REQUIRE_RESUMPTION,),
)


@document_check(NO_SECTION, kinds=("orchestration",))
def missing_section(doc: Document, config: Config) -> list[Finding]:
    """C008: an orchestration file without a `resumption` key, where the project requires one."""
    if not config.value(REQUIRE_RESUMPTION):
        return []
    if not isinstance(doc.data, dict) or "resumption" in doc.data:
        return []
    return [
        Finding(
            doc.path,
            NO_SECTION.code,
            "this orchestration file has no `resumption` section, and the project requires one "
            "(`require-resumption = true`)",
            NO_SECTION.severity,
            doc.locate((), key=True),
            "",
            "add a top-level `resumption:` section (`ctxres schema show resumption-v2` prints its schema)",
        )
    ]


@document_check(MISSING, WRONG_TYPE, BAD_VALUE, BAD_FORMAT, OUT_OF_RANGE, UNKNOWN_KEY, OTHER_SHAPE, kinds=None)
def check_document(doc: Document, _config: Config) -> list[Finding]:
    findings: list[Finding] = []
    for problem, others in problems(doc):
        rule = _RULE_OF_KIND[problem.kind]
        key_like = problem.kind in ("missing", MISSING_IDENTITY, "unknown", "shape", VARIANT, VARIANT_BLOCKING)
        if problem.kind in ("missing", MISSING_IDENTITY) and problem.group.startswith(SEVERAL_MISSING):
            position = doc.locate(problem.path, key=True)  # the mapping that misses them
        elif problem.kind == "missing":
            position = doc.locate(problem.path[:-1], key=True) if problem.path[:-1] else doc.locate((), key=True)
        else:
            position = doc.locate(problem.path, key=key_like)
        message = problem.message
        if others:
            message += f" (and {others} more like it)"
        findings.append(
            Finding(
                doc.path,
                rule.code,
                message,
                _severity(problem, rule),
                position,
                format_json_path(problem.path),
                problem.fix,
            )
        )
    return findings


def _severity(problem: Problem, rule: Rule) -> Severity:
    """A recognised richer shape that carries every fact is a warning (the same facts, another shape); so is a
    manifest that misses only its version or its project's id or name (an old version of the format)."""
    return Severity.WARNING if problem.kind in (VARIANT, MISSING_IDENTITY) else rule.severity
