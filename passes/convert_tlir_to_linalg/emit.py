"""Building blocks of the per-op rewrites: tensors, fills and `linalg.generic`.

An `Emitter` collects the ops that replace one tlir op, in order; a `Body` adds
the scalar ops of a `linalg.generic` region. Reductions always start from a
`linalg.fill` of +0 (TorchLean folds from +0), and every generic iterates its
loops in the order its dimensions are numbered, so the reduction dimensions are
numbered in the order the spec accumulates them.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith, math, tensor
from xdsl.dialects.builtin import (
    AffineMapAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    TensorType,
)
from xdsl.dialects.linalg.attrs import IteratorType, IteratorTypeAttr
from xdsl.dialects.linalg.ops import FillOp, IndexOp, YieldOp
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap
from xdsl.rewriter import InsertPoint

from tlir.dense import float_attr
from tlir.dialects.tlir_ad import keep_row_strips
from tlir.passes import fast_ops as fast
from tlir.passes.linalg_copy import copy_generic

Expr = AffineExpr | int


def dim(position: int) -> AffineExpr:
    return AffineExpr.dimension(position)


def amap(num_dims: int, results: Sequence[Expr]) -> AffineMapAttr:
    exprs = tuple(AffineExpr.constant(r) if isinstance(r, int) else r for r in results)
    return AffineMapAttr(AffineMap(num_dims, 0, exprs))


def identity(num_dims: int) -> AffineMapAttr:
    return AffineMapAttr(AffineMap.identity(num_dims))


def dims(positions: Sequence[int]) -> list[AffineExpr]:
    return [dim(p) for p in positions]


PARALLEL = "parallel"
REDUCTION = "reduction"


@functools.cache
def _iterator(kind: str) -> IteratorTypeAttr:
    return IteratorTypeAttr(IteratorType(kind))


def shape_of(value: SSAValue) -> tuple[int, ...]:
    return tuple(value.type.get_shape())


class Body:
    """The block of a `linalg.generic`: adds scalar ops (through an xDSL
    `Builder` at the block's end), returns their results."""

    def __init__(self, block: Block, element_type: Attribute):
        self.builder = Builder(InsertPoint.at_end(block))
        self.element_type = element_type

    def __call__(self, op: Operation) -> SSAValue:
        return self.builder.insert(op).results[0]

    def const(self, value: float) -> SSAValue:
        return self(arith.ConstantOp(float_attr(value, self.element_type)))

    def bool(self, value: bool) -> SSAValue:
        return self(arith.ConstantOp(IntegerAttr(int(value), IntegerType(1))))

    def index_const(self, value: int) -> SSAValue:
        return self(arith.ConstantOp(IntegerAttr(value, IndexType())))

    def index(self, dimension: int) -> SSAValue:
        return self(IndexOp(dimension))

    def add(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self(fast.binary(arith.AddfOp, a, b))

    def sub(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self(fast.binary(arith.SubfOp, a, b))

    def mul(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self(fast.binary(arith.MulfOp, a, b))

    def div(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self(fast.binary(arith.DivfOp, a, b))

    def cmp(self, predicate: str, a: SSAValue, b: SSAValue) -> SSAValue:
        return self(arith.CmpfOp(a, b, predicate))

    def select(self, cond: SSAValue, a: SSAValue, b: SSAValue) -> SSAValue:
        return self(arith.SelectOp(cond, a, b))

    def exp(self, x: SSAValue) -> SSAValue:
        return self(math.ExpOp(x))

    def log(self, x: SSAValue) -> SSAValue:
        return self(math.LogOp(x))

    def linear_index(self, extents: Sequence[int]) -> SSAValue:
        """The row-major linear index of the current point: ((i0·n1 + i1)·n2 + i2)…"""
        if not extents:
            return self.index_const(0)
        linear = self.index(0)
        for position, extent in enumerate(extents[1:], start=1):
            scaled = self(arith.MuliOp(linear, self.index_const(extent)))
            linear = self(arith.AddiOp(scaled, self.index(position)))
        return linear

    def lean_max(self, a: SSAValue, b: SSAValue) -> SSAValue:
        """Lean's `max a b = if a ≤ b then b else a` (not maximumf/maxnumf)."""
        return self.select(self.cmp("ole", a, b), b, a)

    def lean_min(self, a: SSAValue, b: SSAValue) -> SSAValue:
        """Lean's `min a b = if a ≤ b then a else b`."""
        return self.select(self.cmp("ole", a, b), a, b)

    def clamp_at_zero(self, x: SSAValue) -> SSAValue:
        """`max(x, 0)` in Lean's form: `x ≤ 0 ? 0 : x` (NaN stays NaN, -0 gives +0)."""
        return self.select(self.cmp("ole", x, self.const(0.0)), self.const(0.0), x)


BodyBuilder = Callable[[Body, list[SSAValue]], Sequence[SSAValue]]


class Emitter:
    """The ops replacing one tlir op, in order; results usable right away."""

    def __init__(self, element_type: Attribute):
        self.element_type = element_type
        self.ops: list[Operation] = []

    def add(self, op: Operation) -> SSAValue:
        self.ops.append(op)
        return op.results[0]

    def tensor_type(self, shape: Sequence[int], element_type: Attribute | None = None):
        return TensorType(element_type or self.element_type, list(shape))

    def empty(self, shape: Sequence[int], element_type: Attribute | None = None) -> SSAValue:
        return self.add(tensor.EmptyOp([], self.tensor_type(shape, element_type)))

    def scalar(self, value: float | bool, element_type: Attribute | None = None) -> SSAValue:
        typ = element_type or self.element_type
        if isinstance(typ, IntegerType):
            return self.add(arith.ConstantOp(IntegerAttr(int(value), typ)))
        return self.add(arith.ConstantOp(float_attr(float(value), typ)))

    def filled(
        self, shape: Sequence[int], value: float | bool, element_type: Attribute | None = None
    ) -> SSAValue:
        """A tensor of `value`: the +0 start of every fold, or a `false` flag."""
        init = self.empty(shape, element_type)
        fill = FillOp([self.scalar(value, element_type)], [init], [init.type])
        return self.add(fill)

    def generic(
        self,
        inputs: Sequence[SSAValue],
        outputs: Sequence[SSAValue],
        maps: Sequence[AffineMapAttr],
        iterators: Sequence[str],
        body: BodyBuilder,
        like: Operation | None = None,
    ) -> list[SSAValue]:
        """A `linalg.generic` on tensors; `body` gets the block arguments and
        returns the values to yield (one per output)."""
        arg_types = [v.type.element_type for v in (*inputs, *outputs)]
        block = Block(arg_types=arg_types)
        yielded = body(Body(block, self.element_type), list(block.args))
        block.add_op(YieldOp(*yielded))
        op = fast.generic(
            inputs,
            outputs,
            Region(block),
            maps,
            [_iterator(i) for i in iterators],
            [v.type for v in outputs],
        )
        if like is not None:
            keep_row_strips(like, op)
        self.ops.append(op)
        return list(op.results)

    def elementwise(
        self, inputs: Sequence[SSAValue], shape: Sequence[int], body: BodyBuilder
    ) -> SSAValue:
        """All-parallel generic over `shape`; inputs of that shape map by
        identity, rank-0 inputs are broadcast scalars."""
        rank = len(shape)
        maps = [identity(rank) if shape_of(v) == tuple(shape) else amap(rank, []) for v in inputs]
        out = self.empty(shape)
        return self.generic(inputs, [out], [*maps, identity(rank)], [PARALLEL] * rank, body)[0]


def reassociation(groups: Sequence[Sequence[int]]):
    """`[[0, 1], [2], …]` as the attribute of tensor.expand_shape/collapse_shape."""
    from xdsl.dialects.builtin import ArrayAttr, i64

    return ArrayAttr([ArrayAttr([IntegerAttr(d, i64) for d in group]) for group in groups])


def copy_into(e: Emitter, part: SSAValue, dest: SSAValue, offsets: Sequence[int]) -> SSAValue:
    """`dest` with `part` written at `offsets`, in destination-passing form
    (extract_slice, a copying generic, insert_slice), which bufferizes in place
    without a strided `memref.copy`."""
    sizes = list(shape_of(part))
    window = e.add(tensor.ExtractSliceOp.from_static_parameters(dest, list(offsets), sizes))
    rank = len(sizes)
    copied = e.add(copy_generic(part, window))
    insert = tensor.InsertSliceOp.get(copied, dest, sizes, list(offsets), [1] * rank)
    return e.add(insert)


def pad_zero(e: Emitter, x: SSAValue, low: Sequence[int], high: Sequence[int]) -> SSAValue:
    """Zero padding (+0, the spec's): a filled tensor with `x` copied inside;
    the value itself if there is no padding."""
    if not any(low) and not any(high):
        return x
    shape = shape_of(x)
    padded = [n + lo + hi for n, lo, hi in zip(shape, low, high, strict=True)]
    return copy_into(e, x, e.filled(padded, 0.0), low)


def expand(
    e: Emitter, x: SSAValue, groups: Sequence[Sequence[int]], shape: Sequence[int]
) -> SSAValue:
    op = tensor.ExpandShapeOp(x, [], reassociation(groups), list(shape), e.tensor_type(shape))
    return e.add(op)


def collapse(
    e: Emitter, x: SSAValue, groups: Sequence[Sequence[int]], shape: Sequence[int]
) -> SSAValue:
    op = tensor.CollapseShapeOp.build(
        operands=[x],
        result_types=[e.tensor_type(shape)],
        properties={"reassociation": reassociation(groups)},
    )
    return e.add(op)
