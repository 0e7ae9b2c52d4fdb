"""Reference VJP rules, one per tlir op (docs/autodiff.md#reverse-mode; D3–D9
of docs/autodiff.md#choices-beyond-torchlean), in NumPy.

A rule gets the op, its operand values, its result and the result's cotangent
`g`, and returns one contribution per operand (None: nothing flows there).
Every sum is a left fold from +0 in the order the rule states; every product
keeps the spec's operand order.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.ir import Operation

from tlir.dialects import tlir as T
from tlir.optable import OpTable
from tlir.reference.carrier import cmax, fold_sum, libm


@dataclass
class Context:
    op: Operation
    args: list[np.ndarray]
    y: np.ndarray
    g: np.ndarray

    @property
    def x(self) -> np.ndarray:
        return self.args[0]

    def c(self, value: float) -> np.generic:
        """A carrier constant."""
        return self.g.dtype.type(value)


RULES: OpTable[Callable[[Context], Sequence]] = OpTable("reference VJP rule")
rule = RULES.register


def fold_axes(x: np.ndarray, axes: Sequence[int]) -> np.ndarray:
    """One fold from +0 over `axes` jointly, in row-major order of those axes."""
    kept = [a for a in range(x.ndim) if a not in axes]
    moved = np.transpose(x, list(axes) + kept)
    flat = moved.reshape((-1,) + tuple(x.shape[a] for a in kept))
    return fold_sum(flat, 0)


def unbroadcast(g: np.ndarray, source: tuple[int, ...]) -> np.ndarray:
    """`reduceFromBroadcastTo`: target axes, outermost first, folded one at a time
    where the source lacks them or has extent 1 against a larger extent."""
    offset = g.ndim - len(source)
    current, removed = g, 0
    for axis, extent in enumerate(g.shape):
        if axis >= offset and (source[axis - offset] == extent or extent == 1):
            continue
        current = fold_sum(current, axis - removed)
        removed += 1
    return current.reshape(source)


# --- no gradient --------------------------------------------------------------


@rule(T.ConstOp, T.RandUniformOp, T.DetachOp, T.BernoulliMaskOp)
def _nothing(ctx: Context) -> list:
    return [None] * len(ctx.args)


# --- elementwise ----------------------------------------------------------------


@rule(T.AddOp)
def _add(ctx: Context) -> list:
    return [ctx.g, ctx.g]


@rule(T.SubOp)
def _sub(ctx: Context) -> list:
    return [ctx.g, np.zeros_like(ctx.g) - ctx.g]


@rule(T.MulElemOp)
def _mul(ctx: Context) -> list:
    a, b = ctx.args
    return [ctx.g * b, ctx.g * a]


def _sigmoid(x: np.ndarray) -> np.ndarray:
    one = x.dtype.type(1)
    t = libm("exp", np.where(x > 0, -x, x))
    return np.where(x > 0, one / (one + t), t / (one + t))


def _softplus(x: np.ndarray) -> np.ndarray:
    one = x.dtype.type(1)
    t = libm("exp", np.where(x > 0, -x, x))
    log_term = libm("log", one + t)
    return np.where(x > 0, x + log_term, log_term)


def _factor(function: Callable[[Context], np.ndarray]) -> Callable[[Context], list]:
    """An `f(x)·g` rule."""
    return lambda ctx: [function(ctx).astype(ctx.g.dtype) * ctx.g]


FACTOR_RULES = {
    T.AbsOp: lambda c: np.where(c.x > 0, c.c(1), np.where(c.x < 0, c.c(-1), c.c(0))),
    T.SqrtOp: lambda c: np.where(c.x > 0, c.c(1) / (c.c(2) * np.sqrt(c.x)), c.c(0)),
    T.ReluOp: lambda c: np.where(c.x > 0, c.c(1), c.c(0)),
    T.TanhOp: lambda c: c.c(1) - libm("tanh", c.x) * libm("tanh", c.x),
    T.SigmoidOp: lambda c: _sigmoid(c.x) * (c.c(1) - _sigmoid(c.x)),
    T.SoftplusOp: lambda c: _sigmoid(c.x),
    T.ExpOp: lambda c: libm("exp", c.x),
    T.LogOp: lambda c: c.c(1) / c.x,
    T.SinOp: lambda c: libm("cos", c.x),
    T.CosOp: lambda c: -libm("sin", c.x),
}
for _cls, _fn in FACTOR_RULES.items():
    RULES.add(_cls, _factor(_fn))


@rule(T.InvOp)
def _inv(ctx: Context) -> list:
    r = ctx.c(1) / ctx.x
    return [(ctx.g * (r * r)) * ctx.c(-1)]


def _weight(ctx: Context, wins: np.ndarray, loses: np.ndarray) -> np.ndarray:
    """1 where the operand wins, 0 where it loses, ½ otherwise (ties, NaN)."""
    half = ctx.c(1) / ctx.c(2)
    return np.where(wins, ctx.c(1), np.where(loses, ctx.c(0), half))


@rule(T.MaxElemOp)
def _max(ctx: Context) -> list:
    a, b = ctx.args
    return [_weight(ctx, a > b, b > a) * ctx.g, _weight(ctx, b > a, a > b) * ctx.g]


@rule(T.MinElemOp)
def _min(ctx: Context) -> list:
    a, b = ctx.args
    return [_weight(ctx, b > a, a > b) * ctx.g, _weight(ctx, a > b, b > a) * ctx.g]


@rule(T.SafeLogOp)
def _safe_log(ctx: Context) -> list:
    x, eps = ctx.args
    return [(_sigmoid(x) / (_softplus(x) + eps[()])) * ctx.g, None]


# --- index moves and reductions ----------------------------------------------------


@rule(T.PermuteOp)
def _permute(ctx: Context) -> list:
    return [np.transpose(ctx.g, np.argsort(T._ints(ctx.op.perm)))]


@rule(T.TransposeOp)
def _transpose(ctx: Context) -> list:
    return [np.swapaxes(ctx.g, ctx.op.axis1.value.data, ctx.op.axis2.value.data)]


@rule(T.ReshapeOp, T.FlattenOp)
def _reshape(ctx: Context) -> list:
    return [ctx.g.reshape(ctx.x.shape)]


@rule(T.BroadcastToOp)
def _broadcast_to(ctx: Context) -> list:
    return [unbroadcast(ctx.g, ctx.x.shape)]


@rule(T.ConcatOp)
def _concat(ctx: Context) -> list:
    axis = ctx.op.axis.value.data
    bounds = np.cumsum([0] + [a.shape[axis] for a in ctx.args])
    return [np.take(ctx.g, np.arange(lo, hi), axis=axis) for lo, hi in itertools.pairwise(bounds)]


@rule(T.ReduceSumOp)
def _reduce_sum(ctx: Context) -> list:
    axis = ctx.op.axis.value.data
    return [np.broadcast_to(np.expand_dims(ctx.g, axis), ctx.x.shape)]


@rule(T.ReduceMeanOp)
def _reduce_mean(ctx: Context) -> list:
    axis = ctx.op.axis.value.data
    repeated = np.broadcast_to(np.expand_dims(ctx.g, axis), ctx.x.shape)
    return [repeated * (ctx.c(1) / ctx.c(ctx.x.shape[axis]))]


@rule(T.SumOp)
def _sum(ctx: Context) -> list:
    return [np.broadcast_to(ctx.g, ctx.x.shape)]


@rule(T.MseLossOp)
def _mse_loss(ctx: Context) -> list:
    prediction, target = ctx.args
    count = ctx.c(prediction.size or 1)
    base = (prediction - target) * ((ctx.c(1) + ctx.c(1)) / count)
    gy = base * ctx.g
    return [gy, np.zeros_like(gy) - gy]


# --- softmax -----------------------------------------------------------------


@rule(T.SoftmaxOp)
def _softmax(ctx: Context) -> list:
    axis = ctx.op.axis.value.data
    s = np.expand_dims(fold_sum(ctx.g * ctx.y, axis), axis)
    return [ctx.y * (ctx.g - s)]


@rule(T.HardMaskedSoftmaxOp)
def _hard_masked_softmax(ctx: Context) -> list:
    if ctx.g.ndim == 0:
        return [np.zeros_like(ctx.g)]
    allowed = np.array(ctx.op.mask.get_values(), bool).reshape(ctx.g.shape)
    s = np.expand_dims(fold_sum(ctx.g * ctx.y, ctx.g.ndim - 1), -1)
    return [np.where(allowed, ctx.y * (ctx.g - s), ctx.c(0))]


# --- normalization -------------------------------------------------------------


def _std(var: np.ndarray, eps: float) -> np.ndarray:
    return np.sqrt(cmax(cmax(var, 0) + var.dtype.type(eps), 0))


@rule(T.BatchNormEvalOp)
def _batch_norm_eval(ctx: Context) -> list:
    """D4; mean and var get nothing."""
    x, gamma, _beta, mean, var = ctx.args
    axis = ctx.op.channel_axis.value.data
    spread = (slice(None),) + (np.newaxis,) * (x.ndim - axis - 1)
    std = _std(var, ctx.op.eps.value.data)[spread]
    others = [a for a in range(x.ndim) if a != axis]
    xhat = (x - mean[spread]) / std
    return [
        (ctx.g * gamma[spread]) / std,
        fold_axes(ctx.g * xhat, others),
        fold_axes(ctx.g, others),
        None,
        None,
    ]


@rule(T.LayerNormOp)
def _layernorm(ctx: Context) -> list:
    """TorchLean's layerNormBackward on the [rows, N] view."""
    x, g = ctx.x, ctx.g
    axis = ctx.op.axis.value.data
    rows = (int(np.prod(x.shape[:axis], dtype=np.int64)), int(np.prod(x.shape[axis:])))
    xs, gs = x.reshape(rows), g.reshape(rows)
    n = ctx.c(rows[1])
    mu = fold_sum(xs, 1) / n
    centred = xs - mu[:, None]
    mu2 = fold_sum(centred, 1) / n
    dev = centred - mu2[:, None]
    std = _std(fold_sum(dev * dev, 1) / n, ctx.op.eps.value.data)
    xhat = centred / std[:, None]
    inv_std = ctx.c(1) / std
    affine = len(ctx.args) == 3
    scaled = gs * ctx.args[1].reshape(-1) if affine else gs
    mean1 = fold_sum(scaled, 1) / n
    mean2 = fold_sum(scaled * xhat, 1) / n
    dx = inv_std[:, None] * ((scaled - mean1[:, None]) - xhat * mean2[:, None])
    grads = [dx.reshape(x.shape)]
    if affine:
        shape = ctx.args[1].shape
        grads += [fold_sum(gs * xhat, 0).reshape(shape), fold_sum(gs, 0).reshape(shape)]
    return grads
