"""C009: the ids of one decision log share one prefix (``RD-001`` or a project's own ``DL-001``)."""

from __future__ import annotations

import re

from ctxres.findings import Finding, Severity
from ctxres.formats.document import Document, JsonPath, format_json_path
from ctxres.linters.checking.registry import document_check, register
from ctxres.linters.checking.severity_policy import Case

# `ctxres check` loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ctxres.config import Config

SECTION = "resumption"
LOGS = ("decision_log", "decisions")  # `decisions`: the old name (V004)
_ID = re.compile(r"^([A-Z][A-Z0-9]*)-\d{3,}$")


def prefixes(entries: Any) -> list[tuple[int, str]]:
    """(position, prefix) of every entry whose id is ``PREFIX-NNN`` (pure)."""
    if not isinstance(entries, list):
        return []
    found = []
    for position, entry in enumerate(entries):
        value = entry.get("id") if isinstance(entry, dict) else None
        match = _ID.match(value) if isinstance(value, str) else None
        if match:
            found.append((position, match.group(1)))
    return found


def log_prefix(found: list[tuple[int, str]]) -> str:
    """The prefix the most entries use, the first written on a tie (pure)."""
    order = list(dict.fromkeys(prefix for _, prefix in found))
    return max(order, key=lambda prefix: (sum(1 for _, p in found if p == prefix), -order.index(prefix)))


MIXED_PREFIXES = register(
    "C009",
    "mixed-decision-id-prefixes",
    "One decision log numbers its ids with more than one prefix.",
    Severity.WARNING,
    case=Case.CONVENTION,
    why=(
        "Any `PREFIX-NNN` is a valid id; one prefix per log is the project's convention, and a second one "
        "breaks the sequence a reader follows."
    ),
    explanation="""
    ## Why
    Decision ids are sequential (`RD-001`, `RD-002`, ...) so that a resuming session and a
    checkpoint can name a decision and find it again. Any prefix is fine: a project that numbers
    its decisions `DL-001`, `DL-002`, ... follows its own convention, and nothing is reported.
    A log that mixes prefixes (`DL-001`, `DL-002`, `RD-003`) has two sequences: the next writer
    cannot tell which number comes next, and a search for one prefix misses the other entries.
    Nothing is lost, so it is a warning.

    ## Example
    ```yaml
    resumption:
      decision_log:
        - id: "DL-001"
          decision: "..."
        - id: "RD-002"      # C009: the log's prefix is DL
          decision: "..."
    ```

    ## What is normal
    One prefix throughout, whichever it is. The prefix the most entries use (the first one on a
    tie) is the log's; the finding is on the first entry written with another.

    ## Fix
    Rewrite the odd ids with the log's prefix, keeping the numbers in sequence; update the places
    that cite them (checkpoints, agent summaries).
    """,
)


def _mixed(doc: Document, path: JsonPath, entries: Any) -> list[Finding]:
    found = prefixes(entries)
    if len({prefix for _, prefix in found}) < 2:
        return []
    main = log_prefix(found)
    odd = [(position, prefix) for position, prefix in found if prefix != main]
    where: JsonPath = (*path, odd[0][0], "id")
    ids = ", ".join(str(entries[position]["id"]) for position, _ in odd)
    count = len(found) - len(odd)
    message = (
        f"`{'.'.join(str(part) for part in path)}` numbers its ids with more than one prefix: {count} "
        f"entr{'y' if count == 1 else 'ies'} use `{main}-`, and {ids} "
        f"{'does' if len(odd) == 1 else 'do'} not"
    )
    fix = f"write {'this id' if len(odd) == 1 else 'these ids'} with `{main}-`, keeping the numbers in sequence"
    return [
        Finding(
            doc.path,
            MIXED_PREFIXES.code,
            message,
            MIXED_PREFIXES.severity,
            doc.locate(where),
            format_json_path(where),
            fix,
        )
    ]


@document_check(MIXED_PREFIXES, kinds=("orchestration",))
def check_document(doc: Document, _config: Config) -> list[Finding]:
    if not isinstance(doc.data, dict):
        return []
    section = doc.data.get(SECTION)
    if not isinstance(section, dict):
        return []
    return [f for name in LOGS for f in _mixed(doc, (SECTION, name), section.get(name))]
