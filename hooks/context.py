"""What every hook needs: the project, its settings, the clock, safe paths, the workflow file.

Hooks never read or write outside the project directory (``$CLAUDE_PROJECT_DIR``, else the
payload's ``cwd``, else the process's working directory).

Start-up cost is the budget here: UserPromptSubmit runs on every prompt. This module imports only
``os`` (and ``ctxres.defaults``, which imports nothing); ``datetime`` when a hook asks for the time;
pathlib, dataclasses, tomllib and PyYAML are imported only when they are needed (a project with a ctxres configuration;
reading a YAML file), and the workflow model (``ctxres.state.orchestration``) only when a hook looks for
the live workflow.
"""

from __future__ import annotations

import os

from ctxres import defaults

# A hook loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    import datetime as dt
    from collections.abc import Callable
    from typing import Any

    from ctxres.state.live import WorkflowChoice

MAX_CONTEXT_CHARS = 10_000  # Claude Code caps injected text at 10,000 characters
MAX_STATE_FILE_BYTES = 2 * 1024 * 1024  # a state file larger than this is not read by a hook


class HookError(Exception):
    """A problem the hook reports on stderr (one line) before answering validly."""


class UnreadableWorkflowError(HookError):
    """The live workflow cannot be read (``ctxres.state.live.UnreadableWorkflow``): the hooks that
    speak to the model say so instead of serving another workflow; the message is the sentence."""

    def __init__(self, sentence: str, relpath: str, reason: str) -> None:
        super().__init__(sentence)
        self.relpath = relpath
        self.reason = reason


def now() -> dt.datetime:
    """The current time in UTC; ``CTXRES_NOW`` (ISO-8601, read by ``ctxres.timestamps`` as every
    command reads it) freezes it for replays and tests. A value that is not a time is an error
    here (a hook must not silently run on the real clock in a replay)."""
    from ctxres import timestamps  # here: a hook that needs no time (PostToolUse of a Bash call) does not load it

    try:
        return timestamps.now()
    except ValueError as exc:
        raise HookError(str(exc)) from None


def iso(moment: dt.datetime) -> str:
    """``2026-02-17T11:45:00Z`` (seconds, UTC): ``ctxres.timestamps.format_utc``, imported when a hook
    stamps a time (every path that does also reads the clock through that module)."""
    from ctxres.timestamps import format_utc

    return format_utc(moment)


class Settings:
    """The settings hooks use, with the defaults of ``ctxres.config.Config`` (``ctxres.defaults``)."""

    __slots__ = (
        "_orchestration_patterns",
        "live_workflow",
        "pinned_by",
        "problem",
        "profile",
        "required_version",
        "staleness_minutes",
        "state_dir",
    )

    def __init__(self) -> None:
        self.state_dir = defaults.STATE_DIR
        self.staleness_minutes = defaults.STALENESS_MINUTES
        self.profile = defaults.PROFILE  # "nexus": PreCompact/SessionStart serve Nexus resume manifests
        self._orchestration_patterns: tuple[str, ...] | None = None
        self.live_workflow: str | None = None  # the file `live-workflow` pins (absolute), None: the search
        self.pinned_by = ""  # "live-workflow in pyproject.toml"
        # A configuration error in a setting the hooks do not read (they serve on): the first, as `ctxres check` says it
        self.problem = ""
        # The repository's `required-version` when this ctxres does not satisfy it: the sentence said once a session
        self.required_version = ""

    @property
    def orchestration_patterns(self) -> tuple[str, ...]:
        """The configured ``orchestration`` file patterns (``[tool.ctxres.patterns]``), else the
        default of ``ctxres.state.live`` (imported only when a hook looks for a workflow file)."""
        if self._orchestration_patterns is not None:
            return self._orchestration_patterns
        from ctxres.state.live import ORCHESTRATION_PATTERNS

        return ORCHESTRATION_PATTERNS

    @orchestration_patterns.setter
    def orchestration_patterns(self, patterns: tuple[str, ...]) -> None:
        self._orchestration_patterns = tuple(patterns)


def _configured(root: str, resolved: bool) -> bool:
    """Whether a ctxres configuration applies to ``root``: a ``.ctxres.toml``, or a ``pyproject.toml`` that
    could define ``tool.ctxres`` in any of TOML's spellings, in ``root`` or a folder above it, where the
    linters find it (:func:`ctxres.config_file.find_table`). Decided on the bytes, as the linters decide it
    (:func:`ctxres.config_file.may_hold_table`): no TOML parser, and that module imported only for a file that
    names ctxres. A project opened in a sub-folder of a configured repository is configured. ``resolved``:
    ``root`` has no symbolic link left in it (not resolved again)."""
    folder = root if resolved else os.path.realpath(root)
    while True:
        if _holds_configuration(folder):
            return True
        parent = os.path.dirname(folder)
        if parent == folder:
            return False
        folder = parent


def _holds_configuration(folder: str) -> bool:
    # Most folders hold neither file: os.access says so without the exception a failed open raises (each
    # folder up to the root is asked on every prompt); a file that is there is opened, as the linters open it.
    base = os.path.join(folder, "")
    config, pyproject = base + defaults.CONFIG_FILE, base + defaults.PYPROJECT
    if os.access(config, os.F_OK):
        try:
            with open(config, "rb"):
                return True
        except OSError:
            pass
    if not os.access(pyproject, os.F_OK):
        return False
    try:
        with open(pyproject, "rb") as handle:
            data = handle.read(1_000_000)
    except OSError:
        return False
    if b"ctxres" not in data and b"\\" not in data:  # (a \u escape could spell the name)
        return False
    from ctxres.config_file import may_hold_table

    return may_hold_table(data)


def load_settings(root: str, *, resolved: bool = False) -> Settings:
    """The project's settings: those the hooks read, from the configuration file when there is one,
    each checked as ``ctxres.config`` checks it (``ctxres.config_file``). The full configuration model is
    not built: other keys are for the linters, which report their mistakes. ``resolved``: ``root`` is
    resolved already (:func:`project_dir` resolves it), so it is not resolved again on every prompt."""
    settings = Settings()
    if not _configured(root, resolved):
        return settings
    from ctxres import config_file

    try:
        found = config_file.find_table(root)
        if found is None:
            return settings
        table, folder, source = found
        for raw_key, value in table.items():
            key = raw_key.replace("-", "_")
            if key == "state_dir":
                settings.state_dir = config_file.state_dir(value, source)
            elif key == "staleness_minutes":
                settings.staleness_minutes = config_file.positive_int(value, raw_key, source)
            elif key == "live_workflow":
                pinned = config_file.live_workflow(value, raw_key, source)
                settings.live_workflow = os.path.join(folder, pinned)
                settings.pinned_by = f"live-workflow in {os.path.basename(source)}"
            elif key == "required_version":
                from ctxres import __version__
                from ctxres.formats.versions import unmet

                settings.required_version = (
                    unmet(__version__, config_file.required_version(value, source), os.path.basename(source)) or ""
                )
            elif key == "profile":
                settings.profile = config_file.choice(value, raw_key, source, config_file.PROFILES)
            elif key == "patterns":
                kinds = config_file.table(value, raw_key, source)
                if "orchestration" in kinds:
                    patterns = config_file.string_list(kinds["orchestration"], "patterns.orchestration", source)
                    settings.orchestration_patterns = patterns
        settings.problem = config_file.unknown_setting(table, source) or ""
    except config_file.ConfigError as exc:
        raise HookError(f"configuration error: {exc}; {CONFIG_UNUSABLE}") from None
    return settings


CONFIG_UNUSABLE = "the hooks do nothing until it is fixed (`ctxres check` reports every configuration error)"
CONFIG_ELSEWHERE = "the hooks read their own settings and go on (`ctxres check` reports every configuration error)"


class HookContext:
    """One invocation: the event, its payload, the project directory and its settings."""

    __slots__ = ("event", "payload", "project_dir", "settings")

    def __init__(self, event: str, payload: dict[str, Any], project_dir: str, settings: Settings) -> None:
        self.event = event
        self.payload = payload
        self.project_dir = project_dir
        self.settings = settings

    @property
    def state_dir(self) -> str:
        return os.path.join(self.project_dir, self.settings.state_dir)

    def inside(self, path: str) -> bool:
        """Whether ``path`` (symlinks followed) stays inside the project directory."""
        from ctxres.filereading import within

        return within(os.path.realpath(path), self.project_dir)

    def safe(self, path: str) -> str:
        """``path`` (relative to the project) if it stays inside the project; else :class:`HookError`."""
        candidate = path if os.path.isabs(path) else os.path.join(self.project_dir, path)
        if not self.inside(candidate):
            raise HookError(f"refusing {path}: it is outside the project directory {self.project_dir}")
        return candidate

    def relative(self, path: str) -> str:
        """``path`` relative to the project, with ``/`` separators."""
        return os.path.relpath(os.path.realpath(path), self.project_dir).replace(os.sep, "/")


def cwd_problem(cwd: object) -> str | None:
    """Why the payload's ``cwd`` cannot be the project directory (None when it can): Claude Code sends
    an absolute, normalised path of an existing folder; anything else is refused, never guessed at."""
    if not isinstance(cwd, str) or not cwd:
        return "it is not a path"
    if "\x00" in cwd:
        return "it contains a NUL character"
    if not os.path.isabs(cwd):
        return "it is a relative path"
    if ".." in cwd.replace("\\", "/").split("/"):
        return "it contains `..`"
    if not os.path.isdir(cwd):
        return "it is not an existing folder"
    return None


def project_dir(payload: dict[str, Any]) -> str:
    """``$CLAUDE_PROJECT_DIR``, else the payload's ``cwd``, else the working directory (resolved). A
    payload ``cwd`` that is unusable (relative, ``..``, a NUL, missing) is refused: :class:`HookError`."""
    named = os.environ.get("CLAUDE_PROJECT_DIR")
    if not (named and os.path.isdir(named)) and "cwd" in payload:
        problem = cwd_problem(payload["cwd"])
        if problem is not None:
            shown = repr(payload["cwd"])
            shown = shown if len(shown) <= 120 else shown[:100] + "..."
            raise HookError(f"the payload's cwd {shown} is refused: {problem}; set $CLAUDE_PROJECT_DIR")
    for candidate in (named, payload.get("cwd"), os.getcwd()):
        if isinstance(candidate, str) and candidate and os.path.isdir(candidate):
            return os.path.realpath(candidate)
    raise HookError(
        "no project directory: $CLAUDE_PROJECT_DIR, the payload's cwd and the working directory are all unusable"
    )


def make_context(event: str, payload: dict[str, Any]) -> HookContext:
    root = project_dir(payload)
    settings = load_settings(root, resolved=True)
    if settings.problem:  # one line, and the hook still serves: the settings it reads are valid
        warn(f"configuration error: {settings.problem}; {CONFIG_ELSEWHERE}", event)
    return HookContext(event, payload, root, settings)


def warn(message: str, event: str = "") -> None:
    """One line on stderr, ``ctxres-hook: <message>`` (``ctxres-hook: <event>: <message>`` when a hook
    warns and still answers), with secrets redacted (an error message can quote a line of a state
    file). Every hook warns through this function. Never raises: stderr itself may be closed."""
    try:
        import sys

        from ctxres.redact import redact

        line = f"{event}: {message}" if event else message
        sys.stderr.write(f"ctxres-hook: {redact(line)}\n")
    except Exception:  # nothing else to do
        pass


def additional_context(event: str, text: str) -> dict[str, Any]:
    """The output that injects ``text`` into the model's context (cut to Claude Code's cap). Secrets are
    redacted first, whatever event injects (a key copied from a state file would be re-sent on every
    prompt), and before the cut (a cut key may no longer be recognizable)."""
    from ctxres.redact import redact

    text = redact(text)
    if len(text) > MAX_CONTEXT_CHARS:
        text = text[: MAX_CONTEXT_CHARS - 20].rstrip() + "\n[... truncated]"
    return {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}


def read_bytes(path: str, limit: int = MAX_STATE_FILE_BYTES) -> bytes:
    """A state file's bytes, refusing one over ``limit``; :class:`HookError` when it cannot be read."""
    from ctxres.filereading import FileTooLarge, read_regular

    try:
        return read_regular(path, limit)
    except FileTooLarge:
        raise HookError(f"{os.path.basename(path)} is larger than {limit:,} bytes; not read") from None
    except (OSError, ValueError) as exc:
        reason = getattr(exc, "strerror", None) or exc
        raise HookError(f"cannot read {os.path.basename(path)[:200]}: {reason}") from None


def read_yaml(path: str) -> Any:
    """A YAML file's data (C loader when available); :class:`HookError` when it cannot be read."""
    import yaml

    from ctxres.formats.yamlguard import load

    raw = read_bytes(path)
    try:
        return load(raw)  # never crashes on deep nesting; refuses alias bombs
    except (yaml.YAMLError, ValueError, RecursionError) as exc:
        raise HookError(f"cannot read {os.path.basename(path)}: {yaml_problem(exc, raw)}") from None


def yaml_problem(exc: BaseException, raw: bytes = b"") -> str:
    """What a YAML error says, in one line, at its line and column as ``ctxres check`` words it (P001):
    ``invalid YAML: found unexpected end of stream, while scanning a quoted scalar that starts at line 4
    at line 5:10``."""
    import yaml

    if raw and isinstance(exc, yaml.YAMLError):
        from ctxres.formats.conflicts import conflict_problem

        conflict = conflict_problem(raw.decode("utf-8", "replace"), again=False)
        if conflict is not None:
            return conflict
    if not isinstance(exc, yaml.MarkedYAMLError):
        return str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    mark = exc.problem_mark or exc.context_mark
    context = ""
    if exc.context and exc.context_mark and exc.context_mark is not mark:
        context = f", {exc.context} that starts at line {exc.context_mark.line + 1}"
    elif exc.context:
        context = f", {exc.context}"
    words = f"invalid YAML: {exc.problem or 'invalid YAML'}{context}"
    if mark is None:
        return words
    line, column = mark.line + 1, mark.column + 1
    lines = raw.decode("utf-8", "replace").splitlines()
    if lines and line > len(lines):  # the end of the stream: the end of the last line, as the linters say
        line, column = len(lines), len(lines[-1]) + 1
    return f"{words} at line {line}:{column}"


def _reader(errors: list[str]) -> Callable[[str], Any]:
    """``read(path)`` for :func:`ctxres.state.live.find_live_workflow`: the file's data, or None
    (the reason kept in ``errors``) when it cannot be read."""

    from ctxres.state.live import WorkflowReadError

    def read(path: str) -> Any:
        try:
            return read_yaml(path)
        except HookError as exc:
            errors.append(str(exc))
            raise WorkflowReadError(str(exc).removeprefix(f"cannot read {os.path.basename(path)}: ")) from None

    return read


def pin_problem(ctx: HookContext) -> str:
    """What a hook says when the file ``live-workflow`` pins is outside the project or cannot be read."""
    shown = ctx.relative(ctx.settings.live_workflow or "")
    return (
        f"{ctx.settings.pinned_by} names {shown}, which is not a readable workflow file inside the project; "
        "no workflow is served until the setting or the file is fixed (the hooks do not guess another one)"
    )


def find_workflow(
    ctx: HookContext, *, known: dict[str, list[Any]] | None = None, load: bool = True
) -> WorkflowChoice | None:
    """The live workflow of the project (``ctxres.state.live.find_live_workflow``, the one every
    command uses): ``$CTXRES_ORCHESTRATION``, else the file the ``live-workflow`` setting pins, else,
    among the files matching the configured ``orchestration`` patterns (examples and templates
    aside) whose workflow is ACTIVE or PAUSED, the most recently updated by the files' own update
    times, then the first by path. A file that a symbolic link takes out of the project is never
    read. None when there is none. A file named by ``$CTXRES_ORCHESTRATION`` or pinned by the
    setting that is outside the project or cannot be read is a :class:`HookError` (the hook says
    why, and does not fall back to the search: a session told to resume a workflow the team did not
    pin is worse than one told nothing); an unreadable file found by the search is
    :class:`UnreadableWorkflowError` when it is the live one (it was live when last read, or its text says
    it is live and was updated no earlier than every readable live workflow), and skipped otherwise.

    ``known``: what the hooks' cache remembers of each candidate (its status and update time by size
    and mtime), updated in place; ``load=False`` leaves :attr:`WorkflowChoice.data` None unless the
    search parsed the chosen file (the caller has its facts cached)."""
    from ctxres.defaults import WORKFLOW_ENV
    from ctxres.state.live import UnreadableWorkflow, find_live_workflow

    errors: list[str] = []
    named = os.environ.get(WORKFLOW_ENV)
    # A named or pinned file is resolved and must stay inside the project. The search walks the project
    # without following symbolic links to folders, so a file it finds leaves the project only if it is a
    # link itself: the listing says which files are, and only those are resolved.
    try:
        choice = find_live_workflow(
            ctx.project_dir,
            _reader(errors),
            patterns=ctx.settings.orchestration_patterns,
            accept=ctx.inside if named or ctx.settings.live_workflow else None,
            accept_link=ctx.inside,
            pinned=ctx.settings.live_workflow,
            pinned_by=ctx.settings.pinned_by,
            known=known,
            load=load,
        )
    except UnreadableWorkflow as exc:
        raise UnreadableWorkflowError(exc.sentence(), exc.relpath, exc.reason) from None
    if choice is None and named:
        ctx.safe(named)  # outside the project: "refusing ..."
        if errors:
            raise HookError(errors[0])
    elif choice is None and ctx.settings.live_workflow:
        raise HookError(pin_problem(ctx) + (f" ({errors[0]})" if errors else ""))
    return choice
