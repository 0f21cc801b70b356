"""The doctor's rows about the settings files that wire the hooks: the findings ``ctxres check`` reports on them.

``.claude/settings.json``, ``.claude/settings.local.json`` and, in a plugin, ``hooks/hooks.json`` are checked with
the rules ``ctxres check`` runs on them (the H rules, and P001 for a file that does not parse), so a defect the
client drops the file or a hook for (``docs/claude-settings.md``) is named by both.
"""

from __future__ import annotations

from pathlib import Path

from ctxres.config import Config
from ctxres.findings import Finding, Severity
from ctxres.linters.checking.discovery import discover
from ctxres.linters.checking.engine import check_artifact
from ctxres.linters.rules.layers import MISCONFIGURED, PRESENT, Layer

SETTINGS_LAYER = "settings"
SETTINGS_FILES = (".claude/settings.json", ".claude/settings.local.json", "hooks/hooks.json")
KIND = "claude-settings"


def settings_findings(root: Path, config: Config) -> tuple[list[str], list[Finding]]:
    """The settings files of the repository at ``root`` (shown paths) and every finding on them."""
    present = [root / name for name in SETTINGS_FILES if (root / name).is_file()]
    shown: list[str] = []
    found: list[Finding] = []
    for artifact in discover(present, config, root) if present else []:
        if artifact.kind != KIND:
            continue
        shown.append(artifact.display)
        found += check_artifact(artifact, config)[1]
    return shown, found


def check_settings(root: Path, config: Config) -> tuple[list[Layer], list[Finding]]:
    """One row per finding (an error misconfigures the layer, a warning leaves it present), or one row saying
    the files are clean; no row when the repository has none of them. The findings too, for the formats that
    report findings."""
    shown, found = settings_findings(root, config)
    if not shown:
        return [], []
    if not found:
        return [Layer(SETTINGS_LAYER, PRESENT, f"no defect in {', '.join(shown)}", "", shown[0])], []
    rows = [
        Layer(
            SETTINGS_LAYER,
            MISCONFIGURED if finding.severity is Severity.ERROR else PRESENT,
            f"{finding.path}:{finding.position.line}:{finding.position.col}: {finding.code} "
            f"{'' if finding.severity is Severity.ERROR else '(warning) '}{finding.message}",
            finding.fix,
            finding.path,
        )
        for finding in found
    ]
    return rows, found
