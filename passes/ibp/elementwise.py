"""Interval rules of the leaves, index moves and elementwise ops: a forward op
on each end, a constant box, or one `tlir_ad.map` of the directed program."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects import math
from xdsl.ir import Operation, SSAValue

from tlir.dialects import tlir as T
from tlir.passes.autodiff.builder import Scalar, shape_of
from tlir.passes.ibp import scalar as D
from tlir.passes.ibp.table import Bound, Context, NoRule, Out, Twin, ibp_rule


def any_failed(ctx: Context, flags: SSAValue) -> SSAValue:
    """A rank-0 flag: the sum of the 0/1 flags (nonzero if one failed)."""
    if not shape_of(flags):
        return flags
    return ctx.b.tlir(T.SumOp, [flags], [])


def filled(ctx: Context, op: Operation, lo: float, hi: float) -> Out:
    shape = ctx.shape(op)
    return Out(ctx.b.filled(lo, shape, ctx.element), ctx.b.filled(hi, shape, ctx.element))


def checked_map(ctx: Context, inputs: Sequence[SSAValue], body) -> Out:
    """A map whose body returns (lo, hi, ok): the box and its failure flag."""

    def program(s: Scalar, args):
        lo, hi, ok = body(s, args)
        return [lo, hi, D.bad(s, ok)]

    lo, hi, flags = ctx.b.map(list(inputs), program, 3)
    return Out(lo, hi, [any_failed(ctx, flags)])


def pair_map(ctx: Context, inputs: Sequence[SSAValue], body) -> Out:
    lo, hi = ctx.b.map(list(inputs), lambda s, args: list(body(s, args)), 2)
    return Out(lo, hi)


@ibp_rule(T.ConstOp)
def _const(ctx: Context, op: T.ConstOp, boxes: Sequence[Bound]) -> Out:
    value = ctx.b.add(op.clone()).results[0]
    return Out(value, value)


@ibp_rule(T.RandUniformOp, T.BernoulliMaskOp, reads_operands=False)
def _random(ctx: Context, op: Operation, boxes: Sequence[Bound]) -> Out:
    return filled(ctx, op, 0.0, 1.0)


@ibp_rule(
    T.DetachOp, T.ReshapeOp, T.FlattenOp, T.PermuteOp, T.TransposeOp, T.BroadcastToOp,
    T.ConcatOp, T.MaxElemOp, T.MinElemOp,
)  # fmt: skip
def forward_on_ends(ctx: Context, op: Operation, boxes: Sequence[Bound]) -> Out:
    """The forward op on each end: exact and monotone (index moves, max_pool,
    Lean's max/min, relu)."""
    ends = []
    for end in (0, 1):
        mapping = {v: box.pair[end] for v, box in zip(op.operands, boxes, strict=True)}
        ends.append(ctx.b.add(op.clone(value_mapper=mapping)).results[0])
    return Out(*ends)


@ibp_rule(T.ReluOp)
def _relu(ctx: Context, op: Operation, boxes: Sequence[Bound]) -> Out:
    """relu on each end; a box also held stacked (`table.Twin`) keeps that
    layout too (one relu of both ends); whichever of the two nothing reads is
    dropped (`drop_bypassed`)."""
    out = forward_on_ends(ctx, op, boxes)
    twin = ctx.twin(boxes[0])
    if twin is not None:
        stacked = ctx.b.tlir(T.ReluOp, [twin.stacked], shape_of(twin.stacked))
        ctx.twins[out.lo] = Twin(stacked, twin.ordered, out.hi)
        ctx.bypassed += [out.lo.owner, out.hi.owner, stacked.owner]  # type: ignore[list-item]
    return out


@ibp_rule(T.AddOp)
def _add(ctx, op, boxes):
    (xl, xh), (yl, yh) = (b.pair for b in boxes)
    return pair_map(
        ctx, [xl, yl, xh, yh], lambda s, a: (D.add_down(s, a[0], a[1]), D.add_up(s, a[2], a[3]))
    )


@ibp_rule(T.SubOp)
def _sub(ctx, op, boxes):
    (xl, xh), (yl, yh) = (b.pair for b in boxes)
    return pair_map(
        ctx, [xl, yh, xh, yl], lambda s, a: (D.sub_down(s, a[0], a[1]), D.sub_up(s, a[2], a[3]))
    )


@ibp_rule(T.MulElemOp)
def _mul_elem(ctx, op, boxes):
    (xl, xh), (yl, yh) = (b.pair for b in boxes)
    return pair_map(ctx, [xl, xh, yl, yh], lambda s, a: D.interval_mul(s, *a))


@ibp_rule(T.AbsOp)
def _abs(ctx, op, boxes):
    def body(s: Scalar, args):
        lo, hi = args
        al, au = s(math.AbsFOp(lo)), s(math.AbsFOp(hi))
        zero = s.const(0.0)
        straddles = s.both(s.cmp("olt", lo, zero), s.cmp("olt", zero, hi))
        low = s.select(straddles, zero, s.select(s.cmp("olt", al, au), al, au))
        return low, s.select(s.cmp("ogt", al, au), al, au)

    return pair_map(ctx, boxes[0].pair, body)


@ibp_rule(T.SqrtOp)
def _sqrt(ctx, op, boxes):
    return checked_map(ctx, boxes[0].pair, lambda s, a: D.sqrt_bounds(s, *a))


@ibp_rule(T.InvOp)
def _inv(ctx, op, boxes):
    def body(s: Scalar, args):
        one = s.const(1.0)
        return D.div_bounds(s, one, one, *args)

    return checked_map(ctx, boxes[0].pair, body)


@ibp_rule(T.ExpOp, T.LogOp)
def _no_rule(ctx, op, boxes):
    raise NoRule()


@ibp_rule(T.TanhOp, T.SigmoidOp)
def _squashing(ctx, op, boxes):
    if ctx.dtype == np.float32:
        raise NoRule()
    return filled(ctx, op, -1.0 if isinstance(op, T.TanhOp) else 0.0, 1.0)


@ibp_rule(T.SinOp, T.CosOp)
def _periodic(ctx, op, boxes):
    return filled(ctx, op, -1.0, 1.0)


def softplus_bounds(s: Scalar, lo: SSAValue, hi: SSAValue) -> tuple[SSAValue, SSAValue]:
    zero = s.const(0.0)
    return D.max2(s, lo, zero), D.add_up(s, D.max2(s, hi, zero), s.const(1.0))


@ibp_rule(T.SoftplusOp)
def _softplus(ctx, op, boxes):
    return pair_map(ctx, boxes[0].pair, lambda s, a: softplus_bounds(s, *a))


@ibp_rule(T.SafeLogOp)
def _safe_log(ctx, op, boxes):
    def body(s: Scalar, args):
        lo, hi, el, eh = args
        sl, sh = softplus_bounds(s, lo, hi)
        zl, zh = D.add_down(s, sl, el), D.add_up(s, sh, eh)
        one = s.const(1.0)
        _, r, _ = D.div_bounds(s, one, one, zl, zh)
        return D.sub_down(s, one, r), D.sub_up(s, zh, one), s.cmp("ogt", zl, s.const(0.0))

    return checked_map(ctx, [*boxes[0].pair, *boxes[1].pair], body)


@ibp_rule(T.SoftmaxOp)
def _softmax(ctx, op, boxes):
    single = ctx.shape(op)[op.axis.value.data] == 1
    return filled(ctx, op, 1.0 if single else 0.0, 1.0)


@ibp_rule(T.HardMaskedSoftmaxOp)
def _hard_masked_softmax(ctx, op, boxes):
    shape = ctx.shape(op)
    allowed = np.array(op.mask.get_values(), bool).reshape(shape)
    if allowed.ndim == 0:
        lo = hi = allowed.astype(ctx.dtype)
    else:
        alone = allowed & (allowed.sum(axis=-1, keepdims=True) == 1)
        lo, hi = alone.astype(ctx.dtype), allowed.astype(ctx.dtype)
    return Out(ctx.b.array(lo, ctx.element), ctx.b.array(hi, ctx.element))


def zero_starts(ctx: Context, shape: Sequence[int]) -> list[SSAValue]:
    """Two tensors of +0 to start a fold's two results from: a rank-1 constant
    row broadcast along the last axis. Its fill in the fold's kernel becomes
    whole-vector stores; a broadcast rank-0 constant's did not (LLVM unrolled
    the short last loop and vectorised the one around it with scatters: 131k
    scattered stores before the first conv's sums in f32)."""
    if not shape:
        return [ctx.b.const(0.0, [], ctx.element) for _ in range(2)]
    row = ctx.b.const(0.0, [shape[-1]], ctx.element)
    return [ctx.b.tlir(T.BroadcastToOp, [row], list(shape)) for _ in range(2)]
