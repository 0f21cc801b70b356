"""`ctxres-hook` stays cheap to start and never breaks a session."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HEAVY = ("pydantic", "jsonschema", "ctxres.linters", "ctxres.schemas")


def test_hook_import_pulls_in_no_heavy_module() -> None:
    code = (
        "import sys, ctxres.hooks.main; "
        f"print([m for m in sys.modules if m.split('.')[0] in {HEAVY!r} or m.startswith({HEAVY!r})])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def _hook(args: list[str], stdin: bytes) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "ctxres.hooks.main", *args], input=stdin, capture_output=True, timeout=30
    )


@pytest.mark.parametrize(
    "stdin",
    [
        b"",
        b"not json",
        b"[1, 2]",
        b"\xff\xfe\x00garbage",
        b'{"hook_event_name": 42}',
        b'{"hook_event_name": "UserPromptSubmit", "prompt": "hi", "session_id": "s"}',
    ],
)
@pytest.mark.parametrize("args", [[], ["PreCompact"], ["UserPromptSubmit"], ["NoSuchEvent"]])
def test_hook_always_exits_zero_with_a_json_object(args: list[str], stdin: bytes) -> None:
    """Every event answers a JSON object, PreCompact excepted: it prints nothing at all (the client shows
    a PreCompact hook's stdout to the user and keeps it in the conversation)."""
    result = _hook(args, stdin)
    assert result.returncode == 0
    if args == ["PreCompact"]:
        assert result.stdout == b""
    else:
        assert isinstance(json.loads(result.stdout), dict)
    assert b"Traceback" not in result.stderr


def test_a_payload_over_8_mib_is_refused_with_one_line_that_says_so(tmp_path: Path) -> None:
    from ctxres.hooks.main import MAX_STDIN_BYTES

    payload = {"hook_event_name": "UserPromptSubmit", "session_id": "s", "prompt": "x" * MAX_STDIN_BYTES}
    env = {**os.environ, "CLAUDE_PROJECT_DIR": str(tmp_path)}
    result = subprocess.run(
        [sys.executable, "-m", "ctxres.hooks.main", "UserPromptSubmit"],
        input=json.dumps(payload).encode(),
        capture_output=True,
        timeout=60,
        env=env,
    )
    assert result.returncode == 0
    assert json.loads(result.stdout) == {}
    assert result.stderr.decode().splitlines() == [
        f"ctxres-hook: stdin is larger than {MAX_STDIN_BYTES:,} bytes; not read, answering with no output"
    ]


def test_hooks_run_from_a_plain_clone(tmp_path: Path) -> None:
    """A Claude Code plugin is not pip-installed: `PYTHONPATH=<clone> python -m ctxres.hooks.main` must work."""
    root = Path(__file__).resolve().parent.parent.parent
    env = {**os.environ, "PYTHONPATH": str(root)}
    code = "import ctxres.hooks.main as m, ctxres.linters.cli as c; print(m.__file__); print(c.__file__)"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env, cwd=tmp_path
    ).stdout.split()
    assert out == [str(root / "hooks" / "main.py"), str(root / "linters" / "cli.py")]
    result = subprocess.run(
        [sys.executable, "-m", "ctxres.hooks.main", "PreCompact"],
        input=b"{}",
        env=env,
        cwd=tmp_path,
        capture_output=True,
        check=True,
    )
    assert result.stdout == b""  # PreCompact prints nothing


def test_only_the_hook_process_turns_the_cyclic_collector_off() -> None:
    """The console script (``ctxres.hooks:cli``) switches the collector off before the hook's imports (a
    hook lives tens of milliseconds); a process that merely imports the hook code keeps its collector."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib

    scripts = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text("utf-8"))["project"]["scripts"]
    assert scripts["ctxres-hook"] == "ctxres.hooks:cli"
    imported = "import gc, ctxres.hooks, ctxres.hooks.main; print(gc.isenabled())"
    started = (
        "import gc, sys; from ctxres.hooks import cli; import ctxres.hooks.main as m; "
        "m.main = lambda: print(gc.isenabled(), 'json' in sys.modules) or 0; sys.exit(cli())"
    )
    outputs = [
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
        for code in (imported, started)
    ]
    assert outputs == [["True"], ["False", "True"]]


def test_the_console_script_delivers_all_it_printed_and_its_exit_code() -> None:
    """``cli`` leaves without the interpreter's teardown (``os._exit``): what the hook printed in small
    writes to a pipe (block-buffered) must still arrive whole, on both streams, with the hook's code."""
    code = (
        "import sys; from ctxres.hooks import cli; import ctxres.hooks.main as m\n"
        "def fake():\n"
        "    for i in range(3000):\n"
        "        sys.stdout.write(f'{i:05d}' + 'x' * 20)\n"
        "    sys.stderr.write('warned')\n"
        "    return 3\n"
        "m.main = fake\n"
        "sys.exit(cli())\n"
    )
    env = {name: value for name, value in os.environ.items() if name != "PYTHONUNBUFFERED"}  # buffered, as usual
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 3
    assert done.stdout == "".join(f"{i:05d}" + "x" * 20 for i in range(3000))
    assert done.stderr == "warned"
