"""`tlir-lower-to-llvm`: arith / math / memref / func / cf to the LLVM dialect.

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
  into an FMA or reassociated;
* functions take every memref as a pointer (MLIR's bare-pointer convention);
  `llvm.noalias` argument attributes are kept;
* for the contraction kernels (`tlir.passes.contraction_kernels`): `vector.load`/`store`
  (one getelementptr, element alignment), `vector.broadcast` (insertelement +
  shufflevector), `vector.shuffle` of 1-D vectors (one shufflevector), vector
  constants, lane-wise compare/select (`tlir_llvm.fcmp`/`select`, which xDSL's
  LLVM dialect lacks), vector `sqrt`/`fabs` intrinsics, and `memref.alloca`
  (an `llvm.alloca` of the static size; kernels put them in the entry block).
"""

from __future__ import annotations

import math as pymath
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import arith, cf, func, llvm, math, memref, vector
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    Float32Type,
    Float64Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    UnitAttr,
    VectorType,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass

from tlir.diagnostics import TlirError, describe_location
from tlir.dialects.tlir_llvm import VectorFCmpOp, VectorSelectOp
from tlir.passes import llvm_ops as L
from tlir.passes.tlir_form_kernels import is_kernel

PTR = llvm.LLVMPointerType()
I32 = IntegerType(32)
LIBM = {
    math.ExpOp: "exp",
    math.LogOp: "log",
    math.TanhOp: "tanh",
    math.SinOp: "sin",
    math.CosOp: "cos",
}
INT_BINARY = {
    arith.AddiOp: llvm.AddOp,
    arith.SubiOp: llvm.SubOp,
    arith.MuliOp: llvm.MulOp,
    arith.AndIOp: llvm.AndOp,
    arith.OrIOp: llvm.OrOp,
    arith.XOrIOp: llvm.XOrOp,
    arith.ShRUIOp: llvm.LShrOp,
    arith.ShLIOp: llvm.ShlOp,
    arith.DivSIOp: llvm.SDivOp,
    arith.RemSIOp: llvm.SRemOp,
    arith.DivUIOp: llvm.UDivOp,
    arith.RemUIOp: llvm.URemOp,
}
FLOAT_BINARY = {
    arith.AddfOp: llvm.FAddOp,
    arith.SubfOp: llvm.FSubOp,
    arith.MulfOp: llvm.FMulOp,
    arith.DivfOp: llvm.FDivOp,
}


def lower_type(typ: Attribute) -> Attribute:
    if isinstance(typ, IndexType):
        return i64
    if isinstance(typ, MemRefType):
        return PTR
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
    """Lowers one func.func; `values` maps old SSA values to new ones."""

    lowering: ModuleLowering
    function: func.FuncOp
    values: dict[SSAValue, SSAValue] = field(default_factory=dict)
    blocks: dict[Block, Block] = field(default_factory=dict)
    block: Block | None = None
    oom: Block | None = None
    shared: dict[tuple[Attribute, object], Operation] = field(default_factory=dict)
    """Integer constants and undef vectors, one per (type, value), hoisted into
    the entry block (which dominates every use) when the function is done. The
    translator writes a constant as an operand, not an instruction, so the LLVM
    IR is the same as with one op per use; kernels have 11-22 % fewer xDSL ops
    to build, walk and translate."""

    def emit(self, op: Operation) -> SSAValue | None:
        assert self.block is not None
        self.block.add_op(op)
        return op.results[0] if op.results else None

    def const_i64(self, value: int) -> SSAValue:
        return self.integer(value, i64)

    def integer(self, value: int, typ: IntegerType) -> SSAValue:
        """The function's one `llvm.mlir.constant` of `value` and `typ`."""
        return self._hoisted((typ, value), lambda: L.constant(value, typ))

    def undef(self, typ: VectorType) -> SSAValue:
        return self._hoisted((typ, None), lambda: llvm.UndefOp(typ))

    def _hoisted(self, key: tuple[Attribute, object], make) -> SSAValue:
        op = self.shared.get(key)
        if op is None:
            op = self.shared[key] = make()
        return op.results[0]

    def v(self, value: SSAValue) -> SSAValue:
        return self.values[value]

    def run(self) -> llvm.FuncOp:
        old_type = self.function.function_type
        inputs = [lower_type(t) for t in old_type.inputs.data]
        self.kernel = is_kernel(self.function)
        # A function that allocates reports a failed malloc: it returns i32
        # (0, or 1 when memory ran out). Kernels never allocate.
        self.returns_status = any(isinstance(o, memref.AllocOp) for o in self.function.walk())
        region = Region()
        self.region = region
        for old_block in self.function.body.blocks:
            new_block = Block(arg_types=[lower_type(a.type) for a in old_block.args])
            self.blocks[old_block] = new_block
            region.add_block(new_block)
            for old_arg, new_arg in zip(old_block.args, new_block.args, strict=True):
                self.values[old_arg] = new_arg
        for old_block in self.function.body.blocks:
            self.block = self.blocks[old_block]
            for op in old_block.ops:
                self.lower(op)
        entry = region.blocks[0]  # never empty: it ends in a terminator at least
        entry.insert_ops_before(list(self.shared.values()), entry.first_op)
        function_type = llvm.LLVMFunctionType(inputs, I32 if self.returns_status else None)
        private = (
            self.function.sym_visibility is not None
            and self.function.sym_visibility.data == "private"
        )
        # kernels are linked across objects by the JIT: never internal
        linkage = "internal" if private and not self.kernel else "external"
        new = llvm.FuncOp(
            self.function.sym_name.data,
            function_type,
            linkage=llvm.LinkageAttr(linkage),
            body=region,
            other_props=_kept_arg_attrs(self.function),
        )
        new.location = self.function.location
        if self.kernel:
            # Arguments never alias (the caller guarantees it); a kernel stays a
            # call, so the optimizer's cost stays linear in the number of kernels.
            new.properties["no_inline"] = UnitAttr()
            new.properties["arg_attrs"] = ArrayAttr(
                [DictionaryAttr({"llvm.noalias": UnitAttr()} if t == PTR else {}) for t in inputs]
            )
        return new

    def lower(self, op: Operation) -> None:
        try:
            result = self.lower_op(op)
        except (ValueError, KeyError) as err:
            where = describe_location(op.location, "module")
            raise TlirError(where, f"{op.name}: cannot lower to LLVM: {err}") from None
        if op.results and result is not None:
            self.values[op.results[0]] = result

    def lower_op(self, op: Operation) -> SSAValue | None:  # noqa: C901 - a flat dispatch
        kind = type(op)
        if kind in INT_BINARY:
            return self.emit(L.binary(INT_BINARY[kind], self.v(op.lhs), self.v(op.rhs)))
        if kind in FLOAT_BINARY:
            return self.emit(L.binary(FLOAT_BINARY[kind], self.v(op.lhs), self.v(op.rhs)))
        if kind in LIBM:
            return self.libm_call(op)
        match op:
            case arith.ConstantOp():
                return self.constant(op)
            case arith.CmpiOp():
                return self.emit(llvm.ICmpOp(self.v(op.lhs), self.v(op.rhs), op.predicate))
            case arith.CmpfOp() if isinstance(op.lhs.type, VectorType):
                predicate = arith.CMPF_COMPARISON_OPERATIONS[op.predicate.value.data]
                return self.emit(VectorFCmpOp(self.v(op.lhs), self.v(op.rhs), predicate))
            case arith.CmpfOp():
                return self.emit(llvm.FCmpOp(self.v(op.lhs), self.v(op.rhs), op.predicate))
            case arith.SelectOp() if isinstance(op.cond.type, VectorType):
                return self.emit(VectorSelectOp(self.v(op.cond), self.v(op.lhs), self.v(op.rhs)))
            case arith.SelectOp():
                return self.emit(llvm.SelectOp(self.v(op.cond), self.v(op.lhs), self.v(op.rhs)))
            case arith.MinSIOp():
                lhs, rhs = self.v(op.lhs), self.v(op.rhs)
                less = self.emit(llvm.ICmpOp(lhs, rhs, IntegerAttr(2, i64)))  # slt
                return self.emit(llvm.SelectOp(less, lhs, rhs))
            case arith.NegfOp():
                return self.emit(llvm.FNegOp(self.v(op.operand)))
            case arith.IndexCastOp():
                return self.v(op.input)  # index and i64 are the same type here
            case arith.TruncIOp():
                return self.emit(llvm.TruncOp(self.v(op.input), op.result.type))
            case arith.ExtUIOp():
                return self.emit(llvm.ZExtOp(self.v(op.input), op.result.type))
            case arith.SIToFPOp():
                return self.emit(llvm.SIToFPOp(self.v(op.input), op.result.type))
            case math.SqrtOp():
                return self.intrinsic("llvm.sqrt", op)
            case math.AbsFOp():
                return self.intrinsic("llvm.fabs", op)
            case memref.LoadOp():
                address = self.address(op.memref, op.indices)
                return self.emit(L.load(address, op.res.type))
            case memref.StoreOp():
                address = self.address(op.memref, op.indices)
                self.emit(L.store(self.v(op.value), address))
                return None
            case memref.AllocOp():
                return self.alloc(op)
            case memref.AllocaOp():
                typ = op.memref.type
                count = self.const_i64(max(pymath.prod(typ.get_shape()), 1))
                return self.emit(llvm.AllocaOp(count, typ.element_type, alignment=64))
            case vector.LoadOp():
                address = self.address(op.base, op.indices)
                align = element_size(op.base.type.element_type)
                return self.emit(L.load(address, op.result.type, align))
            case vector.StoreOp():
                # xDSL's translator types a getelementptr's result as a pointer to
                # the element, which llvmlite will not store a vector to: cast it
                # to an opaque pointer (a no-op in LLVM IR).
                address = self.emit(llvm.BitcastOp(self.address(op.base, op.indices), PTR))
                align = element_size(op.base.type.element_type)
                self.emit(L.store(self.v(op.vector), address, align))
                return None
            case vector.BroadcastOp() if not isinstance(op.source.type, VectorType):
                return self.broadcast(self.v(op.source), op.vector.type)
            case vector.ShuffleOp() if len(op.result.type.get_shape()) == 1:
                mask = DenseArrayBase.from_list(i32, list(op.mask.get_values()))
                v1, v2 = self.v(op.v1), self.v(op.v2)
                return self.emit(llvm.ShuffleVectorOp(v1, v2, mask, op.result.type))
            case memref.DeallocOp():
                self.lowering.declare("free", [PTR], None)
                self.emit(llvm.CallOp("free", self.v(op.memref)))
                return None
            case memref.SubviewOp() | memref.ExpandShapeOp() | memref.CollapseShapeOp():
                source = op.source if isinstance(op, memref.SubviewOp) else op.src
                return self.v(source)  # offset and strides live in the result type
            case memref.GetGlobalOp():
                return self.emit(llvm.AddressOfOp(op.name_.root_reference, PTR))
            case memref.ExtractAlignedPointerAsIndexOp():
                return self.emit(llvm.PtrToIntOp(self.v(op.source), i64))
            case func.CallOp():
                args = [self.v(a) for a in op.arguments]
                self.emit(llvm.CallOp(op.callee.root_reference.data, *args))
                return None
            case func.ReturnOp():
                status = [self.const_i32(0)] if self.returns_status else []
                self.emit(llvm.ReturnOp.build(operands=[status]))
                return None
            case cf.BranchOp():
                args = [self.v(a) for a in op.arguments]
                self.emit(L.br(self.blocks[op.successor], args))
                return None
            case cf.ConditionalBranchOp():
                self.emit(
                    L.cond_br(
                        self.v(op.cond),
                        self.blocks[op.then_block],
                        [self.v(a) for a in op.then_arguments],
                        self.blocks[op.else_block],
                        [self.v(a) for a in op.else_arguments],
                    )
                )
                return None
        raise ValueError("no LLVM lowering for this op")

    def constant(self, op: arith.ConstantOp) -> SSAValue:
        value = op.value
        if isinstance(value, IntegerAttr):
            return self.integer(value.value.data, lower_type(op.result.type))
        if isinstance(value, FloatAttr):
            return self.emit(llvm.ConstantOp(value, op.result.type))
        if isinstance(value, DenseIntOrFPElementsAttr) and isinstance(value.type, VectorType):
            return self.emit(llvm.ConstantOp(value, value.type))
        raise ValueError("tensor constants must be bufferized first")

    def broadcast(self, scalar: SSAValue, typ: VectorType) -> SSAValue:
        """`insertelement undef, x, 0` then a shufflevector with an all-zero mask."""
        undef = self.undef(typ)
        lane0 = self.integer(0, I32)
        inserted = self.emit(llvm.InsertElementOp(undef, scalar, lane0))
        mask = DenseArrayBase.from_list(i32, [0] * typ.get_shape()[0])
        return self.emit(llvm.ShuffleVectorOp(inserted, undef, mask, typ))

    def intrinsic(self, base: str, op: Operation) -> SSAValue:
        """A call of the type-mangled intrinsic (`llvm.sqrt.f64`, …), declared per type."""
        typ = op.result.type
        element = typ.element_type if isinstance(typ, VectorType) else typ
        suffix = "f32" if isinstance(element, Float32Type) else "f64"
        if isinstance(typ, VectorType):
            suffix = f"v{typ.get_shape()[0]}{suffix}"
        name = f"{base}.{suffix}"
        self.lowering.declare(name, [typ], typ)
        return self.emit(llvm.CallOp(name, self.v(op.operand), return_type=typ))

    def libm_call(self, op: Operation) -> SSAValue:
        typ = op.result.type
        name = LIBM[type(op)] + ("f" if isinstance(typ, Float32Type) else "")
        self.lowering.declare(name, [typ], typ)
        return self.emit(llvm.CallOp(name, self.v(op.operand), return_type=typ))

    def address(self, buffer: SSAValue, indices) -> SSAValue:
        """base + (offset + Σ index·stride) elements, as one getelementptr."""
        strides, offset = strides_and_offset(buffer.type)
        linear = self.const_i64(offset) if offset else None
        for index, stride in zip(indices, strides, strict=True):
            term = self.v(index)
            if stride != 1:
                term = self.emit(L.binary(llvm.MulOp, term, self.const_i64(stride)))
            linear = term if linear is None else self.emit(L.binary(llvm.AddOp, linear, term))
        if linear is None:
            linear = self.const_i64(0)
        element = buffer.type.element_type
        return self.emit(L.gep(self.v(buffer), linear, element))

    def const_i32(self, value: int) -> SSAValue:
        return self.integer(value, I32)

    def alloc(self, op: memref.AllocOp) -> SSAValue:
        """malloc, checked: a null pointer returns status 1 from the function."""
        if self.kernel:
            raise ValueError("kernels may not allocate (tlir-bufferize makes scratch arguments)")
        typ = op.memref.type
        count = pymath.prod(typ.get_shape())
        nbytes = max(count, 1) * element_size(typ.element_type)
        if nbytes >= 1 << 63:
            raise ValueError(f"the buffer {typ} takes {nbytes} bytes, beyond malloc's range")
        self.lowering.declare("malloc", [i64], PTR)
        size = self.const_i64(nbytes)
        pointer = self.emit(llvm.CallOp("malloc", size, return_type=PTR))
        address = self.emit(llvm.PtrToIntOp(pointer, i64))
        failed = self.emit(llvm.ICmpOp(address, self.const_i64(0), IntegerAttr(0, i64)))  # eq
        assert self.block is not None
        rest = Block()
        self.region.insert_block_after(rest, self.block)
        self.emit(llvm.CondBrOp(failed, self.out_of_memory(), [], rest, []))
        self.block = rest
        return pointer

    def out_of_memory(self) -> Block:
        """The block returning status 1, made once per function."""
        if self.oom is None:
            self.oom = Block()
            self.oom.add_op(llvm.ConstantOp(IntegerAttr(1, I32), I32))
            self.oom.add_op(llvm.ReturnOp.build(operands=[[self.oom.first_op.results[0]]]))
            self.region.add_block(self.oom)
        return self.oom


def _kept_arg_attrs(function: func.FuncOp) -> dict:
    """The function's `llvm.noalias` argument attributes, for the llvm.func."""
    from xdsl.dialects.builtin import DictionaryAttr

    if function.arg_attrs is None:
        return {}
    kept = [
        DictionaryAttr({k: v for k, v in d.data.items() if k == "llvm.noalias"})
        for d in function.arg_attrs.data
    ]
    if not any(d.data for d in kept):
        return {}
    return {"arg_attrs": ArrayAttr(kept)}


@dataclass
class ModuleLowering:
    module: ModuleOp
    declared: dict[str, llvm.FuncOp] = field(default_factory=dict)

    def declare(self, name: str, inputs: list[Attribute], output: Attribute | None) -> None:
        if name not in self.declared:
            typ = llvm.LLVMFunctionType(inputs, output)
            self.declared[name] = llvm.FuncOp(name, typ, linkage=llvm.LinkageAttr("external"))

    def run(self) -> None:
        new_ops: list[Operation] = []
        for op in list(self.module.ops):
            if isinstance(op, func.FuncOp):
                if op.body.blocks:
                    new_ops.append(FunctionLowering(self, op).run())
                else:
                    inputs = [lower_type(t) for t in op.function_type.inputs.data]
                    new_ops.append(
                        llvm.FuncOp(
                            op.sym_name.data,
                            llvm.LLVMFunctionType(inputs, None),
                            linkage=llvm.LinkageAttr("external"),
                        )
                    )
            elif isinstance(op, memref.GlobalOp):
                new_ops.append(lower_global(op))
            else:
                where = describe_location(op.location, "module")
                raise TlirError(where, f"{op.name}: cannot lower to LLVM at module level")
            op.detach()
            op.erase()
        for op in [*self.declared.values(), *new_ops]:
            self.module.body.block.add_op(op)


def lower_global(op: memref.GlobalOp) -> llvm.GlobalOp:
    """A constant buffer as an LLVM global array holding the same bytes."""
    from xdsl.dialects.builtin import TensorType

    typ = op.type
    count = max(pymath.prod(typ.get_shape()), 1)
    value = op.initial_value
    assert isinstance(value, DenseIntOrFPElementsAttr)
    flat = DenseIntOrFPElementsAttr(TensorType(typ.element_type, [count]), value.data)
    array = llvm.LLVMArrayType(count, typ.element_type)
    return llvm.GlobalOp(array, op.sym_name, "internal", constant=True, value=flat, alignment=64)


@dataclass(frozen=True)
class TlirLowerToLLVM(ModulePass):
    """Lower the buffer-level route (arith, math, memref, func, cf) to the LLVM dialect."""

    name = "tlir-lower-to-llvm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        ModuleLowering(op).run()
