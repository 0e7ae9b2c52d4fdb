"""A small imperative IR builder for the kernels: index arithmetic folded in
Python where it is static, `scf.for`/`scf.if` from Python callables, flat
(1-D) buffer loads and stores, scalar and vector."""

from __future__ import annotations

import struct
from collections.abc import Callable, Sequence

from xdsl.dialects import arith, math, memref, scf, vector
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IndexType,
    IntegerAttr,
    MemRefType,
    VectorType,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from tlir.dense import round_to
from tlir.passes import fast_ops as fast

Index = int | SSAValue
"""An index that is either known now (a Python int) or computed at run time."""


class KernelBuilder:
    """Appends ops at the end of `self.block`; loops and ifs switch the block
    while their bodies are built."""

    def __init__(self, block: Block, fused_multiply_add: bool = False):
        self.block = block
        self.entry = block
        self.constants: dict[tuple, SSAValue] = {}
        self.fused_multiply_add = fused_multiply_add
        """`multiply_add` rounds once (`math.fma`): the opt-in `fma` numerics."""

    # --- ops -----------------------------------------------------------------

    def emit(self, op: Operation) -> SSAValue | None:
        self.block.add_op(op)
        return op.results[0] if len(op.results) == 1 else None

    def binary(self, op_class: type[Operation], a: SSAValue, b: SSAValue) -> SSAValue:
        """`op_class(a, b)` (arith.addf, arith.mulf, …), appended."""
        return self.emit(fast.binary(op_class, a, b))

    def multiply_add(self, acc: SSAValue, a: SSAValue, b: SSAValue) -> SSAValue:
        """`acc + a·b`, one term of a fold: `mulf` then `addf` (two roundings,
        TorchLean's), or in the `fma` numerics one `math.fma` (one rounding), in
        the same order either way."""
        if self.fused_multiply_add:
            return self.emit(math.FmaOp(a, b, acc))
        return self.binary(arith.AddfOp, acc, self.binary(arith.MulfOp, a, b))

    def _hoisted(self, key: tuple, make: Callable[[], Operation]) -> SSAValue:
        """One constant per value, at the top of the function (it dominates every use)."""
        if key not in self.constants:
            op = make()
            first = self.entry.first_op
            if first is None:
                self.entry.add_op(op)
            else:
                self.entry.insert_op_before(op, first)
            self.constants[key] = op.results[0]
        return self.constants[key]

    def index(self, value: Index) -> SSAValue:
        if isinstance(value, SSAValue):
            return value
        return self._hoisted(("index", value), lambda: fast.index_constant(value))

    def add(self, a: Index, b: Index) -> Index:
        if isinstance(a, int) and isinstance(b, int):
            return a + b
        if isinstance(a, int) and a == 0:
            return b
        if isinstance(b, int) and b == 0:
            return a
        return self.emit(fast.binary(arith.AddiOp, self.index(a), self.index(b)))

    def sub(self, a: Index, b: Index) -> Index:
        if isinstance(a, int) and isinstance(b, int):
            return a - b
        if isinstance(b, int) and b == 0:
            return a
        return self.emit(fast.binary(arith.SubiOp, self.index(a), self.index(b)))

    def mul(self, a: Index, b: Index) -> Index:
        if isinstance(a, int) and isinstance(b, int):
            return a * b
        if (isinstance(a, int) and a == 0) or (isinstance(b, int) and b == 0):
            return 0
        if isinstance(a, int) and a == 1:
            return b
        if isinstance(b, int) and b == 1:
            return a
        return self.emit(fast.binary(arith.MuliOp, self.index(a), self.index(b)))

    def div(self, a: Index, b: Index) -> Index:
        """Floor division of a non-negative index by a positive one."""
        if isinstance(a, int) and isinstance(b, int):
            return a // b
        if isinstance(b, int) and b == 1:
            return a
        return self.emit(fast.binary(arith.DivSIOp, self.index(a), self.index(b)))

    def rem(self, a: Index, b: Index) -> Index:
        """Remainder of a non-negative index by a positive one."""
        if isinstance(a, int) and isinstance(b, int):
            return a % b
        if isinstance(b, int) and b == 1:
            return 0
        return self.emit(fast.binary(arith.RemSIOp, self.index(a), self.index(b)))

    def ceil_div(self, a: Index, b: int) -> Index:
        """⌈a / b⌉ of a non-negative index by a positive constant."""
        if isinstance(a, int):
            return -(-a // b)
        return self.div(self.add(a, b - 1), b)

    def round_down(self, a: Index, b: int) -> Index:
        """The largest multiple of the positive constant b that is at most a ≥ 0."""
        if isinstance(a, int):
            return a - a % b
        return self.sub(a, self.rem(a, b))

    def bits(self, a: Index, mask: int) -> Index:
        """a & mask."""
        if isinstance(a, int):
            return a & mask
        return self.emit(fast.binary(arith.AndIOp, a, self.index(mask)))

    def less(self, a: Index, b: Index) -> bool | SSAValue:
        if isinstance(a, int) and isinstance(b, int):
            return a < b
        return self.emit(arith.CmpiOp(self.index(a), self.index(b), "slt"))

    def at_least(self, a: Index, b: Index) -> bool | SSAValue:
        if isinstance(a, int) and isinstance(b, int):
            return a >= b
        return self.emit(arith.CmpiOp(self.index(a), self.index(b), "sge"))

    def both(self, a: bool | SSAValue, b: bool | SSAValue) -> bool | SSAValue:
        if isinstance(a, bool):
            return b if a else False
        if isinstance(b, bool):
            return a if b else False
        return self.emit(fast.binary(arith.AndIOp, a, b))

    def either(self, a: bool | SSAValue, b: bool | SSAValue) -> bool | SSAValue:
        if isinstance(a, bool):
            return True if a else b
        if isinstance(b, bool):
            return True if b else a
        return self.emit(fast.binary(arith.OrIOp, a, b))

    def select(self, condition: bool | SSAValue, a: Index, b: Index) -> Index:
        if isinstance(condition, bool):
            return a if condition else b
        if isinstance(a, int) and isinstance(b, int) and a == b:
            return a
        return self.emit(arith.SelectOp(condition, self.index(a), self.index(b)))

    def equal(self, a: Index, b: Index) -> bool | SSAValue:
        if isinstance(a, int) and isinstance(b, int):
            return a == b
        return self.emit(arith.CmpiOp(self.index(a), self.index(b), "eq"))

    def min(self, a: Index, b: Index) -> Index:
        if isinstance(a, int) and isinstance(b, int):
            return min(a, b)
        return self.select(self.less(a, b), a, b)

    def max(self, a: Index, b: Index) -> Index:
        if isinstance(a, int) and isinstance(b, int):
            return max(a, b)
        return self.select(self.less(a, b), b, a)

    # --- control flow --------------------------------------------------------

    def loop(
        self,
        lower: Index,
        upper: Index,
        step: int,
        inits: Sequence[SSAValue],
        body: Callable[[Index, list[SSAValue]], Sequence[SSAValue]],
    ) -> list[SSAValue]:
        """`scf.for` from `lower` to `upper`; `body(iv, carried)` returns the
        carried values. Static trip counts of 0 and 1 emit no loop."""
        if isinstance(lower, int) and isinstance(upper, int):
            trips = max(0, -(-(upper - lower) // step))
            if trips == 0:
                return list(inits)
            if trips == 1:
                return list(body(lower, list(inits)))
        block = Block(arg_types=[IndexType(), *[v.type for v in inits]])
        outer = self.block
        self.block = block
        results = body(block.args[0], list(block.args[1:]))
        self.emit(scf.YieldOp(*results))
        self.block = outer
        op = scf.ForOp(self.index(lower), self.index(upper), self.index(step), list(inits), block)
        self.block.add_op(op)
        return list(op.results)

    def when(self, condition: bool | SSAValue, body: Callable[[], None]) -> None:
        """`scf.if` without results (nothing when the condition is known false)."""
        if isinstance(condition, bool):
            if condition:
                body()
            return
        block = Block()
        outer = self.block
        self.block = block
        body()
        self.emit(scf.YieldOp())
        self.block = outer
        self.block.add_op(scf.IfOp(condition, [], Region(block)))

    # --- memory --------------------------------------------------------------

    def load(self, buffer: SSAValue, at: Index) -> SSAValue:
        indices = [self.index(at)] if buffer.type.get_shape() else []
        return self.emit(fast.load(buffer, indices))

    def store(self, value: SSAValue, buffer: SSAValue, at: Index) -> None:
        indices = [self.index(at)] if buffer.type.get_shape() else []
        self.emit(fast.store(value, buffer, indices))

    def vload(self, buffer: SSAValue, at: Index, typ: VectorType) -> SSAValue:
        return self.emit(fast.vector_load(buffer, [self.index(at)], typ))

    def vstore(self, value: SSAValue, buffer: SSAValue, at: Index) -> None:
        self.emit(fast.vector_store(value, buffer, [self.index(at)]))

    def copy_range(self, src_buffer: SSAValue, src: Index, dst_buffer: SSAValue, dst: Index,
                   lo: Index, hi: Index, lanes: int) -> None:  # fmt: skip
        """dst[dst + o] = src[src + o] for lo ≤ o < hi: vectors of `lanes`, then at
        most one each of a half and a quarter vector, then single elements."""
        element = dst_buffer.type.element_type
        start = lo
        for width in [w for w in (lanes, lanes // 2, lanes // 4) if w >= 2]:
            end = self.add(start, self.mul(self.div(self.sub(hi, start), width), width))
            typ = VectorType(element, [width])

            def vcopy(o: Index, carried: list, typ=typ) -> list:
                value = self.vload(src_buffer, self.add(src, o), typ)
                self.vstore(value, dst_buffer, self.add(dst, o))
                return []

            self.loop(start, end, width, [], vcopy)
            start = end

        def copy(o: Index, carried: list) -> list:
            self.store(self.load(src_buffer, self.add(src, o)), dst_buffer, self.add(dst, o))
            return []

        self.loop(start, hi, 1, [], copy)

    def broadcast(self, scalar: SSAValue, typ: VectorType) -> SSAValue:
        return self.emit(fast.broadcast(scalar, typ))

    def shuffle(self, a: SSAValue, b: SSAValue, mask: Sequence[int]) -> SSAValue:
        """Lane i of the result is lane mask[i] of a ‖ b (b's lanes numbered after a's)."""
        typ = a.type
        assert isinstance(typ, VectorType)
        result = VectorType(typ.element_type, [len(mask)])
        dense = DenseArrayBase.from_list(i64, list(mask))
        return self.emit(vector.ShuffleOp(a, b, dense, result_type=result))

    def constant(self, value: float, typ: Attribute) -> SSAValue:
        """A float constant, or a splat vector constant."""
        value = round_to(value, typ.element_type if isinstance(typ, VectorType) else typ)

        def make() -> Operation:
            if isinstance(typ, VectorType):
                count = typ.get_shape()[0]
                dense = DenseIntOrFPElementsAttr.from_list(typ, [value] * count)
                return arith.ConstantOp(dense, typ)
            return arith.ConstantOp(FloatAttr(value, typ))

        # keyed by the bits, so that -0.0 and +0.0 stay apart
        return self._hoisted(("float", struct.pack("<d", value), typ), make)

    def alloca(self, count: int, element: Attribute) -> SSAValue:
        return self.emit(memref.AllocaOp.get(element, 64, [count]))

    def entry_alloca(self, key: object, count: int, element: Attribute) -> SSAValue:
        """One alloca per `key` at the top of the function, also when asked for
        inside a loop (where an alloca would take new stack every iteration)."""
        return self._hoisted(("alloca", key), lambda: memref.AllocaOp.get(element, 64, [count]))

    def flat(self, buffer: SSAValue) -> SSAValue:
        """A rank-1 view of a row-major buffer (rank 0 and 1 stay as they are)."""
        typ = buffer.type
        assert isinstance(typ, MemRefType)
        shape = typ.get_shape()
        if len(shape) <= 1:
            return buffer
        count = 1
        for extent in shape:
            count *= extent
        groups = ArrayAttr([ArrayAttr([IntegerAttr(d, i64) for d in range(len(shape))])])
        op = memref.CollapseShapeOp.build(
            operands=[buffer],
            result_types=[MemRefType(typ.element_type, [count])],
            properties={"reassociation": groups},
        )
        return self.emit(op)
