"""Writers of files a person or another tool also edits: `ctxres ack` (and `migrate --write`) never replace
a change they did not see, keep a CRLF file CRLF, and say what a full disk means.

A concurrent edit: unit tests patch the moment of the edit in-process (deterministic), and one test runs
`ctxres ack` as a process on a 1.2 MB workflow while another process edits the file as soon as ack has read
it (the file's access time says when: a read after a write advances it). A full disk: a 256 KiB tmpfs
filled to the last byte (the tests run as root); where mounting is refused, a ``sitecustomize`` on the
process's path makes every write to a file fail with ENOSPC.
"""

from __future__ import annotations

import errno
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from ctxres import ack, atomic
from ctxres.linters.cli import main
from ctxres.linters.commands import migrate
from ctxres.migration.migrate import Migration

from ..cli_process import HANG_GUARD, ctxres
from ..conftest import CORPUS, FIXTURES
from ..hooks.claude_session import fill_transcript, prompt_payload, run_hook, workspace

WORKSPACE = FIXTURES / "ack" / "two-unacknowledged"
ORCH = Path("projects/PROJ-002/ORCHESTRATION.yaml")
CX1 = Path(".jerry/checkpoints/cx-001-checkpoint.json")
NOW = "2026-03-02T11:30:00Z"
ACK_ALL = ("ack", "--all", "--file", str(ORCH), "--now", NOW)
# A real workflow whose v2.0 section records no compaction yet (`events: []`), 947 lines.
CORPUS_WORKFLOW = CORPUS / "orchestration" / "030-PROJ-008-agentic-security--agentic-sec-20260222-001.yaml"
EDIT = "# edited by the session while ack worked\n"
BARE_LF = re.compile(rb"(?<!\r)\n")


def project(base: Path, workflow: bytes | None = None) -> Path:
    """The ack fixture workspace (two unacknowledged checkpoints) at ``base``, its workflow replaced."""
    shutil.copytree(WORKSPACE, base)
    (base / ".git").mkdir(exist_ok=True)
    if workflow is not None:
        (base / ORCH).write_bytes(workflow)
    return base


def big_project(base: Path) -> Path:
    """The workspace with a 2.4 MB workflow (the corpus one, 40,000 more lines before its section) and six
    checkpoints to merge: `ack --all` works on it for seconds, each merge re-reading the whole file."""
    text = CORPUS_WORKFLOW.read_text("utf-8")
    at = text.index("\nresumption:")
    notes = "".join(f'  - "note {n}: phase work recorded for the audit trail"\n' for n in range(40_000))
    root = project(base, (text[:at] + "\nhistory_notes:\n" + notes + text[at:]).encode())
    second = (root / CX1.with_name("cx-002-checkpoint.json")).read_text("utf-8")
    for number in range(3, 7):
        copy = second.replace('"cx-002"', f'"cx-{number:03d}"').replace("T11:15:00Z", f"T11:{13 + number}:00Z")
        (root / CX1.with_name(f"cx-{number:03d}-checkpoint.json")).write_text(copy, "utf-8")
    return root


def events(path: Path) -> list[dict[str, object]]:
    result: list[dict[str, object]] = yaml.safe_load(path.read_bytes())["resumption"]["compaction_events"]["events"]
    return result


def leftovers(root: Path) -> list[Path]:
    return sorted(root.rglob("*.tmp"))


# --- the core: a file changed since it was read is not replaced ---------------------------------------


def test_write_atomic_refuses_a_same_size_edit_within_one_clock_tick(tmp_path: Path) -> None:
    target = tmp_path / "CLAUDE.md"
    target.write_bytes(b"first version\n")
    content, stamp = atomic.read_stamped(target)
    assert content == b"first version\n"
    before = os.stat(target)
    target.write_bytes(b"other version\n")  # same size; the same mtime put back: only the bytes differ
    os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))
    with pytest.raises(atomic.ChangedSinceRead, match=r"CLAUDE\.md changed since it was read; nothing was written"):
        atomic.write_atomic(target, "ours\n", expected=stamp)
    assert target.read_bytes() == b"other version\n" and leftovers(tmp_path) == []


def test_a_file_created_since_it_was_found_absent_is_not_replaced(tmp_path: Path) -> None:
    target = tmp_path / ".gitignore"
    content, stamp = atomic.read_stamped(target)
    assert content is None
    target.write_text("theirs\n")
    with pytest.raises(atomic.ChangedSinceRead):
        atomic.write_all_atomic([(tmp_path / "other", "x"), (target, "ours\n")], expected=[stamp])
    assert target.read_text() == "theirs\n" and not (tmp_path / "other").exists() and leftovers(tmp_path) == []


def test_an_unchanged_file_is_replaced(tmp_path: Path) -> None:
    target = tmp_path / "settings.json"
    target.write_text("{}\n")
    _, stamp = atomic.read_stamped(target)
    atomic.write_atomic(target, '{"a": 1}\n', expected=stamp)
    assert target.read_text() == '{"a": 1}\n'


# --- ack: an edit made while it works survives ---------------------------------------------------------


def edit_after_each_plan(monkeypatch: pytest.MonkeyPatch, times: int) -> list[str]:
    """Make the session edit the workflow right after each of the first ``times`` merges is computed (after
    ack read the file, before it writes); the edits made, in order."""
    real_plan = ack.plan
    made: list[str] = []

    def plan_then_edit(path: Path, *args: object, **kwargs: object) -> ack.Plan:
        result = real_plan(path, *args, **kwargs)  # type: ignore[arg-type]
        if len(made) < times:
            made.append(f"# edit {len(made) + 1} by the session\n")
            with open(path, "a", encoding="utf-8") as handle:
                handle.write(made[-1])
        return result

    monkeypatch.setattr(ack, "plan", plan_then_edit)
    return made


def test_ack_merges_on_top_of_an_edit_made_while_it_worked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = project(tmp_path / "repo")
    monkeypatch.chdir(root)
    made = edit_after_each_plan(monkeypatch, times=2)
    assert main(list(ACK_ALL)) == 0
    text = (root / ORCH).read_text()
    assert made and all(edit in text for edit in made)  # both edits kept ...
    assert [e["id"] for e in events(root / ORCH)] == ["CX-001", "CX-002"]  # ... and the merge made on top
    assert json.loads((root / CX1).read_text())["metadata"]["acknowledged"] is True
    assert "merged .jerry/checkpoints/cx-002-checkpoint.json as CX-002" in capsys.readouterr().out


def test_ack_refuses_when_the_file_keeps_changing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = project(tmp_path / "repo")
    monkeypatch.chdir(root)
    original, checkpoint = (root / ORCH).read_text(), (root / CX1).read_bytes()
    made = edit_after_each_plan(monkeypatch, times=ack.ATTEMPTS)
    assert main(list(ACK_ALL)) == 1
    assert (root / ORCH).read_text() == original + "".join(made)  # every edit, and no merge
    assert (root / CX1).read_bytes() == checkpoint and leftovers(root) == []
    assert capsys.readouterr().err == (
        f"ctxres ack: refused, nothing changed: ORCHESTRATION.yaml changed while ack merged into it, "
        f"{ack.ATTEMPTS} times in a row; nothing was written: run ctxres ack again once it is saved\n"
    )


V1_WORKFLOW = (
    'workflow:\n  id: "wf-v1"\n  status: "ACTIVE"\nresumption:\n  last_checkpoint: "CP-003"\n'
    '  current_state: "Phase 3 in progress."\n  next_step: "Finish scoring QG-2"\n'
)


def test_migrate_write_does_not_replace_an_edit_made_while_it_worked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    workflow = tmp_path / "ORCHESTRATION.yaml"
    workflow.write_text(V1_WORKFLOW)
    real_migrate = migrate.migrate_text

    def migrate_then_edit(text: str) -> Migration:
        result = real_migrate(text)
        with open(workflow, "a", encoding="utf-8") as handle:
            handle.write(EDIT)
        return result

    monkeypatch.setattr(migrate, "migrate_text", migrate_then_edit)
    monkeypatch.chdir(tmp_path)
    assert main(["migrate", "ORCHESTRATION.yaml", "--write"]) == 2
    assert workflow.read_text() == V1_WORKFLOW + EDIT
    assert capsys.readouterr().err == (
        "ORCHESTRATION.yaml: error: it changed while it was migrated; nothing was written; run again\n"
    )


EDITOR = """
import os, sys, time
path, edit, deadline = sys.argv[1], sys.argv[2], time.monotonic() + 60
seen = os.stat(path).st_atime_ns
print("ready", flush=True)
while os.stat(path).st_atime_ns == seen and time.monotonic() < deadline:
    time.sleep(0.001)  # until ack has read the file (a read after a write advances the access time)
time.sleep(0.2)  # its read is over (2 ms); its merges take seconds
with open(path, "a", encoding="utf-8") as handle:
    handle.write(edit)
print("edited")
"""


def test_a_real_ack_keeps_an_edit_another_process_made_while_it_worked(tmp_path: Path) -> None:
    root = big_project(tmp_path / "repo")
    target = root / ORCH
    info = os.stat(target)
    os.utime(target, ns=(info.st_mtime_ns - 10**9, info.st_mtime_ns))  # accessed before its last change
    editor = subprocess.Popen([sys.executable, "-c", EDITOR, str(target), EDIT], stdout=subprocess.PIPE, text=True)
    assert editor.stdout is not None and editor.stdout.readline() == "ready\n"  # it waits for ack's read
    done = subprocess.run(  # niced: the editor, not ack, gets the CPU when both want it
        [sys.executable, "-m", "ctxres.linters.cli", *ACK_ALL],
        cwd=root,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        preexec_fn=lambda: os.nice(10),
        timeout=HANG_GUARD,
    )
    assert editor.communicate(timeout=120)[0] == "edited\n"
    text = target.read_text()
    assert EDIT in text, done.stderr  # the session's edit was not overwritten
    if done.returncode == 0:  # ack read the file again and merged on top of the edit
        assert [e["id"] for e in events(target)] == [f"CX-{n:03d}" for n in range(1, 7)]
    else:
        assert "changed while ack merged into it" in done.stderr, done.stderr
        assert events(target) == []
    assert leftovers(root) == []


# --- CRLF -------------------------------------------------------------------------------------------


def test_ack_on_a_crlf_workflow_writes_only_crlf(tmp_path: Path) -> None:
    """The same merge as on the LF file, every line ending CRLF; the checkpoint JSON too (a key added)."""
    results = []
    for name, newline in (("lf", b"\n"), ("crlf", b"\r\n")):
        root = project(tmp_path / name, CORPUS_WORKFLOW.read_bytes().replace(b"\n", newline))
        checkpoint = (root / CX1).read_bytes().replace(b',\n    "acknowledged_at": null', b"")  # the key is added
        (root / CX1).write_bytes(checkpoint.replace(b"\n", newline))
        done = ctxres(*ACK_ALL, cwd=root)
        assert done.returncode == 0, done.stderr
        results.append(((root / ORCH).read_bytes(), (root / CX1).read_bytes()))
    (lf_workflow, lf_json), (crlf_workflow, crlf_json) = results
    assert [e["id"] for e in events(tmp_path / "crlf" / ORCH)] == ["CX-001", "CX-002"]
    assert BARE_LF.findall(crlf_workflow) == [] and crlf_workflow == lf_workflow.replace(b"\n", b"\r\n")
    assert BARE_LF.findall(crlf_json) == [] and crlf_json == lf_json.replace(b"\n", b"\r\n")
    assert json.loads(crlf_json)["metadata"]["acknowledged_at"] == NOW


def test_ack_into_a_crlf_section_with_an_empty_flow_list(tmp_path: Path) -> None:
    """The first event turns `events: []` into a block list; a section without `compaction_events` gets one."""
    text = CORPUS_WORKFLOW.read_text("utf-8")
    at = text.index("  compaction_events:")
    for variant in (text, text[:at].rstrip("\n") + "\n"):
        root = project(tmp_path / f"repo{len(variant)}", variant.encode().replace(b"\n", b"\r\n"))
        done = ctxres(*ACK_ALL, cwd=root)
        assert done.returncode == 0, done.stderr
        assert BARE_LF.findall((root / ORCH).read_bytes()) == []


# --- a full disk --------------------------------------------------------------------------------------

SITECUSTOMIZE = """
import errno, os
_write = os.write
def _full(fd, data):
    if fd > 2 and os.path.isfile(os.readlink(f"/proc/self/fd/{fd}")):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    return _write(fd, data)
os.write = _full
"""


@pytest.fixture
def full_disk(tmp_path: Path) -> Iterator[tuple[Path, dict[str, str]]]:
    """(a folder on a full file system, the environment of a process writing there). A 256 KiB tmpfs
    filled to the last byte; where mounting is refused, a sitecustomize that fails every file write."""
    folder = tmp_path / "disk"
    folder.mkdir()
    environment = dict(os.environ)
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(folder)], capture_output=True, check=False
    )
    try:
        if mounted.returncode != 0:
            preload = tmp_path / "preload"
            preload.mkdir()
            (preload / "sitecustomize.py").write_text(textwrap.dedent(SITECUSTOMIZE))
            environment["PYTHONPATH"] = os.pathsep.join(filter(None, [str(preload), os.environ.get("PYTHONPATH")]))
        yield folder, environment
    finally:
        if mounted.returncode == 0:
            subprocess.run(["umount", "-l", str(folder)], check=False)


def fill(folder: Path) -> None:
    """Use every free byte of the file system holding ``folder``."""
    fd = os.open(folder / "filler", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        for size in (65536, 4096, 512, 64, 1):
            try:
                while True:
                    os.write(fd, b"\0" * size)
            except OSError as exc:
                assert exc.errno == errno.ENOSPC
    finally:
        os.close(fd)


def snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_ack_on_a_full_disk_says_so_and_changes_nothing(full_disk: tuple[Path, dict[str, str]]) -> None:
    folder, environment = full_disk
    root = project(folder / "repo")
    fill(folder)
    before = snapshot(root)
    done = ctxres(*ACK_ALL, cwd=root, env=environment)
    assert done.returncode == 2
    assert done.stderr == (
        f"ctxres ack: cannot write {ORCH.as_posix()}: the disk is full (No space left on device); nothing was "
        "changed; free space and run again\n"
    )
    assert snapshot(root) == before


def test_migrate_on_a_full_disk_says_so_and_changes_nothing(full_disk: tuple[Path, dict[str, str]]) -> None:
    folder, environment = full_disk
    (folder / ".git").mkdir()
    workflow = folder / "ORCHESTRATION.yaml"
    workflow.write_text((FIXTURES / "templates" / "proj001-qg2-ORCHESTRATION.yaml").read_text())
    v1 = 'resumption:\n  last_checkpoint: "CP-003"\n  current_state: "QG-2 scoring."\n  next_step: "Score"\n'
    text = workflow.read_text()
    workflow.write_text(text[: text.index("\nresumption:")] + "\n" + v1)
    fill(folder)
    before = workflow.read_bytes()
    done = ctxres("migrate", "ORCHESTRATION.yaml", "--write", cwd=folder, env=environment)
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines()[-1] == (
        "ORCHESTRATION.yaml: error: cannot write it: the disk is full (No space left on device); nothing was "
        "changed; free space and run again"
    )
    assert workflow.read_bytes() == before


def test_user_prompt_submit_on_a_full_disk_does_not_ask_for_a_writable_folder(
    full_disk: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    folder, environment = full_disk
    root = workspace(folder)
    (root / ".jerry").mkdir()
    fill(folder)
    env = {k: environment[k] for k in ("PYTHONPATH",) if k in environment}
    run = run_hook("UserPromptSubmit", prompt_payload(root, fill_transcript(tmp_path, 131_400)), root, env=env)
    assert len(run.stderr_lines) == 1, run.stderr_lines
    line = run.stderr_lines[0]
    assert "cannot write .jerry/context-monitor-state.json: the disk is full (No space left on device)" in line
    assert line.endswith("; free space") and "writable" not in line
    assert not (root / ".jerry" / "context-monitor-state.json").exists()
