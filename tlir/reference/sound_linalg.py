"""Sums and matrix products with rigorous error bounds, in the carrier's
round-to-nearest arithmetic (NumPy's sums, BLAS products) widened by a bound
on their rounding error (docs/verification.md#crown).

A sum of `n` terms computed in any order, with or without fused multiply-add,
is within `γ(n) · Σ|t|` of the exact sum (γ(n) = n·u / (1 − n·u), u the unit
roundoff); products that underflow add at most one subnormal step each. The
helpers take `2·(n + 2)·u` of the computed `Σ|t|` (which covers `γ(n)` of the
exact one while `n·u ≤ 1/4`) plus `2·(n + 2)` subnormal steps, added with the
one-step directed operations.
"""

from __future__ import annotations

import numpy as np

from tlir.reference.interval import Box, add_up, mul_up, sub_down, sub_up


def _slack(n: int, dtype: np.dtype) -> tuple[np.generic, np.generic]:
    """(relative factor, absolute term) for a sum of `n` products."""
    info = np.finfo(dtype)
    unit = info.eps / 2
    if n * unit > 0.25:
        raise ValueError("sum too long for the error bound")
    factor = dtype.type(2 * (n + 2)) * dtype.type(unit)
    return factor, dtype.type(2 * (n + 2)) * info.smallest_subnormal


def _widen(value: np.ndarray, magnitude: np.ndarray, n: int) -> Box:
    factor, tiny = _slack(n, value.dtype)
    err = add_up(mul_up(magnitude, factor), tiny)
    with np.errstate(all="ignore"):
        return sub_down(value, err), add_up(value, err)


def sum_enclosure(terms: np.ndarray, axis: int = -1) -> Box:
    """An interval holding the exact sum of `terms` along `axis`."""
    with np.errstate(all="ignore"):
        total = terms.sum(axis=axis)
        magnitude = np.abs(terms).sum(axis=axis)
    return _widen(total, magnitude, terms.shape[axis])


def interval_dot(a: Box, b: Box) -> Box:
    """Per row of `a` (rows × n intervals): an interval holding every `Σ a_i·b_i`
    with `a_i`, `b_i` in their intervals (`b` of n intervals)."""
    from tlir.reference.interval import interval_mul

    t_lo, t_hi = interval_mul(a[0], a[1], b[0][np.newaxis], b[1][np.newaxis])
    return sum_enclosure(t_lo)[0], sum_enclosure(t_hi)[1]


def interval_matmul(a: Box, matrix: np.ndarray) -> Box:
    """An interval matrix holding every `A·M` with `A` in `a` (rows × m) and
    `M` the point matrix (m × n): midpoint and radius, three BLAS products."""
    a_lo, a_hi = a
    m = matrix.shape[0]
    with np.errstate(all="ignore"):
        mid = a_lo * 0.5 + a_hi * 0.5
        radius = np.maximum(sub_up(a_hi, mid), sub_up(mid, a_lo))
        magnitude = np.abs(matrix)
        centre = mid @ matrix
        spread = radius @ magnitude
        scale = np.abs(mid) @ magnitude
        factor, tiny = _slack(m, matrix.dtype)
        err = add_up(add_up(spread, mul_up(add_up(scale, spread), factor)), tiny)
        return sub_down(centre, err), add_up(centre, err)


__all__ = ["interval_dot", "interval_matmul", "sum_enclosure"]
