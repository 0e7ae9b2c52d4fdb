"""JVP rules of the folding ops: reductions, contractions, windows, softmax and
normalization (docs/autodiff.md#d2-forward-mode). Each fold keeps its forward
order and runs on duals: a contraction's term is `(da·b) + (a·db)`, a mean
divides by `(n, 0)` with the quotient rule (D1), softmax's max splits ties ½/½
and starts from element 0 (whose max with itself is a tie), max pools and the
hard-masked max take the tangent of the first maximum."""

from __future__ import annotations

import math

import numpy as np
from xdsl.ir import SSAValue

from tlir import shapes
from tlir.dialects import tlir as T
from tlir.passes.autodiff import contractions
from tlir.passes.autodiff.builder import Scalar, d, dims, element_of, shape_of
from tlir.passes.autodiff.geometry import Window, batch_exprs
from tlir.passes.autodiff.tables import jvp_rule


def _divided_by(s: Scalar, total, count: int):
    """A dual sum over `(count, 0)` by the quotient rule (D1)."""
    return s.quotient(total, (s.const(float(count)), s.const(0.0)))


def _sum_pair(s: Scalar, args: list[SSAValue]) -> list[SSAValue]:
    """(x, dx, acc, dacc) -> (acc + x, dacc + dx): a dual fold from (0, 0)."""
    x, dx, acc, dacc = args
    return [s.add(acc, x), s.add(dacc, dx)]


@jvp_rule(T.ReduceMeanOp)
def reduce_mean(j, op: T.ReduceMeanOp, dots: list[SSAValue]) -> SSAValue:
    x = op.input
    shape, axis = shape_of(x), op.axis.value.data
    total = j.b.fold(
        [x, dots[0]], [dims(range(len(shape)))] * 2, shape, [axis], [0.0, 0.0], _sum_pair
    )
    count = shape[axis]
    return j.b.map(total, lambda s, a: [_divided_by(s, (a[0], a[1]), count)[1]])[0]


@jvp_rule(T.MseLossOp)
def mse_loss(j, op: T.MseLossOp, dots: list[SSAValue]) -> SSAValue:
    """diff = ŷ − t; sq = diff·diff on duals; both folded from +0; over (n, 0)."""

    def squares(s: Scalar, a: list[SSAValue]) -> list[SSAValue]:
        diff = (s.sub(a[0], a[2]), s.sub(a[1], a[3]))
        return list(s.product(diff, diff))

    sq, dsq = j.b.map([op.lhs, dots[0], op.rhs, dots[1]], squares, 2)
    total = j.b.tlir(T.SumOp, [sq], ())
    dtotal = j.b.tlir(T.SumOp, [dsq], ())
    count = shapes.size(shape_of(op.lhs)) or 1
    return j.b.map([total, dtotal], lambda s, a: [_divided_by(s, (a[0], a[1]), count)[1]])[0]


@jvp_rule(T.MatmulOp)
def matmul(j, op: T.MatmulOp, dots: list[SSAValue]) -> SSAValue:
    """dC = fold over k of ((dA·B) + (A·dB)) from +0. Dims (batch…, i?, j?, k)."""
    a, b, out = shape_of(op.lhs), shape_of(op.rhs), shape_of(op.result)
    has_i, has_j = len(a) >= 2, len(b) >= 2
    nb = len(out) - has_i - has_j
    batch = out[:nb]
    i = [d(nb)] if has_i else []
    jj = [d(nb + has_i)] if has_j else []
    k = d(nb + has_i + has_j)
    a_map = [*batch_exprs(a[:-2], batch), *i, k] if has_i else [k]
    b_map = [*batch_exprs(b[:-2], batch), k, *jj] if has_j else [k]
    bounds = [*out, a[-1]]

    def body(s: Scalar, x: list[SSAValue]) -> list[SSAValue]:
        return [s.add(x[4], s.product((x[0], x[1]), (x[2], x[3]))[1])]

    inputs = [op.lhs, dots[0], op.rhs, dots[1]]
    return j.b.fold(inputs, [a_map, a_map, b_map, b_map], bounds, [len(out)], [0.0], body)[0]


def _bias_add(j, acc: SSAValue, dbias: SSAValue, bias_index: list) -> SSAValue:
    """(acc, dacc) + (b, db): the tangent dacc + db, db broadcast by `bias_index`."""
    shape = shape_of(acc)
    maps = [dims(range(len(shape))), bias_index]
    return j.b.fold([acc, dbias], maps, shape, [], [0.0], lambda s, x: [s.add(x[0], x[1])])[0]


@jvp_rule(T.LinearOp)
def linear(j, op: T.LinearOp, dots: list[SSAValue]) -> SSAValue:
    """Per output: fold over i of ((dW·x) + (W·dx)) from +0, then + db."""
    fast = contractions.linear_jvp(j.b, op, dots)
    if fast is not None:
        return fast
    x, out = shape_of(op.input), shape_of(op.result)
    lead = len(x) - 1
    o, i = d(lead), d(lead + 1)
    w_map, x_map = [o, i], [*dims(range(lead)), i]
    bounds = [*out, x[-1]]

    def body(s: Scalar, v: list[SSAValue]) -> list[SSAValue]:
        return [s.add(v[4], s.product((v[0], v[1]), (v[2], v[3]))[1])]

    inputs = [op.weight, dots[1], op.input, dots[0]]
    acc = j.b.fold(inputs, [w_map, w_map, x_map, x_map], bounds, [lead + 1], [0.0], body)[0]
    return _bias_add(j, acc, dots[2], [d(lead)])


def _spatial_padding(window: Window) -> tuple[list[int], list[int]]:
    zeros = [0] * (window.lead + 1)
    return [*zeros, *window.pad_before], [*zeros, *window.pad_after]


@jvp_rule(T.ConvOp)
def conv(j, op: T.ConvOp, dots: list[SSAValue]) -> SSAValue:
    """docs/ops.md#conv on duals: per output, fold over the group's input channels l, then
    kernel cells (row-major), of ((dx·w) + (x·dw)) from +0; then + db. Dims
    (lead…, g, m, o…, l, k…): channel g·cin + l in, g·cout + m out."""
    fast = contractions.conv_jvp(j.b, op, dots)
    if fast is not None:
        return fast
    cfg, window = op.config, Window.of_conv(op)
    lead, rank, groups = window.lead, window.rank, cfg.groups
    cin, cout = cfg.in_channels // groups, cfg.out_channels // groups
    low, high = _spatial_padding(window)
    x_pad, dx_pad = (j.b.pad(v, low, high) for v in (op.input, dots[0]))
    g, m = d(lead), d(lead + 1)
    out_dims = range(lead + 2, lead + 2 + rank)
    l_dim = lead + 2 + rank
    k_dims = range(l_dim + 1, l_dim + 1 + rank)
    reads = window.padded_read(out_dims, k_dims)
    x_map = [*dims(range(lead)), g * cin + d(l_dim), *reads]
    w_map = [g * cout + m, g * cin + d(l_dim), *dims(k_dims)]
    bounds = [*shape_of(op.input)[:lead], groups, cout, *window.out_spatial, cin, *window.kernel]

    def body(s: Scalar, v: list[SSAValue]) -> list[SSAValue]:
        return [s.add(v[4], s.product((v[0], v[1]), (v[2], v[3]))[1])]

    inputs = [x_pad, dx_pad, op.weight, dots[1]]
    reductions = [l_dim, *k_dims]
    acc = j.b.fold(inputs, [x_map, x_map, w_map, w_map], bounds, reductions, [0.0], body)[0]
    biased = _bias_add(j, acc, dots[2], [g * cout + m])
    return j.b.reshape(biased, shape_of(op.result))


def _pool_inputs(j, op: T.WindowOp, dx: SSAValue, window: Window):
    low = [0] * window.lead + list(window.pad_before)
    x_pad, dx_pad = (j.b.pad(v, low, low) for v in (op.input, dx))
    valid: SSAValue | float = 1.0  # every cell is real
    if any(low):
        valid = j.b.pad(j.b.ones(shape_of(op.input), element_of(dx)), low, low)
    rank = window.lead + 2 * window.rank
    out_dims = range(window.lead, window.lead + window.rank)
    k_dims = range(window.lead + window.rank, rank)
    read = [*dims(range(window.lead)), *window.padded_read(out_dims, k_dims)]
    bounds = [*shape_of(op.result), *window.kernel]
    return [x_pad, dx_pad, valid], read, bounds, list(k_dims)


@jvp_rule(T.MaxPoolOp)
def max_pool(j, op: T.MaxPoolOp, dots: list[SSAValue]) -> tuple[SSAValue, SSAValue]:
    """The tangent of the first maximal real cell (row-major, strict >). The
    fold picks that cell's value too, which is the op's own result (the same
    cell, by the same comparisons): it is returned as the primal, so the dual
    pool is one pass and its input (a relu, say) can fuse into it."""
    window = Window.of_pool(op)
    inputs, read, bounds, k_dims = _pool_inputs(j, op, dots[0], window)

    def body(s: Scalar, v: list[SSAValue]) -> list[SSAValue]:
        x, dx, valid, *state = v
        return s.first_max(x, valid, dx, state)

    best, _, tangent = j.b.fold(inputs, [read] * 3, bounds, k_dims, [0.0] * 3, body)
    return best, tangent


@jvp_rule(T.AvgPoolOp)
def avg_pool(j, op: T.AvgPoolOp, dots: list[SSAValue]) -> SSAValue:
    """A dual fold over the window (padding as (0, 0)), over (kernel volume, 0)."""
    window = Window.of_pool(op)
    inputs, read, bounds, k_dims = _pool_inputs(j, op, dots[0], window)
    sums = j.b.fold(inputs[:2], [read] * 2, bounds, k_dims, [0.0, 0.0], _sum_pair)
    volume = window.volume
    return j.b.map(sums, lambda s, a: [_divided_by(s, (a[0], a[1]), volume)[1]])[0]


def _softmax_rows(shape, axis):
    full = dims(range(len(shape)))
    row = [d(a) for a in range(len(shape)) if a != axis]
    return full, row


@jvp_rule(T.SoftmaxOp)
def softmax(j, op: T.SoftmaxOp, dots: list[SSAValue]) -> SSAValue:
    """m: fold of the Dual max from element 0 over every element (0 included);
    e = exp(x − m) on duals; S = dual fold of e; y = e / S by the quotient rule."""
    x, dx = op.input, dots[0]
    shape, axis = shape_of(x), op.axis.value.data
    full, row = _softmax_rows(shape, axis)
    rows = [n for a, n in enumerate(shape) if a != axis]
    first = [d(a - (a > axis)) if a != axis else 0 for a in range(len(shape))]
    start = j.b.fold([x, dx], [first, first], rows, [], [0.0, 0.0], lambda s, v: v[:2])
    m = j.b.fold([x, dx], [full, full], shape, [axis], start,
                 lambda s, v: list(s.dual_max((v[2], v[3]), (v[0], v[1]))))  # fmt: skip

    def shifted(s: Scalar, v: list[SSAValue]) -> list[SSAValue]:
        return list(s.dual_exp((s.sub(v[0], v[2]), s.sub(v[1], v[3]))))

    e = j.b.fold([x, dx, *m], [full, full, row, row], shape, [], [0.0, 0.0], shifted)
    total = j.b.fold(e, [full, full], shape, [axis], [0.0, 0.0], _sum_pair)

    def divide(s: Scalar, v: list[SSAValue]) -> list[SSAValue]:
        return [s.quotient((v[0], v[1]), (v[2], v[3]))[1]]

    return j.b.fold([*e, *total], [full, full, row, row], shape, [], [0.0], divide)[0]


@jvp_rule(T.HardMaskedSoftmaxOp)
def hard_masked_softmax(j, op: T.HardMaskedSoftmaxOp, dots: list[SSAValue]) -> SSAValue:
    """Max over allowed entries (first maximum's tangent); blocked numerators are
    the literal (0, 0); an all-blocked row is the literal zero."""
    x, dx = op.input, dots[0]
    shape = shape_of(x)
    if not shape:
        return j.b.zeros_like(op.result)
    allowed = np.array(op.mask.get_values(), bool).reshape(shape)
    mask = j.b.array(allowed.astype(np.float64), element_of(x))
    last = len(shape) - 1
    full, row = _softmax_rows(shape, last)

    def row_max(s: Scalar, v: list[SSAValue]) -> list[SSAValue]:
        value, dvalue, ok, *state = v
        return s.first_max(value, ok, dvalue, state)

    best, seen, dbest = j.b.fold([x, dx, mask], [full] * 3, shape, [last], [0.0] * 3, row_max)

    def numerator(s: Scalar, v: list[SSAValue]) -> list[SSAValue]:
        value, dvalue, ok, m, dm = v[:5]
        e, de = s.dual_exp((s.sub(value, m), s.sub(dvalue, dm)))
        zero = s.const(0.0)
        return [s.select(s.nonzero(ok), e, zero), s.select(s.nonzero(ok), de, zero)]

    nums = j.b.fold(
        [x, dx, mask, best, dbest], [full] * 3 + [row] * 2, shape, [], [0.0] * 2, numerator
    )
    total = j.b.fold(nums, [full, full], shape, [last], [0.0, 0.0], _sum_pair)

    def divide(s: Scalar, v: list[SSAValue]) -> list[SSAValue]:
        dq = s.quotient((v[0], v[1]), (v[2], v[3]))[1]
        return [s.select(s.nonzero(v[4]), dq, s.const(0.0))]

    inputs = [*nums, *total, seen]
    return j.b.fold(inputs, [full, full, row, row, row], shape, [], [0.0], divide)[0]


@jvp_rule(T.BatchNormEvalOp)
def batch_norm_eval(j, op: T.BatchNormEvalOp, dots: list[SSAValue]) -> SSAValue:
    """((x − μ) / sqrt(max(max(var, 0) + eps, 0)))·γ + β, every step on duals."""
    shape = shape_of(op.input)
    full, channel = dims(range(len(shape))), [d(op.channel_axis.value.data)]
    eps = op.eps.value.data

    def body(s: Scalar, v: list[SSAValue]) -> list[SSAValue]:
        x, gamma, beta, mean, var = ((v[2 * k], v[2 * k + 1]) for k in range(5))
        centred = (s.sub(x[0], mean[0]), s.sub(x[1], mean[1]))
        clamped = s.dual_max(var, s.zero())
        shifted = (s.add(clamped[0], s.const(eps)), s.add(clamped[1], s.const(0.0)))
        scaled = s.product(s.quotient(centred, s.guarded_sqrt(shifted)), gamma)
        return [s.add(scaled[1], beta[1])]

    operands = [op.input, op.gamma, op.beta, op.mean, op.var]
    inputs = [v for pair in zip(operands, dots, strict=True) for v in pair]
    maps = [full, full] + [channel] * 8
    return j.b.fold(inputs, maps, shape, [], [0.0], body)[0]


@jvp_rule(T.LayerNormOp)
def layernorm(j, op: T.LayerNormOp, dots: list[SSAValue]) -> SSAValue:
    """docs/ops.md#layernorm on duals: μ = Σx/N, c = x − μ, μ₂ = Σc/N, v = Σ(c − μ₂)²/N (each sum a
    dual fold, each /N the quotient rule), σ = sqrt(max(max(v, 0) + eps, 0)),
    y = (c/σ)·γ + β."""
    x, dx = op.input, dots[0]
    shape, axis = shape_of(x), op.axis.value.data
    full, rows, norm = dims(range(len(shape))), dims(range(axis)), list(range(axis, len(shape)))
    count = math.prod(shape[axis:])
    eps = op.eps.value.data
    b = j.b
    s1 = b.fold([x, dx], [full, full], shape, norm, [0.0, 0.0], _sum_pair)

    def centre(s: Scalar, v: list[SSAValue]) -> list[SSAValue]:
        mu = _divided_by(s, (v[2], v[3]), count)
        return [s.sub(v[0], mu[0]), s.sub(v[1], mu[1])]

    c = b.fold([x, dx, *s1], [full, full, rows, rows], shape, [], [0.0, 0.0], centre)
    s2 = b.fold(c, [full, full], shape, norm, [0.0, 0.0], _sum_pair)

    def squares(s: Scalar, v: list[SSAValue]) -> list[SSAValue]:
        mu2 = _divided_by(s, (v[2], v[3]), count)
        dev = (s.sub(v[0], mu2[0]), s.sub(v[1], mu2[1]))
        sq = s.product(dev, dev)
        return [s.add(v[4], sq[0]), s.add(v[5], sq[1])]

    s3 = b.fold([*c, *s2], [full, full, rows, rows], shape, norm, [0.0, 0.0], squares)
    affine = op.gamma is not None
    params = [op.gamma, dots[1], op.beta, dots[2]] if affine else []

    def normalize(s: Scalar, v: list[SSAValue]) -> list[SSAValue]:
        variance = _divided_by(s, (v[2], v[3]), count)
        clamped = s.dual_max(variance, s.zero())
        shifted = (s.add(clamped[0], s.const(eps)), s.add(clamped[1], s.const(0.0)))
        y = s.quotient((v[0], v[1]), s.guarded_sqrt(shifted))
        if affine:
            y = s.product(y, (v[4], v[5]))
            return [s.add(y[1], v[7])]
        return [y[1]]

    param_map = dims(norm)
    maps = [full, full, rows, rows] + [param_map] * len(params)
    return b.fold([*c, *s3, *params], maps, shape, [], [0.0], normalize)[0]
