"""Replay recorded hook sessions (golden fixtures) and compare what the hooks do with ``expected/``.

A fixture is a directory (documented in ``fixtures/README.md``)::

    steps.yaml        description + the ordered steps
    workspace/        the project at the start (ORCHESTRATION.yaml, the state dir, ...)
    expected/NN-name/ per step: stdout.json, additional-context.txt, stderr.txt, exit-code,
                      files/<path> (every file the step wrote), deleted.txt

Each step is run against a fresh temporary copy of the workspace (one copy per fixture, shared by
its steps in order): the workflow's edits are applied, transcript lines are appended, then the real
``ctxres-hook EVENT`` process (or a ``ctxres`` command such as ``ack``) runs with the clock frozen
(``CTXRES_NOW``) and ``CLAUDE_PROJECT_DIR`` set. File modification times are pinned to the step's
clock, so the hooks' caches (keyed on mtime) are reproducible. Temporary paths are written as
``$PROJECT`` / ``$TRANSCRIPTS`` in outputs and payloads, so two runs give byte-identical results.
"""

from __future__ import annotations

import datetime as dt
import difflib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ctxres.formats.yamledit import EditError, set_key
from ctxres.hook_events import EVENTS

STEPS_FILE = "steps.yaml"
WORKSPACE = "workspace"
TRANSCRIPTS_DIR = "transcripts"
EXPECTED = "expected"
FILES = "files"
PROJECT_MARK = "$PROJECT"
TRANSCRIPTS_MARK = "$TRANSCRIPTS"
# `commit` makes the workspace a git repository (on first use) and commits it as it is: the HEAD a later
# `stale` step compares the staged workspace with, as the pre-commit hook does.
COMMANDS = ("ack", "check", "commit", "stale")
_GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "ctxres replay",
    "GIT_AUTHOR_EMAIL": "replay@ctxres.invalid",
    "GIT_COMMITTER_NAME": "ctxres replay",
    "GIT_COMMITTER_EMAIL": "replay@ctxres.invalid",
}
HOOK_TIMEOUT = 60
# Variables of the caller's environment that would change what a hook does: never passed on.
_DROPPED_ENV_PREFIXES = ("CTXRES_", "CLAUDE_")


class FixtureError(Exception):
    """A fixture that cannot be replayed (missing file, malformed step); one line for the user."""


@dataclass(slots=True, frozen=True)
class Edit:
    """A change the workflow made before a step: write a whole file, replace text once, set YAML keys
    (byte-preserving, ``ctxres.formats.yamledit``), or delete the file."""

    path: str
    content: str | None = None
    replacements: tuple[tuple[str, str], ...] = ()
    sets: tuple[tuple[str, Any], ...] = ()
    delete: bool = False


@dataclass(slots=True, frozen=True)
class Step:
    name: str
    now: str
    event: str | None = None
    command: tuple[str, ...] = ()
    stdin: Any = None
    edits: tuple[Edit, ...] = ()
    transcript: Mapping[str, int | tuple[Any, ...]] = field(default_factory=dict)
    note: str = ""


@dataclass(slots=True, frozen=True)
class Fixture:
    root: Path
    description: str
    steps: tuple[Step, ...]


@dataclass(slots=True)
class StepResult:
    """What a step produced, normalised: expected-file name -> bytes (``files/<path>`` for files)."""

    name: str
    outputs: dict[str, bytes]


# ------------------------------------------------------------------------------------------ loading


def _edit(raw: Any, where: str) -> Edit:
    if not isinstance(raw, dict) or not isinstance(raw.get("path"), str):
        raise FixtureError(f"{where}: an edit needs a `path`")
    pairs = []
    for item in raw.get("replace") or []:
        if not isinstance(item, dict) or not isinstance(item.get("old"), str) or not isinstance(item.get("new"), str):
            raise FixtureError(f"{where}: each `replace` item needs `old` and `new` strings")
        pairs.append((item["old"], item["new"]))
    content = raw.get("content")
    if content is not None and not isinstance(content, str):
        raise FixtureError(f"{where}: `content` must be a string")
    sets = raw.get("set") or {}
    if not isinstance(sets, dict) or not all(isinstance(key, str) for key in sets):
        raise FixtureError(f"{where}: `set` maps dotted YAML paths (resumption.recovery_state.updated_at) to values")
    delete = bool(raw.get("delete", False))
    if sum((content is not None, bool(pairs), bool(sets), delete)) != 1:
        raise FixtureError(f"{where}: an edit has exactly one of `content`, `replace`, `set`, `delete`")
    return Edit(raw["path"], content, tuple(pairs), tuple(sets.items()), delete)


def _step(raw: Any, index: int) -> Step:
    where = f"step {index}"
    if not isinstance(raw, dict):
        raise FixtureError(f"{where}: not a mapping")
    name = raw.get("name")
    if not isinstance(name, str) or not name or "/" in name:
        raise FixtureError(f"{where}: `name` must be a non-empty string without '/'")
    where = f"step {index} ({name})"
    now = raw.get("now")
    if isinstance(now, dt.datetime):
        now = now.isoformat().replace("+00:00", "Z")
    if not isinstance(now, str):
        raise FixtureError(f"{where}: `now` (the frozen clock, ISO-8601) is required")
    event, command = raw.get("event"), raw.get("command")
    if (event is None) == (command is None):
        raise FixtureError(f"{where}: a step has exactly one of `event` (a hook) and `command` (a ctxres command)")
    if event is not None and event not in EVENTS:
        raise FixtureError(f"{where}: unknown event {event!r}; expected one of {', '.join(EVENTS)}")
    if command is not None and (
        not isinstance(command, list)
        or not command
        or command[0] not in COMMANDS
        or not all(isinstance(a, str) for a in command)
    ):
        raise FixtureError(f"{where}: `command` must be a list of strings starting with one of {', '.join(COMMANDS)}")
    transcript = raw.get("transcript") or {}
    if not isinstance(transcript, dict) or not all(
        isinstance(v, list) or (isinstance(v, int) and not isinstance(v, bool) and v > 0) for v in transcript.values()
    ):
        raise FixtureError(
            f"{where}: `transcript` maps a transcript file name to the number of its next lines to append "
            "(from transcripts/<name> of the fixture) or to a list of lines"
        )
    return Step(
        name=f"{index:02d}-{name}",
        now=now,
        event=event,
        command=tuple(command or ()),
        stdin=raw.get("stdin"),
        edits=tuple(_edit(e, where) for e in raw.get("edits") or []),
        transcript={str(k): v if isinstance(v, int) else tuple(v) for k, v in transcript.items()},
        note=str(raw.get("note", "")),
    )


def find_fixtures(paths: Sequence[Path]) -> list[Path]:
    """The fixture directories under ``paths``, in a stable order (each path in turn, sorted by name
    beneath it), each once.

    A fixture is a folder holding ``steps.yaml``: a path that is one (or its ``steps.yaml``) is taken
    as it is; any other folder is searched at every depth, without descending into the fixtures found
    (their ``workspace/`` is a project, not more fixtures) or following links to folders. A path that
    does not exist, or a folder with no fixture at any depth, is a :class:`FixtureError`.
    """
    found: list[Path] = []
    seen: set[Path] = set()
    for path in paths:
        if path.name == STEPS_FILE and path.is_file():
            path = path.parent
        if not path.exists():
            raise FixtureError(f"{path}: no such fixture directory or folder")
        if not path.is_dir():
            raise FixtureError(f"{path}: not a fixture directory (a folder holding {STEPS_FILE}) nor a folder of them")
        under = _fixtures_under(path)
        if not under:
            raise FixtureError(
                f"{path}: no fixture here nor in any sub-folder (a fixture is a folder holding {STEPS_FILE})"
            )
        for fixture in under:
            key = fixture.resolve()
            if key not in seen:
                seen.add(key)
                found.append(fixture)
    return found


def _fixtures_under(folder: Path) -> list[Path]:
    if (folder / STEPS_FILE).is_file():
        return [folder]
    found: list[Path] = []
    pending = [folder]
    while pending:
        current = pending.pop()
        try:
            children = sorted((p for p in current.iterdir() if p.is_dir() and not p.is_symlink()), reverse=True)
        except OSError as exc:
            raise FixtureError(f"{current}: cannot list the folder ({exc.strerror or exc})") from None
        for child in children:
            if (child / STEPS_FILE).is_file():
                found.append(child)
            else:
                pending.append(child)
    return sorted(found)


def load_fixture(root: Path) -> Fixture:
    path = root / STEPS_FILE
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise FixtureError(f"{path}: cannot read ({exc.strerror or exc})") from None
    except yaml.YAMLError as exc:
        raise FixtureError(f"{path}: not valid YAML ({exc})") from None
    if not isinstance(data, dict) or not isinstance(data.get("steps"), list) or not data["steps"]:
        raise FixtureError(f"{path}: expected a mapping with a non-empty `steps` list")
    if not (root / WORKSPACE).is_dir():
        raise FixtureError(f"{root}: no {WORKSPACE}/ folder (the project at the start)")
    steps = tuple(_step(raw, i) for i, raw in enumerate(data["steps"], start=1))
    return Fixture(root, str(data.get("description", "")).strip(), steps)


# ------------------------------------------------------------------------------ normalising (pure)


class Paths:
    """The temporary locations of one replay and their placeholders."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.project = base / "project"
        self.transcripts = base / "transcripts"

    def marks(self) -> list[tuple[str, str]]:
        pairs = []
        for path, mark in ((self.project, PROJECT_MARK), (self.transcripts, TRANSCRIPTS_MARK)):
            for variant in {str(path), os.path.realpath(path)}:
                pairs.append((variant, mark))
        return sorted(pairs, key=lambda pair: -len(pair[0]))  # longest first

    def normalise(self, text: str) -> str:
        for real, mark in self.marks():
            text = text.replace(real, mark)
        return text

    def expand(self, value: Any) -> Any:
        """``$PROJECT`` / ``$TRANSCRIPTS`` in the strings of a payload replaced by the real paths."""
        if isinstance(value, str):
            return value.replace(PROJECT_MARK, str(self.project)).replace(TRANSCRIPTS_MARK, str(self.transcripts))
        if isinstance(value, list):
            return [self.expand(item) for item in value]
        if isinstance(value, dict):
            return {key: self.expand(item) for key, item in value.items()}
        return value


def stdout_outputs(text: str) -> dict[str, bytes]:
    """``stdout.json`` (pretty-printed when it is JSON, so diffs are readable) and, when the hook
    injected text, ``additional-context.txt`` with that text as the model sees it."""
    try:
        answer = json.loads(text)
    except ValueError:
        return {"stdout.json": text.encode()}
    outputs = {"stdout.json": (json.dumps(answer, indent=2, ensure_ascii=False) + "\n").encode()}
    specific = answer.get("hookSpecificOutput") if isinstance(answer, dict) else None
    context = specific.get("additionalContext") if isinstance(specific, dict) else None
    if isinstance(context, str):
        outputs["additional-context.txt"] = (context.rstrip("\n") + "\n").encode()
    return outputs


def unified(expected: bytes | None, actual: bytes | None, label: str) -> str:
    """A unified diff of two versions of a golden file (``None``: the file does not exist)."""

    def lines(data: bytes | None) -> list[str]:
        return [] if data is None else data.decode("utf-8", "replace").splitlines(keepends=True)

    diff = difflib.unified_diff(
        lines(expected),
        lines(actual),
        fromfile=f"expected/{label}" if expected is not None else "/dev/null",
        tofile=f"actual/{label}" if actual is not None else "/dev/null",
    )
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in diff)


# ----------------------------------------------------------------------------------------- running


def _timestamp_ns(now: str) -> int:
    moment = dt.datetime.fromisoformat(now.replace("Z", "+00:00"))
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.timezone.utc)
    return int(moment.timestamp()) * 1_000_000_000


def _entries(base: Path) -> list[Path]:
    found: list[Path] = []
    for folder, dirs, files in os.walk(base):
        dirs[:] = sorted(d for d in dirs if d != ".git")  # a `commit` step's repository is not an output
        found.extend(Path(folder, name) for name in dirs + sorted(files))
    return found


def settle(base: Path, pinned: dict[Path, int], now_ns: int) -> set[Path]:
    """Pin the mtime of every file and folder under ``base`` that is new or was written since the last
    call to ``now_ns``; the files (not folders) concerned. Removed entries are forgotten."""
    touched: set[Path] = set()
    present = set()
    for path in _entries(base):
        present.add(path)
        info = path.lstat()
        if path.is_symlink():
            continue
        if pinned.get(path) != info.st_mtime_ns:
            os.utime(path, ns=(now_ns, now_ns))
            pinned[path] = now_ns
            if path.is_file():
                touched.add(path)
    for gone in set(pinned) - present:
        del pinned[gone]
    return touched


def _contents(base: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in _entries(base) if p.is_file() and not p.is_symlink()}


def apply_edits(project: Path, edits: Sequence[Edit], where: str) -> None:
    for edit in edits:
        target = project / edit.path
        if not target.resolve().is_relative_to(project.resolve()):
            raise FixtureError(f"{where}: edit of {edit.path} leaves the project")
        if edit.delete:
            target.unlink()
            continue
        if edit.content is not None:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(edit.content, encoding="utf-8")
            continue
        text = target.read_text(encoding="utf-8")
        for dotted, value in edit.sets:
            *parent, key = dotted.split(".")
            try:
                text = set_key(text, tuple(parent), key, value)
            except (EditError, yaml.YAMLError) as exc:
                raise FixtureError(f"{where}: {edit.path}: cannot set {dotted}: {exc}") from None
        for old, new in edit.replacements:
            if text.count(old) != 1:
                raise FixtureError(f"{where}: {edit.path}: {old!r} occurs {text.count(old)} times, not once")
            text = text.replace(old, new)
        target.write_text(text, encoding="utf-8")


class Transcripts:
    """The fixture's recorded transcripts (``transcripts/<name>``, Claude Code JSONL) and how many
    lines of each were appended so far."""

    def __init__(self, root: Path) -> None:
        self.root = root / TRANSCRIPTS_DIR
        self.lines: dict[str, list[str]] = {}
        self.cursor: dict[str, int] = {}

    def take(self, name: str, count: int, where: str) -> list[str]:
        if name not in self.lines:
            try:
                self.lines[name] = (self.root / name).read_text(encoding="utf-8").splitlines(keepends=True)
            except OSError as exc:
                raise FixtureError(f"{where}: cannot read {TRANSCRIPTS_DIR}/{name} ({exc.strerror or exc})") from None
        start = self.cursor.get(name, 0)
        taken = self.lines[name][start : start + count]
        if len(taken) != count:
            raise FixtureError(
                f"{where}: {TRANSCRIPTS_DIR}/{name} has {len(self.lines[name]) - start} more lines, not {count}"
            )
        self.cursor[name] = start + count
        return taken


def append_transcript(
    paths: Paths, transcript: Mapping[str, int | Sequence[Any]], source: Transcripts, where: str
) -> None:
    """Append the step's lines: the next N lines of the recorded transcript (byte for byte, with
    ``$PROJECT``/``$TRANSCRIPTS`` expanded), or the listed lines (serialised as compact JSON)."""
    paths.transcripts.mkdir(exist_ok=True)
    for name, lines in transcript.items():
        if isinstance(lines, int):
            texts = [paths.expand(line) for line in source.take(name, lines, where)]
        else:
            texts = [json.dumps(paths.expand(line), ensure_ascii=False, separators=(",", ":")) + "\n" for line in lines]
        with (paths.transcripts / name).open("a", encoding="utf-8") as handle:
            handle.writelines(texts)


def child_env(paths: Paths, now: str, extra: Mapping[str, str] | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(_DROPPED_ENV_PREFIXES)}
    env.update(
        {
            "CLAUDE_PROJECT_DIR": str(paths.project),
            "CTXRES_NOW": now,
            "HOME": str(paths.base / "home"),
            "TZ": "UTC",
            "PYTHONHASHSEED": "0",
            "NO_COLOR": "1",
        }
    )
    env.update(extra or {})
    return env


def _git(paths: Paths, now: str, *args: str) -> None:
    env = {**child_env(paths, now, None), **_GIT_IDENTITY, "GIT_AUTHOR_DATE": now, "GIT_COMMITTER_DATE": now}
    subprocess.run(["git", *args], cwd=paths.project, env=env, capture_output=True, check=True, timeout=HOOK_TIMEOUT)


def run_process(step: Step, paths: Paths, extra_env: Mapping[str, str] | None) -> subprocess.CompletedProcess[bytes]:
    if step.command[:1] == ("commit",):
        if not (paths.project / ".git").exists():
            _git(paths, step.now, "init", "-q", "-b", "main")
        _git(paths, step.now, "add", "-A")
        _git(paths, step.now, "commit", "-q", "--allow-empty", "-m", f"replay: {step.name}")
        return subprocess.CompletedProcess(["git", "commit"], 0, b"", b"")
    if step.command[:1] == ("stale",):
        _git(paths, step.now, "add", "-A")  # stage the workspace as a developer would before committing
    if step.event is not None:
        argv = [sys.executable, "-m", "ctxres.hooks.main", step.event]
    else:
        argv = [sys.executable, "-m", "ctxres.linters.cli", *step.command]
        if step.command[0] == "ack" and "--now" not in step.command:
            argv += ["--now", step.now]
    stdin = b"" if step.stdin is None else json.dumps(paths.expand(step.stdin), ensure_ascii=False).encode()
    return subprocess.run(
        argv,
        input=stdin,
        capture_output=True,
        cwd=paths.project,
        env=child_env(paths, step.now, extra_env),
        timeout=HOOK_TIMEOUT,
        check=False,
    )


def run_step(
    step: Step, paths: Paths, pinned: dict[Path, int], extra_env: Mapping[str, str] | None, source: Transcripts
) -> StepResult:
    now_ns = _timestamp_ns(step.now)
    apply_edits(paths.project, step.edits, step.name)
    append_transcript(paths, step.transcript, source, step.name)
    settle(paths.base, pinned, now_ns)
    before = _contents(paths.project)
    done = run_process(step, paths, extra_env)
    written = settle(paths.base, pinned, now_ns)
    after = _contents(paths.project)
    outputs = stdout_outputs(paths.normalise(done.stdout.decode("utf-8", "replace")))
    if done.stderr:
        outputs["stderr.txt"] = paths.normalise(done.stderr.decode("utf-8", "replace")).encode()
    if done.returncode != 0:
        outputs["exit-code"] = f"{done.returncode}\n".encode()
    for path in sorted(p for p in written if p in after):
        relative = path.relative_to(paths.project).as_posix()
        outputs[f"{FILES}/{relative}"] = paths.normalise(after[path].decode("utf-8", "replace")).encode()
    deleted = sorted(p.relative_to(paths.project).as_posix() for p in set(before) - set(after))
    if deleted:
        outputs["deleted.txt"] = "".join(f"{name}\n" for name in deleted).encode()
    return StepResult(step.name, outputs)


def run_fixture(fixture: Fixture, extra_env: Mapping[str, str] | None = None) -> list[StepResult]:
    """Run every step of ``fixture`` in a temporary copy of its workspace; the normalised results."""
    with tempfile.TemporaryDirectory(prefix="ctxres-replay-") as tmp:
        return run_fixture_in(fixture, Path(tmp), extra_env)


def run_fixture_in(fixture: Fixture, base: Path, extra_env: Mapping[str, str] | None = None) -> list[StepResult]:
    """Run every step of ``fixture`` in ``base`` (an empty folder, kept afterwards: the project in
    ``base/project``, the session's transcripts in ``base/transcripts``); the normalised results."""
    paths = Paths(base)
    shutil.copytree(fixture.root / WORKSPACE, paths.project, symlinks=True)
    paths.transcripts.mkdir()
    (paths.base / "home").mkdir()
    pinned: dict[Path, int] = {}
    settle(paths.base, pinned, _timestamp_ns(fixture.steps[0].now))
    source = Transcripts(fixture.root)
    return [run_step(step, paths, pinned, extra_env, source) for step in fixture.steps]


# ------------------------------------------------------------------------------------- comparing


def read_expected(root: Path) -> dict[str, dict[str, bytes]]:
    """step name -> {golden name -> bytes} from ``expected/``."""
    folder = root / EXPECTED
    found: dict[str, dict[str, bytes]] = {}
    if not folder.is_dir():
        return found
    for step_dir in sorted(p for p in folder.iterdir() if p.is_dir()):
        found[step_dir.name] = {
            p.relative_to(step_dir).as_posix(): p.read_bytes() for p in sorted(step_dir.rglob("*")) if p.is_file()
        }
    return found


def compare(fixture_name: str, results: Sequence[StepResult], expected: Mapping[str, Mapping[str, bytes]]) -> list[str]:
    """One block per difference: a heading naming fixture, step and file, then the unified diff."""
    problems = []
    actual = {r.name: r.outputs for r in results}
    for step in sorted(set(actual) | set(expected)):
        got, want = actual.get(step, {}), expected.get(step, {})
        if step not in actual:
            problems.append(f"{fixture_name}: step {step}: expected/{step}/ exists but the fixture has no such step\n")
            continue
        for name in sorted(set(got) | set(want)):
            if got.get(name) != want.get(name):
                heading = f"{fixture_name}: step {step}: {name} differs"
                problems.append(f"{heading}\n{unified(want.get(name), got.get(name), f'{step}/{name}')}")
    return problems


def write_expected(root: Path, results: Sequence[StepResult]) -> None:
    folder = root / EXPECTED
    if folder.exists():
        shutil.rmtree(folder)
    for result in results:
        for name, data in result.outputs.items():
            target = folder / result.name / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)


def replay(root: Path, *, update: bool = False, extra_env: Mapping[str, str] | None = None) -> list[str]:
    """Replay one fixture; the differences with its goldens (after ``update``: what changed)."""
    fixture = load_fixture(root)
    results = run_fixture(fixture, extra_env)
    differences = compare(root.name, results, read_expected(root))
    if update and differences:
        write_expected(root, results)
    return differences
