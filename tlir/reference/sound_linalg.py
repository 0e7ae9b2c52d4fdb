"""Sums and matrix products with rigorous error bounds, in the carrier's
round-to-nearest arithmetic (NumPy's sums, BLAS or sparse products) widened by
a bound on their rounding error (docs/verification.md#crown).

A sum of `n` nonzero terms computed in any order, with or without fused
multiply-add, is within `γ(n) · Σ|t|` of the exact sum (γ(n) = n·u / (1 − n·u),
u the unit roundoff; zero terms add nothing); products that underflow add at
most one subnormal step each. The helpers take `2·(n + 2)·u` of the computed
`Σ|t|` (which covers `γ(n)` of the exact one while `n·u ≤ 1/4`) plus
`2·(n + 2)` subnormal steps, added with the one-step directed operations.
Interval operands go by midpoint and radius, so a product is a few BLAS calls.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tlir.bounds import outward
from tlir.reference.interval import Box, add_up, mul_up, sub_down, sub_up

SPARSE_DENSITY = 0.1
"""A matrix with fewer nonzeros than this share is multiplied as a sparse one."""


def _slack(n: int, dtype: np.dtype) -> tuple[np.generic, np.generic]:
    """(relative factor, absolute term) for a sum of `n` products."""
    info = np.finfo(dtype)
    unit = info.eps / 2
    if n * unit > 0.25:
        raise ValueError("sum too long for its error bound")
    return dtype.type(2 * (n + 2)) * unit, dtype.type(2 * (n + 2)) * info.smallest_subnormal


def _widen(value: np.ndarray, magnitude: np.ndarray, n: int) -> Box:
    """[value − err, value + err] for err bounding a computed sum's error."""
    factor, tiny = _slack(n, value.dtype)
    with np.errstate(all="ignore"):
        err = add_up(mul_up(magnitude, factor), tiny)
        return sub_down(value, err), add_up(value, err)


def row_sums(rows: np.ndarray, terms: np.ndarray, count: int, dtype: np.dtype) -> Box:
    """Per row `r < count`, an interval holding the exact sum of the `terms`
    whose `rows` entry is `r` (summed in float64, then rounded outward)."""
    if terms.size == 0:
        zeros = np.zeros(count, dtype)
        return zeros, zeros.copy()
    wide = terms.astype(np.float64)
    with np.errstate(all="ignore"):
        total = np.bincount(rows, weights=wide, minlength=count)
        magnitude = np.bincount(rows, weights=np.abs(wide), minlength=count)
    n = int(np.bincount(rows, minlength=count).max())
    lo, hi = _widen(total, magnitude, n)
    return outward(lo, dtype, lower=True), outward(hi, dtype, lower=False)


@dataclass(frozen=True)
class PointMatrix:
    """A point matrix (m × n) ready for products: itself and `|M|`, dense or
    sparse, and the most nonzeros of one column (the terms of one sum)."""

    matrix: object
    magnitude: object
    terms: int

    @staticmethod
    def of(dense: np.ndarray) -> PointMatrix:
        nonzero = np.count_nonzero(dense, axis=0)
        terms = int(nonzero.max()) if nonzero.size else 0
        if dense.size and nonzero.sum() < SPARSE_DENSITY * dense.size:
            try:
                from scipy import sparse
            except ImportError:
                sparse = None
            if sparse is not None:
                transposed = sparse.csr_matrix(dense.T)
                return PointMatrix(transposed, abs(transposed), terms)
        return PointMatrix(dense, np.abs(dense), terms)

    def times(self, left: np.ndarray, magnitude: bool = False) -> np.ndarray:
        """`left @ M` (or `left @ |M|`)."""
        matrix = self.magnitude if magnitude else self.matrix
        if isinstance(matrix, np.ndarray):
            return left @ matrix
        return np.asarray((matrix @ left.T).T)


def interval_matmul(a: Box, matrix) -> Box:
    """An interval matrix holding every `A·M` with `A` in `a` (rows × m) and
    `M` a point matrix (a `PointMatrix`, or any operator with its `times` and
    `terms`): `mid·M ± radius·|M|`, widened by the error bound. float32 goes
    through float64 (its products are exact there, its sums' error bound 2²⁹
    times smaller) and is rounded outward back."""
    if a[0].dtype != np.float64:
        lo, hi = interval_matmul((a[0].astype(np.float64), a[1].astype(np.float64)), matrix)
        return outward(lo, a[0].dtype, lower=True), outward(hi, a[0].dtype, lower=False)
    a_lo, a_hi = a
    with np.errstate(all="ignore"):
        mid = a_lo * 0.5 + a_hi * 0.5
        radius = np.maximum(sub_up(a_hi, mid), sub_up(mid, a_lo))
        centre = matrix.times(mid)
        both = matrix.times(np.concatenate([radius, np.abs(mid)]), magnitude=True)
        spread, scale = both[: len(mid)], both[len(mid) :]
        factor, tiny = _slack(matrix.terms, a_lo.dtype)
        err = add_up(add_up(spread, mul_up(add_up(scale, spread), factor)), tiny)
        return sub_down(centre, err), add_up(centre, err)


def interval_dot(a: Box, b: Box) -> Box:
    """Per row of `a` (rows × n intervals), an interval holding every
    `Σ a_i·b_i` with `a_i`, `b_i` in their intervals (`b` of n intervals):
    `Σ a_i·mid_i ± Σ max|a_i|·radius_i`."""
    b_lo, b_hi = b
    dtype = b_lo.dtype
    with np.errstate(all="ignore"):
        mid = b_lo * 0.5 + b_hi * 0.5
        radius = np.maximum(sub_up(b_hi, mid), sub_up(mid, b_lo))
        c_lo, c_hi = interval_matmul(a, PointMatrix(mid[:, None], np.abs(mid)[:, None], mid.size))
        biggest = np.maximum(np.abs(a[0]), np.abs(a[1]))
        spread = biggest @ radius
        factor, tiny = _slack(mid.size, dtype)
        err = add_up(add_up(spread, mul_up(spread, factor)), tiny)
        return sub_down(c_lo[:, 0], err), add_up(c_hi[:, 0], err)


__all__ = ["PointMatrix", "interval_dot", "interval_matmul", "row_sums"]
