"""The LLVM dialect ops `tlir-lower-to-llvm` emits most, built with their
constant properties made once.

xDSL's constructors of these ops build the same property attributes on every
call — an `IntegerAttr` of overflow flags or memory ordering, a `DenseArrayBase`
of GEP indices, the `IntegerAttr` of a constant — and check each, which made
them 3-6x slower than creating the op itself (`GEPOp(...)` 44 µs, `GEPOp.create`
7 µs); a kernel emits thousands. The functions below give the ops those
constructors give, property for property, through `Operation.create` (the
generic constructor the parser and `clone` use), with the attributes built once
and shared: attributes are immutable values.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from xdsl.dialects import llvm
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, IntegerType, i32, i64
from xdsl.ir import Attribute, Block, Operation, SSAValue

PTR = llvm.LLVMPointerType()
_ORDERING = {"ordering": IntegerAttr(0, i64)}  # not atomic
_GEP = {"rawConstantIndices": DenseArrayBase.from_list(i32, [llvm.GEP_USE_SSA_VAL]),
        "noWrapFlags": IntegerAttr(0, 32)}  # fmt: skip
_DEFAULTS: dict[type[Operation], dict[str, Attribute]] = {}


@functools.lru_cache(maxsize=4096)
def integer_attr(value: int, typ: IntegerType) -> IntegerAttr:
    return IntegerAttr(value, typ)


@functools.lru_cache(maxsize=256)
def _segments(sizes: tuple[int, ...]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i32, sizes)


def binary(op_class: type[Operation], lhs: SSAValue, rhs: SSAValue) -> Operation:
    """`op_class(lhs, rhs)` (llvm.add, llvm.fmul, …): the class's default
    properties are taken once from an op its own constructor builds."""
    properties = _DEFAULTS.get(op_class)
    if properties is None:
        properties = _DEFAULTS[op_class] = dict(op_class(lhs, rhs).properties)
    return op_class.create(operands=[lhs, rhs], result_types=[lhs.type], properties=properties)


def constant(value: int, typ: IntegerType) -> llvm.ConstantOp:
    """`llvm.ConstantOp(IntegerAttr(value, typ), typ)`."""
    attr = integer_attr(value, typ)
    return llvm.ConstantOp.create(result_types=[typ], properties={"value": attr})


def gep(pointer: SSAValue, index: SSAValue, element: Attribute) -> llvm.GEPOp:
    """`llvm.GEPOp(pointer, [GEP_USE_SSA_VAL], element, [index])`: one element offset."""
    return llvm.GEPOp.create(
        operands=[pointer, index], result_types=[PTR], properties={**_GEP, "elem_type": element}
    )


def _memory(alignment: int | None) -> dict[str, Attribute]:
    if alignment is None:
        return _ORDERING
    return {**_ORDERING, "alignment": integer_attr(alignment, i64)}


def load(address: SSAValue, typ: Attribute, alignment: int | None = None) -> llvm.LoadOp:
    """`llvm.LoadOp(address, typ, alignment=alignment)`."""
    return llvm.LoadOp.create(operands=[address], result_types=[typ], properties=_memory(alignment))


def store(value: SSAValue, address: SSAValue, alignment: int | None = None) -> llvm.StoreOp:
    """`llvm.StoreOp(value, address, alignment=alignment)`."""
    return llvm.StoreOp.create(operands=[value, address], properties=_memory(alignment))


def br(dest: Block, args: Sequence[SSAValue]) -> llvm.BrOp:
    """`llvm.BrOp(dest, *args)`."""
    return llvm.BrOp.create(operands=list(args), successors=[dest])


def cond_br(
    cond: SSAValue,
    then_block: Block,
    then_args: Sequence[SSAValue],
    else_block: Block,
    else_args: Sequence[SSAValue],
) -> llvm.CondBrOp:
    """`llvm.CondBrOp(cond, then_block, then_args, else_block, else_args)`."""
    sizes = _segments((1, len(then_args), len(else_args)))
    return llvm.CondBrOp.create(
        operands=[cond, *then_args, *else_args],
        successors=[then_block, else_block],
        properties={"operandSegmentSizes": sizes},
    )
