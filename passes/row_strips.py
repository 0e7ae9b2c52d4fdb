"""Row strips (`tlir_ad.ROW_STRIPS`) and the local tiles their sums take.

A fold run in strips of rows (`RowStrips`) keeps a register tile of each
strip's sums across its reduction loops: the strip's rows (the vectorised
loop) times the constant dimensions between, e.g. the signed interval
linear's 2 outputs × 4 vectors of rows, lower and upper (`passes/ibp/signed`).
LLVM keeps them in registers only if it can tell every sum's address from
every other's. Where the rows' count is a run-time value (a dynamic batch's
kernel, whose outputs are read through flat views with the batch in their
strides), it cannot: the outputs of the tile lie a run-time stride apart, and
the vector loop's per-vector indices reach the address as opaque sums (base
+ (strip | 8k)), so every sum is loaded and stored again for every column
(the bench MLP's 64 → 10 layer at batch 256 ran 10 % slower than the static
kernel, whose tile has constant strides).

So such a strip accumulates in a local tile of constant shape (`StripTiles`,
a stack buffer of the tile's constant extents and the widest strip): the
outputs' current values are copied into it before the reduction loops, the
fold's body reads and writes it at constant strides, and it is copied back
after. Each output still takes the same terms in the same order from the
same start: the results are the same bits.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from xdsl.dialects.linalg.ops import GenericOp
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap

from tlir.passes.loop_starts import iterator_kinds

LOCAL_TILES = True
"""Whether strips of rows sum in local tiles (False: on the outputs, as
before; for `bench/strip_tiles_ab.py`)."""

MAX_TILE_ELEMENTS = 4096
"""The largest local tile per output (32 KB of f64): a tile is a register tile,
a few dozen vectors at most; anything larger keeps the outputs as they are."""


@dataclass(frozen=True)
class RowStrips:
    """A parallel dimension `dim` run in whole strips of `widths[0]` rows, then
    of `widths[1]` from where those end, ..., then one by one: the loop over
    the strips stands before dimension `outer` (< `dim`, > 0: the outermost
    loop is the one threads split) and the loop over a strip's rows, of the
    constant width, at `dim`'s place. The nest of a row blocked by hand
    ([block, ..., row in the block, ...]) with the row count a run-time value,
    not a multiple of the block: the loops between keep a register tile of
    the strip's rows (the rows loop vectorised or unrolled) whatever the
    batch. Each output, its own row, still takes its terms in the generic's
    order: only the outputs' order changes (`dim` is parallel)."""

    dim: int
    outer: int
    widths: tuple[int, ...]


@dataclass(frozen=True)
class StripTile:
    """One output's local tile: the output's operand index, the fold
    dimensions that index the tile (those of the output's map from `outer`
    on, in the map's order) and the tile's shape (their extents, `dim`'s the
    widest strip)."""

    operand: int
    dims: tuple[int, ...]
    shape: tuple[int, ...]


def strip_tiles(
    op: GenericOp,
    values: list[SSAValue],
    maps: list[AffineMap],
    extents: list[int],
    rows: RowStrips,
    runtime: set[int],
    root: Callable[[SSAValue], SSAValue],
) -> tuple[StripTile, ...] | None:
    """The local tiles of `op`'s outputs under `rows`, or None where a tile
    does not apply: no reduction loop inside the strip (nothing to keep), an
    output indexed other than by plain dimensions or not by `dim`, a tile
    dimension of run-time extent (`runtime`, the batch's), an input reading
    an output's buffer (`root`: a value's underlying buffer), a tile too large."""
    kinds = iterator_kinds(op)
    if not LOCAL_TILES or "reduction" not in kinds[rows.outer : rows.dim]:
        return None
    first = len(op.inputs)
    written = {root(v) for v in values[first:]}
    if any(root(v) in written for v in values[:first]):
        return None
    widest = max(rows.widths, default=1)
    tiles = []
    for operand in range(first, len(values)):
        results = maps[operand].results
        if not all(isinstance(e, AffineDimExpr) for e in results):
            return None
        dims = tuple(e.position for e in results if e.position >= rows.outer)
        if rows.dim not in dims or any(d in runtime for d in dims if d != rows.dim):
            return None
        shape = tuple(widest if d == rows.dim else extents[d] for d in dims)
        if math.prod(shape) > MAX_TILE_ELEMENTS:
            return None
        tiles.append(StripTile(operand, dims, shape))
    return tuple(tiles)
