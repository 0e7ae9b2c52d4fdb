"""VJP rules of index moves, reductions, contractions, windows, softmax and
normalization (docs/autodiff.md#reverse-mode; D3–D6 of
docs/autodiff.md#choices-beyond-torchlean). Every sum is a `tlir_ad.fold` from
+0 in the order the rule states; the backward passes of windows read the cotangent
spread onto the input grid (`Window.spread`), so each input position folds its
contributions without a scatter."""

from __future__ import annotations

import math

import numpy as np
from xdsl.ir import SSAValue

from tlir.dialects import tlir as T
from tlir.passes.autodiff import contractions
from tlir.passes.autodiff.builder import Scalar, d, dims, element_of, shape_of
from tlir.passes.autodiff.geometry import Window, batch_exprs
from tlir.passes.autodiff.tables import vjp_rule


def _add_term(s: Scalar, a: list[SSAValue]) -> list[SSAValue]:
    return [s.add(a[-1], a[0])]


def _product_term(s: Scalar, a: list[SSAValue]) -> list[SSAValue]:
    return [s.add(a[2], s.mul(a[0], a[1]))]


def _copy(s: Scalar, a: list[SSAValue]) -> list[SSAValue]:
    return [a[0]]


def unbroadcast(v, g: SSAValue, source: tuple[int, ...]) -> SSAValue:
    """`reduceFromBroadcastTo`: the target's axes, outermost first, each summed on
    its own (a fold from +0) where the source lacks it or has extent 1 against a
    larger one; then reshaped to the source."""
    target = shape_of(g)
    offset = len(target) - len(source)
    current = g
    removed = 0
    for axis, extent in enumerate(target):
        kept = axis >= offset and (source[axis - offset] == extent or extent == 1)
        if kept:
            continue
        shape = shape_of(current)
        at = axis - removed
        current = v.b.fold([current], [dims(range(len(shape)))], shape, [at], [0.0], _add_term)[0]
        removed += 1
    return v.b.reshape(current, source)


@vjp_rule(T.BroadcastToOp)
def broadcast_to(v, op: T.BroadcastToOp, g: SSAValue, wants: list[bool]) -> list:
    return [unbroadcast(v, g, shape_of(op.input))]


@vjp_rule(T.PermuteOp)
def permute(v, op: T.PermuteOp, g: SSAValue, wants: list[bool]) -> list:
    """The inverse permutation (each adjacent swap undone, in reverse order)."""
    perm = T._ints(op.perm)
    inverse = [perm.index(a) for a in range(len(perm))]
    return [v.b.tlir(T.PermuteOp, [g], shape_of(op.input), perm=T.i64_array(inverse))]


@vjp_rule(T.TransposeOp)
def transpose(v, op: T.TransposeOp, g: SSAValue, wants: list[bool]) -> list:
    return [v.b.tlir(T.TransposeOp, [g], shape_of(op.input), axis1=op.axis1, axis2=op.axis2)]


@vjp_rule(T.ReshapeOp, T.FlattenOp)
def reshape(v, op, g: SSAValue, wants: list[bool]) -> list:
    return [v.b.reshape(g, shape_of(op.input))]


@vjp_rule(T.ConcatOp)
def concat(v, op: T.ConcatOp, g: SSAValue, wants: list[bool]) -> list:
    """Each operand's slice of g along the axis, in order."""
    axis = op.axis.value.data
    parts, offset = [], 0
    for part, wanted in zip(op.inputs, wants, strict=True):
        shape = shape_of(part)
        read = [d(a) + offset if a == axis else d(a) for a in range(len(shape))]
        parts.append(v.b.fold([g], [read], shape, [], [0.0], _copy)[0] if wanted else None)
        offset += shape[axis]
    return parts


def _repeat(v, g: SSAValue, shape, axis: int, scale: int | None = None) -> SSAValue:
    """g repeated along the re-inserted `axis`; with `scale`, times (1/scale)."""
    read = [d(a) for a in range(len(shape)) if a != axis]

    def body(s: Scalar, a: list[SSAValue]) -> list[SSAValue]:
        if scale is None:
            return [a[0]]
        return [s.mul(a[0], s.div(s.const(1.0), s.const(float(scale))))]

    return v.b.fold([g], [read], shape, [], [0.0], body)[0]


@vjp_rule(T.ReduceSumOp)
def reduce_sum(v, op: T.ReduceSumOp, g: SSAValue, wants: list[bool]) -> list:
    return [_repeat(v, g, shape_of(op.input), op.axis.value.data)]


@vjp_rule(T.ReduceMeanOp)
def reduce_mean(v, op: T.ReduceMeanOp, g: SSAValue, wants: list[bool]) -> list:
    """broadcastAfterSum(g)·(1/n): a reciprocal, where the forward divides."""
    shape, axis = shape_of(op.input), op.axis.value.data
    return [_repeat(v, g, shape, axis, shape[axis])]


@vjp_rule(T.SumOp)
def total(v, op: T.SumOp, g: SSAValue, wants: list[bool]) -> list:
    return [v.b.tlir(T.BroadcastToOp, [g], shape_of(op.input))]


@vjp_rule(T.MseLossOp)
def mse_loss(v, op: T.MseLossOp, g: SSAValue, wants: list[bool]) -> list:
    """base = (ŷ − t)·((1 + 1)/n); gŷ = base·g; gt = 0 − gŷ."""
    count = float(math.prod(shape_of(op.lhs)) or 1)

    def body(s: Scalar, a: list[SSAValue]) -> list[SSAValue]:
        two = s.add(s.const(1.0), s.const(1.0))
        base = s.mul(s.sub(a[0], a[1]), s.div(two, s.const(count)))
        gy = s.mul(base, a[2])
        return [gy, s.sub(s.const(0.0), gy)]

    gy, gt = v.b.map([op.lhs, op.rhs, g], body, 2)
    return [gy if wants[0] else None, gt if wants[1] else None]


@vjp_rule(T.MatmulOp)
def matmul(v, op: T.MatmulOp, g: SSAValue, wants: list[bool]) -> list:
    """dA = reduceFromBroadcastTo(g @ Bᵀ), dB = reduceFromBroadcastTo(Aᵀ @ g): folds
    over the contracted index from +0 on the common batch; a vector operand is a
    1-row (1-column) matrix, so its contraction still folds one term from +0."""
    a, b, out = shape_of(op.lhs), shape_of(op.rhs), shape_of(op.result)
    has_i, has_j = len(a) >= 2, len(b) >= 2
    nb = len(out) - has_i - has_j
    batch = out[:nb]
    m, n, p = (a[-2] if has_i else 1), a[-1], (b[-1] if has_j else 1)
    beta = dims(range(nb))
    fast = contractions.matmul_vjp(v.b, op, g, wants)
    if fast is not None:
        return list(fast)
    da = db = None
    if wants[0]:
        i, k, j = d(nb), d(nb + 1), d(nb + 2)
        g_map = [*beta, *([i] if has_i else []), *([j] if has_j else [])]
        b_map = [*batch_exprs(b[:-2], batch), k, j] if has_j else [k]
        full = v.b.fold([g, op.rhs], [g_map, b_map], [*batch, m, n, p], [nb + 2], [0.0],
                        _product_term)[0]  # fmt: skip
        da = unbroadcast(v, v.b.reshape(full, [*batch, *a[-2:]] if has_i else [*batch, n]), a)
    if wants[1]:
        k, j, i = d(nb), d(nb + 1), d(nb + 2)
        a_map = [*batch_exprs(a[:-2], batch), i, k] if has_i else [k]
        g_map = [*beta, *([i] if has_i else []), *([j] if has_j else [])]
        full = v.b.fold([op.lhs, g], [a_map, g_map], [*batch, n, p, m], [nb + 2], [0.0],
                        _product_term)[0]  # fmt: skip
        db = unbroadcast(v, v.b.reshape(full, [*batch, *b[-2:]] if has_j else [*batch, n]), b)
    return [da, db]


@vjp_rule(T.LinearOp)
def linear(v, op: T.LinearOp, g: SSAValue, wants: list[bool]) -> list:
    """D5, leading dims as N rows: dx = fold over o of g·W; dW = fold over rows of
    g·x; db = fold over rows of g; every fold from +0 in ascending order."""
    x = shape_of(op.input)
    lead = len(x) - 1
    rows = dims(range(lead))
    out_dim, in_dim = shape_of(op.weight)
    gx = gw = gb = None
    if wants[2]:  # first: the bias fold reads g while the rule that made g left it in cache
        moved = dims(range(1, 1 + lead))
        gb = v.b.fold([g], [[*moved, d(0)]], [out_dim, *x[:-1]], list(range(1, 1 + lead)), [0.0],
                      _add_term)[0]  # fmt: skip
    fast = contractions.linear_vjp(v.b, op, g, wants)
    if fast is not None:
        gx, gw = fast
        wants = [False, False, False]
    if wants[0]:
        i, o = d(lead), d(lead + 1)
        gx = v.b.fold([g, op.weight], [[*rows, o], [o, i]], [*x, out_dim], [lead + 1], [0.0],
                      _product_term)[0]  # fmt: skip
    later = list(range(2, 2 + lead))
    if wants[1]:
        o, i = d(0), d(1)
        moved = dims(later)
        gw = v.b.fold([g, op.input], [[*moved, o], [*moved, i]], [out_dim, in_dim, *x[:-1]],
                      later, [0.0], _product_term)[0]  # fmt: skip
    return [gx, gw, gb]


def _spread(v, value: SSAValue, window: Window) -> SSAValue:
    """`value` (an output-shaped tensor) on the backward grid of every spatial axis."""
    lead = len(shape_of(value)) - window.rank
    amounts = [window.spread(n, a) for a, n in enumerate(shape_of(value)[lead:])]
    zeros = [0] * lead
    low, high, interior = (list(t) for t in zip(*amounts, strict=True))
    return v.b.pad(value, zeros + low, zeros + high, zeros + interior)


@vjp_rule(T.ConvOp)
def conv(v, op: T.ConvOp, g: SSAValue, wants: list[bool]) -> list:
    """D6 (grouped, dilated, asymmetric padding, any leading axes)."""
    cfg, window = op.config, Window.of_conv(op)
    groups = cfg.groups
    cin, cout = cfg.in_channels // groups, cfg.out_channels // groups
    gx = None
    if wants[0]:
        gx = contractions.conv_input_vjp(v.b, op, g)
    gw = None
    if wants[1]:
        gw = contractions.conv_kernel_vjp(v.b, op, g)
        if gw is None:
            gw = _conv_kernel_grad(v, op, g, window, groups, cin, cout)
    gb = None
    if wants[2]:
        lead, rank = window.lead, window.rank
        read = [*dims(range(1, 1 + lead)), d(0), *dims(range(1 + lead, 1 + lead + rank))]
        bounds = [cfg.out_channels, *shape_of(op.input)[:lead], *window.out_spatial]
        reduced = list(range(1, 1 + lead + rank))
        gb = v.b.fold([g], [read], bounds, reduced, [0.0], _add_term)[0]
    return [gx, gw, gb]


def _conv_kernel_grad(v, op: T.ConvOp, g, window: Window, groups, cin, cout) -> SSAValue:
    """dK[gr·cout + m, gr·cin + l, k] = fold over leading positions, then output
    positions (row-major), of x_pad·g; off the block diagonal +0. Dims
    (gr, m, l, k…, lead…, o…)."""
    lead, rank = window.lead, window.rank
    zeros = [0] * (lead + 1)
    x_pad = v.b.pad(op.input, zeros + list(window.pad_before), zeros + list(window.pad_after))
    gr, m, l_dim = d(0), d(1), d(2)
    k_dims = list(range(3, 3 + rank))
    lead_dims = list(range(3 + rank, 3 + rank + lead))
    o_dims = list(range(3 + rank + lead, 3 + 2 * rank + lead))
    x_read = [*dims(lead_dims), gr * cin + l_dim, *window.padded_read(o_dims, k_dims)]
    g_read = [*dims(lead_dims), gr * cout + m, *dims(o_dims)]
    bounds = [groups, cout, cin, *window.kernel, *shape_of(op.input)[:lead], *window.out_spatial]
    blocks = v.b.fold([x_pad, g], [x_read, g_read], bounds, lead_dims + o_dims, [0.0],
                      _product_term)[0]  # fmt: skip
    if groups > 1:
        eye = v.b.array(np.eye(groups), element_of(g))
        k_at = dims(range(4, 4 + rank))

        def diagonal(s: Scalar, a: list[SSAValue]) -> list[SSAValue]:
            return [s.select(s.nonzero(a[1]), a[0], s.const(0.0))]

        maps = [[d(0), d(1), d(3), *k_at], [d(0), d(2)]]
        bounds = [groups, cout, groups, cin, *window.kernel]
        blocks = v.b.fold([blocks, eye], maps, bounds, [], [0.0], diagonal)[0]
    return v.b.reshape(blocks, shape_of(op.weight))


def _pool_grad(v, op: T.WindowOp, g, window: Window, body, extra) -> SSAValue:
    """A fold per input position over the kernel cells last to first (so the
    outputs whose window holds it come first to last), reading the spread
    cotangent and `extra` (spread output-shaped tensors) at the same spot, and
    the reversed cell-offset table."""
    lead, rank = window.lead, window.rank
    in_dims = list(range(lead, lead + rank))
    k_dims = list(range(lead + rank, lead + 2 * rank))
    read = [*dims(range(lead)), *window.backward_read(in_dims, k_dims, reverse=True)]
    inputs = [_spread(v, g, window), *(_spread(v, e, window) for e in extra)]
    offsets = v.b.array(window.offsets(reverse=True), element_of(g))
    maps = [read] * len(inputs) + [dims(k_dims)]
    bounds = [*shape_of(op.input), *window.kernel]
    return v.b.fold([*inputs, offsets], maps, bounds, k_dims, [0.0], body)[0]


def _tiles(window: Window) -> bool:
    """Windows that tile the input: stride = kernel, no padding, some output.
    Each input position then lies in at most one window, at one cell."""
    return (
        window.stride == window.kernel
        and not any(window.pad_before)
        and not any(window.pad_after)
        and all(window.out_spatial)
    )


def _tiled_pool_grad(v, op: T.WindowOp, g, window: Window, body, extra) -> SSAValue:
    """`_pool_grad` for windows that tile the input: the one fold step of each
    input position (its window's output o, its cell k) as a gather over (lead…,
    o₁, k₁, o₂, k₂, …), which is the input's row-major order up to the rows and
    columns past the last window (+0: no window reaches them). `extra` values
    have g's shape or rank 0."""
    lead, rank = window.lead, window.rank
    o_dims = [lead + 2 * a for a in range(rank)]
    k_dims = [lead + 2 * a + 1 for a in range(rank)]
    read = [*dims(range(lead)), *dims(o_dims)]
    inputs = [g, *extra, v.b.array(window.offsets(), element_of(g))]
    maps = [read, *(read if shape_of(e) else [] for e in extra), dims(k_dims)]
    bounds = [*shape_of(op.input)[:lead]]
    for o, k in zip(window.out_spatial, window.kernel, strict=True):
        bounds += [o, k]
    tiled = v.b.fold(inputs, maps, bounds, [], [0.0], body)[0]
    covered = [o * k for o, k in zip(window.out_spatial, window.kernel, strict=True)]
    grad = v.b.reshape(tiled, [*shape_of(op.input)[:lead], *covered])
    rest = [n - c for n, c in zip(window.in_spatial, covered, strict=True)]
    return v.b.pad(grad, [0] * (lead + rank), [0] * lead + rest)


def max_pool_forward(v, op: T.MaxPoolOp) -> tuple[SSAValue, SSAValue]:
    """The winner fold in the forward copy: its first result, the value of the
    first maximal real cell, is the op's own result (the same cell by the same
    comparisons), so the forward copy needs no `tlir.max_pool` and the op
    before it (a relu) fuses into the fold."""
    return _pool_winners(v, op, Window.of_pool(op))


@vjp_rule(T.MaxPoolOp, forward=max_pool_forward)
def max_pool(v, op: T.MaxPoolOp, g: SSAValue, wants: list[bool]) -> list:
    """Each output's g added to its first maximal real cell; outputs in row-major order."""
    window = Window.of_pool(op)
    winners = v.saved[op]  # the rule runs only where the input needs a gradient

    def body(s: Scalar, a: list[SSAValue]) -> list[SSAValue]:
        grad, winner, offset, acc = a
        return [s.select(s.cmp("oeq", winner, offset), s.add(acc, grad), acc)]

    if _tiles(window):
        return [_tiled_pool_grad(v, op, g, window, body, [winners])]
    return [_pool_grad(v, op, g, window, body, [winners])]


def _pool_winners(v, op: T.MaxPoolOp, window: Window) -> tuple[SSAValue, SSAValue]:
    """Per output, the value and the row-major position + 1 of the first
    maximal real cell. Without padding every cell is real: the flag is 1."""
    lead, rank = window.lead, window.rank
    low = [0] * lead + list(window.pad_before)
    x = op.input
    x_pad = v.b.pad(x, low, low)
    padded = any(low)
    valid: SSAValue | float = 1.0  # every cell is real
    if padded:
        valid = v.b.pad(v.b.ones(shape_of(x), element_of(x)), low, low)
    offsets = v.b.array(window.offsets(), element_of(x))
    out_dims = range(lead, lead + rank)
    k_dims = list(range(lead + rank, lead + 2 * rank))
    read = [*dims(range(lead)), *window.padded_read(out_dims, k_dims)]

    def body(s: Scalar, a: list[SSAValue]) -> list[SSAValue]:
        value, ok, offset, *state = a
        return s.first_max(value, ok, offset, state)

    bounds = [*shape_of(op.result), *window.kernel]
    maps = [read, read, dims(k_dims)]
    best, _, winners = v.b.fold([x_pad, valid, offsets], maps, bounds, k_dims, [0.0] * 3, body)
    return best, winners


@vjp_rule(T.AvgPoolOp)
def avg_pool(v, op: T.AvgPoolOp, g: SSAValue, wants: list[bool]) -> list:
    """acc[cell] += g/kernelProd for each output (row-major) and real cell of its window."""
    window = Window.of_pool(op)
    volume = float(window.volume)

    def body(s: Scalar, a: list[SSAValue]) -> list[SSAValue]:
        grad, ok, _offset, acc = a
        return [s.select(s.nonzero(ok), s.add(acc, s.div(grad, s.const(volume))), acc)]

    if _tiles(window):
        ones = v.b.ones([], element_of(g))
        return [_tiled_pool_grad(v, op, g, window, body, [ones])]
    ones = v.b.ones(shape_of(g), element_of(g))
    return [_pool_grad(v, op, g, window, body, [ones])]


@vjp_rule(T.SoftmaxOp)
def softmax(v, op: T.SoftmaxOp, g: SSAValue, wants: list[bool]) -> list:
    """s = Σ (g·y) per row from +0; dx = y·(g − s); y the forward result."""
    shape, axis = shape_of(g), op.axis.value.data
    full = dims(range(len(shape)))
    row = [d(a) for a in range(len(shape)) if a != axis]
    s_row = v.b.fold([g, op.result], [full, full], shape, [axis], [0.0], _product_term)[0]

    def body(s: Scalar, a: list[SSAValue]) -> list[SSAValue]:
        return [s.mul(a[1], s.sub(a[0], a[2]))]

    return [v.b.fold([g, op.result, s_row], [full, full, row], shape, [], [0.0], body)[0]]


@vjp_rule(T.HardMaskedSoftmaxOp)
def hard_masked_softmax(v, op: T.HardMaskedSoftmaxOp, g: SSAValue, wants: list[bool]) -> list:
    """D3: dx = w·(g − s), s = Σ over the row of g·w from +0; blocked entries +0."""
    shape = shape_of(g)
    if not shape:
        return [v.b.zeros_like(g)]
    last = len(shape) - 1
    full, row = dims(range(len(shape))), dims(range(last))
    allowed = np.array(op.mask.get_values(), bool).reshape(shape).astype(np.float64)
    mask = v.b.array(allowed, element_of(g))
    s_row = v.b.fold([g, op.result], [full, full], shape, [last], [0.0], _product_term)[0]

    def body(s: Scalar, a: list[SSAValue]) -> list[SSAValue]:
        grad, w, ok, total = a[:4]
        return [s.select(s.nonzero(ok), s.mul(w, s.sub(grad, total)), s.const(0.0))]

    inputs, maps = [g, op.result, mask, s_row], [full, full, full, row]
    return [v.b.fold(inputs, maps, shape, [], [0.0], body)[0]]
