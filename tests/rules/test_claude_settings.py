"""The H rules (``linters/rules/claude_settings.py``): their fixtures (fixtures/rules/H00N/) run in
test_rule_fixtures.py and, in the real client, in e2e/test_settings_defects.py; here, a defect in an entry of
ours is an error where another's is a warning, and every settings file ctxres writes itself is clean."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from ctxres.config import Config
from ctxres.findings import Severity
from ctxres.linters.checking.discovery import discover
from ctxres.linters.checking.engine import check_artifact
from ctxres.linters.checking.registry import RULES
from ctxres.linters.rules import claude_settings

from ..cli_process import ctxres
from ..conftest import ROOT

OURS = {"type": "command", "command": "ctxres-hook UserPromptSubmit"}
THEIRS = {"type": "command", "command": "./scripts/notify.sh"}


def findings_of(tmp_path: Path, settings: dict[str, Any], name: str = "settings.json") -> list[tuple[str, str, str]]:
    path = tmp_path / ".claude" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(settings, indent=2) + "\n", "utf-8")
    [artifact] = discover([path], Config(), tmp_path)
    assert artifact.kind == "claude-settings"
    found = check_artifact(artifact, Config())[1]
    return [(f.code, f.severity.value, f.message) for f in found]


def test_the_rules_are_registered_with_their_checks() -> None:
    assert RULES["H001"] is claude_settings.UNKNOWN_HOOK_EVENT
    assert {code for code in RULES if code.startswith("H")} == {f"H00{n}" for n in range(1, 8)}


def _unknown_event(hook: dict[str, Any]) -> dict[str, Any]:
    return {"hooks": {"UserPromptSubmitt": [{"hooks": [hook]}]}}


def _flat_entry(hook: dict[str, Any]) -> dict[str, Any]:
    return {"hooks": {"UserPromptSubmit": [hook]}}


def _bad_type(hook: dict[str, Any]) -> dict[str, Any]:
    return {"hooks": {"UserPromptSubmit": [{"hooks": [dict(hook, type="commandx")]}]}}


def _string_timeout(hook: dict[str, Any]) -> dict[str, Any]:
    return {"hooks": {"UserPromptSubmit": [{"hooks": [dict(hook, timeout="5")]}]}}


@pytest.mark.parametrize(
    ("code", "make"), [("H001", _unknown_event), ("H002", _flat_entry), ("H003", _bad_type), ("H004", _string_timeout)]
)
def test_a_skipped_entry_of_ours_is_an_error_and_anothers_a_warning(tmp_path: Path, code: str, make: Any) -> None:
    """The client skips the entry and keeps the rest: our layer stops (error), another tool's hook is theirs."""
    [(ours_code, ours_severity, message)] = findings_of(tmp_path / "ours", make(OURS))
    [(theirs_code, theirs_severity, _)] = findings_of(tmp_path / "theirs", make(THEIRS))
    assert (ours_code, ours_severity) == (code, "error") and (theirs_code, theirs_severity) == (code, "warning")
    assert "Claude Code skips" in message


def test_messages_say_what_to_change(tmp_path: Path) -> None:
    [(_, _, event)] = findings_of(tmp_path / "a", _unknown_event(OURS))
    [(_, _, timeout)] = findings_of(tmp_path / "b", _string_timeout(OURS))
    assert 'rename it "UserPromptSubmit"' in event
    assert "write it as a number of seconds: 5" in timeout


@pytest.mark.parametrize(
    ("value", "severity", "seen"),
    [(4, "warning", '"4"'), (True, "warning", '"true"'), (None, "error", '"null"'), ({"a": 1}, "error", "[object")],
)
def test_an_env_value_is_as_severe_as_the_text_the_client_makes_of_it(
    tmp_path: Path, value: object, severity: str, seen: str
) -> None:
    [(code, found, message)] = findings_of(tmp_path, {"env": {"BUILD_JOBS": value}}, "settings.local.json")
    assert (code, found) == ("H007", severity) and seen in message
    [(_, ours, _)] = findings_of(tmp_path / "ours", {"env": {"CTXRES_HOOK": 4}})
    assert ours == "error"  # a variable our hooks read


def test_a_statusline_without_command_drops_the_file(tmp_path: Path) -> None:
    [(code, severity, message)] = findings_of(tmp_path, {"statusLine": "ctxres-hook statusline"})
    assert (code, severity) == ("H006", "error") and "none of its hooks runs" in message


def test_a_matcher_on_an_event_that_takes_one_is_fine(tmp_path: Path) -> None:
    settings = {"hooks": {"PreCompact": [{"matcher": "auto", "hooks": [OURS]}], "Stop": [{"matcher": "", "hooks": []}]}}
    assert findings_of(tmp_path, settings) == []
    assert Severity.WARNING is claude_settings.MATCHER_IGNORED.severity


def _checked_clean(repo: Path, *names: str) -> None:
    result = ctxres("check", "--output-format", "json", *names, cwd=repo)
    report = json.loads(result.stdout)
    assert (result.returncode, report["findings"]) == (0, []), result.stdout
    assert report["summary"]["files_checked"] == len(names)


def test_what_init_and_install_hooks_write_is_clean(tmp_path: Path) -> None:
    """Every settings file ctxres writes: init's (the committed file and this machine's local one), and
    install-hooks' with the default command, an own command, and into the local file."""
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    assert ctxres("init", cwd=tmp_path).returncode == 0
    _checked_clean(tmp_path, ".claude/settings.json", ".claude/settings.local.json")
    other = tmp_path / "other"
    other.mkdir()
    subprocess.run(["git", "init", "-q", str(other)], check=True)
    assert ctxres("install-hooks", cwd=other).returncode == 0
    local = ctxres("install-hooks", "--settings", ".claude/settings.local.json", "--command", "my-hook", cwd=other)
    assert local.returncode == 0
    _checked_clean(other, ".claude/settings.json", ".claude/settings.local.json")


def test_the_repositorys_own_plugin_hooks_are_clean() -> None:
    """The plugin's hooks/hooks.json (beside .claude-plugin/plugin.json) is checked, and clean."""
    _checked_clean(ROOT, "hooks/hooks.json")


@pytest.mark.parametrize("code", [f"H00{n}" for n in range(1, 8)])
def test_the_editors_schema_agrees_with_the_fixtures(code: str) -> None:
    """schemas/claude-settings.schema.json accepts every good fixture and rejects every bad one but H005's (a
    matcher the client ignores is still a valid entry)."""
    import jsonschema

    schema = json.loads((ROOT / "schemas" / "claude-settings.schema.json").read_text("utf-8"))
    validator = jsonschema.Draft202012Validator(schema)
    folders = sorted((ROOT / "fixtures" / "rules" / code).glob("*/.claude/settings.json"))
    verdicts = {path.parent.parent.name: validator.is_valid(json.loads(path.read_text("utf-8"))) for path in folders}
    assert verdicts.pop("bad") is (code == "H005")
    assert verdicts and all(verdicts.values()), verdicts
