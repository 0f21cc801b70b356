"""What the S rule families share: their view of a resumption section, and how their messages name things.

Each S family (:mod:`~ctxres.linters.rules.update_times`, ``checkpoint_position``, ``phase_position``,
``quality_trajectory``, ``agent_summaries``, ``prose_position``) declares its checks with
:func:`~ctxres.linters.checking.registry.section_check`; the engine builds one :class:`Context` per
orchestration file that has a resumption section (:func:`context`) and hands it to each of them. Ids are matched
ignoring case and punctuation (:func:`id_key`); places are written `` `workflow.status` on line 16``
(:func:`place`), values as JSON (:func:`shown`), long lists as their first few items (:func:`some`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from ctxres.config import Config
from ctxres.findings import Finding
from ctxres.formats.document import Document, JsonPath, format_json_path
from ctxres.linters.checking.registry import Rule
from ctxres.linters.validation.schema_errors import dotted
from ctxres.records import FrozenRecord, init_field
from ctxres.state.resumption import detect_version

# `ctxres check` loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TypeVar

    T = TypeVar("T")

RS: JsonPath = ("resumption", "recovery_state")
QT: JsonPath = ("resumption", "quality_trajectory")
LISTED = 3  # how many items a message names before "and N more"


class Context(FrozenRecord):
    """What every rule needs: the document, its resumption section and the settings."""

    __slots__ = ("config", "doc", "section", "version")

    doc: Document
    config: Config
    section: dict[str, Any]
    version: str

    def __init__(self, doc: Document, config: Config, section: dict[str, Any], version: str) -> None:
        init_field(self, "doc", doc)
        init_field(self, "config", config)
        init_field(self, "section", section)
        init_field(self, "version", version)

    @property
    def recovery(self) -> dict[str, Any]:
        value = self.section.get("recovery_state")
        return value if self.version == "2.0" and isinstance(value, dict) else {}

    @property
    def trajectory(self) -> dict[str, Any]:
        value = self.section.get("quality_trajectory")
        return value if self.version == "2.0" and isinstance(value, dict) else {}

    @property
    def summaries(self) -> dict[str, Any] | None:
        """`agent_summaries` of a v2.0 section; None when there is none (or not a mapping)."""
        value = self.section.get("agent_summaries") if self.version == "2.0" else None
        return value if isinstance(value, dict) else None

    def finding(self, rule: Rule, path: JsonPath, message: str, fix: str, *, key: bool = False) -> Finding:
        position = self.doc.locate(path, key=key)
        return Finding(self.doc.path, rule.code, message, rule.severity, position, format_json_path(path), fix)


def context(doc: Document, config: Config) -> Context | None:
    """The rules' view of an orchestration file with a resumption section; None for anything else."""
    if doc.kind != "orchestration" or not isinstance(doc.data, dict):
        return None
    section = doc.data.get("resumption")
    if not isinstance(section, dict):
        return None
    return Context(doc, config, section, detect_version(section))


def id_key(value: Any) -> str:
    """Ids are matched ignoring case and punctuation: ``QG-1``, ``qg_1`` and ``qg1`` are one gate (remembered:
    the same ids recur in every file)."""
    if not isinstance(value, str):
        return ""
    known = _IDS.get(value)
    if known is None:
        known = re.sub(r"[^0-9a-z]", "", value.casefold())
        if len(value) <= _IDS_LENGTH and len(_IDS) < _IDS_KEPT:
            _IDS[value] = known
    return known


_IDS: dict[str, str] = {}
_IDS_KEPT = 4096
_IDS_LENGTH = 128  # an id or a key, not prose


def short_path(path: JsonPath) -> str:
    """Paths inside the resumption section are shown from their sub-section on."""
    return dotted(path[1:] if path[:1] == ("resumption",) and len(path) > 2 else path)


def key_line(doc: Document, path: JsonPath) -> int:
    """The line of the key (a mapping or list starts on the line after its key)."""
    return doc.locate(path, key=True).line


def place(doc: Document, path: JsonPath) -> str:
    """`` `workflow.status` on line 16``."""
    return f"`{short_path(path)}` on line {key_line(doc, path)}"


def shown(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else f'"{value}"'


def some(items: list[str]) -> str:
    """The first few items and how many more."""
    return some_of(items, str)


def some_of(items: list[T], show: Callable[[T], str]) -> str:
    """:func:`some` of the items as ``show`` writes them, written for the first few only."""
    head = ", ".join(show(item) for item in items[:LISTED])
    return head if len(items) <= LISTED else f"{head} and {len(items) - LISTED} more"
