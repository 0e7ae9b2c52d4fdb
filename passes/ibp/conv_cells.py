"""The interval conv's cell tables: per kernel cell and output position,
whether the cell lies on the input, in the padding before it (no term) or
in the padding after it (a zero term), as `passes/ibp/conv.py`'s
fold reads them (docs/verification.md#performance)."""

from __future__ import annotations

import functools
import math

import numpy as np
from xdsl.ir import SSAValue

from tlir.passes.ibp.table import Context

MASK_CELLS = 1 << 14
"""The largest cell table over all padded axes at once (kernel cells × output
positions; 128 KB in f64, a constant of the module); beyond it, one table
per axis."""

SKIP, ZERO, INSIDE = 1.0, 0.0, -1.0
"""A cell table's codes: the kernel cell lies in the padding before the
input (no term), in the padding after it (a zero term), or on the input. A
cell before on one axis and after on another is skipped (the reference's
order: no term at all), so a cell's code is the largest of its axes'. Without
the zero terms' shortcut a zero term is computed as any other: `INSIDE` is
then 0 too, the `ZERO` code unused."""


def axis_codes(cfg, axis: int, size: int, out: int, zero_terms: bool) -> np.ndarray:
    """One axis's codes over [kernel cell, output position]."""
    k, s, dl = cfg.kernel[axis], cfg.stride[axis], cfg.dilation[axis]
    q = np.arange(out)[np.newaxis, :] * s + np.arange(k)[:, np.newaxis] * dl
    before = cfg.padding[axis]
    inside = INSIDE if zero_terms else ZERO
    return np.where(q < before, SKIP, np.where(q >= before + size, ZERO, inside))


def cell_tables(
    ctx: Context, cfg, in_spatial, out_spatial, zero_terms: bool
) -> list[tuple[list[int], SSAValue]]:
    """Tables of the cells' codes (`SKIP`, `ZERO`, `INSIDE`), each with the
    spatial axes it spans: one over all axes with a cell off the input (only
    the padding before counts without `zero_terms`), [kernel…, out…], where
    it has at most `MASK_CELLS` entries (a term then loads and tests one
    flag, not one per axis), else one per axis."""
    inside = INSIDE if zero_terms else ZERO
    per_axis = []
    for a, (size, out) in enumerate(zip(in_spatial, out_spatial, strict=True)):
        codes = axis_codes(cfg, a, size, out, zero_terms)
        if (codes != inside).any():
            per_axis.append((a, codes))
    size = math.prod(t.size for _, t in per_axis)
    if len(per_axis) > 1 and size <= MASK_CELLS:
        n = len(per_axis)
        spread = []  # axis i's [kernel, out] table at dimensions i and n + i of [kernel…, out…]
        for i, (_, table) in enumerate(per_axis):
            shape = [1] * (2 * n)
            shape[i], shape[n + i] = table.shape
            spread.append(table.reshape(shape))
        codes = functools.reduce(np.maximum, spread)
        return [([a for a, _ in per_axis], _table(ctx, codes))]
    return [([a], _table(ctx, table)) for a, table in per_axis]


def _table(ctx: Context, codes: np.ndarray) -> SSAValue:
    return ctx.b.array(codes.astype(ctx.dtype), ctx.element)


def every_cell_reads_input(cfg, in_spatial, out_spatial) -> bool:
    """Every kernel cell lies on the input for some output position: on each
    axis, each kernel index for some position on that axis."""
    return all(
        (axis_codes(cfg, a, size, out, True) == INSIDE).any(axis=1).all()
        for a, (size, out) in enumerate(zip(in_spatial, out_spatial, strict=True))
    )


def has_cells_after(cfg, in_spatial, out_spatial) -> bool:
    """Some kernel cell lies in the padding after the input (a zero term)."""
    return any(
        (axis_codes(cfg, a, size, out, True) == ZERO).any()
        for a, (size, out) in enumerate(zip(in_spatial, out_spatial, strict=True))
    )
