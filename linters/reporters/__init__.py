"""Reporters: turn a :class:`~ctxres.linters.checking.report.Report` into text for a person or a machine.

One module per format, named in :data:`FORMATS`, the one table of them. Each module is a reporter: it
defines ``write(report, out, *, color=False)``, which writes the report to ``out`` a finding at a time
(``color`` asks for ANSI colors; machine formats ignore it). :func:`render` and :func:`write` pick the
module by the format's name; :func:`render` is made from the module's ``write`` for every format.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterable
from importlib import import_module

from ctxres.findings import Finding

# `ctxres check` loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Protocol, TextIO

    from ctxres.linters.checking.report import Report

    class Reporter(Protocol):
        """What the module of every format defines."""

        def write(self, report: Report, out: TextIO, *, color: bool = False) -> None: ...


FORMATS: dict[str, str] = {"text": "text", "json": "json_", "github": "github", "sarif": "sarif"}
"""Each output format (what ``--output-format`` takes, in the order of its help) and the module of this
package that writes it. The modules are imported when asked for: building ``--output-format``'s choices
imports no reporter, nor the report."""

REPORT_FORMATS = ("text", "json")
"""The formats in which a command that has a report of its own (``runs``, ``doctor``, ``audit-history``, ...)
prints that report; in every other format it prints its
findings through the format's reporter (:func:`print_findings`)."""


def reporter(fmt: str) -> Reporter:
    """The module that writes ``fmt``; :class:`ValueError` for an unknown format."""
    name = FORMATS.get(fmt)
    if name is None:
        raise ValueError(f"unknown output format {fmt!r}; expected one of: {', '.join(FORMATS)}")
    module: Reporter = import_module(f"{__name__}.{name}")
    return module


def write(fmt: str, report: Report, out: TextIO, *, color: bool = False) -> None:
    """Write ``report`` to ``out`` in format ``fmt`` (one of :data:`FORMATS`), a finding at a time (a report
    of many findings is never held whole). ``color`` only affects the ``text`` format."""
    reporter(fmt).write(report, out, color=color)


def render(fmt: str, report: Report, *, color: bool = False) -> str:
    """:func:`write`, into a string. Raises :class:`ValueError` for an unknown format."""
    from io import StringIO

    out = StringIO()
    write(fmt, report, out, color=color)
    return out.getvalue()


def add_format_option(parser: argparse.ArgumentParser, help: str = "how to print the result") -> None:
    """``--output-format`` with every format of :data:`FORMATS`, as ``ctxres check`` spells it (default: text)."""
    parser.add_argument("--output-format", choices=tuple(FORMATS), default="text", help=help)


def print_findings(fmt: str, findings: Iterable[Finding], files_checked: int) -> None:
    """Print ``findings`` (sorted as ``check`` sorts them) through the reporter for ``fmt``."""
    from ctxres.linters.checking.report import Report

    report = Report(sorted(findings, key=Finding.sort_key), files_checked)
    write(fmt, report, sys.stdout)


def add_color_option(parser: argparse.ArgumentParser, help: str = "colored text output") -> None:
    """``--color auto|always|never`` (default: auto, see :func:`use_color`)."""
    parser.add_argument("--color", choices=("auto", "always", "never"), default="auto", help=help)


def use_color(choice: str) -> bool:
    """Whether text output is coloured for ``--color choice``: always, never, or (auto) when standard output is
    a terminal and ``NO_COLOR`` is not set."""
    if choice == "always":
        return True
    if choice == "never" or os.environ.get("NO_COLOR"):
        return False
    return sys.stdout.isatty()


__all__ = [
    "FORMATS",
    "REPORT_FORMATS",
    "add_color_option",
    "add_format_option",
    "print_findings",
    "render",
    "reporter",
    "use_color",
    "write",
]
