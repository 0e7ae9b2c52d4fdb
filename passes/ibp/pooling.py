"""The interval rule of `max_pool`: the forward op on each end (max_pool is
exact and monotone), both ends computed in one fold where it can.

Without padding and with at most `MAX_WINDOW` cells, one `tlir_ad.fold` over
the pooled positions reads each cell of the window as an operand of its own
(both ends in one kernel). Where both ends come from `relu`, the fold reads
the relu's operands and applies relu to each cell; where they then come from
one `permute` (a conv's sums go back to channels first through one), it reads
the permute's operands in their own layout (the vector runs along their last
axis, the channels) and permutes the pooled result, a quarter of the data for
a 2×2 pool. The relu and the permute of the whole tensor are left unused, and
their kernels are never called. Measured on bench/autodiff.py's CNN (one
thread): its IBP went from about 4.3x to 3.9x its forward in f64 and f32; the
permute, relu, max_pool and pad of the first layer's two ends had cost half
as much as its conv in f32 (a transpose vectorised with gathers and scatters).

The result is the forward op's, bit for bit: relu is `x ≤ 0 ? +0 : x` (NaN
stays, −0 becomes +0: `Emitter.clamp_at_zero`, the reference's relu), and
without padding every cell is real, so `max_pool`'s rule (the first real
cell, then a later one only where strictly greater: `lower_max_pool`, the
reference's `_max_pool`) is the chain `acc = c₀; acc = c > acc ? c : acc`
(`ogt`) over the cells in row-major order, ties of ±0 and NaN included.
A permute only moves values.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

from xdsl.ir import SSAValue

from tlir.dialects import tlir as T
from tlir.passes.autodiff.builder import Scalar, d, shape_of
from tlir.passes.ibp.elementwise import forward_on_ends, zero_starts
from tlir.passes.ibp.table import Bound, Context, Out, ibp_rule

MAX_WINDOW = 16
"""The most cells of a window read as separate operands (a larger window, or
a padded one, takes the forward op on each end)."""


def _peel(value: SSAValue, op_class) -> SSAValue | None:
    owner = value.owner
    return owner.operands[0] if isinstance(owner, op_class) else None


def _permutation(value: SSAValue) -> tuple[int, ...] | None:
    owner = value.owner
    return tuple(T._ints(owner.perm)) if isinstance(owner, T.PermuteOp) else None


def _clamp_at_zero(s: Scalar, x: SSAValue) -> SSAValue:
    """relu as the forward lowers it: `x ≤ 0 ? +0 : x` (NaN stays NaN)."""
    zero = s.const(0.0)
    return s.select(s.cmp("ole", x, zero), zero, x)


def _window_max(s: Scalar, cells: Sequence[SSAValue]) -> SSAValue:
    """The first cell, then each later one where strictly greater (`ogt`)."""
    best = cells[0]
    for cell in cells[1:]:
        best = s.select(s.cmp("ogt", cell, best), cell, best)
    return best


@ibp_rule(T.MaxPoolOp)
def _max_pool(ctx: Context, op: T.MaxPoolOp, boxes: Sequence[Bound]) -> Out:
    kernel, stride, padding = T._ints(op.kernel), T._ints(op.stride), T._ints(op.padding)
    box = boxes[0]
    if any(padding) or math.prod(kernel) > MAX_WINDOW or box.point:
        return forward_on_ends(ctx, op, boxes)
    ends = list(box.pair)
    relu = all(_peel(v, T.ReluOp) is not None for v in ends)
    if relu:
        ends = [_peel(v, T.ReluOp) for v in ends]
    rank = len(shape_of(ends[0]))
    perm = tuple(range(rank))
    perms = {_permutation(v) for v in ends}
    if len(perms) == 1 and None not in perms:  # read the permute's operand in its own layout
        perm = perms.pop()
        ends = [_peel(v, T.PermuteOp) for v in ends]
    out_shape = ctx.shape(op)
    r = rank - len(kernel)
    # the fold's dimensions are the axes of `ends` (the pool's input is
    # permute(ends, perm): its axis k is their axis perm[k])
    axis_of = {m: k for k, m in enumerate(perm)}
    fold_shape = [out_shape[axis_of[m]] for m in range(rank)]
    cells = list(itertools.product(*(range(k) for k in kernel)))

    def index(m: int, cell) -> object:
        a = axis_of[m] - r
        return d(m) if a < 0 else d(m) * stride[a] + cell[a]

    maps = [[index(m, c) for m in range(rank)] for c in cells]

    def body(s: Scalar, args):
        n = len(cells)
        result = []
        for end in (0, 1):
            values = list(args[end * n : (end + 1) * n])
            if relu:
                values = [_clamp_at_zero(s, v) for v in values]
            result.append(_window_max(s, values))
        return result

    pooled = ctx.b.fold(
        [e for e in ends for _ in cells], maps * 2, fold_shape, [], zero_starts(ctx, fold_shape),
        body,
    )  # fmt: skip
    if perm == tuple(range(rank)):
        return Out(*pooled)
    return Out(
        *(ctx.b.tlir(T.PermuteOp, [v], out_shape, perm=T.i64_array(list(perm))) for v in pooled)
    )
