"""Secrets: the recognizers of ctxres/redact.py on realistic FAKE credentials, their
near misses, redaction in every file and text the real hooks produce, and the linter rule X001.

Every fake secret has the real format's prefix, length and alphabet (generated from a seeded random
source, so a failure reproduces); none of them was ever issued by anyone.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import string
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from ctxres.config import load_config
from ctxres.formats.loading import Format, parse_text
from ctxres.hooks import monitor
from ctxres.hooks.context import additional_context
from ctxres.hooks.statemoves import SNAPSHOT_FILE
from ctxres.linters.checking import engine
from ctxres.linters.reporters import FORMATS
from ctxres.linters.rules import secrets as security
from ctxres.redact import REDACTED, find_secrets, masked, redact, redact_value

from ..conftest import CORPUS, FIXTURES
from ..hooks.claude_session import (
    SESSION,
    WORKFLOW,
    boundary_line,
    fill_transcript,
    prompt_payload,
    run_hook,
    user_line,
    workspace,
    write_transcript,
)
from .fake_secrets import BY_NAME, FAKES, Fake


def fragments(secret: str, prefix: str = "") -> list[str]:
    """The secret itself and distinctive pieces of it (12-character windows of what follows the public
    prefix): a secret that leaks cut or wrapped is still found."""
    body = secret[len(prefix) :] if prefix and secret.startswith(prefix) else secret
    if secret.startswith("-----BEGIN"):  # the key material, without its public BEGIN/END lines
        body = "".join(secret.split("-----")[2].replace("\\n", "\n").split())
    size = min(12, len(body))
    assert size, f"nothing distinctive in {secret!r}"
    return [secret, *{body[i : i + size] for i in range(0, len(body) - size + 1, 4)}]


# --------------------------------------------------------------------------- recognizers


def test_the_pem_blocks_are_realistic() -> None:
    assert all(len(f.secret) > 1_600 for f in FAKES if f.kind == "pem")


@pytest.mark.parametrize("fake", FAKES, ids=lambda f: f.name)
def test_each_format_is_found_with_its_kind_at_its_exact_span(fake: Fake) -> None:
    text = f"Decision RD-007: {fake.text}\nnext line"
    found = find_secrets(text)
    assert [(s.kind, text[s.start : s.end]) for s in found] == [(fake.kind, fake.secret)]


@pytest.mark.parametrize("fake", FAKES, ids=lambda f: f.name)
def test_redaction_leaves_no_piece_of_the_secret(fake: Fake) -> None:
    text = f"before {fake.text} after"
    redacted = redact(text)
    assert REDACTED in redacted and redacted.startswith("before ") and redacted.endswith(" after")
    assert [piece for piece in fragments(fake.secret, fake.prefix) if piece in redacted] == []
    assert redact(redacted) == redacted  # idempotent


@pytest.mark.parametrize("fake", FAKES, ids=lambda f: f.name)
def test_masked_shows_the_public_prefix_at_most(fake: Fake) -> None:
    text = f"x {fake.text}"
    (secret,) = find_secrets(text)
    shown = masked(text, secret)
    labels = {"slack_webhook": "https://hooks.slack.com/…", "bearer": "Bearer …", "basic_auth": "Basic …"}
    assert shown == (f"{fake.prefix}…" if fake.prefix else labels.get(fake.kind, "app:…@" if "://" in text else "…"))
    assert [piece for piece in fragments(fake.secret, fake.prefix) if piece in shown] == []


@pytest.mark.parametrize(
    "text",
    [
        "tokens: 49",
        "estimated_tokens_used: 177200",
        "max_tokens: 4096",
        "token: 4096",
        "token_count: 5",
        "token budget: 29,000 tokens per QG iteration",
        "Tokens used: 146,400 / 200,000",
        "passed: true",
        "All 25 deps PASSED the license scan",
        "keyword: compaction",
        "key: value",
        "primary_key: id",
        "Our secret sauce is the reconciliation section.",
        "Remember to rotate the password before the release.",
        "The token: expired sessions must be refreshed first",
        "the api_key: see the team vault",
        "credentials: ~/.aws/credentials",
        "password: null",
        "password: ''",
        "password: changeme",
        "password: ********",
        "password: $DB_PASSWORD",
        "api_key: ${ANTHROPIC_API_KEY}",
        "api_key: your-api-key-here",
        "token: <set me>",
        "secret: [REDACTED]",
        '"client_secret": "[REDACTED]"',
        "eos_token: </s>",
        "secret_key = settings.SECRET_KEY",
        "api_key: ANTHROPIC_API_KEY",
        "password = get_password()",
        "token = os.environ['GITHUB_TOKEN']",
        'password = input("Password: ")',
        "password: /run/secrets/db_password",
        "token_url: https://auth.example.com/oauth/token",
        "commit 3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39",
        "sha: d933ffb7a1c2e3f4",
        "run 123e4567-e89b-12d3-a456-426614174000",
        "checkpoint cx-001 (CX-001, CP-002)",
        "checksum: n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg=",
        "digest sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
        "risk-assessment-2024-v2-final-draft",
        "sk-learn-pipeline-configuration",
        "task-AbCdEfGhIjKlMnOpQrSt1234",
        "AKIA is the prefix of AWS access key ids",
        "AKIAIOSFODNN7EXAMPL",
        "ghp_ tokens are GitHub's classic personal access tokens",
        "Bearer authentication (RFC 6750) with Bearer tokens",
        "a bearer of news",
        "Authorization: Bearer ${TOKEN}",
        "git@github.com:org/repo.git",
        "https://github.com/org/repo@v2",
        "https://user@example.com/path",
        "postgres://app:${DB_PASSWORD}@db.internal/app",
        "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----",
        "-----BEGIN CERTIFICATE-----\nMIIBkTCB+wIJAKHBfpegNKkQMA0GCSqGSIb3\n-----END CERTIFICATE-----",
        "Continue QG-2 iteration 1. Re-read the 3 Phase 2 deliverables and re-score with S-014, S-007, S-002.",
        "",
    ],
)
def test_near_misses_are_not_secrets(text: str) -> None:
    assert find_secrets(text) == []
    assert redact(text) == text


def test_redact_is_built_on_find_secrets() -> None:
    """A seeded mixture of secrets and near misses: redaction replaces exactly the spans found, and
    leaves nothing to find."""
    rng = random.Random(42)
    filler = ["tokens: 49", "next step", "password: null", "max_tokens: 4096", "key: value", "the token budget"]
    for _ in range(30):
        chosen = rng.sample(FAKES, 4)
        parts = [rng.choice(filler) for _ in range(6)] + [fake.text for fake in chosen]
        rng.shuffle(parts)
        text = "\n".join(parts)
        found = find_secrets(text)
        assert sorted(text[s.start : s.end] for s in found) == sorted(fake.secret for fake in chosen)
        expected, position = "", 0
        for secret in found:
            expected += text[position : secret.start] + REDACTED
            position = secret.end
        assert redact(text) == expected + text[position:]
        assert find_secrets(redact(text)) == []


def test_a_token_claimed_by_its_format_is_not_reported_twice() -> None:
    fake = BY_NAME["github-ghp"]
    text = f"GITHUB_TOKEN: {fake.secret}\nAuthorization: Bearer {BY_NAME['jwt'].secret}"
    assert [s.kind for s in find_secrets(text)] == ["github", "jwt"]


def test_collapsed_pem_block_is_still_redacted_whole() -> None:
    """The PreCompact hook joins the lines of a value: the block becomes one line."""
    block = BY_NAME["pem-rsa"].secret
    text = "Key for the deploy: " + " ".join(block.split()) + " then continue."
    assert redact(text) == f"Key for the deploy: {REDACTED} then continue."


def test_prose_needs_a_credential_shaped_value_a_key_line_any_value() -> None:
    assert redact("password: hunter") == f"password: {REDACTED}"  # a YAML key of its own line
    assert redact("Set the password: hunter before") == "Set the password: hunter before"  # prose
    assert redact("Set the password: hunter2024 before") == f"Set the password: {REDACTED} before"
    assert redact("password: P4ss.w0rd") == f"password: {REDACTED}"  # not a reference such as settings.KEY


def test_redact_value_applies_the_same_rule_to_keyed_values() -> None:
    value = {"password": "hunter", "max_token": 4096, "api_token": 12345678, "secret": "${SECRET}", "token": None}
    assert redact_value(value) == {
        "password": REDACTED,
        "max_token": 4096,
        "api_token": REDACTED,
        "secret": "${SECRET}",
        "token": None,
    }


def test_a_text_without_hints_runs_no_regular_expression() -> None:
    """The hot-path promise: no hint, no pattern compiled (in a fresh interpreter)."""
    code = (
        "import ctxres.redact as r\n"
        "text = ('Continue QG-2 iteration 1. Re-read the deliverables and re-score them. ' * 900)[:65536]\n"
        "assert r.redact(text) == text\n"
        "print(len(r._COMPILED))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert out.stdout.strip() == "0"


# --------------------------------------------------------------------------- the hooks' files and texts

HOOK_FAKES = [
    "anthropic",
    "openai-project",
    "aws-key-id",
    "aws-secret-env",
    "github-ghp",
    "github-pat",
    "slack-xoxb",
    "slack-webhook",
    "google",
    "jwt",
    "bearer",
    "yaml-password",
    "url-password",
    "pem-rsa",
    "pem-openssh",
]


def _leaks(data: bytes, cases: list[Fake]) -> list[str]:
    """The names of the fakes a piece of output still contains (whole, or any distinctive piece)."""
    text = data.decode("utf-8", "replace")
    unescaped = text.replace("\\n", "\n").replace("\\/", "/")  # JSON escapes
    return [
        fake.name
        for fake in cases
        if any(piece in text or piece in unescaped for piece in fragments(fake.secret, fake.prefix))
    ]


def _snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def _written(root: Path, before: dict[str, bytes]) -> dict[str, bytes]:
    """Every file under ``root`` that the hooks created or changed."""
    return {name: data for name, data in _snapshot(root).items() if before.get(name) != data}


def _poisoned_workflow(project: Path) -> Path:
    """The PROJ-001 workflow with a fake secret in every free-text field the hooks copy."""
    s = {name: BY_NAME[name].text for name in HOOK_FAKES}
    path = project / WORKFLOW
    data = yaml.safe_load(path.read_text())
    section = data["resumption"]
    state = section["recovery_state"]
    state["next_step"] = f"Re-score QG-2. Use {s['anthropic']} for the judge and {s['aws-secret-env']}."
    state["current_activity"] = f"qg-2 with {s['openai-project']}"
    state["current_phase_name"] = f"Core License Changes {s['google']}"
    state["last_checkpoint"] = BY_NAME["github-ghp"].secret  # 40 characters: the monitor's clip keeps all of it
    state["updated_at"] = "2026-02-17T10:00:00Z"  # STALE at NOW: PostToolUse answers with a warning
    state["blockers"] = [f"CI needs {s['github-pat']}"]
    state["notes"] = f"Webhook {s['slack-webhook']}; {s['slack-xoxb']}"
    section["decision_log"][0]["decision"] = f"Deploy with {s['bearer']}"
    section["decision_log"][0]["rationale"] = f"DB at {s['url-password']}"
    section["decision_log"].append({"id": "RD-002", "decision": f"Keep {s['aws-key-id']} for the bucket"})
    section["agent_summaries"]["license-replacer"] = f"DONE. Signed with\n{s['pem-rsa']}\n"
    section["agent_summaries"]["audit-executor"] = f"PASS. Session cookie {s['jwt']}"
    section["defect_summary"]["last_gate_primary_defect"] = f"DA-001: {s['yaml-password']}"
    section["defect_summary"]["unresolved_defects"] = [f"DA-001 {BY_NAME['anthropic'].secret}"]
    section["defect_summary"]["recurring_patterns"][0]["pattern"] = f"Leaked {s['pem-openssh']}"
    section["files_to_read"][0]["purpose"] = f"State; the API key is {s['anthropic']}"
    section["files_to_read"].append(f"notes/{BY_NAME['github-ghp'].secret}.md")
    path.write_text(yaml.safe_dump(data, sort_keys=False, width=10_000), encoding="utf-8")
    return path


def _poisoned_transcript(tmp_path: Path, tokens: int) -> str:
    """A transcript (outside the project) at ``tokens`` of fill whose prompts carry secrets too."""
    path = Path(fill_transcript(tmp_path, tokens))
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    lines.insert(1, user_line("2026-02-17T10:10:00Z", f"here is my key {BY_NAME['anthropic'].secret}"))
    return write_transcript(tmp_path, lines)


def _poisoned_checkpoint(project: Path) -> None:
    """A checkpoint written by hand (not by the hook) that carries secrets: the alert must not copy them."""
    data = json.loads((FIXTURES / "templates" / "proj001-qg2-checkpoint.json").read_text())
    data["event_id"] = "cx-001"
    data["metadata"]["acknowledged"] = False
    data["recovery_instructions"]["next_action"] = f"Resume with {BY_NAME['openai-service'].text}"
    data["recovery_instructions"]["critical_context"] = f"Key {BY_NAME['pem-ec'].secret}"
    data["orchestration_state"]["current_activity"] = BY_NAME["aws-secret"].text
    folder = project / ".jerry" / "checkpoints"
    folder.mkdir(parents=True)
    (folder / "cx-001-checkpoint.json").write_text(json.dumps(data, indent=2))


def test_no_hook_writes_or_injects_a_secret(tmp_path: Path) -> None:
    project = workspace(tmp_path)
    workflow = _poisoned_workflow(project)
    transcript = _poisoned_transcript(tmp_path, 170_000)  # 85%: the monitor injects its text
    cases = [BY_NAME[name] for name in HOOK_FAKES]
    secret_prompt = f"deploy with {BY_NAME['anthropic'].secret} and {BY_NAME['github-pat'].secret}"
    assert sorted(_leaks(workflow.read_bytes(), cases)) == sorted(HOOK_FAKES)  # the detector sees every input
    before = _snapshot(project)
    outputs: dict[str, str] = {}

    prompt = {**prompt_payload(project, transcript), "prompt": secret_prompt}
    outputs["UserPromptSubmit"] = run_hook("UserPromptSubmit", prompt, project).context or ""
    tool = {
        "session_id": SESSION,
        "transcript_path": transcript,
        "cwd": str(project),
        "hook_event_name": "PostToolUse",
        "tool_name": "Write",
        "tool_input": {"file_path": str(workflow), "content": workflow.read_text()},
        "tool_response": {"filePath": str(workflow), "success": True},
    }
    outputs["PostToolUse"] = run_hook("PostToolUse", tool, project).context or ""
    compact = {
        "session_id": SESSION,
        "transcript_path": transcript,
        "cwd": str(project),
        "hook_event_name": "PreCompact",
        "trigger": "manual",
        "custom_instructions": f"keep {BY_NAME['anthropic'].secret} in mind; {BY_NAME['yaml-password'].text}",
    }
    assert run_hook("PreCompact", compact, project).output == {}
    for source in ("compact", "startup"):
        start = {
            "session_id": SESSION,
            "transcript_path": transcript,
            "cwd": str(project),
            "hook_event_name": "SessionStart",
            "source": source,
        }
        outputs[f"SessionStart {source}"] = run_hook("SessionStart", start, project).context or ""

    written = _written(project, before)
    checkpoint = project / ".jerry" / "checkpoints" / "cx-002.json"
    assert sorted(written) == sorted(
        [
            ".jerry/checkpoints/cx-002.json",
            f".jerry/{monitor.STATE_FILE}",
            f".jerry/{monitor.CACHE_FILE}",
            f".jerry/{SNAPSHOT_FILE}",  # the PostToolUse baseline: a redacted copy of the workflow's data
            f".jerry/sessions/{SESSION}.json",  # what SessionStart delivered to the session (no workflow data)
        ]
    )
    # every hook did produce what the secrets were placed for, redacted
    assert all(outputs.values()), outputs
    assert REDACTED in checkpoint.read_text() and REDACTED in outputs["SessionStart startup"]
    assert REDACTED in outputs["UserPromptSubmit"]  # the last checkpoint shown by the monitor
    assert REDACTED in json.loads((project / ".jerry" / monitor.CACHE_FILE).read_text())["workflow"]["last_checkpoint"]
    leaks = {name: _leaks(data, cases) for name, data in written.items()}
    leaks.update({event: _leaks(text.encode(), cases) for event, text in outputs.items()})
    assert {where: names for where, names in leaks.items() if names} == {}


def test_the_compaction_alert_does_not_copy_secrets_from_a_hand_written_checkpoint(tmp_path: Path) -> None:
    project = workspace(tmp_path)
    _poisoned_checkpoint(project)
    transcript = write_transcript(tmp_path, [user_line("2026-02-17T11:00:00Z"), boundary_line("2026-02-17T11:50:00Z")])
    start = {
        "session_id": SESSION,
        "transcript_path": transcript,
        "cwd": str(project),
        "hook_event_name": "SessionStart",
        "source": "compact",
    }
    alert = run_hook("SessionStart", start, project).context or ""
    assert "<compaction-alert>" in alert and REDACTED in alert
    cases = [BY_NAME[name] for name in ("openai-service", "pem-ec", "aws-secret")]
    assert _leaks(alert.encode(), cases) == []


NEXUS_RUNNER = (
    "import sys; from ctxres.hooks import main; "
    "main.MODULES.update(PreCompact='nexus', SessionStart='nexus'); sys.exit(main.main())"
)
P24 = "24-project-skills-research-resume-expansion"


def test_the_nexus_hooks_write_and_inject_no_secret(tmp_path: Path) -> None:
    root = tmp_path / "nexus"
    shutil.copytree(CORPUS / "nexus", root)
    for path in root.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    (root / "00-system" / ".cache").mkdir(exist_ok=True)
    planning = root / "02-projects" / P24 / "01-planning"
    manifest = planning / "resume-context.md"
    cases = [BY_NAME[name] for name in ("anthropic", "github-ghp", "yaml-password", "slack-xoxb", "jwt")]
    text = manifest.read_text().replace(
        'next_action: "execute-project"', f'next_action: "execute-project with {cases[0].secret}"'
    )
    text = text.replace('current_phase: "ready-for-implementation"', f'current_phase: "ready {cases[1].secret}"')
    text = text.replace('  - "01-planning/plan.md"', f'  - "01-planning/plan.md"\n  - "{cases[3].secret}.md"')
    text += f"\n## Validation Questions\n- Is {cases[2].text} still valid?\n- Does {cases[4].secret} expire?\n"
    manifest.write_text(text)
    (planning / "overview.md").write_text("# overview\n")
    call = {
        "type": "assistant",
        "message": {
            "role": "assistant",
            "content": [
                {
                    "type": "tool_use",
                    "id": "t1",
                    "name": "Bash",
                    "input": {"command": f"cd 02-projects/{P24} && TOKEN={cases[1].secret} ./deploy"},
                },
                {
                    "type": "tool_use",
                    "id": "t2",
                    "name": "Edit",
                    "input": {
                        "file_path": str(planning / "overview.md"),
                        "old_string": "a",
                        "new_string": cases[0].secret,
                    },
                },
            ],
        },
    }
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(json.dumps(call) + "\n")
    before = _snapshot(root)
    env = {**os.environ, "CLAUDE_PROJECT_DIR": str(root), "CTXRES_NOW": "2026-01-04T12:00:00Z"}
    outputs = []
    for event, payload in (
        (
            "PreCompact",
            {
                "hook_event_name": "PreCompact",
                "trigger": "auto",
                "transcript_path": str(transcript),
                "custom_instructions": cases[0].secret,
                "session_id": "s",
                "cwd": str(root),
            },
        ),
        (
            "SessionStart",
            {
                "hook_event_name": "SessionStart",
                "source": "compact",
                "session_id": "s",
                "transcript_path": str(transcript),
                "cwd": str(root),
            },
        ),
    ):
        result = subprocess.run(
            [sys.executable, "-c", NEXUS_RUNNER, event],
            input=json.dumps(payload).encode(),
            capture_output=True,
            env=env,
            timeout=60,
        )
        assert result.returncode == 0 and b"Traceback" not in result.stderr
        outputs.append(result.stdout)
    written = _written(root, before)
    assert sorted(written) == ["00-system/.cache/precompact_state.json"]
    assert json.loads(written["00-system/.cache/precompact_state.json"])["active_project_id"] == P24
    injected = json.loads(outputs[1])["hookSpecificOutput"]["additionalContext"]
    assert REDACTED in injected and "Then continue" in injected
    leaks = {name: _leaks(data, cases) for name, data in written.items()}
    leaks.update({f"stdout {n}": _leaks(out, cases) for n, out in enumerate(outputs)})
    assert {where: names for where, names in leaks.items() if names} == {}


def test_workflow_facts_are_redacted_before_they_are_cached() -> None:
    data = yaml.safe_load((FIXTURES / "templates" / "proj001-qg2-ORCHESTRATION.yaml").read_text())
    data["resumption"]["recovery_state"]["last_checkpoint"] = BY_NAME["github-ghp"].secret
    facts = monitor.workflow_facts(data)
    assert facts is not None and facts["last_checkpoint"] == REDACTED and facts["status"] == "ACTIVE"


def test_every_injected_text_is_redacted_before_it_is_cut() -> None:
    key = BY_NAME["anthropic"].secret
    text = "x" * 9_950 + " " + key  # the cut at 10,000 characters would leave a prefix no pattern recognizes
    out = additional_context("UserPromptSubmit", text)["hookSpecificOutput"]["additionalContext"]
    assert len(out) <= 10_000 and key[:30] not in out


# --------------------------------------------------------------------------- X001


def _doc(text: str, name: str = "ORCHESTRATION.yaml", kind: str = "orchestration") -> Any:
    fmt = {"orchestration": Format.YAML, "checkpoint": Format.JSON, "event-log": Format.JSONL}[kind]
    result = parse_text(name, kind, fmt, text)
    assert result.document is not None
    return result.document


def test_x001_reports_each_secret_at_its_first_character_without_printing_it() -> None:
    fake, pem = BY_NAME["anthropic"], BY_NAME["pem-rsa"]
    body = "\n".join("      " + line for line in pem.secret.splitlines())
    text = f'resumption:\n  recovery_state:\n    next_step: "Judge with {fake.secret}"\n    notes: |\n{body}\n'
    findings = security.findings_in(_doc(text))
    assert [(f.code, f.position.line, f.position.col, f.severity.value) for f in findings] == [
        ("X001", 3, 28, "error"),
        ("X001", 5, 7, "error"),
    ]
    assert findings[0].message.startswith("An Anthropic API key is written in this file (`sk-ant-api03-…`)")
    assert findings[1].message.startswith("A PEM private key block is written in this file (`-----BEGIN RSA")
    assert all("revoke or rotate" in f.fix and "git history" in f.fix for f in findings)
    shown = " ".join(f.message + f.fix for f in findings).encode()
    assert _leaks(shown, [fake, pem]) == []


def test_x001_names_the_assigned_key_and_not_its_value() -> None:
    fake = BY_NAME["json-password"]
    text = json.dumps({"schema_version": "1.0.0", "metadata": {"db_password": fake.secret}}, indent=2)
    (finding,) = security.findings_in(_doc(text, "cx-001-checkpoint.json", "checkpoint"))
    assert finding.message.startswith("A secret value assigned to `db_password` is written in this file")
    assert (finding.position.line, finding.position.col) == (4, 21)
    assert fake.secret not in finding.message


def test_x001_reads_every_line_of_an_event_log() -> None:
    line = json.dumps({"event_type": "task_completed", "summary": f"pushed with {BY_NAME['github-pat'].secret}"})
    text = json.dumps({"event_type": "run_started"}) + "\n" + line + "\n"
    (finding,) = security.findings_in(_doc(text, "events/executor/1.jsonl", "event-log"))
    assert finding.position.line == 2 and "GitHub token" in finding.message


def test_x001_fails_the_check_and_its_output_never_shows_a_secret(tmp_path: Path) -> None:
    case = tmp_path / "case"
    shutil.copytree(FIXTURES / "rules" / "X001" / "bad", case)
    report = engine.run([case], load_config(case), cwd=case)
    assert len([f for f in report.findings if f.code == "X001"]) == 11 and report.errors >= 11
    pieces = []
    for path in case.rglob("*"):
        text = path.read_text() if path.is_file() else ""
        for secret in find_secrets(text):
            value, shown = text[secret.start : secret.end], masked(text, secret)[:-1]
            pieces += fragments(value, shown if value.startswith(shown) else "")
    assert len(pieces) > 100
    for output_format in FORMATS:
        run = subprocess.run(
            [
                sys.executable,
                "-m",
                "ctxres.linters.cli",
                "check",
                ".",
                "--select",
                "X001",
                "--output-format",
                output_format,
            ],
            capture_output=True,
            timeout=120,
            cwd=case,
        )
        assert run.returncode == 1 and run.stdout.count(b"X001") >= 11, output_format
        assert [piece for piece in pieces if piece.encode() in run.stdout] == [], output_format


def test_the_real_corpus_has_no_secret() -> None:
    report = engine.run([CORPUS], load_config(CORPUS), cwd=CORPUS)
    assert [f for f in report.findings if f.code == "X001"] == []


# --- stderr: a hook's one warning line is redacted too ---------------------------------------------


def test_a_hook_warning_never_prints_a_secret(tmp_path: Path) -> None:
    """The refused payload `cwd` is quoted in the warning; a token in it must not reach stderr."""
    token = "ghp_" + "".join(random.Random(7).choices(string.ascii_letters + string.digits, k=36))
    env = {key: value for key, value in os.environ.items() if key != "CLAUDE_PROJECT_DIR"}
    payload = {"hook_event_name": "UserPromptSubmit", "session_id": "s", "prompt": "hi", "cwd": f"relative/{token}"}
    result = subprocess.run(
        [sys.executable, "-m", "ctxres.hooks.main", "UserPromptSubmit"],
        input=json.dumps(payload).encode(),
        capture_output=True,
        timeout=60,
        env=env,
        cwd=tmp_path,
    )
    assert result.returncode == 0 and json.loads(result.stdout) == {}
    [line] = result.stderr.decode().splitlines()
    assert "cwd" in line and REDACTED in line, line
    assert token not in line and token[4:20] not in line


# --- X001 on files rejected as binary, not UTF-8, too large or unparsable -------------------------


def _x001(case: Path) -> list[tuple[str, int, str]]:
    report = engine.run([case], load_config(case), cwd=case)
    return [(f.path, f.position.line, f.code) for f in report.findings]


@pytest.mark.parametrize(
    ("case", "rejected"),
    [("bad-binary", "P004"), ("bad-not-utf8", "P003"), ("bad-too-large", "P005"), ("bad-unparsable", "P001")],
)
def test_x001_scans_a_file_that_is_rejected(case: str, rejected: str) -> None:
    found = _x001(FIXTURES / "rules" / "X001" / case)
    assert {code for _path, _line, code in found} == {rejected, "X001"}


def test_a_key_in_a_checkpoint_with_a_nul_byte_is_still_reported(tmp_path: Path) -> None:
    fake = BY_NAME["anthropic"]
    folder = tmp_path / ".jerry" / "checkpoints"
    folder.mkdir(parents=True)
    (folder / "cx-001.json").write_bytes(b'{"note": "\x00"}\n{"next": "' + fake.secret.encode() + b'"}\n')
    found = _x001(tmp_path)
    assert [(line, code) for _path, line, code in found] == [(1, "P004"), (2, "X001")]


def test_a_rejected_file_is_scanned_only_up_to_the_size_limit(tmp_path: Path) -> None:
    fake = BY_NAME["github-pat"]
    (tmp_path / ".ctxres.toml").write_text("max-file-size = 256\n")
    folder = tmp_path / ".jerry" / "checkpoints"
    folder.mkdir(parents=True)
    (folder / "cx-001.json").write_text('{"padding": "' + "x" * 300 + '", "late": "' + fake.secret + '"}\n')
    assert [code for _path, _line, code in _x001(tmp_path)] == ["P005"]  # the key after the limit is not read


def test_a_binary_file_without_a_key_gets_no_x001(tmp_path: Path) -> None:
    folder = tmp_path / ".jerry" / "checkpoints"
    folder.mkdir(parents=True)
    noise = bytes(random.Random(13).randrange(256) for _ in range(64 * 1024))
    (folder / "cx-001.json").write_bytes(noise + b'\x00{"token": "[REDACTED]", "password": null}\n')
    found = [code for _path, _line, code in _x001(tmp_path)]
    assert found and "X001" not in found  # rejected (P003/P004), and no noise from random bytes
