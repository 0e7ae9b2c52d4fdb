"""The ops the kernel generators and lowerings build most, through
`Operation.create` with their constant properties made once.

xDSL's constructors check and convert every argument (`irdl_op_init`) and build
the same property attributes on every call: `arith.AddiOp(a, b)` took 24 µs,
`memref.LoadOp.get(m, [i])` 42 µs, against 8-9 µs for `create` (the generic
constructor the parser and `clone` use). A kernel builds thousands; in the
contraction-kernel generator building ops was two thirds of its time. Each
function gives the op its xDSL constructor gives, property for property: the
properties are taken once per op class from an op that constructor built (no
such op has attributes or constructor-dependent properties, which
`test_fast_ops` checks against the constructors).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

from xdsl.dialects import arith, memref, vector
from xdsl.dialects.builtin import IndexType, IntegerAttr
from xdsl.ir import Attribute, Operation, SSAValue

INDEX = IndexType()

_PROPERTIES: dict[type[Operation], dict[str, Attribute]] = {}


def _properties(op_class: type[Operation], build: Callable[[], Operation]) -> dict:
    properties = _PROPERTIES.get(op_class)
    if properties is None:
        properties = _PROPERTIES[op_class] = dict(build().properties)
    return properties


def binary(op_class: type[Operation], lhs: SSAValue, rhs: SSAValue) -> Operation:
    """`op_class(lhs, rhs)` for an op whose result has its operands' type
    (arith.addi, arith.mulf, llvm.add, …)."""
    properties = _properties(op_class, lambda: op_class(lhs, rhs))
    return op_class.create(operands=[lhs, rhs], result_types=[lhs.type], properties=properties)


def load(buffer: SSAValue, indices: Sequence[SSAValue]) -> memref.LoadOp:
    """`memref.LoadOp.get(buffer, indices)`."""
    properties = _properties(memref.LoadOp, lambda: memref.LoadOp.get(buffer, indices))
    return memref.LoadOp.create(
        operands=[buffer, *indices],
        result_types=[buffer.type.element_type],
        properties=properties,
    )


def store(value: SSAValue, buffer: SSAValue, indices: Sequence[SSAValue]) -> memref.StoreOp:
    """`memref.StoreOp.get(value, buffer, indices)`."""
    properties = _properties(memref.StoreOp, lambda: memref.StoreOp.get(value, buffer, indices))
    return memref.StoreOp.create(operands=[value, buffer, *indices], properties=properties)


def vector_load(buffer: SSAValue, indices: Sequence[SSAValue], typ: Attribute) -> vector.LoadOp:
    """`vector.LoadOp(buffer, indices, typ)`."""
    properties = _properties(vector.LoadOp, lambda: vector.LoadOp(buffer, indices, typ))
    return vector.LoadOp.create(
        operands=[buffer, *indices], result_types=[typ], properties=properties
    )


def vector_store(value: SSAValue, buffer: SSAValue, indices: Sequence[SSAValue]) -> vector.StoreOp:
    """`vector.StoreOp(value, buffer, indices)`."""
    properties = _properties(vector.StoreOp, lambda: vector.StoreOp(value, buffer, indices))
    return vector.StoreOp.create(operands=[value, buffer, *indices], properties=properties)


def broadcast(scalar: SSAValue, typ: Attribute) -> vector.BroadcastOp:
    """`vector.BroadcastOp(scalar, typ)`."""
    properties = _properties(vector.BroadcastOp, lambda: vector.BroadcastOp(scalar, typ))
    return vector.BroadcastOp.create(operands=[scalar], result_types=[typ], properties=properties)


@functools.lru_cache(maxsize=4096)
def integer_attr(value: int, typ: Attribute) -> IntegerAttr:
    """`IntegerAttr(value, typ)`, made once per (value, type): attributes are values."""
    return IntegerAttr(value, typ)


def index_constant(value: int) -> arith.ConstantOp:
    """`arith.ConstantOp(IntegerAttr(value, IndexType()))`."""
    properties = {"value": integer_attr(value, INDEX)}
    return arith.ConstantOp.create(result_types=[INDEX], properties=properties)
