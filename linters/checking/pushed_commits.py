"""The commits pre-commit asks a hook to check, from the variables it exports to the hooks it runs.

At pre-push nothing is staged: what is pushed are commits. pre-commit exports
``PRE_COMMIT_FROM_REF`` and ``PRE_COMMIT_TO_REF`` when it knows where they start (at pre-push: the
commit the remote branch is at, or for a new branch the parent of its first commit that no ref of the
remote holds; and for ``pre-commit run --from-ref A --to-ref B`` at any stage): the commits are
``FROM..TO`` (``TO`` is the commit pushed, not always ``HEAD``). When the history pushed reaches its
root commit (the first push of a repository) it exports no range, only the remote
(``PRE_COMMIT_REMOTE_NAME``) and the local ref pushed (``PRE_COMMIT_LOCAL_BRANCH``): the commits are
those of that ref that no ref of the remote holds.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from ctxres import git
from ctxres.records import FrozenRecord, init_field

# A record, not a dataclass: `ctxres stale` runs on every commit (docs/performance.md, "Start-up tricks").

FROM_REF, TO_REF = "PRE_COMMIT_FROM_REF", "PRE_COMMIT_TO_REF"
REMOTE_NAME, LOCAL_BRANCH = "PRE_COMMIT_REMOTE_NAME", "PRE_COMMIT_LOCAL_BRANCH"
RUN_BY_PRE_COMMIT = "PRE_COMMIT"
"""Set to ``1`` by pre-commit in the environment of every hook it runs."""
_SHA = re.compile(r"[0-9a-f]{40}([0-9a-f]{24})?")


def run_by_pre_commit(environ: Mapping[str, str]) -> bool:
    """Whether pre-commit runs this command: it names the files, and a run with nothing to say prints nothing
    (the ctxres hooks are ``verbose``, so whatever they print is shown on every commit)."""
    return environ.get(RUN_BY_PRE_COMMIT) == "1"


class Pushed(FrozenRecord):
    """What pre-commit names: a range (``FROM..TO``), or a local ref and the remote it goes to."""

    __slots__ = ("from_ref", "local", "remote", "to_ref")

    from_ref: str
    to_ref: str
    local: str
    remote: str

    def __init__(self, from_ref: str = "", to_ref: str = "", local: str = "", remote: str = "") -> None:
        init_field(self, "from_ref", from_ref)
        init_field(self, "to_ref", to_ref)
        init_field(self, "local", local)
        init_field(self, "remote", remote)

    def described(self) -> str:
        """``the commits being pushed (1a2b3c4d5e6f..7a8b9c0d1e2f)``, as a message names them."""
        if self.from_ref:
            return f"the commits being pushed ({_short(self.from_ref)}..{_short(self.to_ref)})"
        return f"the commits of {self.local} being pushed to {self.remote} (its first push)"


def _short(ref: str) -> str:
    return ref[:12] if _SHA.fullmatch(ref) else ref


def pushed(environ: Mapping[str, str]) -> Pushed | None:
    """The commits the pre-commit variables of ``environ`` name; None outside such a run (or at a stage that
    names none: pre-commit, commit-msg, ...)."""
    start, end = environ.get(FROM_REF, ""), environ.get(TO_REF, "")
    if start and end:
        return Pushed(from_ref=start, to_ref=end)
    local, remote = environ.get(LOCAL_BRANCH, ""), environ.get(REMOTE_NAME, "")
    if local and remote:
        return Pushed(local=local, remote=remote)
    return None


def revisions(named: Pushed, root: Path) -> list[str]:
    """The ``git log`` revisions of the commits ``named`` (:class:`git.GitError` when a ref names none)."""
    if named.from_ref:
        return [f"{git.resolve_commit(named.from_ref, root)}..{git.resolve_commit(named.to_ref, root)}"]
    local = git.resolve_commit(named.local, root)
    held = git.run(["for-each-ref", "--format=%(objectname)", f"refs/remotes/{named.remote}/"], root)
    return [local, *(f"^{sha}" for sha in sorted(set(held.decode().split())))]
