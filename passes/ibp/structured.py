"""Interval rules of the folds: sums, means, `linear`, `matmul`, `avg_pool`
(`conv`: passes/ibp/conv.py, on the helpers here) — each a `tlir_ad.fold` of
directed additions from (0, 0) in TorchLean's order of terms, then a map for
the bias or the mean.

The folds put the summed dimensions before the last output dimension, so the
innermost loop runs over independent outputs (vectorisable) while each output
still takes its terms in ascending order.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from xdsl.ir import SSAValue

from tlir.bounds import count_interval
from tlir.dialects import tlir as T
from tlir.passes.autodiff.builder import Scalar, d, shape_of
from tlir.passes.ibp import scalar as D
from tlir.passes.ibp import signed
from tlir.passes.ibp.elementwise import any_failed, pair_map
from tlir.passes.ibp.table import Bound, Context, NoBox, Out, SumCheck, Twin, ibp_rule


def directed_sum(
    ctx: Context, lo: SSAValue, hi: SSAValue, reductions: Sequence[int]
) -> tuple[SSAValue, SSAValue]:
    """Fold lo with addDown and hi with addUp from 0 along `reductions`."""
    shape = shape_of(lo)
    everything = [d(k) for k in range(len(shape))]

    def body(s: Scalar, args):
        low, high, acc_l, acc_h = args
        return [D.add_down(s, acc_l, low), D.add_up(s, acc_h, high)]

    return tuple(
        ctx.b.fold([lo, hi], [everything, everything], shape, list(reductions), [0.0, 0.0], body)
    )


def mean_of_sums(ctx: Context, s_lo: SSAValue, s_hi: SSAValue, n: int) -> Out:
    """The directed mean's division: the sums and the count interval (1 added
    n times) finite, `div_bounds`, finite (docs/verification.md#the-rules)."""
    if n == 0:
        raise NoBox()
    c_lo, c_hi = (float(v) for v in count_interval(n, ctx.dtype))
    if not (math.isfinite(c_lo) and math.isfinite(c_hi)):
        raise NoBox()

    def body(s: Scalar, args):
        sl, sh = args
        ml, mh, ok = D.div_bounds(s, sl, sh, s.const(c_lo), s.const(c_hi))
        return [ml, mh, D.bad(s, D.all_of(s, D.checked(s, sl, sh), ok, D.checked(s, ml, mh)))]

    lo, hi, flags = ctx.b.map([s_lo, s_hi], body, 3)
    return Out(lo, hi, [any_failed(ctx, flags)])


def directed_mean(ctx: Context, lo: SSAValue, hi: SSAValue, axis: int) -> Out:
    n = shape_of(lo)[axis]
    if n == 0:
        raise NoBox()
    return mean_of_sums(ctx, *directed_sum(ctx, lo, hi, [axis]), n)


@ibp_rule(T.SumOp)
def _sum(ctx: Context, op, boxes: Sequence[Bound]) -> Out:
    n = math.prod(shape_of(boxes[0].lo))
    flat = [ctx.b.reshape(v, [n]) for v in boxes[0].pair]
    return Out(*directed_sum(ctx, *flat, [0]))


@ibp_rule(T.ReduceSumOp)
def _reduce_sum(ctx, op, boxes):
    return Out(*directed_sum(ctx, *boxes[0].pair, [op.axis.value.data]))


@ibp_rule(T.ReduceMeanOp)
def _reduce_mean(ctx, op, boxes):
    return directed_mean(ctx, *boxes[0].pair, op.axis.value.data)


@ibp_rule(T.MseLossOp)
def _mse_loss(ctx, op, boxes):
    """sub, the exact case split of the square, the directed mean of all."""
    (yl, yh), (tl, th) = (b.pair for b in boxes)

    def square(s: Scalar, args):
        y_lo, y_hi, t_lo, t_hi = args
        lo, hi = D.sub_down(s, y_lo, t_hi), D.sub_up(s, y_hi, t_lo)
        zero = s.const(0.0)
        l2, u2 = D.mul_down(s, lo, lo), D.mul_down(s, hi, hi)
        straddles = s.both(s.cmp("olt", lo, zero), s.cmp("olt", zero, hi))
        low = s.select(straddles, zero, s.select(s.cmp("olt", l2, u2), l2, u2))
        lu, uu = D.mul_up(s, lo, lo), D.mul_up(s, hi, hi)
        return low, s.select(s.cmp("ogt", lu, uu), lu, uu)

    sq = pair_map(ctx, [yl, yh, tl, th], square)
    n = math.prod(shape_of(yl))
    flat = [ctx.b.reshape(v, [n]) for v in (sq.lo, sq.hi)]
    if n == 0:
        raise NoBox()
    return mean_of_sums(ctx, *directed_sum(ctx, *flat, [0]), n)


def _transposed_value(ctx: Context, v: SSAValue) -> SSAValue:
    rows, cols = shape_of(v)
    return ctx.b.tlir(T.TransposeOp, [v], [cols, rows], axis1=T.i64_attr(0),
                      axis2=T.i64_attr(1))  # fmt: skip


def _transposed(ctx: Context, box: Bound) -> SSAValue | tuple[SSAValue, SSAValue]:
    """A [rows, cols] parameter as [cols, rows] (a point stays one tensor)."""

    if box.point:
        return _transposed_value(ctx, box.lo)
    return _transposed_value(ctx, box.lo), _transposed_value(ctx, box.hi)


def _paneled(ctx: Context, box: Bound, lanes: int) -> SSAValue | tuple[SSAValue, SSAValue]:
    """A [rows, cols] parameter as [rows / lanes, cols, lanes]: the panel of
    `lanes` rows contiguous along the columns (a point stays one tensor)."""

    def t(v):
        rows, cols = shape_of(v)
        blocks = ctx.b.reshape(v, [rows // lanes, lanes, cols])
        return ctx.b.tlir(T.PermuteOp, [blocks], [rows // lanes, cols, lanes],
                          perm=T.i64_array([0, 2, 1]))  # fmt: skip

    if box.point:
        return t(box.lo)
    return t(box.lo), t(box.hi)


def factor_inputs(w) -> list[SSAValue]:
    return [w] if isinstance(w, SSAValue) else list(w)


def take_factor(w, args: list[SSAValue]):
    """The body's view of a factor: one argument for a point, two for a box."""
    if isinstance(w, SSAValue):
        return args.pop(0)
    return args.pop(0), args.pop(0)


def add_bias(ctx: Context, acc: tuple[SSAValue, SSAValue], bias: Bound, axis: int) -> Out:
    """`addDown(acc, b)`, `addUp(acc, b)` with `b` read along `axis`.

    The sums are the fold's start values, so its kernel updates them in place
    (a fold from a number would first fill its result with it: scattered
    stores where the result's layout is not the loops')."""
    shape = shape_of(acc[0])
    bias_inputs = [bias.lo] if bias.point else list(bias.pair)

    def body(s: Scalar, args):
        bl = args[0]
        bh = bl if bias.point else args[1]
        al, ah = args[-2:]
        return [D.add_down(s, al, bl), D.add_up(s, ah, bh)]

    maps = [[d(axis)]] * len(bias_inputs)
    return Out(*ctx.b.fold(bias_inputs, maps, shape, [], list(acc), body))


def fast_contraction_check(ctx: Context, acc: Sequence[SSAValue]) -> None:
    """Record whether the fast path's sums `acc` (lo, hi, before the bias) may
    differ from the exact rule's: where one of them is not finite.

    The fast path (`scalar.fast_term`) replaces each step `nextDown(y)` by
    `f(y) = RD(y − m)` (`m` the smallest subnormal; `nextUp` by `RU(y + m)`,
    the mirror, which the same argument covers). The products, `min2`/`max2`
    and additions are the exact rule's, in the same order. `f(y) = nextDown(y)`
    for every `y` but two: `f(+inf) = +inf` (nextDown: the largest float) and
    `f(m) = −0` (nextDown: `+0`); `f(NaN)` is a NaN. The products read only
    the boxes, so they are the exact rule's; per term the exact rule computes
    `t = nextDown(min2(p1, p2))`, `a' = nextDown(a + t)` from `a = 0`. Claim:
    each fast `ã`, `t̃` equals its exact value, or both are zeros (of any
    signs), or the fast one is `+inf` or NaN. Induction over the terms:
    * `t̃ = f(min2(p1, p2))`: equal, or `−0` against `+0` (the min is `m`), or
      `+inf` (the min is `+inf`), or NaN (the min is NaN, and so is `t`).
    * `ã + t̃` with both finite: equal to `a + t` when neither is a zero;
      when one is a zero (and so is its exact value) the sum is the other
      operand, equal in both; when both are, the sum is a zero in both. If
      `ã` or `t̃` is `+inf` or NaN, the sum is `+inf` or NaN (`+inf` plus a
      finite value or `+inf`; `+inf − inf` and NaN give NaN).
    * `f` of that sum: a zero gives `−m` = `nextDown(±0)`, equal; `m` gives
      `−0` against `+0`; `+inf` stays `+inf`; NaN stays NaN; else equal.
    `+inf` and NaN are absorbing from then on (the sum and `f` keep them), so
    if the final `ã` is finite, no step diverged and `ã` equals `a` up to the
    sign of a zero. The bias is then added with exact steps,
    `nextDown(ã + b)`: for a zero `ã` the sum is `b` when `b` is not a zero,
    else a zero in both, whose step is `−m` either way: the same bits. (A
    conv's skipped cells keep `ã`, which changes nothing above.) So where
    every fast sum is finite, the box is the exact rule's bit for bit; else
    the caller computes the exact rule (`CompiledModel.bounds`).

    A conv's zero terms (cells in the padding after the input, `x = [+0,
    +0]`) add `t̃ = f(±0) = −m` without computing the products
    (`scalar.fast_term`'s `inside`). That is the fast term's own `t̃` where
    the weight's entry `w` is finite (both products are zeros, so is their
    `min2`), and the induction above holds unchanged. Where `w` is `±inf` or
    NaN the fast term's products would be NaN and the shortcut's `t̃` is not
    theirs, so the conv adds the count of the weight's non-finite entries to
    the check (`nonfinite_count`), except for a point weight (a constant)
    whose every kernel cell lies on the input for some output position: an
    entry `w` that is not finite then also meets an input cell `x` in some
    output's full term, where `x_lo·w` and `x_hi·w` are both `±inf` or NaN
    (whatever `x`: `0·inf` is NaN), and so are their `min2`, its step and
    the sum, and the later terms keep it (a non-finite sum plus anything,
    or `−m`, is not finite): that output's lower sum is not finite, which
    the check counts. (A box weight's `min2`/`max2` of four products may
    drop a NaN, so a box weight is always counted.)

    Only that every sum is finite matters, not which kernel finds out: a
    `max_pool` whose windows cover every sum and that reads them through the
    bias's fold takes this check's place (`pooling.taken_check`), so the
    sums are read once, not twice."""
    before = ctx.b.block.last_op
    ctx.diverged.append(nonfinite_count(ctx, acc))
    ops = []
    op = before.next_op if before is not None else ctx.b.block.first_op
    while op is not None:
        ops.append(op)
        op = op.next_op
    ctx.sum_checks[acc[0]] = SumCheck(acc[1], len(ctx.diverged) - 1, tuple(ops))


def nonfinite_count(ctx: Context, values: Sequence[SSAValue]) -> SSAValue:
    """A rank-0 count of the positions where one of `values` (tensors of one
    shape) is ±inf or NaN."""
    # counted per first and last index (a fold over the axes between: its
    # last loop vectorises, its first splits across threads), then summed
    shape = shape_of(values[0])
    row = next((n for n in CHECK_ROWS if len(shape) > 1 and _splits(shape, n)), None)
    if row is not None:
        shape = (shape[0], math.prod(shape[1:]) // row, row)
        values = [ctx.b.reshape(v, shape) for v in values]
    everything = [d(k) for k in range(len(shape))]

    def body(s: Scalar, args):
        *ends, count = args
        return [s.add(count, D.bad(s, D.all_of(s, *(D.finite(s, v) for v in ends))))]

    (counts,) = ctx.b.fold(
        list(values), [everything] * len(values), shape, list(range(1, len(shape) - 1)), [0.0],
        body,
    )  # fmt: skip
    if row is not None and shape[0] > 1:  # [first, row] → [row], a vector loop (a 0/1 count
        # is exact in any order), before the sum's one serial chain
        (counts,) = ctx.b.fold(
            [counts], [[d(0), d(1)]], [shape[0], row], [0], [0.0],
            lambda s, args: [s.add(args[1], args[0])],
        )  # fmt: skip
    return any_failed(ctx, counts)


CHECK_ROWS = (512, 256, 128)
"""The lengths of the last axis a finite check reshapes its sums to, the
first that divides them: LLVM vectorises a loop that long over the counts,
where it unrolled a short one (16 channels) whole into scalar code."""


def _splits(shape: Sequence[int], row: int) -> bool:
    rest = math.prod(shape[1:])
    return rest % row == 0 and rest > row


FAST_TERMS = 1 << 15
"""The fewest terms for which a contraction takes the fast path: below, its
check (two more kernels) would cost more than the steps it saves. (The
bench MLP's 64 → 10 `linear` at 64 rows, 40960 terms, ran its bounds about
6 % faster on the fast path.)"""


def fast_enough(ctx: Context, bounds: Sequence[int]) -> bool:
    return ctx.fast and math.prod(bounds) >= FAST_TERMS


def contraction_term(
    fast: bool, s: Scalar, x, w, acc_l, acc_h, inside: SSAValue | None = None
) -> list[SSAValue]:
    """One term of `linear`/`conv`: `addDown(acc, lo)`, `addUp(acc, hi)` of
    the interval product, with TorchLean's steps or the fast path's (where
    `inside` is false, the fast path's zero term: `scalar.fast_term`)."""
    if fast:
        return list(D.fast_term(s, x, w, acc_l, acc_h, inside))
    tl, th = D.product(s, x, w)
    return [D.add_down(s, acc_l, tl), D.add_up(s, acc_h, th)]


ROW_BLOCKS = (4, 2)
"""Rows of a batched interval `linear` per pass over its weight: the first
that divides the rows (else 1)."""

TILE_VECTORS = 2
"""512-bit vectors of outputs per register tile of the interval `linear`."""


def _row_block(rows: int) -> int:
    return next((b for b in ROW_BLOCKS if rows % b == 0 and rows > b), 1)


@ibp_rule(T.LinearOp)
def _linear(ctx, op, boxes):
    """Per row: from 0 over the columns, `min2`/`max2` of the endpoint
    products, addDown/addUp; the bias last; a leading batch row by row.

    The loops keep the sums in registers along the columns. Where the
    outputs fill whole tiles of `TILE_VECTORS` 512-bit vectors the fold runs
    over [output tile, row block, column, row in the block, output in the
    tile] (LLVM vectorises the last loop and unrolls the row loop), the weight
    permuted once per call into panels [output tile, column, output in the
    tile] that it reads contiguously. Else, with fewer outputs than rows and
    whole vectors of rows or at least two vectors of them (a run-time count
    at a dynamic batch: LLVM's loop takes the remainder), over [output,
    column, row], both ends of the input
    transposed once per call to [column, row]. Else over [row block, column,
    row in the block, output] (each weight row read from cache for the whole
    block). Either way each output takes its columns in ascending order.
    The fast path with a point weight and at least two vectors of rows takes
    the signed layout instead (`_signed_linear`, `passes/ibp/signed.py`)."""
    x, weight, bias = boxes
    lead = shape_of(x.lo)[:-1]
    m, n = shape_of(weight.lo)
    rows = math.prod(lead)
    block = _row_block(rows)
    flat = [ctx.b.reshape(v, [rows, n]) for v in x.pair]
    signed_tile = signed.tile(ctx, weight, rows, m)
    if signed_tile is not None and fast_enough(ctx, [rows, n, m]):
        return _signed_linear(ctx, x, weight, bias, signed_tile)
    lanes = 64 // ctx.dtype.itemsize
    tile = lanes * TILE_VECTORS
    if m % tile == 0:
        layout = "tiles"
        wt = _paneled(ctx, weight, tile)
        bounds = [m // tile, rows // block, n, block, tile]
        x_map = [d(1) * block + d(3), d(2)]
        w_map = [d(0), d(2), d(4)]
    elif m < rows and (rows % lanes == 0 or rows >= 2 * lanes):
        layout = "rows inner"
        wt = weight.lo if weight.point else weight.pair
        flat = [_transposed_value(ctx, v) for v in flat]
        bounds, x_map, w_map = [m, n, rows], [d(1), d(2)], [d(0), d(1)]
    else:
        layout = "outputs inner"
        wt = _transposed(ctx, weight)
        bounds = [rows // block, n, block, m]
        x_map = [d(0) * block + d(2), d(1)]
        w_map = [d(1), d(3)]
        if block == 1:
            bounds, x_map, w_map = [rows, n, m], [d(0), d(1)], [d(1), d(2)]
    reduction = 2 if layout == "tiles" else 1
    w_inputs = factor_inputs(wt)
    fast = fast_enough(ctx, bounds)

    def body(s: Scalar, args):
        args = list(args)
        xl, xh = args.pop(0), args.pop(0)
        w = take_factor(wt, args)
        acc_l, acc_h = args
        return contraction_term(fast, s, (xl, xh), w, acc_l, acc_h)

    acc = ctx.b.fold(
        [*flat, *w_inputs], [x_map, x_map] + [w_map] * len(w_inputs), bounds, [reduction],
        [0.0, 0.0], body,
    )  # fmt: skip
    if fast:
        fast_contraction_check(ctx, acc)
    if layout == "tiles":  # [tile, row block, row, output] → [row block, row, tile, output]
        acc = [permuted(ctx, v, [1, 2, 0, 3]) for v in acc]
    elif layout == "rows inner":  # [output, row] → [row, output]
        acc = [_transposed_value(ctx, v) for v in acc]
    acc = tuple(ctx.b.reshape(v, [*lead, m]) for v in acc)
    return add_bias(ctx, acc, bias, len(lead))


def _signed_linear(ctx: Context, x: Bound, weight: Bound, bias: Bound, t: signed.Tile) -> Out:
    """`signed.signed_sums` over the box stacked [2, column, row] (kept so by
    the `linear` or `relu` before, else stacked here and checked ordered), the
    bias added in that layout; the result kept so too (`table.Twin`), its ends
    transposed back to [row, output] where something else reads them."""
    lead = shape_of(x.lo)[:-1]
    m, n = shape_of(weight.lo)
    rows = math.prod(lead)
    twin = ctx.twin(x)
    both = (
        twin.stacked if twin else signed.stacked(ctx, [ctx.b.reshape(v, [rows, n]) for v in x.pair])
    )
    if not (twin and twin.ordered):
        signed.ordered_check(ctx, both)
    raw, acc = signed.signed_sums(ctx, both, weight.lo, t)
    fast_contraction_check(ctx, raw)
    summed = add_bias(ctx, tuple(acc), bias, 0)
    ends = []
    for v in (summed.lo, summed.hi):
        ends.append(ctx.b.reshape(_transposed_value(ctx, v), [*lead, m]))
        ctx.bypassed += [ends[-1].owner, ends[-1].owner.operands[0].owner]
    stacked = signed.stacked_ends(ctx, summed.lo, summed.hi)
    ctx.bypassed += _producers(stacked, 3)  # dropped where no signed linear reads it
    ctx.twins[ends[0]] = Twin(stacked, bias.point, ends[1])
    return Out(*ends)


def _producers(value: SSAValue, depth: int) -> list:
    """The op giving `value` and those giving its operands, `depth` levels down."""
    op = value.owner
    below = [p for v in op.operands for p in _producers(v, depth - 1)] if depth > 1 else []
    return [op, *below]


def _batch_map(shape: Sequence[int], out_batch: Sequence[int]) -> list:
    """Index expressions of an operand's batch axes (aligned right; an extent 1
    against a larger one reads index 0)."""
    offset = len(out_batch) - len(shape)
    return [
        0 if n == 1 and out_batch[offset + k] != 1 else d(offset + k) for k, n in enumerate(shape)
    ]


@ibp_rule(T.MatmulOp)
def _matmul(ctx, op, boxes):
    """Per output, k ascending: `interval_mul` of the two entries, directed sums."""
    a, b = boxes
    a_shape, b_shape = shape_of(a.lo), shape_of(b.lo)
    a_pair = [ctx.b.reshape(v, (1, *a_shape)) if len(a_shape) == 1 else v for v in a.pair]
    b_pair = [ctx.b.reshape(v, (*b_shape, 1)) if len(b_shape) == 1 else v for v in b.pair]
    a2, b2 = shape_of(a_pair[0]), shape_of(b_pair[0])
    batch = tuple(np.broadcast_shapes(a2[:-2], b2[:-2]))
    (m, n), p = a2[-2:], b2[-1]
    r = len(batch)
    a_map = [*_batch_map(a2[:-2], batch), d(r), d(r + 1)]
    b_map = [*_batch_map(b2[:-2], batch), d(r + 1), d(r + 2)]

    def body(s: Scalar, args):
        al, ah, bl, bh, acc_l, acc_h = args
        tl, th = D.interval_mul(s, al, ah, bl, bh)
        return [D.add_down(s, acc_l, tl), D.add_up(s, acc_h, th)]

    acc = ctx.b.fold(
        [*a_pair, *b_pair], [a_map, a_map, b_map, b_map], [*batch, m, n, p], [r + 1],
        [0.0, 0.0], body,
    )  # fmt: skip
    shape = ctx.shape(op)
    return Out(*(ctx.b.reshape(v, shape) for v in acc))


def permuted(ctx: Context, w, perm: Sequence[int]):
    """A factor (a point or a pair) with its axes permuted (`tlir.permute`)."""

    def p(v):
        shape = shape_of(v)
        return ctx.b.tlir(T.PermuteOp, [v], [shape[k] for k in perm], perm=T.i64_array(perm))

    return p(w) if isinstance(w, SSAValue) else (p(w[0]), p(w[1]))


@ibp_rule(T.AvgPoolOp)
def _avg_pool(ctx, op, boxes):
    """The directed mean of each window's cells, padded cells [0, 0] and counted."""
    kernel, stride, padding = T._ints(op.kernel), T._ints(op.stride), T._ints(op.padding)
    x_shape, out_shape = shape_of(boxes[0].lo), ctx.shape(op)
    r = len(x_shape) - len(kernel)
    padded = [ctx.b.pad(v, [0] * r + list(padding), [0] * r + list(padding)) for v in boxes[0].pair]
    rank = len(kernel)
    o_dims = [r + a for a in range(rank)]
    k_dims = [r + rank + a for a in range(rank)]
    x_map = [*(d(k) for k in range(r))] + [
        d(o) * s + d(k) for o, k, s in zip(o_dims, k_dims, stride, strict=True)
    ]

    def body(s: Scalar, args):
        low, high, acc_l, acc_h = args
        return [D.add_down(s, acc_l, low), D.add_up(s, acc_h, high)]

    sums = ctx.b.fold(padded, [x_map, x_map], [*out_shape, *kernel], k_dims, [0.0, 0.0], body)
    return mean_of_sums(ctx, *sums, math.prod(kernel))
