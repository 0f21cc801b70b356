"""The "minimal statusline": what ``ctxres-hook statusline`` must do, in the fewest lines of stdlib Python.

``python bench/minimal_statusline.py < statusline.json``: read the client's JSON, find the workflow file
(a walk for ``*ORCHESTRATION*.yaml``), parse it with libyaml (``yaml.CSafeLoader``), print one line with
the context figure, the workflow's id, phase and gate and the section's update time. No cache, no
checks, no staleness rule, no error handling. bench/run.py starts it as the console script starts the
hook (a ``-c`` line that imports it from its bytecode and calls ``main()``).
"""

from __future__ import annotations

import json
import os
import sys


def main() -> None:
    document = json.loads(sys.stdin.buffer.read())
    usage = document["context_window"]["current_usage"]
    tokens = sum(usage.values())
    root = document["workspace"]["project_dir"]
    import yaml

    path = next(os.path.join(d, n) for d, _, names in os.walk(root) for n in names if "ORCHESTRATION" in n)
    with open(path, "rb") as handle:
        data = yaml.load(handle.read(), Loader=yaml.CSafeLoader)
    state = data["resumption"]["recovery_state"]
    gate = data["resumption"]["quality_trajectory"]
    line = (
        f"ctx {tokens * 100 // 180_000}% │ {data['workflow']['id']} P{state['current_phase']} "
        f"{gate['current_gate']}#{gate['current_gate_iteration']} │ {state['updated_at']}"
    )
    sys.stdout.write(line + "\n")


if __name__ == "__main__":
    main()
