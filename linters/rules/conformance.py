"""C rules: every artifact matches its JSON Schema (all errors, each at its line and column)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from functools import cache

from ctxres.artifacts import BY_KIND
from ctxres.config import Config, Option
from ctxres.document import Document, JsonPath, format_json_path
from ctxres.findings import Finding, Severity
from ctxres.linters.checking.registry import Rule, register
from ctxres.linters.rules.compatibility import owned_paths
from ctxres.linters.rules.schema_errors import (
    SEVERAL_MISSING,
    Problem,
    classify,
    collapse_missing,
    collapse_repeats,
    collapse_shapes,
    dedupe,
    expand,
)
from ctxres.linters.rules.schema_validity import compile_validity
from ctxres.resumption import detect_version

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is not imported at run time: about 2 ms of every start
    from typing import Any

    from ctxres.linters.rules.schema_validity import Valid

MISSING = register(
    "C001",
    "missing-key",
    "A required key is missing.",
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

    ## Fix
    Add the key; the message says what it holds. `ctxres schema show NAME` prints the schema.
    """,
)
WRONG_TYPE = register(
    "C002",
    "wrong-type",
    "A value has the wrong type.",
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
    explanation="""
    ## Why
    Enumerated values (`workflow_status`, `trigger`, `confidence`, ...) are compared exactly. A
    near miss such as `COMPLETED` for `COMPLETE` makes a hook treat a finished workflow as
    unknown, and re-inject prompts for it.

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
    explanation="""
    ## Why
    Timestamps must be ISO-8601 (`2026-02-17T12:34:56Z`) so that staleness can be computed, and
    ids follow fixed patterns (`CX-001`, `RD-001`, `cx-001`) so that they can be matched across
    files.

    ## Fix
    Rewrite the value in the expected format (the message shows an example).
    """,
)
OUT_OF_RANGE = register(
    "C005",
    "out-of-range",
    "A number or length is outside its allowed range.",
    explanation="""
    ## Why
    Fills are fractions between 0 and 1; counts are never negative; some lists must not be
    empty. A value outside the range is a unit mistake (64.2 for 0.642) or a bug in the writer.

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
    explanation="""
    ## Why
    Keys outside the schema are ignored by the hooks and by a resuming session that follows the
    protocol. They are often typos (`updated` for `updated_at`) or data that belongs in a
    documented field. Real files carry extra keys for their own tools, so this is a warning.

    ## Fix
    Rename the key when the message suggests a close match; otherwise keep it if another tool
    reads it (silence the warning with `# ctxres: ignore[C006]` on its line) or remove it.
    """,
)
OTHER_SHAPE = register(
    "C007",
    "another-shape",
    "A mapping has another shape than its schema.",
    explanation="""
    ## Why
    When a mapping lacks required keys *and* has keys the schema does not know, it was written to
    another layout (an older draft, another tool). Reported once, with both lists, instead of one
    finding per key.

    ## Example
    ```yaml
    compaction_events:
      count: 0
      timestamps: []        # the protocol records compactions in `events`
      recovery_notes: []
    ```

    ## Fix
    Restructure the mapping to the documented keys (`ctxres schema show NAME`).
    """,
)

REQUIRE_RESUMPTION = Option(
    "require-resumption",
    False,
    "every orchestration file (found by its name) must have a `resumption` section (C008)",
)
NO_SECTION = register(
    "C008",
    "missing-resumption-section",
    "An orchestration file has no `resumption` section (only with `require-resumption = true`).",
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

_RULE_OF_KIND: dict[str, Rule] = {
    "missing": MISSING,
    "type": WRONG_TYPE,
    "value": BAD_VALUE,
    "format": BAD_FORMAT,
    "range": OUT_OF_RANGE,
    "unknown": UNKNOWN_KEY,
    "shape": OTHER_SHAPE,
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
    from ctxres.linters.rules.schema_explaining import explainer, validator_class

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
        found += collapse_missing(collapse_shapes(dedupe(problems_here), name))
    return collapse_repeats(found)


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


def missing_section(doc: Document, config: Config | None) -> list[Finding]:
    """C008: an orchestration file without a `resumption` key, where the project requires one."""
    if config is None or not config.option(REQUIRE_RESUMPTION.name):
        return []
    if doc.kind != "orchestration" or not isinstance(doc.data, dict) or "resumption" in doc.data:
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


def check_document(doc: Document, config: Config | None = None) -> list[Finding]:
    findings = missing_section(doc, config)
    for problem, others in problems(doc):
        rule = _RULE_OF_KIND[problem.kind]
        key_like = problem.kind in ("missing", "unknown", "shape")
        if problem.kind == "missing" and problem.group.startswith(SEVERAL_MISSING):
            position = doc.locate(problem.path, key=True)  # the mapping that misses them
        elif problem.kind == "missing":
            position = doc.locate(problem.path[:-1], key=True) if problem.path[:-1] else doc.locate((), key=True)
        else:
            position = doc.locate(problem.path, key=key_like)
        message = problem.message
        if others:
            message += f" (and {others} more like it)"
        findings.append(
            Finding(doc.path, rule.code, message, rule.severity, position, format_json_path(problem.path), problem.fix)
        )
    return findings
