"""The repository's own GitHub workflows do what the README says (zizmor and the workflow schema check
them in ``nox -s lint``): CI is ``bash .ci/run`` on every supported Python; a version tag builds, checks
and tests the wheel, publishes it with trusted publishing (no stored token) and attaches it to the release."""

from __future__ import annotations

import ast
from typing import Any

import yaml

from ..conftest import ROOT

WORKFLOWS = ROOT / ".github" / "workflows"


def workflow(name: str) -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((WORKFLOWS / name).read_text("utf-8"))
    # YAML 1.1 reads the key `on` as True.
    data["on"] = data.pop(True, data.get("on"))
    return data


def steps(job: dict[str, Any]) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = job["steps"]
    return found


def runs(job: dict[str, Any]) -> str:
    return "\n".join(step.get("run", "") for step in steps(job))


def supported_pythons() -> list[str]:
    source = (ROOT / "noxfile.py").read_text("utf-8")
    line = next(x for x in source.splitlines() if x.startswith("PYTHONS = "))
    return list(ast.literal_eval(line.split("=", 1)[1].strip()))


def test_ci_is_the_ci_script_on_every_supported_python() -> None:
    ci = workflow("ci.yml")
    assert ci["permissions"] == {}
    (job,) = ci["jobs"].values()
    assert job["permissions"] == {"contents": "read"}
    setup = next(s for s in steps(job) if s.get("uses", "").startswith("actions/setup-python@"))
    assert sorted(setup["with"]["python-version"].split()) == sorted(supported_pythons())
    assert runs(job).strip() == "bash .ci/run"


def test_release_on_a_version_tag() -> None:
    release = workflow("release.yml")
    assert release["on"] == {"push": {"tags": ["v*"]}}
    assert release["permissions"] == {}
    jobs = release["jobs"]
    build = runs(jobs["build"])
    assert 'dev/release_check.py --tag "$TAG"' in build
    assert "nox -s build" in build
    assert "tests/release" in build  # the install routes, on the wheel built in dist/
    assert jobs["publish"]["needs"] == "build"
    assert jobs["github-release"]["needs"] == "publish"


def test_publishing_uses_trusted_publishing_and_no_stored_token() -> None:
    text = (WORKFLOWS / "release.yml").read_text("utf-8")
    assert "secrets." not in text
    jobs = workflow("release.yml")["jobs"]
    assert jobs["publish"]["permissions"] == {"id-token": "write"}
    assert jobs["publish"]["environment"]["name"] == "pypi"
    assert "twine upload" in runs(jobs["publish"])
    assert [name for name, job in jobs.items() if "id-token" in job.get("permissions", {})] == ["publish"]
    assert jobs["build"]["permissions"] == {"contents": "read"}
    assert jobs["github-release"]["permissions"] == {"contents": "write"}
    assert 'gh release create "$TAG" dist/*' in runs(jobs["github-release"])


def test_checkouts_keep_no_credentials() -> None:
    for path in sorted(WORKFLOWS.glob("*.yml")):
        for job in workflow(path.name)["jobs"].values():
            for step in steps(job):
                if step.get("uses", "").startswith("actions/checkout@"):
                    assert step["with"]["persist-credentials"] is False, path.name


def test_lint_runs_zizmor_and_the_workflow_schema() -> None:
    source = (ROOT / "noxfile.py").read_text("utf-8")
    lint = source[source.index("def lint(") : source.index("\n@nox.session", source.index("def lint("))]
    assert '"zizmor", "--offline"' in lint
    assert '"check-jsonschema", "--builtin-schema", "vendor.github-workflows"' in lint
