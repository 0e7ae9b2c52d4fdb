"""`tlir-lower-to-llvm`: arith / math / memref / func / cf to the LLVM dialect
(or, on the compile path, straight to LLVM IR text).

`scf.for` and `scf.if` are taken too, into the blocks `tlir-scf-to-cf` makes
(same blocks, same order): the compile path skips that pass, whose block
splitting cost more than the rest of the lowering.

Stands in for MLIR's convert-{arith,math,func,cf}-to-llvm, finalize-memref-to-llvm
and convert-math-to-libm on the IR the tlir route produces (static shapes only),
built in one walk with final types (no type-conversion patterns, no casts):

* a memref is a bare `!llvm.ptr` to the base of its allocation; views
  (subview, expand/collapse_shape) reuse the pointer, their static offset and
  strides live in the memref type, and a load or store is one `getelementptr`
  with the linearized index (`memref.extract_aligned_pointer_as_index` is
  the pointer as an integer);
* `memref.alloc`/`dealloc` call `malloc`/`free`; constants become LLVM globals;
* `exp`, `log`, `tanh`, `sin`, `cos` call the C math library (`exp`/`expf`, …),
  as TorchLean's `Float` does; `sqrt` and `fabs` are the LLVM intrinsics
  (`llvm.sqrt.f64`, …: correctly rounded); no fast-math flags anywhere, so nothing is contracted
  into an FMA or reassociated; `math.fma` (only in kernels compiled in the opt-in `fma`
  numerics) is the `llvm.fma` intrinsic, one rounding;
* functions take every memref as a pointer (MLIR's bare-pointer convention);
  `llvm.noalias` argument attributes are kept;
* for the contraction kernels (`tlir.passes.contraction_kernels`): `vector.load`/`store`
  (one getelementptr, element alignment), `vector.broadcast` (insertelement +
  shufflevector), `vector.shuffle` of 1-D vectors (one shufflevector), vector
  constants, lane-wise compare/select (`tlir_llvm.fcmp`/`select`, which xDSL's
  LLVM dialect lacks), vector `sqrt`/`fabs` intrinsics, and `memref.alloca`
  (an `llvm.alloca` of the static size; kernels put them in the entry block).

The walk decides what each op becomes and hands every instruction to an
emitter: `tlir.passes.llvm_ops.DialectEmitter` builds LLVM dialect ops (this
pass), `tlir.passes.llvm_text.TextEmitter` writes LLVM IR text directly (the
compile path: no LLVM dialect ops built, walked and translated). Both receive
the same instructions in the same order.
"""

from __future__ import annotations

import math as pymath
from dataclasses import dataclass, field
from typing import Any

from xdsl.context import Context
from xdsl.dialects import arith, cf, func, math, memref, scf, vector
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    Float32Type,
    Float64Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    VectorType,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.passes import ModulePass

from tlir.diagnostics import TlirError, describe_location
from tlir.passes.llvm_common import ICMP_PREDICATES, Signature
from tlir.passes.tlir_form_kernels import is_kernel

I32 = IntegerType(32)
LIBM = {
    math.ExpOp: "exp",
    math.LogOp: "log",
    math.TanhOp: "tanh",
    math.SinOp: "sin",
    math.CosOp: "cos",
}
INT_BINARY = {
    arith.AddiOp: "add",
    arith.SubiOp: "sub",
    arith.MuliOp: "mul",
    arith.AndIOp: "and",
    arith.OrIOp: "or",
    arith.XOrIOp: "xor",
    arith.ShRUIOp: "lshr",
    arith.ShLIOp: "shl",
    arith.DivSIOp: "sdiv",
    arith.RemSIOp: "srem",
    arith.DivUIOp: "udiv",
    arith.RemUIOp: "urem",
}
FLOAT_BINARY = {
    arith.AddfOp: "fadd",
    arith.SubfOp: "fsub",
    arith.MulfOp: "fmul",
    arith.DivfOp: "fdiv",
}

Value = Any
"""An emitter's value: an `SSAValue` of the LLVM dialect, or a text operand."""


def lower_type(typ: Attribute, pointer: Attribute) -> Attribute:
    """`typ` as the emitter takes it: index is i64, a memref is `pointer`."""
    if isinstance(typ, IndexType):
        return i64
    if isinstance(typ, MemRefType):
        return pointer
    return typ


def element_size(typ: Attribute) -> int:
    if isinstance(typ, Float64Type) or typ == i64:
        return 8
    if isinstance(typ, Float32Type) or typ == IntegerType(32):
        return 4
    return 1


def strides_and_offset(typ: MemRefType) -> tuple[list[int], int]:
    strides = typ.get_strides()
    offset = typ.get_offset()
    if strides is None or offset is None or any(s is None for s in strides):
        raise ValueError(f"{typ} has a dynamic layout")
    return [int(s) for s in strides], int(offset)


@dataclass
class FunctionLowering:
    """Lowers one func.func through `out` (a function emitter); `values` maps
    old SSA values to the emitter's values."""

    lowering: ModuleLowering
    function: func.FuncOp
    out: Any = None
    values: dict[SSAValue, Value] = field(default_factory=dict)
    blocks: dict[Block, object] = field(default_factory=dict)
    block: object = None
    oom: object = None

    def v(self, value: SSAValue) -> Value:
        return self.values[value]

    @property
    def pointer(self) -> Attribute:
        """The emitter's pointer type: what a memref becomes."""
        return self.lowering.emitter.pointer

    def run(self):
        """The emitter's function (an `llvm.func`, or its text)."""
        old_type = self.function.function_type
        inputs = [lower_type(t, self.pointer) for t in old_type.inputs.data]
        self.kernel = is_kernel(self.function)
        # A function that allocates reports a failed malloc: it returns i32
        # (0, or 1 when memory ran out). Kernels never allocate.
        self.returns_status = any(isinstance(o, memref.AllocOp) for o in self.function.walk())
        private = (
            self.function.sym_visibility is not None
            and self.function.sym_visibility.data == "private"
        )
        if self.kernel:
            # Arguments never alias (the caller guarantees it); a kernel stays a
            # call, so the optimizer's cost stays linear in the number of kernels.
            noalias: list[bool] | None = [isinstance(t, MemRefType) for t in old_type.inputs.data]
        else:
            noalias = _kept_noalias(self.function)
        self.out = self.lowering.emitter.function(
            Signature(
                name=self.function.sym_name.data,
                inputs=inputs,
                returns_status=self.returns_status,
                # kernels are linked across objects by the JIT: never internal
                internal=private and not self.kernel,
                noalias=noalias,
                no_inline=self.kernel,
                location=self.function.location,
            )
        )
        for index, old_block in enumerate(self.function.body.blocks):
            types = [lower_type(a.type, self.pointer) for a in old_block.args]
            new_block, args = self.out.block(types, entry=index == 0)
            self.out.place(new_block)
            self.blocks[old_block] = new_block
            for old_arg, new_arg in zip(old_block.args, args, strict=True):
                self.values[old_arg] = new_arg
        for old_block in self.function.body.blocks:
            self.enter(self.blocks[old_block])
            for op in old_block.ops:
                self.lower(op)
        return self.out.finish()

    def lower(self, op: Operation) -> None:
        try:
            result = self.lower_op(op)
        except (ValueError, KeyError) as err:
            where = describe_location(op.location, "module")
            raise TlirError(where, f"{op.name}: cannot lower to LLVM: {err}") from None
        if op.results and result is not None:
            self.values[op.results[0]] = result

    def lower_op(self, op: Operation) -> Value | None:  # noqa: C901 - a flat dispatch
        kind, out = type(op), self.out
        if kind in INT_BINARY:
            return out.binary(INT_BINARY[kind], self.v(op.lhs), self.v(op.rhs))
        if kind in FLOAT_BINARY:
            return out.binary(FLOAT_BINARY[kind], self.v(op.lhs), self.v(op.rhs))
        if kind in LIBM:
            return self.libm_call(op)
        match op:
            case arith.ConstantOp():
                return self.constant(op)
            case scf.ForOp():
                return self.loop(op)
            case scf.IfOp():
                return self.branch(op)
            case arith.CmpiOp():
                predicate = ICMP_PREDICATES[op.predicate.value.data]
                return out.icmp(predicate, self.v(op.lhs), self.v(op.rhs))
            case arith.CmpfOp():
                predicate = arith.CMPF_COMPARISON_OPERATIONS[op.predicate.value.data]
                return out.fcmp(predicate, self.v(op.lhs), self.v(op.rhs))
            case arith.SelectOp():
                return out.select(self.v(op.cond), self.v(op.lhs), self.v(op.rhs))
            case arith.MinSIOp():
                lhs, rhs = self.v(op.lhs), self.v(op.rhs)
                return out.select(out.icmp("slt", lhs, rhs), lhs, rhs)
            case arith.NegfOp():
                return out.fneg(self.v(op.operand))
            case arith.IndexCastOp():
                return self.v(op.input)  # index and i64 are the same type here
            case arith.TruncIOp():
                return out.cast("trunc", self.v(op.input), op.result.type)
            case arith.ExtUIOp():
                return out.cast("zext", self.v(op.input), op.result.type)
            case arith.BitcastOp():
                return out.cast("bitcast", self.v(op.input), op.result.type)
            case arith.SIToFPOp():
                return out.cast("sitofp", self.v(op.input), op.result.type)
            case math.SqrtOp():
                return self.intrinsic("llvm.sqrt", op)
            case math.AbsFOp():
                return self.intrinsic("llvm.fabs", op)
            case math.FmaOp():
                return self.intrinsic("llvm.fma", op)
            case memref.LoadOp():
                return out.load(self.address(op.memref, op.indices), op.res.type)
            case memref.StoreOp():
                out.store(self.v(op.value), self.address(op.memref, op.indices))
                return None
            case memref.AllocOp():
                return self.alloc(op)
            case memref.AllocaOp():
                typ = op.memref.type
                count = out.integer(max(pymath.prod(typ.get_shape()), 1), i64)
                return out.alloca(count, typ.element_type, 64)
            case vector.LoadOp():
                address = self.address(op.base, op.indices)
                return out.load(address, op.result.type, element_size(op.base.type.element_type))
            case vector.StoreOp():
                address = self.address(op.base, op.indices)
                align = element_size(op.base.type.element_type)
                out.store(self.v(op.vector), address, align)
                return None
            case vector.BroadcastOp() if not isinstance(op.source.type, VectorType):
                return self.broadcast(self.v(op.source), op.vector.type)
            case vector.ShuffleOp() if len(op.result.type.get_shape()) == 1:
                mask = list(op.mask.get_values())
                return out.shuffle(self.v(op.v1), self.v(op.v2), mask, op.result.type)
            case memref.DeallocOp():
                self.lowering.declare("free", [self.pointer], None)
                out.call("free", [self.v(op.memref)], None)
                return None
            case memref.SubviewOp() | memref.ExpandShapeOp() | memref.CollapseShapeOp():
                source = op.source if isinstance(op, memref.SubviewOp) else op.src
                return self.v(source)  # offset and strides live in the result type
            case memref.GetGlobalOp():
                return out.address_of(op.name_.root_reference.data)
            case memref.ExtractAlignedPointerAsIndexOp():
                return out.cast("ptrtoint", self.v(op.source), i64)
            case func.CallOp():
                args = [self.v(a) for a in op.arguments]
                result = op.res[0].type if op.res else None
                return out.call(op.callee.root_reference.data, args, result)
            case func.ReturnOp():
                out.ret(self.const_i32(0) if self.returns_status else None)
                return None
            case cf.BranchOp():
                out.br(self.blocks[op.successor], [self.v(a) for a in op.arguments])
                return None
            case cf.ConditionalBranchOp():
                out.cond_br(
                    self.v(op.cond),
                    self.blocks[op.then_block],
                    [self.v(a) for a in op.then_arguments],
                    self.blocks[op.else_block],
                    [self.v(a) for a in op.else_arguments],
                )
                return None
        raise ValueError("no LLVM lowering for this op")

    # -- structured control flow, as tlir-scf-to-cf would have lowered it ------
    # (the same blocks in the same order, so LLVM compiles the same code)

    def enter(self, block: object) -> None:
        self.block = block
        self.out.switch(block)

    def new_blocks(self, *arg_types: list[Attribute]) -> list[tuple[object, list[Value]]]:
        """Blocks placed in this order right after the current one."""
        made, after = [], self.block
        for types in arg_types:
            block, args = self.out.block(types)
            self.out.place(block, after=after)
            made.append((block, args))
            after = block
        return made

    def region_ops(self, region) -> list[Operation]:
        if len(region.blocks) != 1:
            raise ValueError("structured ops must have single-block regions")
        return list(region.block.ops)

    def loop(self, op: scf.ForOp) -> None:
        """init → condition(iv, carried): iv < ub ? body : end; the body ends
        with iv + step back to the condition; the results are the carried values."""
        out = self.out
        carried = [lower_type(a.type, self.pointer) for a in op.iter_args]
        (condition, args), (body, _), (end, _) = self.new_blocks([i64, *carried], [], [])
        out.br(condition, [self.v(op.lb), *(self.v(a) for a in op.iter_args)])
        self.enter(condition)
        out.cond_br(out.icmp("slt", args[0], self.v(op.ub)), body, [], end, [])
        self.enter(body)
        for old_arg, new_arg in zip(op.body.block.args, args, strict=True):
            self.values[old_arg] = new_arg
        *ops, terminator = self.region_ops(op.body)
        for inner in ops:
            self.lower(inner)
        stepped = out.binary("add", args[0], self.v(op.step))
        out.br(condition, [stepped, *(self.v(v) for v in terminator.operands)])
        self.enter(end)
        for result, value in zip(op.results, args[1:], strict=True):
            self.values[result] = value

    def branch(self, op: scf.IfOp) -> None:
        """cond ? then : else (or the continuation); each arm branches to the
        continuation, through a block taking the results when there are any."""
        out = self.out
        has_else = bool(op.false_region.blocks)
        results = [lower_type(r.type, self.pointer) for r in op.results]
        shapes = [[]] + ([[]] if has_else else []) + ([results] if results else []) + [[]]
        made = self.new_blocks(*shapes)
        then_block = made[0][0]
        else_block = made[1][0] if has_else else None
        join, join_args = made[-2] if results else made[-1]
        rest = made[-1][0]
        out.cond_br(self.v(op.cond), then_block, [], else_block or join, [])
        arms = [(then_block, op.true_region)] + (
            [(else_block, op.false_region)] if has_else else []
        )
        for block, region in arms:
            self.enter(block)
            *ops, terminator = self.region_ops(region)
            for inner in ops:
                self.lower(inner)
            out.br(join, [self.v(v) for v in terminator.operands])
        if results:
            self.enter(join)
            out.br(rest, [])
        self.enter(rest)
        for result, value in zip(op.results, join_args, strict=True):
            self.values[result] = value

    def constant(self, op: arith.ConstantOp) -> Value:
        value = op.value
        if isinstance(value, IntegerAttr):
            typ = lower_type(op.result.type, self.pointer)
            return self.out.integer(value.value.data, typ)
        if isinstance(value, FloatAttr):
            return self.out.float_constant(value, op.result.type)
        if isinstance(value, DenseIntOrFPElementsAttr) and isinstance(value.type, VectorType):
            return self.out.vector_constant(value, value.type)
        raise ValueError("tensor constants must be bufferized first")

    def broadcast(self, scalar: Value, typ: VectorType) -> Value:
        """`insertelement undef, x, 0` then a shufflevector with an all-zero mask."""
        out = self.out
        undef = out.undef(typ)
        inserted = out.insert_element(undef, scalar, out.integer(0, I32))
        return out.shuffle(inserted, undef, [0] * typ.get_shape()[0], typ)

    def intrinsic(self, base: str, op: Operation) -> Value:
        """A call of the type-mangled intrinsic (`llvm.sqrt.f64`, `llvm.fma.v8f64`,
        …) on the op's operands, declared per type."""
        typ = op.result.type
        element = typ.element_type if isinstance(typ, VectorType) else typ
        suffix = "f32" if isinstance(element, Float32Type) else "f64"
        if isinstance(typ, VectorType):
            suffix = f"v{typ.get_shape()[0]}{suffix}"
        name = f"{base}.{suffix}"
        self.lowering.declare(name, [typ] * len(op.operands), typ)
        return self.out.call(name, [self.v(operand) for operand in op.operands], typ)

    def libm_call(self, op: Operation) -> Value:
        typ = op.result.type
        name = LIBM[type(op)] + ("f" if isinstance(typ, Float32Type) else "")
        self.lowering.declare(name, [typ], typ)
        return self.out.call(name, [self.v(op.operand)], typ)

    def address(self, buffer: SSAValue, indices) -> Value:
        """base + (offset + Σ index·stride) elements, as one getelementptr."""
        out = self.out
        strides, offset = strides_and_offset(buffer.type)
        linear = out.integer(offset, i64) if offset else None
        for index, stride in zip(indices, strides, strict=True):
            term = self.v(index)
            if stride != 1:
                term = out.binary("mul", term, out.integer(stride, i64))
            linear = term if linear is None else out.binary("add", linear, term)
        if linear is None:
            linear = out.integer(0, i64)
        return out.gep(self.v(buffer), linear, buffer.type.element_type)

    def const_i32(self, value: int) -> Value:
        return self.out.integer(value, I32)

    def alloc(self, op: memref.AllocOp) -> Value:
        """malloc, checked: a null pointer returns status 1 from the function."""
        if self.kernel:
            raise ValueError("kernels may not allocate (tlir-bufferize makes scratch arguments)")
        typ = op.memref.type
        count = pymath.prod(typ.get_shape())
        nbytes = max(count, 1) * element_size(typ.element_type)
        if nbytes >= 1 << 63:
            raise ValueError(f"the buffer {typ} takes {nbytes} bytes, beyond malloc's range")
        ptr = self.pointer
        self.lowering.declare("malloc", [i64], ptr)
        out = self.out
        pointer = out.call("malloc", [out.integer(nbytes, i64)], ptr)
        address = out.cast("ptrtoint", pointer, i64)
        failed = out.icmp("eq", address, out.integer(0, i64))
        rest, _ = out.block([])
        out.place(rest, after=self.block)
        out.cond_br(failed, self.out_of_memory(), [], rest, [])
        self.block = rest
        out.switch(rest)
        return pointer

    def out_of_memory(self) -> object:
        """The block returning status 1, made once per function."""
        if self.oom is None:
            out = self.out
            self.oom, _ = out.block([])
            out.place(self.oom)
            out.switch(self.oom)
            out.ret(out.status_constant(1))
            out.switch(self.block)
        return self.oom


def _kept_noalias(function: func.FuncOp) -> list[bool] | None:
    """Which arguments carry `llvm.noalias` (None: none do)."""
    if function.arg_attrs is None:
        return None
    kept = ["llvm.noalias" in d.data for d in function.arg_attrs.data]
    return kept if any(kept) else None


@dataclass
class ModuleLowering:
    """The module's functions and globals through `emitter` (a module emitter)."""

    module: ModuleOp
    emitter: Any = field(default_factory=lambda: _dialect_emitter())
    declared: dict[str, tuple[list[Attribute], Attribute | None]] = field(default_factory=dict)

    def declare(self, name: str, inputs: list[Attribute], output: Attribute | None) -> None:
        self.declared.setdefault(name, (inputs, output))

    def run(self):
        """The emitter's module: the lowered ops in order, declarations first."""
        lowered: list[object] = []
        for op in self.module.ops:
            if isinstance(op, func.FuncOp):
                if op.body.blocks:
                    lowered.append(FunctionLowering(self, op).run())
                else:
                    pointer = self.emitter.pointer
                    inputs = [lower_type(t, pointer) for t in op.function_type.inputs.data]
                    outputs = op.function_type.outputs.data
                    output = lower_type(outputs[0], pointer) if outputs else None
                    lowered.append(self.emitter.declaration(op.sym_name.data, inputs, output))
            elif isinstance(op, memref.GlobalOp):
                lowered.append(self.emitter.constant_global(op))
            else:
                where = describe_location(op.location, "module")
                raise TlirError(where, f"{op.name}: cannot lower to LLVM at module level")
        declarations = [
            self.emitter.declaration(name, inputs, output)
            for name, (inputs, output) in self.declared.items()
        ]
        return self.emitter.module([*declarations, *lowered])


def _dialect_emitter():
    from tlir.passes.llvm_ops import DialectEmitter

    return DialectEmitter()


@dataclass(frozen=True)
class TlirLowerToLLVM(ModulePass):
    """Lower the buffer-level route (arith, math, memref, func, cf) to the LLVM dialect."""

    name = "tlir-lower-to-llvm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        lowered = ModuleLowering(op).run()
        for old in list(op.ops):
            old.detach()
            old.erase()
        op.body.block.add_ops(lowered)
