"""``ctxres check --jobs N``: the same findings in any number of processes; Ctrl-C and a dying worker end
the run cleanly; progress on stderr only in a terminal.

Every test runs the real ``ctxres`` command. The trees are copies of corpus files (several hundred, so
that the worker pool is used: fewer files are checked in one process).
"""

from __future__ import annotations

import os
import pty
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
FIXTURES = ROOT / "fixtures"
CORPUS = FIXTURES / "corpus"
CTXRES = [sys.executable, "-m", "ctxres.linters.cli"]
ORCHESTRATION = CORPUS / "orchestration" / "008-PROJ-001-oss-release--FEAT-002-research-and-preparation.yaml"


def _check(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CTXRES, "check", *args], cwd=cwd, capture_output=True, text=True, timeout=900, check=False)


def _tree(root: Path, copies: int) -> Path:
    """``copies`` workflow folders, each with a large ORCHESTRATION.yaml of the corpus and a checkpoint."""
    checkpoint = (CORPUS / "checkpoints" / "cx-002.d933ffb7.json").read_bytes()
    for number in range(copies):
        folder = root / f"wf-{number:04d}"
        (folder / ".jerry" / "checkpoints").mkdir(parents=True)
        shutil.copyfile(ORCHESTRATION, folder / "ORCHESTRATION.yaml")
        (folder / ".jerry" / "checkpoints" / "cx-001.json").write_bytes(checkpoint)
    return root


@pytest.mark.parametrize("folder", ["fixtures", "fixtures/corpus"])
def test_findings_do_not_depend_on_the_number_of_processes(folder: str) -> None:
    runs = {jobs: _check(folder, "--output-format", "json", "--jobs", jobs) for jobs in ("1", "2", "3")}
    one = runs["1"]
    assert one.returncode == 1 and '"code"' in one.stdout, one.stderr
    for jobs, done in runs.items():
        assert (done.returncode, done.stderr) == (one.returncode, one.stderr), jobs
        # A finding that says how long ago something happened is the only text that moves with the clock.
        assert _without_clock(done.stdout) == _without_clock(one.stdout), jobs


def _without_clock(text: str) -> list[str]:
    return [line for line in text.splitlines() if "it is now" not in line]


def test_jobs_must_be_a_positive_number() -> None:
    for value in ("0", "-2", "many"):
        done = _check("fixtures/corpus", "--jobs", value)
        assert done.returncode == 2, value
        assert "--jobs" in done.stderr and "expected a number of processes" in done.stderr, done.stderr
        assert "Traceback" not in done.stderr


def _command_name(pid: int) -> str | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat[stat.index("(") + 1 : stat.rindex(")")]


def _children(pid: int) -> list[int]:
    """The pool's worker processes of ``pid``: its children that run what it runs (forked from it), not the
    short-lived commands it starts (``git`` to find the files or the top of the work tree)."""
    found = []
    name = _command_name(pid)
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid and _command_name(int(entry)) == name:
                found.append(int(entry))
    return found


# A terminal's shell starts a foreground job with Ctrl-C at its default (a job started with SIGINT ignored or
# blocked, as a background job or under nohup, rightly keeps ignoring it): the process is started so, whatever
# state the test runner's process is in, then becomes ctxres (the same process, the same group).
_FOREGROUND = (
    "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
    "signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT}); "
    "os.execv(sys.executable, [sys.executable, *sys.argv[1:]])"
)


def _signal_state(pid: int) -> str:
    """The signal masks of a process (SigBlk, SigIgn, SigCgt), for a failure's message."""
    try:
        lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError:
        return "(ended)"
    return " ".join(line for line in lines if line.startswith(("SigBlk", "SigIgn", "SigCgt")))


def _start_pool(tree: Path) -> tuple[subprocess.Popen[str], list[int]]:
    process = subprocess.Popen(
        [sys.executable, "-c", _FOREGROUND, *CTXRES[1:], "check", ".", "--jobs", "2"],
        cwd=tree,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, as a terminal's foreground job
    )
    while process.poll() is None:
        workers = _children(process.pid)
        if workers:
            # A command the process starts (git) carries its name between fork and exec; a worker keeps it.
            time.sleep(0.2)
            workers = sorted(set(workers) & set(_children(process.pid)))
            if workers:
                return process, workers
        time.sleep(0.01)
    pytest.fail(f"ctxres check ended before it started its workers: {process.communicate()}")


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="finds the worker processes in /proc")
def test_ctrl_c_stops_every_process_without_a_traceback(tmp_path: Path) -> None:
    process, _workers = _start_pool(_tree(tmp_path, 400))
    state = _signal_state(process.pid)
    os.killpg(process.pid, signal.SIGINT)  # what Ctrl-C in a terminal does: the whole group
    stdout, stderr = process.communicate(timeout=300)
    assert process.returncode == 130, (stderr, stdout[-300:], state)
    assert "Traceback" not in stderr and "KeyboardInterrupt" not in stderr, stderr


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="finds the worker processes in /proc")
def test_a_worker_that_dies_fails_the_run_with_one_line(tmp_path: Path) -> None:
    process, workers = _start_pool(_tree(tmp_path, 400))
    os.kill(workers[0], signal.SIGKILL)
    stdout, stderr = process.communicate(timeout=300)
    assert process.returncode == 2, stderr
    assert stderr.startswith("ctxres: error: a worker process ended abruptly"), stderr
    assert "--jobs 1" in stderr and "Traceback" not in stderr
    assert stdout == ""


def test_progress_in_a_terminal_only(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    checkpoint = (CORPUS / "checkpoints" / "cx-001.d933ffb7.json").read_bytes()
    for number in range(1000):
        folder = tree / f"p{number // 50:02d}" / ".jerry" / "checkpoints"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"cx-{number % 50 + 1:03d}.json").write_bytes(checkpoint)
    piped = _check(".", "--jobs", "1", "--exit-zero", cwd=tree)
    assert piped.returncode == 0 and piped.stderr == "", piped.stderr
    leader, follower = pty.openpty()
    try:
        done = subprocess.run(
            [*CTXRES, "check", ".", "--jobs", "1", "--exit-zero"],
            cwd=tree,
            stdout=subprocess.PIPE,
            stderr=follower,
            timeout=900,
            check=False,
            env={**os.environ, "CTXRES_PROGRESS_AFTER": "0"},  # from the start, however fast the machine
        )
        os.close(follower)
        shown = b""
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # EIO: the terminal has no writer left
                break
            if not chunk:
                break
            shown += chunk
    finally:
        os.close(leader)
    assert done.returncode == 0
    text = shown.decode()
    redraws = text.count("\rctxres check: ")
    assert 1 <= redraws < 1000, text  # throttled: not one line per file
    assert "ctxres check: 1,000/1,000 files" in text
    last = "ctxres check: 1,000/1,000 files"
    assert text.endswith(f"\r{' ' * len(last)}\r"), repr(text[-60:])  # erased at the end
    assert done.stdout == piped.stdout.encode()
