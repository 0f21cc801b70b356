"""Setting one ctxres option in a project's configuration file, the rest of the file kept as it is.

The option goes where ``ctxres`` reads it: the ``[tool.ctxres]`` table of ``pyproject.toml`` or the top
level of ``.ctxres.toml`` (the file that already configures ctxres; else ``pyproject.toml`` when the
project has one; else a new ``.ctxres.toml``). Only the line of the key changes, or one line (with its
comment) is added; comments, order and the other tables are untouched.
"""

from __future__ import annotations

import re
from pathlib import Path

from ctxres import defaults
from ctxres.config import find_config

CTXRES_TOML = ".ctxres.toml"
_HEADER = re.compile(r"^\s*\[")


def config_target(root: Path) -> Path:
    """The file an option of the project at ``root`` is written to."""
    found = find_config(root)
    if found is not None and found[1].resolve() == root.resolve():
        return found[2]
    pyproject = root / defaults.PYPROJECT
    return pyproject if pyproject.is_file() else root / CTXRES_TOML


def set_option(text: str, key: str, value: str, comment: str, in_pyproject: bool) -> str:
    """``text`` with ``key = value`` set (``value`` is TOML already), ``comment`` on the line above a new key."""
    lines = text.splitlines(keepends=True)
    start, end = _table_span(lines, in_pyproject)
    key_line = re.compile(rf"^\s*{re.escape(key)}\s*=")
    new_line = f"{key} = {value}\n"
    if start is not None:
        for index in range(start, end):
            if key_line.match(lines[index]):
                lines[index] = new_line
                return "".join(lines)
        insert = end
        while insert > start and not lines[insert - 1].strip():
            insert -= 1
        if insert and not lines[insert - 1].endswith("\n"):
            lines[insert - 1] += "\n"
        lines[insert:insert] = [f"# {comment}\n", new_line]
        return "".join(lines)
    prefix = "".join(lines)
    if prefix and not prefix.endswith("\n"):
        prefix += "\n"
    separator = "\n" if prefix.strip() else ""
    return prefix + separator + "[tool.ctxres]\n" + f"# {comment}\n" + new_line


def _table_span(lines: list[str], in_pyproject: bool) -> tuple[int | None, int]:
    """The lines of the ctxres table: from after its header (the file's start for ``.ctxres.toml``) to
    the next table header; (None, len) when ``pyproject.toml`` has no ``[tool.ctxres]``."""
    start = 0
    if in_pyproject:
        header = next(
            (i for i, line in enumerate(lines) if re.match(r"^\s*\[\s*tool\s*\.\s*ctxres\s*\]\s*(#.*)?$", line)),
            None,
        )
        if header is None:
            return None, len(lines)
        start = header + 1
    end = next((i for i in range(start, len(lines)) if _HEADER.match(lines[i])), len(lines))
    return start, end


def option_change(root: Path, key: str, value: str, comment: str) -> tuple[Path, str]:
    """The configuration file of ``root`` and its new text with ``key = value``."""
    target = config_target(root)
    text = target.read_text("utf-8") if target.is_file() else ""
    return target, set_option(text, key, value, comment, target.name == defaults.PYPROJECT)
