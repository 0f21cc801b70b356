"""Suppression comment rules (I family): a ``ctxres: ignore`` comment that names no rule, or silences nothing.

The engine applies the comments (``ctxres.linters.checking.suppression``) and, after a check, hands each
file's comments to :func:`findings_for`, with what they silenced and which codes the run selected.
"""

from __future__ import annotations

from collections.abc import Callable, Collection

from ctxres.config import selector_problem
from ctxres.findings import Finding, Position, Severity
from ctxres.linters.checking.registry import RULES, register
from ctxres.linters.checking.severity_policy import Case
from ctxres.linters.checking.suppression import EVERY_RULE, Directive, Suppressions

Used = Collection[tuple[int, int]]


def findings_for(
    path: str,
    comments: Suppressions,
    used: Used,
    active: Callable[[str], bool] | None,
) -> list[Finding]:
    """I001 for each unknown code of the file's comments; I002 for each comment (or code) that silenced
    nothing (``used``: the (directive, code) pairs that silenced a finding) when ``active`` is given:
    ``active(code)`` says whether the run selected a rule for this file (None: the file was not read)."""
    findings: list[Finding] = []
    for index, directive in enumerate(comments.directives):
        for written in directive.codes:
            problem = selector_problem(written.text)
            if problem:
                findings.append(_unknown(path, directive, written.text, written.col, problem))
        if active is not None:
            findings += _unused(path, index, directive, used, active)
    return findings


UNKNOWN_CODE = register(
    "I001",
    "unknown-code-in-suppression",
    "A suppression comment names a code that is not a rule code or a prefix of one.",
    case=Case.TOOL_JOB,
    why="The check cannot honour a suppression that names no rule.",
    explanation="""
    ## Why
    A suppression comment silences the rules it names on its line (`ctxres: ignore[...]`) or in the
    whole file (`ctxres: ignore-file[...]`). A code that is not a rule code, or not the prefix of one,
    silences nothing: the finding the comment was written for is still reported, or, worse, the
    comment was meant for a rule that does not exist and hides a misunderstanding. Codes are
    case-sensitive, as in the configuration and on the command line.

    ## Example
    ```yaml
    resumption:
      overall_progress: "100%"  # ctxres: ignore[c006]   <- I001: did you mean 'C006'?
      next_step: "Gate 2"       # ctxres: ignore[C0006]  <- I001: did you mean 'C006'?
    ```

    ## Fix
    Write the code as `ctxres rules` lists it (`C006`), a prefix of codes (`C`, `C00`), or `ALL`;
    or remove it from the comment.
    """,
)


def _unknown(path: str, directive: Directive, code: str, col: int, problem: str) -> Finding:
    return Finding(
        path,
        UNKNOWN_CODE.code,
        f"suppression comment: {problem}",
        UNKNOWN_CODE.severity,
        Position(directive.line, col),
        fix=f"write a rule code or prefix as `ctxres rules` lists them, or remove `{code}` from the comment",
    )


def _unused(path: str, index: int, directive: Directive, used: Used, active: Callable[[str], bool]) -> list[Finding]:
    where = "in this file" if directive.whole_file else "on this line"
    if directive.every_rule:
        if (index, EVERY_RULE) in used:
            return []
        return [_unused_finding(path, directive, directive.col, f"this suppression comment silences nothing {where}")]
    unused = [
        written
        for i, written in enumerate(directive.codes)
        if (index, i) not in used
        and selector_problem(written.text) is None
        and any(code.startswith(written.text) and active(code) for code in RULES)
    ]
    if not unused:
        return []
    names = ", ".join(f"`{c.text}`" for c in unused)
    message = f"{names} {'silences' if len(unused) == 1 else 'silence'} nothing {where}"
    remove = "" if len(unused) == len(directive.codes) else names
    return [_unused_finding(path, directive, unused[0].col, message, remove)]


UNUSED = register(
    "I002",
    "unused-suppression",
    "A suppression comment, or one code of it, silences nothing.",
    Severity.WARNING,
    case=Case.ADVICE,
    why="A suppression that silences nothing is harmless, but hides nothing either.",
    explanation="""
    ## Why
    A comment that silences nothing is left over from a finding that was fixed, or sits on another
    line than the finding it was meant for (a finding is silenced by a comment on its own line).
    Either way it misleads the next reader, and it would silence the next, unrelated problem of
    that line without anyone noticing. Like ruff's `RUF100`, ctxres reports it.

    A code is reported only when the run selected its rule (with `--select C` a comment that
    silences `X001` is not unused: X001 did not run) and the file could be read. A comment without
    codes (`ctxres: ignore`) is reported when it silenced no finding at all.

    ## Example
    ```yaml
    resumption:
      next_step: "Gate 2"  # ctxres: ignore[C006]   <- I002: nothing to silence on this line
    ```

    ## Fix
    Remove the code from the comment, or the whole comment when nothing is left. If the comment
    is meant for a finding on another line, move it to that line.
    """,
)


def _unused_finding(path: str, directive: Directive, col: int, message: str, remove: str = "") -> Finding:
    fix = f"remove {remove} from the comment" if remove else "remove the comment"
    return Finding(
        path,
        UNUSED.code,
        f"unused suppression: {message}",
        UNUSED.severity,
        Position(directive.line, col),
        fix=fix + (" (or move it to the line of the finding it is for)" if not directive.whole_file else ""),
    )
