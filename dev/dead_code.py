"""The dead-code check of ``nox -s lint``: vulture over the package and the development folders, less
what vulture cannot see being used.

Run it from the repository root with vulture installed (``python dev/dead_code.py``): it prints one line per
function, class, method, constant or attribute that nothing uses, and exits 1 when there is one. Remove
the code (and the tests that test only it); add a name to ``ALLOWED`` only when something outside
Python's own name lookups uses it, and say what.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

from vulture import Vulture

ROOT = Path(__file__).resolve().parent.parent
PATHS = ("ctxres", "linters", "hooks", "schemas", "bench", "e2e", "browser", "dev")
"""The package's rooms and the development folders whose code runs outside pytest (tests/ and fuzz/
are left out: their test functions are found by pytest, and a name used only by a test is dead)."""
MIN_CONFIDENCE = 60
"""vulture's default: unused functions, classes, methods, constants and attributes (60%) as well as
unused imports (90%), arguments and unreachable code (100%)."""

ALLOWED: dict[str, str] = {
    # Called or read by a library, by the name the library gives them.
    "check_printable": "PyYAML's Reader calls it; ctxres.formats.yamlpos's loader overrides it to skip the check",
    "indentless": "a parameter of PyYAML's Emitter.increase_indent, which init's dumper overrides",
    "traceback": "a parameter of __exit__ (the context-manager protocol)",
    "exc_type": "a parameter of __exit__ (the context-manager protocol)",
    "tb": "a parameter of __exit__ (the context-manager protocol)",
    "daemon_threads": "read by socketserver.ThreadingMixIn (e2e's stand-in API server)",
    "protocol_version": "read by http.server.BaseHTTPRequestHandler (e2e's stand-in API server)",
    "close_connection": "read by http.server.BaseHTTPRequestHandler (e2e's stand-in API server)",
    "log_message": "called by http.server.BaseHTTPRequestHandler; overridden to keep the server quiet",
    "do_GET": "called by http.server.BaseHTTPRequestHandler for each GET request",
    "do_HEAD": "called by http.server.BaseHTTPRequestHandler for each HEAD request",
    "do_POST": "called by http.server.BaseHTTPRequestHandler for each POST request",
    "__class_getitem__": "Python calls it for `Generic[T]` in the bases of ctxres.config.Option",
    # Read by the tests, which hold the code or a document to them.
    "TIERS": "the tests hold ctxres.tiers to the monitor-state schema's FillTier with it",
    "TRIGGERS": "the resumption update protocol as data; the tests hold its bundled document to it",
    "settled": "the tests show with it that positions are found without building them all",
    "pieces_parsed": "counts the parser's work; the tests show with it that unchanged history is not re-parsed",
    "cut_as_before": "counts the parser's work; the tests show with it that a version is cut as the one before",
    "absolute_schema_path": "as jsonschema's ValidationError has it; the tests compare the two errors field by field",
    # The hook-event models by event: the tests validate payloads and answers with them, and compare
    # their events with ctxres.hook_events.
    "HOOK_INPUT_MODELS": "the tests validate each event's payload with it",
    "HOOK_OUTPUT_MODELS": "the tests validate each event's answer with it",
}
"""Names vulture reports as unused, and what uses them."""

DECORATORS = ("@field_validator", "@model_validator", "@document_check", "@section_check", "@workspace_check")
"""Pydantic calls the functions the first two decorate when it validates a model; the engine calls the rule
checks the others declare (ctxres.linters.checking.registry)."""

DISPATCHED: dict[str, tuple[str, str]] = {
    "linters/validation/schema_validity.py": (
        "method",
        "the check of each JSON Schema keyword is found by getattr(self, '_' + keyword)",
    ),
    "schemas/hook_io.py": (
        "class",
        "each event's <Event>Input and <Event>Output model is found by name from ctxres.hook_events.HOOK_EVENTS",
    ),
}
"""Files whose methods or classes (the first item) are found by name at run time: their unused-method or
unused-class reports are dropped."""

MODELS = "schemas"
"""The pydantic models and enums of the state files: a class-level name there is a field or a member
that pydantic reads (validation, the JSON Schemas), whether or not Python code reads it by name."""


def class_level_lines(path: Path) -> set[int]:
    """The lines of the names assigned directly in a class body of ``path`` (fields, enum members)."""
    lines: set[int] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.ClassDef):
            lines.update(item.lineno for item in node.body if isinstance(item, (ast.Assign, ast.AnnAssign)))
    return lines


def unused(root: Path = ROOT) -> list[str]:
    """What nothing uses, one vulture report line each (paths relative to ``root``)."""
    scanner = Vulture(ignore_names=list(ALLOWED), ignore_decorators=list(DECORATORS))
    scanner.scavenge([str(root / path) for path in PATHS])
    fields: dict[Path, set[int]] = {}
    reports = []
    for item in scanner.get_unused_code(min_confidence=MIN_CONFIDENCE):
        path = Path(item.filename).resolve()
        relative = path.relative_to(root).as_posix()
        if relative in DISPATCHED and item.typ == DISPATCHED[relative][0]:
            continue
        if item.typ == "variable" and relative.startswith(MODELS + "/"):
            if path not in fields:
                fields[path] = class_level_lines(path)
            if item.first_lineno in fields[path]:
                continue
        reports.append(f"{relative}:{item.first_lineno}: {item.message} ({item.confidence}% confidence)")
    return reports


def main() -> int:
    reports = unused()
    for report in reports:
        print(report)
    if reports:
        print(f"dead_code: {len(reports)} unused; remove it, or allow it in dev/dead_code.py saying what uses it")
    return 1 if reports else 0


if __name__ == "__main__":
    sys.exit(main())
