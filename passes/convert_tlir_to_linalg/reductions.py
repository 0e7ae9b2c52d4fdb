"""Reductions and contractions: one fold helper, every sum from +0 in the
spec's order (reduction dimensions numbered outermost-first)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects.builtin import AffineMapAttr
from xdsl.ir import SSAValue

from tlir import shapes
from tlir.dialects import tlir as T
from tlir.passes.convert_tlir_to_linalg.emit import (
    PARALLEL,
    REDUCTION,
    Body,
    Emitter,
    amap,
    dim,
    dims,
    identity,
    shape_of,
)
from tlir.passes.convert_tlir_to_linalg.registry import lowers

Term = Callable[[Body, list[SSAValue]], SSAValue]


def fold_sum(
    e: Emitter,
    inputs: Sequence[SSAValue],
    input_maps: Sequence[AffineMapAttr],
    out_shape: Sequence[int],
    out_map: AffineMapAttr,
    iterators: Sequence[str],
    term: Term,
) -> SSAValue:
    """`acc = +0; for each point in loop order: acc = acc + term`."""
    init = e.filled(out_shape, 0.0)

    def body(b: Body, args: list[SSAValue]) -> list[SSAValue]:
        return [b.add(args[-1], term(b, args[:-1]))]

    return e.generic(inputs, [init], [*input_maps, out_map], iterators, body)[0]


def sum_over_axes(
    e: Emitter,
    x: SSAValue,
    axes: Sequence[int],
    term: Term | None = None,
    extra: Sequence[SSAValue] = (),
) -> SSAValue:
    """Fold-sum of `term(x, *extra)` over `axes` of x's shape (row-major among them)."""
    shape = shape_of(x)
    rank = len(shape)
    kept = [a for a in range(rank) if a not in axes]
    iterators = [REDUCTION if a in axes else PARALLEL for a in range(rank)]
    maps = [identity(rank) for _ in (x, *extra)]
    return fold_sum(
        e,
        [x, *extra],
        maps,
        [shape[a] for a in kept],
        amap(rank, dims(kept)),
        iterators,
        term or (lambda b, args: args[0]),
    )


def divide(e: Emitter, value: SSAValue, count: int) -> SSAValue:
    """`value / (count : α)`: the count rounded once to the carrier."""
    return e.elementwise(
        [value], shape_of(value), lambda b, a: [b.div(a[0], b.const(float(count)))]
    )


@lowers(T.ReduceSumOp)
def lower_reduce_sum(op: T.ReduceSumOp, e: Emitter) -> SSAValue:
    return sum_over_axes(e, op.input, [op.axis.value.data])


@lowers(T.ReduceMeanOp)
def lower_reduce_mean(op: T.ReduceMeanOp, e: Emitter) -> SSAValue:
    axis = op.axis.value.data
    total = sum_over_axes(e, op.input, [axis])
    return divide(e, total, shape_of(op.input)[axis])


@lowers(T.SumOp)
def lower_sum(op: T.SumOp, e: Emitter) -> SSAValue:
    return sum_over_axes(e, op.input, range(len(shape_of(op.input))))


@lowers(T.MseLossOp)
def lower_mse_loss(op: T.MseLossOp, e: Emitter) -> SSAValue:
    shape = shape_of(op.lhs)

    def squared_difference(b: Body, args: list[SSAValue]) -> SSAValue:
        d = b.sub(args[0], args[1])
        return b.mul(d, d)

    total = sum_over_axes(e, op.lhs, range(len(shape)), squared_difference, [op.rhs])
    return divide(e, total, shapes.size(shape) or 1)


def _batch_exprs(operand_batch: Sequence[int], out_batch: Sequence[int]) -> list:
    """Right-aligned batch indices; a broadcast extent-1 axis reads index 0."""
    offset = len(out_batch) - len(operand_batch)
    return [
        0 if extent == 1 and out_batch[offset + t] != 1 else dim(offset + t)
        for t, extent in enumerate(operand_batch)
    ]


@lowers(T.MatmulOp)
def lower_matmul(op: T.MatmulOp, e: Emitter) -> SSAValue:
    """docs/ops.md#matmul: Y[β,i,j] = fold over k of A·B from +0. Dims (batch…, i?, k, j?): the
    reduction k sits outside j, so the innermost loop runs along rows of B and Y
    (contiguous, independent lanes) while each output still adds its terms in
    ascending k."""
    a, b = shape_of(op.lhs), shape_of(op.rhs)
    out = shape_of(op.result)
    has_i, has_j = len(a) >= 2, len(b) >= 2
    batch = out[: len(out) - has_i - has_j]
    nb = len(batch)
    i = dim(nb) if has_i else None
    k_pos = nb + has_i
    k = dim(k_pos)
    j = dim(k_pos + 1) if has_j else None
    ndims = k_pos + 1 + has_j
    a_map = [*_batch_exprs(a[:-2], batch), i, k] if has_i else [k]
    b_map = [*_batch_exprs(b[:-2], batch), k, j] if has_j else [k]
    out_map = [*dims(range(nb)), *([i] if has_i else []), *([j] if has_j else [])]
    iterators = [PARALLEL] * k_pos + [REDUCTION] + [PARALLEL] * has_j
    return fold_sum(
        e, [op.lhs, op.rhs], [amap(ndims, a_map), amap(ndims, b_map)], out,
        amap(ndims, out_map), iterators, lambda bb, args: bb.mul(args[0], args[1]),
    )  # fmt: skip


@lowers(T.LinearOp)
def lower_linear(op: T.LinearOp, e: Emitter) -> SSAValue:
    """docs/ops.md#linear: y[o] = (fold over i of W[o,i]·x[i] from +0) + b[o]. W is first copied
    to Wᵀ [in, out]; dims (lead…, i, o) put the reduction i outside o, so the
    innermost loop runs along rows of Wᵀ and y (contiguous, independent lanes)
    while each output still adds its terms in ascending i; the bias is added
    after the fold by a third generic."""
    x = shape_of(op.input)
    lead = len(x) - 1
    out = shape_of(op.result)
    out_dim, in_dim = shape_of(op.weight)
    transposed = e.generic(
        [op.weight], [e.empty((in_dim, out_dim))], [amap(2, [dim(1), dim(0)]), identity(2)],
        [PARALLEL, PARALLEL], lambda b, args: [args[0]],
    )[0]  # fmt: skip
    ndims = lead + 2
    i, o = dim(lead), dim(lead + 1)
    x_map = amap(ndims, [*dims(range(lead)), i])
    w_map = amap(ndims, [i, o])
    out_map = amap(ndims, [*dims(range(lead)), o])
    iterators = [PARALLEL] * lead + [REDUCTION, PARALLEL]
    acc = fold_sum(
        e, [op.input, transposed], [x_map, w_map], out, out_map, iterators,
        lambda b, args: b.mul(args[1], args[0]),
    )  # fmt: skip
    rank = len(out)
    return e.generic(
        [acc, op.bias], [e.empty(out)],
        [identity(rank), amap(rank, [dim(rank - 1)]), identity(rank)],
        [PARALLEL] * rank, lambda b, args: [b.add(args[0], args[1])],
    )[0]  # fmt: skip
