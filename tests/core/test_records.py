"""Records behave as the dataclasses they replace: equality, hashing, repr, replace, pickling, immutability."""

from __future__ import annotations

import copy
import dataclasses
import importlib
import inspect
import pickle
import sys
from pathlib import Path
from types import ModuleType
from typing import Any, ClassVar

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from ctxres.findings import ORIGIN, Finding, Position, Severity
from ctxres.records import FrozenRecord, Record, init_field


class Point(FrozenRecord):
    __slots__ = ("x", "y")  # not the order of the fields: the annotations give it

    x: int
    y: int
    unit: ClassVar[str] = "px"

    def __init__(self, x: int, y: int = 0) -> None:
        init_field(self, "x", x)
        init_field(self, "y", y)


class Labelled(FrozenRecord, uncompared=("note",)):
    """A label with a note that does not count in equality."""

    __slots__ = ("name", "note")

    name: str
    note: dict[str, Any]

    def __init__(self, name: str, note: dict[str, Any] | None = None) -> None:
        init_field(self, "name", name)
        init_field(self, "note", {} if note is None else note)


class Cached(FrozenRecord, uncompared=("memo",), unshown=("memo",)):
    __slots__ = ("memo", "sha")

    sha: str
    memo: dict[str, str] | None

    def __init__(self, sha: str, memo: dict[str, str] | None = None) -> None:
        init_field(self, "sha", sha)
        init_field(self, "memo", memo)


class Tally(Record):
    __slots__ = ("count", "label")

    label: str
    count: int

    def __init__(self, label: str, count: int = 0) -> None:
        self.label = label
        self.count = count


class Nothing(FrozenRecord):
    __slots__ = ()

    def __init__(self) -> None:
        pass


@dataclasses.dataclass(frozen=True)
class PointDataclass:
    x: int
    y: int = 0


def test_fields_follow_the_annotations_not_the_slots() -> None:
    assert Point.fields() == ("x", "y")
    assert Tally.fields() == ("label", "count")
    assert Nothing.fields() == ()
    assert Finding.fields() == tuple(f for f in Finding.__annotations__)


def test_repr_and_equality_match_the_dataclass() -> None:
    assert repr(Point(1, 2)) == repr(PointDataclass(1, 2)).replace("PointDataclass", "Point")
    assert Point(1, 2) == Point(1, 2)
    assert Point(1, 2) != Point(2, 1)
    assert Point(1, 2) != (1, 2)
    assert Point(1, 2) != PointDataclass(1, 2)
    assert Nothing() == Nothing()


def test_frozen_records_hash_by_their_fields_and_refuse_assignment() -> None:
    assert hash(Point(1, 2)) == hash(Point(1, 2))
    assert len({Point(1, 2), Point(1, 2), Point(2, 1)}) == 2
    point = Point(1, 2)
    with pytest.raises(AttributeError, match="cannot assign to field 'x'"):
        point.x = 3  # type: ignore[misc]
    with pytest.raises(AttributeError, match="cannot delete field 'y'"):
        del point.y  # type: ignore[misc]
    with pytest.raises(AttributeError):
        point.z = 3  # type: ignore[attr-defined]
    assert point == Point(1, 2)


def test_mutable_records_assign_and_are_not_hashable() -> None:
    tally = Tally("a")
    tally.count += 2
    assert tally == Tally("a", 2)
    with pytest.raises(TypeError, match="unhashable"):
        hash(tally)
    with pytest.raises(AttributeError):
        tally.other = 1  # type: ignore[attr-defined]


def test_uncompared_fields_are_left_out_of_equality_and_hashing_not_of_repr() -> None:
    first, second = Labelled("a", {"line": 1}), Labelled("a", {"line": 2})
    assert first == second and hash(first) == hash(second)
    assert Labelled("a") != Labelled("b")
    assert repr(first) == "Labelled(name='a', note={'line': 1})"


def test_unshown_fields_are_left_out_of_repr_only() -> None:
    cached = Cached("abc", {"abc": "a"})
    assert repr(cached) == "Cached(sha='abc')"
    assert cached == Cached("abc") and cached.replace(sha="d") == Cached("d")
    assert cached.replace(sha="d").memo == {"abc": "a"}


def test_replace_changes_the_named_fields_only() -> None:
    point = Point(1, 2)
    assert point.replace(y=5) == Point(1, 5)
    assert point == Point(1, 2)
    assert type(Tally("a").replace(count=3)) is Tally
    with pytest.raises(TypeError):
        point.replace(z=1)


@pytest.mark.parametrize(
    "record",
    [
        Point(1, 2),
        Labelled("a", {"k": [1]}),
        Tally("a", 3),
        Nothing(),
        Cached("abc", {"abc": "a"}),
        Finding("a.yaml", "S001", "m", Severity.ERROR, Position(3, 4), "$.x", "fix", Position(3, 9)),
    ],
)
def test_pickle_and_copy_round_trip(record: Record) -> None:
    for again in (pickle.loads(pickle.dumps(record)), copy.copy(record), copy.deepcopy(record)):
        assert type(again) is type(record)
        assert again == record
        assert repr(again) == repr(record)


def test_positions_order_by_line_then_column() -> None:
    assert sorted([Position(2, 1), Position(1, 9), Position(1, 2)]) == [Position(1, 2), Position(1, 9), Position(2, 1)]
    assert Position(1, 2) <= Position(1, 2) < Position(1, 3) and Position(2, 1) > Position(1, 9) >= Position(1, 9)
    assert Finding("a", "S001", "m", Severity.ERROR).position == ORIGIN == Position(1, 1)


def test_slots_that_name_other_fields_than_the_annotations_are_refused() -> None:
    with pytest.raises(TypeError, match="does not name the annotated fields"):

        class Broken(FrozenRecord):
            __slots__ = ("x",)

            x: int
            y: int

    with pytest.raises(TypeError, match="unshown names no field"):

        class Hidden(FrozenRecord, unshown=("z",)):
            __slots__ = ("x",)

            x: int

    with pytest.raises(TypeError, match="uncompared names no field"):

        class Unknown(FrozenRecord, uncompared=("z",)):
            __slots__ = ("x",)

            x: int


ROOT = Path(__file__).resolve().parent.parent.parent


def _package_modules() -> list[ModuleType]:
    """Every module of the package, from the folders pyproject.toml maps its packages to."""
    with open(ROOT / "pyproject.toml", "rb") as handle:
        folders = tomllib.load(handle)["tool"]["setuptools"]["package-dir"]
    names = [
        f"{package}.{source.stem}" if source.stem != "__init__" else package
        for package, folder in folders.items()
        for source in sorted((ROOT / folder).glob("*.py"))
    ]
    return [importlib.import_module(name) for name in names]


def _every_record_class() -> list[type[Record]]:
    _package_modules()
    found, todo = [], [Record]
    while todo:
        for sub in todo.pop().__subclasses__():
            todo.append(sub)
            if sub.__module__.startswith("ctxres.") and sub is not FrozenRecord:
                found.append(sub)
    return found


def test_every_record_of_the_package_takes_its_fields_in_order() -> None:
    """``replace`` and pickling (the process pool) call ``__init__`` with the fields, by name and in order:
    a hand-written ``__init__`` must take exactly them. (Which modules may define records, and which
    dataclasses: tests/core/test_startup_tricks.py.)"""
    classes = _every_record_class()
    assert classes
    for cls in classes:
        parameters = list(inspect.signature(cls.__init__).parameters)[1:]
        assert tuple(parameters) == cls.fields(), cls.__qualname__


def test_a_field_may_not_hide_a_record_method() -> None:
    with pytest.raises(TypeError, match="may not be named"):

        class Edit(FrozenRecord):
            __slots__ = ("replace",)

            replace: str
