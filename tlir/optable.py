"""Tables keyed by op class, filled by decorators next to the code they name.

Every per-op concern of tlir (lowering, reference semantics, JSON reading and
writing, derivative rules, kernel classes) is one `OpTable`; an entry is
registered where it is defined:

    LOWERINGS = OpTable("lowering")

    @LOWERINGS.register(T.LayerNormOp)
    def lower_layernorm(op, e): ...

and looked up by the op's exact class. `test_op_tables.py` checks that every
table covers every op, so a new op cannot be half-added.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Generic, TypeVar

from xdsl.ir import Operation

V = TypeVar("V")


class OpTable(Generic[V]):
    """A mapping from op classes to one entry each (a function, or data)."""

    def __init__(self, what: str, entries: Mapping[type[Operation], V] | None = None):
        self.what = what
        self._entries: dict[type[Operation], V] = {}
        for op_class, entry in (entries or {}).items():
            self.add(op_class, entry)

    def add(self, op_class: type[Operation], entry: V) -> None:
        if op_class in self._entries:
            raise ValueError(f"{op_class.name} has two entries in the {self.what} table")
        self._entries[op_class] = entry

    def register(self, *op_classes: type[Operation]) -> Callable[[V], V]:
        """Decorator: register the decorated object for each of `op_classes`."""

        def decorate(entry: V) -> V:
            for op_class in op_classes:
                self.add(op_class, entry)
            return entry

        return decorate

    def lookup(self, op: Operation) -> V | None:
        """The entry of `op`'s class, or None."""
        return self._entries.get(type(op))

    def __getitem__(self, op_class: type[Operation]) -> V:
        return self._entries[op_class]

    def __contains__(self, op_class: object) -> bool:
        return op_class in self._entries

    def __iter__(self) -> Iterator[type[Operation]]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def items(self) -> Iterable[tuple[type[Operation], V]]:
        return self._entries.items()

    def missing(self, op_classes: Iterable[type[Operation]]) -> list[str]:
        """Names of the op classes without an entry."""
        return [c.name for c in op_classes if c not in self._entries]
