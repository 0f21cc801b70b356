"""The quick build of YAML (positions found on demand in the nodes) agrees with the exact builder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxres.formats.document import Document, LazyPositions
from ctxres.formats.loading import split_front_matter
from ctxres.formats.yamlpos import (
    _ALIAS,
    _Builder,
    _composer,
    _scalar_value,
    may_hold_alias,
    may_hold_anchor,
    parse_yaml,
)

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"

CASES = [
    "a: 1\nb: [x, 2, {c: 2026-01-02T03:04:05Z}]\n",
    "when: 2026-01-02\nlist:\n  - 2026-01-02\n  - plain\n",
    "1: one\ntrue: yes\nnull: nothing\n2026-01-02: day\n",
    "base: &b {x: 1, y: [1, 2]}\nother: *b\n",  # an alias: the exact builder
    "anchor: &only {x: 1}\nprose: R&D and * stars *\n",  # an anchor, no alias
    "a: 1\na: 2\nb: {c: [1, 2]}\nb: {c: [3]}\n",  # duplicates: the exact builder
    "m: &m {x: 1}\nn:\n  <<: *m\n  y: 2\n",
    "bin: !!binary aGVsbG8=\n!!binary aGk=: key\n",
    "custom: !thing value\n'quoted': \"q\"\nempty:\nseq: [[], {}, [[1]]]\n",
    "just a scalar\n",
    "n: 0\no: 017\nu: 1_000\nh: 0x1F\ns: 1:30\nneg: -3\nplus: +4\nbig: 123456789012345678901234567890\n",
    "inline: {<<: {a: 1}, b: 2}\n=: value key\n",
    "- 1\n- [2, 3]\n",
    "name: Main & CI\nnote: '**bold** and * stars'\nlist: [a, b]\n",  # no anchor, * in prose: the quick build
    "a: R&D\nb: x &\nc: '& *'\n- * *\n",  # unreadable
    "k: [&a 1, *a]\n",  # an anchor in flow: the exact builder
]


def _texts() -> list[str]:
    texts = list(CASES)
    for path in sorted(FIXTURES.rglob("*")):
        if path.suffix in (".yaml", ".yml") or path.suffix == ".md":
            try:
                text = path.read_text("utf-8")
            except (UnicodeDecodeError, OSError):
                continue
            if path.suffix == ".md":
                split = split_front_matter(text)
                if split is None:
                    continue
                text = split[0]
            texts.append(text)
    return texts


def _exact(text: str) -> _Builder | None:
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return None
    builder = _Builder(0, 50_000, 200, shared="&" in text)
    if node is not None:
        builder.result.data = builder.build(node, (), 0)
    return builder


@pytest.mark.parametrize("text", _texts())
def test_quick_build_agrees_with_the_exact_builder(text: str) -> None:
    try:
        quick = parse_yaml(text)
    except ValueError:
        return  # unreadable: the exact builder's error, tested elsewhere
    exact = _exact(text)
    assert exact is not None
    want = exact.result
    assert quick.data == want.data
    assert quick.timestamps == want.timestamps
    assert quick.non_string_keys == want.non_string_keys
    assert quick.duplicates == want.duplicates
    for mine, theirs in ((quick.value_pos, want.value_pos), (quick.key_pos, want.key_pos)):
        for path, position in theirs.items():
            assert path in mine and mine[path] == position, path
        assert (*next(iter(theirs), ()), "no such key") not in mine
        assert dict(mine.items()) == dict(theirs.items())  # settled: the exact builder's map


def test_positions_are_found_without_building_them_all() -> None:
    parsed = parse_yaml("a:\n  b: [1, {c: x}]\n")
    assert isinstance(parsed.value_pos, LazyPositions) and not parsed.value_pos.settled
    assert parsed.value_pos[("a", "b", 1, "c")].line == 2
    assert parsed.key_pos[("a", "b")].col == 3
    assert ("a", "b", 2) not in parsed.value_pos and ("a", "b", 0) not in parsed.key_pos
    assert not parsed.value_pos.settled


def _same(one: yaml.Node, two: yaml.Node, seen: set[tuple[int, int]] | None = None) -> bool:
    """The two node graphs are alike (a shared node compared once: an alias bomb is a small graph)."""
    seen = set() if seen is None else seen
    if (id(one), id(two)) in seen:
        return True
    seen.add((id(one), id(two)))
    if type(one) is not type(two) or (one.tag, one.start_mark.line, one.start_mark.column) != (
        two.tag,
        two.start_mark.line,
        two.start_mark.column,
    ):
        return False
    if isinstance(one, yaml.ScalarNode):
        return bool(one.value == two.value and one.style == two.style)
    if isinstance(one, yaml.SequenceNode):
        pairs = list(zip(one.value, two.value, strict=False))
    else:
        pairs = [pair for (k, v), (k2, v2) in zip(one.value, two.value, strict=False) for pair in ((k, k2), (v, v2))]
    return len(one.value) == len(two.value) and all(_same(a, b, seen) for a, b in pairs)


@pytest.mark.parametrize("text", _texts())
def test_the_composer_composes_what_csafeloader_composes(text: str) -> None:
    try:
        want = yaml.compose(text, Loader=yaml.CSafeLoader)
    except yaml.YAMLError:
        with pytest.raises(yaml.YAMLError):
            yaml.compose(text, Loader=_composer())
        return
    got = yaml.compose(text, Loader=_composer())
    assert (want is None and got is None) or _same(want, got)


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.sampled_from(["*", "a", " ", "\n", "\t", "\u2028", "\u00a0", "[", "{", ",", ":", "&", "-"])))
def test_the_alias_pre_check_agrees_with_the_pattern(text: str) -> None:
    assert may_hold_alias(text) == (_ALIAS.search(text) is not None)


def test_the_alias_pre_check_on_the_fixtures() -> None:
    for path in sorted(FIXTURES.rglob("*")):
        if path.is_file():
            text = path.read_bytes().decode("utf-8", "replace")
            assert may_hold_alias(text) == (_ALIAS.search(text) is not None), path


def _shared_nodes(node: yaml.Node) -> bool:
    """Whether a node of the graph is reached twice (an alias)."""
    seen: set[int] = set()
    stack = [node]
    while stack:
        one = stack.pop()
        if id(one) in seen:
            return True
        seen.add(id(one))
        if isinstance(one, yaml.SequenceNode):
            stack += one.value
        elif isinstance(one, yaml.MappingNode):
            stack += [part for pair in one.value for part in pair]
    return False


_ANCHORED = st.text(
    alphabet=st.sampled_from(["&", "*", "a", "1", " ", "\n", "\t", "-", ":", "[", "]", "{", "}", ",", "'"])
)


@settings(max_examples=1000, deadline=None)
@given(_ANCHORED)
def test_text_without_an_anchor_composes_to_nodes_reached_once(text: str) -> None:
    if may_hold_anchor(text):
        return
    for loader in (yaml.CSafeLoader, yaml.SafeLoader):
        try:
            node = yaml.compose(text, Loader=loader)
        except yaml.YAMLError:
            continue
        assert node is None or not _shared_nodes(node)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(["a: &x 1", "b: *x", "c: Main & CI", "d: '**b** *'", "- &y [1]", "- *y", "e: [&z 1, *z]"]))
)
def test_quick_build_agrees_with_the_exact_builder_on_anchors_and_stars(lines: list[str]) -> None:
    test_quick_build_agrees_with_the_exact_builder("\n".join(lines) + "\n")


def test_the_anchor_pre_check() -> None:
    assert not may_hold_anchor("Main & CI\nR& D\n&\n& ")
    assert all(may_hold_anchor(text) for text in ("&a", "x: &a 1", "R&D", "&&", "&\u00a0", "[&1 x]"))


_SCALAR_TEXTS = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.from_regex(r"\A[-+]?[0-9_]{0,4}\.?[0-9_]{0,4}(?:[eE][-+]?[0-9]{1,2})?\Z"),
    st.from_regex(r"\A[-+]?\.(?:inf|Inf|INF|nan|NaN|NAN)\Z"),
    st.from_regex(r"\A[0-9]{1,2}:[0-5][0-9]\.[0-9]{0,3}\Z"),
    st.sampled_from(["true", "false", "True", "FALSE", "yes", "No", "on", "OFF", "y", "n", "~", "null", "Null", ""]),
    st.text(st.sampled_from("0123456789.-+_eE:٣"), max_size=8),
)
_EXPLICIT = ["", "!!float ", "!!bool ", "!!null ", "!!int "]


@settings(max_examples=400, deadline=None)
@given(_SCALAR_TEXTS, st.sampled_from(_EXPLICIT))
def test_scalar_values_agree_with_the_constructor(text: str, tag: str) -> None:
    """The shortcuts of _scalar_value (null, plain floats, true/false) read what SafeConstructor reads, or
    fail as it fails, for plain and explicitly tagged scalars."""
    try:
        node = yaml.compose(f"v: {tag}{text}\n", Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return
    value_node = node.value[0][1]
    if not isinstance(value_node, yaml.ScalarNode):
        return
    constructor = yaml.SafeLoader("")

    def outcome(read: Any) -> object:
        try:
            return ("value", repr(read()))
        except Exception as exc:  # the same failure: the same class
            return ("error", type(exc))

    if value_node.tag.endswith(("float", "bool", "null")):
        want = outcome(lambda: constructor.construct_object(value_node, deep=True))
        assert outcome(lambda: _scalar_value(constructor, value_node)) == want


@pytest.mark.parametrize("text", [*CASES[:3], *CASES[8:11], "a:\n  b: [1, {c: x}]\n  d: {}\n"])
def test_locate_answers_alike_from_lazy_settled_and_plain_positions(text: str) -> None:
    """Document.locate looks a path up once per map: the same position whether the map is lazy (nodes walked),
    settled (a PositionMap) or a plain dict, for present paths, absent ones and their nearest ancestors."""
    parsed = parse_yaml(text)
    settled = parse_yaml(text)
    assert isinstance(settled.value_pos, LazyPositions) and isinstance(settled.key_pos, LazyPositions)
    settled.value_pos.settle()
    settled.key_pos.settle()
    docs = [
        Document("f.yaml", "x", text, parsed.data, parsed.value_pos, parsed.key_pos),
        Document("f.yaml", "x", text, settled.data, settled.value_pos, settled.key_pos),
        Document("f.yaml", "x", text, settled.data, dict(settled.value_pos.items()), dict(settled.key_pos.items())),
    ]
    paths = list(settled.value_pos) + list(settled.key_pos)
    paths += [(*path, "absent") for path in paths] + [(*path, 7, "x") for path in paths] + [()]
    for path in paths:
        for key in (False, True):
            assert len({doc.locate(path, key=key) for doc in docs}) == 1, (path, key)


_NESTED = [
    "a: 1\nb: [2, 2026-01-02, {c: 3.5, d: [true, null, x]}]\n",
    "- [1, [2, [3, [2026-01-02T03:04:05Z]]]]\n- {a: {b: {c: {d: 5}}}}\n",
    "k: {a: 2026-01-02, b: [x, 1], c: {d: x, e: [[]]}}\n",
]


@pytest.mark.parametrize("text", _NESTED)
@pytest.mark.parametrize("depth", range(1, 7))
def test_quick_build_at_the_depth_limit_answers_as_the_exact_builder(
    text: str, depth: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Scalars that are not strings (numbers, booleans, null, timestamps) at and below the nesting limit: the quick
    build gives the document or leaves it to the exact builder, whose answer (the data, or its error) is the same."""
    from ctxres.formats import yamlpos

    def outcome() -> object:
        try:
            parsed = parse_yaml(text, max_depth=depth)
        except ValueError as exc:
            return ("error", str(exc))
        return (parsed.data, parsed.timestamps, dict(parsed.value_pos.items()), dict(parsed.key_pos.items()))

    quick = outcome()
    monkeypatch.setattr(yamlpos, "_quick", lambda *args: None)
    assert quick == outcome()
