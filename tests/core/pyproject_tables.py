"""The ways a pyproject.toml can spell the `[tool.ctxres]` table, and texts that name ctxres without one."""

from __future__ import annotations

import sys

if sys.version_info >= (3, 11):
    pass
else:  # pragma: no cover
    pass


TABLE_SPELLINGS = [
    '[tool.ctxres]\nstate-dir = ".here"\n',
    '[project]\nname = "x"\n\n  [ tool . "ctxres" ]\nstate-dir = ".here"\n',
    "['tool'.'ctxres']\nstate-dir = '.here'\n",
    '[tool.ctxres.patterns]\norchestration = ["*.yaml"]\n[tool.ctxres]\nstate-dir = ".here"\n',
    '[tool]\nctxres = { state-dir = ".here" }\n',
    '[tool]\nruff.line-length = 100\nctxres.state-dir = ".here"\n',
    '["tool"]\n"ctxres" = { state-dir = ".here" }\n',
    '[tool."\\u0063txres"]\nstate-dir = ".here"\n',
    'tool.ctxres.state-dir = ".here"\n',
    'tool . ctxres = { state-dir = ".here" }\n',
    'tool = { ruff = { line-length = 100 }, ctxres = { state-dir = ".here" } }\n',
]
NOT_A_TABLE = [
    '[project]\nname = "ctxres"\ndependencies = ["ctxres>=0.1", "pyyaml"]\n',
    '[project.scripts]\nctxres = "ctxres.linters.cli:cli"\n[tool.ruff]\nline-length = 100  # like ctxres\n',
    '[tool.setuptools]\npackage-dir = { "ctxres" = "ctxres" }\n',
    '[tool.pytest.ini_options]\naddopts = "-p ctxres"\n',
]
