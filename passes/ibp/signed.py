"""The fast path of an interval `linear` with a point weight, vectorised over
the rows of the batch: each vector holds one weight entry `w`, so `min2`/`max2`
of the two endpoint products is the product of the endpoint the sign of `w`
picks (`scalar.signed_term`), and picking it is choosing which row of the
stacked box to load, not a vector operation (`tlir-linalg-to-loops` turns a
select between two inputs that read one buffer into one load at the selected
index).

Why the choice is the rule's: the exact rule computes `a = RN(x_lo·w)`,
`b = RN(x_hi·w)`, then `min2(a, b) = (a > b ? b : a)` and `max2(a, b) =
(a > b ? a : b)`, each stepped. The fast path's result stands only where
every sum is finite (`structured.fast_contraction_check`) and the input box
is ordered (`ordered_check`: `x_lo ≤ x_hi` everywhere, which also rules out
a NaN end). Both products are computed either way (only which one is called
low differs), and a product that is ±inf or NaN makes its sum non-finite
(the steps and additions keep ±inf and NaN non-finite), so where the result
stands both products are finite, hence `w` and both ends are finite. For
finite `x_lo ≤ x_hi`, rounding to nearest is monotone: `w > 0` gives
`a ≤ b`, so `min2 = a` and `max2 = b` (ties too: `a > b` is false), the
choice for `w ≥ 0`; `w < 0` gives `a ≥ b`, so `min2 = b`, `max2 = a` where
`a > b`, and where `a = b` the two differ at most in the sign of a zero; so
does `w = ±0` (both products are zeros). A zero's sign is lost in the next
step, `RD(±0 − m) = −m` and `RU(±0 + m) = +m`: the stepped terms, and so the
sums, are the rule's bits.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.ir import SSAValue

from tlir.dialects import tlir as T
from tlir.passes.autodiff.builder import Scalar, d, shape_of
from tlir.passes.ibp import scalar as D
from tlir.passes.ibp.elementwise import any_failed
from tlir.passes.ibp.table import Bound, Context

MIN_ROW_VECTORS = 2
"""The fewest vectors of rows the layout takes: with one, the weight's load,
compare and the two selected addresses per term cost more than the min/max
they save (the CNN's last `linear`, 16 rows of f32)."""

ROW_VECTORS = (4, 3, 2, 1)
"""Vectors of rows per register tile: the first that divides the rows' vectors."""

STRIP_VECTORS = 4
"""Vectors of rows per register tile where the rows are not whole vectors
(in strips, `Tile.strips`)."""

TILE_SUMS = 16
"""Vector sums (lower and upper) per register tile: its outputs are
`TILE_SUMS // (2 · row vectors)` (or the most below that divide the outputs)."""


def fewest_rows(itemsize: int) -> int:
    """The fewest rows the layout takes, for elements of `itemsize` bytes."""
    return MIN_ROW_VECTORS * (64 // itemsize)


@dataclass(frozen=True)
class Tile:
    rows: int
    """Rows per tile (whole vectors)."""
    outputs: int
    """Outputs per tile, each with its own weight entry per column."""
    strips: tuple[int, ...] = ()
    """Where the rows are not whole vectors: the tile's rows run in strips of
    `rows`, then of three vectors, two, one, a half and a quarter (a 256- and
    a 128-bit vector), then one by one (`tlir_ad.ROW_STRIPS`): the vectors
    left after the whole tiles (three at most) run as one strip of 8, 4 or 2
    vector sums, not as strips of one vector each (4 sums: latency-bound).
    Each strip sums in a local tile of constant shape (`row_strips`), which
    keeps its sums in registers at a run-time batch."""


def tile(ctx: Context, weight: Bound, rows: int, m: int) -> Tile | None:
    """The register tile of the signed layout, or None where it does not
    apply: a weight box, fewer rows than `MIN_ROW_VECTORS` vectors, the exact
    rules. Rows not in whole vectors (a dynamic batch's nominal ones, whose
    code runs at every batch) take the largest tile in strips."""
    lanes = 64 // ctx.dtype.itemsize
    if not ctx.fast or not weight.point or rows < fewest_rows(ctx.dtype.itemsize):
        return None
    whole = rows % lanes == 0
    vectors = next(v for v in ROW_VECTORS if (rows // lanes) % v == 0) if whole else STRIP_VECTORS
    outputs = next(j for j in range(max(TILE_SUMS // (2 * vectors), 1), 0, -1) if m % j == 0)
    strips = () if whole else (*(v * lanes for v in range(vectors, 0, -1)), lanes // 2, lanes // 4)
    return Tile(vectors * lanes, outputs, strips)


def stacked(ctx: Context, flat: list[SSAValue]) -> SSAValue:
    """The box's ends [rows, n] as one [2, n, rows] tensor: end, column, row."""
    rows, n = shape_of(flat[0])
    return _stack(ctx, flat, [2, n, rows], [d(2), d(1)])


def stacked_ends(ctx: Context, lo: SSAValue, hi: SSAValue) -> SSAValue:
    """[n, rows] ends as one [2, n, rows] tensor: a map (which kernel
    formation fuses with what reads it, a `relu`), each end broadcast."""
    shape = [2, *shape_of(lo)]
    which = ctx.b.array(np.array([0, 1], ctx.dtype).reshape(2, 1, 1), ctx.element)
    wide = [
        ctx.b.tlir(T.BroadcastToOp, [v], shape)
        for v in (ctx.b.reshape(lo, [1, *shape[1:]]), ctx.b.reshape(hi, [1, *shape[1:]]), which)
    ]
    (both,) = ctx.b.map(wide, _choose)
    return both


def _choose(s: Scalar, args):
    low, high, end = args[:3]
    return [s.select(s.nonzero(end), high, low)]


def _stack(ctx: Context, ends: list[SSAValue], shape: list[int], end_map: list) -> SSAValue:
    """One pass writing both ends into [2, n, rows], each read at `end_map`.
    Not a concat: its second half would start at an offset that depends on the
    row count, and a dynamic batch's kernel must be one code for every batch."""
    which = ctx.b.array(np.array([0, 1], ctx.dtype), ctx.element)
    (both,) = ctx.b.fold([*ends, which], [end_map, end_map, [d(0)]], shape, [], [0.0], _choose)
    return both


def signed_sums(
    ctx: Context, both: SSAValue, w: SSAValue, t: Tile
) -> tuple[list[SSAValue], list[SSAValue]]:
    """The fold over [output tile, row tile, column, output, row] (the last
    loop vectorised, the two before it unrolled into the register tile) from
    (0, 0): its sums [m / J, rows / R, J, R] and the same as [m, rows]. With
    `t.strips` the fold is over [output tile, column, output, row], its rows
    in strips around the column loop (the same register tile; the last
    strips of a vector or less, then rows one by one): sums [m / J, J, rows]."""
    _, n, rows = shape_of(both)
    m = shape_of(w)[0]

    def body(s: Scalar, args):
        xl, xh, wv, acc_l, acc_h = args
        return list(D.signed_term(s, (xl, xh), wv, acc_l, acc_h))

    if t.strips:  # [output tile, column, output, row]: strips of rows around the column
        bounds = [m // t.outputs, n, t.outputs, rows]
        maps = [[0, d(1), d(3)], [1, d(1), d(3)], [d(0) * t.outputs + d(2), d(1)]]
        raw = ctx.b.fold([both, both, w], maps, bounds, [1], [0.0, 0.0], body, [3, 1, *t.strips])
        return list(raw), [ctx.b.reshape(v, [m, rows]) for v in raw]
    bounds = [m // t.outputs, rows // t.rows, n, t.outputs, t.rows]
    row = d(1) * t.rows + d(4)
    maps = [[0, d(2), row], [1, d(2), row], [d(0) * t.outputs + d(3), d(2)]]
    raw = ctx.b.fold([both, both, w], maps, bounds, [2], [0.0, 0.0], body)
    out = []
    for v in raw:  # [m/J, rows/R, J, R] → [m/J, J, rows/R, R] → [m, rows]
        if rows > t.rows and t.outputs > 1:
            shape = [m // t.outputs, t.outputs, rows // t.rows, t.rows]
            v = ctx.b.tlir(T.PermuteOp, [v], shape, perm=T.i64_array([0, 2, 1, 3]))
        out.append(ctx.b.reshape(v, [m, rows]))
    return list(raw), out


def ordered_check(ctx: Context, both: SSAValue) -> None:
    """Record whether the box is not ordered somewhere (`x_lo ≤ x_hi` false,
    a NaN end included): there the sign's choice may not be `min2`/`max2`'s."""
    _, n, rows = shape_of(both)

    def body(s: Scalar, args):
        low, high, count = args
        return [s.add(count, D.bad(s, s.cmp("ole", low, high)))]

    (counts,) = ctx.b.fold(
        [both, both], [[0, d(0), d(1)], [1, d(0), d(1)]], [n, rows], [0], [0.0], body
    )
    ctx.diverged.append(any_failed(ctx, counts))
