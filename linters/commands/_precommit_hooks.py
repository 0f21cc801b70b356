"""The ctxres pre-commit hooks, as a repository's own ``.pre-commit-config.yaml`` runs them.

``ctxres init`` writes them as a ``repo: local`` entry (``language: system``): pre-commit runs the
``ctxres`` the committer has installed, and needs no hosting site, package index or tag to fetch
them. Each ``entry:`` finds it the same way on every machine (the project's ``.venv/bin/ctxres``, else
the PATH; with neither, the hook passes and says the checks did not run:
:func:`ctxres.linters.setup.machine.precommit_entry`), with ``verbose: true`` so that pre-commit shows
that line. ``.pre-commit-hooks.yaml`` at the root of this repository declares the same hooks for the
remote form (``repo: <url of ctxres>``, ``rev: <tag>``); a test keeps the two in step.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ctxres.linters.commands.catalog import hook_regexes
from ctxres.linters.rules.layers import PRECOMMIT_IDS
from ctxres.linters.setup.machine import PRECOMMIT_COMMAND, precommit_entry

# Where a hook checks something: at a commit or a merge (the staged files), at a push (`ctxres stale`
# checks the commits being pushed), and when run by hand. append-only compares the index with HEAD:
# not at a push.
STAGES = ("pre-commit", "pre-merge-commit", "pre-push", "manual")
INDEX_STAGES = ("pre-commit", "pre-merge-commit", "manual")


@dataclass(slots=True, frozen=True)
class PrecommitHook:
    """One hook: what pre-commit needs to run it (``files:`` comes from the artifact catalog)."""

    id: str
    name: str
    entry: str  # the ctxres command (``ctxres ARGS``), as the remote form's ``entry:``
    pass_filenames: bool = True
    require_serial: bool = True
    always_run: bool = False
    stages: tuple[str, ...] = STAGES  # the git hooks where it checks something; pre-commit skips it elsewhere

    def files(self) -> str:
        """The ``files:`` regular expression (one line) of the artifact kinds this hook checks."""
        regexes = hook_regexes(self.id)
        return regexes[0] if len(regexes) == 1 else "(" + "|".join(regexes) + ")"

    def local(self) -> dict[str, Any]:
        """The hook as an entry of a ``repo: local`` block."""
        hook: dict[str, Any] = {
            "id": self.id,
            "name": self.name,
            "entry": self.local_entry(),
            "language": "system",
            "files": self.files(),
            "pass_filenames": self.pass_filenames,
            "require_serial": self.require_serial,
        }
        if self.always_run:
            hook["always_run"] = True
        hook["stages"] = list(self.stages)
        hook["verbose"] = True  # pre-commit shows a passing hook's output only then: "the checks did not run"
        return hook

    def local_entry(self) -> str:
        """The ``entry:`` of the ``repo: local`` form: ``ctxres ARGS`` wherever this machine has it."""
        args = self.entry.removeprefix(PRECOMMIT_COMMAND + " ")
        return precommit_entry(args, self.id)


HOOKS: tuple[PrecommitHook, ...] = (
    PrecommitHook("ctxres-check", "ctxres check", "ctxres check --force-exclude"),
    PrecommitHook("ctxres-stale", "ctxres stale", "ctxres stale --force-exclude"),
    PrecommitHook("ctxres-reinject", "ctxres reinject (L2-REINJECT markers)", "ctxres reinject", pass_filenames=False),
    PrecommitHook(
        "ctxres-append-only",
        "ctxres append-only (agent-memory event logs)",
        "ctxres append-only",
        pass_filenames=False,
        require_serial=False,
        always_run=True,
        stages=INDEX_STAGES,
    ),
)
BY_ID = {hook.id: hook for hook in HOOKS}
# The hooks `ctxres init` adds (append-only matters only to repositories with agent-memory runs).
INIT_IDS = PRECOMMIT_IDS


def local_repo(ids: tuple[str, ...] = INIT_IDS) -> dict[str, Any]:
    """The ``repo: local`` entry of ``.pre-commit-config.yaml`` that runs the given hooks."""
    return {"repo": "local", "hooks": [BY_ID[hook_id].local() for hook_id in ids]}


def migrated(repo: dict[str, Any]) -> dict[str, Any]:
    """The ``repo: local`` entry that runs the hooks of an older remote entry: each as today's init writes it,
    with what the team set on it (``args:``, ``exclude:``, ...) kept."""
    return {"repo": "local", "hooks": [{**BY_ID[str(h["id"])].local(), **h} for h in repo["hooks"]]}
