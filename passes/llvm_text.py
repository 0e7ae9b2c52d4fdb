"""`TextEmitter`: `tlir-lower-to-llvm`'s walk writing LLVM IR text directly.

The compile path needs LLVM IR text, not LLVM dialect ops: building thousands of
xDSL ops per kernel, then walking them again in xDSL's translator (which builds
an llvmlite module, which prints itself) took two thirds of a kernel's
lowering. This emitter receives the same instructions as
`tlir.passes.llvm_ops.DialectEmitter`, in the same order, and writes what the
translator would have written: the same instructions, types, alignments and
attributes, so LLVM compiles the same code (`test_llvm_text` compares the
machine code of both routes kernel by kernel). It stands in for MLIR's
`mlir-translate --mlir-to-llvmir` on the output of tlir's own lowering.

A value is a pair of strings (operand, type): `("%v12", "double")`,
`("3", "i64")` (constants are operands, as in LLVM IR), `("undef", "<8 x double>")`.
Block arguments become phi nodes whose incoming values the branches add.
"""

from __future__ import annotations

import functools
import struct
from dataclasses import dataclass, field

from xdsl.dialects import memref
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    Float32Type,
    Float64Type,
    FloatAttr,
    IndexType,
    IntegerType,
    VectorType,
)
from xdsl.ir import Attribute

from tlir.passes.llvm_common import Signature, global_array

TextValue = tuple[str, str]
"""(operand, LLVM type)."""


POINTER = "ptr"
"""The pointer type as this emitter takes it (no LLVM dialect type is needed)."""


@functools.cache
def llvm_type(typ: Attribute | str) -> str:
    """The LLVM IR spelling of a (lowered) type."""
    if typ == POINTER:
        return POINTER
    if isinstance(typ, Float64Type):
        return "double"
    if isinstance(typ, Float32Type):
        return "float"
    if isinstance(typ, IntegerType):
        return f"i{typ.width.data}"
    if isinstance(typ, IndexType):
        return "i64"
    if isinstance(typ, VectorType) and len(typ.get_shape()) == 1:
        return f"<{typ.get_shape()[0]} x {llvm_type(typ.element_type)}>"
    raise ValueError(f"no LLVM IR type for {typ}")


def float_literal(value: float, typ: Attribute) -> str:
    """An IEEE double's bits in hex, as LLVM IR writes float constants (a
    float's value first rounded to single precision, as llvmlite does)."""
    if isinstance(typ, Float32Type):
        value = struct.unpack("<f", struct.pack("<f", value))[0]
    bits = struct.unpack("<Q", struct.pack("<d", value))[0]
    return f"0x{bits:016X}"


def element_literals(value: DenseIntOrFPElementsAttr, element: Attribute) -> str:
    """`double 0x…, double 0x…` for the elements of a dense attribute."""
    name = llvm_type(element)
    if isinstance(element, Float32Type | Float64Type):
        return ", ".join(f"{name} {float_literal(v, element)}" for v in value.get_values())
    return ", ".join(f"{name} {int(v)}" for v in value.get_values())


@dataclass
class TextBlock:
    label: str
    phis: list[tuple[str, str, list[str]]] = field(default_factory=list)
    """(result, type, incoming `[value, %pred]` pairs) per block argument."""
    lines: list[str] = field(default_factory=list)


@dataclass
class FunctionTextEmitter:
    """One function's text: blocks in order, the current block, value numbers."""

    signature: Signature
    order: list[TextBlock] = field(default_factory=list)
    current: TextBlock | None = None
    count: int = 0
    blocks: int = 0

    # -- structure --------------------------------------------------------------

    def _name(self) -> str:
        self.count += 1
        return f"%v{self.count}"

    def block(self, types: list[Attribute], entry: bool = False):
        self.blocks += 1
        new = TextBlock(f"b{self.blocks}")
        if entry:
            return new, [(f"%a{i}", llvm_type(t)) for i, t in enumerate(types)]
        args = []
        for typ in types:
            result = self._name()
            new.phis.append((result, llvm_type(typ), []))
            args.append((result, llvm_type(typ)))
        return new, args

    def place(self, block: TextBlock, after: TextBlock | None = None) -> None:
        if after is None:
            self.order.append(block)
        else:
            self.order.insert(self.order.index(after) + 1, block)

    def switch(self, block: TextBlock) -> None:
        self.current = block

    def _emit(self, text: str) -> str:
        result = self._name()
        self.current.lines.append(f"  {result} = {text}")
        return result

    def finish(self) -> str:
        result = "i32" if self.signature.returns_status else "void"
        params = []
        noalias = self.signature.noalias or [False] * len(self.signature.inputs)
        for i, typ in enumerate(self.signature.inputs):
            flag = " noalias" if noalias[i] else ""
            params.append(f"{llvm_type(typ)}{flag} %a{i}")
        # Every function external, `internal` ones too, as xDSL's translator
        # writes them (it does not carry llvm.func's linkage over): both routes
        # then compile to the same code (an internal `.gemm` would be inlined).
        attributes = " noinline" if self.signature.no_inline else ""
        lines = [f'define {result} @"{self.signature.name}"({", ".join(params)}){attributes} {{']
        for block in self.order:
            lines.append(f"{block.label}:")
            for name, typ, incoming in block.phis:
                lines.append(f"  {name} = phi {typ} {', '.join(incoming)}")
            lines.extend(block.lines)
        lines.append("}")
        return "\n".join(lines)

    # -- constants --------------------------------------------------------------

    def integer(self, value: int, typ: Attribute) -> TextValue:
        return (str(value), llvm_type(typ))

    def undef(self, typ: VectorType) -> TextValue:
        return ("undef", llvm_type(typ))

    def float_constant(self, value: FloatAttr, typ: Attribute) -> TextValue:
        return (float_literal(value.value.data, typ), llvm_type(typ))

    def vector_constant(self, value: DenseIntOrFPElementsAttr, typ: VectorType) -> TextValue:
        return (f"<{element_literals(value, typ.element_type)}>", llvm_type(typ))

    def status_constant(self, value: int) -> TextValue:
        return (str(value), "i32")

    # -- instructions -----------------------------------------------------------

    def binary(self, opcode: str, lhs: TextValue, rhs: TextValue) -> TextValue:
        return (self._emit(f"{opcode} {lhs[1]} {lhs[0]}, {rhs[0]}"), lhs[1])

    def icmp(self, predicate: str, lhs: TextValue, rhs: TextValue) -> TextValue:
        return (self._emit(f"icmp {predicate} {lhs[1]} {lhs[0]}, {rhs[0]}"), "i1")

    def fcmp(self, predicate: str, lhs: TextValue, rhs: TextValue) -> TextValue:
        typ = lhs[1]
        result = f"<{typ[1:].split(' x ')[0]} x i1>" if typ.startswith("<") else "i1"
        return (self._emit(f"fcmp {predicate} {typ} {lhs[0]}, {rhs[0]}"), result)

    def select(self, cond: TextValue, lhs: TextValue, rhs: TextValue) -> TextValue:
        text = f"select {cond[1]} {cond[0]}, {lhs[1]} {lhs[0]}, {rhs[1]} {rhs[0]}"
        return (self._emit(text), lhs[1])

    def fneg(self, operand: TextValue) -> TextValue:
        return (self._emit(f"fneg {operand[1]} {operand[0]}"), operand[1])

    def cast(self, kind: str, operand: TextValue, typ: Attribute) -> TextValue:
        target = llvm_type(typ)
        return (self._emit(f"{kind} {operand[1]} {operand[0]} to {target}"), target)

    def call(self, name: str, args: list[TextValue], result: Attribute | None):
        operands = ", ".join(f"{t} {v}" for v, t in args)
        if result is None:
            self.current.lines.append(f'  call void @"{name}"({operands})')
            return None
        typ = llvm_type(result)
        return (self._emit(f'call {typ} @"{name}"({operands})'), typ)

    def load(self, address: TextValue, typ: Attribute, align: int | None = None) -> TextValue:
        name = llvm_type(typ)
        suffix = f", align {align}" if align else ""
        return (self._emit(f"load {name}, ptr {address[0]}{suffix}"), name)

    def store(self, value: TextValue, address: TextValue, align: int | None = None) -> None:
        suffix = f", align {align}" if align else ""
        self.current.lines.append(f"  store {value[1]} {value[0]}, ptr {address[0]}{suffix}")

    def alloca(self, count: TextValue, element: Attribute, align: int) -> TextValue:
        text = f"alloca {llvm_type(element)}, {count[1]} {count[0]}, align {align}"
        return (self._emit(text), "ptr")

    def gep(self, pointer: TextValue, index: TextValue, element: Attribute) -> TextValue:
        text = f"getelementptr {llvm_type(element)}, ptr {pointer[0]}, {index[1]} {index[0]}"
        return (self._emit(text), "ptr")

    def insert_element(self, vector: TextValue, scalar: TextValue, lane: TextValue) -> TextValue:
        text = (
            f"insertelement {vector[1]} {vector[0]}, {scalar[1]} {scalar[0]}, {lane[1]} {lane[0]}"
        )
        return (self._emit(text), vector[1])

    def shuffle(self, v1: TextValue, v2: TextValue, mask: list[int], typ: VectorType) -> TextValue:
        lanes = ", ".join(f"i32 {m}" for m in mask)
        text = f"shufflevector {v1[1]} {v1[0]}, {v2[1]} {v2[0]}, <{len(mask)} x i32> <{lanes}>"
        return (self._emit(text), llvm_type(typ))

    def address_of(self, name: str) -> TextValue:
        return (f'@"{name}"', "ptr")

    def ret(self, value: TextValue | None) -> None:
        self.current.lines.append("  ret void" if value is None else f"  ret {value[1]} {value[0]}")

    def _incoming(self, dest: TextBlock, args: list[TextValue]) -> None:
        for (_, _, incoming), (value, _) in zip(dest.phis, args, strict=True):
            incoming.append(f"[{value}, %{self.current.label}]")

    def br(self, dest: TextBlock, args: list[TextValue]) -> None:
        self._incoming(dest, args)
        self.current.lines.append(f"  br label %{dest.label}")

    def cond_br(self, cond, then_block, then_args, else_block, else_args) -> None:
        self._incoming(then_block, then_args)
        self._incoming(else_block, else_args)
        self.current.lines.append(
            f"  br i1 {cond[0]}, label %{then_block.label}, label %{else_block.label}"
        )


class TextEmitter:
    """A module's LLVM IR text."""

    pointer = POINTER

    def function(self, signature: Signature) -> FunctionTextEmitter:
        return FunctionTextEmitter(signature)

    def declaration(self, name: str, inputs: list[Attribute], output: Attribute | None) -> str:
        result = "void" if output is None else llvm_type(output)
        return f'declare {result} @"{name}"({", ".join(llvm_type(t) for t in inputs)})'

    def constant_global(self, op: memref.GlobalOp) -> str:
        count, flat = global_array(op)
        element = op.type.element_type
        array = f"[{count} x {llvm_type(element)}]"
        values = element_literals(flat, element)
        # No `align 64`: xDSL's translator drops llvm.mlir.global's alignment.
        return f'@"{op.sym_name.data}" = internal constant {array} [{values}]'

    def module(self, parts: list[str]) -> str:
        return f'target triple = "{_default_triple()}"\n\n' + "\n\n".join(parts) + "\n"


@functools.cache
def _default_triple() -> str:
    """The triple xDSL's translator gives a module without one: LLVM's default."""
    from llvmlite import binding

    return binding.get_default_triple()
