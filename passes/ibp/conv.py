"""The interval `conv` rule: a `tlir_ad.fold` of directed additions from
(0, 0) per output, local input channel outermost, kernel cells row-major (a
cell in the padding before the input adds no term, one after it a zero
term), then the bias; on the fast path the zero terms are constants and a
one-vector channels-inner fold takes a register tile of positions.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

from xdsl.ir import SSAValue

from tlir.dialects import tlir as T
from tlir.passes.autodiff.builder import Scalar, d, shape_of
from tlir.passes.ibp import conv_cells as cells
from tlir.passes.ibp import scalar as D
from tlir.passes.ibp.elementwise import zero_starts
from tlir.passes.ibp.structured import (
    add_bias,
    contraction_term,
    factor_inputs,
    fast_contraction_check,
    fast_enough,
    nonfinite_count,
    permuted,
    take_factor,
)
from tlir.passes.ibp.table import Context, Out, ibp_rule

ZERO_TERMS = True
"""The fast path's conv adds its zero terms (cells in the padding after the
input) as constants where their flag is the same for the whole vector
(`scalar.fast_term`'s `inside`); off, it computes them as any term."""


def _unpermuted(pair: Sequence[SSAValue]) -> tuple[list[SSAValue], list[int] | None]:
    """The operands of the permute both ends come from, and its permutation
    (the ends themselves and None where they do not come from one)."""
    owners = [v.owner for v in pair]
    if not all(isinstance(o, T.PermuteOp) for o in owners):
        return list(pair), None
    perms = {tuple(T._ints(o.perm)) for o in owners}
    if len(perms) != 1:
        return list(pair), None
    return [o.operands[0] for o in owners], list(perms.pop())


def _moved(per_axis: Sequence, perm: Sequence[int] | None) -> list:
    """Per axis of `permute(v, perm)` → per axis of `v` (axis k is v's perm[k])."""
    if perm is None:
        return list(per_axis)
    moved = [None] * len(perm)
    for k, m in enumerate(perm):
        moved[m] = per_axis[k]
    return moved


POSITION_TILE = 2
"""Output positions per register tile of the channels-inner conv fold (1:
none). With one 512-bit vector of output channels, an output position has
only its two sums (lo, hi), each term's addition then step a chain of
dependent operations; a tile of positions gives the loop independent chains
to overlap. (A tile of 4 ran slower: LLVM kept its sums in memory.)"""

TILE_MIN_TERMS = 32
"""The fewest terms per output (local input channels × kernel cells) for
which the conv fold takes the tile: below, the CPU's out-of-order window
already overlaps one position's chains with the next's (the 3 → 16 conv
with 3×3 kernels, 27 terms, ran as fast without it; 36 terms 6 % faster
with it, 72 terms 13 %, 288 terms 18 %)."""


def _position_tile(ctx: Context, fast: bool, channels_inner: bool, cfg, out_spatial) -> int:
    """Positions of the last output axis per register tile (1: none): on the
    fast path, channels inner, one vector of output channels per group, at
    least `TILE_MIN_TERMS` terms per output and the tile dividing the axis."""
    lanes = 64 // ctx.dtype.itemsize
    cin, cout = cfg.in_channels // cfg.groups, cfg.out_channels // cfg.groups
    taken = fast and channels_inner and cout <= lanes
    taken = taken and cin * math.prod(cfg.kernel) >= TILE_MIN_TERMS
    return POSITION_TILE if taken and out_spatial[-1] % POSITION_TILE == 0 else 1


@ibp_rule(T.ConvOp)
def _conv(ctx, op, boxes):
    """Per output, local input channel outermost, kernel cells row-major: a
    cell in the padding before the input adds no term, one after it a zero term.

    The innermost (vectorised) loop runs over the output channels when a group
    has at least as many of them as the last output axis has positions: the
    weight is then permuted once per call to [input channel, cell…, output
    channel] (contiguous along the vector) and the input value and the padding
    test are the same for the whole vector; the folded result is permuted back.
    Otherwise it runs over the last output axis. Either way each output takes
    its terms in the same order. Input boxes that come from one permute (a
    pool's result going back to channels first) are padded and read in the
    permute's operand's layout instead (the maps permuted): the fold reads one
    input value per term for the whole vector, from either layout. On the
    fast path, channels inner, a zero term adds its steps as constants
    without its products (`conv_cells.cell_tables`, `scalar.fast_term`), and
    with one vector of output channels and many terms per output the fold
    runs a register tile of positions of the last axis (`_position_tile`)."""
    x, weight, bias = boxes
    cfg = op.config
    axis, groups = cfg.channel_axis, cfg.groups
    x_shape, out_shape = shape_of(x.lo), ctx.shape(op)
    lead, rank = x_shape[:axis], len(cfg.kernel)
    out_spatial = out_shape[axis + 1 :]
    cin, cout = cfg.in_channels // groups, cfg.out_channels // groups
    low = [0] * (axis + 1) + list(cfg.padding)
    high = [0] * (axis + 1) + list(cfg.padding_after)
    ends, perm = _unpermuted(x.pair)
    if perm is not None:
        ctx.bypassed += [v.owner for v in x.pair]
    padded = [ctx.b.pad(v, _moved(low, perm), _moved(high, perm)) for v in ends]
    # the weight is dense, block-diagonal: weight[g·cout + oc, g·cin + lc, k…]
    w = weight.lo if weight.point else weight.pair
    channels_inner = bool(out_spatial) and cout >= out_spatial[-1]
    fast = fast_enough(ctx, [*lead, groups, *out_spatial, cin, *cfg.kernel, cout])
    # the zero terms' shortcut where their flag is the same for the whole vector
    in_spatial = x_shape[axis + 1 :]
    zero_terms = ZERO_TERMS and fast and channels_inner
    zero_terms = zero_terms and cells.has_cells_after(cfg, in_spatial, out_spatial)
    masks = cells.cell_tables(ctx, cfg, in_spatial, out_spatial, zero_terms)
    r = len(lead)
    g_dim = r
    tile = _position_tile(ctx, fast, channels_inner, cfg, out_spatial)
    tiled = [*out_spatial[:-1], out_spatial[-1] // tile] if out_spatial else []
    if channels_inner:  # dimensions: lead…, g, o…, lc, k…, [p,] oc
        # with a tile, the last o counts tiles and p (position in the tile)
        # sits after the summed dimensions: LLVM unrolls it and keeps each
        # position's sums in registers across the terms
        o_dims = [r + 1 + a for a in range(rank)]
        lc_dim = r + 1 + rank
        k_dims = [lc_dim + 1 + a for a in range(rank)]
        p_dim = lc_dim + 1 + rank
        oc_dim = p_dim + (tile > 1)
        p_bound = [tile] if tile > 1 else []
        bounds = [*lead, groups, *tiled, cin, *cfg.kernel, *p_bound, cout]
        w = permuted(ctx, w, [1, *range(2, 2 + rank), 0])
        w_map = [d(g_dim) * cin + d(lc_dim), *(d(k) for k in k_dims), d(g_dim) * cout + d(oc_dim)]
    else:  # dimensions: lead…, g, oc, lc, k…, o…
        oc_dim, lc_dim = r + 1, r + 2
        k_dims = [r + 3 + a for a in range(rank)]
        o_dims = [r + 3 + rank + a for a in range(rank)]
        bounds = [*lead, groups, cout, cin, *cfg.kernel, *out_spatial]
        w_map = [d(g_dim) * cout + d(oc_dim), d(g_dim) * cin + d(lc_dim), *(d(k) for k in k_dims)]
    w_inputs = factor_inputs(w)
    positions = [d(o) for o in o_dims]  # each output axis's position
    if tile > 1:
        positions[-1] = d(o_dims[-1]) * tile + d(p_dim)
    spatial = [
        o * s + d(k) * dl
        for o, k, s, dl in zip(positions, k_dims, cfg.stride, cfg.dilation, strict=True)
    ]
    x_map = _moved([*(d(k) for k in range(r)), d(g_dim) * cin + d(lc_dim), *spatial], perm)
    mask_maps = [[*(d(k_dims[a]) for a in ax), *(positions[a] for a in ax)] for ax, _ in masks]
    covered = weight.point and cells.every_cell_reads_input(cfg, in_spatial, out_spatial)
    if zero_terms and not covered:  # the shortcut equals the term only for a finite weight
        ctx.diverged.append(nonfinite_count(ctx, [weight.lo] if weight.point else weight.pair))

    def body(s: Scalar, args):
        args = list(args)
        xl, xh = args.pop(0), args.pop(0)
        wv = take_factor(w, args)
        flags = [args.pop(0) for _ in masks]
        acc_l, acc_h = args
        inside = None
        if zero_terms:
            # `ult` (less or unordered: no flag is NaN) and the skip's `> 0`
            # read the flags of one compare of the flag with 0 (`olt` would
            # swap its operands, `!= 0` also test for NaN)
            inside = D.all_of(s, *(s.cmp("ult", f, s.const(0.0)) for f in flags))
        new_l, new_h = contraction_term(fast, s, (xl, xh), wv, acc_l, acc_h, inside)
        if not flags:
            return [new_l, new_h]
        skip = functools.reduce(s.either, [s.cmp("ogt", f, s.const(0.0)) for f in flags])
        return [s.select(skip, acc_l, new_l), s.select(skip, acc_h, new_h)]

    summed = [lc_dim, *k_dims]
    sums_shape = [n for k, n in enumerate(bounds) if k not in summed]
    acc = ctx.b.fold(
        [*padded, *w_inputs, *(m for _, m in masks)],
        [x_map, x_map] + [w_map] * len(w_inputs) + mask_maps,
        bounds, summed, zero_starts(ctx, sums_shape), body,
    )  # fmt: skip
    if tile > 1 and groups > 1:  # [… o_outer, p, oc] → [… o_last, oc]: p inside o_outer
        acc = [ctx.b.reshape(v, [*lead, groups, *out_spatial, cout]) for v in acc]
    if channels_inner and groups == 1:  # the bias along the vector, then [lead…, o…, oc] → out
        acc = tuple(ctx.b.reshape(v, [*lead, *out_spatial, cout]) for v in acc)
        if fast:  # on the sums as the bias's fold reads them (a pool may take the check over)
            fast_contraction_check(ctx, acc)
        summed = add_bias(ctx, acc, bias, r + rank)
        back = [*range(r), r + rank, *range(r, r + rank)]
        return Out(*(permuted(ctx, v, back) for v in (summed.lo, summed.hi)))
    if fast:
        fast_contraction_check(ctx, acc)
    if channels_inner:  # [lead…, g, o…, oc] → [lead…, g, oc, o…]
        back = [*range(r + 1), r + 1 + rank, *range(r + 1, r + 1 + rank)]
        acc = [permuted(ctx, v, back) for v in acc]
    acc = tuple(ctx.b.reshape(v, out_shape) for v in acc)
    return add_bias(ctx, acc, bias, axis)
