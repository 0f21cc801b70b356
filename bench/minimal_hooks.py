"""The "minimal hook" of each event: the same file I/O as ``ctxres-hook EVENT`` in the fewest lines of stdlib Python.

``python bench/minimal_hooks.py EVENT < payload.json``. bench/run.py starts it as the console script starts the
hook (a ``-c`` line that imports it from its bytecode and calls ``main()``), alternating with the real hook.

Each function reads and writes the files our hook reads and writes on the bench's workspace (traced with
``strace``) and prints an answer of the same shape; it checks nothing, redacts nothing, renders no template and
handles no error. Writes are atomic and durable as ours are (``ctxres.atomic``: a temporary file, fsync,
``os.replace``, fsync of the folder). Where our hook parses YAML, so does the baseline, with the fastest loader
(``yaml.CSafeLoader``, without positions). Only ``json`` and ``os`` are imported up front; ``yaml`` where the
event parses YAML.
"""

from __future__ import annotations

import json
import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is not imported at run time (as in the hooks)
    from typing import Any


def _read_json(path: str) -> Any:
    with open(path, "rb") as handle:
        return json.loads(handle.read())


def _write_json(
    path: str, data: Any
) -> None:  # as ctxres.atomic: a temporary file, fsync, os.replace, fsync the folder
    tmp = f"{os.path.dirname(path)}/.{os.path.basename(path)}.{os.getpid()}.tmp"
    with open(tmp, "w", encoding="utf-8") as handle:
        json.dump(data, handle, indent=2, default=str)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)
    folder = os.open(os.path.dirname(path), os.O_RDONLY)
    os.fsync(folder)
    os.close(folder)


def _tail_usage(transcript: str) -> int:  # the last usage line in the last 64 KiB of the transcript
    with open(transcript, "rb") as handle:
        handle.seek(max(0, os.fstat(handle.fileno()).st_size - 65536))
        lines = handle.read().splitlines()
    usage = json.loads(next(line for line in reversed(lines) if b'"usage"' in line))["message"]["usage"]
    return sum(int(usage[key]) for key in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"))


def _workflow(root: str) -> Any:  # the workflow file: a walk for *ORCHESTRATION*.yaml, parsed with the C loader
    import yaml

    path = next(os.path.join(d, n) for d, _, names in os.walk(root) for n in names if "ORCHESTRATION" in n)
    with open(path, "rb") as handle:
        return yaml.load(handle.read(), Loader=yaml.CSafeLoader)


def _checkpoints(state: str) -> list[Any]:
    folder = os.path.join(state, "checkpoints")
    return [_read_json(os.path.join(folder, name)) for name in sorted(os.listdir(folder))]


def user_prompt_submit(payload: dict[str, Any], state: str) -> dict[str, Any]:
    tokens = _tail_usage(payload["transcript_path"])
    cache_file = os.path.join(state, "context-monitor-cache.json")  # the hook's cache, written when it changes
    if not os.path.exists(cache_file):
        os.makedirs(state, exist_ok=True)
        _write_json(cache_file, {"workflow": {"path": "ORCHESTRATION.yaml"}})
    cache = _read_json(cache_file)
    os.listdir(os.path.join(state, "checkpoints"))  # the cache is keyed on the checkpoint listing
    # The live workflow is chosen from the files' content, remembered by size and mtime: a walk for the
    # workflow files and a stat of each (none is parsed again while none changed).
    for folder, folders, names in os.walk(payload["cwd"]):
        folders[:] = [f for f in folders if f not in (".git", ".venv", "venv", "node_modules", "__pycache__")]
        for name in names:
            if "ORCHESTRATION" in name:
                os.stat(os.path.join(folder, name))
    assert cache["workflow"]["path"]
    reading = {"session_id": payload["session_id"], "tokens": tokens, "fill": tokens / 180_000}
    _write_json(os.path.join(state, "context-monitor-state.json"), reading)
    text = f"<context-monitor>\nTokens used: {tokens:,}\n</context-monitor>"
    return {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": text}}


def post_tool_use(payload: dict[str, Any], state: str) -> dict[str, Any]:
    path = payload.get("tool_input", {}).get("file_path", "")
    if not path.endswith((".yaml", ".yml")):
        return {}
    import yaml

    with open(path, "rb") as handle:
        data = yaml.load(handle.read(), Loader=yaml.CSafeLoader)
    snapshot_file = os.path.join(state, "orchestration-snapshot.json")  # written when the baseline changes
    if not os.path.exists(snapshot_file):
        _write_json(snapshot_file, {"state": data})
    snapshot = _read_json(snapshot_file)
    _read_json(os.path.join(state, "context-monitor-cache.json"))
    with open(payload["transcript_path"], "rb") as handle:  # the session's start: its first timestamp
        handle.read(65536)
    moved = data.get("resumption") != snapshot.get("state", {}).get("resumption")
    text = f"Resumption staleness after this write to {os.path.basename(path)}: moved={moved}"
    return {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": text}}


def pre_compact(payload: dict[str, Any], state: str) -> None:
    data = _workflow(payload["cwd"])
    fill = _read_json(os.path.join(state, "context-monitor-state.json"))
    folder = os.path.join(state, "checkpoints")
    number = len(os.listdir(folder)) + 2
    checkpoint = {"event_id": f"cx-{number:03d}", "fill": fill, "resumption": data.get("resumption")}
    _write_json(os.path.join(folder, f"cx-{number:03d}.json"), checkpoint)
    return None  # PreCompact prints nothing


def session_start(payload: dict[str, Any], state: str) -> dict[str, Any]:
    session = os.path.join(state, "sessions", f"{payload['session_id']}.json")
    seen = _read_json(session) if os.path.exists(session) else {}
    if payload.get("source") == "compact":  # the fill after the compaction, into the monitor state
        fill = _read_json(os.path.join(state, "context-monitor-state.json"))
        _write_json(
            os.path.join(state, "context-monitor-state.json"),
            {**fill, "tokens": _tail_usage(payload["transcript_path"])},
        )
    data = _workflow(payload["cwd"])
    checkpoints = _checkpoints(state)
    os.makedirs(os.path.dirname(session), exist_ok=True)
    _write_json(session, {**seen, "delivered": checkpoints[-1].get("event_id") if checkpoints else None})
    text = f"WORKFLOW: {data.get('workflow', {}).get('id')}\n{json.dumps(data.get('resumption'), default=str)}"
    return {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": text}}


EVENTS: dict[str, Any] = {
    "UserPromptSubmit": user_prompt_submit,
    "PostToolUse": post_tool_use,
    "PreCompact": pre_compact,
    "SessionStart": session_start,
}


def _settings(root: str) -> None:  # a configured project's settings: its TOML file parsed (as our hook reads it)
    config = os.path.join(root, ".ctxres.toml")
    if os.path.exists(config):
        try:
            import tomllib
        except ModuleNotFoundError:  # Python 3.10: the backport, a dependency of ctxres there
            import tomli as tomllib

        with open(config, "rb") as handle:
            tomllib.load(handle)


def main() -> None:
    payload = json.loads(sys.stdin.buffer.read())
    _settings(payload["cwd"])
    answer = EVENTS[sys.argv[1]](payload, os.path.join(payload["cwd"], ".jerry"))
    if answer is not None:
        print(json.dumps(answer, ensure_ascii=False))


if __name__ == "__main__":
    main()
