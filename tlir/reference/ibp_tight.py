"""The tight rules of the transcendental ops (docs/verification.md#tight-rules).

Each monotone function is the C library's at the endpoints (the forward
evaluator's own calls), widened outward by the library's documented error
(`tlir.tight.steps`) and clamped to the function's range; the composite ops
(`sigmoid`, `softplus`, `safe_log`, `softmax`) are built from those pieces
in directed arithmetic in the forward's order. A NaN end, or a `log` of a box
reaching below 0, leaves the node unresolved. `tlir.passes.ibp.tight` emits
the same programs step for step; the tests hold them bit-identical.
"""

from __future__ import annotations

import numpy as np

from tlir.dialects import tlir as T
from tlir.optable import OpTable
from tlir.reference.carrier import libm
from tlir.reference.ibp_rules import Rule, softplus_bounds
from tlir.reference.interval import (
    Box,
    add_down,
    add_up,
    div_bounds,
    down,
    fold,
    require,
    sub_down,
    sub_up,
    up,
)
from tlir.tight import steps

TIGHT_RULES: OpTable[Rule] = OpTable("reference tight interval rule")


def tight_rule(*op_classes):
    def decorate(function):
        for op_class in op_classes:
            TIGHT_RULES.add(op_class, Rule(function))
        return function

    return decorate


def _widened(name: str, x: np.ndarray, step) -> np.ndarray:
    value = libm(name, np.asarray(x))
    for _ in range(steps(name, value.dtype)):
        value = step(value)
    return value


def exp_down(x):
    """A lower bound of exp(x): exact 1 at 0, never below 0."""
    x = np.asarray(x)
    low = np.where(x == 0, x.dtype.type(1), _widened("exp", x, down))
    return np.where(low < 0, x.dtype.type(0), low)


def exp_up(x):
    x = np.asarray(x)
    return np.where(x == 0, x.dtype.type(1), _widened("exp", x, up))


def log_down(x):
    """A lower bound of log(x) for x ≥ 0: exact 0 at 1."""
    x = np.asarray(x)
    return np.where(x == 1, x.dtype.type(0), _widened("log", x, down))


def log_up(x):
    x = np.asarray(x)
    return np.where(x == 1, x.dtype.type(0), _widened("log", x, up))


def div_down(a, b):
    return div_bounds(a, a, b, b)[0]


def div_up(a, b):
    return div_bounds(a, a, b, b)[1]


def no_nan(lo, hi) -> Box:
    require(~np.isnan(lo) & ~np.isnan(hi))
    return lo, hi


def clamp(lo, hi, low: float, high: float) -> Box:
    """Both ends into the function's range (NaN kept, for `no_nan`)."""
    dtype = lo.dtype.type
    return np.where(lo < low, dtype(low), lo), np.where(hi > high, dtype(high), hi)


@tight_rule(T.ExpOp)
def _exp(op, boxes, dtype):
    ((lo, hi),) = boxes
    return no_nan(exp_down(lo), exp_up(hi))


@tight_rule(T.LogOp)
def _log(op, boxes, dtype):
    ((lo, hi),) = boxes
    require(~(lo < 0))
    return no_nan(log_down(lo), log_up(hi))


@tight_rule(T.TanhOp)
def _tanh(op, boxes, dtype):
    ((lo, hi),) = boxes
    zero = dtype.type(0)
    low = np.where(lo == 0, zero, _widened("tanh", lo, down))
    high = np.where(hi == 0, zero, _widened("tanh", hi, up))
    return no_nan(*clamp(low, high, -1.0, 1.0))


def sigmoid_down(x):
    """`x > 0 ? 1/(1+t) : t/(1+t)`, `t = exp(x > 0 ? -x : x)`, rounded down:
    1/(1+t) falls and t/(1+t) rises with t."""
    one = x.dtype.type(1)
    positive = x > 0
    t_hi = exp_up(np.where(positive, -x, x))
    t_lo = exp_down(x)
    return np.where(positive, div_down(one, add_up(one, t_hi)), div_down(t_lo, add_up(one, t_lo)))


def sigmoid_up(x):
    one = x.dtype.type(1)
    positive = x > 0
    t_lo = exp_down(np.where(positive, -x, x))
    t_hi = exp_up(x)
    return np.where(positive, div_up(one, add_down(one, t_lo)), div_up(t_hi, add_down(one, t_hi)))


@tight_rule(T.SigmoidOp)
def _sigmoid(op, boxes, dtype):
    ((lo, hi),) = boxes
    return no_nan(*clamp(sigmoid_down(lo), sigmoid_up(hi), 0.0, 1.0))


def tight_softplus(lo, hi) -> Box:
    """`x > 0 ? x + log(1+t) : log(1+t)` at each end, directed, inside the
    TorchLean box `[max2(l, 0), addUp(max2(u, 0), 1)]`."""
    one = lo.dtype.type(1)
    low_term = log_down(add_down(one, exp_down(np.where(lo > 0, -lo, lo))))
    low = np.where(lo > 0, add_down(lo, low_term), low_term)
    high_term = log_up(add_up(one, exp_up(np.where(hi > 0, -hi, hi))))
    high = np.where(hi > 0, add_up(hi, high_term), high_term)
    floor, ceiling = softplus_bounds(lo, hi)
    return np.where(low < floor, floor, low), np.where(high > ceiling, ceiling, high)


@tight_rule(T.SoftplusOp)
def _softplus(op, boxes, dtype):
    return no_nan(*tight_softplus(*boxes[0]))


@tight_rule(T.SafeLogOp)
def _safe_log(op, boxes, dtype):
    """log(softplus(x) + eps) through the tight log, inside TorchLean's
    `[1 - 1/z, z - 1]` of the same z."""
    (lo, hi), (el, eh) = boxes
    sl, sh = tight_softplus(lo, hi)
    zl, zh = add_down(sl, el[()]), add_up(sh, eh[()])
    require(zl > 0)
    one = dtype.type(1)
    r = div_up(one, zl)
    floor, ceiling = sub_down(one, r), sub_up(zh, one)
    low, high = log_down(zl), log_up(zh)
    return no_nan(np.where(low < floor, floor, low), np.where(high > ceiling, ceiling, high))


def softmax_rows(lo, hi, allowed=None) -> Box:
    """Along the last axis: y_i = 1 / Σ_j exp(x_j − x_i) (the j = i term is
    exp(0) = 1), so y_i ≥ 1 / Σ_j exp(v_j − l_i) with v_j = u_j (v_i = l_i) and
    y_i ≤ 1 / Σ_j exp(w_j − u_i) with w_j = l_j (w_i = u_i); the sums fold j
    ascending from 0 in directed arithmetic. With a mask `allowed` (of lo's
    shape) the sums take only allowed j (a blocked term is an exact 0, which the
    tight sums add without a step) and a blocked i is [0, 0]."""
    n = lo.shape[-1]
    eye = np.eye(n, dtype=bool)
    l_i, u_i = lo[..., :, np.newaxis], hi[..., :, np.newaxis]
    above = exp_up(sub_up(np.where(eye, l_i, hi[..., np.newaxis, :]), l_i))
    below = exp_down(sub_down(np.where(eye, u_i, lo[..., np.newaxis, :]), u_i))
    zero, one = lo.dtype.type(0), lo.dtype.type(1)
    if allowed is not None:
        above = np.where(allowed[..., np.newaxis, :], above, zero)
        below = np.where(allowed[..., np.newaxis, :], below, zero)
    s_lo, s_hi = fold(below, above, -1)
    low = np.where(s_hi == 1, one, div_down(one, s_hi))
    low, high = clamp(low, div_up(one, s_lo), 0.0, 1.0)
    if allowed is not None:
        low, high = np.where(allowed, low, zero), np.where(allowed, high, zero)
    return low, high


@tight_rule(T.SoftmaxOp)
def _softmax(op, boxes, dtype):
    axis = op.axis.value.data
    lo, hi = (np.moveaxis(b, axis, -1) for b in boxes[0])
    low, high = softmax_rows(lo, hi)
    return no_nan(np.moveaxis(low, -1, axis), np.moveaxis(high, -1, axis))


@tight_rule(T.HardMaskedSoftmaxOp)
def _hard_masked_softmax(op, boxes, dtype):
    """Softmax over the allowed cells of each row (the last axis); a blocked
    cell, and a row with no allowed cell, is 0. Rank 0: 1 if allowed, else 0."""
    ((lo, hi),) = boxes
    allowed = np.array(op.mask.get_values(), bool).reshape(lo.shape)
    if lo.ndim == 0:
        value = np.asarray(dtype.type(1 if allowed[()] else 0))
        return value, value.copy()
    return no_nan(*softmax_rows(lo, hi, allowed))


__all__ = ["TIGHT_RULES", "exp_down", "exp_up", "log_down", "log_up", "softmax_rows"]
