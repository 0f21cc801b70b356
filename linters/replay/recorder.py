"""``ctxres record --into DIR -- ctxres-hook EVENT``: record a live hook session as a replay fixture.

Put it in front of a hook command in ``.claude/settings.json``::

    "command": "ctxres record --into fixtures/replay/my-session -- ctxres-hook PreCompact"

Each call reads the payload from stdin, runs the wrapped command with that payload and passes its
stdout, stderr and exit status through unchanged, and appends one step to the fixture in DIR
(the format of ``fixtures/README.md``):

- the first call copies the workflow files (``*ORCHESTRATION*``), the state dir and the project
  configuration into ``workspace/``;
- ``edits``: the recorded files that changed since the previous call (the workflow's own edits);
- ``transcript``: the transcript lines appended since the previous call (copied to
  ``transcripts/<name>``; the step says how many);
- ``stdin``, ``now`` (the time of the call, or ``CTXRES_NOW``), ``event``;
- ``expected/NN-name/``: what the hook answered and every recorded file it wrote.

In front of ``ctxres ack|check|stale ...`` or ``git commit ...`` (what a developer runs outside the
client) it records a ``command`` step instead (see :func:`replayed_command`).

In payloads, edits and outputs the paths of the project and the transcript folder are written as
``$PROJECT`` / ``$TRANSCRIPTS``; transcript lines are copied byte for byte (the monitor records the
transcript's size, which must be the same when replayed). Secrets are redacted (``ctxres.redact``) in
everything written. Recording never breaks the hook: a recording problem is one line on stderr and
the hook's own answer is still passed through. Calls are recorded one at a time (a lock file in DIR):
the client may run hooks side by side.

With a frozen clock (``CTXRES_NOW``, a scripted recording such as
``fixtures/replay/record_real_client.py``), the modification time of every recorded file is pinned to
it before and after the hook, as ``ctxres replay`` does, so ``ctxres replay DIR`` is green the first
time. In a live session nothing is pinned; the hooks' private cache then records real modification
times, so review the first ``ctxres replay DIR --update``.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import difflib
import fnmatch
import json
import os
import subprocess
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import yaml

from ctxres.hook_events import EVENTS
from ctxres.linters.replay.player import (
    COMMANDS,
    PROJECT_MARK,
    STEPS_FILE,
    TRANSCRIPTS_DIR,
    TRANSCRIPTS_MARK,
    WORKSPACE,
    stdout_outputs,
)
from ctxres.redact import redact, redact_value

if sys.platform != "win32":
    import fcntl

STATE_FILE = ".record-state.json"
LOCK_FILE = ".record.lock"
RECORDED_PATTERNS = ("*ORCHESTRATION*", ".ctxres.toml", ".claude/settings.json")
MAX_RECORDED_BYTES = 2 * 1024 * 1024
HOOK_TIMEOUT = 120


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "record",
        help="record a live hook session as a replay fixture (put it in front of ctxres-hook)",
        description="Run the hook command after `--` with the payload read from stdin, pass its output "
        "through unchanged, and append the call (payload, workspace edits since the previous call, new "
        "transcript lines, the hook's output and the files it wrote; secrets redacted) to the fixture DIR.",
        epilog="Exit status: the wrapped command's. Example: ctxres record --into DIR -- ctxres-hook PreCompact",
    )
    parser.add_argument("--into", type=Path, required=True, metavar="DIR", help="the fixture directory to append to")
    parser.add_argument(
        "--state-dir", default=".jerry", metavar="NAME", help="the state folder to record (default: .jerry)"
    )
    parser.add_argument("hook", nargs=argparse.REMAINDER, metavar="-- COMMAND", help="the hook command to run")
    parser.set_defaults(handler=run)


# ------------------------------------------------------------------------------------- pure parts


def recorded(relative: str, state_dir: str) -> bool:
    """Whether a project file (posix path relative to the project) belongs to the recording."""
    if relative == state_dir or relative.startswith(state_dir.rstrip("/") + "/"):
        return True
    name = relative.rsplit("/", 1)[-1]
    return any(fnmatch.fnmatch(relative, p) or fnmatch.fnmatch(name, p) for p in RECORDED_PATTERNS)


def replacements(old: str, new: str) -> list[dict[str, str]] | None:
    """Text replacements (each ``old`` occurring exactly once when applied in order) that turn ``old``
    into ``new``, one per changed block of lines; None when that is not possible (pure)."""
    a, b = old.splitlines(keepends=True), new.splitlines(keepends=True)
    pairs = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        if i1 == i2:  # a pure insertion: anchor it on the line before
            if i1 == 0:
                return None
            i1 -= 1
            j1 -= 1
        before, after = "".join(a[i1:i2]), "".join(b[j1:j2])
        if before.endswith("\n") and after.endswith("\n"):  # shorter, and reads as the lines themselves
            before, after = before[:-1], after[:-1]
        pairs.append({"old": before, "new": after})
    text = old
    for pair in pairs:
        if text.count(pair["old"]) != 1:
            return None
        text = text.replace(pair["old"], pair["new"])
    return pairs if text == new else None


def edits_between(before: dict[str, str], after: dict[str, str]) -> list[dict[str, Any]]:
    """The edits that turn ``before`` into ``after`` (path -> text): line replacements when they are
    unambiguous, else whole-file writes; deletions."""
    edits: list[dict[str, Any]] = []
    for path in sorted(set(before) | set(after)):
        if path not in after:
            edits.append({"path": path, "delete": True})
        elif before.get(path) != after[path]:
            pairs = replacements(before[path], after[path]) if path in before else None
            edits.append({"path": path, "replace": pairs} if pairs else {"path": path, "content": after[path]})
    return edits


class _Dumper(yaml.SafeDumper):
    """Multi-line strings as literal blocks, so recorded edits read like the files they change."""


def _text_representer(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value and not value.startswith(" ") and " \n" not in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _text_representer)


class Marks:
    """The real project and transcript folders and their placeholders."""

    def __init__(self, project: str, transcripts: str | None) -> None:
        self.pairs = [(project, PROJECT_MARK)]
        if transcripts:
            self.pairs.append((transcripts, TRANSCRIPTS_MARK))
        self.pairs.sort(key=lambda pair: -len(pair[0]))

    def text(self, value: str) -> str:
        for real, mark in self.pairs:
            value = value.replace(real, mark)
        return redact(value)

    def value(self, value: Any) -> Any:
        """``value`` with the paths marked and secrets redacted (also the value of a key such as ``password``)."""
        return redact_value(self._marked(value))

    def _marked(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, list):
            return [self._marked(item) for item in value]
        if isinstance(value, dict):
            return {key: self._marked(item) for key, item in value.items()}
        return value


# ------------------------------------------------------------------------------------------- I/O


SKIPPED_DIRS = frozenset({".git", "node_modules", ".venv", "venv", ".nox", "__pycache__"})


def project_dir(payload: dict[str, Any]) -> Path:
    named = os.environ.get("CLAUDE_PROJECT_DIR") or payload.get("cwd")
    return Path(named if isinstance(named, str) and named else os.getcwd()).resolve()


def _walk(project: Path) -> Iterator[tuple[str, Path]]:
    """(posix path relative to the project, path) of every regular file of the project."""
    for folder, dirs, files in os.walk(project):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS)
        for name in sorted(files):
            path = Path(folder, name)
            if not path.is_symlink():
                yield path.relative_to(project).as_posix(), path


def snapshot(project: Path, state_dir: str) -> dict[str, str]:
    """The recorded files of the project (path relative to it -> text, secrets redacted: the snapshot
    is kept in the fixture folder to compute the next call's edits)."""
    found: dict[str, str] = {}
    for relative, path in _walk(project):
        if not recorded(relative, state_dir):
            continue
        try:
            if path.stat().st_size <= MAX_RECORDED_BYTES:
                found[relative] = redact(path.read_text(encoding="utf-8", errors="replace"))
        except OSError:
            continue
    return found


def stamps(project: Path) -> dict[str, tuple[int, int, int]]:
    """(mtime in ns, size, inode) of every file of the project: what tells that a file was written."""
    found: dict[str, tuple[int, int, int]] = {}
    for relative, path in _walk(project):
        try:
            info = path.stat()
        except OSError:
            continue
        found[relative] = (info.st_mtime_ns, info.st_size, info.st_ino)
    return found


def frozen_now() -> str | None:
    """``CTXRES_NOW``, the frozen clock of a scripted recording (None in a live session)."""
    return os.environ.get("CTXRES_NOW") or None


def _now() -> str:
    return frozen_now() or dt.datetime.now(dt.timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def pin(project: Path, files: Iterable[str], now: str) -> None:
    """Set the modification time of ``files`` (relative to the project) to ``now``, as ``ctxres replay``
    does before and after each step, so that what the hooks cache (mtime and size of the workflow and
    checkpoint files) is the same live and in the replay."""
    moment = dt.datetime.fromisoformat(now.replace("Z", "+00:00"))
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.timezone.utc)
    ns = int(moment.timestamp()) * 1_000_000_000
    for relative in files:
        try:
            os.utime(project / relative, ns=(ns, ns))
        except OSError:
            continue


def _load_state(into: Path) -> dict[str, Any]:
    try:
        state = json.loads((into / STATE_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        state = None
    if not isinstance(state, dict):
        state = {}
    state.setdefault("files", None)
    state.setdefault("transcripts", {})
    state.setdefault("stamps", {})
    return state


def new_transcript_lines(path: str, offsets: dict[str, int]) -> list[str]:
    """The complete lines appended to the transcript since the previous call, byte for byte (secrets
    redacted). They are kept as the client wrote them, paths included, so that the replayed transcript
    has the very size and content the live hook read (the monitor records the transcript's size)."""
    try:
        with open(path, "rb") as handle:
            handle.seek(offsets.get(path, 0))
            data = handle.read()
    except OSError:
        return []
    complete = data[: data.rfind(b"\n") + 1]
    offsets[path] = offsets.get(path, 0) + len(complete)
    return [redact(raw.decode("utf-8", "replace")) + "\n" for raw in complete.split(b"\n")[:-1]]


def _write_workspace(into: Path, files: dict[str, str]) -> None:
    for relative, text in files.items():
        target = into / WORKSPACE / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(redact(text), encoding="utf-8")


def _append_step(into: Path, step: dict[str, Any]) -> int:
    path = into / STEPS_FILE
    document: dict[str, Any] = {"description": "Recorded with ctxres record.", "steps": []}
    if path.is_file():
        loaded = yaml.safe_load(path.read_text(encoding="utf-8"))
        if isinstance(loaded, dict) and isinstance(loaded.get("steps"), list):
            document = loaded
    document["steps"].append(step)
    text = yaml.dump(document, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)
    path.write_text(text, encoding="utf-8")
    return len(document["steps"])


def _write_expected(folder: Path, outputs: dict[str, bytes]) -> None:
    for name, data in outputs.items():
        target = folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


def step_name(payload: dict[str, Any]) -> str:
    """``sessionstart-startup``, ``precompact-auto``, ``posttooluse-edit``, ``userpromptsubmit``."""
    event = payload.get("hook_event_name")
    name = str(event or "call").lower()
    detail = payload.get("source") or payload.get("trigger") or payload.get("tool_name")
    if isinstance(detail, str) and detail:
        name += "-" + detail.lower()
    return "".join(char if char.isalnum() or char in "-_." else "-" for char in name)


def replayed_command(command: list[str]) -> list[str]:
    """The ``command`` of a replay step for a wrapped command that is not a hook: ``ctxres ack|check|stale
    ...`` (``ack`` without its ``--now``, which the replay adds) or ``git commit ...`` (``commit``); ``[]``
    for a hook."""
    if len(command) >= 2 and os.path.basename(command[0]) == "ctxres" and command[1] in COMMANDS:
        argv = command[1:]
        if argv[0] == "ack" and "--now" in argv:
            at = argv.index("--now")
            argv = argv[:at] + argv[at + 2 :]
        return argv
    if len(command) >= 2 and os.path.basename(command[0]) == "git" and "commit" in command[1:]:
        return ["commit"]
    return []


class Call:
    """One recorded call, prepared before the hook runs: the payload, the fixture's state, the files
    and transcript lines as the hook will find them."""

    def __init__(self, into: Path, state_dir: str, raw: bytes, command: list[str] | None = None) -> None:
        self.command = replayed_command(command or [])
        payload = json.loads(raw.decode("utf-8", "replace")) if raw.strip() and not self.command else {}
        self.payload: dict[str, Any] = payload if isinstance(payload, dict) else {}
        self.into = into
        self.state_dir = state_dir
        self.project = project_dir(self.payload)
        transcript = self.payload.get("transcript_path")
        self.transcript = transcript if isinstance(transcript, str) and transcript else None
        self.marks = Marks(str(self.project), os.path.dirname(self.transcript) if self.transcript else None)
        self.now = _now()
        into.mkdir(parents=True, exist_ok=True)
        self.state = _load_state(into)
        self.before = snapshot(self.project, state_dir)
        # the transcript as the hook will read it: taken before the hook runs
        self.lines = new_transcript_lines(self.transcript, self.state["transcripts"]) if self.transcript else []
        self.stamps = stamps(self.project)
        if frozen_now():
            known = self.state["stamps"]
            changed = [p for p in self.before if known.get(p) != list(self.stamps.get(p, ()))]
            pin(self.project, changed, self.now)
            self.stamps = stamps(self.project)

    def finish(self, done: subprocess.CompletedProcess[bytes]) -> None:
        """Append the call to the fixture (after the hook ran)."""
        into, marks = self.into, self.marks
        previous = self.state.get("files")
        if previous is None:
            _write_workspace(into, self.before)
            previous = self.before
        after_stamps = stamps(self.project)
        written = sorted(p for p, stamp in after_stamps.items() if self.stamps.get(p) != stamp)
        if frozen_now():
            pin(self.project, written, self.now)
            after_stamps = stamps(self.project)
        after = snapshot(self.project, self.state_dir)
        name = self.command[0] if self.command else step_name(self.payload)
        step: dict[str, Any] = {"name": name, "now": self.now}
        note = os.environ.get("CTXRES_RECORD_NOTE")
        if note:
            step["note"] = note
        edits = [marks.value(edit) for edit in edits_between(previous, self.before)]
        if edits:
            step["edits"] = edits
        if self.lines and self.transcript:
            name = os.path.basename(self.transcript)
            (into / TRANSCRIPTS_DIR).mkdir(exist_ok=True)
            with (into / TRANSCRIPTS_DIR / name).open("a", encoding="utf-8", newline="") as handle:
                handle.writelines(self.lines)
            step["transcript"] = {name: len(self.lines)}
        if self.command:
            step["command"] = self.command
        else:
            event = self.payload.get("hook_event_name")
            step["event"] = event if event in EVENTS else "UserPromptSubmit"
            step["stdin"] = marks.value(self.payload)
        number = _append_step(into, step)
        outputs = stdout_outputs(marks.text(done.stdout.decode("utf-8", "replace")))
        if done.stderr:
            outputs["stderr.txt"] = marks.text(done.stderr.decode("utf-8", "replace")).encode()
        if done.returncode:
            outputs["exit-code"] = f"{done.returncode}\n".encode()
        for path in written:
            if path in after_stamps:
                text = after.get(path)
                if text is None:
                    text = (self.project / path).read_text(encoding="utf-8", errors="replace")
                outputs[f"files/{path}"] = marks.text(text).encode()
        gone = sorted(set(self.stamps) - set(after_stamps))
        if gone:
            outputs["deleted.txt"] = "".join(f"{p}\n" for p in gone).encode()
        _write_expected(into / "expected" / f"{number:02d}-{step['name']}", outputs)
        self.state["files"] = after
        self.state["stamps"] = {p: list(after_stamps[p]) for p in after if p in after_stamps}
        (into / STATE_FILE).write_text(json.dumps(self.state, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def run(args: argparse.Namespace) -> int:
    command = args.hook[1:] if args.hook[:1] == ["--"] else args.hook
    if not command:
        print("ctxres record: give the hook command after `--` (ctxres-hook EVENT)", file=sys.stderr)
        return 2
    raw = sys.stdin.buffer.read()
    with _locked(args.into):  # the client may run hooks side by side: one call at a time is recorded
        return _run_and_record(args, command, raw)


@contextlib.contextmanager
def _locked(into: Path) -> Iterator[None]:
    """An exclusive lock on the fixture folder (POSIX; elsewhere calls are not serialised)."""
    if sys.platform == "win32":
        yield
        return
    try:
        into.mkdir(parents=True, exist_ok=True)
        handle = open(into / LOCK_FILE, "a+b")  # noqa: SIM115 - closed below
    except OSError:
        yield
        return
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        yield
    finally:
        handle.close()


def _run_and_record(args: argparse.Namespace, command: list[str], raw: bytes) -> int:
    call: Call | None = None
    try:
        call = Call(args.into, args.state_dir, raw, command)
    except Exception as exc:  # recording must never break the hook
        print(f"ctxres record: not recorded: {type(exc).__name__}: {exc}", file=sys.stderr)
    try:
        done = subprocess.run(command, input=raw, capture_output=True, timeout=HOOK_TIMEOUT, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        print(f"ctxres record: cannot run {' '.join(command)}: {exc}", file=sys.stderr)
        sys.stdout.write("{}\n")
        return 0
    sys.stdout.buffer.write(done.stdout)
    sys.stdout.flush()
    sys.stderr.buffer.write(done.stderr)
    if call is not None:
        try:
            call.finish(done)
        except Exception as exc:  # recording must never break the hook
            print(f"ctxres record: not recorded: {type(exc).__name__}: {exc}", file=sys.stderr)
    return done.returncode
