"""The team's own checkpoint writer (the "other tool"): a script that writes ``cx-NNN.json`` into a
folder, numbering its files as such writers do, ``int()`` of every ``cx-*.json`` name, with no
try/except, so a name it cannot parse kills it (as the real one dies, and then fails open).

``write_checkpoint(folder)`` runs the script as a process and returns it: exit 0 and the path it wrote
on stdout, or exit 1 and the ``ValueError`` on stderr. Its file is in the other layout
(``checkpoint_id``, ``created_at``, ``"resumption_state": null`` as its bootstrap writes), so ctxres
must tell it from its own by content. Run as a script: ``python tests/other_writer.py FOLDER``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HANG_GUARD = 300  # seconds; turns a hang into a failure, nothing asserts on time

SCRIPT = r"""
import json, sys
from pathlib import Path

folder = Path(sys.argv[1])
folder.mkdir(parents=True, exist_ok=True)
names = [p.name for p in folder.glob("cx-*.json")]
number = max((int(name[3:-5]) for name in names), default=0) + 1
target = folder / f"cx-{number:03d}.json"
data = {
    "checkpoint_id": f"cx-{number:03d}",
    "context_state": {
        "fill_percentage": 0.0,
        "tier": "nominal",
        "token_count": None,
        "monitoring_ok": True,
        "context_window": 200000,
        "context_window_source": "default",
    },
    "resumption_state": None,
    "created_at": sys.argv[2],
}
target.write_text(json.dumps(data, indent=2) + "\n")
print(target)
"""


def write_checkpoint(
    folder: Path, created_at: str = "2026-02-17T12:00:00Z", python: str = sys.executable
) -> subprocess.CompletedProcess[str]:
    """Run the other writer once on ``folder`` (a ``checkpoints`` folder, made if missing); the process."""
    return subprocess.run(
        [python, "-c", SCRIPT, str(folder), created_at],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=HANG_GUARD,
    )


def written(folder: Path, created_at: str = "2026-02-17T12:00:00Z") -> Path:
    """Run the other writer once on ``folder`` and return the file it wrote; AssertionError when it died."""
    result = write_checkpoint(folder, created_at)
    assert result.returncode == 0, f"the other checkpoint writer died:\n{result.stderr}"
    return Path(result.stdout.strip())


if __name__ == "__main__":  # pragma: no cover - the module's own command line
    done = write_checkpoint(Path(sys.argv[1]))
    sys.stdout.write(done.stdout)
    sys.stderr.write(done.stderr)
    raise SystemExit(done.returncode)
