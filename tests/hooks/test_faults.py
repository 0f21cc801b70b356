"""Faults: a process killed in the middle of a write, a full disk, a read-only state directory, symlinks.

The kill tests run the real hook and CLI code in ``tests/_kill_child.py``: a fork server that imports
the code once and runs every trial in a fresh ``fork()``, with a SIGKILL injected just before the
Nth call of a file-system function (``os.open``, ``os.write``, ``os.fsync``, ``os.link``,
``os.replace``, ...). The N of the first trials sweep every call of the write path, the rest are drawn
from a seeded generator: the kill lands inside the write with certainty, at every step of it. A second
series kills the real ``ctxres-hook`` / ``ctxres`` processes after a random (seeded) delay drawn from
their measured run time.

After each kill: every file of the project is its old bytes or the complete new file (checkpoint JSON
valid against ``schemas/checkpoint.schema.json`` and byte-identical to an uninterrupted run);
leftovers are only ``.<name>.<pid>.<hex>.tmp`` files, which ``ctxres check`` ignores (same report
with and without them); the next run of the same command succeeds and completes the work exactly.
"""

from __future__ import annotations

import errno
import json
import os
import random
import re
import resource
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FIXTURES, ROOT
from tests.hooks.hook_project import (
    EVENT_FIELDS,
    HELPER,
    NOW,
    TEMPLATE_ORCHESTRATION,
    hook_env,
    monitor_state,
    payload,
    transcript,
    validate,
)

ACK_WORKSPACE = FIXTURES / "ack" / "two-unacknowledged"
ACK_NOW = "2026-03-02T11:30:00Z"
KILLS = 200
TIMED_KILLS = 25
TEMP_NAME = re.compile(r"^\..+\.\d+\.[0-9a-f]{8}\.tmp$")
CX = ".jerry/checkpoints/cx-{:03d}.json"  # the name PreCompact writes
ACK_ORDER = (  # the files `ctxres ack --all` writes, in the order it writes them
    "projects/PROJ-002/ORCHESTRATION.yaml",
    ".jerry/checkpoints/cx-001-checkpoint.json",
    ".jerry/checkpoints/cx-002-checkpoint.json",
)


# --- helpers -------------------------------------------------------------------------------------


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file of the project (relative path -> bytes); ``.git`` is left out."""
    found = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_file() and not path.is_symlink() and not rel.startswith(".git/"):
            found[rel] = path.read_bytes()
    return found


def hook_project(root: Path, *, tokens: int = 177_200) -> Path:
    """A project at the PROJ-001 QG-2 compaction point, with a transcript and a monitor state."""
    root.mkdir(parents=True)
    (root / ".git").mkdir()
    shutil.copy(TEMPLATE_ORCHESTRATION, root / "ORCHESTRATION.yaml")
    transcript(root, tokens)
    monitor_state(root, transcript_path=str(root / "transcript.jsonl"))
    return root


def leftovers(root: Path) -> list[Path]:
    return [p for p in root.rglob("*.tmp") if p.is_file()]


class Server:
    """The fork server of ``tests/_kill_child.py``: runs hook and CLI commands, optionally killed."""

    def __init__(self, scratch: Path) -> None:
        self.scratch = scratch
        self.count = 0
        self.process = subprocess.Popen(
            [sys.executable, str(HELPER), "server"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            cwd=ROOT,
        )

    def run(self, command: dict[str, Any]) -> dict[str, Any]:
        self.count += 1
        command = {"capture": str(self.scratch / f"run{self.count}"), **command}
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps(command) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        assert line, "the fork server died"
        reply: dict[str, Any] = json.loads(line)
        return reply

    def hook(
        self, event: str, root: Path, *, kill_at: int | None = None, fields: dict[str, Any] | None = None, **extra: Any
    ) -> dict[str, Any]:
        stdin = json.dumps(payload(root, event, **(EVENT_FIELDS[event] if fields is None else fields)))
        env = {"CLAUDE_PROJECT_DIR": str(root), "CTXRES_NOW": NOW}
        return self.run(
            {"kind": "hook", "argv": [event], "stdin": stdin, "cwd": str(root), "env": env, "kill_at": kill_at, **extra}
        )

    def cli(self, root: Path, *argv: str, kill_at: int | None = None, **extra: Any) -> dict[str, Any]:
        return self.run({"kind": "cli", "argv": list(argv), "cwd": str(root), "kill_at": kill_at, **extra})

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=60)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    os.environ.pop("CTXRES_ORCHESTRATION", None)
    started = Server(tmp_path_factory.mktemp("fork-server"))
    yield started
    started.close()


def hook_answer(reply: dict[str, Any], event: str) -> dict[str, Any]:
    """A hook run that was not killed: exit 0 and one JSON object valid for the event (PreCompact:
    nothing on stdout, which stands for ``{}``)."""
    assert not reply["killed"] and reply["code"] == 0, reply
    assert "Traceback" not in reply["stderr"]
    if event == "PreCompact":
        assert reply["stdout"] == ""
        return {}
    output: dict[str, Any] = json.loads(reply["stdout"])
    validate(f"hook-{event.lower()}-output", output)
    return output


def check_ignores_leftovers(server: Server, root: Path, scratch: Path) -> None:
    """``ctxres check`` succeeds with the temp files present and reports exactly what it reports without them."""
    clean = scratch / "clean"
    shutil.rmtree(clean, ignore_errors=True)
    shutil.copytree(root, clean, symlinks=True)
    for temp in leftovers(clean):
        temp.unlink()
    with_temps, without = server.cli(root, "check", "."), server.cli(clean, "check", ".")
    assert with_temps["code"] in (0, 1) and "Traceback" not in with_temps["stderr"], with_temps
    assert (with_temps["code"], with_temps["stdout"], with_temps["stderr"]) == (
        without["code"],
        without["stdout"],
        without["stderr"],
    )


def kill_points(total: int, rng: random.Random) -> list[int]:
    """Every call of the write path once (1..total+1: the last is "after every call"), then random ones."""
    sweep = list(range(1, total + 2))
    return (sweep + [rng.randint(1, total + 1) for _ in range(KILLS)])[:KILLS]


# --- kill: PreCompact -------------------------------------------------------------------------------


def assert_precompact_state(before: dict[str, bytes], root: Path, reference: bytes) -> int:
    """Old files untouched; the only new files are the complete checkpoint cx-002 or temp files.
    Returns the number the next checkpoint must take."""
    after = snapshot(root)
    for rel, data in before.items():
        assert after.get(rel) == data, f"{rel} changed"
    new = set(after) - set(before)
    for rel in new:
        if rel == CX.format(2):
            assert after[rel] == reference, "a partial or different checkpoint was left"
            validate("checkpoint", json.loads(after[rel]))
        else:
            assert TEMP_NAME.match(Path(rel).name), f"unexpected file {rel}"
    return 3 if CX.format(2) in new else 2


def assert_next_precompact(server: Server, root: Path, number: int, reference: bytes) -> None:
    """The next PreCompact run succeeds, writes checkpoint ``number`` (no gap, no duplicate), complete."""
    names_before = {p.name for p in (root / ".jerry" / "checkpoints").glob("cx-*")}
    reply = server.hook("PreCompact", root)
    assert hook_answer(reply, "PreCompact") == {} and reply["stderr"] == ""
    names = {p.name for p in (root / ".jerry" / "checkpoints").glob("cx-*")}
    assert names - names_before == {f"cx-{number:03d}.json"}
    written = (root / CX.format(number)).read_bytes()
    assert written == reference.replace(b'"event_id": "cx-002"', f'"event_id": "cx-{number:03d}"'.encode())
    alert = hook_answer(server.hook("SessionStart", root), "SessionStart")
    assert "<compaction-alert>" in alert["hookSpecificOutput"]["additionalContext"]


def test_precompact_killed_at_any_point_leaves_old_or_complete_files(server: Server, tmp_path: Path) -> None:
    pristine = hook_project(tmp_path / "pristine")
    first = tmp_path / "reference"
    shutil.copytree(pristine, first)
    done = server.hook("PreCompact", first)
    assert hook_answer(done, "PreCompact") == {} and done["stderr"] == ""
    reference = (first / CX.format(2)).read_bytes()
    validate("checkpoint", json.loads(reference))
    total = done["calls"]
    assert total >= 6  # open, write, fsync, close, link, unlink at least: the write path is watched
    rng = random.Random(8_2024)
    stats = {"killed": 0, "checkpoint": 0, "temps": 0}
    for trial, point in enumerate(kill_points(total, rng)):
        root = tmp_path / "trial"
        shutil.rmtree(root, ignore_errors=True)
        shutil.copytree(pristine, root)
        before = snapshot(root)
        reply = server.hook("PreCompact", root, kill_at=point)
        assert reply["killed"] == (point <= total), (trial, point, reply)
        number = assert_precompact_state(before, root, reference)
        stats["killed"] += reply["killed"]
        stats["checkpoint"] += number == 3
        if leftovers(root):
            stats["temps"] += 1
            if trial <= total:  # the sweep: once per kill point (the random repeats leave the same files)
                check_ignores_leftovers(server, root, tmp_path)
        assert_next_precompact(server, root, number, reference)
    # the sweep reaches both outcomes: killed before the link (no file) and after it (complete file)
    assert stats["killed"] > 0 and 0 < stats["checkpoint"] < KILLS and stats["temps"] > 0, stats


# --- kill: ctxres ack -------------------------------------------------------------------------------


def assert_ack_state(before: dict[str, bytes], root: Path, expected: dict[str, bytes]) -> None:
    """Each file old or exactly the merged result; the files merged are a prefix of the write order
    (the section first: a stop in between is completed by the next `ctxres ack`); only temp files new."""
    after = snapshot(root)
    for rel, data in before.items():
        if after.get(rel) != data:
            assert rel in expected and after.get(rel) == expected[rel], f"{rel} is neither old nor the merge result"
    changed = tuple(rel for rel in ACK_ORDER if after[rel] != before[rel])
    assert changed == ACK_ORDER[: len(changed)], changed
    for rel in set(after) - set(before):
        assert TEMP_NAME.match(Path(rel).name), f"unexpected file {rel}"


def test_ack_killed_at_any_point_leaves_old_or_complete_files(server: Server, tmp_path: Path) -> None:
    argv = ("ack", "--all", "--now", ACK_NOW)
    first = tmp_path / "reference"
    shutil.copytree(ACK_WORKSPACE, first)
    before = snapshot(first)
    done = server.cli(first, *argv)
    assert done["code"] == 0, done
    expected = {rel: data for rel, data in snapshot(first).items() if before.get(rel) != data}
    assert sorted(expected) == sorted(ACK_ORDER)
    total = done["calls"]
    rng = random.Random(8_2025)
    partial = 0
    for trial, point in enumerate(kill_points(total, rng)):
        root = tmp_path / "trial"
        shutil.rmtree(root, ignore_errors=True)
        shutil.copytree(ACK_WORKSPACE, root)
        reply = server.cli(root, *argv, kill_at=point)
        assert reply["killed"] == (point <= total), (trial, point, reply)
        assert_ack_state(before, root, expected)
        partial += snapshot(root) != before
        if leftovers(root) and trial <= total:  # once per kill point, as above
            check_ignores_leftovers(server, root, tmp_path)
        again = server.cli(root, *argv)
        assert again["code"] == 0 and again["stderr"] == "", again
        final = snapshot(root)
        assert {rel: final[rel] for rel in ACK_ORDER} == expected
    assert 0 < partial < KILLS


# --- kill: the real processes, after a random delay ------------------------------------------------


def _timed_run(argv: list[str], root: Path, stdin: bytes, delay: float | None) -> tuple[bool, float]:
    """Run the real process; SIGKILL it after ``delay`` seconds (None: let it finish). (killed, seconds)."""
    started = time.monotonic()
    process = subprocess.Popen(
        argv,
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=hook_env(root),
        cwd=root,
    )
    assert process.stdin is not None
    process.stdin.write(stdin)
    process.stdin.close()
    if delay is None:
        process.wait(timeout=120)
        return False, time.monotonic() - started
    try:
        process.wait(timeout=delay)
    except subprocess.TimeoutExpired:
        process.send_signal(signal.SIGKILL)
    code = process.wait(timeout=120)
    return code == -signal.SIGKILL, time.monotonic() - started


def _window(argv: list[str], make: Any, stdin: Any, scratch: Path) -> float:
    """The start-to-exit time of an uninterrupted run (the longest of three)."""
    longest = 0.0
    for index in range(3):
        root = make(scratch / f"measure{index}")
        longest = max(longest, _timed_run(argv, root, stdin(root), None)[1])
    return longest


def test_real_processes_killed_after_a_random_delay(server: Server, tmp_path: Path) -> None:
    rng = random.Random(8_2026)
    hook_argv = [sys.executable, "-m", "ctxres.hooks.main", "PreCompact"]
    ack_argv = [sys.executable, "-m", "ctxres.linters.cli", "ack", "--all", "--now", ACK_NOW]

    def make_hook(root: Path) -> Path:
        return hook_project(root)

    def make_ack(root: Path) -> Path:
        shutil.copytree(ACK_WORKSPACE, root)
        return root

    reference_root = make_hook(tmp_path / "reference")
    assert hook_answer(server.hook("PreCompact", reference_root), "PreCompact") == {}
    reference = (reference_root / CX.format(2)).read_bytes()
    ack_root = make_ack(tmp_path / "ack-reference")
    ack_before = snapshot(ack_root)
    assert server.cli(ack_root, "ack", "--all", "--now", ACK_NOW)["code"] == 0
    expected = {rel: data for rel, data in snapshot(ack_root).items() if ack_before.get(rel) != data}

    def stdin_for(root: Path) -> bytes:
        return json.dumps(payload(root, "PreCompact", **EVENT_FIELDS["PreCompact"])).encode()

    window = _window(hook_argv, make_hook, stdin_for, tmp_path / "m-hook")
    for trial in range(TIMED_KILLS):
        root = make_hook(tmp_path / f"hook{trial}")
        before = snapshot(root)
        _timed_run(hook_argv, root, stdin_for(root), rng.uniform(0, window))
        number = assert_precompact_state(before, root, reference)
        if leftovers(root):
            check_ignores_leftovers(server, root, tmp_path)
        assert_next_precompact(server, root, number, reference)
    window = _window(ack_argv, make_ack, lambda root: b"", tmp_path / "m-ack")
    for trial in range(TIMED_KILLS):
        root = make_ack(tmp_path / f"ack{trial}")
        _timed_run(ack_argv, root, b"", rng.uniform(0, window))
        assert_ack_state(ack_before, root, expected)
        again = server.cli(root, "ack", "--all", "--now", ACK_NOW)
        assert again["code"] == 0, again
        assert {rel: snapshot(root)[rel] for rel in ACK_ORDER} == expected


# --- full disk, read-only state directory ----------------------------------------------------------
#
# Full disk: ``os.write`` fails with ENOSPC in the fork server's child (``fault="ENOSPC"``), and a real
# process runs with ``RLIMIT_FSIZE`` 0 and SIGXFSZ ignored, so that every write to a file fails with
# EFBIG. Read-only: the tests run as root, for whom ``chmod`` changes nothing, so a read-only file
# system is simulated: every ``os.open`` for writing, ``mkdir``, ``link``, ``rename``, ``replace`` and
# ``unlink`` under the state directory (the project for the CLI) fails with EROFS (``fault="EROFS"``);
# and a plain file stands where the state directory should be (ENOTDIR).

V1_WORKFLOW = """\
workflow:
  id: "wf-v1"
  status: "ACTIVE"
quality_gates:
  qg-2:
    status: "IN_PROGRESS"
    current_iteration: 2
resumption:
  last_checkpoint: "CP-003"
  current_state: "Phase 3 in progress: QG-2 iteration 2 scoring."
  next_step: "Finish scoring QG-2 iteration 2"
"""
HOOK_FAULTS = ("ENOSPC", "EROFS", "EFBIG", "ENOTDIR")
CLI_FAULTS = ("ENOSPC", "EROFS", "EFBIG")


def write_payload(root: Path) -> dict[str, Any]:
    target = str(root / "ORCHESTRATION.yaml")
    return {
        "tool_name": "Write",
        "tool_input": {"file_path": target, "content": "..."},
        "tool_response": {"filePath": target, "success": True},
    }


def lived_in_project(server: Server, root: Path, *, v1: bool = False) -> Path:
    """A project after a normal session: a checkpoint cx-002, the monitor state and its cache."""
    hook_project(root, tokens=140_000)
    if v1:
        (root / "ORCHESTRATION.yaml").write_text(V1_WORKFLOW)
    for event in ("PreCompact", "UserPromptSubmit"):
        reply = server.hook(event, root)
        hook_answer(reply, event)
        assert reply["stderr"] == ""
    expected = {".jerry/context-monitor-state.json", ".jerry/context-monitor-cache.json"}
    assert expected <= set(snapshot(root)) and (v1 or (root / CX.format(2)).is_file())
    return root


def _limited_file_size() -> None:  # preexec_fn of the EFBIG runs
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))


def run_with_fault(
    server: Server, fault: str, root: Path, argv: list[str], stdin: str, under: Path
) -> tuple[int, str, str]:
    """(exit status, stdout, stderr) of the real code with ``fault``; hooks when argv[0] is an event."""
    is_hook = argv[0] in EVENT_FIELDS or argv[0] == "PostToolUse"
    if fault == "EFBIG":
        module = "ctxres.hooks.main" if is_hook else "ctxres.linters.cli"
        done = subprocess.run(
            [sys.executable, "-m", module, *argv],
            input=stdin.encode(),
            capture_output=True,
            env=hook_env(root),
            cwd=root,
            preexec_fn=_limited_file_size,
            timeout=120,
        )
        return done.returncode, done.stdout.decode(), done.stderr.decode()
    if fault == "ENOTDIR":
        shutil.rmtree(root / ".jerry")
        (root / ".jerry").write_text("a file where the state directory should be\n")
    command: dict[str, Any] = {"kind": "hook" if is_hook else "cli", "argv": argv, "cwd": str(root), "stdin": stdin}
    command["env"] = {"CLAUDE_PROJECT_DIR": str(root), "CTXRES_NOW": NOW}
    if fault in ("ENOSPC", "EROFS"):
        command.update(fault=fault, fault_under=str(under))
    reply = server.run(command)
    assert not reply["killed"]
    return reply["code"], reply["stdout"], reply["stderr"]


def problem_words(fault: str) -> str:
    return {
        "ENOSPC": os.strerror(errno.ENOSPC),
        "EROFS": os.strerror(errno.EROFS),
        "EFBIG": os.strerror(errno.EFBIG),
        "ENOTDIR": os.strerror(errno.ENOTDIR),
    }[fault]


HOOK_CASES = {  # event -> (what the stderr line names, whether the answer injects text)
    "PreCompact": (".jerry/checkpoints", False),
    "UserPromptSubmit": (".jerry/context-monitor-state.json", True),
    "PostToolUse": (".jerry/context-monitor-cache.json", True),
}


@pytest.mark.parametrize("fault", HOOK_FAULTS)
@pytest.mark.parametrize("event", sorted(HOOK_CASES))
def test_hook_on_a_full_disk_or_read_only_state_dir(server: Server, tmp_path: Path, event: str, fault: str) -> None:
    """Exit 0, a valid answer, exactly one stderr line naming the file and the error; nothing changed."""
    root = lived_in_project(server, tmp_path / "project", v1=event == "PostToolUse")
    fields = write_payload(root) if event == "PostToolUse" else EVENT_FIELDS[event]
    if event == "UserPromptSubmit":
        transcript(root, 150_000)  # a new reading: the monitor state must be rewritten
    before = snapshot(root)
    stdin = json.dumps(payload(root, event, **fields))
    code, out, err = run_with_fault(server, fault, root, [event], stdin, root / ".jerry")
    assert code == 0
    assert (out == "") == (event == "PreCompact")  # PreCompact prints nothing, even on errors
    output = json.loads(out or "{}")
    validate(f"hook-{event.lower()}-output", output)
    named, injects = HOOK_CASES[event]
    assert ("hookSpecificOutput" in output) == injects
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"ctxres-hook: {event}: ") and problem_words(fault) in lines[0], lines[0]
    assert named in lines[0] or (fault == "ENOTDIR" and ".jerry" in lines[0]), lines[0]
    if fault == "ENOTDIR":
        before = {rel: data for rel, data in before.items() if not rel.startswith(".jerry/")}
        before[".jerry"] = b"a file where the state directory should be\n"
    assert snapshot(root) == before  # nothing lost, nothing partial, no temp file


@pytest.mark.parametrize("fault", CLI_FAULTS)
@pytest.mark.parametrize("command", ["ack", "migrate"])
def test_cli_on_a_full_disk_or_read_only_project(server: Server, tmp_path: Path, command: str, fault: str) -> None:
    """A non-zero exit, one error line naming the problem; every file byte-identical, no temp file."""
    root = tmp_path / "project"
    if command == "ack":
        shutil.copytree(ACK_WORKSPACE, root)
        argv = ["ack", "--all", "--now", ACK_NOW]
        under = root / ".jerry"  # the state directory only: the section must not be merged alone
    else:
        root.mkdir()
        (root / ".git").mkdir()
        (root / "ORCHESTRATION.yaml").write_text(V1_WORKFLOW)
        argv = ["migrate", "ORCHESTRATION.yaml", "--write"]
        under = root
    before = snapshot(root)
    code, _, err = run_with_fault(server, fault, root, argv, "", under)
    assert code != 0
    lines = err.splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    assert problem_words(fault) in lines[0], lines[0]
    assert snapshot(root) == before


# --- symlinks out of the project --------------------------------------------------------------------

MARKER = "OUTSIDE-MARKER-7f3a"


def outside_checkpoint(reference: Path, target: Path) -> bytes:
    """A valid checkpoint (from ``reference``) whose texts carry :data:`MARKER`, written at ``target``."""
    data = json.loads(reference.read_text())
    data["recovery_instructions"]["next_action"] = f"Run {MARKER} now."
    data["recovery_instructions"]["critical_context"] = MARKER
    data["event_id"] = "cx-003"
    validate("checkpoint", data)
    target.parent.mkdir(parents=True, exist_ok=True)
    raw = (json.dumps(data, indent=2) + "\n").encode()
    target.write_bytes(raw)
    return raw


def symlinked(server: Server, tmp_path: Path, link: str) -> tuple[Path, Path, dict[str, bytes]]:
    """A lived-in project and an outside folder (a checkpoint with the marker, a monitor state and a cache
    with the marker); ``link`` (``.jerry``, ``.jerry/checkpoints`` or a file of ``.jerry``) becomes a symlink
    to its outside counterpart. (project, outside folder, outside files before)."""
    root = lived_in_project(server, tmp_path / "project")
    outside = tmp_path / "outside"
    outside_checkpoint(root / CX.format(2), outside / "checkpoints" / "cx-003.json")
    state = json.loads((root / ".jerry" / "context-monitor-state.json").read_text())
    (outside / "context-monitor-state.json").write_text(json.dumps({**state, "fill": 0.123, "tokens": 24_600}))
    cache = json.loads((root / ".jerry" / "context-monitor-cache.json").read_text())
    cache["workflow"]["last_checkpoint"] = MARKER  # shown by the monitor if this cache were read
    (outside / "context-monitor-cache.json").write_text(json.dumps(cache))
    target = outside / Path(link).relative_to(".jerry") if link != ".jerry" else outside
    local = root / link
    if local.is_dir():
        shutil.rmtree(local)
    else:
        local.unlink(missing_ok=True)
    local.symlink_to(target, target_is_directory=target.is_dir())
    return root, outside, snapshot(outside)


def single_line(reply: dict[str, Any], event: str, *words: str) -> None:
    lines = reply["stderr"].splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"ctxres-hook: {event}: "), reply["stderr"]
    assert all(word in lines[0] for word in words), lines[0]


@pytest.mark.parametrize("link", [".jerry", ".jerry/checkpoints"])
def test_state_or_checkpoint_folder_symlinked_out_is_refused_by_every_hook(
    server: Server, tmp_path: Path, link: str
) -> None:
    root, outside, before = symlinked(server, tmp_path, link)
    reply = server.hook("PreCompact", root)
    assert hook_answer(reply, "PreCompact") == {}
    single_line(reply, "PreCompact", "refusing", "outside the project")
    reply = server.hook("SessionStart", root)
    text = hook_answer(reply, "SessionStart")["hookSpecificOutput"]["additionalContext"]
    assert MARKER not in text and "<compaction-alert>" in text  # the generic alert, nothing read from outside
    single_line(reply, "SessionStart", "outside the project")
    for event in ("UserPromptSubmit", "PostToolUse"):
        fields = write_payload(root) if event == "PostToolUse" else None
        reply = server.hook(event, root, fields=fields)
        assert MARKER not in json.dumps(hook_answer(reply, event))
        if link == ".jerry":  # the state folder itself is refused, and said
            single_line(reply, event, "outside the project")
    assert snapshot(outside) == before  # nothing written through the link


def test_checkpoint_file_symlinked_out_is_never_read_into_the_session(server: Server, tmp_path: Path) -> None:
    root, outside, before = symlinked(server, tmp_path, ".jerry/checkpoints/cx-003.json")
    reply = server.hook("SessionStart", root)
    text = hook_answer(reply, "SessionStart")["hookSpecificOutput"]["additionalContext"]
    assert MARKER not in text
    assert "could not be read (.jerry/checkpoints/cx-003.json is a symbolic link" in text  # says why
    assert str(outside) not in text and "../" not in text
    reply = server.hook("PreCompact", root)  # the name is taken: the next checkpoint is cx-004
    assert hook_answer(reply, "PreCompact") == {} and reply["stderr"] == ""
    assert (root / CX.format(4)).is_file() and (root / CX.format(3)).is_symlink()
    assert snapshot(outside) == before


@pytest.mark.parametrize("name", ["context-monitor-state.json", "context-monitor-cache.json"])
def test_monitor_files_symlinked_out_are_not_read_nor_written_through(
    server: Server, tmp_path: Path, name: str
) -> None:
    root, outside, before = symlinked(server, tmp_path, f".jerry/{name}")
    reply = server.hook("PreCompact", root)
    assert hook_answer(reply, "PreCompact") == {}
    context = json.loads((root / CX.format(3)).read_text())["context_state"]
    assert context["estimated_fill_before_compaction"] != 0.123  # the outside monitor state was not used
    transcript(root, 150_000)
    for event in ("UserPromptSubmit", "PostToolUse"):
        fields = write_payload(root) if event == "PostToolUse" else None
        reply = server.hook(event, root, fields=fields)
        assert MARKER not in json.dumps(hook_answer(reply, event)) and reply["stderr"] == ""
    assert snapshot(outside) == before
    local = root / ".jerry" / name
    if name == "context-monitor-state.json":  # rewritten: the link was replaced by a regular file
        assert not local.is_symlink()
        validate("monitor-state", json.loads(local.read_text()))


@pytest.mark.parametrize(
    "link", [".jerry/checkpoints", ".jerry/checkpoints/cx-001-checkpoint.json", "ORCH", "ORCH-file"]
)
def test_ack_refuses_symlinks_out_of_the_project(server: Server, tmp_path: Path, link: str) -> None:
    """A checkpoint folder, a checkpoint or the workflow file (found, or named with --file) leading out."""
    root = tmp_path / "project"
    shutil.copytree(ACK_WORKSPACE, root)
    outside = tmp_path / "outside"
    local = root / (ACK_ORDER[0] if link.startswith("ORCH") else link)
    shutil.copytree(local, outside / local.name) if local.is_dir() else shutil.copytree(local.parent, outside)
    target = outside / local.name
    shutil.rmtree(local) if local.is_dir() else local.unlink()
    local.symlink_to(target, target_is_directory=target.is_dir())
    inside_before, outside_before = snapshot(root), snapshot(outside)
    argv = ["ack", "--all", "--now", ACK_NOW] + (["--file", ACK_ORDER[0]] if link == "ORCH-file" else [])
    reply = server.cli(root, *argv)
    assert reply["code"] == 1, reply
    lines = reply["stderr"].splitlines()
    assert len(lines) == 1 and lines[0].startswith("ctxres ack: refused, nothing changed:"), reply["stderr"]
    assert "outside" in lines[0]
    assert snapshot(root) == inside_before and snapshot(outside) == outside_before
