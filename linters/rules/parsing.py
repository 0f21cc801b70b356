"""P rules: a file that cannot be read, or is read with a problem."""

from __future__ import annotations

from ctxres.findings import Finding, Severity
from ctxres.formats.document import format_json_path
from ctxres.formats.loading import IssueKind, LoadIssue
from ctxres.linters.checking.registry import register
from ctxres.linters.checking.severity_policy import Case

SYNTAX = register(
    "P001",
    "syntax-error",
    "The file is not valid YAML, JSON or JSON Lines.",
    case=Case.TOOL_JOB,
    why="No hook and no resuming session can read the file.",
    explanation="""
    ## Why
    A file that does not parse cannot be read by a resuming session or by the hooks: the
    workflow silently loses its recovery state.

    ## Example
    ```yaml
    resumption:
      next_step: "Run QG-2"
       files_to_read: []      # indented one space too far
    ```

    ## Fix
    Correct the syntax at the reported line and column. For JSON Lines event logs the bad line is
    reported and skipped; the other lines are still checked.
    """,
)
DUPLICATE = register(
    "P002",
    "duplicate-key",
    "A key appears twice in the same mapping.",
    case=Case.CONTRADICTION,
    why="Two values for one key: YAML readers keep the last one silently.",
    explanation="""
    ## Why
    YAML and JSON parsers keep only the last value of a repeated key, without a word. Whatever
    the first occurrence said is lost, and a reader of the file sees two different values.

    ## Example
    ```yaml
    resumption:
      next_step: "Run QG-2"
      files_to_read: []
      next_step: "Run QG-3"   # the first next_step is lost
    ```

    ## Fix
    Keep one occurrence and merge the values.
    """,
)
ENCODING = register(
    "P003",
    "not-utf8",
    "The file is not valid UTF-8 text.",
    case=Case.TOOL_JOB,
    why="The hooks read state files as UTF-8 text and cannot read this one.",
    explanation="""
    ## Why
    Claude Code, the hooks and the YAML and JSON parsers all read UTF-8. A file saved in another
    encoding is read as garbage or not at all.

    ## Example
    An `ORCHESTRATION.yaml` saved in Latin-1: `é` is the byte `0xE9`, which is no UTF-8.

    ## Fix
    Re-save the file as UTF-8 (the reported position is the first byte that is not UTF-8).

    The file is not checked by the other rules, but it is still scanned for credentials (X001, up
    to `max-file-size` bytes): a key written into a broken file is leaked all the same.
    """,
)
BINARY = register(
    "P004",
    "binary-file",
    "The file is binary, not text.",
    case=Case.TOOL_JOB,
    why="A binary file cannot be read as a state file by any hook.",
    explanation="""
    ## Why
    The file contains NUL bytes, so it is not the text artifact its name says it is (a wrong
    file copied into place, or a corrupted write).

    ## Example
    A `cx-001.json` whose text is cut by NUL bytes: `{"checkpoint_id": "cx-001"\\0\\0\\0}`.

    ## Fix
    Restore the file from version control or re-create it.

    The file is not checked by the other rules, but it is still scanned for credentials (X001, up
    to `max-file-size` bytes): a key written into a broken file is leaked all the same.
    """,
)
TOO_LARGE = register(
    "P005",
    "file-too-large",
    "The file is larger than the configured size limit.",
    case=Case.TOOL_JOB,
    why="The hooks refuse files above the size limit, so the state is never read.",
    explanation="""
    ## Why
    Resumption artifacts are small by design (a checkpoint is a few kilobytes). A very large file
    is a mistake (an accidental dump) and would make every hook slow, so it is not read.

    ## Example
    With `max-file-size = 200` in `.ctxres.toml`, an `ORCHESTRATION.yaml` of 332 bytes.

    ## Fix
    Shrink the file. If it really must be this large, raise `max-file-size` (bytes) in
    `[tool.ctxres]`.

    The file is not checked by the other rules, but it is still scanned for credentials (X001, up
    to `max-file-size` bytes): a key written into a broken file is leaked all the same.
    """,
)
LIMIT = register(
    "P006",
    "resource-limit",
    "The document expands too much through aliases, or nests too deeply.",
    case=Case.TOOL_JOB,
    why="The hooks refuse documents that expand too much, so the state is never read.",
    explanation="""
    ## Why
    YAML aliases can make a tiny file expand into billions of values (the "billion laughs"
    attack), and very deep nesting exhausts the parser. ctxres refuses such a file quickly rather
    than hang or run out of memory.

    ## Example
    ```yaml
    a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]
    b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]
    c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]
    # ... and so on to i: nine levels are 387,420,489 values
    resumption: *i
    ```

    ## Fix
    Replace the aliases by plain values, or flatten the nesting.
    """,
)
NON_STRING_KEY = register(
    "P007",
    "non-string-key",
    "A YAML key is read as a number, boolean or date.",
    Severity.WARNING,
    case=Case.SAME_FACTS,
    why='`1:` and `"1":` carry the same fact; only a reader that looks the key up as text misses it.',
    explanation="""
    ## Why
    YAML reads unquoted keys such as `yes`, `on`, `1` or `2026-01-01` as booleans, numbers or
    dates. JSON Schema only has string keys, so the key does not mean what it looks like.

    Only keys where the schema expects a string are reported: the keys of a mapping the schema
    describes (its known keys, an agent id in `agent_summaries`, a gate id in `score_history`).
    A project's own mapping (`phase_notes: {1: ...}`) is read by nobody but the project: silent.

    ## Example
    ```yaml
    resumption:
      quality_trajectory:
        score_history:
          1: [0.91]       # the number 1, not the gate id "1"
      agent_summaries:
        yes: "PASS."      # the boolean true, not the agent id "yes"
    ```

    ## Fix
    Quote the key: `"yes": ...`.
    """,
)
NO_FRONT_MATTER = register(
    "P008",
    "missing-front-matter",
    "A Markdown manifest has no YAML front matter.",
    case=Case.TOOL_JOB,
    why="SessionStart reads a resume manifest from its front matter: without one it loads nothing.",
    explanation="""
    ## Why
    `resume-context.md` is a loading manifest: its YAML front matter (between two `---` lines
    at the very top of the file) is what the SessionStart hook reads. Without it nothing is
    loaded on resume.

    ## Example
    ```markdown
    # Resume context

    No front matter here.
    ```

    ## Fix
    Start the file with a `---` line, the manifest fields, and another `---` line.
    """,
)
UNREADABLE = register(
    "P009",
    "unreadable-file",
    "The file cannot be opened or read.",
    case=Case.TOOL_JOB,
    why="A file that cannot be opened cannot be read by any hook.",
    explanation="""
    ## Why
    A permission problem or a broken symbolic link keeps the file from being read, so nothing in
    it can be checked, and a resuming session cannot read it either.

    ## Example
    An `ORCHESTRATION.yaml` that the user running the check may not read (`chmod 000`), or a
    symbolic link to a file that is gone.

    ## Fix
    Fix the permissions or the link, or exclude the path in `[tool.ctxres]` `extend-exclude`.
    """,
)

# The findings that mean "this file could not be read": such a file hides every finding it would have, so
# they are never recorded in a baseline, and the baseline entries of the file are neither fixed nor new
# while it cannot be read (``ctxres.linters.checking.baseline``).
UNREAD_CODES = frozenset(rule.code for rule in (SYNTAX, ENCODING, BINARY, TOO_LARGE, LIMIT, UNREADABLE))

_BY_KIND = {
    IssueKind.SYNTAX: SYNTAX,
    IssueKind.DUPLICATE_KEY: DUPLICATE,
    IssueKind.ENCODING: ENCODING,
    IssueKind.BINARY: BINARY,
    IssueKind.TOO_LARGE: TOO_LARGE,
    IssueKind.LIMIT: LIMIT,
    IssueKind.NON_STRING_KEY: NON_STRING_KEY,
    IssueKind.NO_FRONT_MATTER: NO_FRONT_MATTER,
    IssueKind.UNREADABLE: UNREADABLE,
}


def findings_for(path: str, issues: list[LoadIssue]) -> list[Finding]:
    """One finding per load issue."""
    return [
        Finding(
            path,
            _BY_KIND[issue.kind].code,
            issue.message,
            _BY_KIND[issue.kind].severity,
            issue.position,
            format_json_path(issue.json_path) if issue.json_path else "",
            issue.fix,
        )
        for issue in issues
    ]
