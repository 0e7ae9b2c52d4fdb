"""One interval rule per tlir op (docs/verification.md#the-rules), in
TorchLean's order of operations.

A rule takes the op, its operands' boxes and the carrier dtype and returns the
result's `(lo, hi)`; it raises `NoBox` where TorchLean's rule gives none on
these values and `NoRule` where the carrier has no rule at all (`exp` on
`Float`). Parameters are operands: where TorchLean reads a point parameter `w`
the rule reads its box `[wl, wh]` through the interval form of the same
operation (`interval_mul(l, h, w, w)` is `min2(mulDown(l, w), mulDown(h, w))`
bit for bit), so a constant parameter gives TorchLean's bits.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence

import numpy as np
from xdsl.ir import Operation

from tlir.dense import dense_to_numpy
from tlir.dialects import tlir as T
from tlir.optable import OpTable
from tlir.reference import ops as F
from tlir.reference.carrier import cmax
from tlir.reference.interval import (
    Box,
    NoBox,
    add_down,
    add_up,
    checked,
    div_bounds,
    fold,
    interval_mul,
    max2,
    min2,
    mul_down,
    mul_up,
    require,
    row_mean,
    sqrt_bounds,
    sub_down,
    sub_up,
)


class NoRule(Exception):
    """The carrier has no interval rule for this op."""


class Rule:
    """A rule function; `reads_operands=False` for rules that ignore their
    parents (random ops), which then resolve even when a parent does not."""

    def __init__(self, function: Callable, reads_operands: bool = True):
        self.function = function
        self.reads_operands = reads_operands

    def __call__(self, op: Operation, boxes: Sequence[Box], dtype: np.dtype) -> Box:
        return self.function(op, boxes, dtype)


IBP_RULES: OpTable[Rule] = OpTable("reference interval rule")


def rule(*op_classes, reads_operands: bool = True):
    def decorate(function):
        for op_class in op_classes:
            IBP_RULES.add(op_class, Rule(function, reads_operands))
        return function

    return decorate


def _shape(op: Operation) -> tuple[int, ...]:
    return tuple(op.results[0].type.get_shape())


def _filled(op: Operation, dtype, lo: float, hi: float) -> Box:
    return np.full(_shape(op), lo, dtype), np.full(_shape(op), hi, dtype)


# --- leaves and pass-through ------------------------------------------------------


@rule(T.ConstOp)
def _const(op, boxes, dtype):
    value = dense_to_numpy(op.value)
    return value, value.copy()


@rule(T.RandUniformOp, T.BernoulliMaskOp, reads_operands=False)
def _random(op, boxes, dtype):
    return _filled(op, dtype, 0.0, 1.0)


def _forward(evaluate: Callable) -> Callable:
    """The forward op on each end (exact index moves, max_pool, Lean's max/min)."""

    def apply(op, boxes, dtype):
        return (
            evaluate(op, [b[0] for b in boxes]),
            evaluate(op, [b[1] for b in boxes]),
        )

    return apply


for _op_class in (
    T.DetachOp, T.ReshapeOp, T.FlattenOp, T.PermuteOp, T.TransposeOp, T.BroadcastToOp,
    T.ConcatOp, T.MaxPoolOp, T.MaxElemOp, T.MinElemOp, T.ReluOp,
):  # fmt: skip
    IBP_RULES.add(_op_class, Rule(_forward(F.EVALUATORS[_op_class])))


# --- elementwise ------------------------------------------------------------------


@rule(T.AddOp)
def _add(op, boxes, dtype):
    (xl, xh), (yl, yh) = boxes
    return add_down(xl, yl), add_up(xh, yh)


@rule(T.SubOp)
def _sub(op, boxes, dtype):
    (xl, xh), (yl, yh) = boxes
    return sub_down(xl, yh), sub_up(xh, yl)


@rule(T.MulElemOp)
def _mul_elem(op, boxes, dtype):
    (xl, xh), (yl, yh) = boxes
    return interval_mul(xl, xh, yl, yh)


@rule(T.AbsOp)
def _abs(op, boxes, dtype):
    ((lo, hi),) = boxes
    al, au = np.abs(lo), np.abs(hi)
    straddles = (lo < 0) & (hi > 0)
    return np.where(straddles, dtype.type(0), np.where(al < au, al, au)), np.where(al > au, al, au)


@rule(T.SqrtOp)
def _sqrt(op, boxes, dtype):
    ((lo, hi),) = boxes
    low, high, ok = sqrt_bounds(lo, hi)
    require(ok)
    return low, high


@rule(T.InvOp)
def _inv(op, boxes, dtype):
    ((lo, hi),) = boxes
    one = np.ones_like(lo)
    low, high, ok = div_bounds(one, one, lo, hi)
    require(ok)
    return low, high


@rule(T.ExpOp, T.LogOp)
def _no_rule(op, boxes, dtype):
    raise NoRule()


@rule(T.TanhOp, T.SigmoidOp)
def _squashing(op, boxes, dtype):
    """The codomain on Float; Float32 has no rule."""
    if dtype == np.float32:
        raise NoRule()
    return _filled(op, dtype, -1.0 if isinstance(op, T.TanhOp) else 0.0, 1.0)


@rule(T.SinOp, T.CosOp)
def _periodic(op, boxes, dtype):
    return _filled(op, dtype, -1.0, 1.0)


def softplus_bounds(lo, hi) -> Box:
    """`max x 0 ≤ softplus x ≤ max x 0 + 1`, with max2."""
    zero, one = lo.dtype.type(0), lo.dtype.type(1)
    return max2(lo, zero), add_up(max2(hi, zero), one)


@rule(T.SoftplusOp)
def _softplus(op, boxes, dtype):
    return softplus_bounds(*boxes[0])


@rule(T.SafeLogOp)
def _safe_log(op, boxes, dtype):
    """Float has no log rule: `1 − 1/z ≤ log z ≤ z − 1` on z = softplus(x) + eps."""
    (lo, hi), (el, eh) = boxes
    sl, sh = softplus_bounds(lo, hi)
    zl, zh = add_down(sl, el[()]), add_up(sh, eh[()])
    require(zl > 0)
    one = dtype.type(1)
    _, r, _ = div_bounds(one, one, zl, zh)
    return sub_down(one, r), sub_up(zh, one)


# --- reductions ---------------------------------------------------------------------


@rule(T.SumOp)
def _sum(op, boxes, dtype):
    ((lo, hi),) = boxes
    return fold(lo.reshape(-1), hi.reshape(-1), 0)


@rule(T.ReduceSumOp)
def _reduce_sum(op, boxes, dtype):
    ((lo, hi),) = boxes
    return fold(lo, hi, op.axis.value.data)


@rule(T.ReduceMeanOp)
def _reduce_mean(op, boxes, dtype):
    ((lo, hi),) = boxes
    return row_mean(lo, hi, op.axis.value.data)


def square_bounds(lo, hi) -> Box:
    """The exact case split of `x²` with directed products."""
    zero = lo.dtype.type(0)
    l2, u2 = mul_down(lo, lo), mul_down(hi, hi)
    low = np.where((lo < 0) & (hi > 0), zero, np.where(l2 < u2, l2, u2))
    lu, uu = mul_up(lo, lo), mul_up(hi, hi)
    return low, np.where(lu > uu, lu, uu)


@rule(T.MseLossOp)
def _mse_loss(op, boxes, dtype):
    (yl, yh), (tl, th) = boxes
    low, high = square_bounds(sub_down(yl, th), sub_up(yh, tl))
    return row_mean(low.reshape(-1), high.reshape(-1), 0)


# --- linear maps ----------------------------------------------------------------------


def _dot(x: Box, w: Box, axis_x: int, axis_w: int) -> Box:
    """Directed sums from (0, 0) of `interval_mul(x, w)` terms along the paired axes."""
    (xl, xh), (wl, wh) = x, w
    xl, xh = np.moveaxis(xl, axis_x, 0), np.moveaxis(xh, axis_x, 0)
    wl, wh = np.moveaxis(wl, axis_w, 0), np.moveaxis(wh, axis_w, 0)
    acc_lo = acc_hi = None
    for k in range(xl.shape[0]):
        tl, th = interval_mul(xl[k], xh[k], wl[k], wh[k])
        if acc_lo is None:
            acc_lo = np.zeros(np.broadcast_shapes(tl.shape), tl.dtype)
            acc_hi = np.zeros_like(acc_lo)
        acc_lo, acc_hi = add_down(acc_lo, tl), add_up(acc_hi, th)
    return acc_lo, acc_hi


@rule(T.LinearOp)
def _linear(op, boxes, dtype):
    """Per row: acc from 0 over the columns, `min2`/`max2` of the endpoint
    products, then the bias; a leading batch row by row."""
    (xl, xh), (wl, wh), (bl, bh) = boxes
    out_shape = _shape(op)
    if xl.shape[-1] == 0:
        acc = np.zeros(out_shape, dtype)
        return add_down(acc, bl), add_up(acc.copy(), bh)
    acc_lo, acc_hi = _dot((xl[..., np.newaxis, :], xh[..., np.newaxis, :]), (wl, wh), -1, -1)
    return add_down(acc_lo, bl), add_up(acc_hi, bh)


@rule(T.MatmulOp)
def _matmul(op, boxes, dtype):
    (al, ah), (bl, bh) = boxes
    a2 = (al[np.newaxis, :], ah[np.newaxis, :]) if al.ndim == 1 else (al, ah)
    b2 = (bl[:, np.newaxis], bh[:, np.newaxis]) if bl.ndim == 1 else (bl, bh)
    batch = np.broadcast_shapes(a2[0].shape[:-2], b2[0].shape[:-2])
    m, n, p = a2[0].shape[-2], a2[0].shape[-1], b2[0].shape[-1]
    acc_lo = np.zeros(batch + (m, p), dtype)
    acc_hi = np.zeros(batch + (m, p), dtype)
    for k in range(n):
        tl, th = interval_mul(
            a2[0][..., :, k, np.newaxis], a2[1][..., :, k, np.newaxis],
            b2[0][..., np.newaxis, k, :], b2[1][..., np.newaxis, k, :],
        )  # fmt: skip
        acc_lo, acc_hi = add_down(acc_lo, tl), add_up(acc_hi, th)
    return acc_lo.reshape(_shape(op)), acc_hi.reshape(_shape(op))


@rule(T.ConvOp)
def _conv(op, boxes, dtype):
    """Per output, local input channel outermost, kernel cells row-major: a
    cell in the padding before the input adds no term, one after it a zero term."""
    (xl, xh), (wl, wh), (bl, bh) = boxes
    cfg = op.config
    axis = cfg.channel_axis
    out_shape = _shape(op)
    out_spatial = out_shape[axis + 1 :]
    pad = F.conv_padding(cfg)
    pl, ph = np.pad(xl, pad), np.pad(xh, pad)
    in_per_group = cfg.in_channels // cfg.groups
    group_base = (np.arange(cfg.out_channels) // (cfg.out_channels // cfg.groups)) * in_per_group
    lead = (slice(None),) * axis
    spread = (slice(None),) + (np.newaxis,) * len(out_spatial)
    acc_lo, acc_hi = np.zeros(out_shape, dtype), np.zeros(out_shape, dtype)
    for local in range(in_per_group):
        channels = group_base + local
        for offset in itertools.product(*(range(k) for k in cfg.kernel)):
            window = tuple(
                slice(w * d, w * d + (o - 1) * s + 1, s) if o else slice(0, 0)
                for w, d, s, o in zip(offset, cfg.dilation, cfg.stride, out_spatial, strict=True)
            )
            skip = np.zeros(out_spatial, bool)
            for a, (w, d, s, o) in enumerate(
                zip(offset, cfg.dilation, cfg.stride, out_spatial, strict=True)
            ):
                q = np.arange(o) * s + w * d
                shape = [1] * len(out_spatial)
                shape[a] = o
                skip = skip | (q < cfg.padding[a]).reshape(shape)
            taps = (np.arange(cfg.out_channels), channels) + offset
            tl, th = interval_mul(
                pl[lead + (channels,) + window], ph[lead + (channels,) + window],
                wl[taps][spread], wh[taps][spread],
            )  # fmt: skip
            acc_lo = np.where(skip, acc_lo, add_down(acc_lo, tl))
            acc_hi = np.where(skip, acc_hi, add_up(acc_hi, th))
    return add_down(acc_lo, bl[spread]), add_up(acc_hi, bh[spread])


# --- pooling --------------------------------------------------------------------------


@rule(T.AvgPoolOp)
def _avg_pool(op, boxes, dtype):
    """The directed mean of the window's cells, padding cells [0, 0] and counted."""
    ((lo, hi),) = boxes
    shape = _shape(op)
    cells_lo = [v for v, _ in F.window_cells(lo, op, shape)]
    cells_hi = [v for v, _ in F.window_cells(hi, op, shape)]
    return row_mean(np.stack(cells_lo, -1), np.stack(cells_hi, -1), -1)


# --- normalisation and softmax --------------------------------------------------------


@rule(T.SoftmaxOp)
def _softmax(op, boxes, dtype):
    single = _shape(op)[op.axis.value.data] == 1
    return _filled(op, dtype, 1.0 if single else 0.0, 1.0)


@rule(T.HardMaskedSoftmaxOp)
def _hard_masked_softmax(op, boxes, dtype):
    allowed = np.array(op.mask.get_values(), bool).reshape(_shape(op))
    if allowed.ndim == 0:
        value = dtype.type(1 if allowed[()] else 0)
        return np.asarray(value), np.asarray(value)
    alone = allowed & (allowed.sum(axis=-1, keepdims=True) == 1)
    return np.where(alone, 1, 0).astype(dtype), np.where(allowed, 1, 0).astype(dtype)


@rule(T.BatchNormEvalOp)
def _batch_norm_eval(op, boxes, dtype):
    (xl, xh), gamma, beta, mean, var = boxes
    eps = dtype.type(op.eps.value.data)
    require(checked(np.asarray(eps), np.asarray(eps)))
    for low, high in (gamma, beta, mean, var):
        require((low - low == 0) & (high - high == 0))
    zero = dtype.type(0)
    s_lo, s_hi = add_down(cmax(var[0], zero), eps), add_up(cmax(var[1], zero), eps)
    require(checked(s_lo, s_hi))
    d_lo, d_hi, ok = sqrt_bounds(s_lo, s_hi)
    require(ok & checked(d_lo, d_hi) & (d_lo > 0))
    spread = (slice(None),) + (np.newaxis,) * (xl.ndim - op.channel_axis.value.data - 1)

    def per(values):
        return values[spread]

    c_lo, c_hi = sub_down(xl, per(mean[1])), sub_up(xh, per(mean[0]))
    require(checked(c_lo, c_hi))
    n_lo, n_hi, ok = div_bounds(c_lo, c_hi, per(d_lo), per(d_hi))
    require(ok & checked(n_lo, n_hi))
    k_lo, k_hi = interval_mul(n_lo, n_hi, per(gamma[0]), per(gamma[1]))
    require(checked(k_lo, k_hi))
    out_lo, out_hi = add_down(k_lo, per(beta[0])), add_up(k_hi, per(beta[1]))
    require(checked(out_lo, out_hi))
    return out_lo, out_hi


@rule(T.LayerNormOp)
def _layernorm(op, boxes, dtype):
    axis = op.axis.value.data
    shape = _shape(op)
    rows = int(np.prod(shape[:axis], dtype=np.int64))
    width = int(np.prod(shape[axis:], dtype=np.int64))
    lo, hi = (b.reshape(rows, width) for b in boxes[0])
    eps = dtype.type(op.eps.value.data)
    if len(boxes) == 1 and dtype == np.float64:
        # Float's layerNormAbsBound: |y| ≤ nextUp(sqrt(width)) for finite inputs.
        require(checked(lo, hi))
        if width <= 1:
            return _filled(op, dtype, 0.0, 0.0)
        radius = np.nextafter(np.sqrt(dtype.type(width)), dtype.type(np.inf))
        return _filled(op, dtype, -radius, radius)
    if len(boxes) == 3:
        gamma = tuple(b.reshape(width) for b in boxes[1])
        beta = tuple(b.reshape(width) for b in boxes[2])
    else:
        one, zero = np.ones(width, dtype), np.zeros(width, dtype)
        gamma, beta = (one, one), (zero, zero)
    out = layernorm_rows(lo, hi, gamma, beta, eps)
    return out[0].reshape(shape), out[1].reshape(shape)


def layernorm_rows(lo, hi, gamma: Box, beta: Box, eps) -> Box:
    """TorchLean's directed layernorm of each row (steps 1-9 of docs/verification.md)."""
    zero = lo.dtype.type(0)
    require(checked(np.asarray(eps), np.asarray(eps)) & (eps > 0))
    require((lo - lo == 0) & (hi - hi == 0))
    for low, high in (gamma, beta):
        require((low - low == 0) & (high - high == 0))
    m_lo, m_hi = row_mean(lo, hi, 1)
    c_lo, c_hi = sub_down(lo, m_hi[:, None]), sub_up(hi, m_lo[:, None])
    require(checked(c_lo, c_hi))
    q_lo, q_hi = row_mean(c_lo, c_hi, 1)
    r_lo, r_hi = sub_down(c_lo, q_hi[:, None]), sub_up(c_hi, q_lo[:, None])
    require(checked(r_lo, r_hi))
    touches = ~(r_lo > 0) & ~(r_hi < 0)
    s_lo = np.where(touches, zero, min2(mul_down(r_lo, r_lo), mul_down(r_hi, r_hi)))
    s_hi = max2(mul_up(r_lo, r_lo), mul_up(r_hi, r_hi))
    v_lo, v_hi = row_mean(s_lo, s_hi, 1)
    t_lo, t_hi = add_down(max2(v_lo, zero), eps), add_up(max2(v_hi, zero), eps)
    require(checked(t_lo, t_hi))
    d_lo, d_hi, ok = sqrt_bounds(max2(t_lo, zero), max2(t_hi, zero))
    require(ok & checked(d_lo, d_hi) & (d_lo > 0))
    y_lo, y_hi, ok = div_bounds(c_lo, c_hi, d_lo[:, None], d_hi[:, None])
    require(ok & checked(y_lo, y_hi))
    z_lo, z_hi = interval_mul(y_lo, y_hi, gamma[0], gamma[1])
    out_lo, out_hi = add_down(z_lo, beta[0]), add_up(z_hi, beta[1])
    require(checked(out_lo, out_hi))
    return out_lo, out_hi


__all__ = ["IBP_RULES", "NoBox", "NoRule", "layernorm_rows"]
