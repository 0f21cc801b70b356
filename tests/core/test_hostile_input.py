"""Hostile input: every command and hook answers a hostile file with a located finding or a one-line
refusal, in bounded memory, without a traceback (the bounds: docs/limits.md, "Size and structure limits").

Each case runs the real process in its own child; its peak resident memory is the ``ru_maxrss``
that ``os.wait4`` returns for that one child (the per-process figure of ``getrusage``), so one case
never inherits another's peak. Subprocess timeouts are hang guards only: nothing asserts on time.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from ctxres.hook_events import EVENTS as HOOK_EVENTS
from tests.conftest import FIXTURES, assistant_line
from tests.git_sandbox import git
from tests.hooks.hook_project import validate
from tests.hooks.nexus_project import P24, edits_of_one_project, precompact_payload, sessionstart_payload, transcript
from tests.hooks.nexus_project import workspace as workspace  # the Nexus corpus project (a fixture)

TEMPLATE_ORCHESTRATION = FIXTURES / "templates" / "proj001-qg2-ORCHESTRATION.yaml"
TEMPLATE_CHECKPOINT = FIXTURES / "templates" / "proj001-qg2-checkpoint.json"
NOW = "2026-02-17T12:00:00Z"
MIB = 1024 * 1024
BIG = 100 * MIB
DEEP = 100_000
HANG_GUARD = 300  # seconds; a hang guard, not a timing assertion
HOOK_GUARD = 60  # a hook blocked on a FIFO would wait forever: this turns it into a failure
# Peak resident memory of one process. Measured (docs/limits.md): 10 MiB for `python -c pass`, at
# most 41 MiB for any hostile case; a 100 MB file read whole would need more than 100 MiB.
MAX_RSS_MB = 96
LOCATED = re.compile(r"^\S[^:\n]*:\d+:\d+: [A-Z]\d{3} ", re.M)


@dataclass
class Run:
    returncode: int
    stdout: str
    stderr: str
    peak_mb: float
    seconds: float = 0.0  # recorded for docs/limits.md, never asserted on


# A tiny launcher between pytest and the measured process: a child's ``ru_maxrss`` counts the memory
# of the process it was forked from (Linux keeps the pre-exec high-water mark), so the process is
# spawned from this ~10 MiB interpreter rather than from pytest, and the launcher reports
# getrusage(RUSAGE_CHILDREN).ru_maxrss of its one child in the file named by its first argument.
LAUNCHER = """
import os, resource, sys
pid = os.posix_spawn(sys.argv[2], sys.argv[2:], os.environ)
status = os.waitpid(pid, 0)[1]
with open(sys.argv[1], "w") as handle:
    handle.write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))
code = os.waitstatus_to_exitcode(status)
os._exit(code if code >= 0 else 128 - code)
"""


def measured(argv: list[str], cwd: Path, env: dict[str, str], stdin: bytes = b"", guard: float = HANG_GUARD) -> Run:
    """Run ``argv`` as one child (through the launcher) and return its exit code, output and peak
    memory (MiB). A run past ``guard`` seconds is killed (with its process group) and fails."""
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        (folder / "in").write_bytes(stdin)
        peak = folder / "peak"
        with (folder / "in").open("rb") as inp, (folder / "out").open("wb") as out, (folder / "err").open("wb") as err:
            proc = subprocess.Popen(
                [sys.executable, "-S", "-c", LAUNCHER, str(peak), *argv],
                cwd=cwd,
                env=env,
                stdin=inp,
                stdout=out,
                stderr=err,
                start_new_session=True,
            )
            started = time.monotonic()
            try:
                proc.wait(timeout=guard)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, 9)
                proc.wait()
                raise AssertionError(f"{argv[:4]} did not finish within {guard} s (a hang)") from None
        return Run(
            proc.returncode,
            (folder / "out").read_bytes().decode("utf-8", "replace"),
            (folder / "err").read_bytes().decode("utf-8", "replace"),
            int(peak.read_text()) / 1024 if peak.exists() else float("inf"),
            time.monotonic() - started,
        )


def record(label: str, run: Run) -> None:
    """Append the case's peak memory to ``$CTXRES_HOSTILE_REPORT`` (how docs/limits.md was made)."""
    report = os.environ.get("CTXRES_HOSTILE_REPORT")
    if report:
        with open(report, "a", encoding="utf-8") as handle:
            handle.write(f"{label}\t{run.returncode}\t{run.peak_mb:.0f}\t{run.seconds:.2f}\n")


def env_for(root: Path, **extra: str) -> dict[str, str]:
    env = {**os.environ, "CLAUDE_PROJECT_DIR": str(root), "CTXRES_NOW": NOW, **extra}
    env.pop("CTXRES_ORCHESTRATION", None)
    return env


def measured_ctxres(root: Path, *args: str, env: dict[str, str] | None = None) -> Run:
    """``ctxres ARGS`` in ``root``, measured (`measured`)."""
    return measured([sys.executable, "-m", "ctxres.linters.cli", *args], root, env or env_for(root))


def hook(root: Path, event: str, payload: dict[str, Any] | bytes, env: dict[str, str] | None = None) -> Run:
    raw = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    return measured([sys.executable, "-m", "ctxres.hooks.main", event], root, env or env_for(root), raw, HOOK_GUARD)


def hook_payload(root: Path, event: str) -> dict[str, Any]:
    base: dict[str, Any] = {
        "session_id": "abc123",
        "transcript_path": str(root / "transcript.jsonl"),
        "cwd": str(root),
        "hook_event_name": event,
    }
    extra: dict[str, dict[str, Any]] = {
        "PreCompact": {"trigger": "auto", "custom_instructions": ""},
        "SessionStart": {"source": "compact"},
        "UserPromptSubmit": {"prompt": "continue"},
        "PostToolUse": {
            "tool_name": "Write",
            "tool_input": {"file_path": str(root / "ORCHESTRATION.yaml"), "content": "..."},
            "tool_response": {"filePath": str(root / "ORCHESTRATION.yaml"), "success": True},
        },
    }
    return {**base, **extra[event]}


def hook_answer(run: Run, event: str) -> dict[str, Any]:
    """Exit 0, valid output for the event, no traceback, at most one stderr line, bounded memory."""
    assert run.returncode == 0, run.stderr
    assert "Traceback" not in run.stderr, run.stderr
    assert len(run.stderr.splitlines()) <= 1, run.stderr
    assert run.peak_mb < MAX_RSS_MB, f"{event}: {run.peak_mb:.0f} MiB"
    if event == "PreCompact":
        # PreCompact answers with nothing: Claude Code shows any output to the user and keeps it.
        assert run.stdout == "", run.stdout
        return {}
    output: dict[str, Any] = json.loads(run.stdout)
    validate(f"hook-{event.lower()}-output", output)
    return output


def no_traceback(run: Run) -> None:
    assert "Traceback" not in run.stderr + run.stdout, run.stderr
    assert run.peak_mb < MAX_RSS_MB, f"{run.peak_mb:.0f} MiB"


# --------------------------------------------------------------------------- hostile files


def _bomb() -> str:
    lines = ['  a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for level in range(1, 10):
        ref = f"*a{level - 1}"
        lines.append(f"  a{level}: &a{level} [{', '.join([ref] * 10)}]")
    return "workflow:\n  status: ACTIVE\nresumption:\n" + "\n".join(lines) + "\n"


def _write_big_yaml(path: Path) -> None:
    """A 100 MB ORCHESTRATION file: the template, then comment lines (fast: 1 MiB blocks)."""
    head = TEMPLATE_ORCHESTRATION.read_bytes()
    line = b"# " + b"x" * 97 + b"\n"
    block = line * (MIB // len(line))
    with path.open("wb") as handle:
        handle.write(head)
        while handle.tell() < BIG:
            handle.write(block)


def _write_big_json(path: Path) -> None:
    data = json.loads(TEMPLATE_CHECKPOINT.read_text())
    data["event_id"] = "cx-002"
    data["metadata"]["acknowledged"] = False
    text = json.dumps(data)
    with path.open("wb") as handle:
        handle.write(text[:-1].encode() + b', "padding": "')
        block = b"y" * MIB
        while handle.tell() < BIG:
            handle.write(block)
        handle.write(b'"}')


def _write_sparse(path: Path) -> None:
    """100 MB of NUL bytes, made in no time (a sparse file)."""
    with path.open("wb") as handle:
        handle.truncate(BIG)


def _write_big_transcript(path: Path) -> None:
    """A 100 MB transcript: tool output lines, then one model reply with usage at the end."""
    filler = json.dumps({"type": "user", "message": {"content": "z" * 4000}}).encode() + b"\n"
    block = filler * (MIB // len(filler))
    with path.open("wb") as handle:
        while handle.tell() < BIG:
            handle.write(block)
        handle.write(assistant_line(150_000).encode())


YAML_CASES: dict[str, bytes] = {
    "alias-bomb": _bomb().encode(),
    "deep-flow-seq": b"workflow:\n  status: ACTIVE\nresumption: " + b"[" * DEEP + b"]" * DEEP + b"\n",
    "deep-flow-map": b"workflow:\n  status: ACTIVE\nresumption: " + b"{a: " * DEEP + b"1" + b"}" * DEEP + b"\n",
    "deep-block": b"workflow:\n  status: ACTIVE\nresumption:\n  " + b"- " * DEEP + b"x\n",
    "key-is-a-list": b"workflow:\n  status: ACTIVE\nresumption:\n  ? [a, b]\n  : x\n",
    "key-is-a-flow-map": b"workflow:\n  status: ACTIVE\nresumption:\n  {1: 2}: x\n",
    "number-and-null-keys": b"workflow:\n  status: ACTIVE\nresumption:\n  1: x\n  null: y\n  recovery: {1: 2}\n",
    "nul-byte": b"workflow:\n  status: ACTIVE\nresumption:\n  next_step: a\x00b\n",
    "control-chars": b"workflow:\n  status: ACTIVE\nresumption:\n  next_step: bell\x07 escape\x1b[31m\n",
    "invalid-utf8": b"workflow:\n  status: ACTIVE\nresumption:\n  next_step: caf\xe9 \xff\xfe\n",
}
BIG_YAML_CASES: dict[str, Callable[[Path], None]] = {"100mb-text": _write_big_yaml, "100mb-sparse": _write_sparse}
JSON_CASES: dict[str, bytes] = {
    "deep-array": b"[" * DEEP + b"]" * DEEP,
    "deep-object": b'{"a": ' * DEEP + b"1" + b"}" * DEEP,
    "nul-byte": b'{"event_id": "cx-002", "x": "a\x00b"}',
    "invalid-utf8": b'{"event_id": "cx-002", "x": "caf\xe9"}',
    "control-chars": b'{"event_id": "cx-002", "x": "bell\x07"}',
    "non-string-key": b'{"event_id": "cx-002", 1: 2}',
}
BIG_JSON_CASES: dict[str, Callable[[Path], None]] = {"100mb-json": _write_big_json, "100mb-sparse": _write_sparse}


@pytest.fixture(scope="module")
def big_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The 100 MB files, made once; each case hard-links them (no copy)."""
    folder = tmp_path_factory.mktemp("big")
    writers = {**BIG_YAML_CASES, **BIG_JSON_CASES, "transcript": _write_big_transcript}
    made = {name: folder / f"{name}.bin" for name in writers}
    for name, write in writers.items():
        write(made[name])
    return made


def project(tmp_path: Path, orchestration: bytes | Path | None = None) -> Path:
    """A project (with a git repository, for ``ctxres stale``) holding ORCHESTRATION.yaml."""
    root = tmp_path / "project"
    root.mkdir()
    target = root / "ORCHESTRATION.yaml"
    if orchestration is None:
        shutil.copy(TEMPLATE_ORCHESTRATION, target)
    elif isinstance(orchestration, Path):
        os.link(orchestration, target)
    else:
        target.write_bytes(orchestration)
    return root


def with_checkpoint(root: Path, content: bytes | Path) -> Path:
    folder = root / ".jerry" / "checkpoints"
    folder.mkdir(parents=True)
    path = folder / "cx-002-checkpoint.json"
    if isinstance(content, Path):
        os.link(content, path)
    else:
        path.write_bytes(content)
    return path


def fingerprint(path: Path) -> tuple[int, int, str]:
    info = path.stat()
    head = path.read_bytes()[:4096] if info.st_size < 2 * MIB else b""
    return info.st_size, info.st_mtime_ns, head.hex()


def yaml_input(name: str, big_files: dict[str, Path]) -> bytes | Path:
    return big_files[name] if name in BIG_YAML_CASES else YAML_CASES[name]


ALL_YAML = sorted([*YAML_CASES, *BIG_YAML_CASES])
ALL_JSON = sorted([*JSON_CASES, *BIG_JSON_CASES])


# --------------------------------------------------------------------------- ctxres check


EXPECTED_CHECK = {  # the finding, at the place that causes it
    "alias-bomb": "4:19: P006",  # the alias that crosses 50,000 expanded values
    "deep-flow-seq": "3:1013: P006",  # the 1,001st bracket
    "deep-flow-map": "3:4013: P006",
    "deep-block": "4:1: P006",  # the line whose indicators nest too deep
    "key-is-a-list": "4:5: P001",
    "key-is-a-flow-map": "4:3: P001",
    "number-and-null-keys": "4:3: P007",
    "nul-byte": "4:15: P004",  # the NUL itself
    "control-chars": "4:18: P001",  # the bell character
    "invalid-utf8": "4:17: P003",  # the byte 0xe9
    "100mb-text": "1:1: P005",
    "100mb-sparse": "1:1: P005",
}


@pytest.mark.parametrize("name", ALL_YAML)
def test_check_locates_a_hostile_orchestration_file(tmp_path: Path, big_files: dict[str, Path], name: str) -> None:
    root = project(tmp_path, yaml_input(name, big_files))
    run = measured_ctxres(root, "check", "--strict", "--select", "P", ".")
    record(f"check ORCHESTRATION {name}", run)
    no_traceback(run)
    assert run.returncode == 1, run.stdout + run.stderr
    located = [line for line in run.stdout.splitlines() if LOCATED.match(line)]
    assert any(line.startswith(f"ORCHESTRATION.yaml:{EXPECTED_CHECK[name]} ") for line in located), run.stdout


EXPECTED_CHECK_JSON = {
    "deep-array": "P006",
    "deep-object": "P006",
    "nul-byte": "P004",
    "invalid-utf8": "P003",
    "control-chars": "P001",
    "non-string-key": "P001",
    "100mb-json": "P005",
    "100mb-sparse": "P005",
}


@pytest.mark.parametrize("name", ALL_JSON)
def test_check_locates_a_hostile_checkpoint(tmp_path: Path, big_files: dict[str, Path], name: str) -> None:
    root = project(tmp_path)
    with_checkpoint(root, big_files[name] if name in BIG_JSON_CASES else JSON_CASES[name])
    run = measured_ctxres(root, "check", "--select", "P", ".")
    record(f"check checkpoint {name}", run)
    no_traceback(run)
    assert run.returncode == 1, run.stdout + run.stderr
    located = [line for line in run.stdout.splitlines() if LOCATED.match(line)]
    assert any(
        line.startswith(".jerry/checkpoints/cx-002-checkpoint.json:") and f": {EXPECTED_CHECK_JSON[name]} " in line
        for line in located
    ), run.stdout


# --------------------------------------------------------------------------- migrate, ack, stale


def one_line_refusal(run: Run, expected: int = 2) -> str:
    """The command refused: the expected exit code, exactly one line on stderr, no traceback."""
    no_traceback(run)
    assert run.returncode == expected, run.stdout + run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1, run.stderr
    return lines[0]


MIGRATED_ANYWAY = {"number-and-null-keys"}  # a readable v1.0 section: migrating it is right


@pytest.mark.parametrize("name", ALL_YAML)
def test_migrate_refuses_a_hostile_file_and_leaves_it_untouched(
    tmp_path: Path, big_files: dict[str, Path], name: str
) -> None:
    root = project(tmp_path, yaml_input(name, big_files))
    target = root / "ORCHESTRATION.yaml"
    before = fingerprint(target)
    run = measured_ctxres(root, "migrate", "--write", "ORCHESTRATION.yaml")
    record(f"migrate {name}", run)
    if name in MIGRATED_ANYWAY:
        no_traceback(run)
        assert run.returncode == 0, run.stderr
        check = measured_ctxres(root, "check", "--select", "P001,P006", "ORCHESTRATION.yaml")
        assert check.returncode == 0, check.stdout  # the result still parses
        return
    line = one_line_refusal(run)
    assert line.startswith("ORCHESTRATION.yaml: error: "), line
    assert fingerprint(target) == before


def pending_checkpoint() -> bytes:
    data = json.loads(TEMPLATE_CHECKPOINT.read_text())
    data["event_id"] = "cx-002"
    data["recovery_instructions"]["files_to_read"][0]["path"] = "ORCHESTRATION.yaml"
    data["metadata"]["acknowledged"] = False
    data["metadata"]["acknowledged_at"] = None
    return json.dumps(data, indent=2).encode()


@pytest.mark.parametrize("name", ALL_YAML)
def test_ack_refuses_a_hostile_orchestration_file(tmp_path: Path, big_files: dict[str, Path], name: str) -> None:
    root = project(tmp_path, yaml_input(name, big_files))
    checkpoint = with_checkpoint(root, pending_checkpoint())
    before = fingerprint(root / "ORCHESTRATION.yaml"), fingerprint(checkpoint)
    run = measured_ctxres(root, "ack", "--file", "ORCHESTRATION.yaml", "--now", NOW)
    record(f"ack ORCHESTRATION {name}", run)
    line = one_line_refusal(run, 2 if name == "invalid-utf8" else 1)
    assert line.startswith("ctxres ack: "), line
    assert (fingerprint(root / "ORCHESTRATION.yaml"), fingerprint(checkpoint)) == before


@pytest.mark.parametrize("name", ALL_JSON)
def test_ack_refuses_a_hostile_checkpoint(tmp_path: Path, big_files: dict[str, Path], name: str) -> None:
    root = project(tmp_path)
    checkpoint = with_checkpoint(root, big_files[name] if name in BIG_JSON_CASES else JSON_CASES[name])
    before = fingerprint(root / "ORCHESTRATION.yaml"), fingerprint(checkpoint)
    run = measured_ctxres(root, "ack", "--file", "ORCHESTRATION.yaml", "--now", NOW, "cx-002")
    record(f"ack checkpoint {name}", run)
    line = one_line_refusal(run, 1)
    assert line.startswith("ctxres ack: refused, nothing changed: .jerry/checkpoints/cx-002-checkpoint.json "), line
    assert (fingerprint(root / "ORCHESTRATION.yaml"), fingerprint(checkpoint)) == before


@pytest.mark.parametrize("name", ALL_YAML)
def test_stale_answers_a_hostile_staged_file(tmp_path: Path, big_files: dict[str, Path], name: str) -> None:
    root = project(tmp_path)
    git(root, "init", "-q")
    git(root, "add", "ORCHESTRATION.yaml")
    git(root, "commit", "-q", "-m", "start")
    target = root / "ORCHESTRATION.yaml"
    target.unlink()
    hostile = yaml_input(name, big_files)
    shutil.copy(hostile, target) if isinstance(hostile, Path) else target.write_bytes(hostile)
    git(root, "add", "ORCHESTRATION.yaml")
    run = measured_ctxres(root, "stale")
    record(f"stale {name}", run)
    no_traceback(run)
    assert run.returncode == 0, run.stdout + run.stderr  # nothing to block on; the reason is said
    if name in STALE_COMPARED:
        assert run.stderr == ""
        return
    line = one_line_refusal(run, 0)
    assert line.startswith("ctxres stale: ORCHESTRATION.yaml: not compared: "), line
    assert ("too large" in line) == name.startswith("100mb"), line


STALE_COMPARED = {"number-and-null-keys"}  # readable: compared as usual


# --------------------------------------------------------------------------- hooks


@pytest.mark.parametrize("event", HOOK_EVENTS)
@pytest.mark.parametrize("name", ALL_YAML)
def test_hooks_answer_validly_on_a_hostile_orchestration_file(
    tmp_path: Path, big_files: dict[str, Path], name: str, event: str
) -> None:
    root = project(tmp_path, yaml_input(name, big_files))
    run = hook(root, event, hook_payload(root, event))
    record(f"{event} ORCHESTRATION {name}", run)
    output = hook_answer(run, event)
    if name != "number-and-null-keys":  # nothing readable to act on: the file is named, never its content
        assert output == {} or _names_the_unreadable_workflow(output), output
    folder = root / ".jerry" / "checkpoints"
    if name != "number-and-null-keys" and folder.exists():
        # PreCompact still checkpoints a compaction while the live workflow cannot be read: a valid file that
        # says so, with what could be read of it
        assert event == "PreCompact"
        for path in folder.iterdir():
            checkpoint = json.loads(path.read_text("utf-8"))
            validate("checkpoint", checkpoint)
            assert "ORCHESTRATION.yaml: " in checkpoint["orchestration_state"]["workflow_unreadable"]


def _names_the_unreadable_workflow(output: dict[str, Any]) -> bool:
    text = output["hookSpecificOutput"]["additionalContext"]
    first = text.splitlines()[0]
    return first.startswith("ctxres: the live workflow ORCHESTRATION.yaml cannot be read: ") and len(text) < 1000


@pytest.mark.parametrize("event", ["SessionStart", "UserPromptSubmit", "PreCompact"])
@pytest.mark.parametrize("name", ALL_JSON)
def test_hooks_answer_validly_on_a_hostile_checkpoint(
    tmp_path: Path, big_files: dict[str, Path], name: str, event: str
) -> None:
    root = project(tmp_path)
    with_checkpoint(root, big_files[name] if name in BIG_JSON_CASES else JSON_CASES[name])
    run = hook(root, event, hook_payload(root, event))
    record(f"{event} checkpoint {name}", run)
    output = hook_answer(run, event)
    if event == "SessionStart":  # the broken checkpoint is named in the generic alert, never its content
        text = output["hookSpecificOutput"]["additionalContext"]
        assert ".jerry/checkpoints/cx-002-checkpoint.json" in text
        assert "yyyyyyyy" not in text and "\x00" not in text


def active_v2_project(tmp_path: Path) -> Path:
    """The template project, whose v2.0 workflow is ACTIVE: every hook reads the transcript for it."""
    return project(tmp_path)


def transcript_cases(root: Path, big: Path) -> dict[str, str]:
    fifo = root / "transcript.fifo"
    os.mkfifo(fifo)
    os.link(big, root / "big-transcript.jsonl")
    (root / "folder.jsonl").mkdir()
    return {
        "100mb": str(root / "big-transcript.jsonl"),
        "dev-zero": "/dev/zero",
        "dev-stdin": "/dev/stdin",
        "fifo": str(fifo),
        "traversal": "../../../../../../../../etc/passwd",
        "nul": str(root / "transcript\x00.jsonl"),
        "1mb-path": "/" + "a" * MIB,
        "folder": str(root / "folder.jsonl"),
        "not-a-string": "",
    }


TRANSCRIPTS = ["100mb", "dev-zero", "dev-stdin", "fifo", "traversal", "nul", "1mb-path", "folder", "not-a-string"]


@pytest.mark.parametrize("event", HOOK_EVENTS)
@pytest.mark.parametrize("name", TRANSCRIPTS)
def test_hooks_read_only_a_regular_transcript_within_bounds(
    tmp_path: Path, big_files: dict[str, Path], name: str, event: str
) -> None:
    root = active_v2_project(tmp_path)
    stdin = hook_payload(root, event)
    stdin["transcript_path"] = transcript_cases(root, big_files["transcript"])[name]
    if name == "not-a-string":
        stdin["transcript_path"] = {"path": ["/dev/zero"]}
    run = hook(root, event, stdin)
    record(f"{event} transcript {name}", run)
    output = hook_answer(run, event)
    text = json.dumps(output)
    assert "root:" not in text  # nothing of /etc/passwd
    if event == "UserPromptSubmit" and name == "100mb":  # read from the end: 150,000 of 200,000 tokens
        state = json.loads((root / ".jerry" / "context-monitor-state.json").read_text())
        assert state["tokens"] == 150_000, state


CWDS = {
    "missing": "/nonexistent/project",
    "relative": "project",
    "nul": "/tmp\x00/project",
    "dot-dot": "{root}/../project",
    "1mb": "/" + "b" * MIB,
    "not-a-string": 42,
}


@pytest.mark.parametrize("event", HOOK_EVENTS)
@pytest.mark.parametrize("name", sorted(CWDS))
def test_a_hostile_cwd_is_refused_without_claude_project_dir(tmp_path: Path, name: str, event: str) -> None:
    root = active_v2_project(tmp_path)
    stdin = hook_payload(root, event)
    cwd = CWDS[name]
    stdin["cwd"] = cwd.format(root=root) if isinstance(cwd, str) else cwd
    env = env_for(root)
    del env["CLAUDE_PROJECT_DIR"]
    run = hook(root, event, stdin, env)  # the process runs in the project: it must not be guessed from there
    record(f"{event} cwd {name}", run)
    assert hook_answer(run, event) == {}
    assert run.stderr.startswith(f"ctxres-hook: {event}: the payload's cwd "), run.stderr
    assert len(run.stderr) < 300, run.stderr  # one short line, even for a 1 MB path
    assert not (root / ".jerry").exists()  # nothing written anywhere


@pytest.mark.parametrize("event", HOOK_EVENTS)
def test_a_hostile_cwd_falls_back_to_claude_project_dir(tmp_path: Path, event: str) -> None:
    root = active_v2_project(tmp_path)
    stdin = hook_payload(root, event)
    stdin["cwd"] = "../../etc"
    run = hook(root, event, stdin)
    hook_answer(run, event)
    assert "the payload's cwd" not in run.stderr
    if event == "PreCompact":  # the project of $CLAUDE_PROJECT_DIR got its checkpoint
        assert (root / ".jerry" / "checkpoints" / "cx-002.json").is_file()


# --------------------------------------------------------------------------- paths named by state files

SECRET = "TOP-SECRET-OUTSIDE-THE-PROJECT"


def outside_file(tmp_path: Path, name: str) -> Path:
    """A file beside the project (not in it) whose content must never reach the model."""
    folder = tmp_path / "outside"
    folder.mkdir(exist_ok=True)
    path = folder / name
    path.write_text(f"workflow:\n  status: ACTIVE\nresumption:\n  next_step: {SECRET}\n# {SECRET}\n")
    return path


def test_template1_leaves_out_files_to_read_outside_the_project(tmp_path: Path) -> None:
    root = project(tmp_path)
    outside_file(tmp_path, "notes.md")
    (root / "shared").symlink_to(tmp_path / "outside")
    text = (root / "ORCHESTRATION.yaml").read_text()
    unsafe = ["../outside/notes.md", "/etc/passwd", "~/.ssh/id_rsa", "shared/notes.md", "a/../../outside/notes.md"]
    listed = "".join(f'    - path: "{path}"\n      priority: 1\n' for path in unsafe)
    text = text.replace("  files_to_read:\n", "  files_to_read:\n" + listed, 1)
    (root / "ORCHESTRATION.yaml").write_text(text)
    run = hook(root, "SessionStart", {**hook_payload(root, "SessionStart"), "source": "startup"})
    prompt = hook_answer(run, "SessionStart")["hookSpecificOutput"]["additionalContext"]
    assert "projects/PROJ-001-oss-release/ORCHESTRATION_PLAN.md" in prompt  # the safe entries stay
    for path in unsafe:
        assert path not in prompt
    assert SECRET not in prompt
    assert "left 5 files_to_read entries outside the project out of the prompt" in run.stderr


def test_the_compaction_alert_never_points_at_an_orchestration_file_outside(tmp_path: Path) -> None:
    root = project(tmp_path)
    outside_file(tmp_path, "ORCHESTRATION.yaml")
    data = json.loads(pending_checkpoint())
    data["recovery_instructions"]["files_to_read"] = [{"path": "../outside/ORCHESTRATION.yaml", "priority": 1}]
    with_checkpoint(root, json.dumps(data).encode())
    run = hook(root, "SessionStart", hook_payload(root, "SessionStart"))
    alert = hook_answer(run, "SessionStart")["hookSpecificOutput"]["additionalContext"]
    assert "Read ORCHESTRATION.yaml resumption section: ORCHESTRATION.yaml" in alert  # the project's own
    assert "../outside" not in alert and SECRET not in alert


@pytest.mark.parametrize("event", HOOK_EVENTS)
def test_a_checkpoint_file_outside_the_project_is_never_read(tmp_path: Path, event: str) -> None:
    root = project(tmp_path)
    outside = outside_file(tmp_path, "cx-002-checkpoint.json")
    data = json.loads(pending_checkpoint())
    data["recovery_instructions"]["critical_context"] = SECRET  # what Template 2 would inject
    outside.write_text(json.dumps(data))
    text = (root / "ORCHESTRATION.yaml").read_text()
    text = re.sub(r'checkpoint_file: "[^"]*"', 'checkpoint_file: "../outside/cx-002-checkpoint.json"', text)
    (root / "ORCHESTRATION.yaml").write_text(text)
    (root / ".jerry" / "checkpoints").mkdir(parents=True)
    (root / ".jerry" / "checkpoints" / "cx-002-checkpoint.json").symlink_to(outside)  # and one symlinked in
    for source in ("startup", "compact") if event == "SessionStart" else ("",):
        stdin = {**hook_payload(root, event), **({"source": source} if source else {})}
        output = hook_answer(hook(root, event, stdin), event)
        assert SECRET not in json.dumps(output)


def test_check_reports_every_path_that_leaves_the_project(tmp_path: Path) -> None:
    """X002 (files_to_read, lexical and through a symlink), A005 (checkpoint_file) and N006
    (files_to_load) on one project."""
    root = project(tmp_path)
    (root / ".git").mkdir()
    outside_file(tmp_path, "notes.md")
    (root / "shared").symlink_to(tmp_path / "outside")
    text = (root / "ORCHESTRATION.yaml").read_text()
    text = text.replace(
        "  files_to_read:\n", '  files_to_read:\n    - "../../etc/passwd"\n    - path: "shared/notes.md"\n', 1
    )
    text = re.sub(r'checkpoint_file: "[^"]*"', 'checkpoint_file: "../../etc/passwd"', text, count=1)
    (root / "ORCHESTRATION.yaml").write_text(text)
    manifest = root / "02-projects" / "01-demo" / "01-planning" / "resume-context.md"
    manifest.parent.mkdir(parents=True)
    manifest.write_text(
        '---\nresume_schema_version: "2.0"\nlast_updated: "2026-02-17T11:00:00Z"\nproject_id: 01-demo\n'
        'files_to_load:\n  - "../../../../etc/passwd"\n  - "linked.md"\n---\n# Resume\n'
    )
    (manifest.parent.parent / "linked.md").symlink_to(tmp_path / "outside" / "notes.md")  # escapes by a link
    run = measured_ctxres(root, "check", "--select", "X002,A005,N006", ".")
    no_traceback(run)
    assert run.returncode == 1
    found = {(m.split(":")[0], m.split(" ")[1]) for m in re.findall(r"^\S+:\d+:\d+: [A-Z]\d{3}", run.stdout, re.M)}
    assert found == {
        ("ORCHESTRATION.yaml", "X002"),
        ("ORCHESTRATION.yaml", "A005"),
        ("02-projects/01-demo/01-planning/resume-context.md", "N006"),
    }, run.stdout
    assert "resolves through a symbolic link to" in run.stdout
    assert run.stdout.count(": X002 ") == 2
    assert run.stdout.count(": N006 ") == 2
    assert "`files_to_load` entry 'linked.md' resolves through a symbolic link to" in run.stdout


@pytest.mark.parametrize("event", HOOK_EVENTS)
def test_a_fifo_where_a_state_file_should_be_never_blocks_a_hook(tmp_path: Path, event: str) -> None:
    root = tmp_path / "project"
    root.mkdir()
    os.mkfifo(root / "ORCHESTRATION.yaml")  # found by name, opened: a plain open() would wait forever
    os.makedirs(root / ".jerry" / "checkpoints")
    os.mkfifo(root / ".jerry" / "checkpoints" / "cx-001-checkpoint.json")
    os.mkfifo(root / ".jerry" / "context-monitor-state.json")
    os.mkfifo(root / ".jerry" / "context-monitor-cache.json")
    run = hook(root, event, hook_payload(root, event))
    output = hook_answer(run, event)
    assert output == {} or _names_the_unreadable_workflow(output), output


def test_a_fifo_where_a_state_file_should_be_never_blocks_a_command(tmp_path: Path) -> None:
    root = tmp_path / "project"
    (root / ".jerry" / "checkpoints").mkdir(parents=True)
    os.mkfifo(root / "ORCHESTRATION.yaml")
    os.mkfifo(root / "notes.yaml")  # sniffed for a `resumption:` key: never opened
    os.mkfifo(root / ".jerry" / "checkpoints" / "cx-001-checkpoint.json")
    check = measured_ctxres(root, "check", ".")
    no_traceback(check)
    assert check.returncode == 1
    assert sorted(LOCATED.findall(check.stdout)) == [
        ".jerry/checkpoints/cx-001-checkpoint.json:1:1: P009 ",
        "ORCHESTRATION.yaml:1:1: P009 ",
    ], check.stdout
    assert one_line_refusal(measured_ctxres(root, "migrate", "ORCHESTRATION.yaml")).startswith(
        "ORCHESTRATION.yaml: error: "
    )
    assert one_line_refusal(measured_ctxres(root, "ack", "--file", "ORCHESTRATION.yaml")).startswith("ctxres ack: ")


NEXUS_FRONTS = {
    "outside-entries": (
        'files_to_load:\n  - "../../../outside/notes.md"\n  - "/etc/passwd"\n  - "01-planning/plan.md"\n'
    ),
    "alias-bomb": _bomb().replace("workflow:\n  status: ACTIVE\nresumption:\n", "bomb:\n"),
    "deep-flow": "files_to_load: " + "[" * DEEP + "]" * DEEP + "\n",
    "deep-block": "files_to_load:\n  " + "- " * DEEP + "x\n",
}


@pytest.mark.parametrize("name", sorted(NEXUS_FRONTS))
def test_nexus_sessionstart_never_loads_outside_or_hostile_manifests(
    workspace: Path, tmp_path: Path, name: str
) -> None:
    """The Nexus profile: files_to_load entries outside the project are listed as not loaded, and a
    hostile front matter ends in "could not be read", never in a crash."""
    outside_file(workspace.parent, "notes.md")
    (workspace / ".ctxres.toml").write_text('profile = "nexus"\n')  # the hooks serve Nexus manifests
    calls = transcript(tmp_path / "session.jsonl", edits_of_one_project(workspace))
    hook(workspace, "PreCompact", precompact_payload(calls))
    manifest = workspace / "02-projects" / P24 / "01-planning" / "resume-context.md"
    manifest.write_text('---\nresume_schema_version: "2.0"\n' + NEXUS_FRONTS[name] + "---\n# Resume\n")
    run = hook(workspace, "SessionStart", sessionstart_payload("compact"))
    record(f"SessionStart nexus manifest {name}", run)
    text = hook_answer(run, "SessionStart")["hookSpecificOutput"]["additionalContext"]
    assert SECRET not in text
    if name == "outside-entries":
        assert "Not loaded (unsafe entries of files_to_load): ../../../outside/notes.md" in text
        assert f"   - 02-projects/{P24}/01-planning/plan.md" in text
    else:
        assert "its front matter could not be read" in text


# --------------------------------------------------------------------------- the guards themselves (pure)


def test_real_files_keep_the_fast_parser_and_load_as_before() -> None:
    """No false alarm: every YAML file of the corpus is read by libyaml, and the guarded load gives the
    same data as ``yaml.safe_load``."""
    import yaml

    from ctxres.formats import yamlguard

    files = sorted((FIXTURES / "corpus").rglob("*.yaml"))
    assert len(files) > 20
    for path in files:
        text = path.read_text("utf-8")
        assert yamlguard.loader_for(text) is yaml.CSafeLoader, path
        try:
            expected = yaml.safe_load(text)
        except yaml.YAMLError:  # the corpus has broken files too: the guarded load says so as well
            with pytest.raises(yaml.YAMLError):
                yamlguard.load(text)
            continue
        assert yamlguard.load(text) == expected, path


def test_the_guards_refuse_bombs_and_deep_nesting_without_building_anything() -> None:
    import yaml

    from ctxres.formats import yamlguard

    with pytest.raises(yamlguard.YamlGuardError, match="alias bomb"):
        yamlguard.load(_bomb())
    with pytest.raises(yamlguard.YamlGuardError, match="recursive alias"):
        yamlguard.load("&a [*a]")
    with pytest.raises(yamlguard.YamlGuardError, match="1,000 levels") as caught:
        yamlguard.load("x: " + "[" * DEEP)
    assert caught.value.offset == 3 + 1000  # the bracket that crossed the limit
    assert yamlguard.loader_for("- " * DEEP + "x") is yaml.SafeLoader  # the Python parser: no crash
    with pytest.raises(yamlguard.YamlGuardError, match="nested too deeply"):
        yamlguard.load("- " * DEEP + "x")
    # shared anchors below the limit are fine, and aliases inside one value count once per use
    assert yamlguard.expansion(yaml.compose("a: &a [1, 2]\nb: *a\nc: *a\n")) == 6
    assert yamlguard.load("a: &a [1, 2]\nb: *a\n") == {"a": [1, 2], "b": [1, 2]}
    assert yamlguard.load("[" * 999 + "]" * 999) is not None  # deep but within the bracket bound
