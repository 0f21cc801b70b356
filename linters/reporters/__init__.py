"""Reporters: turn a :class:`~ctxres.linters.report.Report` into text for a person or a machine.

One module per format; :func:`render` picks the module by name.
"""

from __future__ import annotations

from collections.abc import Callable

from ctxres.linters.report import Report
from ctxres.linters.reporters import github, json_, sarif, text

FORMATS: tuple[str, ...] = ("text", "json", "github", "sarif")

_PLAIN: dict[str, Callable[[Report], str]] = {
    "json": json_.render,
    "github": github.render,
    "sarif": sarif.render,
}


def render(fmt: str, report: Report, *, color: bool = False) -> str:
    """Render ``report`` in format ``fmt`` (one of :data:`FORMATS`).

    ``color`` only affects the ``text`` format; machine formats never contain escape codes.
    Raises :class:`ValueError` for an unknown format.
    """
    if fmt == "text":
        return text.render(report, color=color)
    renderer = _PLAIN.get(fmt)
    if renderer is None:
        raise ValueError(f"unknown output format {fmt!r}; expected one of: {', '.join(FORMATS)}")
    return renderer(report)


__all__ = ["FORMATS", "render"]
