"""The "minimal audit" of a file's history: the job of ``ctxres audit-history FILE`` in the fewest lines of stdlib
Python and PyYAML, as the floor of any history audit written in Python.

``python bench/minimal_audit.py FILE``, in the repository. It lists the commits that changed the file with the
blob of each version (one ``git log --follow --raw``), reads every distinct version with one ``git cat-file
--batch``, parses each whole with the fastest loader (``yaml.CSafeLoader``, no positions), and prints, as JSON,
the commits that changed the file's state but not its ``resumption`` section. It checks nothing else, handles no
error, does not guard against huge blobs or shallow clones, and computes no line numbers. bench/run.py starts it
as the console script starts ctxres (a ``-c`` line that imports it from its bytecode and calls ``main()``).
"""

from __future__ import annotations

import itertools
import json
import subprocess
import sys

import yaml


def _versions(path: str) -> list[tuple[str, str]]:
    """(commit, blob) of each version of ``path``, oldest first (a deletion has no blob)."""
    out = subprocess.run(
        ["git", "log", "--follow", "--no-merges", "--format=%x00%H", "--raw", "--no-abbrev", "--", path],
        capture_output=True,
        check=True,
    ).stdout.decode()
    versions = []
    for entry in out.split("\0")[1:]:
        commit, _, raw = entry.partition("\n")
        blobs = [line.split()[3] for line in raw.splitlines() if line.startswith(":")]
        if blobs and not blobs[0].strip("0"):
            continue  # deleted
        versions.append((commit, blobs[0] if blobs else ""))
    return versions[::-1]


def _contents(blobs: list[str]) -> dict[str, bytes]:
    """Every blob, read by one ``git cat-file --batch``."""
    wanted = sorted(set(blobs) - {""})
    out = subprocess.run(
        ["git", "cat-file", "--batch"], input="".join(f"{blob}\n" for blob in wanted).encode(), capture_output=True
    ).stdout
    contents, at = {}, 0
    for blob in wanted:
        end = out.index(b"\n", at)
        size = int(out[at:end].split()[2])
        contents[blob] = out[end + 1 : end + 1 + size]
        at = end + 2 + size
    return contents


def main() -> None:
    path = sys.argv[1]
    versions = _versions(path)
    contents = _contents([blob for _, blob in versions])
    parsed = {blob: yaml.load(text, Loader=yaml.CSafeLoader) for blob, text in contents.items()}
    stale = []
    for (_, before), (commit, after) in itertools.pairwise(versions):
        old, new = parsed.get(before), parsed.get(after)
        if not isinstance(old, dict) or not isinstance(new, dict) or "resumption" not in new:
            continue
        moved = {key: value for key, value in new.items() if key != "resumption"} != {
            key: value for key, value in old.items() if key != "resumption"
        }
        if moved and new["resumption"] == old.get("resumption"):
            stale.append(commit)
    json.dump({"file": path, "commits_checked": max(len(versions) - 1, 0), "stale_commits": stale}, sys.stdout)


if __name__ == "__main__":
    main()
