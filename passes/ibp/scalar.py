"""TorchLean's directed operations as scalar programs of `tlir_ad` bodies.

Each is the carrier's round-to-nearest operation followed by one
`tlir_ad.next_down` / `next_up` step (docs/verification.md#directed-rounding);
`min2`/`max2` select on `a > b`. The functions mirror `tlir.reference.interval`
name for name, in the same order of operations. Under the tight rules
(`tlir.tight`) `+`, `-`, `×`, `/` step only where the rounded result is
inexact, found by the error-free transformations of `tlir.bounds` (TwoSum,
the product's error as `fma(a, b, -p)`, the quotient's remainder as
`fma(-q, b, a)`), deciding as the reference does.
"""

from __future__ import annotations

from xdsl.dialects import arith, math
from xdsl.ir import SSAValue

from tlir.dialects import tlir_ad as A
from tlir.passes.autodiff.builder import Scalar
from tlir.passes.directed_steps import smallest_subnormal
from tlir.tight import product_threshold, tight

Pair = tuple[SSAValue, SSAValue]


def down(s: Scalar, x: SSAValue) -> SSAValue:
    return s(A.NextDownOp(x))


def up(s: Scalar, x: SSAValue) -> SSAValue:
    return s(A.NextUpOp(x))


def step_down(s: Scalar, x: SSAValue) -> SSAValue:
    """`RD(x − m)`: `down` but for `+inf` and the smallest subnormal (the fast
    path of the contractions, `structured.fast_contraction_check`)."""
    return s(A.StepDownOp(x))


def step_up(s: Scalar, x: SSAValue) -> SSAValue:
    """`RU(x + m)`: `up` but for `-inf` and the negative smallest subnormal."""
    return s(A.StepUpOp(x))


def fast_term(
    s: Scalar,
    x: Pair,
    w: Pair | SSAValue,
    acc_l: SSAValue,
    acc_h: SSAValue,
    inside: SSAValue | None = None,
) -> Pair:
    """`addDown(acc_l, lo)`, `addUp(acc_h, hi)` of the interval product
    `[lo, hi]` of `x` and `w` (`product`), every step a `step_down`/`step_up`:
    the same operations in the same order, the same bits wherever no
    infinity is stepped (`structured.fast_contraction_check`).

    Where `inside` (i1) is false the term is a zero term, `x = [0, 0]`: for a
    finite `w` both products are zeros and their steps `−m` and `m` (`m` the
    smallest subnormal), which the term then adds instead of loading `x` and
    `w` (2 operations per end instead of 5)."""
    if isinstance(w, SSAValue):
        a, b = s.mul(x[0], w), s.mul(x[1], w)
        low, high = min2(s, a, b), max2(s, a, b)
    else:
        p = [s.mul(x[0], w[0]), s.mul(x[0], w[1]), s.mul(x[1], w[0]), s.mul(x[1], w[1])]
        low = min2(s, min2(s, p[0], p[1]), min2(s, p[2], p[3]))
        high = max2(s, max2(s, p[0], p[1]), max2(s, p[2], p[3]))
    if inside is None:
        new_l = step_down(s, s.add(acc_l, step_down(s, low)))
        return new_l, step_up(s, s.add(acc_h, step_up(s, high)))
    # the two selects side by side: LLVM makes them one branch around the
    # products (apart, two branches, the products computed before both)
    m = smallest_subnormal(s.element_type.bitwidth)
    t_l, t_h = step_down(s, low), step_up(s, high)
    t_l, t_h = s.select(inside, t_l, s.const(-m)), s.select(inside, t_h, s.const(m))
    return step_down(s, s.add(acc_l, t_l)), step_up(s, s.add(acc_h, t_h))


def signed_term(s: Scalar, x: Pair, w: SSAValue, acc_l: SSAValue, acc_h: SSAValue) -> Pair:
    """`fast_term` of a box times a point `w`, the two products' `min2`/`max2`
    taken by the sign of `w`: `x_lo·w` is the lower product where `w ≥ 0`,
    `x_hi·w` where `w < 0` (the proof: `passes/ibp/signed.py`)."""
    positive = s.cmp("oge", w, s.const(0.0))
    low = s.mul(s.select(positive, x[0], x[1]), w)
    high = s.mul(s.select(positive, x[1], x[0]), w)
    new_l = step_down(s, s.add(acc_l, step_down(s, low)))
    return new_l, step_up(s, s.add(acc_h, step_up(s, high)))


def finite_sign(s: Scalar, e: SSAValue, predicate: str) -> SSAValue:
    """`e` finite and `e <predicate> 0` (`oge`: the exact value is not below
    the rounded one, `ole`: not above)."""
    return s.both(finite(s, e), s.cmp(predicate, e, s.const(0.0)))


def sum_error(s: Scalar, a: SSAValue, b: SSAValue, total: SSAValue) -> SSAValue:
    """TwoSum's error term (`tlir.bounds.sum_error`)."""
    moved = s.sub(total, a)
    return s.add(s.sub(a, s.sub(total, moved)), s.sub(b, moved))


def tight_sum(s: Scalar, a: SSAValue, b: SSAValue, predicate: str, step) -> SSAValue:
    total = s.add(a, b)
    exact = finite_sign(s, sum_error(s, a, b, total), predicate)
    return s.select(exact, total, step(s, total))


def add_down(s: Scalar, a: SSAValue, b: SSAValue) -> SSAValue:
    if tight():
        return tight_sum(s, a, b, "oge", down)
    return down(s, s.add(a, b))


def add_up(s: Scalar, a: SSAValue, b: SSAValue) -> SSAValue:
    if tight():
        return tight_sum(s, a, b, "ole", up)
    return up(s, s.add(a, b))


def sub_down(s: Scalar, a: SSAValue, b: SSAValue) -> SSAValue:
    if tight():
        return tight_sum(s, a, s.neg(b), "oge", down)
    return down(s, s.sub(a, b))


def sub_up(s: Scalar, a: SSAValue, b: SSAValue) -> SSAValue:
    if tight():
        return tight_sum(s, a, s.neg(b), "ole", up)
    return up(s, s.sub(a, b))


def tight_product(s: Scalar, a: SSAValue, b: SSAValue, predicate: str, step) -> SSAValue:
    """`p = a·b`, kept where `fma(a, b, -p)` (exact where `tlir.bounds.product_known`
    holds) says the exact product is on the right side of it, else stepped."""
    p = s.mul(a, b)
    error = s(math.FmaOp(a, b, s.neg(p)))
    zero = s.const(0.0)
    threshold = product_threshold("float32" if s.element_type.bitwidth == 32 else "float64")
    big = s.cmp("oge", s(math.AbsFOp(p)), s.const(threshold))
    factor_zero = s.either(s.cmp("oeq", a, zero), s.cmp("oeq", b, zero))
    known = s.both(finite(s, p), s.either(big, factor_zero))
    exact = s.both(known, s.cmp(predicate, error, zero))
    return s.select(exact, p, step(s, p))


def mul_down(s: Scalar, a: SSAValue, b: SSAValue) -> SSAValue:
    if tight():
        return tight_product(s, a, b, "oge", down)
    return down(s, s.mul(a, b))


def mul_up(s: Scalar, a: SSAValue, b: SSAValue) -> SSAValue:
    if tight():
        return tight_product(s, a, b, "ole", up)
    return up(s, s.mul(a, b))


def min2(s: Scalar, a: SSAValue, b: SSAValue) -> SSAValue:
    return s.select(s.cmp("ogt", a, b), b, a)


def max2(s: Scalar, a: SSAValue, b: SSAValue) -> SSAValue:
    return s.select(s.cmp("ogt", a, b), a, b)


def interval_mul(s: Scalar, lx: SSAValue, ux: SSAValue, ly: SSAValue, uy: SSAValue) -> Pair:
    """The four products reduced as a balanced pair of pairs: TorchLean's
    `min2(min2(mulDown p1, mulDown p2), min2(mulDown p3, mulDown p4))`, computed
    as `nextDown` of the `min2`s of the products rounded to nearest (one step
    instead of four, the same bits: `min2(down a, down b) = down(min2(a, b))`,
    docs/verification.md#directed-rounding); the upper end alike. The tight
    steps depend on each product's error, so there the four are literal."""
    if tight():
        pairs = ((lx, ly), (lx, uy), (ux, ly), (ux, uy))
        lows = [mul_down(s, a, b) for a, b in pairs]
        highs = [mul_up(s, a, b) for a, b in pairs]
        lo = min2(s, min2(s, lows[0], lows[1]), min2(s, lows[2], lows[3]))
        hi = max2(s, max2(s, highs[0], highs[1]), max2(s, highs[2], highs[3]))
        return lo, hi
    p = [s.mul(lx, ly), s.mul(lx, uy), s.mul(ux, ly), s.mul(ux, uy)]
    lo = down(s, min2(s, min2(s, p[0], p[1]), min2(s, p[2], p[3])))
    hi = up(s, max2(s, max2(s, p[0], p[1]), max2(s, p[2], p[3])))
    return lo, hi


def point_mul(s: Scalar, lx: SSAValue, ux: SSAValue, w: SSAValue) -> Pair:
    """`interval_mul(lx, ux, w, w)` in two products: `min2(mulDown(lx, w),
    mulDown(ux, w))` as `down(min2(lx·w, ux·w))`, the upper end alike (literal
    in the tight rules)."""
    if tight():
        return (
            min2(s, mul_down(s, lx, w), mul_down(s, ux, w)),
            max2(s, mul_up(s, lx, w), mul_up(s, ux, w)),
        )
    a, b = s.mul(lx, w), s.mul(ux, w)
    return down(s, min2(s, a, b)), up(s, max2(s, a, b))


def product(s: Scalar, x: Pair, w: Pair | SSAValue) -> Pair:
    """A box times a box, or times a point (a constant parameter)."""
    if isinstance(w, SSAValue):
        return point_mul(s, x[0], x[1], w)
    return interval_mul(s, x[0], x[1], w[0], w[1])


def tight_quotient(s: Scalar, a: SSAValue, b: SSAValue, upward: bool) -> SSAValue:
    """`q = a / b`, kept where the sign of `fma(-q, b, a)` (the sign of
    `a − q·b` where `tlir.bounds.quotient_known` holds) puts the exact
    quotient on the right side of it, else stepped."""
    q = s.div(a, b)
    r = s(math.FmaOp(s.neg(q), b, a))
    zero = s.const(0.0)
    wide = s.element_type.bitwidth == 64
    threshold = product_threshold("float64" if wide else "float32")
    normal = 2.0**-1022 if wide else 2.0**-126
    finite_all = s.both(finite(s, a), s.both(finite(s, b), finite(s, q)))
    big = s.both(
        s.cmp("oge", s(math.AbsFOp(q)), s.const(normal)),
        s.cmp("oge", s(math.AbsFOp(s.mul(q, b))), s.const(threshold)),
    )
    zero_quotient = s.both(s.cmp("oeq", a, zero), s.cmp("une", b, zero))
    known = s.both(finite_all, s.either(big, zero_quotient))
    # the exact quotient is q + r/b: above q where r and b have one sign
    side = s.cmp("olt" if upward else "ogt", r, zero)
    same = negate(s, s(arith.XOrIOp(side, s.cmp("ogt", b, zero))))
    exact = s.both(known, s.either(s.cmp("oeq", r, zero), same))
    return s.select(exact, q, (up if upward else down)(s, q))


def div_bounds(s: Scalar, al, ah, bl, bh) -> tuple[SSAValue, SSAValue, SSAValue]:
    """(lo, hi, ok): four quotients to nearest, min2/max2, one step out; ok
    (i1) where the divisor's interval avoids 0. The tight rules take the
    literal min2/max2 of four tight quotients."""
    zero = s.const(0.0)
    ok = s.either(s.cmp("ogt", bl, zero), s.cmp("ogt", zero, bh))
    if tight():
        pairs = ((al, bl), (al, bh), (ah, bl), (ah, bh))
        lows = [tight_quotient(s, a, b, False) for a, b in pairs]
        highs = [tight_quotient(s, a, b, True) for a, b in pairs]
        lo = min2(s, min2(s, lows[0], lows[1]), min2(s, lows[2], lows[3]))
        return lo, max2(s, max2(s, highs[0], highs[1]), max2(s, highs[2], highs[3])), ok
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
