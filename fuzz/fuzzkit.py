"""What the fuzz targets share: the hypothesis settings, the corpus, mutation strategies, workspaces.

Every target runs ``CTXRES_FUZZ_EXAMPLES`` cases (default 10,000) from the seed ``CTXRES_FUZZ_SEED``
(default 0) without an example database, so the same two values replay the same cases.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from hypothesis import HealthCheck, seed, settings
from hypothesis import strategies as st
from hypothesis.internal.conjecture import engine as _engine

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
CORPUS = FIXTURES / "corpus"
SCHEMAS = ROOT / "schemas"
NOW = "2026-02-17T12:00:00Z"


def _env_int(name: str, default: int) -> int:
    value = os.environ.get(name, "").strip()
    if not value:
        return default
    try:
        return int(value)
    except ValueError:
        raise SystemExit(f"{name} must be an integer, not {value!r}") from None


EXAMPLES = max(1, _env_int("CTXRES_FUZZ_EXAMPLES", 10_000))
SEED = _env_int("CTXRES_FUZZ_SEED", 0)

F = TypeVar("F", bound=Callable[..., Any])

# Hypothesis keeps the results of the last 10,000 cases of a target in memory (to skip duplicates
# and to shrink), and with them every value they drew: with payloads and files of hundreds of
# kilobytes, 10,000 cases held 15 GB. A few hundred is plenty for both purposes.
_engine.CACHE_SIZE = min(getattr(_engine, "CACHE_SIZE", 200), 200)


def fuzz_target(examples: int | None = None) -> Callable[[F], F]:
    """Hypothesis settings for one target: ``examples`` cases (default ``CTXRES_FUZZ_EXAMPLES``), seeded
    with ``CTXRES_FUZZ_SEED``, no database (nothing from an earlier run is replayed), no deadline.

    Health checks suppressed, and why: ``too_slow`` / ``data_too_large`` / ``large_base_example`` because
    the inputs are deliberately large (corpus files of 100 KB, strings of megabytes); ``filter_too_much``
    because a few strategies draw valid-looking shapes by rejection.
    """

    def decorate(test: F) -> F:
        configured = settings(
            max_examples=examples or EXAMPLES,
            deadline=None,
            database=None,
            derandomize=False,  # the seed decides, not the test's source code
            print_blob=False,
            suppress_health_check=[
                HealthCheck.too_slow,
                HealthCheck.data_too_large,
                HealthCheck.large_base_example,
                HealthCheck.filter_too_much,
            ],
        )(test)
        seeded: F = seed(SEED)(configured)
        return seeded

    return decorate


# --------------------------------------------------------------------------- running in-process


@contextlib.contextmanager
def captured() -> Iterator[tuple[io.StringIO, io.StringIO]]:
    """Capture ``sys.stdout`` and ``sys.stderr`` (the CLI and the hooks write to them)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        yield out, err


def cli(args: list[str]) -> tuple[int, str, str]:
    """``ctxres ARGS`` in-process: (exit code, stdout, stderr)."""
    from ctxres.linters.cli import main

    with captured() as (out, err):
        try:
            code = main(args)
        except SystemExit as exc:  # argparse usage errors
            code = exc.code if isinstance(exc.code, int) else 2
    return code, out.getvalue(), err.getvalue()


INTERNAL_ERROR = "internal error"
HANG_SECONDS = 120


class Hang(Exception):
    """One case ran longer than :data:`HANG_SECONDS` (a hang guard, not a timing assertion)."""


@contextlib.contextmanager
def hang_guard(seconds: int = HANG_SECONDS) -> Iterator[None]:
    """Fail the case instead of hanging the run when the code under test does not terminate."""
    import signal

    def expired(signum: int, frame: object) -> None:
        raise Hang(f"the case did not finish within {seconds} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


# --------------------------------------------------------------------------- workspaces


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` (relative POSIX path -> bytes)."""
    files: dict[str, bytes] = {}
    for folder, _dirs, names in os.walk(root):
        for name in names:
            path = Path(folder) / name
            files[path.relative_to(root).as_posix()] = path.read_bytes()
    return files


class Workspace:
    """A temporary project and the bytes of its files before any case ran (to restore after each)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.files = snapshot(root)


def restore(root: Path, files: dict[str, bytes]) -> None:
    """Make the tree under ``root`` hold exactly ``files`` again (cheap when little changed)."""
    for folder, dirs, names in os.walk(root, topdown=False):
        for name in names:
            path = Path(folder) / name
            rel = path.relative_to(root).as_posix()
            if rel not in files:
                path.unlink()
        for name in dirs:
            path = Path(folder) / name
            if path.is_symlink():
                path.unlink()
            elif not any(key.startswith(path.relative_to(root).as_posix() + "/") for key in files):
                shutil.rmtree(path)
    for rel, data in files.items():
        path = root / rel
        try:
            same = path.read_bytes() == data
        except OSError:
            same = False
        if not same:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)


def changed(before: dict[str, bytes], after: dict[str, bytes]) -> list[str]:
    """Files created, deleted or modified."""
    return sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))


# --------------------------------------------------------------------------- the corpus


def orchestration_corpus() -> list[bytes]:
    """The real ORCHESTRATION files (and their committed history), the templates and examples."""
    paths = sorted((CORPUS / "orchestration").glob("*.yaml")) + sorted((CORPUS / "history").rglob("*.yaml"))
    paths += [
        FIXTURES / "templates" / "proj001-qg2-ORCHESTRATION.yaml",
        FIXTURES / "ack" / "two-unacknowledged" / "projects" / "PROJ-002" / "ORCHESTRATION.yaml",
        FIXTURES / "example" / "ORCHESTRATION.yaml",
    ]
    return [p.read_bytes() for p in paths]


def checkpoint_corpus() -> list[bytes]:
    """Checkpoints of both layouts, and the monitor / Nexus state files of the fixtures."""
    paths = sorted((CORPUS / "checkpoints").glob("*.json"))
    paths += sorted((FIXTURES / "ack" / "two-unacknowledged" / ".jerry" / "checkpoints").glob("*.json"))
    paths += [FIXTURES / "templates" / "proj001-qg2-checkpoint.json"]
    return [p.read_bytes() for p in paths]


_VALID = FIXTURES / "valid"
STATE_FILES = {
    "context-monitor-state.json": _VALID / "projects" / "PROJ-001" / ".jerry" / "context-monitor-state.json",
    "precompact_state.json": _VALID / "nexus" / "00-system" / ".cache" / "precompact_state.json",
}


# --------------------------------------------------------------------------- mutation strategies

DEPTH = 1200  # deeper than the loaders' depth limit (200) and than Python's default recursion limit


def _alias_bomb(levels: int) -> str:
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for i in range(1, levels):
        refs = ", ".join([f"*a{i - 1}"] * 9)
        lines.append(f"a{i}: &a{i} [{refs}]")
    return "\n".join(lines) + "\n"


YAML_SNIPPETS: tuple[str, ...] = (
    "anchor: &x {a: 1, b: [1, 2]}\nalias: *x\n",
    "merged:\n  <<: *x\n  c: 3\n",
    "<<: {workflow: {status: ACTIVE}}\n",
    "dangling: *nowhere\n",
    _alias_bomb(9),
    "obj: !!python/object:os.system {}\n",
    "obj: !!python/object/apply:os.system ['echo hi']\n",
    "blob: !!binary aGVsbG8=\n",
    "set: !!set {a, b}\n",
    "custom: !Ref foo\n",
    "? [a, b]\n: complex key\n",
    "? {a: 1}\n: mapping key\n",
    "1: integer key\n",
    "null: null key\n",
    "true: bool key\n",
    "2026-02-17: date key\n",
    "1.5: float key\n",
    "resumption: ~\n",
    "resumption: []\n",
    "resumption: 'text'\n",
    "resumption:\n  recovery_state: 12\n",
    "resumption:\n  compaction_events: {count: -1, events: {}}\n",
    "workflow: {status: [ACTIVE]}\n",
    "nan: .nan\ninf: -.inf\nbig: 123456789012345678901234567890\nhex: 0x1F\noct: 0o17\n",
    "\t- tab indented\n",
    "---\nsecond: document\n",
    "...\n",
    "%YAML 1.1\n---\n",
    "%TAG ! tag:example.com,2000:\n---\n",
    "key: 'unterminated\n",
    'key: "bad \\escape \\x"\n',
    "key: |\n  literal\n   block\n",
    "key: >-\n folded\n",
    "key: value # comment\n# ctxres: noqa\n# ctxres: noqa: C001, X999\n",
    "updated_at: 2026-02-30T25:61:00Z\n",
    "updated_at: 1e309\n",
    "\ufeffbom: inside\n",
    "rtl: \u202eevil\u202c\nzero: \u200b\n",
    "emoji: \U0001f600\n",
    "key: value\r\nother: crlf\r\n",
    "lone\rcr: x\n",
    "\x00nul: byte\n",
    "ctl: \x07\x1b[31m\n",
    "[" * DEPTH + "]" * DEPTH + "\n",
    "deep: " + "{a: " * DEPTH + "1" + "}" * DEPTH + "\n",
    "".join("  " * i + f"k{i}:\n" for i in range(150)) + "  " * 150 + "leaf: 1\n",
    "- " * 300 + "x\n",
    "&a [*a]\n",
    "files_to_read:\n  - path: ../../../../etc/passwd\n  - path: /etc/shadow\n",
    "checkpoint_file: ../../outside.json\n",
    "key: " + "x" * 100_000 + "\n",
    "key: '" + "\u00e9" * 50_000 + "'\n",
)

JSON_SNIPPETS: tuple[str, ...] = (
    '"x": 1, "x": 2,',
    "[" * DEPTH + "]" * DEPTH,
    '{"a": ' * DEPTH + "1" + "}" * DEPTH,
    "NaN",
    "Infinity",
    "-Infinity",
    "1e999",
    "12345678901234567890123456789012345678901234567890",
    '"\\ud800"',
    '"\\u0000"',
    '"\x00"',
    "\ufeff",
    "// comment\n",
    ",,",
    "}",
    "{",
    '"' + "x" * 100_000 + '"',
    "null",
    "true",
    '"../../../../etc/passwd"',
)

SCALARS: tuple[str, ...] = (
    "~",
    "null",
    "''",
    '""',
    "[]",
    "{}",
    "[1, 2]",
    "{a: b}",
    "0",
    "-1",
    "1.5",
    "1e400",
    ".nan",
    "true",
    "no",
    "0x10",
    "2026-02-17",
    "2026-02-17T11:45:00Z",
    "2026-02-17T11:45:00+14:00",
    "'2026-13-45T99:99:99Z'",
    "9999-12-31T23:59:59Z",
    "0001-01-01T00:00:00Z",
    "'CX-001'",
    "cx-999999999999",
    "ACTIVE",
    "PAUSED",
    "COMPLETE",
    "'\u0000'",
    "*alias",
    "&anchor value",
    "!!str 12",
    "!!int x",
    "!!python/name:os.system",
    "../../../etc/passwd",
    "/abs/path.yaml",
    "'" + "x" * 20_000 + "'",
)


@st.composite
def mutated_text(draw: st.DrawFn, sources: list[bytes], snippets: tuple[str, ...] = YAML_SNIPPETS) -> bytes:
    """A corpus file changed by 1 to 4 random edits: byte flips, line deletion / duplication / swap,
    indentation changes, truncation, inserted constructs, replaced values."""
    data = bytearray(draw(st.sampled_from(sources)))
    for _ in range(draw(st.integers(1, 4))):
        data = bytearray(draw(_edit(bytes(data), snippets)))
    return bytes(data)


def _lines(data: bytes) -> list[bytes]:
    return data.splitlines(keepends=True) or [b""]


_VALUE_LINE = re.compile(rb"^(\s*(?:- )?[\w.\-\"']+\s*:)[ \t]*(\S.*?)?(\r?\n)?$", re.DOTALL)


@st.composite
def _edit(draw: st.DrawFn, data: bytes, snippets: tuple[str, ...]) -> bytes:
    kind = draw(st.integers(0, 10))
    lines = _lines(data)
    pick = st.integers(0, len(lines) - 1)
    if kind == 0:  # flip one byte
        if not data:
            return data
        at = draw(st.integers(0, len(data) - 1))
        return data[:at] + bytes([draw(st.integers(0, 255))]) + data[at + 1 :]
    if kind == 1:  # delete a run of lines
        at, count = draw(pick), draw(st.integers(1, 5))
        return b"".join(lines[:at] + lines[at + count :])
    if kind == 2:  # duplicate a line
        at = draw(pick)
        return b"".join([*lines[: at + 1], lines[at], *lines[at + 1 :]])
    if kind == 3:  # swap two lines
        a, b = draw(pick), draw(pick)
        lines[a], lines[b] = lines[b], lines[a]
        return b"".join(lines)
    if kind == 4:  # change the indentation of a line
        at = draw(pick)
        stripped = lines[at].lstrip(b" ")
        indent = draw(st.sampled_from([b"", b" ", b"  ", b"   ", b"    ", b"\t", b"        ", b"  \t"]))
        lines[at] = indent + stripped
        return b"".join(lines)
    if kind == 5:  # truncate
        return data[: draw(st.integers(0, len(data)))]
    if kind in (6, 7):  # insert a construct at a line boundary
        at = draw(st.integers(0, len(lines)))
        snippet = draw(st.sampled_from(snippets)).encode("utf-8")
        indent = draw(st.sampled_from([b"", b"  ", b"    "]))
        block = b"".join(indent + line for line in snippet.splitlines(keepends=True))
        return b"".join([*lines[:at], block, *lines[at:]])
    if kind == 8:  # replace a value with another type or a hostile scalar
        candidates = [i for i, line in enumerate(lines) if _VALUE_LINE.match(line)]
        if not candidates:
            return data
        at = draw(st.sampled_from(candidates))
        match = _VALUE_LINE.match(lines[at])
        assert match is not None
        value = draw(st.sampled_from(SCALARS)).encode("utf-8")
        lines[at] = match.group(1) + b" " + value + (match.group(3) or b"")
        return b"".join(lines)
    if kind == 9:  # insert invalid UTF-8 or control bytes
        at = draw(st.integers(0, len(data)))
        junk = draw(st.sampled_from([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\x00", b"\x1b", b"\r", b"\xef\xbb\xbf"]))
        return data[:at] + junk + data[at:]
    # kind 10: random bytes spliced in
    at = draw(st.integers(0, len(data)))
    return data[:at] + draw(st.binary(max_size=64)) + data[at:]


# --------------------------------------------------------------------------- JSON values

JSON_LEAVES = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=40)
)
JSON_VALUES = st.recursive(
    JSON_LEAVES,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=4),
    max_leaves=12,
)

HUGE_STRINGS = st.builds(
    lambda char, size: char * size,
    st.sampled_from(["x", "\u00e9", "\U0001f600", "\n", '"', "\\", "\x00", "<compaction-alert>"]),
    st.integers(min_value=10_000, max_value=600_000),
)
HOSTILE_STRINGS = st.sampled_from(
    [
        "",
        " ",
        "../../../../etc/passwd",
        "/etc/passwd",
        "/dev/zero",
        "/dev/stdin",
        "/proc/self/mem",
        "/",
        ".",
        "~",
        "a\x00b",
        "\ud800",
        "C:\\Windows\\System32",
        "file:///etc/passwd",
        "PreCompact",
        "ORCHESTRATION.yaml",
        "\u202e",
    ]
)


@st.composite
def mutated_json(draw: st.DrawFn, value: Any) -> Any:
    """``value`` (parsed JSON) with 1 to 4 random edits: a value replaced (wrong type, huge, hostile),
    a key deleted, an unknown key added."""
    value = json.loads(json.dumps(value))
    for _ in range(draw(st.integers(1, 4))):
        containers = list(_containers(value))
        if not containers:
            return draw(JSON_VALUES)
        container = draw(st.sampled_from(containers))
        keys = list(container.keys()) if isinstance(container, dict) else list(range(len(container)))
        action = draw(st.integers(0, 3))
        if action == 0 and keys:
            key = draw(st.sampled_from(keys))
            del container[key]
        elif action == 1 and isinstance(container, dict):
            container[draw(st.text(max_size=12))] = draw(JSON_VALUES)
        elif keys:
            key = draw(st.sampled_from(keys))
            container[key] = draw(JSON_VALUES | HUGE_STRINGS | HOSTILE_STRINGS)
    return value


def _containers(value: Any) -> Iterator[dict[str, Any] | list[Any]]:
    if isinstance(value, dict | list):
        yield value
        for child in value.values() if isinstance(value, dict) else value:
            yield from _containers(child)


# --------------------------------------------------------------------------- linter output

FINDING_LINE = re.compile(r"^(?P<path>.+?):(?P<line>\d+):(?P<col>\d+): (?P<code>[A-Z]\d{3})(?: \[warning\])? \S")
SUMMARY_LINE = re.compile(r"^(All checks passed|Found \d+ errors?) ")
