"""A `.ctxres.toml` beside a `pyproject.toml` with a `[tool.ctxres]` table: the first is read and the table is
ignored (as ruff reads `ruff.toml` before `pyproject.toml`); `check`, `doctor` and `init` say so, naming both,
and `init` writes its settings to the file that is read."""

from __future__ import annotations

from pathlib import Path

from ..cli_process import ctxres

PYPROJECT = '[project]\nname = "team"\n\n[tool.ctxres]\nstaleness-minutes = 45\n'
WARNING = (
    "ctxres: warning: the [tool.ctxres] table of pyproject.toml is ignored: .ctxres.toml in the same folder is "
    "read instead"
)
# Rule files whose markers measure more than the 600-token budget with the reminder init adds.
RULES = "\n\n".join(
    f'<!-- L2-REINJECT: rank={n}, tokens={len(text) // 4}, content="{text}" -->'
    for n, text in (
        (n, f"Rule {n}: " + "keep each change small and explain why in its commit. " * 5) for n in range(1, 11)
    )
)


def _project(root: Path) -> None:
    (root / ".git").mkdir()
    (root / "pyproject.toml").write_text(PYPROJECT)
    (root / ".ctxres.toml").write_text('# the team\'s own\nstate-dir = ".jerry"\n')
    (root / "CLAUDE.md").write_text("# Rules\n\n" + RULES + "\n")


def test_check_and_doctor_say_which_file_is_ignored(tmp_path: Path) -> None:
    _project(tmp_path)
    for args in (("check", "."), ("doctor",)):
        done = ctxres(*args, cwd=tmp_path)
        assert WARNING in done.stderr, (args, done.stderr)
    (tmp_path / ".ctxres.toml").unlink()
    assert WARNING not in ctxres("check", ".", cwd=tmp_path).stderr


def test_init_writes_the_budget_to_the_file_that_is_read(tmp_path: Path) -> None:
    _project(tmp_path)
    init = ctxres("init", "--only", "L1,L2", cwd=tmp_path)
    assert init.returncode == 0, init.stdout + init.stderr
    assert WARNING in init.stderr
    assert "reinject-budget" in (tmp_path / ".ctxres.toml").read_text()
    assert (tmp_path / "pyproject.toml").read_text() == PYPROJECT
    reinject = ctxres("reinject", cwd=tmp_path)  # the budget init raised is the one in effect: no R006
    assert reinject.returncode == 0 and "R006" not in reinject.stdout, reinject.stdout
