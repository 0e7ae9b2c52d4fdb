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

from xdsl.dialects import arith, func, memref, vector
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    IndexType,
    IntegerAttr,
    SymbolRefAttr,
    i32,
)
from xdsl.dialects.linalg.ops import GenericOp
from xdsl.ir import Attribute, Operation, Region, SSAValue

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


@functools.lru_cache(maxsize=256)
def _segment_sizes(inputs: int, outputs: int) -> DenseArrayBase:
    return DenseArrayBase.from_list(i32, (inputs, outputs))


@functools.lru_cache(maxsize=1024)
def array_attr(elements: tuple[Attribute, ...]) -> ArrayAttr:
    """`ArrayAttr(elements)`, made once per tuple (a generic's maps and iterators
    repeat from one op to the next)."""
    return ArrayAttr(elements)


def generic(
    inputs: Sequence[SSAValue],
    outputs: Sequence[SSAValue],
    body: Region,
    indexing_maps: Sequence[Attribute],
    iterator_types: Sequence[Attribute],
    result_types: Sequence[Attribute] = (),
) -> GenericOp:
    """`linalg.GenericOp(inputs, outputs, body, indexing_maps, iterator_types,
    result_types)` (no `doc`, no `library_call`): its properties in the same order."""
    properties = {
        "indexing_maps": array_attr(tuple(indexing_maps)),
        "iterator_types": array_attr(tuple(iterator_types)),
        "operandSegmentSizes": _segment_sizes(len(inputs), len(outputs)),
    }
    return GenericOp.create(
        operands=[*inputs, *outputs],
        result_types=list(result_types),
        properties=properties,
        regions=[body],
    )


@functools.lru_cache(maxsize=4096)
def symbol_ref(name: str) -> SymbolRefAttr:
    """`SymbolRefAttr(name)`, made once per name (a model calls a few kernels
    from hundreds of places)."""
    return SymbolRefAttr(name)


def call(callee: str, arguments: Sequence[SSAValue], result_types: Sequence[Attribute]):
    """`func.CallOp(callee, arguments, result_types)`."""
    return func.CallOp.create(
        operands=list(arguments),
        result_types=list(result_types),
        properties={"callee": symbol_ref(callee)},
    )
