"""Reference VJP rules of the contractions and windows: matmul, linear
(docs/autodiff.md#d5-linear-vjp), conv (docs/autodiff.md#d6-conv-vjp), max and
average pooling, written as the loops the spec states."""

from __future__ import annotations

import itertools

import numpy as np

from tlir.dialects import tlir as T
from tlir.reference.carrier import fold_sum
from tlir.reference.vjp_rules import Context, rule, unbroadcast


@rule(T.MatmulOp)
def _matmul(ctx: Context) -> list:
    """Both operands broadcast to the common batch (a vector is a 1×n row or an
    n×1 column); dA = g @ Bᵀ and dB = Aᵀ @ g, folds from +0; then
    `reduceFromBroadcastTo` each operand's own shape."""
    a, b = ctx.args
    a2 = a[np.newaxis, :] if a.ndim == 1 else a
    b2 = b[:, np.newaxis] if b.ndim == 1 else b
    batch = np.broadcast_shapes(a2.shape[:-2], b2.shape[:-2])
    (m, n), p = a2.shape[-2:], b2.shape[-1]
    g = ctx.g.reshape(batch + (m, p))
    wide_a = np.broadcast_to(a2, batch + (m, n))
    wide_b = np.broadcast_to(b2, batch + (n, p))
    da = np.zeros(batch + (m, n), a.dtype)
    for j in range(p):
        da = da + g[..., :, j, np.newaxis] * wide_b[..., np.newaxis, :, j]
    db = np.zeros(batch + (n, p), a.dtype)
    for i in range(m):
        db = db + wide_a[..., i, :, np.newaxis] * g[..., i, np.newaxis, :]
    return [unbroadcast(da, a2.shape).reshape(a.shape), unbroadcast(db, b2.shape).reshape(b.shape)]


@rule(T.LinearOp)
def _linear(ctx: Context) -> list:
    """docs/autodiff.md#d5-linear-vjp on N = the leading positions in row-major order."""
    x, weight, _bias = ctx.args
    out_dim, in_dim = weight.shape
    count = int(np.prod(x.shape[:-1], dtype=np.int64))
    rows = x.reshape(count, in_dim)
    g = ctx.g.reshape(count, out_dim)
    dx = np.zeros(rows.shape, x.dtype)
    for o in range(out_dim):
        dx = dx + g[:, o, np.newaxis] * weight[np.newaxis, o, :]
    dw = np.zeros(weight.shape, x.dtype)
    db = np.zeros(out_dim, x.dtype)
    for n in range(rows.shape[0]):
        dw = dw + g[n, :, np.newaxis] * rows[n, np.newaxis, :]
        db = db + g[n]
    return [dx.reshape(x.shape), dw, db]


def _conv_setup(ctx: Context):
    cfg = ctx.op.config
    x = ctx.x
    axis = cfg.channel_axis
    cin, cout = cfg.in_channels // cfg.groups, cfg.out_channels // cfg.groups
    first_input = (np.arange(cfg.out_channels) // cout) * cin
    return cfg, x, axis, cin, cout, first_input


@rule(T.ConvOp)
def _conv(ctx: Context) -> list:
    cfg, x, axis, cin, cout, first_input = _conv_setup(ctx)
    g = ctx.g
    others = [a for a in range(g.ndim) if a != axis]
    moved = np.transpose(g, [axis] + others).reshape(g.shape[axis], -1)
    db = fold_sum(moved.T, 0)
    return [_conv_input_grad(ctx), _conv_kernel_grad(ctx), db]


def _conv_kernel_grad(ctx: Context) -> np.ndarray:
    """dK[oc, c, k] = fold over leading positions, then output positions
    (row-major), of x_pad·g, for c in oc's group; +0 off the block diagonal."""
    cfg, x, axis, cin, cout, first_input = _conv_setup(ctx)
    pad = [(0, 0)] * (axis + 1) + list(zip(cfg.padding, cfg.padding_after, strict=True))
    padded = np.pad(x, pad)
    rank = len(cfg.kernel)
    channels = first_input[:, None] + np.arange(cin)[None, :]
    channels = channels.reshape(channels.shape + (1,) * rank)
    block = np.zeros((cfg.out_channels, cin) + cfg.kernel, x.dtype)
    out_spatial = ctx.g.shape[axis + 1 :]
    for lead in np.ndindex(*x.shape[:axis]):
        for o in np.ndindex(*out_spatial):
            positions = []
            for a in range(rank):
                taps = o[a] * cfg.stride[a] + np.arange(cfg.kernel[a]) * cfg.dilation[a]
                positions.append(
                    taps.reshape((1, 1) + tuple(-1 if b == a else 1 for b in range(rank)))
                )
            cells = padded[lead + (channels, *positions)]
            grads = ctx.g[lead + (slice(None),) + o].reshape((-1, 1) + (1,) * rank)
            block = block + cells * grads
    dense = np.zeros((cfg.out_channels, cfg.in_channels) + cfg.kernel, x.dtype)
    for oc in range(cfg.out_channels):
        dense[oc, first_input[oc] : first_input[oc] + cin] = block[oc]
    return dense


def _conv_input_grad(ctx: Context) -> np.ndarray:
    """dX[c, i] = fold over the group's output channels (outer) then kernel cells
    (inner, row-major) of g[oc, o]·K[oc, c, k] where o·stride + k·dilation −
    pad_before = i; positions no window reaches stay +0."""
    cfg, x, axis, cin, cout, _first = _conv_setup(ctx)
    grid = np.indices(x.shape)
    channel = grid[axis]
    spatial = grid[axis + 1 :]
    out_spatial = ctx.g.shape[axis + 1 :]
    acc = np.zeros(x.shape, x.dtype)
    for m in range(cout):
        oc = (channel // cin) * cout + m
        for cell in itertools.product(*(range(k) for k in cfg.kernel)):
            valid = np.ones(x.shape, bool)
            outs = []
            for a, k in enumerate(cell):
                shifted = spatial[a] + cfg.padding[a] - k * cfg.dilation[a]
                o = shifted // cfg.stride[a]
                valid &= (shifted >= 0) & (shifted % cfg.stride[a] == 0) & (o < out_spatial[a])
                outs.append(np.clip(o, 0, max(out_spatial[a] - 1, 0)))
            if not valid.any():
                continue
            index = tuple(grid[:axis]) + (oc, *outs)
            term = ctx.g[index] * ctx.args[1][(oc, channel) + cell]
            acc = np.where(valid, acc + term, acc)
    return acc


def _pool_geometry(op: T.WindowOp, x: np.ndarray):
    kernel, stride, padding = T._ints(op.kernel), T._ints(op.stride), T._ints(op.padding)
    lead = x.ndim - len(kernel)
    out_spatial = tuple(op.result.type.get_shape())[lead:]
    return kernel, stride, padding, lead, out_spatial


def _real_cells(o, kernel, stride, padding, in_spatial):
    """(row-major cell number, input position) of the window's real cells."""
    for number, cell in enumerate(itertools.product(*(range(k) for k in kernel))):
        position = tuple(
            oa * s + k - p for oa, s, k, p in zip(o, stride, cell, padding, strict=True)
        )
        if all(0 <= q < n for q, n in zip(position, in_spatial, strict=True)):
            yield number, position


@rule(T.MaxPoolOp)
def _max_pool(ctx: Context) -> list:
    """Outputs in row-major order; each adds its g at its first maximal real cell."""
    x = ctx.x
    kernel, stride, padding, lead, out_spatial = _pool_geometry(ctx.op, x)
    in_spatial = x.shape[lead:]
    dx = np.zeros_like(x)
    every = (slice(None),) * lead
    for o in np.ndindex(*out_spatial):
        cells = list(_real_cells(o, kernel, stride, padding, in_spatial))
        best = np.zeros(x.shape[:lead], x.dtype)
        winner = np.full(x.shape[:lead], -1)
        for number, position in cells:
            value = x[every + position]
            take = (winner < 0) | (value > best)
            best, winner = np.where(take, value, best), np.where(take, number, winner)
        for number, position in cells:
            here = every + position
            dx[here] = np.where(winner == number, dx[here] + ctx.g[every + o], dx[here])
    return [dx]


@rule(T.AvgPoolOp)
def _avg_pool(ctx: Context) -> list:
    """Outputs in row-major order; each adds g/kernelProd to each real cell."""
    x = ctx.x
    kernel, stride, padding, lead, out_spatial = _pool_geometry(ctx.op, x)
    volume = ctx.c(int(np.prod(kernel)))
    dx = np.zeros_like(x)
    every = (slice(None),) * lead
    for o in np.ndindex(*out_spatial):
        share = ctx.g[every + o] / volume
        for _number, position in _real_cells(o, kernel, stride, padding, x.shape[lead:]):
            dx[every + position] = dx[every + position] + share
    return [dx]
