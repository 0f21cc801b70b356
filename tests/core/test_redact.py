"""Secret redaction (ctxres/redact.py): what is replaced, what is left alone."""

from __future__ import annotations

import subprocess
import sys

import pytest

from ctxres.redact import REDACTED, find_secrets, is_secret_name, redact, redact_value


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("key sk-ant-api03-Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0L end", f"key {REDACTED} end"),
        ("openai sk-proj-4fGh7Jk9Lm2Np5Qr8St1Uv3Wx6Yz0Ab.", f"openai {REDACTED}."),
        ("legacy sk-4fGh7Jk9Lm2Np5Qr8St1Uv3Wx6Yz0AbCdEfGhIj", f"legacy {REDACTED}"),
        ("id AKIAQ7ZK2M4N6P8R3T5V, temp ASIAY34FZKBOKMUTVV7A", f"id {REDACTED}, temp {REDACTED}"),
        (
            "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYz8Q4mK2pLw",
            f"aws_secret_access_key = {REDACTED}",
        ),
        (
            '"aws_secret_access_key": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYz8Q4mK2pLw"',
            f'"aws_secret_access_key": "{REDACTED}"',
        ),
        ("ghp_16C7e42F292c6912E7710c838347Ae178B4a", REDACTED),
        ("gho_16C7e42F292c6912E7710c838347Ae178B4a ghs_16C7e42F292c6912E7710c838347Ae178B4a", f"{REDACTED} {REDACTED}"),
        ("github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", REDACTED),
        ("slack xoxb-2048-4096-Zq8Wv7Xu6Ys5 and xoxp-1-2-3-abcdefgh", f"slack {REDACTED} and {REDACTED}"),
        ("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln", f"Authorization: Bearer {REDACTED}"),
        ("curl -H 'authorization: bearer abcdef0123456789=='", f"curl -H 'authorization: bearer {REDACTED}'"),
        (
            "before\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\nxyz\n-----END RSA PRIVATE KEY-----\nafter",
            f"before\n{REDACTED}\nafter",
        ),
        ("cut: -----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC", f"cut: {REDACTED}"),
        ("password: hunter22", f"password: {REDACTED}"),
        ('db_password="correct horse battery"', f'db_password="{REDACTED}"'),
        ("client_secret = 'abc123xyz'", f"client_secret = '{REDACTED}'"),
        ("token: abcd1234, next", f"token: {REDACTED}, next"),
        ("apiKey: 0123abcd", f"apiKey: {REDACTED}"),
        ("API_KEY=0123abcd", f"API_KEY={REDACTED}"),
        ("secret: s3cr3t", f"secret: {REDACTED}"),
        ("postgres://app:pa55w0rd@db.internal:5432/app", f"postgres://app:{REDACTED}@db.internal:5432/app"),
    ],
)
def test_secrets_are_replaced(text: str, expected: str) -> None:
    assert redact(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Continue QG-2 iteration 1. Re-read the 3 Phase 2 deliverables and re-score with S-014, S-007, S-002.",
        "sk-learn-pipeline-configuration",  # no digit: not a key
        "estimated tokens: 177200 tokens used; max_tokens: 4096",
        "token_count: 5",
        "password: null",
        "api_key: ${API_KEY}",
        "token: <set me>",
        "secret: [REDACTED]",
        "tasks-and-risks task-abcdefghijklmnopqrstuvwxyz",
        "https://example.com/path@v2",
        "a bearer of news",
        "AKIAIOSFODNN7EXAMPL",  # one character short
        "",
    ],
)
def test_ordinary_text_is_left_alone(text: str) -> None:
    assert redact(text) == text


@pytest.mark.parametrize(
    "text",
    [
        "api_key: <your-key>",
        "session_token: {unique-hash-1}",
        'session_token: "{unique-hash-1}"',
        "github_token: ${TOKEN}",
        "password: xxx",
        'admin_password: "%ADMIN_PASSWORD%"',
        "ANTHROPIC_API_KEY: sk-ant-api03-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        "OPENAI_API_KEY: sk-XXXXXXXXXXXXXXXXXXXXXXXX",
        "push with ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        "AWS AKIAXXXXXXXXXXXXXXXX and AKIAIOSFODNN7EXAMPLE",
        "aws_secret_access_key: wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "api_key: sk-your-key-here",
        # a template's placeholder anywhere in the value makes it a template
        "session_token: abcd1234{unique}",
        'token: "JRRY-CNRY-{unique-hash-1}"',
        "api_key: sk-${SUFFIX}-live",
        "password: db-<env>-password-9",
        "ci_token: tok_xxxx1234abcd",
    ],
)
def test_placeholders_in_a_credentials_place_are_not_secrets(text: str) -> None:
    assert find_secrets(text) == []
    assert redact(text) == text


@pytest.mark.parametrize(
    "text",
    [
        "session_token: abcd1234xxx9",  # three x's: not a placeholder's filler
        "session_token: abcd1234}unique",  # a stray brace: no placeholder
        "push with ghp_5g73f3UpQ4emGDzH7K3hDdn4vYHGcQ3ZeeCp",
        "AWS AKIAQ7ZK2M4N6P8R3T5V",
        "password: examinedX9",
        "slack https://hooks.slack.com/services/T0EXAMPLE/B0EXAMPLE/s5A9UDb6kB9iEHr6S3n4g497",
    ],
)
def test_values_near_a_placeholder_are_still_secrets(text: str) -> None:
    assert len(find_secrets(text)) == 1


def test_redaction_is_idempotent() -> None:
    text = "password: x1y2z3 and ghp_16C7e42F292c6912E7710c838347Ae178B4a and Bearer abcdefgh12345678"
    once = redact(text)
    assert REDACTED in once and redact(once) == once


def test_deep_redaction_covers_values_keys_lists_and_secret_named_keys() -> None:
    value = {
        "next_step": "use ghp_16C7e42F292c6912E7710c838347Ae178B4a",
        "password": "hunter22",
        "api_token": 12345678,
        "max_token": 4096,  # a count, not a credential
        "token_count": 5,
        "estimated_tokens_used": 177200,
        "secret": None,
        "private_key": True,
        "nested": [{"note": "Bearer abcdefgh12345678"}, ("password=xyz12345",)],
        "sk-ant-api03-Zx9Qw8Er7Ty6Ui5Op4As3Df": "key as a key",
        7: "int key",
    }
    assert redact_value(value) == {
        "next_step": f"use {REDACTED}",
        "password": REDACTED,
        "api_token": REDACTED,
        "max_token": 4096,
        "token_count": 5,
        "estimated_tokens_used": 177200,
        "secret": None,
        "private_key": True,
        "nested": [{"note": f"Bearer {REDACTED}"}, [f"password={REDACTED}"]],
        REDACTED: "key as a key",
        7: "int key",
    }
    assert value["password"] == "hunter22"  # the input is not modified


@pytest.mark.parametrize(
    ("name", "secret"),
    [
        ("password", True),
        ("DB_PASSWORD", True),
        ("client_secret", True),
        ("apiKey", True),
        ("access_token", True),
        ("credentials", True),
        ("tokens", False),
        ("token_count", False),
        ("keyboard", False),
        ("secretary_name", False),
    ],
)
def test_secret_names(name: str, secret: bool) -> None:
    assert is_secret_name(name) is secret


def test_module_is_standard_library_only() -> None:
    code = "import sys, ctxres.redact; print(sorted(m for m in ('yaml', 'pydantic', 'jsonschema') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
