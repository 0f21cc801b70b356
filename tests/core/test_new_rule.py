"""``python dev/new_rule.py`` (docs/architecture.md, "Where to add…", "A rule"): in a copy of the repository, it
writes a rule that lints, a generated page and tables in step, and fixtures whose bad case fails until the
check is written; written, the rule's tests pass."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ctxres.config import CODES

from ..dev_scripts import dev_script
from ..installs import offline_venv, working_tree_copy

HANG_GUARD = 600

CHECK = """    findings: list[Finding] = []
    return findings
"""
WRITTEN = """    step = doc.get(("resumption", "recovery_state", "next_step"))
    if step != "TBD":
        return []
    path = ("resumption", "recovery_state", "next_step")
    return [
        Finding(doc.path, STALE_EXAMPLE.code, "`next_step` is TBD", STALE_EXAMPLE.severity, doc.locate(path))
    ]
"""


@pytest.fixture(scope="module")
def python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An environment with this one's packages but not its ctxres."""
    return offline_venv(tmp_path_factory.mktemp("new-rule") / "venv")


def _run(python: Path, root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHONPATH", "VIRTUAL_ENV", "PYTEST_"))}
    env["PYTHONPATH"] = str(root)  # the copy's package, also for the processes its tests start
    return subprocess.run([str(python), *args], cwd=root, capture_output=True, text=True, env=env, timeout=HANG_GUARD)


def _pytest(python: Path, root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """pytest in the copy, in this process's worker (no xdist) and without writing its cache."""
    return _run(python, root, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0", *args)


def _linted(root: Path) -> None:
    ruff = shutil.which("ruff") or str(Path(sys.executable).parent / "ruff")
    for args in (["check", "--no-fix", "."], ["format", "--check", "."]):
        done = subprocess.run([ruff, *args], cwd=root, capture_output=True, text=True, timeout=HANG_GUARD)
        assert done.returncode == 0, done.stdout + done.stderr


def _code(printed: str) -> str:
    """The code the scaffold took (the family's first free one), from what it printed."""
    found = re.search(r"^wrote fixtures/rules/([A-Z]\d{3})/", printed, re.M)
    assert found, printed
    return found.group(1)


def test_a_rule_added_to_a_module_fails_until_its_check_is_written(python: Path, tmp_path: Path) -> None:
    root = working_tree_copy(tmp_path / "repository")
    added = _run(python, root, "dev/new_rule.py", "S", "--module", "update_times", "--name", "stale-example")
    assert added.returncode == 0, added.stderr
    code = _code(added.stdout)
    assert f"wrote docs/rules/{code}.md" in added.stdout and "wrote README.md" in added.stdout
    assert f"`pytest tests/rules/test_rule_fixtures.py -k {code}` fails" in added.stdout
    _linted(root)
    assert _run(python, root, "dev/generate.py", "--check").returncode == 0
    fixtures = _pytest(
        python,
        root,
        "-k",
        code,
        "tests/rules/test_rule_fixtures.py",
    )
    assert (
        "1 failed" in fixtures.stdout
        and f"test_bad_fixture_triggers_its_rule_where_expected[{code}/bad]" in fixtures.stdout
    )

    module = root / "linters" / "rules" / "update_times.py"
    module.write_text(module.read_text("utf-8").replace(CHECK, WRITTEN), "utf-8")
    bad = root / "fixtures" / "rules" / code / "bad" / "ORCHESTRATION.yaml"
    text = bad.read_text("utf-8").replace(f"  # expect: {code}", "")
    bad.write_text(text.replace('next_step: "Run the next agent of the phase."', f'next_step: "TBD"  # expect: {code}'))
    fixtures = _pytest(
        python,
        root,
        "-k",
        f"{code} or not fixture",
        "tests/rules/test_rule_fixtures.py",
        "tests/rules/test_rule_protocol.py",
        "tests/rules/test_rule_options.py",
        "tests/rules/test_update_times.py",
    )
    assert fixtures.returncode == 0, fixtures.stdout[-3000:]


def test_a_rule_of_a_new_family_gets_its_module_and_its_test_module(python: Path, tmp_path: Path) -> None:
    root = working_tree_copy(tmp_path / "repository")
    refused = _run(python, root, "dev/new_rule.py", "Q001", "--module", "handoff_notes", "--name", "empty-handoff")
    assert refused.returncode == 2 and "give the new family's name with --family" in refused.stderr
    added = _run(
        python,
        root,
        "dev/new_rule.py",
        "Q001",
        "--module",
        "handoff_notes",
        "--name",
        "empty-handoff",
        "--family",
        "Hand-off",
        "--severity",
        "warning",
    )
    assert added.returncode == 0, added.stderr
    for name in ("linters/rules/__init__.py", "docs/architecture.md", "tests/rules/test_handoff_notes.py"):
        assert f"wrote {name}" in added.stdout
    _linted(root)
    assert _run(python, root, "dev/generate.py", "--check").returncode == 0
    tests = (
        "tests/rules/test_handoff_notes.py",
        "tests/test_test_layout.py",
        "tests/core/test_architecture_doc.py",
        "tests/rules/test_severity_policy.py",
        "tests/rules/test_rule_pages.py",
    )
    placeholders = _pytest(python, root, *tests)  # the scaffold's TODOs fail until they are written
    assert "test_no_rule_keeps_a_placeholder_of_the_scaffold[Q001]" in placeholders.stdout
    assert "test_the_architecture_page_keeps_no_placeholder_row" in placeholders.stdout
    for name in ("linters/rules/handoff_notes.py", "docs/architecture.md"):
        path = root / name
        path.write_text(re.sub(r"TODO(: [^\n\"|]*)?", "Written.", path.read_text("utf-8")), "utf-8")
    assert _run(python, root, "dev/generate.py", "--write").returncode == 0
    done = _pytest(python, root, *tests)
    assert done.returncode == 0, done.stdout[-3000:]
    again = _run(python, root, "dev/new_rule.py", "Q001", "--module", "handoff_notes", "--name", "empty-handoff")
    assert again.returncode == 2 and "Q001 is a rule already" in again.stderr


def test_imports_are_merged_as_isort_writes_them() -> None:
    new_rule = dev_script("new_rule")
    text = "from __future__ import annotations\n\nfrom ctxres.findings import Finding\nfrom ctxres.state import x\n"
    merged = new_rule.with_imports(text, "from ctxres.findings import Severity\nfrom ctxres.config import Config\n")
    assert merged == (
        "from __future__ import annotations\n\nfrom ctxres.config import Config\n"
        "from ctxres.findings import Finding, Severity\nfrom ctxres.state import x\n"
    )
    typed = "if TYPE_CHECKING:\n    from ctxres.config import Config\n"
    assert new_rule.with_imports(typed, "from ctxres.config import Config\n") == typed


def test_two_new_modules_in_a_row_take_the_first_free_codes(python: Path, tmp_path: Path) -> None:
    """The module list is found by parsing it: a second new module is listed after the first (the text the
    scaffold once matched was gone after the first), and each rule takes its family's first free code."""
    root = working_tree_copy(tmp_path / "repository")
    for module, name in (("first_checks", "first-example"), ("second_checks", "second-example")):
        added = _run(python, root, "dev/new_rule.py", "S", "--module", module, "--name", name)
        assert added.returncode == 0, added.stderr
    listing = (root / "linters" / "rules" / "__init__.py").read_text("utf-8")
    assert listing.index('"ctxres.linters.rules.first_checks"') < listing.index('"ctxres.linters.rules.second_checks"')
    first = (root / "linters" / "rules" / "first_checks.py").read_text("utf-8")
    second = (root / "linters" / "rules" / "second_checks.py").read_text("utf-8")
    code = next(f"S{n:03d}" for n in range(1, 1000) if f"S{n:03d}" not in CODES)
    following = f"S{int(code[1:]) + 1:03d}"
    assert f'"{code}"' in first and f'"{following}"' in second
    _linted(root)
    assert _run(python, root, "dev/generate.py", "--check").returncode == 0


def test_a_failing_step_writes_nothing(python: Path, tmp_path: Path) -> None:
    root = working_tree_copy(tmp_path / "repository")
    (root / "fixtures" / "rules" / "Q001").mkdir(parents=True)  # the fixtures step fails: its folder exists
    before = {path: path.read_bytes() for path in (root / "ctxres" / "config.py", root / "linters/rules/__init__.py")}
    failed = _run(
        python, root, "dev/new_rule.py", "Q001", "--module", "handoff_notes", "--name", "empty-handoff", "--family", "X"
    )
    assert failed.returncode == 2 and "exists already" in failed.stderr
    assert {path: path.read_bytes() for path in before} == before
    assert not (root / "linters" / "rules" / "handoff_notes.py").exists()
