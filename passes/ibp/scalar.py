"""TorchLean's directed operations as scalar programs of `tlir_ad` bodies.

Each is the carrier's round-to-nearest operation followed by one
`tlir_ad.next_down` / `next_up` step (docs/verification.md#directed-rounding);
`min2`/`max2` select on `a > b`. The functions mirror `tlir.reference.interval`
name for name, in the same order of operations.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.ir import SSAValue

from tlir.dialects import tlir_ad as A
from tlir.passes.autodiff.builder import Scalar

Pair = tuple[SSAValue, SSAValue]


def down(s: Scalar, x: SSAValue) -> SSAValue:
    return s(A.NextDownOp(x))


def up(s: Scalar, x: SSAValue) -> SSAValue:
    return s(A.NextUpOp(x))


def add_down(s: Scalar, a: SSAValue, b: SSAValue) -> SSAValue:
    return down(s, s.add(a, b))


def add_up(s: Scalar, a: SSAValue, b: SSAValue) -> SSAValue:
    return up(s, s.add(a, b))


def sub_down(s: Scalar, a: SSAValue, b: SSAValue) -> SSAValue:
    return down(s, s.sub(a, b))


def sub_up(s: Scalar, a: SSAValue, b: SSAValue) -> SSAValue:
    return up(s, s.sub(a, b))


def min2(s: Scalar, a: SSAValue, b: SSAValue) -> SSAValue:
    return s.select(s.cmp("ogt", a, b), b, a)


def max2(s: Scalar, a: SSAValue, b: SSAValue) -> SSAValue:
    return s.select(s.cmp("ogt", a, b), a, b)


def interval_mul(s: Scalar, lx: SSAValue, ux: SSAValue, ly: SSAValue, uy: SSAValue) -> Pair:
    """The four products reduced as a balanced pair of pairs: TorchLean's
    `min2(min2(mulDown p1, mulDown p2), min2(mulDown p3, mulDown p4))`, computed
    as `nextDown` of the `min2`s of the products rounded to nearest (one step
    instead of four, the same bits: `min2(down a, down b) = down(min2(a, b))`,
    docs/verification.md#directed-rounding); the upper end alike."""
    p = [s.mul(lx, ly), s.mul(lx, uy), s.mul(ux, ly), s.mul(ux, uy)]
    lo = down(s, min2(s, min2(s, p[0], p[1]), min2(s, p[2], p[3])))
    hi = up(s, max2(s, max2(s, p[0], p[1]), max2(s, p[2], p[3])))
    return lo, hi


def point_mul(s: Scalar, lx: SSAValue, ux: SSAValue, w: SSAValue) -> Pair:
    """`interval_mul(lx, ux, w, w)` in two products: `min2(mulDown(lx, w),
    mulDown(ux, w))` as `down(min2(lx·w, ux·w))`, the upper end alike."""
    a, b = s.mul(lx, w), s.mul(ux, w)
    return down(s, min2(s, a, b)), up(s, max2(s, a, b))


def product(s: Scalar, x: Pair, w: Pair | SSAValue) -> Pair:
    """A box times a box, or times a point (a constant parameter)."""
    if isinstance(w, SSAValue):
        return point_mul(s, x[0], x[1], w)
    return interval_mul(s, x[0], x[1], w[0], w[1])


def div_bounds(s: Scalar, al, ah, bl, bh) -> tuple[SSAValue, SSAValue, SSAValue]:
    """(lo, hi, ok): four quotients to nearest, min2/max2, one step out; ok
    (i1) where the divisor's interval avoids 0."""
    zero = s.const(0.0)
    ok = s.either(s.cmp("ogt", bl, zero), s.cmp("ogt", zero, bh))
    q = [s.div(al, bl), s.div(al, bh), s.div(ah, bl), s.div(ah, bh)]
    lo = down(s, min2(s, min2(s, q[0], q[1]), min2(s, q[2], q[3])))
    hi = up(s, max2(s, max2(s, q[0], q[1]), max2(s, q[2], q[3])))
    return lo, hi, ok


def sqrt_bounds(s: Scalar, lo, hi) -> tuple[SSAValue, SSAValue, SSAValue]:
    """(lo', hi', ok): nextDown(sqrt(max(lo, 0))), nextUp(sqrt(hi)); ok unless hi < 0."""
    low = down(s, s.sqrt(s.lean_max(lo, s.const(0.0))))
    return low, up(s, s.sqrt(hi)), s.cmp("uge", hi, s.const(0.0))


def finite(s: Scalar, x: SSAValue) -> SSAValue:
    """`x - x == 0`: false for ±inf and NaN."""
    return s.cmp("oeq", s.sub(x, x), s.const(0.0))


def checked(s: Scalar, lo: SSAValue, hi: SSAValue) -> SSAValue:
    """TorchLean's finite check: `not (hi < lo)`, both ends finite."""
    return s.both(s.cmp("uge", hi, lo), s.both(finite(s, lo), finite(s, hi)))


def all_of(s: Scalar, *flags: SSAValue) -> SSAValue:
    result = flags[0]
    for flag in flags[1:]:
        result = s.both(result, flag)
    return result


def bad(s: Scalar, ok: SSAValue) -> SSAValue:
    """1 where a check failed, else 0 (summed into the node's failure flag)."""
    return s.select(ok, s.const(0.0), s.const(1.0))


def negate(s: Scalar, flag: SSAValue) -> SSAValue:
    return s(arith.XOrIOp(flag, s.bool(True)))
