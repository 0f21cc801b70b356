"""Write or check ``fixtures/timeline/``, the session the README's ``ctxres timeline`` sample draws.

It is made, never edited: the recorded session ``fixtures/replay/a-feat015-single-session`` (two compactions
in the real client, one automatic, one manual) is replayed through the real hook processes, and what they
left is copied: the workflow folder (``project/projects/``), the checkpoints PreCompact wrote and ``ctxres
ack`` merged (``project/.jerry/checkpoints/``), and the session's transcript (``session.jsonl``).

``python dev/timeline_example.py --write`` regenerates it; ``--check`` (run by a test) exits 1 and names the
files that differ from a fresh replay.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

FIXTURE = ROOT / "fixtures" / "replay" / "a-feat015-single-session"
TARGET = ROOT / "fixtures" / "timeline"
KEPT = ("project/projects", "project/.jerry/checkpoints")


def make(folder: Path) -> dict[str, bytes]:
    """The example's files (path relative to ``fixtures/timeline/`` → content), replayed in ``folder``."""
    from ctxres.linters.replay.player import load_fixture, run_fixture_in

    run_fixture_in(load_fixture(FIXTURE), folder)
    files = {
        path.relative_to(folder).as_posix(): path.read_bytes()
        for kept in KEPT
        for path in sorted((folder / kept).rglob("*"))
        if path.is_file()
    }
    (transcript,) = (folder / "transcripts").glob("*.jsonl")
    files["session.jsonl"] = transcript.read_bytes()
    return files


def current() -> dict[str, bytes]:
    """The files of ``fixtures/timeline/`` as checked in (its README aside)."""
    return {
        path.relative_to(TARGET).as_posix(): path.read_bytes()
        for path in sorted(TARGET.rglob("*"))
        if path.is_file() and path.name != "README.md"
    }


def differences() -> list[str]:
    """The example's files that differ from a fresh replay (missing, extra or changed)."""
    with tempfile.TemporaryDirectory(prefix="ctxres-timeline-example-") as tmp:
        fresh = make(Path(tmp))
    found = current()
    return sorted(name for name in set(fresh) | set(found) if fresh.get(name) != found.get(name))


def write() -> None:
    with tempfile.TemporaryDirectory(prefix="ctxres-timeline-example-") as tmp:
        fresh = make(Path(tmp))
    for kept in ("project", "session.jsonl"):
        target = TARGET / kept
        if target.is_dir():
            shutil.rmtree(target)
        elif target.exists():
            target.unlink()
    for name, data in fresh.items():
        path = TARGET / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--write", action="store_true", help="regenerate fixtures/timeline/")
    action.add_argument("--check", action="store_true", help="exit 1 when it differs from a fresh replay")
    args = parser.parse_args(argv)
    if args.write:
        write()
        return 0
    stale = differences()
    for name in stale:
        print(f"fixtures/timeline/{name}: differs from a fresh replay; run python dev/timeline_example.py --write")
    return 1 if stale else 0


if __name__ == "__main__":
    raise SystemExit(main())
