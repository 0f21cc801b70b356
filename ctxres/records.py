"""Records: small value classes that cost nothing to define, for the modules whose start-up is measured only.

Those are the modules a hook process or ``ctxres check`` loads (docs/performance.md, "Start-up tricks");
everywhere else a class is a plain ``@dataclass(slots=True)``.

``@dataclass`` writes each class's ``__init__``, ``__repr__``, ``__eq__``, ``__hash__`` and, for a frozen
class, ``__setattr__`` and ``__delattr__`` as source text and compiles them when the module is imported:
about 0.3 ms a class, 20 ms for the fifty classes a ``ctxres check`` imports, on every run, plus 5 ms to
import ``dataclasses`` itself (it brings ``inspect``). pre-commit starts ``ctxres check`` on every commit.

A record declares its fields as annotations, in order, names them again in ``__slots__`` (the storage; any
order), and writes its ``__init__`` by hand, so the module's bytecode holds it like any other function. The
methods that only need the list of fields are written once here:

- ``Record``: equality and ``repr`` field by field (as a dataclass), ``replace``, pickling (the process pool
  sends findings between processes) and ``fields``; not hashable, as a mutable dataclass.
- ``FrozenRecord``: a ``Record`` whose fields cannot be assigned or deleted after ``__init__`` and that
  hashes by its compared fields, as a frozen dataclass. Its ``__init__`` sets fields with ``init_field``.

A class keyword ``uncompared=("name", ...)`` leaves fields out of equality and hashing (a dataclass's
``field(compare=False)``), ``unshown=("name", ...)`` out of the ``repr`` (``field(repr=False)``). A class
whose annotations and ``__slots__`` name different fields is a ``TypeError`` when it is defined. This
module imports only the standard library's ``operator``.
"""

from __future__ import annotations

from operator import attrgetter

__all__ = ["FrozenRecord", "Record", "init_field"]

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, ClassVar, TypeVar

    R = TypeVar("R", bound="Record")

init_field = object.__setattr__
"""Set a field of a ``FrozenRecord`` in its ``__init__`` (``FrozenRecord`` refuses plain assignment)."""


class Record:
    """A mutable record: fields in ``__slots__``, compared and shown in that order."""

    __slots__ = ()

    _fields: ClassVar[tuple[str, ...]] = ()
    _shown: ClassVar[tuple[str, ...]] = ()
    _key: ClassVar[attrgetter[Any]] = attrgetter("__class__")
    """The compared values: a tuple of them, the value itself for one field, the class for none."""

    def __init_subclass__(cls, uncompared: tuple[str, ...] = (), unshown: tuple[str, ...] = (), **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # Not inspect.get_annotations: importing inspect is the start-up this module saves.
        annotations = cls.__dict__.get("__annotations__", {})  # noqa: RUF063
        own = tuple(
            name
            for name, annotation in annotations.items()
            if not str(annotation).startswith(("ClassVar", "typing.ClassVar"))
        )
        slots = cls.__dict__.get("__slots__", ())
        if set(own) != set((slots,) if isinstance(slots, str) else slots):
            raise TypeError(f"{cls.__qualname__}: __slots__ {slots!r} does not name the annotated fields {own!r}")
        shadowed = set(own) & {"fields", "replace"}
        if shadowed:
            raise TypeError(f"{cls.__qualname__}: a field may not be named {sorted(shadowed)} (a Record method)")
        cls._fields = (*cls._fields, *own)
        for keyword, names in (("uncompared", uncompared), ("unshown", unshown)):
            unknown = set(names) - set(cls._fields)
            if unknown:
                raise TypeError(f"{cls.__qualname__}: {keyword} names no field: {sorted(unknown)}")
        cls._shown = tuple(name for name in cls._fields if name not in unshown)
        compared = [name for name in cls._fields if name not in uncompared]
        cls._key = attrgetter(*compared) if compared else attrgetter("__class__")

    @classmethod
    def fields(cls) -> tuple[str, ...]:
        """The names of the fields, in order (the parameters of ``__init__``)."""
        return cls._fields

    def _values(self) -> tuple[Any, ...]:
        return tuple([getattr(self, name) for name in self._fields])

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            return bool(self._key(self) == self._key(other))
        return NotImplemented

    # Defining __eq__ sets __hash__ to None: a Record is not hashable, as a mutable dataclass.

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._shown)
        return f"{self.__class__.__qualname__}({shown})"

    def __reduce__(self) -> tuple[type[Record], tuple[Any, ...]]:
        return self.__class__, self._values()

    def replace(self: R, **changes: Any) -> R:
        """A copy with the given fields changed (``dataclasses.replace``)."""
        values = dict(zip(self._fields, self._values(), strict=True))
        values.update(changes)
        return self.__class__(**values)


class FrozenRecord(Record):
    """An immutable, hashable record."""

    __slots__ = ()

    def __hash__(self) -> int:
        return hash(self._key(self))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field {name!r} of a {self.__class__.__qualname__}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r} of a {self.__class__.__qualname__}")
