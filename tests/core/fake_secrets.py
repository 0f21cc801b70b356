"""Fake secrets of every format the redaction knows, random but the same on every run (a fixed seed),
with the kind each is found as.
"""

from __future__ import annotations

import base64
import random
import string
import textwrap
from typing import NamedTuple

ALNUM = string.ascii_letters + string.digits
URLSAFE = ALNUM + "-_"
UPPER = string.ascii_uppercase + string.digits


class Fake(NamedTuple):
    """How a secret appears in a text (``text``), the credential itself (``secret``, the span that must
    be found and must never survive), its kind, and the part that is public (``prefix``)."""

    name: str
    text: str
    secret: str
    kind: str
    prefix: str = ""


def _pem(rng: random.Random, label: str, size: int = 1190) -> str:
    body = base64.b64encode(rng.randbytes(size)).decode()
    lines = "\n".join(textwrap.wrap(body, 64))
    return f"-----BEGIN {label}-----\n{lines}\n-----END {label}-----"


def fakes(seed: int = 8) -> list[Fake]:
    """One realistic fake of every recognized format (deterministic)."""
    rng = random.Random(seed)

    def pick(n: int, alphabet: str = ALNUM) -> str:
        while True:  # real keys mix cases and digits; a draw without them would be another test
            value = "".join(rng.choice(alphabet) for _ in range(n))
            if alphabet != UPPER and not (any(c.isupper() for c in value) and any(c.isdigit() for c in value)):
                continue
            return value

    anthropic = "sk-ant-api03-" + pick(93, URLSAFE) + "AA"
    admin = "sk-ant-admin01-" + pick(93, URLSAFE) + "AA"
    openai = "sk-" + pick(20) + "T3BlbkFJ" + pick(20)
    project = "sk-proj-" + pick(156, URLSAFE)
    service = "sk-svcacct-" + pick(156, URLSAFE)
    aws_id = "AKIA" + pick(16, UPPER)
    aws_temp = "ASIA" + pick(16, UPPER)
    aws_secret = pick(40, ALNUM + "/+")
    aws_secret_env = pick(40, ALNUM + "/+")
    slack_tail = pick(24)
    webhook = f"services/T{pick(8, UPPER)}/B{pick(8, UPPER)}/{pick(24)}"
    jwt = (
        base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').decode().rstrip("=")
        + "."
        + base64.urlsafe_b64encode(f'{{"sub":"{pick(10)}","iat":1516239022}}'.encode()).decode().rstrip("=")
        + "."
        + pick(43, URLSAFE)
    )
    bearer = pick(40, URLSAFE + ".")
    basic = base64.b64encode(f"deploy:{pick(16)}".encode()).decode()
    password = pick(20, ALNUM + "!#%^&*")
    cases = [
        Fake("anthropic", f"ANTHROPIC_API_KEY {anthropic}", anthropic, "anthropic", "sk-ant-api03-"),
        Fake("anthropic-admin", f"admin key {admin}", admin, "anthropic", "sk-ant-admin01-"),
        Fake("openai", f"use {openai} for the judge", openai, "openai", "sk-"),
        Fake("openai-project", f"key={project};", project, "openai", "sk-proj-"),
        Fake("openai-service", f"({service})", service, "openai", "sk-svcacct-"),
        Fake("aws-key-id", f"id {aws_id},", aws_id, "aws_key_id", "AKIA"),
        Fake("aws-temporary-key-id", f"temp {aws_temp}.", aws_temp, "aws_key_id", "ASIA"),
        Fake("aws-secret", f"aws_secret_access_key = {aws_secret}", aws_secret, "aws_secret"),
        Fake("aws-secret-env", f"export AWS_SECRET_ACCESS_KEY={aws_secret_env}", aws_secret_env, "aws_secret"),
        *(
            Fake(f"github-{p}", f"token {p}_{tail}", f"{p}_{tail}", "github", f"{p}_")
            for p, tail in (("ghp", pick(36)), ("gho", pick(36)), ("ghs", pick(36)), ("ghu", pick(36)))
        ),
        Fake("github-refresh", f"ghr_{(r := pick(76))}", f"ghr_{r}", "github", "ghr_"),
        Fake(
            "github-pat",
            f"pat github_pat_{(g := pick(22) + '_' + pick(59))}",
            f"github_pat_{g}",
            "github",
            "github_pat_",
        ),
        *(
            Fake(
                f"slack-{p}",
                f"slack {p}-1234567890-1234567890123-{slack_tail}",
                f"{p}-1234567890-1234567890123-{slack_tail}",
                "slack",
                f"{p}-",
            )
            for p in ("xoxb", "xoxp", "xoxa", "xoxr", "xoxs")
        ),
        Fake("slack-webhook", f"post to https://hooks.slack.com/{webhook} now", webhook, "slack_webhook"),
        Fake("google", f"maps AIza{(k := pick(35, URLSAFE))}", f"AIza{k}", "google", "AIza"),
        Fake("jwt", f"cookie session={jwt}", jwt, "jwt", "eyJ"),
        Fake("bearer", f"Authorization: Bearer {bearer}", bearer, "bearer"),
        Fake("basic-auth", f"Authorization: Basic {basic}", basic, "basic_auth"),
        Fake("yaml-password", f"password: {password}", password, "assignment"),
        Fake("json-password", f'"db_password": "{(j := pick(18))}"', j, "assignment"),
        Fake("env-api-key", f"export SERVICE_API_KEY={(e := pick(32))}", e, "assignment"),
        Fake("client-secret", f"client_secret='{(c := pick(24))}'", c, "assignment"),
        Fake("url-password", f"postgres://app:{(u := pick(16))}@db.internal:5432/app", u, "url_password"),
        *(
            Fake(f"pem-{label.split()[0].lower()}", block, block, "pem", f"-----BEGIN {label}-----")
            for label in (
                "RSA PRIVATE KEY",
                "EC PRIVATE KEY",
                "OPENSSH PRIVATE KEY",
                "ENCRYPTED PRIVATE KEY",
                "PRIVATE KEY",
                "PGP PRIVATE KEY BLOCK",
            )
            for block in (_pem(rng, label),)
        ),
    ]
    return cases


FAKES = fakes()
BY_NAME = {fake.name: fake for fake in FAKES}
