"""TorchLean's directed interval arithmetic on NumPy arrays (docs/verification.md).

Each operation is the carrier's round-to-nearest result moved one step outward
(`tlir.bounds.down`/`up`); `min2`/`max2` are the comparisons of the bound rules
(`a > b`), not Lean's `max`. Every helper keeps the carrier's dtype. Under the
tight rules (`tlir.tight`) `+`, `-`, `×` and `/` move only where the rounded
result is not exact (`tlir.bounds.add_down_tight`, ...).
"""

from __future__ import annotations

import numpy as np

from tlir.bounds import (
    add_down_tight,
    add_up_tight,
    count_interval,
    div_down_tight,
    div_up_tight,
    down,
    mul_down_tight,
    mul_up_tight,
    up,
)
from tlir.tight import tight

Box = tuple[np.ndarray, np.ndarray]


class NoBox(Exception):
    """The rule gives no box for this node (TorchLean's `none`)."""


def add_down(a, b):
    return add_down_tight(a, b) if tight() else down(a + b)


def add_up(a, b):
    return add_up_tight(a, b) if tight() else up(a + b)


def sub_down(a, b):
    """`a - b` is `a + (-b)` in IEEE arithmetic, bit for bit (negation is exact)."""
    return add_down_tight(a, -b) if tight() else down(a - b)


def sub_up(a, b):
    return add_up_tight(a, -b) if tight() else up(a - b)


def mul_down(a, b):
    return mul_down_tight(a, b) if tight() else down(a * b)


def mul_up(a, b):
    return mul_up_tight(a, b) if tight() else up(a * b)


def min2(a, b):
    """`b if a > b else a`."""
    return np.where(a > b, b, a)


def max2(a, b):
    """`a if a > b else b`."""
    return np.where(a > b, a, b)


def lean_max(a, b):
    """Lean's `max a b = if a ≤ b then b else a` (the backends' `max`)."""
    return np.where(a <= b, b, a)


def interval_mul(lx, ux, ly, uy) -> Box:
    """The four directed products, reduced as a balanced pair of pairs."""
    lo = min2(min2(mul_down(lx, ly), mul_down(lx, uy)), min2(mul_down(ux, ly), mul_down(ux, uy)))
    hi = max2(max2(mul_up(lx, ly), mul_up(lx, uy)), max2(mul_up(ux, ly), mul_up(ux, uy)))
    return lo, hi


def div_bounds(al, ah, bl, bh) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(lo, hi, ok): the four quotients rounded to nearest, their min2/max2
    moved one step out; ok where the divisor's interval avoids 0."""
    ok = (bl > 0) | (bh < 0)
    if tight():
        pairs = ((al, bl), (al, bh), (ah, bl), (ah, bh))
        lows = [div_down_tight(a, b) for a, b in pairs]
        highs = [div_up_tight(a, b) for a, b in pairs]
        lo = min2(min2(lows[0], lows[1]), min2(lows[2], lows[3]))
        return lo, max2(max2(highs[0], highs[1]), max2(highs[2], highs[3])), ok
    q = (al / bl, al / bh, ah / bl, ah / bh)
    lo = down(min2(min2(q[0], q[1]), min2(q[2], q[3])))
    hi = up(max2(max2(q[0], q[1]), max2(q[2], q[3])))
    return lo, hi, ok


def sqrt_bounds(lo, hi) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(lo', hi', ok): `[nextDown(sqrt(max(lo, 0))), nextUp(sqrt(hi))]`, ok unless hi < 0."""
    zero = lo.dtype.type(0)
    return down(np.sqrt(lean_max(lo, zero))), up(np.sqrt(hi)), ~(hi < 0)


def checked(lo, hi) -> np.ndarray:
    """TorchLean's finite check: ordered, and `a - a == 0` on both ends."""
    return ~(hi < lo) & (lo - lo == 0) & (hi - hi == 0)


def require(ok) -> None:
    if not np.all(ok):
        raise NoBox()


def fold(lo, hi, axis: int) -> Box:
    """Directed sums along `axis` from (0, 0): addDown on the lower ends, addUp on the upper."""
    lows, highs = np.moveaxis(lo, axis, 0), np.moveaxis(hi, axis, 0)
    acc_lo = np.zeros(lows.shape[1:], lo.dtype)
    acc_hi = np.zeros(lows.shape[1:], lo.dtype)
    for a, b in zip(lows, highs, strict=True):
        acc_lo, acc_hi = add_down(acc_lo, a), add_up(acc_hi, b)
    return acc_lo, acc_hi


def row_mean(lo, hi, axis: int) -> Box:
    """The directed mean along `axis`: the directed sum and the count interval
    (1 added n times) both finite, their `div_bounds`, finite; n = 0 fails."""
    n = lo.shape[axis]
    if n == 0:
        raise NoBox()
    s_lo, s_hi = fold(lo, hi, axis)
    c_lo, c_hi = count_interval(n, lo.dtype)
    require(checked(np.asarray(c_lo), np.asarray(c_hi)))
    require(checked(s_lo, s_hi))
    m_lo, m_hi, ok = div_bounds(s_lo, s_hi, c_lo, c_hi)
    require(ok & checked(m_lo, m_hi))
    return m_lo, m_hi
