"""nox sessions.

CI runs ``nox -s tests lint typecheck schemas replay build`` (the default sessions; ``tests`` on every
supported Python found: the whole suite on the main interpreter, the tests that start no process on the
others; ``build`` makes and checks the release artifacts in ``dist/``), then ``nox -s claude``
(end-to-end sessions in the real Claude Code client; needs node and npm), ``nox -s browser`` (the
timeline page in Debian's chromium) and ``nox -s fuzz`` with a short budget; ``bash .ci/run`` does all
of it on a fresh machine. ``nox -s fuzz`` alone runs 10,000 cases per fuzz target. ``nox -s bench``
prints the benchmark table (hooks against a bare interpreter, fill estimation, ctxres check against
check-jsonschema, audit-history). Extra arguments after ``--`` go to pytest, ruff, mypy or bench/run.py.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import nox

ROOT = Path(__file__).resolve().parent

# Every Python the package supports (pyproject.toml: requires-python >= 3.10); a test keeps them in step.
PYTHONS = ["3.10", "3.11", "3.12", "3.13"]


def _runs(version: str) -> bool:
    """``pythonX.Y`` is on PATH and starts (a pyenv shim of a version pyenv has not selected does not)."""
    found = shutil.which(f"python{version}")
    return found is not None and subprocess.run([found, "-c", ""], capture_output=True, check=False).returncode == 0


def _main_python() -> str:
    """The interpreter of the whole test suite and of the other sessions: ``CTXRES_MAIN_PYTHON``, else
    3.11 where it runs, else the first supported one that runs, else the one nox runs on."""
    chosen = os.environ.get("CTXRES_MAIN_PYTHON")
    if chosen:
        return chosen
    running = f"{sys.version_info.major}.{sys.version_info.minor}"
    return next((v for v in ("3.11", *PYTHONS) if v == running or _runs(v)), running)


MAIN_PYTHON = _main_python()
# The tests that start no process (tests/process_marker.py sets the `processes` marker): what the other
# interpreters run. The real ctxres and ctxres-hook, git and pre-commit run on the main interpreter only.
IN_PROCESS_SELECTION = "not processes"
# Coverage is measured on the newest supported Python, where coverage traces with sys.monitoring at a
# fraction of the cost of the tracing function the older ones need (README.md, "Development": the figure
# and the floor). Its tests session is the tests that start no process (unless it is the main interpreter).
COVERAGE_PYTHON = PYTHONS[-1]

nox.options.sessions = ["tests", "lint", "typecheck", "schemas", "replay", "build"]
# A supported Python that is not installed is skipped, and nox says so in its summary; it is never
# downloaded (nox's default is to fetch a standalone build of it).
nox.options.download_python = "never"
# Environments are made and filled by uv where it is installed (seconds instead of pip's half minute or more
# per session), by virtualenv and pip elsewhere; uv never downloads a Python either.
nox.options.default_venv_backend = "uv|virtualenv"
os.environ.setdefault("UV_PYTHON_DOWNLOADS", "never")

RUFF = "ruff>=0.6"
VULTURE = "vulture>=2.11"
MYPY = ("mypy>=1.10", "types-PyYAML")
CHECK_JSONSCHEMA = "check-jsonschema>=0.28"
ZIZMOR = "zizmor>=1.32"

# Not copied into the clean build tree: VCS data, virtual environments, caches, build output.
_BUILD_IGNORE = shutil.ignore_patterns(
    ".git",
    ".nox",
    ".venv",
    ".ci-venv",
    "build",
    "dist",
    "*.egg-info",
    "__pycache__",
    "*.pyc",
    ".mypy_cache",
    ".ruff_cache",
    ".pytest_cache",
    ".hypothesis",
    ".benchmarks",
)


def _clean_source(session: nox.Session) -> Path:
    """A fresh copy of the working tree to build the package from.

    A non-editable ``pip install .`` of the repository itself would build in ``./build``, where
    setuptools keeps modules that have since been deleted or renamed and ships them again.
    Building from a fresh copy installs exactly what is in the working tree now.
    """
    target = Path(session.create_tmp()) / "src"
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(ROOT, target, ignore=_BUILD_IGNORE, symlinks=True)
    return target


def pytest_selection(python: str) -> list[str]:
    """The pytest options that select the tests run on ``python``: none (every test) on the main one."""
    return [] if python == MAIN_PYTHON else ["-m", IN_PROCESS_SELECTION]


@nox.session(python=PYTHONS)
def tests(session: nox.Session) -> None:
    """The test suite on each Python: all of it on the main one, the tests that start no process on the others.

    The README's command (``python -m pytest -n auto``, one worker per core); ``nox -s tests-3.12`` runs one.
    On ``COVERAGE_PYTHON`` it runs under coverage, and the report fails below the floor of
    ``[tool.coverage.report]`` when none of the tests was named after ``--``.
    """
    selection = pytest_selection(str(session.python))
    if selection:
        shown = " ".join(selection)
        session.log(f"Python {session.python}: the tests that start no process ({shown}); all of them on {MAIN_PYTHON}")
    else:
        session.log(f"Python {session.python}: the whole suite (the main interpreter)")
    # pip too: the tests build wheels and fill other environments with it (an environment uv made has none).
    session.install("-e", ".[test]", "pip")
    if str(session.python) != COVERAGE_PYTHON:
        session.run("python", "-m", "pytest", "-n", "auto", *selection, *session.posargs)
        return
    session.log(f"Python {session.python}: under coverage (sys.monitoring)")
    env = {"COVERAGE_CORE": "sysmon"}
    session.run("python", "-m", "coverage", "erase")
    session.run("python", "-m", "coverage", "run", "-m", "pytest", "-n", "auto", *selection, *session.posargs, env=env)
    session.run("python", "-m", "coverage", "combine", "--quiet")
    session.run("python", "-m", "coverage", "report", *(["--fail-under", "0"] if session.posargs else []))


@nox.session(python=MAIN_PYTHON)
def lint(session: nox.Session) -> None:
    """ruff check and ruff format --check on the repository (or the paths after ``--``), then the
    dead-code check (``dev/dead_code.py``: vulture over the package and bench/, e2e/, dev/) on the whole of it, then
    the GitHub workflows (``.github/workflows``): zizmor and check-jsonschema's vendored workflow schema."""
    session.install(RUFF, VULTURE, ZIZMOR, CHECK_JSONSCHEMA)
    targets = session.posargs or ["."]
    session.run("ruff", "check", "--no-fix", *targets)
    session.run("ruff", "format", "--check", *targets)
    session.run("python", str(ROOT / "dev" / "dead_code.py"))
    # The repository's GitHub workflows: zizmor's audits (offline: the audits that ask GitHub are skipped;
    # .github/zizmor.yml is its configuration) and the workflow schema check-jsonschema vendors.
    workflows = sorted(str(path) for path in (ROOT / ".github" / "workflows").glob("*.yml"))
    session.run("zizmor", "--offline", "--config", str(ROOT / ".github" / "zizmor.yml"), *workflows)
    session.run("check-jsonschema", "--builtin-schema", "vendor.github-workflows", *workflows)


@nox.session(python=MAIN_PYTHON)
def typecheck(session: nox.Session) -> None:
    """mypy --strict on the package, in place, from ``[tool.mypy]`` in ``pyproject.toml``.

    The source tree maps top-level folders to sub-packages (setuptools package-dir: linters/ is
    ctxres.linters, ...), which mypy cannot follow by itself; ``dev/typing/ctxres/`` lays the rooms out
    as the installed package (three symbolic links), and the configuration names it (``mypy_path``,
    ``files``). So ``mypy`` checks the whole package and ``mypy linters/rules/layers.py`` one file, from
    the root of a clone; both are run here. The editable install brings the package's dependencies only:
    mypy reads the source in place (``mypy_path`` comes before the environment's packages).
    """
    session.install(*MYPY, "-e", ".")
    session.chdir(ROOT)
    session.run("mypy", *session.posargs)
    if not session.posargs:
        session.log("one file of each room, as a newcomer runs it")
        session.run("mypy", "linters/rules/layers.py", "hooks/main.py", "schemas/base.py")


BUILD_TOOLS = ("build>=1.2", "twine>=6.1", "check-wheel-contents>=0.6")


@nox.session(python=MAIN_PYTHON)
def build(session: nox.Session) -> None:
    """The release artifacts in ``dist/``, checked as the release workflow checks them before publishing.

    ``python -m build`` makes the sdist and builds the wheel from it; a second wheel is built from the
    working tree, and ``dev/release_check.py`` fails unless both hold the same files, byte for byte, and
    those are the package and its data only (no tests, bench, e2e, fixtures). ``twine check --strict``
    (the metadata and the README as the index renders it) and ``check-wheel-contents`` run on them; then
    the wheel is installed and run from outside the tree (``ctxres --version``, a check, a hook).
    """
    source = _clean_source(session)
    dist = ROOT / "dist"
    if dist.exists():
        shutil.rmtree(dist)
    from_tree = Path(session.create_tmp()) / "wheel-from-tree"
    if from_tree.exists():
        shutil.rmtree(from_tree)
    session.install(*BUILD_TOOLS)
    session.run("python", "-m", "build", "--outdir", str(dist), str(source))
    session.run("python", "-m", "build", "--wheel", "--outdir", str(from_tree), str(source))
    (wheel,) = dist.glob("ctxres-*.whl")
    (sdist,) = dist.glob("ctxres-*.tar.gz")
    (tree_wheel,) = from_tree.glob("ctxres-*.whl")
    session.run("twine", "check", "--strict", str(sdist), str(wheel))
    session.run("check-wheel-contents", str(wheel))
    session.run("python", str(ROOT / "dev" / "release_check.py"), str(wheel), "--same-as", str(tree_wheel))
    # The wheel installed (not editable) and run from outside the tree: the version, a check, a hook.
    session.install(str(wheel))
    outside = Path(session.create_tmp()) / "outside"
    outside.mkdir(exist_ok=True)
    session.chdir(outside)
    version = wheel.name.split("-")[1]
    shown = str(session.run("ctxres", "--version", silent=True)).strip()
    if shown != f"ctxres {version}":
        session.error(f"the installed wheel says {shown!r}, not 'ctxres {version}'")
    session.log(shown)
    session.run("ctxres", "check", str(ROOT / "fixtures" / "example"), success_codes=[1])
    session.run(
        "python", "-c", _HOOK_ANSWERS, "UserPromptSubmit", '{"hook_event_name": "UserPromptSubmit", "prompt": "hi"}'
    )


# Runs the installed ctxres-hook with a payload: it must exit 0 with nothing or a JSON object on stdout.
_HOOK_ANSWERS = """
import json, subprocess, sys
done = subprocess.run(["ctxres-hook", sys.argv[1]], input=sys.argv[2], capture_output=True, text=True)
answer = json.loads(done.stdout) if done.stdout.strip() else {}
assert done.returncode == 0 and isinstance(answer, dict), (done.returncode, done.stdout, done.stderr)
print(f"ctxres-hook {sys.argv[1]}: exit 0, answer {done.stdout.strip() or '(none)'}")
"""


@nox.session(python=MAIN_PYTHON)
def schemas(session: nox.Session) -> None:
    """Every generated file (JSON Schemas, rule pages, README tables, the plugin's hooks.json, the pre-commit
    patterns) matches the tables it is generated from: ``python dev/generate.py --check``."""
    session.install("-e", ".")
    session.run("python", str(ROOT / "dev" / "generate.py"), "--check")


@nox.session(python=MAIN_PYTHON)
def replay(session: nox.Session) -> None:
    """The golden fixtures: every recorded hook session in fixtures/replay replays without difference."""
    session.install("-e", ".")
    session.run("ctxres", "replay", *(session.posargs or [str(ROOT / "fixtures" / "replay")]))


@nox.session(python=MAIN_PYTHON)
def claude(session: nox.Session) -> None:
    """End-to-end sessions in the real Claude Code client (``e2e/``), offline against a stand-in API.

    The pinned ``@anthropic-ai/claude-code`` (``CLAUDE_CODE_VERSION`` in ``e2e/claude_client.py``) is
    installed with npm into ``$CTXRES_CLAUDE_CACHE`` or ``.cache/claude-code`` when it is not there yet.
    Needs node and npm: without them the session fails (it is not skipped).
    """
    missing = [tool for tool in ("node", "npm") if shutil.which(tool) is None]
    if missing:
        session.error(
            f"{' and '.join(missing)} not found on PATH: `nox -s claude` runs the real Claude Code client, "
            "which npm installs and node runs; install Node.js 18 or newer"
        )
    session.install("-e", ".", "pytest>=7", "pytest-xdist>=3")
    session.run("python", "-c", "from e2e.claude_client import ensure_client; print('claude:', ensure_client())")
    # Two test files at a time (each client run is mostly waiting on node's start-up and the hooks);
    # a file's tests stay in one worker, so its one session is shared by them.
    workers = ("-n", "2", "--dist", "loadfile")
    session.run("python", "-m", "pytest", str(ROOT / "e2e"), "-p", "no:cacheprovider", *workers, *session.posargs)


# Debian's chromium, which the browser session drives (playwright's own browser download is never used).
CHROMIUM = Path("/usr/bin/chromium")


@nox.session(python=MAIN_PYTHON)
def browser(session: nox.Session) -> None:
    """The timeline page in a real browser (``browser/``): headless chromium, script off, every request routed.

    Installs playwright from PyPI and drives the system's chromium (``CTXRES_CHROMIUM``, else
    ``/usr/bin/chromium``, else ``chromium`` on PATH; on Debian ``apt-get install chromium``); without one the
    session fails. Saves the page's picture to ``docs/images/timeline.png``.
    """
    chosen = os.environ.get("CTXRES_CHROMIUM") or (str(CHROMIUM) if CHROMIUM.is_file() else shutil.which("chromium"))
    if not chosen:
        session.error(
            "chromium not found: `nox -s browser` drives Debian's chromium; install it (apt-get install chromium)"
        )
    session.install("playwright", "pytest", "-e", ".")
    session.run(
        "python",
        "-m",
        "pytest",
        str(ROOT / "browser"),
        "-p",
        "no:cacheprovider",
        *session.posargs,
        env={"CTXRES_CHROMIUM": str(chosen)},
    )


@nox.session(python=MAIN_PYTHON)
def fuzz(session: nox.Session) -> None:
    """Property-based fuzzing (hypothesis) of the hooks, the transcript reader, the linter, migrate and ack.

    ``CTXRES_FUZZ_EXAMPLES`` cases per target (default 10,000; CI sets fewer), from the seed
    ``CTXRES_FUZZ_SEED`` (default 0), so a failure reproduces with the same two values.
    """
    session.install("-e", ".[test]", "jsonschema>=4")
    env = {
        "CTXRES_FUZZ_EXAMPLES": os.environ.get("CTXRES_FUZZ_EXAMPLES", "10000"),
        "CTXRES_FUZZ_SEED": os.environ.get("CTXRES_FUZZ_SEED", "0"),
    }
    # One worker per core: each target is its own test, seeded by CTXRES_FUZZ_SEED whatever worker runs it.
    workers = ("-n", "auto")
    session.run(
        "python", "-m", "pytest", str(ROOT / "fuzz"), "-p", "no:cacheprovider", *workers, *session.posargs, env=env
    )


@nox.session(python=MAIN_PYTHON)
def bench(session: nox.Session) -> None:
    """One Markdown table: hooks vs ``python -c pass``, fill estimation at 1 MB / 100 MB / 1 GB,
    ctxres check vs check-jsonschema, audit-history on a 1,000-commit history (docs/performance.md).

    ctxres is installed (not editable) and the environment's bytecode compiled explicitly, so the hooks start
    as they do for a user even where PYTHONDONTWRITEBYTECODE is set. Options after ``--``:
    ``--repeat N``, ``--quick``, ``--markdown FILE`` (see ``python bench/run.py --help``).
    """
    source = _clean_source(session)
    session.install(str(source), CHECK_JSONSCHEMA)
    # -I: without the current folder on sys.path, so this finds the installed copy, not ./ctxres
    probe = "import ctxres, os; print(os.path.dirname(ctxres.__file__))"
    location = Path(str(session.run("python", "-I", "-c", probe, silent=True)).strip())
    if "site-packages" not in location.parts:
        session.error(f"ctxres is imported from {location}, not from the installed copy")
    # The whole environment, not ctxres alone: pip compiles what it installs, uv does not, and without PyYAML's
    # bytecode every hook and check would compile it again where PYTHONDONTWRITEBYTECODE is set.
    session.run("python", "-m", "compileall", "-q", str(location.parent))
    session.run("python", str(ROOT / "bench" / "run.py"), *session.posargs)
