"""`DialectEmitter`: the LLVM dialect ops `tlir-lower-to-llvm` emits, built with
their constant properties made once.

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
from dataclasses import dataclass, field

from xdsl.dialects import arith, llvm, memref
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    UnitAttr,
    VectorType,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from tlir.dialects.tlir_llvm import VectorFCmpOp, VectorSelectOp
from tlir.passes.fast_ops import binary, integer_attr
from tlir.passes.llvm_common import ICMP_PREDICATES, Signature, global_array

PTR = llvm.LLVMPointerType()
_ORDERING = {"ordering": IntegerAttr(0, i64)}  # not atomic
_GEP = {"rawConstantIndices": DenseArrayBase.from_list(i32, [llvm.GEP_USE_SSA_VAL]),
        "noWrapFlags": IntegerAttr(0, 32)}  # fmt: skip
BINARY = {
    "add": llvm.AddOp,
    "sub": llvm.SubOp,
    "mul": llvm.MulOp,
    "and": llvm.AndOp,
    "or": llvm.OrOp,
    "xor": llvm.XOrOp,
    "lshr": llvm.LShrOp,
    "shl": llvm.ShlOp,
    "sdiv": llvm.SDivOp,
    "srem": llvm.SRemOp,
    "udiv": llvm.UDivOp,
    "urem": llvm.URemOp,
    "fadd": llvm.FAddOp,
    "fsub": llvm.FSubOp,
    "fmul": llvm.FMulOp,
    "fdiv": llvm.FDivOp,
}
CASTS = {
    "bitcast": llvm.BitcastOp,
    "trunc": llvm.TruncOp,
    "zext": llvm.ZExtOp,
    "sitofp": llvm.SIToFPOp,
    "ptrtoint": llvm.PtrToIntOp,
}


@functools.lru_cache(maxsize=256)
def _segments(sizes: tuple[int, ...]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i32, sizes)


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


@dataclass
class FunctionDialectEmitter:
    """One `llvm.func` being built: blocks, the block instructions go to, and
    the function's integer constants and undef vectors, one per (type, value),
    hoisted into the entry block (which dominates every use) when it is done.
    The translator writes a constant as an operand, not an instruction, so the
    LLVM IR is the same as with one op per use; kernels have 11-22 % fewer
    xDSL ops to build, walk and translate."""

    signature: Signature
    region: Region = field(default_factory=Region)
    current: Block | None = None
    shared: dict[tuple[Attribute, object], Operation] = field(default_factory=dict)

    # -- structure --------------------------------------------------------------

    def block(self, types: list[Attribute], entry: bool = False) -> tuple[Block, list[SSAValue]]:
        new = Block(arg_types=types)
        return new, list(new.args)

    def place(self, block: Block, after: Block | None = None) -> None:
        if after is None:
            self.region.add_block(block)
        else:
            self.region.insert_block_after(block, after)

    def switch(self, block: Block) -> None:
        self.current = block

    def emit(self, op: Operation) -> SSAValue | None:
        assert self.current is not None
        self.current.add_op(op)
        return op.results[0] if op.results else None

    def finish(self) -> llvm.FuncOp:
        entry = self.region.blocks[0]  # never empty: it ends in a terminator at least
        entry.insert_ops_before(list(self.shared.values()), entry.first_op)
        signature = self.signature
        function_type = llvm.LLVMFunctionType(
            signature.inputs, i32 if signature.returns_status else None
        )
        new = llvm.FuncOp(
            signature.name,
            function_type,
            linkage=llvm.LinkageAttr("internal" if signature.internal else "external"),
            body=self.region,
        )
        new.location = signature.location
        if signature.no_inline:
            new.properties["no_inline"] = UnitAttr()
        if signature.noalias is not None:
            noalias = DictionaryAttr({"llvm.noalias": UnitAttr()})
            new.properties["arg_attrs"] = ArrayAttr(
                [noalias if flag else DictionaryAttr({}) for flag in signature.noalias]
            )
        return new

    # -- constants --------------------------------------------------------------

    def integer(self, value: int, typ: IntegerType) -> SSAValue:
        """The function's one `llvm.mlir.constant` of `value` and `typ`."""
        return self._hoisted((typ, value), lambda: constant(value, typ))

    def undef(self, typ: VectorType) -> SSAValue:
        return self._hoisted((typ, None), lambda: llvm.UndefOp(typ))

    def _hoisted(self, key: tuple[Attribute, object], make) -> SSAValue:
        op = self.shared.get(key)
        if op is None:
            op = self.shared[key] = make()
        return op.results[0]

    def float_constant(self, value: FloatAttr, typ: Attribute) -> SSAValue:
        return self.emit(llvm.ConstantOp(value, typ))

    def vector_constant(self, value: DenseIntOrFPElementsAttr, typ: VectorType) -> SSAValue:
        return self.emit(llvm.ConstantOp(value, typ))

    def status_constant(self, value: int) -> SSAValue:
        """An i32 constant in the current block (not hoisted)."""
        return self.emit(llvm.ConstantOp(IntegerAttr(value, i32), i32))

    # -- instructions -----------------------------------------------------------

    def binary(self, opcode: str, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
        return self.emit(binary(BINARY[opcode], lhs, rhs))

    def icmp(self, predicate: str, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
        number = integer_attr(ICMP_PREDICATES.index(predicate), i64)
        return self.emit(llvm.ICmpOp(lhs, rhs, number))

    def fcmp(self, predicate: str, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
        if isinstance(lhs.type, VectorType):
            return self.emit(VectorFCmpOp(lhs, rhs, predicate))
        number = arith.CMPF_COMPARISON_OPERATIONS.index(predicate)
        return self.emit(llvm.FCmpOp(lhs, rhs, integer_attr(number, i64)))

    def select(self, cond: SSAValue, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
        if isinstance(cond.type, VectorType):
            return self.emit(VectorSelectOp(cond, lhs, rhs))
        return self.emit(llvm.SelectOp(cond, lhs, rhs))

    def fneg(self, operand: SSAValue) -> SSAValue:
        return self.emit(llvm.FNegOp(operand))

    def cast(self, kind: str, operand: SSAValue, typ: Attribute) -> SSAValue:
        return self.emit(CASTS[kind](operand, typ))

    def call(self, name: str, args: list[SSAValue], result: Attribute | None) -> SSAValue | None:
        if result is None:
            return self.emit(llvm.CallOp(name, *args))
        return self.emit(llvm.CallOp(name, *args, return_type=result))

    def load(self, address: SSAValue, typ: Attribute, align: int | None = None) -> SSAValue:
        return self.emit(load(address, typ, align))

    def store(self, value: SSAValue, address: SSAValue, align: int | None = None) -> None:
        if isinstance(value.type, VectorType):
            # xDSL's translator types a getelementptr's result as a pointer to
            # the element, which llvmlite will not store a vector to: cast it
            # to an opaque pointer (a no-op in LLVM IR).
            address = self.emit(llvm.BitcastOp(address, PTR))
        self.emit(store(value, address, align))

    def alloca(self, count: SSAValue, element: Attribute, align: int) -> SSAValue:
        return self.emit(llvm.AllocaOp(count, element, alignment=align))

    def gep(self, pointer: SSAValue, index: SSAValue, element: Attribute) -> SSAValue:
        return self.emit(gep(pointer, index, element))

    def insert_element(self, vector: SSAValue, scalar: SSAValue, lane: SSAValue) -> SSAValue:
        return self.emit(llvm.InsertElementOp(vector, scalar, lane))

    def shuffle(self, v1: SSAValue, v2: SSAValue, mask: list[int], typ: VectorType) -> SSAValue:
        lanes = DenseArrayBase.from_list(i32, mask)
        return self.emit(llvm.ShuffleVectorOp(v1, v2, lanes, typ))

    def address_of(self, name: str) -> SSAValue:
        from xdsl.dialects.builtin import StringAttr

        return self.emit(llvm.AddressOfOp(StringAttr(name), PTR))

    def ret(self, value: SSAValue | None) -> None:
        self.emit(llvm.ReturnOp.build(operands=[[] if value is None else [value]]))

    def br(self, dest: Block, args: list[SSAValue]) -> None:
        self.emit(br(dest, args))

    def cond_br(self, cond, then_block, then_args, else_block, else_args) -> None:
        self.emit(cond_br(cond, then_block, then_args, else_block, else_args))


class DialectEmitter:
    """`tlir-lower-to-llvm`'s output: LLVM dialect ops."""

    pointer = PTR

    def function(self, signature: Signature) -> FunctionDialectEmitter:
        return FunctionDialectEmitter(signature)

    def declaration(
        self, name: str, inputs: list[Attribute], output: Attribute | None
    ) -> llvm.FuncOp:
        typ = llvm.LLVMFunctionType(inputs, output)
        return llvm.FuncOp(name, typ, linkage=llvm.LinkageAttr("external"))

    def constant_global(self, op: memref.GlobalOp) -> llvm.GlobalOp:
        """A constant buffer as an LLVM global array holding the same bytes."""
        count, flat = global_array(op)
        array = llvm.LLVMArrayType(count, op.type.element_type)
        return llvm.GlobalOp(
            array, op.sym_name, "internal", constant=True, value=flat, alignment=64
        )

    def module(self, ops: list[Operation]) -> list[Operation]:
        return ops
