"""Write or check every file this repository generates from its tables.

``python dev/generate.py --write`` regenerates them; ``python dev/generate.py --check`` writes nothing,
lists the files that differ from what the code gives (one line each) and exits 1 when there is one.
``nox -s lint`` runs ``--check``. Each file has one writer in the package, and this script only calls it:

- ``hooks/hooks.json``, the plugin's hook registration, from ``HOOK_EVENTS`` (``ctxres/hook_events.py``);
- ``linters/data/rule_examples.json``, what `ctxres check` prints on each rule's failing fixture
  (``fixtures/rules/<CODE>/bad*/``), shown on the rule's page;
- ``docs/rules/*.md`` and ``docs/rules/severity.md``, from the rule registry (``ctxres rules --write-docs``);
- the README's rule table, from the rule registry;
- ``OPTIONS`` of ``ctxres/config.py`` (what the loader checks a configuration against without importing a rule)
  and the rule options of the README's configuration example, from the options the rule modules declare;
- the README's "What it checks" table and the ``files:`` patterns of ``.pre-commit-hooks.yaml``, from the
  artifact catalog (``ctxres catalog --write``);
- ``schemas/*.schema.json``, from the pydantic models (``ctxres schema export``);
- ``docs/protocol/resumption-update-protocol.md``, from the package's own copy, ``linters/data/`` (the
  document ``ctxres init`` writes: one source, read at run time with ``importlib.resources``).

It runs on the repository it sits in (its parent folder), installed or not: that folder comes first on
``sys.path``. It is a maintainer's tool, not part of the package (``dev/`` is not in the wheel).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # the package of this repository, not another installed one
    sys.path.insert(0, str(ROOT))

Steps = tuple[Callable[[Path], list[str]], Callable[[Path], list[str]]]
"""A generated file's check and write: each takes the repository's root, returns the paths stale or written."""


def _text_file(name: str, render: Callable[[str], str]) -> Steps:
    """The check and the write of one file whose new text ``render`` makes from its current text."""

    def check(root: Path) -> list[str]:
        path = root / name
        text = path.read_text("utf-8") if path.is_file() else ""
        return [name] if render(text) != text else []

    def write(root: Path) -> list[str]:
        path = root / name
        text = path.read_text("utf-8") if path.is_file() else ""
        new = render(text)
        if new == text:
            return []
        path.write_text(new, "utf-8")
        return [name]

    return check, write


def _plugin_hooks() -> Steps:
    from ctxres.claude_settings import plugin_hooks_file

    return _text_file("hooks/hooks.json", lambda _text: plugin_hooks_file())


def _rule_examples() -> Steps:
    from ctxres.linters.commands.rules import examples_drift, write_examples

    return examples_drift, write_examples


def _rule_pages() -> Steps:
    from ctxres.linters.rules import docs_drift, write_docs

    def check(root: Path) -> list[str]:
        return [f"docs/rules/{name}" for name in docs_drift(root / "docs" / "rules")]

    def write(root: Path) -> list[str]:
        return [path.relative_to(root).as_posix() for path in write_docs(root / "docs" / "rules")]

    return check, write


def _rule_table() -> Steps:
    from ctxres.linters.commands.rules import README, render_readme

    return _text_file(README, render_readme)


def _option_table() -> Steps:
    from ctxres.linters.commands.rules import CONFIG, render_options

    return _text_file(CONFIG, render_options)


def _readme_options() -> Steps:
    from ctxres.linters.commands.rules import README, render_readme_options

    return _text_file(README, render_readme_options)


def _catalog() -> Steps:
    from ctxres.linters.commands import catalog

    def write(root: Path) -> list[str]:
        return [path.relative_to(root).as_posix() for path in catalog.write(root)]

    return catalog.drift, write


def _schemas() -> Steps:
    from ctxres.schemas import export

    def check(root: Path) -> list[str]:
        return [f"schemas/{name}" for name in export.drift(root / "schemas")]

    def write(root: Path) -> list[str]:
        return [path.relative_to(root).as_posix() for path in export.export(root / "schemas")]

    return check, write


def _protocol_document() -> Steps:
    from ctxres.linters.commands.init import protocol_text
    from ctxres.linters.rules.layers import PROTOCOL_PATH

    return _text_file(PROTOCOL_PATH, lambda _text: protocol_text())


GENERATED = {
    "the plugin's hook registration": _plugin_hooks,
    "the outputs shown on the rule pages": _rule_examples,
    "the rule pages and the severity policy": _rule_pages,
    "the README's rule table": _rule_table,
    "the rule options the configuration loader reads": _option_table,
    "the rule options of the README's configuration example": _readme_options,
    "the artifact catalog's README table and pre-commit patterns": _catalog,
    "the JSON Schemas": _schemas,
    "the protocol document, as `ctxres init` writes it": _protocol_document,
}
"""What is generated (in the order written), each with its check and its write."""


def elsewhere() -> str | None:
    """Where the package's rooms are imported from, when it is not this repository (an editable install of
    another checkout maps ``ctxres.linters`` and ``ctxres.schemas`` to its own folders); None when they are
    this repository's."""
    import ctxres.linters
    import ctxres.schemas

    for room in (ctxres.linters, ctxres.schemas):
        folder = Path(room.__file__ or "").resolve().parent
        if ROOT not in folder.parents:
            return str(folder)
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python dev/generate.py", description=__doc__.split("\n\n")[0])
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--write", action="store_true", help="regenerate every generated file")
    action.add_argument("--check", action="store_true", help="write nothing; exit 1 if a generated file is stale")
    parser.add_argument("--root", type=Path, default=ROOT, help="the repository (default: the one holding dev/)")
    args = parser.parse_args(argv)
    other = elsewhere()
    if other is not None:
        print(
            f"generate: the package is imported from {other}, not from {ROOT}: run this script with the "
            "interpreter of this repository's environment, or one without ctxres installed",
            file=sys.stderr,
        )
        return 2
    root: Path = args.root
    stale: list[str] = []
    for what, make in GENERATED.items():
        check, write = make()
        if args.write:
            for name in write(root):
                print(f"wrote {name}")
        else:
            stale += [f"{name}: stale ({what})" for name in check(root)]
    for line in stale:
        print(line, file=sys.stderr)
    if stale:
        print("run `python dev/generate.py --write` to regenerate", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
