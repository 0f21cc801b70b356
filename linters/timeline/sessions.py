"""Where Claude Code keeps a project's transcripts, and which of them are its sessions.

The rule, as the client (2.1.328) applies it:

* The configuration folder is ``$CLAUDE_CONFIG_DIR`` when that variable is set (non-empty), else ``~/.claude``.
  Transcripts live in its ``projects/`` folder.
* A project's folder there is named after the project's absolute path (symbolic links resolved) with every
  character other than an ASCII letter or digit replaced by ``-`` (per UTF-16 code unit: ``--`` for a
  character outside the Basic Multilingual Plane) (``/home/ana/my_app`` becomes
  ``-home-ana-my-app``). A name longer than 200 characters is cut to its first 200 and followed by ``-`` and
  a hash of the full path (the 32-bit string hash ``h = h * 31 + code unit``, its absolute value in base 36).
* When ``$CLAUDE_CONFIG_DIR`` is set, ``$CLAUDE_CODE_PROJECT_DIR_NAME`` (1 to 64 letters, digits, ``_`` or
  ``-``) names the folder instead.
* Each top-level ``<session id>.jsonl`` in that folder is one session; a subagent's transcript
  (``<session id>/subagents/*.jsonl``) is not. Sessions are ordered by the first time they record.
"""

from __future__ import annotations

import datetime as dt
import os
import re
from collections.abc import Mapping
from pathlib import Path

from ctxres.timestamps import parse_datetime

MAX_NAME = 200
"""The longest folder name the client keeps whole; a longer one is cut and followed by a hash."""
HEAD_LINES = 64
"""How many lines of a transcript are read to find its first timestamp."""
HEAD_BYTES = 1024 * 1024
_NOT_ALNUM = re.compile(r"[^a-zA-Z0-9]")
_OVERRIDE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_RESERVED = re.compile(r"^(?:con|prn|aux|nul|com[0-9]|lpt[0-9])$", re.IGNORECASE)
TIMESTAMP_FIELD = re.compile(rb'"timestamp"\s*:\s*"([^"]{10,40})"')
"""A transcript entry's ``timestamp`` field, found in its bytes without parsing the line."""


class SessionError(ValueError):
    """A project's transcripts or a session could not be found; the message is one line saying which."""


def config_dir(environ: Mapping[str, str], home: Path | None = None) -> Path:
    """The client's configuration folder: ``$CLAUDE_CONFIG_DIR``, else ``HOME/.claude``."""
    configured = environ.get("CLAUDE_CONFIG_DIR")
    if configured:
        return Path(configured).expanduser()
    return (home if home is not None else Path.home()) / ".claude"


def _string_hash(text: str) -> int:
    """The client's 32-bit string hash over UTF-16 code units (``h = (h << 5) - h + unit | 0``)."""
    value = 0
    for unit in _utf16_units(text):
        value = (value * 31 + unit) & 0xFFFFFFFF
    return value - (1 << 32) if value >= 1 << 31 else value


def _utf16_units(text: str) -> list[int]:
    data = text.encode("utf-16-le", "surrogatepass")
    return [data[i] | data[i + 1] << 8 for i in range(0, len(data), 2)]


def _base36(number: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    text = ""
    while True:
        number, rest = divmod(number, 36)
        text = digits[rest] + text
        if number == 0:
            return text


def folder_name(project: str) -> str:
    """The name of the folder the client keeps ``project``'s transcripts in (``project``: an absolute path)."""
    # per UTF-16 code unit, as JavaScript replaces: a character outside the BMP becomes ``--``
    name = _NOT_ALNUM.sub(lambda found: "--" if ord(found.group()) > 0xFFFF else "-", project)
    if len(name) <= MAX_NAME:
        return name
    return f"{name[:MAX_NAME]}-{_base36(abs(_string_hash(project)))}"


def _override(environ: Mapping[str, str] | None) -> str | None:
    if not environ or not environ.get("CLAUDE_CONFIG_DIR"):
        return None
    name = environ.get("CLAUDE_CODE_PROJECT_DIR_NAME")
    if name and _OVERRIDE.match(name) and not _RESERVED.match(name):
        return name
    return None


def project_folder(project: Path, config_dir: Path, environ: Mapping[str, str] | None = None) -> Path:
    """The folder holding ``project``'s transcripts under ``config_dir`` (it may not exist).

    ``environ`` is consulted for ``CLAUDE_CODE_PROJECT_DIR_NAME`` only (None: not at all)."""
    name = _override(environ) or folder_name(str(project.resolve()))
    return config_dir / "projects" / name


def find_project_folder(project: Path, config_dir: Path, environ: Mapping[str, str] | None = None) -> Path:
    """:func:`project_folder` if it exists (for a cut name, also a folder with the same first 200 characters:
    another client version may hash differently), else :class:`SessionError` naming the folder looked for."""
    folder = project_folder(project, config_dir, environ)
    if folder.is_dir():
        return folder
    if len(folder.name) > MAX_NAME:
        prefix = folder.name[: MAX_NAME + 1]
        try:
            matches = sorted(p for p in folder.parent.iterdir() if p.name.startswith(prefix) and p.is_dir())
        except OSError:
            matches = []
        if len(matches) == 1:
            return matches[0]
    raise SessionError(f"no Claude Code transcripts for {project}: {folder} does not exist")


def field_time(found: re.Match[bytes]) -> dt.datetime | None:
    """The time of a :data:`TIMESTAMP_FIELD` match, None when it is not one."""
    return parse_datetime(found.group(1).decode("ascii", "replace"))


def first_time(path: Path) -> dt.datetime | None:
    """The first timestamp a transcript records, from its first lines only; None when they hold none."""
    try:
        with path.open("rb") as handle:
            read = 0
            for _ in range(HEAD_LINES):
                line = handle.readline(HEAD_BYTES)
                if not line:
                    break
                read += len(line)
                found = TIMESTAMP_FIELD.search(line)
                if found:
                    parsed = field_time(found)
                    if parsed is not None:
                        return parsed
                if read >= HEAD_BYTES:
                    break
    except OSError:
        return None
    return None


def _sort_key(path: Path) -> tuple[float, str]:
    when = first_time(path)
    if when is None:
        try:
            return path.stat().st_mtime, path.name
        except OSError:
            return 0.0, path.name
    return when.timestamp(), path.name


def sessions(folder: Path) -> list[Path]:
    """The session transcripts of ``folder`` (top-level ``*.jsonl``; subagents' are not sessions), oldest
    first by the first time each records (its modification time when it records none)."""
    try:
        found = [p for p in folder.iterdir() if p.suffix == ".jsonl" and p.is_file()]
    except OSError as exc:
        raise SessionError(f"cannot list the transcripts in {folder}: {exc.strerror or exc}") from None
    return sorted(found, key=_sort_key)


def latest(folder: Path) -> Path:
    """The newest session of ``folder``, else :class:`SessionError`."""
    found = sessions(folder)
    if not found:
        raise SessionError(f"no session transcript (*.jsonl) in {folder}")
    return found[-1]


def by_id(folder: Path, session_id: str) -> Path:
    """The transcript of session ``session_id`` in ``folder`` (a unique prefix of the id is enough), else
    :class:`SessionError`."""
    if not session_id or os.sep in session_id or "/" in session_id:
        raise SessionError(f"not a session id: {session_id!r}")
    exact = folder / f"{session_id}.jsonl"
    if exact.is_file():
        return exact
    found = [p for p in sessions(folder) if p.stem.startswith(session_id)]
    if len(found) == 1:
        return found[0]
    if found:
        raise SessionError(f"session id {session_id} is ambiguous in {folder}: {len(found)} sessions start with it")
    raise SessionError(f"no session {session_id} in {folder}")
