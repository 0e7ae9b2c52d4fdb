"""Interval rules of `batch_norm_eval` and `layernorm` (docs/verification.md#the-rules):
per-channel or per-row statistics in small maps and folds, then one gather
per coordinate, every intermediate finite-checked into the failure flags."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from xdsl.ir import SSAValue

from tlir.dialects import tlir as T
from tlir.passes.autodiff.builder import Scalar, d, shape_of
from tlir.passes.ibp import scalar as D
from tlir.passes.ibp.elementwise import any_failed, filled
from tlir.passes.ibp.structured import directed_sum, mean_of_sums
from tlir.passes.ibp.table import Bound, Context, NoBox, Out, ibp_rule


def _gather(ctx: Context, shape, inputs: Sequence[tuple[SSAValue, list]], body, count: int):
    """An all-parallel fold over `shape`: each input read at its index
    expressions, `count` results (the accumulators are not read)."""
    values = [v for v, _ in inputs]
    maps = [m for _, m in inputs]

    def program(s: Scalar, args):
        return body(s, list(args[: len(values)]))

    return ctx.b.fold(values, maps, list(shape), [], [0.0] * count, program)


def _eps(ctx: Context, op) -> float:
    """The op's epsilon rounded to the carrier, as the forward op reads it."""
    return float(ctx.dtype.type(op.eps.value.data))


@ibp_rule(T.BatchNormEvalOp)
def _batch_norm_eval(ctx: Context, op: T.BatchNormEvalOp, boxes: Sequence[Bound]) -> Out:
    x, gamma, beta, mean, var = boxes
    eps = _eps(ctx, op)
    if not math.isfinite(eps):
        raise NoBox()

    def channel(s: Scalar, args):
        vl, vh = args[:2]
        ok = D.all_of(s, *(D.finite(s, p) for p in args))
        zero, e = s.const(0.0), s.const(eps)
        sl, sh = D.add_down(s, s.lean_max(vl, zero), e), D.add_up(s, s.lean_max(vh, zero), e)
        dl, dh, ok_sqrt = D.sqrt_bounds(s, sl, sh)
        ok = D.all_of(s, ok, D.checked(s, sl, sh), ok_sqrt, D.checked(s, dl, dh))
        return [dl, dh, D.bad(s, D.all_of(s, ok, s.cmp("ogt", dl, zero)))]

    params = [*var.pair, *gamma.pair, *beta.pair, *mean.pair]
    dl, dh, channel_flags = ctx.b.map(params, channel, 3)
    shape = shape_of(x.lo)
    everything = [d(k) for k in range(len(shape))]
    per = [d(op.channel_axis.value.data)]

    def coordinate(s: Scalar, args):
        xl, xh, ml, mh, d_lo, d_hi, gl, gh, bl, bh = args
        cl, ch = D.sub_down(s, xl, mh), D.sub_up(s, xh, ml)
        nl, nh, ok = D.div_bounds(s, cl, ch, d_lo, d_hi)
        kl, kh = D.interval_mul(s, nl, nh, gl, gh)
        lo, hi = D.add_down(s, kl, bl), D.add_up(s, kh, bh)
        ok = D.all_of(
            s, D.checked(s, cl, ch), ok, D.checked(s, nl, nh), D.checked(s, kl, kh),
            D.checked(s, lo, hi),
        )  # fmt: skip
        return [lo, hi, D.bad(s, ok)]

    inputs = [(x.lo, everything), (x.hi, everything)] + [
        (v, per) for v in (*mean.pair, dl, dh, *gamma.pair, *beta.pair)
    ]
    lo, hi, flags = _gather(ctx, shape, inputs, coordinate, 3)
    return Out(lo, hi, [any_failed(ctx, channel_flags), any_failed(ctx, flags)])


@ibp_rule(T.LayerNormOp)
def _layernorm(ctx: Context, op: T.LayerNormOp, boxes: Sequence[Bound]) -> Out:
    axis = op.axis.value.data
    shape = ctx.shape(op)
    rows, width = math.prod(shape[:axis]), math.prod(shape[axis:])
    lo, hi = (ctx.b.reshape(v, (rows, width)) for v in boxes[0].pair)
    if len(boxes) == 1 and ctx.dtype == np.float64:
        return _radius_rule(ctx, op, lo, hi, width)
    if len(boxes) == 3:
        gamma = [ctx.b.reshape(v, (width,)) for v in boxes[1].pair]
        beta = [ctx.b.reshape(v, (width,)) for v in boxes[2].pair]
    else:
        gamma = [ctx.b.filled(1.0, [width], ctx.element)] * 2
        beta = [ctx.b.filled(0.0, [width], ctx.element)] * 2
    out = _rows(ctx, lo, hi, gamma, beta, _eps(ctx, op), width)
    return Out(*(ctx.b.reshape(v, shape) for v in (out.lo, out.hi)), out.flags)


def _radius_rule(ctx: Context, op, lo: SSAValue, hi: SSAValue, width: int) -> Out:
    """Float's bound without a payload: finite inputs, then [-R, R] with
    R = nextUp(sqrt(width)) ([0, 0] for a width of 1)."""

    def body(s: Scalar, args):
        return [D.bad(s, D.checked(s, *args))]

    (flags,) = ctx.b.map([lo, hi], body, 1)
    radius = 0.0 if width <= 1 else float(np.nextafter(np.sqrt(np.float64(width)), np.inf))
    out = filled(ctx, op, -radius if radius else 0.0, radius)
    return Out(out.lo, out.hi, [any_failed(ctx, flags)])


def _rows(ctx: Context, lo, hi, gamma, beta, eps: float, width: int) -> Out:
    """Steps 1-9 of TorchLean's directed layernorm, per row."""
    if not (math.isfinite(eps) and eps > 0) or width == 0:
        raise NoBox()
    rows = shape_of(lo)[0]
    grid = (rows, width)
    rc, r_, c_ = [d(0), d(1)], [d(0)], [d(1)]
    flags = []

    def finite_flags(s: Scalar, args):
        return [D.bad(s, D.all_of(s, *(D.finite(s, v) for v in args)))]

    (f0,) = ctx.b.map([lo, hi], finite_flags, 1)
    (f1,) = ctx.b.map([*gamma, *beta], finite_flags, 1)
    flags += [any_failed(ctx, f0), any_failed(ctx, f1)]

    def mean(a, b) -> tuple[SSAValue, SSAValue]:
        m = mean_of_sums(ctx, *directed_sum(ctx, a, b, [1]), width)
        flags.extend(m.flags)
        return m.lo, m.hi

    ml, mh = mean(lo, hi)

    def centre(s: Scalar, args):
        low, high, m_lo, m_hi = args
        cl, ch = D.sub_down(s, low, m_hi), D.sub_up(s, high, m_lo)
        return [cl, ch, D.bad(s, D.checked(s, cl, ch))]

    cl, ch, f2 = _gather(ctx, grid, [(lo, rc), (hi, rc), (ml, r_), (mh, r_)], centre, 3)
    ql, qh = mean(cl, ch)

    def square(s: Scalar, args):
        c_lo, c_hi, q_lo, q_hi = args
        rl, rh = D.sub_down(s, c_lo, q_hi), D.sub_up(s, c_hi, q_lo)
        zero = s.const(0.0)
        touches = s.both(D.negate(s, s.cmp("olt", zero, rl)), D.negate(s, s.cmp("olt", rh, zero)))
        low = D.min2(s, D.mul_down(s, rl, rl), D.mul_down(s, rh, rh))
        high = D.max2(s, D.mul_up(s, rl, rl), D.mul_up(s, rh, rh))
        return [s.select(touches, zero, low), high, D.bad(s, D.checked(s, rl, rh))]

    sl, sh, f3 = _gather(ctx, grid, [(cl, rc), (ch, rc), (ql, r_), (qh, r_)], square, 3)
    vl, vh = mean(sl, sh)

    def deviation(s: Scalar, args):
        v_lo, v_hi = args
        zero, e = s.const(0.0), s.const(eps)
        tl, th = D.add_down(s, D.max2(s, v_lo, zero), e), D.add_up(s, D.max2(s, v_hi, zero), e)
        dl, dh, ok = D.sqrt_bounds(s, D.max2(s, tl, zero), D.max2(s, th, zero))
        ok = D.all_of(s, D.checked(s, tl, th), ok, D.checked(s, dl, dh), s.cmp("ogt", dl, zero))
        return [dl, dh, D.bad(s, ok)]

    dl, dh, f4 = ctx.b.map([vl, vh], deviation, 3)

    def normalise(s: Scalar, args):
        c_lo, c_hi, d_lo, d_hi, gl, gh, bl, bh = args
        yl, yh, ok = D.div_bounds(s, c_lo, c_hi, d_lo, d_hi)
        zl, zh = D.interval_mul(s, yl, yh, gl, gh)
        out_l, out_h = D.add_down(s, zl, bl), D.add_up(s, zh, bh)
        ok = D.all_of(s, ok, D.checked(s, yl, yh), D.checked(s, out_l, out_h))
        return [out_l, out_h, D.bad(s, ok)]

    inputs = [(cl, rc), (ch, rc), (dl, r_), (dh, r_)] + [(v, c_) for v in (*gamma, *beta)]
    out_l, out_h, f5 = _gather(ctx, grid, inputs, normalise, 3)
    flags += [any_failed(ctx, f) for f in (f2, f3, f4, f5)]
    return Out(out_l, out_h, flags)
