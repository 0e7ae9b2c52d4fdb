"""What `tlir-lower-to-llvm`'s walk and its two emitters (`llvm_ops`, the LLVM
dialect; `llvm_text`, LLVM IR text) share: a function's signature, cmpi's
predicates, a constant buffer's flattened value."""

from __future__ import annotations

import math as pymath
from dataclasses import dataclass

from xdsl.dialects import memref
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr
from xdsl.ir import Attribute

ICMP_PREDICATES = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")
"""arith.cmpi's predicate numbers, which the LLVM dialect's icmp shares."""


@dataclass(frozen=True)
class Signature:
    """What an emitter needs to know of a function besides its blocks."""

    name: str
    inputs: list[Attribute]
    returns_status: bool
    """Returns i32 (0, or 1 when malloc failed) instead of nothing."""
    internal: bool
    noalias: list[bool] | None
    """Which arguments are `noalias` (None: none)."""
    no_inline: bool
    location: Attribute


def global_array(op: memref.GlobalOp) -> tuple[int, DenseIntOrFPElementsAttr]:
    """A constant buffer's element count (at least 1) and its value, flattened."""
    from xdsl.dialects.builtin import TensorType

    typ = op.type
    count = max(pymath.prod(typ.get_shape()), 1)
    value = op.initial_value
    assert isinstance(value, DenseIntOrFPElementsAttr)
    return count, DenseIntOrFPElementsAttr(TensorType(typ.element_type, [count]), value.data)


__all__ = ["ICMP_PREDICATES", "Signature", "global_array"]
