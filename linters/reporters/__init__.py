"""Reporters: turn a :class:`~ctxres.linters.checking.report.Report` into text for a person or a machine.

One module per format; :func:`render` picks the module by name.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from importlib import import_module

from ctxres.findings import Finding

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TextIO

    from ctxres.linters.checking.report import Report

FORMATS: tuple[str, ...] = ("text", "json", "github", "sarif")

# Imported when asked for (start-up time: `add_format_option` alone imports no reporter, nor the report).
_MODULES = {"text": "text", "json": "json_", "github": "github", "sarif": "sarif"}


def _reporter(fmt: str) -> Any:
    """The module that renders ``fmt``; :class:`ValueError` for an unknown format."""
    name = _MODULES.get(fmt)
    if name is None:
        raise ValueError(f"unknown output format {fmt!r}; expected one of: {', '.join(FORMATS)}")
    return import_module(f"{__name__}.{name}")


def render(fmt: str, report: Report, *, color: bool = False) -> str:
    """Render ``report`` in format ``fmt`` (one of :data:`FORMATS`).

    ``color`` only affects the ``text`` format; machine formats never contain escape codes.
    Raises :class:`ValueError` for an unknown format.
    """
    if fmt == "text":
        text: str = _reporter(fmt).render(report, color=color)
        return text
    rendered: str = _reporter(fmt).render(report)
    return rendered


def write(fmt: str, report: Report, out: TextIO, *, color: bool = False) -> None:
    """:func:`render`, written to ``out`` a finding at a time (a report of many findings is never held whole)."""
    if fmt == "text":
        _reporter(fmt).write(report, out, color=color)
        return
    _reporter(fmt).write(report, out)


def add_format_option(parser: argparse.ArgumentParser, help: str = "how to print the result") -> None:
    """``--output-format text|json|github|sarif``, as ``ctxres check`` spells it (default: text)."""
    parser.add_argument("--output-format", choices=FORMATS, default="text", help=help)


def print_findings(fmt: str, findings: Iterable[Finding], files_checked: int) -> None:
    """Print ``findings`` (sorted as ``check`` sorts them) through the reporter for ``fmt``."""
    from ctxres.linters.checking.report import Report

    report = Report(sorted(findings, key=Finding.sort_key), files_checked)
    sys.stdout.write(render(fmt, report))


__all__ = ["FORMATS", "add_format_option", "print_findings", "render", "write"]
