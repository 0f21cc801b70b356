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

Paths of the project and the transcript folder are written as ``$PROJECT`` / ``$TRANSCRIPTS``, and
secrets are redacted (``ctxres.redact``) in everything written. Recording never breaks the hook: a
recording problem is one line on stderr and the hook's own answer is still passed through. Replay the
result with ``ctxres replay DIR`` (the goldens hold what the live hook did; the hooks' private cache
records real modification times, so review the first ``ctxres replay DIR --update``).
"""

from __future__ import annotations

import argparse
import datetime as dt
import difflib
import fnmatch
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

from ctxres.linters.replay.player import (
    EVENTS,
    PROJECT_MARK,
    STEPS_FILE,
    TRANSCRIPTS_DIR,
    TRANSCRIPTS_MARK,
    WORKSPACE,
    stdout_outputs,
)
from ctxres.redact import redact, redact_value

STATE_FILE = ".record-state.json"
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


def project_dir(payload: dict[str, Any]) -> Path:
    named = os.environ.get("CLAUDE_PROJECT_DIR") or payload.get("cwd")
    return Path(named if isinstance(named, str) and named else os.getcwd()).resolve()


def snapshot(project: Path, state_dir: str) -> dict[str, str]:
    """The recorded files of the project (path relative to it -> text, secrets redacted: the snapshot
    is kept in the fixture folder to compute the next call's edits)."""
    found: dict[str, str] = {}
    skip = {".git", "node_modules", ".venv", "venv", ".nox", "__pycache__"}
    for folder, dirs, files in os.walk(project):
        dirs[:] = sorted(d for d in dirs if d not in skip)
        for name in sorted(files):
            path = Path(folder, name)
            relative = path.relative_to(project).as_posix()
            if not recorded(relative, state_dir) or path.is_symlink():
                continue
            try:
                if path.stat().st_size <= MAX_RECORDED_BYTES:
                    found[relative] = redact(path.read_text(encoding="utf-8", errors="replace"))
            except OSError:
                continue
    return found


def _now() -> str:
    frozen = os.environ.get("CTXRES_NOW")
    if frozen:
        return frozen
    return dt.datetime.now(dt.timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def _load_state(into: Path) -> dict[str, Any]:
    try:
        state = json.loads((into / STATE_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {"files": None, "transcripts": {}}
    return state if isinstance(state, dict) else {"files": None, "transcripts": {}}


def new_transcript_lines(path: str, offsets: dict[str, int], marks: Marks) -> list[str]:
    """The complete lines appended to the transcript since the previous call, as text (paths marked,
    secrets redacted)."""
    try:
        with open(path, "rb") as handle:
            handle.seek(offsets.get(path, 0))
            data = handle.read()
    except OSError:
        return []
    complete = data[: data.rfind(b"\n") + 1]
    offsets[path] = offsets.get(path, 0) + len(complete)
    return [marks.text(raw.decode("utf-8", "replace")) + "\n" for raw in complete.splitlines() if raw.strip()]


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


def record_call(
    into: Path, state_dir: str, raw: bytes, done: subprocess.CompletedProcess[bytes], before: dict[str, str]
) -> None:
    """Append one call to the fixture (called after the hook ran; ``before``: the files before it)."""
    payload = json.loads(raw.decode("utf-8", "replace")) if raw.strip() else {}
    payload = payload if isinstance(payload, dict) else {}
    project = project_dir(payload)
    transcript = payload.get("transcript_path")
    transcript = transcript if isinstance(transcript, str) and transcript else None
    marks = Marks(str(project), os.path.dirname(transcript) if transcript else None)
    into.mkdir(parents=True, exist_ok=True)
    state = _load_state(into)
    previous = state.get("files")
    if previous is None:
        _write_workspace(into, before)
        previous = before
    after = snapshot(project, state_dir)
    event = payload.get("hook_event_name")
    step: dict[str, Any] = {"name": f"{str(event or 'call').lower()}", "now": _now()}
    edits = [marks.value(edit) for edit in edits_between(previous, before)]
    if edits:
        step["edits"] = edits
    if transcript:
        lines = new_transcript_lines(transcript, state.setdefault("transcripts", {}), marks)
        if lines:
            name = os.path.basename(transcript)
            (into / TRANSCRIPTS_DIR).mkdir(exist_ok=True)
            with (into / TRANSCRIPTS_DIR / name).open("a", encoding="utf-8") as handle:
                handle.writelines(lines)
            step["transcript"] = {name: len(lines)}
    step["event"] = event if event in EVENTS else "UserPromptSubmit"
    step["stdin"] = marks.value(payload)
    number = _append_step(into, step)
    outputs = stdout_outputs(marks.text(done.stdout.decode("utf-8", "replace")))
    if done.stderr:
        outputs["stderr.txt"] = marks.text(done.stderr.decode("utf-8", "replace")).encode()
    if done.returncode:
        outputs["exit-code"] = f"{done.returncode}\n".encode()
    for path in sorted(p for p in after if before.get(p) != after[p]):
        outputs[f"files/{path}"] = marks.text(after[path]).encode()
    gone = sorted(set(before) - set(after))
    if gone:
        outputs["deleted.txt"] = "".join(f"{p}\n" for p in gone).encode()
    _write_expected(into / "expected" / f"{number:02d}-{step['name']}", outputs)
    state["files"] = after
    (into / STATE_FILE).write_text(json.dumps(state, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def run(args: argparse.Namespace) -> int:
    command = args.hook[1:] if args.hook[:1] == ["--"] else args.hook
    if not command:
        print("ctxres record: give the hook command after `--` (ctxres-hook EVENT)", file=sys.stderr)
        return 2
    raw = sys.stdin.buffer.read()
    before: dict[str, str] = {}
    try:
        payload = json.loads(raw.decode("utf-8", "replace")) if raw.strip() else {}
        before = snapshot(project_dir(payload if isinstance(payload, dict) else {}), args.state_dir)
    except (ValueError, OSError) as exc:
        print(f"ctxres record: not recorded ({exc})", file=sys.stderr)
    try:
        done = subprocess.run(command, input=raw, capture_output=True, timeout=HOOK_TIMEOUT, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        print(f"ctxres record: cannot run {' '.join(command)}: {exc}", file=sys.stderr)
        sys.stdout.write("{}\n")
        return 0
    sys.stdout.buffer.write(done.stdout)
    sys.stdout.flush()
    sys.stderr.buffer.write(done.stderr)
    try:
        record_call(args.into, args.state_dir, raw, done, before)
    except Exception as exc:  # recording must never break the hook
        print(f"ctxres record: not recorded: {type(exc).__name__}: {exc}", file=sys.stderr)
    return done.returncode
