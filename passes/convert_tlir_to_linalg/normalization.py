"""Normalization and softmax (docs/ops.md: batch_norm_eval, softmax,
hard_masked_softmax, layernorm), step by step as the docs state them: each
statistic a fold from +0 along the normalized axes."""

from __future__ import annotations

import math

from xdsl.dialects import arith
from xdsl.dialects import math as math_ops
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, IntegerType
from xdsl.ir import SSAValue

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
from tlir.passes.convert_tlir_to_linalg.reductions import divide, fold_sum, sum_over_axes
from tlir.passes.convert_tlir_to_linalg.registry import lowers


def _dropping(rank: int, axes: set[int]):
    """The map from the full iteration space to a tensor without `axes`."""
    return amap(rank, dims([a for a in range(rank) if a not in axes]))


def _keeping(rank: int, axes: list[int]):
    return amap(rank, dims(axes))


@lowers(T.BatchNormEvalOp)
def lower_batch_norm_eval(op: T.BatchNormEvalOp, e: Emitter) -> SSAValue:
    """y = ((x − mean) / sqrt(max(max(var, 0) + eps, 0))) · gamma + beta."""
    shape = shape_of(op.input)
    rank = len(shape)
    channel = _keeping(rank, [op.channel_axis.value.data])
    eps = op.eps.value.data

    def body(b: Body, args: list[SSAValue]) -> list[SSAValue]:
        x, gamma, beta, mean, var = args[:5]
        variance = b.clamp_at_zero(var)
        std = b(math_ops.SqrtOp(b.clamp_at_zero(b.add(variance, b.const(eps)))))
        return [b.add(b.mul(b.div(b.sub(x, mean), std), gamma), beta)]

    inputs = [op.input, op.gamma, op.beta, op.mean, op.var]
    maps = [identity(rank), channel, channel, channel, channel, identity(rank)]
    return e.generic(inputs, [e.empty(shape)], maps, [PARALLEL] * rank, body)[0]


@lowers(T.SoftmaxOp)
def lower_softmax(op: T.SoftmaxOp, e: Emitter) -> SSAValue:
    """m = fold of Lean's max from x₀; e = exp(x − m); y = e / fold-sum(e)."""
    x = op.input
    shape = shape_of(x)
    rank, axis = len(shape), op.axis.value.data
    if shape[axis] == 0:
        return x
    reduced = [n for a, n in enumerate(shape) if a != axis]
    drop = _dropping(rank, {axis})
    iterators = [REDUCTION if a == axis else PARALLEL for a in range(rank)]

    first_index = [dim(a - (a > axis)) if a != axis else 0 for a in range(rank)]
    first = e.generic(
        [x],
        [e.empty(reduced)],
        [amap(rank - 1, first_index), identity(rank - 1)],
        [PARALLEL] * (rank - 1),
        lambda b, args: [args[0]],
    )[0]
    maximum = e.generic(
        [x],
        [first],
        [identity(rank), drop],
        iterators,
        lambda b, args: [b.lean_max(args[1], args[0])],
    )[0]
    exps = e.generic(
        [x, maximum],
        [e.empty(shape)],
        [identity(rank), drop, identity(rank)],
        [PARALLEL] * rank,
        lambda b, args: [b.exp(b.sub(args[0], args[1]))],
    )[0]
    total = sum_over_axes(e, exps, [axis])
    return e.generic(
        [exps, total],
        [e.empty(shape)],
        [identity(rank), drop, identity(rank)],
        [PARALLEL] * rank,
        lambda b, args: [b.div(args[0], args[1])],
    )[0]


@lowers(T.HardMaskedSoftmaxOp)
def lower_hard_masked_softmax(op: T.HardMaskedSoftmaxOp, e: Emitter) -> SSAValue:
    """Softmax over the last axis restricted to allowed entries; a row with no
    allowed entry is all 0; blocked entries are exactly 0."""
    x = op.input
    shape = shape_of(x)
    rank = len(shape)
    if rank == 0:
        allowed = bool(op.mask.get_values()[0])
        value = DenseIntOrFPElementsAttr.from_list(e.tensor_type(()), [1.0 if allowed else 0.0])
        return e.add(arith.ConstantOp(value))
    mask = e.add(arith.ConstantOp(op.mask))
    rows = shape[:-1]
    drop = _dropping(rank, {rank - 1})
    best = e.filled(rows, 0.0)
    seen = e.filled(rows, False, IntegerType(1))

    def row_max(b: Body, args: list[SSAValue]) -> list[SSAValue]:
        value, allowed, current, was_seen = args
        unseen = b(arith.XOrIOp(was_seen, b.bool(True)))
        take = b(arith.AndIOp(allowed, b(arith.OrIOp(unseen, b.cmp("ogt", value, current)))))
        return [b.select(take, value, current), b(arith.OrIOp(was_seen, allowed))]

    iterators = [PARALLEL] * (rank - 1) + [REDUCTION]
    maximum, any_allowed = e.generic(
        [x, mask], [best, seen], [identity(rank), identity(rank), drop, drop], iterators, row_max
    )

    def numerator(b: Body, args: list[SSAValue]) -> list[SSAValue]:
        value, allowed, m = args[:3]
        return [b.select(allowed, b.exp(b.sub(value, m)), b.const(0.0))]

    nums = e.generic(
        [x, mask, maximum],
        [e.empty(shape)],
        [identity(rank), identity(rank), drop, identity(rank)],
        [PARALLEL] * rank,
        numerator,
    )[0]
    total = sum_over_axes(e, nums, [rank - 1])

    def normalize(b: Body, args: list[SSAValue]) -> list[SSAValue]:
        num, tot, row_seen = args[:3]
        return [b.select(row_seen, b.div(num, tot), b.const(0.0))]

    return e.generic(
        [nums, total, any_allowed],
        [e.empty(shape)],
        [identity(rank), drop, drop, identity(rank)],
        [PARALLEL] * rank,
        normalize,
    )[0]


@lowers(T.LayerNormOp)
def lower_layernorm(op: T.LayerNormOp, e: Emitter) -> SSAValue:
    """docs/ops.md#layernorm:
    μ = Σx/N; c = x − μ; μ₂ = Σc/N; v = Σ(c − μ₂)²/N; σ = sqrt(max(max(v,0)+ε, 0));
    y = (c/σ)·γ + β; every Σ a fold from +0 over the axes from `axis` on, row-major."""
    x = op.input
    shape = shape_of(x)
    rank, axis = len(shape), op.axis.value.data
    norm_axes = list(range(axis, rank))
    count = math.prod(shape[axis:])
    rows = amap(rank, dims(range(axis)))
    full = identity(rank)

    mean = divide(e, sum_over_axes(e, x, norm_axes), count)
    centred = e.generic(
        [x, mean],
        [e.empty(shape)],
        [full, rows, full],
        [PARALLEL] * rank,
        lambda b, args: [b.sub(args[0], args[1])],
    )[0]
    mean2 = divide(e, sum_over_axes(e, centred, norm_axes), count)
    iterators = [PARALLEL] * axis + [REDUCTION] * (rank - axis)

    def squared_deviation(b: Body, args: list[SSAValue]) -> SSAValue:
        deviation = b.sub(args[0], args[1])
        return b.mul(deviation, deviation)

    sum_sq = fold_sum(
        e, [centred, mean2], [full, rows], shape[:axis], rows, iterators, squared_deviation
    )
    variance = divide(e, sum_sq, count)
    eps = op.eps.value.data

    def sigma(b: Body, args: list[SSAValue]) -> list[SSAValue]:
        v = b.clamp_at_zero(args[0])
        return [b(math_ops.SqrtOp(b.clamp_at_zero(b.add(v, b.const(eps)))))]

    std = e.elementwise([variance], shape[:axis], sigma)
    inputs, maps = [centred, std], [full, rows]
    affine = op.gamma is not None and op.beta is not None
    if affine:
        params = amap(rank, dims(norm_axes))
        inputs, maps = [*inputs, op.gamma, op.beta], [*maps, params, params]

    def normalize(b: Body, args: list[SSAValue]) -> list[SSAValue]:
        y = b.div(args[0], args[1])
        if affine:
            y = b.add(b.mul(y, args[2]), args[3])
        return [y]

    return e.generic(inputs, [e.empty(shape)], [*maps, full], [PARALLEL] * rank, normalize)[0]
