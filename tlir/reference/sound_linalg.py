"""Rigorous bounds of sums and products computed in float64 round-to-nearest
(NumPy's sums, BLAS products in whatever order and blocking they choose), for
relu-mode CROWN's point coefficients (docs/verification.md#crown).

The error model (IEEE binary64, round to nearest, gradual underflow): a
product is `x·y·(1 + δ) + ε` with `|δ| ≤ u`, `|ε| ≤ η/2` (u = 2⁻⁵³, η the
smallest subnormal), a sum `(x + y)(1 + δ)` with no absolute term, a fused
multiply-add one rounding of the exact `x·y + z`. A sum of `n` products
`s = Σ a_i·b_i`, evaluated as any binary tree of additions over the rounded
products (or fused multiply-adds), so in every order BLAS may use, is then
within

    |ŝ − s| ≤ γ(n)·Σ|a_i·b_i| + n·η,    γ(n) = n·u / (1 − n·u) ≤ 2n·u  (n·u ≤ 1/4)

of the exact sum: each product's rounding is `u|a_i b_i| + η/2`, and a tree
of depth at most n − 1 multiplies each rounded term by at most `n − 1` factors
`(1 + δ)`. Terms whose product is exactly 0 add nothing and are not counted.
For nonnegative terms, `ŝ ≥ s(1 − γ(n)) − n·η`, so

    s ≤ (ŝ + nη) / (1 − γ(n)) ≤ ŝ + 4n·u·ŝ + 2n·η      (γ(n) ≤ 1/2),

which `upper_sum` evaluates with one-step upward operations (`add_up`,
`mul_up`: the round-to-nearest result moved one step up, so never below the
exact value). Every bound below is one of these two facts; none depends on the
order in which a sum is formed.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from tlir.reference.interval import Box

F64 = np.dtype(np.float64)
UNIT = float(np.finfo(F64).eps) / 2
TINY = float(np.finfo(F64).smallest_subnormal)

FLOOR = 2.0**-600
"""Absolute error terms are taken at least this large (a normal number whose
products with coefficients stay normal: subnormal operands make every
floating-point step that meets them many times slower)."""


def absolute(n: int) -> float:
    """A normal float ≥ 2(n + 1)·η, the absolute term of a sum of n products."""
    return 2.0 * (n + 1) * FLOOR


def _step(s, keep, toward: float):
    """`s` one step toward `toward` where `keep` is false (in place on arrays:
    one temporary fewer than `np.where`, these run in every sweep's loop)."""
    moved = np.nextafter(s, toward)
    if isinstance(moved, np.ndarray):
        np.copyto(moved, s, where=keep)
        return moved
    return s if keep else moved


def add_up(a, b):
    """`a + b` rounded up: the rounded sum one step up, except an exact 0 (a
    rounded sum is 0 only when the exact one is: sums do not underflow), which
    TorchLean's `addUp` would turn into a subnormal."""
    s = np.add(a, b)
    return _step(s, s == 0, np.inf)


def add_down(a, b):
    s = np.add(a, b)
    return _step(s, s == 0, -np.inf)


def sub_up(a, b):
    """`a − b` rounded up (a rounded difference is `fl(a + (−b))` exactly)."""
    s = np.subtract(a, b)
    return _step(s, s == 0, np.inf)


def sub_down(a, b):
    s = np.subtract(a, b)
    return _step(s, s == 0, -np.inf)


def mul_up(a, b):
    """`a·b` rounded up: exact (no step) when a factor is 0."""
    return _step(np.multiply(a, b), np.equal(a, 0) | np.equal(b, 0), np.inf)


SPARSE_DENSITY = 0.1
"""A matrix with fewer nonzeros than this share is multiplied as a sparse one."""


def sparse_module():
    """`scipy.sparse`, or None: SciPy is optional (sparse coefficients and
    matrices only save time)."""
    try:
        from scipy import sparse
    except ImportError:
        return None
    return sparse


def is_sparse(a) -> bool:
    return not isinstance(a, np.ndarray)


def dense(a) -> np.ndarray:
    """A coefficient matrix as a NumPy array."""
    return a if isinstance(a, np.ndarray) else a.toarray()


def signed_rows(left, matrix):
    """`left @ matrix` when `left` is sparse with one entry ±1 per row (the
    objective `[I; −I]` on a ReLU operand's crossing cells, before its first
    op): the matrix's rows picked and signed, which is the product exactly (a
    sum of one product by ±1), without a general sparse product; None for any
    other `left`."""
    if not is_sparse(left) or left.nnz != left.shape[0] or left.format != "csr":
        return None
    if not (np.array_equal(left.indptr, np.arange(left.shape[0] + 1))
            and np.all(np.abs(left.data) == 1)):  # fmt: skip
        return None
    if not is_sparse(matrix):
        return matrix[left.indices] * left.data[:, np.newaxis]
    picked = matrix.tocsr()[left.indices]
    picked.data *= np.repeat(left.data, np.diff(picked.indptr))
    return picked


def with_negation(objective):
    """The sparse `[C; −C]` in CSR form, from C's CSR arrays put together
    (a general `vstack` checks and converts, at a cost on every sweep)."""
    c = objective.tocsr()
    parts = (np.concatenate([c.data, -c.data]), np.concatenate([c.indices, c.indices]),
             np.concatenate([c.indptr, c.indptr[1:] + c.indptr[-1]]))  # fmt: skip
    return type(c)(parts, shape=(2 * c.shape[0], c.shape[1]))


def _check(n: int) -> None:
    if n * UNIT > 0.25:
        raise ValueError("sum too long for its error bound")


@functools.lru_cache(maxsize=1024)
def relative(n: int) -> float:
    """A float ≥ 2n·u ≥ γ(n): the relative error bound of a sum of n products."""
    _check(n)
    return float(up_scalar(2.0 * (n + 1) * UNIT))


@functools.lru_cache(maxsize=1024)
def _sum_factors(n: int) -> tuple[np.float64, float]:
    _check(n)
    return up_scalar(1.0 + 4.0 * (n + 2) * UNIT), 2 * absolute(n)


def up_scalar(x: float) -> np.float64:
    return np.nextafter(np.float64(x), np.inf)


def upper_sum(computed: np.ndarray, n: int) -> np.ndarray:
    """An upper bound of the exact sum of `n` nonnegative products whose
    round-to-nearest sum is `ŝ = computed`: `s ≤ ŝ(1 + 4nu) + 2nη` (the second
    bound above), evaluated as `up(fl(fl(ŝ·F) + A))` with `F = up(1 + 4(n + 2)u)
    ≥ (1 + 4nu)(1 + 4u)` and `A = 4(n + 1)·2⁻⁶⁰⁰`: `fl(ŝ·F) ≥ ŝ(1 + 4nu)(1 + 2u)
    − η/2`, the sum loses at most a factor `1 − u`, which the step up (at
    least a factor `1 + u`) restores to `1 − u²`, and `A − η ≥ 2nη` covers the
    absolute terms."""
    factor, floor = _sum_factors(n)
    with np.errstate(all="ignore"):
        return np.nextafter(computed * factor + floor, np.inf)


def nonneg_dot_up(p: np.ndarray, v: np.ndarray) -> np.ndarray:
    """An upper bound of `p @ v` (p rows × n and v ≥ 0, exact operands)."""
    with np.errstate(all="ignore"):
        return upper_sum(p @ v, max(p.shape[-1], 1))


def centre_radius(box: Box) -> tuple[np.ndarray, np.ndarray]:
    """`(c, r)` in float64 with the box inside `[c − r, c + r]` (exactly:
    `r ≥ hi − c` and `r ≥ c − lo` by the upward subtractions)."""
    lo, hi = (np.asarray(b, F64).reshape(-1) for b in box)
    with np.errstate(all="ignore"):
        c = lo * 0.5 + hi * 0.5
        return c, np.maximum(sub_up(hi, c), sub_up(c, lo))


def magnitude(box: Box) -> np.ndarray:
    """`max(|lo|, |hi|)` per cell (exact): the largest size of a value in the box."""
    lo, hi = (np.asarray(b, F64).reshape(-1) for b in box)
    return np.maximum(np.abs(lo), np.abs(hi))


def upper_on_box(a, box: Box, size=None) -> np.ndarray:
    """Per row of `a` (float64, rows × n), an upper bound of `max a·z` over
    `z` in the box: `a·c + |a|·r` exactly; computed as `fl(a@c) + fl(|a|@r)`,
    whose error is at most `2n·u·|a|(|c| + r) + 2n·η`, bounded above by
    `upper_sum` of `fl(|a| @ (|c| + r))` rounded up."""
    c, r = centre_radius(box)
    n = max(a.shape[1], 1)
    with np.errstate(all="ignore"):
        g = add_up(np.abs(c), r)
        size = (abs(a) if size is None else size) @ np.stack([r, g], axis=1)
        spread, scale = size[:, 0], upper_sum(size[:, 1], n)
        err = add_up(mul_up(scale, relative(n)), absolute(n))
        return add_up(add_up(a @ c, spread), err)


def tiny_times(n: int, total: float) -> np.float64:
    """`n·η·total` rounded up (`total` an upper bound of a sum of sizes)."""
    with np.errstate(all="ignore"):
        return up_scalar(up_scalar(n * TINY) * total)


@dataclass(frozen=True)
class PointMatrix:
    """A point matrix `M` (|y| × |x|) as an operator: `times` (a @ M),
    `forward` (M @ v and |M| @ v), dense or sparse, with the most nonzero
    products of one sum each way."""

    matrix: object
    magnitude: object
    terms: int
    forward_terms: int

    @staticmethod
    def of(dense: np.ndarray) -> PointMatrix:
        dense = np.asarray(dense, F64)
        column = np.count_nonzero(dense, axis=0)
        row = np.count_nonzero(dense, axis=1)
        terms = int(column.max()) if column.size else 0
        forward = int(row.max()) if row.size else 0
        sparse = sparse_module()
        if sparse is not None and dense.size and column.sum() < SPARSE_DENSITY * dense.size:
            as_sparse = sparse.csr_array(dense)
            return PointMatrix(as_sparse, abs(as_sparse), terms, forward)
        return PointMatrix(dense, np.abs(dense), terms, forward)

    def times(self, left):
        """`left @ M` (either may be sparse)."""
        picked = signed_rows(left, self.matrix)
        return left @ self.matrix if picked is None else picked

    def forward(self, v: np.ndarray, magnitude: bool = False) -> np.ndarray:
        """`M @ v` (or `|M| @ v`), `v` a vector or a matrix of columns."""
        matrix = self.magnitude if magnitude else self.matrix
        return np.asarray(matrix @ v)


__all__ = [
    "FLOOR",
    "PointMatrix",
    "absolute",
    "add_down",
    "add_up",
    "mul_up",
    "sub_down",
    "sub_up",
    "centre_radius",
    "dense",
    "is_sparse",
    "sparse_module",
    "magnitude",
    "nonneg_dot_up",
    "relative",
    "signed_rows",
    "tiny_times",
    "upper_on_box",
    "upper_sum",
    "with_negation",
]
